/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The demangling memo (dmcache.h): the names symprof demangled for a
 * file, kept on disk so that the next run over the same file reads them.
 *
 * Demangling is most of what a C++ program's pprof report costs once its
 * index is cached (dwcache.c): libiberty takes about 5,000 instructions
 * for a name of a templated program, and a profile of a 5,000-function
 * program asks 3,600 of them. A name's demangling depends only on the name
 * (and on the demangling style and the build of libiberty), so the memo
 * holds pairs of strings; it is kept per file, by build-id, to stay as
 * small as what profiles of that file ask. A run adds the names it had to
 * demangle, and the memo is written again at the end of that run.
 *
 * Where: DIR/xx/yyyy.dm, beside the file's index. Trust: as the index,
 * the format, the build of symprof that wrote it, the demangling style
 * and the build-id must match, and a checksum covers the whole file; a
 * memo that fails is ignored and written again. Deleting it is safe.
 *
 * Layout, in the host's byte order:
 *
 *   "SPDMEMO\n" u32 format u32 byte-order-mark
 *   u32 n, self (n bytes)  u32 n, build-id (n bytes)  u32 style
 *   u64 nentries u64 nslots            nslots a power of two above nentries
 *   u32 slots[nslots]                  0 empty, i + 1 entries[i]; linear probing
 *   {u32 hash u32 raw u32 out u32 out_hash}[nentries]   offsets into the
 *                                      strings (out 0xffffffff: raw does not
 *                                      demangle) and the hashes
 *                                      (sp_strtab_hash()) of raw and out
 *   u64 nbytes, strings (nbytes)       each ends with a NUL
 *   u64 checksum of everything before it
 */
#include "dmcache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <demangle.h>

#include "dwcache.h"
#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/strtab.h"

#define MAGIC "SPDMEMO\n"
#define FORMAT 2
#define NONE UINT32_MAX
#define ENTRY_SIZE 16

struct sp_dmcache {
	char *path;
	uint8_t *build_id;
	size_t build_id_len;
	/* what was read: the mapped file and its tables, or none */
	const uint8_t *data;
	size_t size;
	const uint8_t *slots, *entries;
	const char *strings;
	uint64_t nentries, nslots;
	/* what this run added */
	const char **add_raw, **add_out;
	size_t nadd, add_alloc;
};

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

char *sp_dmcache_path(const char *dir, const uint8_t *build_id, size_t build_id_len)
{
	return sp_dwcache_file_path(dir, build_id, build_id_len, ".dm");
}

/* ---- reading ---- */

/*
 * The tables of a whole, checked file: every slot within the entries and
 * as many used slots as entries (so that a probe meets an empty slot),
 * every offset within the strings, which end with a NUL (so that each
 * string ends within them). Returns 0, or -1 if anything fails.
 */
static int parse(struct sp_dmcache *c, struct sp_cache_in *r)
{
	uint64_t i, used = 0, nbytes;

	if (sp_cache_check_header(r, MAGIC, FORMAT, c->build_id, c->build_id_len, NULL, NULL) < 0 ||
	    sp_cache_get_n(r, 4) != (uint64_t)current_demangling_style)
		return -1;
	c->nentries = sp_cache_get_n(r, 8);
	c->nslots = sp_cache_get_n(r, 8);
	if (r->bad || c->nentries >= c->nslots || (c->nslots & (c->nslots - 1)) ||
	    c->nslots > (uint64_t)(r->end - r->p) / 4)
		return -1;
	c->slots = sp_cache_take(r, c->nslots * 4);
	if (c->nentries > (uint64_t)(r->end - r->p) / ENTRY_SIZE)
		return -1;
	c->entries = sp_cache_take(r, c->nentries * ENTRY_SIZE);
	nbytes = sp_cache_get_n(r, 8);
	c->strings = (const char *)sp_cache_take(r, nbytes);
	if (r->bad || r->p != r->end || (c->nentries && (!nbytes || c->strings[nbytes - 1])))
		return -1;
	for (i = 0; i < c->nslots; i++) {
		uint32_t e = get32(c->slots + 4 * i);

		if (e > c->nentries)
			return -1;
		used += e != 0;
	}
	if (used != c->nentries)
		return -1;
	for (i = 0; i < c->nentries; i++) {
		const uint8_t *e = c->entries + ENTRY_SIZE * i;
		uint32_t out = get32(e + 8);

		if (get32(e + 4) >= nbytes || (out != NONE && out >= nbytes))
			return -1;
	}
	return 0;
}

struct sp_dmcache *sp_dmcache_open(const char *dir, const uint8_t *build_id, size_t build_id_len)
{
	char *path = sp_dmcache_path(dir, build_id, build_id_len);
	struct sp_dmcache *c;
	struct sp_cache_in r;
	uint64_t sum;

