/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The nm listing cache (nmcache.h): a file's defined symbols in nm -n's
 * order, as sp_symfile_nm() lists them, kept on disk so that the next run
 * over the same file maps them.
 *
 * A pprof report of a program lists the symbols of every file its
 * samples touch, to find google-pprof's routines: walking a symbol table
 * of thousands of entries (libelf's accessors, the class letter of each
 * symbol's section, the versions of dynamic symbols) and sorting it is a
 * fixed cost per file, a fifth of sqlite3's report once its index is
 * cached. The listing depends on the file's symbol tables, which a
 * stripped copy of the same build does not share: the file's path, size
 * and modification time are checked, as the index checks its DWARF file.
 *
 * Where: DIR/xx/yyyy.nm beside the file's index. Trust: the format, the
 * build of symprof that wrote it, the build-id, the file (path, size,
 * mtime), a checksum over the whole file; every string offset is checked,
 * and the lines must be in address order. A listing that fails is ignored
 * and written again. Deleting it is safe.
 *
 * Layout, in the host's byte order:
 *
 *   "SPNMLST\n" u32 format u32 byte-order-mark
 *   u32 n, self (n bytes)  u32 n, build-id (n bytes)
 *   u32 n, path (n bytes)  u64 size  u64 mtime_s  u64 mtime_ns
 *   u64 nlines {u64 addr u32 raw u32 version u8 type u8 hidden}*
 *   u64 nbytes, strings (nbytes)   each ends with a NUL; the first is ""
 *   u64 checksum of everything before it
 */
#include "nmcache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "dwcache.h"
#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/symbolize.h"

#define MAGIC "SPNMLST\n"
#define FORMAT 1
#define LINE_SIZE 18

char *sp_nmcache_path(const char *dir, const struct sp_nmcache_key *k)
{
	return sp_dwcache_file_path(dir, k->build_id, k->build_id_len, ".nm");
}

/* ---- writing ---- */

/* Offset of s in the strings ("" shares the first). */
static uint32_t put_string(struct sp_buf *strings, const char *s)
{
	uint32_t at = (uint32_t)strings->len;

	if (!s[0])
		return 0;
	sp_buf_add(strings, s, strlen(s) + 1);
	return at;
}

void sp_nmcache_store(const char *dir, const struct sp_nmcache_key *k,
		      const struct sp_nm_line *lines, size_t n)
{
	struct sp_buf o = SP_BUF_INIT, strings = SP_BUF_INIT;
	char *path = sp_nmcache_path(dir, k);
	struct stat st;
	size_t i;

	if (!path || stat(k->path, &st) < 0) {
		free(path);
		return;
	}
	sp_cache_put_header(&o, MAGIC, FORMAT, k->build_id, k->build_id_len, k->path, &st);
	sp_cache_put_u64(&o, n);
	sp_buf_addch(&strings, '\0');
	for (i = 0; i < n; i++) {
		uint8_t tail[2] = {(uint8_t)lines[i].type, (uint8_t)lines[i].hidden};

		sp_cache_put_u64(&o, lines[i].addr);
		sp_cache_put_u32(&o, put_string(&strings, lines[i].raw));
		sp_cache_put_u32(&o, put_string(&strings, lines[i].version));
		sp_buf_add(&o, tail, 2);
	}
	sp_cache_put_u64(&o, strings.len);
	sp_buf_add(&o, strings.buf, strings.len);
	sp_cache_put_u64(&o, sp_dwcache_checksum((const uint8_t *)o.buf, o.len));
	/* offsets are 32-bit: a listing that outgrows them is not written */
	if (strings.len < UINT32_MAX)
		sp_dwcache_write(path, o.buf, o.len);
	sp_buf_release(&strings);
	sp_buf_release(&o);
	free(path);
}

/* ---- reading ---- */

static int parse(struct sp_cache_in *r, const struct sp_nmcache_key *k, const struct stat *st,
		 struct sp_nmcache_hit *hit)
{
	const uint8_t *v;
	const char *strings;
	uint64_t n, nbytes, i;

	if (sp_cache_check_header(r, MAGIC, FORMAT, k->build_id, k->build_id_len, k->path, st) < 0)
		return -1;
	n = sp_cache_get_n(r, 8);
	if (r->bad || n > (uint64_t)(r->end - r->p) / LINE_SIZE)
		return -1;
	v = sp_cache_take(r, n * LINE_SIZE);
	nbytes = sp_cache_get_n(r, 8);
	strings = (const char *)sp_cache_take(r, nbytes);
	if (r->bad || r->p != r->end || !nbytes || strings[nbytes - 1])
		return -1;
	hit->lines = sp_xreallocarray(NULL, (size_t)n + 1, sizeof(*hit->lines));
	for (i = 0; i < n; i++, v += LINE_SIZE) {
		struct sp_nm_line *l = &hit->lines[i];
		uint32_t raw, version;

		memcpy(&l->addr, v, 8);
		memcpy(&raw, v + 8, 4);
		memcpy(&version, v + 12, 4);
		if (raw >= nbytes || version >= nbytes || (i && l->addr < l[-1].addr)) {
			free(hit->lines);
			hit->lines = NULL;
			return -1;
		}
		l->raw = strings + raw;
		l->version = strings + version;
		l->type = (char)v[16];
		l->hidden = v[17] != 0;
	}
	hit->n = (size_t)n;
	return 0;
}

int sp_nmcache_load(const char *dir, const struct sp_nmcache_key *k, struct sp_nmcache_hit *hit)
{
	char *path = sp_nmcache_path(dir, k);
	const uint8_t *data = NULL;
	struct sp_cache_in r;
	struct stat st;
	size_t size = 0;
	uint64_t sum;

	memset(hit, 0, sizeof(*hit));
	if (!path || stat(k->path, &st) < 0 || !(data = sp_dwcache_map(path, &size))) {
		free(path);
		return -1;
	}
	free(path);
	memcpy(&sum, data + size - 8, 8);
	r.p = data;
	r.end = data + size - 8;
	r.bad = 0;
	if (sum != sp_dwcache_checksum(data, size - 8) || parse(&r, k, &st, hit) < 0) {
		munmap((void *)data, size);
		return -1;
	}
	hit->map = data;
	hit->map_size = size;
	return 0;
}
