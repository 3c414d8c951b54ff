/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: the index cache, the line table and the
 * functions built from a file's DWARF, kept on disk by build-id so that
 * the next run over the same file loads them instead of reading the DWARF
 * (see dwcache.c for the file format and the rules of trust).
 */
#ifndef SYMPROF_SYMBOLIZE_DWCACHE_H
#define SYMPROF_SYMBOLIZE_DWCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "symprof/buf.h"

struct sp_linetab;
struct sp_dwfuncs;
struct sp_partial;
struct sp_strtab;

/* What an index is for: the file (by build-id) and the file its DWARF is
 * read from (the file itself or its separate debug file). */
struct sp_dwcache_key {
	const uint8_t *build_id;
	size_t build_id_len;
	const char *dwarf_path;
	/* 1: the tables of a reading for a profile's addresses (of the units
	 * that hold them, or whole where that is not worth it), kept apart
	 * from those of a reading for any address, so that neither kind of
	 * run loads the other's (a whole library's index for a profile that
	 * needs a few of its units, or a growing partial one for addr2line) */
	int for_profile;
};

/* A cached index: its tables, and for a partial reading its units. */
struct sp_dwcache_hit {
	struct sp_linetab *lines;
	struct sp_dwfuncs *funcs;
	int partial; /* 1: only some units were read, see `units` */
};

/* How a loaded index will be used (sp_dwcache_load()). */
enum sp_dwcache_how {
	/* its names adopted by an empty string table where they are in the
	 * mapped file (else interned: the table is about to be unpacked, and
	 * every row will be read) */
	SP_DWCACHE_ADOPT = 1,
	/* every row will be read (a gprof-style -l table) */
	SP_DWCACHE_ALL_ROWS = 2,
};

/*
 * Loads the index of key from the cache directory `dir`: 0 with *hit
 * filled (names interned in strs, or, with SP_DWCACHE_ADOPT in `how` and
 * strs empty, adopted by strs where they are in the mapped file, which
 * strs then keeps until its release; for a partial index, *units
 * described as sp_partial_restore() does; the line table keeps the file
 * mapped, its rows decoded as lookups reach them, until sp_linetab_free()
 * or sp_linetab_unpack()), or -1 when there is none that can be trusted:
 * missing, written by another build of symprof or in another format, for
 * another build-id or another DWARF file (path, size, mtime), truncated
 * or corrupt. When every row will be read (SP_DWCACHE_ALL_ROWS, or no
 * SP_DWCACHE_ADOPT), every block of line records is checked here;
 * otherwise as lookups reach it (see sp_image_cache_damage()). Never
 * fails otherwise.
 */
int sp_dwcache_load(const char *dir, const struct sp_dwcache_key *k, struct sp_strtab *strs,
		    unsigned how, struct sp_dwcache_hit *hit, struct sp_partial *units);

/*
 * Writes the index of key (a partial one when units is not NULL) into
 * dir, creating it: written to a temporary file and renamed over the old
 * one, so that readers see a whole file or none. Errors (no space, no
 * permission) are ignored: the cache is an optimisation.
 */
void sp_dwcache_store(const char *dir, const struct sp_dwcache_key *k,
		      const struct sp_linetab *lines, const struct sp_dwfuncs *funcs,
		      const struct sp_partial *units);

/*
 * The symbol cache: the table of a file without DWARF (sp_dwfuncs_new_syms(),
 * made by walking its symbol table and sorting it, a fixed cost per
 * library without a debug file) in dir/xx/yyyy.sym, key's dwarf_path the
 * file itself. Trusted as an index is (format, symprof's build, build-id,
 * the file's path, size and mtime, a checksum). The loaded table's names
 * stay in the mapped file, which strs keeps until its release; NULL if
 * there is none that can be trusted. Errors writing are ignored.
 */
void sp_dwcache_store_syms(const char *dir, const struct sp_dwcache_key *k,
			   const struct sp_dwfuncs *funcs);
struct sp_dwfuncs *sp_dwcache_load_syms(const char *dir, const struct sp_dwcache_key *k,
					struct sp_strtab *strs);

/* The path of key's cache file in dir (malloc'ed): xx/yyyy.idx, or
 * xx/yyyy.p.idx for_profile; NULL without a build-id. */
char *sp_dwcache_path(const char *dir, const struct sp_dwcache_key *k);
/* The checksum ending a cache file, of the n bytes before it (for tests
 * that damage a file on purpose). */
uint64_t sp_dwcache_checksum(const uint8_t *p, size_t n);

/* For the other cache files of symbolize/ (dmcache.c): */
/* A cache file being read: each read is checked against the end, and a
 * read past it sets `bad` (and every later read fails). */
struct sp_cache_in {
	const uint8_t *p, *end;
	int bad;
};

/* n bytes, or NULL (and bad) if they are not there. */
static inline const uint8_t *sp_cache_take(struct sp_cache_in *r, uint64_t n)
{
	const uint8_t *p = r->p;

	if (r->bad || n > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return NULL;
	}
	r->p += n;
	return p;
}

struct stat;

/*
 * The header every cache file starts with: its 8-byte magic, its format,
 * the byte-order mark, the build of symprof that wrote it, the build-id
 * of the file it is for, and (with path) the file it was read from, by
 * path, size and modification time:
 *   magic u32 format u32 bom  u32 n, self  u32 n, build-id
 *   [u32 n, path  u64 size  u64 mtime_s  u64 mtime_ns]
 */
void sp_cache_put_header(struct sp_buf *b, const char *magic, uint32_t format,
			 const uint8_t *build_id, size_t build_id_len, const char *path,
			 const struct stat *st);
/* Reads such a header: 0 if all of it matches, else -1 (and bad). */
int sp_cache_check_header(struct sp_cache_in *r, const char *magic, uint32_t format,
			  const uint8_t *build_id, size_t build_id_len, const char *path,
			  const struct stat *st);

/* Appending to a cache file being written, in the host's order. */
static inline void sp_cache_put_u32(struct sp_buf *b, uint32_t v)
{
	sp_buf_add(b, &v, 4);
}

static inline void sp_cache_put_u64(struct sp_buf *b, uint64_t v)
{
	sp_buf_add(b, &v, 8);
}

/* An n-byte number (n <= 8) in the host's order, 0 if not there. */
static inline uint64_t sp_cache_get_n(struct sp_cache_in *r, int n)
{
	const uint8_t *p = sp_cache_take(r, (uint64_t)n);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, (size_t)n); /* little-endian host, checked by the BOM */
	return v;
}

/* dir/xx/yyyy followed by suffix, xxyyyy the build-id in hex (malloc'ed);
 * NULL without a directory or a build-id. */
char *sp_dwcache_file_path(const char *dir, const uint8_t *build_id, size_t build_id_len,
			   const char *suffix);
/* Who writes this run's files: symprof's version and its own build-id. */
const char *sp_dwcache_self_id(void);
/* The whole file at path, mapped with its pages at once (munmap() it);
 * NULL if there is none or it is shorter than 16 bytes. */
const uint8_t *sp_dwcache_map(const char *path, size_t *size);
/* Writes len bytes to path through a temporary file renamed over it,
 * making its directories; errors are ignored. */
void sp_dwcache_write(char *path, const void *data, size_t len);

#endif