	if (!path)
		return NULL;
	c = sp_xcalloc(1, sizeof(*c));
	c->path = path;
	c->build_id = sp_xmalloc(build_id_len);
	memcpy(c->build_id, build_id, build_id_len);
	c->build_id_len = build_id_len;
	c->data = sp_dwcache_map(path, &c->size);
	if (!c->data)
		return c;
	memcpy(&sum, c->data + c->size - 8, 8);
	r.p = c->data;
	r.end = c->data + c->size - 8;
	r.bad = 0;
	if (sum != sp_dwcache_checksum(c->data, c->size - 8) || parse(c, &r) < 0) {
		munmap((void *)c->data, c->size);
		c->data = NULL;
		c->size = 0;
		c->nentries = c->nslots = 0;
	}
	return c;
}

int sp_dmcache_get(const struct sp_dmcache *c, const char *raw, const char **out)
{
	size_t len = strlen(raw);
	uint32_t out_hash;

	return sp_dmcache_get_hashed(c, raw, sp_strtab_hash(raw, len), out, &out_hash);
}

int sp_dmcache_get_hashed(const struct sp_dmcache *c, const char *raw, uint32_t h, const char **out,
			  uint32_t *out_hash)
{
	size_t j, mask;

	if (!c || !c->nslots)
		return 0;
	mask = (size_t)c->nslots - 1;
	for (j = h & mask;; j = (j + 1) & mask) {
		uint32_t e = get32(c->slots + 4 * j), o;
		const uint8_t *ent;

		if (!e)
			return 0;
		ent = c->entries + ENTRY_SIZE * (e - 1);
		if (get32(ent) != h || strcmp(c->strings + get32(ent + 4), raw))
			continue;
		o = get32(ent + 8);
		*out = o == NONE ? NULL : c->strings + o;
		*out_hash = get32(ent + 12);
		return 1;
	}
}

void sp_dmcache_add(struct sp_dmcache *c, const char *raw, const char *out)
{
	size_t had = c->add_alloc;

	SP_ALLOC_GROW(c->add_raw, c->nadd + 1, c->add_alloc);
	if (c->add_alloc != had)
		c->add_out = sp_xreallocarray(c->add_out, c->add_alloc, sizeof(*c->add_out));
	c->add_raw[c->nadd] = raw;
	c->add_out[c->nadd++] = out;
}

/* ---- writing ---- */

/* Offset of s, appended to the strings with its NUL. */
static uint32_t put_string(struct sp_buf *strings, const char *s)
{
	uint32_t at = (uint32_t)strings->len;

	sp_buf_add(strings, s, strlen(s) + 1);
	return at;
}

/* The old entries and the added ones, as one file. */
static void save(struct sp_dmcache *c)
{
	size_t n = (size_t)c->nentries + c->nadd, nslots = 16, i, j;
	struct sp_buf o = SP_BUF_INIT, strings = SP_BUF_INIT;
	uint32_t *slots, *ent;

	while (nslots < 2 * n)
		nslots *= 2;
	slots = sp_xcalloc(nslots, sizeof(*slots));
	ent = sp_xreallocarray(NULL, 4 * n + 1, sizeof(*ent));
	for (i = 0; i < n; i++) {
		const char *raw, *out;
		size_t len;

		if (i < c->nentries) {
			const uint8_t *e = c->entries + ENTRY_SIZE * i;

			raw = c->strings + get32(e + 4);
			out = get32(e + 8) == NONE ? NULL : c->strings + get32(e + 8);
		} else {
			raw = c->add_raw[i - c->nentries];
			out = c->add_out[i - c->nentries];
		}
		len = strlen(raw);
		ent[4 * i] = sp_strtab_hash(raw, len);
		ent[4 * i + 1] = put_string(&strings, raw);
		ent[4 * i + 2] = out ? put_string(&strings, out) : NONE;
		ent[4 * i + 3] = out ? sp_strtab_hash(out, strlen(out)) : 0;
		for (j = ent[4 * i] & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1))
			;
		slots[j] = (uint32_t)i + 1;
	}
	sp_cache_put_header(&o, MAGIC, FORMAT, c->build_id, c->build_id_len, NULL, NULL);
	sp_cache_put_u32(&o, (uint32_t)current_demangling_style);
	sp_cache_put_u64(&o, n);
	sp_cache_put_u64(&o, nslots);
	sp_buf_add(&o, slots, nslots * 4);
	sp_buf_add(&o, ent, n * ENTRY_SIZE);
	sp_cache_put_u64(&o, strings.len);
	sp_buf_add(&o, strings.buf, strings.len);
	sp_cache_put_u64(&o, sp_dwcache_checksum((const uint8_t *)o.buf, o.len));
	/* offsets are 32-bit: a memo that outgrows them is not written */
	if (strings.len < NONE)
		sp_dwcache_write(c->path, o.buf, o.len);
	free(slots);
	free(ent);
	sp_buf_release(&strings);
	sp_buf_release(&o);
}

void sp_dmcache_close(struct sp_dmcache *c)
{
	if (!c)
		return;
	if (c->nadd)
		save(c);
	if (c->data)
		munmap((void *)c->data, c->size);
	free(c->add_raw);
	free(c->add_out);
	free(c->build_id);
	free(c->path);
	free(c);
}
