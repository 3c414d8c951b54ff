/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The index cache (dwcache.h): what symprof builds from a file's DWARF,
 * kept on disk so that the next run over the same file costs a read.
 *
 * Reading a library's DWARF is a fixed cost that does not depend on the
 * profile: libc6-dbg's debug file is 2.9 MB of zlib streams that must be
 * inflated up to the last unit a profile touches, and a 5,600-function
 * program's own DWARF takes longer to read than everything else a pprof
 * report does. The tables built from it (the line table of lines.c and
 * the functions of dwarf-funcs.c) are a few MB of arrays; they are
 * written here once and loaded by later runs, like perf's build-id cache.
 *
 * Where: DIR/xx/yyyy.idx, xxyyyy the file's build-id in hex (files
 * without a build-id are not cached), for the tables of a reading for any
 * address; DIR/xx/yyyy.p.idx for those of a reading for a profile's
 * addresses (often of a few units, see dwarf-partial.c): the two kinds
 * never stand in for each other. DIR/xx/yyyy.sym holds the table of the
 * ELF symbols of a file without DWARF (sp_dwfuncs_new_syms()): a header
 * as below with magic "SPSYMTB\n" and the ELF file's path, the strings,
 * the functions' part (no functions, the symbols), the checksum. DIR is $XDG_CACHE_HOME/symprof or
 * ~/.cache/symprof, chosen by cli/. Deleting any of it is always safe.
 *
 * Trust: a file is used only if everything in its header matches this
 * run: the format version, the build of symprof that wrote it (its
 * version and its own build-id, so a rebuilt symprof never reads what
 * another build wrote), the build-id, and the DWARF file's path, size and
 * modification time (a debug file installed or replaced since then means
 * another index). A file that is truncated, corrupt (a checksum covers it
 * all but the line records, see below) or inconsistent is ignored and
 * written again. Files are written to a temporary name and renamed, so
 * that a reader sees a whole file.
 *
 * The line records are most of an index (on a 5,600-function program,
 * 4.8 of its 8.6 MB) and a names-only report reads almost none of them,
 * so they come after the checksummed part, each block of
 * sp_line_block_rows() rows with its own sum in that part: the line table
 * checks a block before it decodes any of its rows (lines.c). A run about
 * to decode every row checks every block as it loads, and a damaged one
 * makes the load fail as any other damage does; a block found damaged
 * later is answered as rows without a line, the file is removed, and the
 * run is failed by its caller (sp_image_cache_damage()). The addresses
 * (the keys every lookup searches) are in the checksummed part.
 *
 * Layout, in the host's byte order (a file written by a host of the
 * other order fails the byte-order mark, and counts as stale):
 *
 *   "SPDWIDX\n" u32 format u32 byte-order-mark
 *   str self  bytes build-id  str dwarf-path  u64 size  u64 mtime_s  u64 mtime_ns
 *   u32 partial  [partial: u64 nar {u64 lo u64 hi u64 cu}*  u64 ncus u64 cus* u64 die_off*
 *                 u64 nstubs {u64 lo u64 hi}*]
 *   u64 nstrings {u32 len u32 hash bytes NUL}*   distinct strings, hash sp_strtab_hash()'s;
 *                                      they are referred to by u32: 0 NULL, i+1
 *   line table: u64 nrows u64 addr*  u64 nblocks u64 sum*   the blocks' records' checksums
 *               u32 shift u64 nbuckets u32*       the rows' address index (addrindex.h)
 *               u64 nruns {u64 start u64 end u32 unit}*  u64 nunits u8* u32 warning
 *   functions:  u64 nfns {u32 name u32 call_file u64 low u32 caller u32 call_line u32 unit
 *               u8 linkage u8 inlined}*  u64 nsegs u64* u32*
 *               u64 nsecs {u64 lo u64 hi u64 first u64 n}*  u64 nsyms u64* u32* u32*
 *               u64 norigins u64*  u64 nnolink {u64 fn u32 origin}*  u64 naliases {u64 u32}*
 *   u64 checksum of everything before it
 *   line records: {u32 file u32 line u32 column u32 discr u8 stmt u8 end}*, a row each
 *   u64 the records' length in bytes (0 in a .sym file)
 */
#include "dwcache.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addrindex.h"
#include "dwarf-funcs.h"
#include "dwarf-partial.h"
#include "lines.h"
#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/hashmap.h"
#include "symprof/strtab.h"
#include "symprof/symbolize.h"

#define MAGIC "SPDWIDX\n"
#define FORMAT 7
#define SYMS_MAGIC "SPSYMTB\n"
#define SYMS_FORMAT 2
#define BOM 0x01020304u

#ifndef SYMPROF_VERSION_STRING
#define SYMPROF_VERSION_STRING "unknown"
#endif

/* ---- who wrote it: symprof's version and its own build-id ---- */

static int self_note(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct sp_buf *b = ctx;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		while (off + 12 <= ph->p_filesz) {
			uint32_t nsz, dsz, type;

			memcpy(&nsz, p + off, 4);
			memcpy(&dsz, p + off + 4, 4);
			memcpy(&type, p + off + 8, 4);
			off += 12;
			if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(p + off, "GNU", 4)) {
				const uint8_t *id = p + off + 4;
				uint32_t k;

				for (k = 0; k < dsz && off + 4 + k < ph->p_filesz; k++)
					sp_buf_addf(b, "%02x", id[k]);
				return 1;
			}
			off += ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
		}
	}
	return 1; /* the first object is the program itself */
}

