/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: a file's nm listing (sp_symfile_nm()), kept on
 * disk by build-id beside its index (dwcache.h), so that the next run
 * over the same file maps it instead of walking and sorting the symbol
 * table (see nmcache.c for the format and the rules of trust).
 */
#ifndef SYMPROF_SYMBOLIZE_NMCACHE_H
#define SYMPROF_SYMBOLIZE_NMCACHE_H

#include <stddef.h>
#include <stdint.h>

struct sp_nm_line;

/* Whose listing: the file (by build-id) and the path it was read from. */
struct sp_nmcache_key {
	const uint8_t *build_id;
	size_t build_id_len;
	const char *path;
};

/* A loaded listing: its lines point into the mapped file. */
struct sp_nmcache_hit {
	struct sp_nm_line *lines; /* n + 1 of them, malloc'ed */
	size_t n;
	const void *map; /* munmap(map, map_size) once the lines are dropped */
	size_t map_size;
};

/*
 * Loads key's listing from the cache directory `dir`: 0 with *hit
 * filled, or -1 when there is none that can be trusted (missing, written
 * by another build of symprof or in another format, for another build-id
 * or another file: path, size, modification time; truncated, corrupt, or
 * lines out of address order). Never fails otherwise.
 */
int sp_nmcache_load(const char *dir, const struct sp_nmcache_key *k, struct sp_nmcache_hit *hit);

/* Writes key's listing of n lines into dir (a temporary file renamed
 * over the old one); errors are ignored. */
void sp_nmcache_store(const char *dir, const struct sp_nmcache_key *k,
		      const struct sp_nm_line *lines, size_t n);

/* The path of key's listing in dir (malloc'ed): xx/yyyy.nm; NULL without
 * a build-id. */
char *sp_nmcache_path(const char *dir, const struct sp_nmcache_key *k);

#endif