static char self_id_text[160];

static void self_id_make(void)
{
	struct sp_buf b = SP_BUF_INIT;

	sp_buf_addf(&b, "symprof %s ", SYMPROF_VERSION_STRING);
	dl_iterate_phdr(self_note, &b);
	snprintf(self_id_text, sizeof(self_id_text), "%s", b.buf);
	sp_buf_release(&b);
}

/* Made once, by whichever line worker (or thread) asks first. */
const char *sp_dwcache_self_id(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, self_id_make);
	return self_id_text;
}

/* ---- the file's place and the checksum ---- */

char *sp_dwcache_file_path(const char *dir, const uint8_t *build_id, size_t build_id_len,
			   const char *suffix)
{
	struct sp_buf b = SP_BUF_INIT;
	size_t i;

	if (!dir || !*dir || !build_id || build_id_len < 2)
		return NULL;
	sp_buf_addf(&b, "%s/%02x/", dir, build_id[0]);
	for (i = 1; i < build_id_len; i++)
		sp_buf_addf(&b, "%02x", build_id[i]);
	sp_buf_addstr(&b, suffix);
	return sp_buf_detach(&b, NULL);
}

char *sp_dwcache_path(const char *dir, const struct sp_dwcache_key *k)
{
	return sp_dwcache_file_path(dir, k->build_id, k->build_id_len,
				    k->for_profile ? ".p.idx" : ".idx");
}

#if defined(__GNUC__) || defined(__clang__)
/* Four lanes at once, kept in registers (GCC's vectoriser of the plain
 * loop below keeps the sums in memory: 0.6 instructions a byte). */
typedef uint32_t sp_v4u32 __attribute__((vector_size(16)));

static size_t checksum_lanes(const uint8_t *p, size_t n, uint32_t a[16], uint32_t b[16])
{
	sp_v4u32 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, b0 = {0}, b1 = {0}, b2 = {0}, b3 = {0};
	sp_v4u32 w0, w1, w2, w3;
	size_t i;

	for (i = 0; i + 64 <= n; i += 64) {
		memcpy(&w0, p + i, 16);
		memcpy(&w1, p + i + 16, 16);
		memcpy(&w2, p + i + 32, 16);
		memcpy(&w3, p + i + 48, 16);
		a0 += w0;
		a1 += w1;
		a2 += w2;
		a3 += w3;
		b0 += a0;
		b1 += a1;
		b2 += a2;
		b3 += a3;
	}
	memcpy(a, &a0, 16);
	memcpy(a + 4, &a1, 16);
	memcpy(a + 8, &a2, 16);
	memcpy(a + 12, &a3, 16);
	memcpy(b, &b0, 16);
	memcpy(b + 4, &b1, 16);
	memcpy(b + 8, &b2, 16);
	memcpy(b + 12, &b3, 16);
	return i;
}
#else
static size_t checksum_lanes(const uint8_t *p, size_t n, uint32_t a[16], uint32_t b[16])
{
	uint32_t w;
	size_t i, k;

	memset(a, 0, 16 * sizeof(*a));
	memset(b, 0, 16 * sizeof(*b));
	for (i = 0; i + 64 <= n; i += 64)
		for (k = 0; k < 16; k++) {
			memcpy(&w, p + i + 4 * k, 4);
			a[k] += w;
			b[k] += a[k];
		}
	return i;
}
#endif

uint64_t sp_dwcache_checksum(const uint8_t *p, size_t n)
{
	/* Fletcher's sums over 32-bit words in sixteen lanes (SIMD adds,
	 * faster than memory): a changed word changes its lane's first sum,
	 * a word moved within its lane the second, one moved to another lane
	 * both lanes' */
	uint32_t a[16], b[16];
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, tail = 0;
	size_t i, k;

	i = checksum_lanes(p, n, a, b);
	for (k = 0; k < 16; k++)
		h = sp_hash_u64(h ^ ((uint64_t)a[k] << 32 | b[k]));
	for (; i < n; i++)
		tail = sp_hash_u64(tail ^ p[i] ^ (uint64_t)(n - i) << 8);
	return sp_hash_u64(h ^ tail);
}

/* ---- writing ---- */

#define REF_MEMO 1024 /* a power of two */

struct out {
	struct sp_buf b;
	struct sp_strtab canon;	 /* one copy of each string: a file's strings are
				  * distinct, as the reader's adoption wants */
	struct sp_pairmap index; /* canon's pointer -> strs[] */
	const char **strs;
	size_t nstrs, strs_alloc;
	/* the last reference of each slot's pointers: the same names and
	 * files come back for row after row and function after function */
	struct {
		const char *s;
		uint32_t ref;
	} memo[REF_MEMO];
};

static void put(struct out *o, const void *p, size_t n)
{
	if (n) /* a table of symbols alone has no arrays of functions */
		sp_buf_add(&o->b, p, n);
}

static void put_u8(struct out *o, uint8_t v)
{
	put(o, &v, 1);
}

static void put_u32(struct out *o, uint32_t v)
{
	put(o, &v, 4);
}

static void put_u64(struct out *o, uint64_t v)
{
	put(o, &v, 8);
}

/* A length-prefixed field. */
static void put_field(struct sp_buf *b, const void *p, size_t n)
{
	sp_cache_put_u32(b, (uint32_t)n);
	sp_buf_add(b, p, n);
}

/* A string of the table: length, hash, bytes and a NUL (the reader keeps
 * it where it is). */
static void put_str(struct out *o, const char *s)
{
	size_t n = strlen(s);

	put_u32(o, (uint32_t)n);
	put_u32(o, sp_strtab_hash(s, n));
	put(o, s, n + 1);
}

static void str_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct out *o = ctx;

	*k1 = (uint64_t)(uintptr_t)o->strs[i];
	*k2 = 0;
}

/* ref() of a string not in the memo. The tables' strings come from more
 * than one string table, so equal strings may have several pointers. */
static uint32_t ref_new(struct out *o, const char *s)
{
	uint32_t i;

	s = sp_strtab_intern(&o->canon, s);
	SP_ALLOC_GROW(o->strs, o->nstrs + 1, o->strs_alloc);
	o->strs[o->nstrs] = s;
	i = sp_pairmap_put(&o->index, (uint64_t)(uintptr_t)s, 0, (uint32_t)o->nstrs);
	if (i == o->nstrs)
		o->nstrs++;
	return i + 1;
}

/* A string's reference (0: NULL, i + 1: the i-th), entered if new. */
static uint32_t ref(struct out *o, const char *s)
{
	size_t k;

	if (!s)
		return 0;
	k = sp_ptr_slot(s, REF_MEMO);
	if (o->memo[k].s == s)
		return o->memo[k].ref;
	o->memo[k].s = s;
	o->memo[k].ref = ref_new(o, s);
	return o->memo[k].ref;
}

/* Block b of the line records of a table of nrows (sp_line_block_rows()
 * rows a block): its first row in *first, its number of rows returned. */
static size_t records_block(size_t nrows, size_t b, size_t *first)
{
	size_t per = sp_line_block_rows(nrows);

	*first = b * per;
	return nrows - *first < per ? nrows - *first : per;
}

/* The line table: its rows' addresses here, the rest of each row as a
 * record (lines.h: SP_LINE_PAYLOAD_SIZE) in `records`, checksummed by
 * blocks of sp_line_block_rows() rows (the sums here). */
static void put_lines(struct out *o, const struct sp_linetab_parts *l, struct sp_buf *records)
{
	size_t i, nblocks = sp_line_nblocks(l->nrows);

	const char *file = NULL;
	uint32_t file_ref = 0;
	uint8_t *p;

	put_u64(o, l->nrows);
	for (i = 0; i < l->nrows; i++)
		put_u64(o, l->rows[i].addr);
	sp_buf_grow(records, l->nrows * SP_LINE_PAYLOAD_SIZE);
	p = (uint8_t *)records->buf + records->len;
	for (i = 0; i < l->nrows; i++, p += SP_LINE_PAYLOAD_SIZE) {
		const struct sp_line *r = &l->rows[i];

		if (r->file != file || !i) {
			file = r->file;
			file_ref = ref(o, file);
		}
		sp_line_pack(p, r, file_ref);
	}
	sp_buf_setlen(records, records->len + l->nrows * SP_LINE_PAYLOAD_SIZE);
	put_u64(o, nblocks);
	for (i = 0; i < nblocks; i++) {
		size_t first, n = records_block(l->nrows, i, &first);

		put_u64(o, sp_dwcache_checksum((const uint8_t *)records->buf +
						       first * SP_LINE_PAYLOAD_SIZE,
					       n * SP_LINE_PAYLOAD_SIZE));
	}
	/* their address index, which the reader borrows as it is */
	put_u32(o, l->rindex->shift);
	put_u64(o, l->rindex->nbuckets);
	put(o, l->rindex->lookup, l->rindex->nbuckets * sizeof(uint32_t));
	put_u64(o, l->nruns);
	for (i = 0; i < l->nruns; i++) {
		put_u64(o, l->runs[i].start);
		put_u64(o, l->runs[i].end);
		put_u32(o, l->runs[i].unit);
	}
	put_u64(o, l->nunits);
	put(o, l->ustate, l->nunits);
	put_u32(o, ref(o, l->warning));
}

static void put_funcs(struct out *o, const struct sp_dwfuncs_parts *f)
{
	size_t i;

	put_u64(o, f->nfns);
	for (i = 0; i < f->nfns; i++) {
		const struct sp_dwfn *fn = &f->fns[i];

		put_u32(o, ref(o, fn->name));
		put_u32(o, ref(o, fn->call_file));
		put_u64(o, fn->low);
		put_u32(o, fn->caller);
		put_u32(o, fn->call_line);
		put_u32(o, fn->unit);
		put_u8(o, fn->is_linkage);
		put_u8(o, fn->inlined);
	}
	put_u64(o, f->nsegs);
	put(o, f->seg_start, f->nsegs * 8);
	put(o, f->seg_fn, f->nsegs * 4);
	put_u64(o, f->nsecs);
	for (i = 0; i < f->nsecs; i++) {
		put_u64(o, f->secs[i].lo);
		put_u64(o, f->secs[i].hi);
		put_u64(o, f->secs[i].first);
		put_u64(o, f->secs[i].n);
	}
	put_u64(o, f->nsyms);
	put(o, f->sym_addr, f->nsyms * 8);
	for (i = 0; i < f->nsyms; i++)
		put_u32(o, ref(o, f->sym_name[i]));
	for (i = 0; i < f->nsyms; i++)
		put_u32(o, ref(o, f->sym_file[i]));
	put_u64(o, f->norigins);
	for (i = 0; i < f->norigins; i++)
		put_u64(o, f->origins[i].outline);
	put_u64(o, f->nnolink);
	for (i = 0; i < f->nnolink; i++) {
		put_u64(o, f->nolink[i].fn);
		put_u32(o, f->nolink[i].origin);
	}
	put_u64(o, f->naliases);
	for (i = 0; i < f->naliases; i++) {
		put_u64(o, f->aliases[i].addr);
		put_u32(o, ref(o, f->aliases[i].name));
	}
}

void sp_cache_put_header(struct sp_buf *b, const char *magic, uint32_t format,
			 const uint8_t *build_id, size_t build_id_len, const char *path,
			 const struct stat *st)
{
	const char *self = sp_dwcache_self_id();

	sp_buf_add(b, magic, 8);
	sp_cache_put_u32(b, format);
	sp_cache_put_u32(b, BOM);
	put_field(b, self, strlen(self));
	put_field(b, build_id, build_id_len);
	if (!path)
		return;
	put_field(b, path, strlen(path));
	sp_cache_put_u64(b, (uint64_t)st->st_size);
	sp_cache_put_u64(b, (uint64_t)st->st_mtim.tv_sec);
	sp_cache_put_u64(b, (uint64_t)st->st_mtim.tv_nsec);
}

static void put_units(struct out *o, const struct sp_partial *p)
{
	size_t i;

	put_u32(o, p != NULL);
	if (!p)
		return;
	put_u64(o, p->nar);
	for (i = 0; i < p->nar; i++) {
		put_u64(o, p->ar[i].lo);
		put_u64(o, p->ar[i].hi);
		put_u64(o, p->ar[i].cu);
	}
	put_u64(o, p->ncus);
	put(o, p->cus, p->ncus * 8);
	put(o, p->die_off, p->ncus * 8);
	put_u64(o, p->nstubs);
	put(o, p->stubs, p->nstubs * 16);
}

/* mkdir -p of the directory part of path. */
static int make_dirs(char *path)
{
	char *p;

	for (p = path + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

void sp_dwcache_write(char *path, const void *data, size_t len)
{
	struct sp_buf tmp = SP_BUF_INIT;
	ssize_t n = 0;
	size_t done = 0;
	int fd;

	if (make_dirs(path) < 0)
		return;
	sp_buf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		sp_buf_release(&tmp);
		return;
	}
	while (done < len && (n = write(fd, (const char *)data + done, len - done)) > 0)
		done += (size_t)n;
	if (close(fd) != 0 || done != len || rename(tmp.buf, path) != 0)
		unlink(tmp.buf);
	sp_buf_release(&tmp);
}

static void out_init(struct out *o)
{
	memset(o, 0, sizeof(*o));
	o->b = (struct sp_buf)SP_BUF_INIT;
	sp_strtab_init(&o->canon);
	sp_pairmap_init(&o->index, str_key, o);
}

static void out_release(struct out *o)
{
	sp_pairmap_release(&o->index);
	sp_strtab_release(&o->canon);
	free(o->strs);
	sp_buf_release(&o->b);
}

/* Writes the file: o's header, then body's strings and body, then the
 * checksum of all that, the line records and their length. */
static void finish(char *path, struct out *o, const struct out *body, const struct sp_buf *records)
{
	size_t i;

	put_u64(o, body->nstrs);
	for (i = 0; i < body->nstrs; i++)
		put_str(o, body->strs[i]);
	put(o, body->b.buf, body->b.len);
	put_u64(o, sp_dwcache_checksum((const uint8_t *)o->b.buf, o->b.len));
	put(o, records->buf, records->len);
	put_u64(o, records->len);
	sp_dwcache_write(path, o->b.buf, o->b.len);
}

void sp_dwcache_store(const char *dir, const struct sp_dwcache_key *k,
		      const struct sp_linetab *lines, const struct sp_dwfuncs *funcs,
		      const struct sp_partial *units)
{
	struct sp_linetab_parts lp;
	struct sp_dwfuncs_parts fp;
	struct sp_buf records = SP_BUF_INIT;
	struct out body, o;
	struct stat st;
	char *path = sp_dwcache_path(dir, k);

	if (!path || !lines || !funcs || stat(k->dwarf_path, &st) < 0 ||
	    sp_linetab_get_parts(lines, &lp) < 0) {
		free(path);
		return;
	}
	sp_dwfuncs_get_parts(funcs, &fp);
	out_init(&body);
	out_init(&o);
	put_lines(&body, &lp, &records);
	put_funcs(&body, &fp);
	sp_cache_put_header(&o.b, MAGIC, FORMAT, k->build_id, k->build_id_len, k->dwarf_path, &st);
	put_units(&o, units);
	finish(path, &o, &body, &records);
	sp_buf_release(&records);
	out_release(&body);
	out_release(&o);
	free(path);
}

void sp_dwcache_store_syms(const char *dir, const struct sp_dwcache_key *k,
			   const struct sp_dwfuncs *funcs)
{
	struct sp_dwfuncs_parts fp;
	struct sp_buf none = SP_BUF_INIT;
	struct out body, o;
	struct stat st;
	char *path = sp_dwcache_file_path(dir, k->build_id, k->build_id_len, ".sym");

	if (!path || !funcs || stat(k->dwarf_path, &st) < 0) {
		free(path);
		return;
	}
	sp_dwfuncs_get_parts(funcs, &fp);
	out_init(&body);
	out_init(&o);
	put_funcs(&body, &fp);
	sp_cache_put_header(&o.b, SYMS_MAGIC, SYMS_FORMAT, k->build_id, k->build_id_len,
			    k->dwarf_path, &st);
	finish(path, &o, &body, &none);
	out_release(&body);
	out_release(&o);
	free(path);
}

/* ---- reading ---- */

struct in {
	struct sp_cache_in c;
	const char **strs;
	uint64_t nstrs;
};

static const uint8_t *take(struct in *r, uint64_t n)
{
	return sp_cache_take(&r->c, n);
}

static uint64_t get_n(struct in *r, int n)
{
	return sp_cache_get_n(&r->c, n);
}

/* A count of records of `size` bytes each that must fit in what is left. */
static uint64_t get_count(struct in *r, uint64_t size)
{
	uint64_t n = get_n(r, 8);

	if (r->c.bad || n > (uint64_t)(r->c.end - r->c.p) / size)
		r->c.bad = 1;
	return r->c.bad ? 0 : n;
}

static const char *get_ref(struct in *r)
{
	uint64_t i = get_n(r, 4);

	if (i > r->nstrs) {
		r->c.bad = 1;
		return NULL;
	}
	return i ? r->strs[i - 1] : NULL;
}

/* A length-prefixed field equal to want (len bytes), or bad. */
static void expect_field(struct sp_cache_in *r, const void *want, size_t len)
{
	uint64_t n = sp_cache_get_n(r, 4);
	const uint8_t *p = sp_cache_take(r, n);

	if (p && (n != len || memcmp(p, want, len)))
		r->bad = 1;
}

int sp_cache_check_header(struct sp_cache_in *r, const char *magic, uint32_t format,
			  const uint8_t *build_id, size_t build_id_len, const char *path,
			  const struct stat *st)
{
	const uint8_t *m = sp_cache_take(r, 8);
	const char *self = sp_dwcache_self_id();

	if (!m || memcmp(m, magic, 8) || sp_cache_get_n(r, 4) != format ||
	    sp_cache_get_n(r, 4) != BOM) {
		r->bad = 1;
		return -1;
	}
	expect_field(r, self, strlen(self));
	expect_field(r, build_id, build_id_len);
	if (path) {
		expect_field(r, path, strlen(path));
		if (sp_cache_get_n(r, 8) != (uint64_t)st->st_size ||
		    sp_cache_get_n(r, 8) != (uint64_t)st->st_mtim.tv_sec ||
		    sp_cache_get_n(r, 8) != (uint64_t)st->st_mtim.tv_nsec)
			r->bad = 1;
	}
	return r->bad ? -1 : 0;
}

/*
 * An array of n records (and a spare one) about to be filled from the
 * file: its pages made at once (sp_prefault()), and zeroed if asked.
 */
static void *table_array(uint64_t n, size_t size, int zero)
{
	void *p = sp_xreallocarray(NULL, (size_t)n + 1, size);

	sp_prefault(p, ((size_t)n + 1) * size);
	if (zero)
		memset(p, 0, ((size_t)n + 1) * size);
	return p;
}

static int get_units(struct in *r, struct sp_partial *units)
{
	struct sp_partial_arange *ar;
	uint64_t nar, ncus, nstubs, i, *cus, *die_off, (*stubs)[2];
	uint32_t partial = (uint32_t)get_n(r, 4);

	if (!partial || r->c.bad)
		return 0;
	nar = get_count(r, 24);
	ar = sp_xreallocarray(NULL, nar + 1, sizeof(*ar));
	for (i = 0; i < nar; i++) {
		ar[i].lo = get_n(r, 8);
		ar[i].hi = get_n(r, 8);
		ar[i].cu = get_n(r, 8);
	}
	ncus = get_count(r, 16);
	cus = sp_xreallocarray(NULL, ncus + 1, sizeof(*cus));
	die_off = sp_xreallocarray(NULL, ncus + 1, sizeof(*die_off));
	for (i = 0; i < ncus; i++)
		cus[i] = get_n(r, 8);
	for (i = 0; i < ncus; i++)
		die_off[i] = get_n(r, 8);
	nstubs = get_count(r, 16);
	stubs = sp_xreallocarray(NULL, nstubs + 1, sizeof(*stubs));
	for (i = 0; i < nstubs; i++) {
		stubs[i][0] = get_n(r, 8);
		stubs[i][1] = get_n(r, 8);
	}
	sp_partial_restore(units, ar, (size_t)nar, cus, die_off, (size_t)ncus, stubs,
			   (size_t)nstubs);
	return 1;
}

/* The mapped file and the strings' pointers, held by whatever keeps
 * pointers into it: the loader, a line table read from it (its rows stay
 * in the file, see get_lines()) and a string table that adopted its
 * strings. Each holds one reference. */
struct mapping {
	const uint8_t *data;
	size_t size;
	const char **strs;
	unsigned refs;
	char *path;
	/* the line records after the checksummed part, and their blocks'
	 * sums (get_lines()) */
	const uint8_t *records, *sums;
	size_t records_len, nrows;
	int quiet; /* a damaged block is not reported (the load fails instead) */
};

static void mapping_release(void *ctx)
{
	struct mapping *m = ctx;

	if (--m->refs)
		return;
	munmap((void *)m->data, m->size);
	free(m->strs);
	free(m->path);
	free(m);
}

/* The first damage seen after a load (sp_image_cache_damage()). */
static pthread_mutex_t damage_mu = PTHREAD_MUTEX_INITIALIZER;
static char *damage;

/* Block b of m's line records against its sum (the line table's check):
 * 0 if sound; else -1, and unless m is quiet, the damage is reported and
 * the file removed, so that the next run writes it again. */
static int records_check(void *ctx, size_t b)
{
	struct mapping *m = ctx;
	size_t first, n = records_block(m->nrows, b, &first);
	const uint8_t *at = m->records + first * SP_LINE_PAYLOAD_SIZE;
	uint64_t sum;
	struct sp_buf msg = SP_BUF_INIT;

	memcpy(&sum, m->sums + b * 8, 8);
	if (sum == sp_dwcache_checksum(at, n * SP_LINE_PAYLOAD_SIZE))
		return 0;
	if (m->quiet)
		return -1;
	pthread_mutex_lock(&damage_mu);
	if (!damage) {
		sp_buf_addf(&msg,
			    "%s: offset %zu: the index cache's line rows %zu to %zu fail their "
			    "checksum (the file is removed: run again)",
			    m->path, (size_t)(at - m->data), first, first + n - 1);
		damage = sp_buf_detach(&msg, NULL);
		unlink(m->path);
	}
	pthread_mutex_unlock(&damage_mu);
	return -1;
}

const char *sp_image_cache_damage(void)
{
	const char *d;

	pthread_mutex_lock(&damage_mu);
	d = damage;
	pthread_mutex_unlock(&damage_mu);
	return d;
}

void sp_image_cache_damage_clear(void)
{
	pthread_mutex_lock(&damage_mu);
	free(damage);
	damage = NULL;
	pthread_mutex_unlock(&damage_mu);
}

/* What get_strings() makes of a file's strings. */
enum take_strings {
	STRINGS_INTERN, /* interned in strs (copied) */
	STRINGS_ADOPT,	/* adopted by strs if it is empty (they stay in the
			 * mapped file, which strs then holds), else interned */
	STRINGS_BORROW, /* left in the mapped file, which the caller keeps */
};

static void get_strings(struct in *r, struct sp_strtab *strs, struct mapping *m,
			enum take_strings how)
{
	uint64_t i;

	r->nstrs = get_count(r, 9);
	r->strs = table_array(r->nstrs, sizeof(*r->strs), 0);
	m->strs = r->strs;
	if (r->c.bad)
		return;
	if (how == STRINGS_ADOPT && sp_strtab_adopt_begin(strs, (size_t)r->nstrs) < 0)
		how = STRINGS_INTERN;
	if (how == STRINGS_ADOPT) {
		m->refs++;
		sp_strtab_keep(strs, mapping_release, m);
	}
	for (i = 0; i < r->nstrs; i++) {
		uint64_t n = get_n(r, 4);
		uint32_t hash = (uint32_t)get_n(r, 4);
		const char *p = (const char *)take(r, n + 1);

		if (!p || p[n]) {
			r->c.bad = 1;
			return;
		}
		if (how == STRINGS_INTERN)
			p = sp_strtab_intern_hashed(strs, p, (size_t)n, hash);
		else if (how == STRINGS_ADOPT)
			sp_strtab_adopt(strs, p, (size_t)n, hash);
		r->strs[i] = p;
	}
}

/*
 * The line table, its rows left where they are in the mapped file and
 * decoded as lookups reach them (sp_linetab_adopt_packed()): most runs
 * ask about a small part of a large table. The table takes the mapping
 * (*m becomes NULL).
 */
static struct sp_linetab *get_lines(struct in *r, struct mapping *m)
{
	struct sp_linetab_packed pk;
	struct sp_linetab_run *runs;
	struct sp_addr_index rindex;
	uint64_t nrows = get_count(r, 8), nblocks, nruns, nunits, nbuckets, i;
	const uint8_t *keys = take(r, nrows * 8), *sums, *buckets, *ustate;
	uint32_t shift;
	const char *warning;

	nblocks = get_count(r, 8);
	sums = take(r, nblocks * 8);
	if (nblocks != sp_line_nblocks((size_t)nrows) ||
	    m->records_len != nrows * SP_LINE_PAYLOAD_SIZE)
		r->c.bad = 1;
	shift = (uint32_t)get_n(r, 4);
	nbuckets = get_count(r, 4);
	buckets = take(r, nbuckets * 4);
	if (r->c.bad || sp_addr_index_borrow(&rindex, keys, (size_t)nrows, 8, shift, buckets,
					     (size_t)nbuckets) < 0) {
		r->c.bad = 1;
		return NULL;
	}
	nruns = get_count(r, 20);
	runs = sp_xreallocarray(NULL, nruns + 1, sizeof(*runs));
	for (i = 0; i < nruns; i++) {
		runs[i].start = get_n(r, 8);
		runs[i].end = get_n(r, 8);
		runs[i].unit = (uint32_t)get_n(r, 4);
	}
	nunits = get_count(r, 1);
	ustate = take(r, nunits);
	warning = get_ref(r);
	if (r->c.bad) {
		free(runs);
		return NULL;
	}
	m->sums = sums;
	m->nrows = (size_t)nrows;
	memset(&pk, 0, sizeof(pk));
	pk.keys = keys;
	pk.rows = m->records;
	pk.nrows = (size_t)nrows;
	pk.files = r->strs;
	pk.nfiles = (size_t)r->nstrs;
	pk.check = records_check;
	pk.release = mapping_release;
	pk.ctx = m;
	m->refs++;
	return sp_linetab_adopt_packed(&pk, runs, (size_t)nruns, ustate, (size_t)nunits, warning,
				       &rindex);
}

static void get_fns(struct in *r, struct sp_dwfuncs_parts *f)
{
	uint64_t i;

	f->nfns = get_count(r, 30);
	f->fns = table_array(f->nfns, sizeof(*f->fns), 1);
	for (i = 0; i < f->nfns; i++) {
		f->fns[i].name = get_ref(r);
		f->fns[i].call_file = get_ref(r);
		f->fns[i].low = get_n(r, 8);
		f->fns[i].caller = (uint32_t)get_n(r, 4);
		f->fns[i].call_line = (uint32_t)get_n(r, 4);
		f->fns[i].unit = (uint32_t)get_n(r, 4);
		f->fns[i].is_linkage = (uint8_t)get_n(r, 1);
		f->fns[i].inlined = (uint8_t)get_n(r, 1);
		if (f->fns[i].caller != UINT32_MAX && f->fns[i].caller >= f->nfns)
			r->c.bad = 1;
	}
	f->nsegs = get_count(r, 12);
	f->seg_start = table_array(f->nsegs, sizeof(*f->seg_start), 1);
	f->seg_fn = table_array(f->nsegs, sizeof(*f->seg_fn), 1);
	for (i = 0; i < f->nsegs; i++)
		f->seg_start[i] = get_n(r, 8);
	for (i = 0; i < f->nsegs; i++) {
		f->seg_fn[i] = (uint32_t)get_n(r, 4);
		if (f->seg_fn[i] != UINT32_MAX && f->seg_fn[i] >= f->nfns)
			r->c.bad = 1;
	}
}

static void get_syms(struct in *r, struct sp_dwfuncs_parts *f)
{
	uint64_t i;

	f->nsecs = get_count(r, 32);
	f->secs = table_array(f->nsecs, sizeof(*f->secs), 1);
	for (i = 0; i < f->nsecs; i++) {
		f->secs[i].lo = get_n(r, 8);
		f->secs[i].hi = get_n(r, 8);
		f->secs[i].first = (size_t)get_n(r, 8);
		f->secs[i].n = (size_t)get_n(r, 8);
	}
	f->nsyms = get_count(r, 16);
	f->sym_addr = table_array(f->nsyms, sizeof(*f->sym_addr), 1);
	f->sym_name = table_array(f->nsyms, sizeof(*f->sym_name), 1);
	f->sym_file = table_array(f->nsyms, sizeof(*f->sym_file), 1);
	for (i = 0; i < f->nsyms; i++)
		f->sym_addr[i] = get_n(r, 8);
	for (i = 0; i < f->nsyms; i++)
		f->sym_name[i] = get_ref(r);
	for (i = 0; i < f->nsyms; i++)
		f->sym_file[i] = get_ref(r);
	for (i = 0; i < f->nsecs; i++)
		if (f->secs[i].first > f->nsyms || f->secs[i].n > f->nsyms - f->secs[i].first)
			r->c.bad = 1;
}

static void get_origins(struct in *r, struct sp_dwfuncs_parts *f)
{
	uint64_t i;

	f->norigins = get_count(r, 8);
	f->origins = table_array(f->norigins, sizeof(*f->origins), 1);
	for (i = 0; i < f->norigins; i++)
		f->origins[i].outline = get_n(r, 8);
	f->nnolink = get_count(r, 12);
	f->nolink = table_array(f->nnolink, sizeof(*f->nolink), 1);
	for (i = 0; i < f->nnolink; i++) {
		f->nolink[i].fn = get_n(r, 8);
		f->nolink[i].origin = (uint32_t)get_n(r, 4);
		if (f->nolink[i].origin >= f->norigins)
			r->c.bad = 1;
	}
	f->naliases = get_count(r, 12);
	f->aliases = table_array(f->naliases, sizeof(*f->aliases), 1);
	for (i = 0; i < f->naliases; i++) {
		f->aliases[i].addr = get_n(r, 8);
		f->aliases[i].name = get_ref(r);
	}
}

static struct sp_dwfuncs *get_funcs(struct in *r, const struct sp_linetab *lines,
				    struct sp_strtab *strs)
{
	struct sp_dwfuncs *funcs = NULL;
	struct sp_dwfuncs_parts f;

	memset(&f, 0, sizeof(f));
	get_fns(r, &f);
	get_syms(r, &f);
	get_origins(r, &f);
	if (!r->c.bad)
		funcs = sp_dwfuncs_adopt_parts(&f, lines, strs);
	sp_dwfuncs_parts_release(&f);
	return funcs;
}

static int parse(struct in *r, const struct sp_dwcache_key *k, const struct stat *st,
		 struct sp_strtab *strs, struct sp_dwcache_hit *hit, struct sp_partial *units,
		 struct mapping *m, int adopt)
{
	sp_cache_check_header(&r->c, MAGIC, FORMAT, k->build_id, k->build_id_len, k->dwarf_path,
			      st);
	if (r->c.bad)
		return -1;
	hit->partial = get_units(r, units);
	get_strings(r, strs, m, adopt ? STRINGS_ADOPT : STRINGS_INTERN);
	if (!r->c.bad)
		hit->lines = get_lines(r, m);
	if (hit->lines)
		hit->funcs = get_funcs(r, hit->lines, strs);
	if (r->c.bad || !hit->funcs || r->c.p != r->c.end) {
		sp_dwfuncs_free(hit->funcs);
		sp_linetab_free(hit->lines);
		hit->funcs = NULL;
		hit->lines = NULL;
		return -1;
	}
	return 0;
}

/* The whole file (a regular one of 16 bytes or more), mapped with mmap's
 * `flags` besides MAP_PRIVATE; NULL if none. */
static const uint8_t *map_file(const char *path, size_t *size, int flags)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 16) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | flags, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	return p;
}

/* The whole file, mapped with its pages at once (MAP_POPULATE: a page
 * fault per 4 KiB page costs more than reading it); NULL if none. */
const uint8_t *sp_dwcache_map(const char *path, size_t *size)
{
	return map_file(path, size, MAP_POPULATE);
}

/* Makes the pages of [p, p + n) of a mapped file at once where the kernel
 * can (Linux 5.14's MADV_POPULATE_READ): a page fault per 4 KiB page
 * costs more than reading it. */
static void populate(const uint8_t *p, size_t n)
{
#ifdef MADV_POPULATE_READ
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)p & ~(page - 1);

	madvise((void *)lo, (uintptr_t)p + n - lo, MADV_POPULATE_READ);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * The cache file at path (taken), mapped, if k's file is there (its stat
 * in *st) and the checksum of its part before the line records is right:
 * its mapping (one reference, the caller's) with r set to read that part;
 * else NULL. The records' pages are made too when `records` (they will
 * all be read), else as lookups reach them.
 */
static struct mapping *open_mapping(char *path, const struct sp_dwcache_key *k, struct stat *st,
				    struct in *r, int records)
{
	const uint8_t *data = NULL;
	struct mapping *m;
	size_t size = 0, main_len;
	uint64_t sum, records_len;

	if (path && stat(k->dwarf_path, st) == 0)
		data = map_file(path, &size, 0); /* pages made below */
	if (!data) {
		free(path);
		return NULL;
	}
	/* [checksummed part][its checksum][line records][their length] */
	memcpy(&records_len, data + size - 8, 8);
	if (records_len > size - 16) {
		munmap((void *)data, size);
		free(path);
		return NULL;
	}
	main_len = size - 16 - (size_t)records_len;
	populate(data, records ? size : main_len + 8);
	memcpy(&sum, data + main_len, 8);
	if (sum != sp_dwcache_checksum(data, main_len)) {
		munmap((void *)data, size);
		free(path);
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	r->c.p = data;
	r->c.end = data + main_len;
	m = sp_xcalloc(1, sizeof(*m));
	m->data = data;
	m->size = size;
	m->refs = 1;
	m->path = path;
	m->records = data + main_len + 8;
	m->records_len = (size_t)records_len;
	return m;
}

int sp_dwcache_load(const char *dir, const struct sp_dwcache_key *k, struct sp_strtab *strs,
		    unsigned how, struct sp_dwcache_hit *hit, struct sp_partial *units)
{
	int adopt = (how & SP_DWCACHE_ADOPT) != 0;
	int all_rows = !adopt || (how & SP_DWCACHE_ALL_ROWS);
	char *path = sp_dwcache_path(dir, k);
	struct mapping *m;
	struct stat st;
	struct in r;
	int ret = -1;

	memset(hit, 0, sizeof(*hit));
	memset(units, 0, sizeof(*units));
	m = open_mapping(path, k, &st, &r, all_rows);
	if (!m)
		return -1;
	ret = parse(&r, k, &st, strs, hit, units, m, adopt);
	/* a table whose every row will be read has every block checked now,
	 * while a damaged one can still be read from the DWARF instead */
	if (ret == 0 && all_rows) {
		m->quiet = 1;
		if (sp_linetab_check_all(hit->lines) < 0) {
			sp_dwfuncs_free(hit->funcs);
			sp_linetab_free(hit->lines);
			hit->funcs = NULL;
			hit->lines = NULL;
			ret = -1;
		}
		m->quiet = 0;
	}
	if (ret < 0)
		sp_partial_release(units);
	mapping_release(m); /* the loader's: the tables keep theirs */
	return ret;
}

struct sp_dwfuncs *sp_dwcache_load_syms(const char *dir, const struct sp_dwcache_key *k,
					struct sp_strtab *strs)
{
	char *path = sp_dwcache_file_path(dir, k->build_id, k->build_id_len, ".sym");
	struct sp_dwfuncs *funcs = NULL;
	struct sp_dwfuncs_parts f;
	struct mapping *m;
	struct stat st;
	struct in r;

	m = open_mapping(path, k, &st, &r, 0);
	if (!m)
		return NULL;
	memset(&f, 0, sizeof(f));
	if (sp_cache_check_header(&r.c, SYMS_MAGIC, SYMS_FORMAT, k->build_id, k->build_id_len,
				  k->dwarf_path, &st) == 0) {
		get_strings(&r, NULL, m, STRINGS_BORROW);
		get_fns(&r, &f);
		get_syms(&r, &f);
		get_origins(&r, &f);
	}
	if (r.c.p == r.c.end && !r.c.bad && !m->records_len) {
		/* its names stay in the file, which strs holds */
		funcs = sp_dwfuncs_adopt_syms(&f, strs);
		m->refs++;
		sp_strtab_keep(strs, mapping_release, m);
	}
	sp_dwfuncs_parts_release(&f);
	mapping_release(m);
	return funcs;
}
