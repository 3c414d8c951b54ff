/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sorted symbol tables with gprof's rules (gprof.md section 4.1):
 * sort by address, collapse duplicates at one address (global over static,
 * function over line symbol, a name without a leading underscore over one
 * with, `_x` over `__x`), end each symbol where the next one begins, drop
 * empty ranges, and look addresses up by binary search with gprof's exact
 * boundary behaviour.
 */
#include "symprof/symbolize.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/sort.h"
#include "symprof/strtab.h"

struct sp_symtab *sp_symtab_new(void)
{
	struct sp_symtab *t = sp_xcalloc(1, sizeof(*t));

	sp_arena_init(&t->arena);
	sp_strtab_init(&t->strs);
	return t;
}

void sp_symtab_free(struct sp_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->addrs);
	free(t->buckets);
	free(t->pending);
	free(t->files);
	free(t->file_slots);
	sp_strtab_release(&t->strs);
	sp_arena_release(&t->arena);
	free(t);
}

static size_t file_slot(const struct sp_symtab *t, const char *interned)
{
	size_t mask = t->nfile_slots - 1;
	size_t i = (size_t)(((uintptr_t)interned >> 3) * UINT64_C(0x9e3779b97f4a7c15) >> 20) & mask;

	while (t->file_slots[i] && t->files[t->file_slots[i] - 1]->name != interned)
		i = (i + 1) & mask;
	return i;
}

const struct sp_srcfile *sp_symtab_file(struct sp_symtab *t, const char *name)
{
	const char *s = sp_strtab_intern(&t->strs, name);
	struct sp_srcfile *f;
	size_t i, slot;

	/* the interned pointer identifies the file */
	if (t->nfile_slots) {
		slot = file_slot(t, s);
		if (t->file_slots[slot])
			return t->files[t->file_slots[slot] - 1];
	}
	f = sp_arena_zalloc(&t->arena, sizeof(*f));
	f->name = s;
	f->id = (uint32_t)t->nfiles;
	SP_ALLOC_GROW(t->files, t->nfiles + 1, t->files_alloc);
	t->files[t->nfiles++] = f;
	if (2 * t->nfiles > t->nfile_slots) {
		/* rehash at half load */
		free(t->file_slots);
		t->nfile_slots = t->nfile_slots ? 2 * t->nfile_slots : 64;
		t->file_slots = sp_xcalloc(t->nfile_slots, sizeof(*t->file_slots));
		for (i = 0; i < t->nfiles; i++)
			t->file_slots[file_slot(t, t->files[i]->name)] = (uint32_t)i + 1;
	} else {
		t->file_slots[file_slot(t, s)] = (uint32_t)t->nfiles;
	}
	return f;
}

const struct sp_srcfile *sp_symtab_file_by_basename(const struct sp_symtab *t, const char *base)
{
	size_t i;

	for (i = t->nfiles; i > 0; i--) {
		const char *name = t->files[i - 1]->name;
		const char *slash = strrchr(name, '/');

		if (!strcmp(slash ? slash + 1 : name, base))
			return t->files[i - 1];
	}
	return NULL;
}

void sp_symtab_reserve(struct sp_symtab *t, size_t n)
{
	/* one more than len: syms[len] is a zeroed sentinel */
	SP_ALLOC_GROW(t->syms, t->len + n + 1, t->syms_alloc);
}

struct sp_symbol *sp_symtab_add(struct sp_symtab *t)
{
	struct sp_symbol *s;

	/* one more than len: syms[len] is a zeroed sentinel */
	SP_ALLOC_GROW(t->syms, t->len + 2, t->syms_alloc);
	s = &t->syms[t->len++];
	memset(s, 0, sizeof(*s));
	memset(&t->syms[t->len], 0, sizeof(*s));
	return s;
}

static int cmp_addr(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return sp_symbol_cmp_addr(a, b);
}

int sp_symbol_cmp_addr(const struct sp_symbol *l, const struct sp_symbol *r)
{
	if (l->addr > r->addr)
		return 1;
	if (l->addr < r->addr)
		return -1;
	if (l->is_func != r->is_func)
		return (int)r->is_func - (int)l->is_func;
	return (int)l->is_static - (int)r->is_static;
}

static void symbols_dedup(struct sp_symbol *syms, size_t *len, uint64_t text_end);

/* Does `src` replace `kept` at the same address? (gprof's preference) */
static int prefer(const struct sp_symbol *src, const struct sp_symbol *kept)
{
	if (!src->is_static && kept->is_static)
		return 1;
	if (src->is_static != kept->is_static)
		return 0;
	if (src->is_func && !kept->is_func)
		return 1;
	if (src->is_func != kept->is_func)
		return 0;
	if (src->name[0] != '_' && kept->name[0] == '_')
		return 1;
	return src->name[0] == '_' && kept->name[0] == '_' && src->name[1] != '_' &&
	       kept->name[1] == '_';
}

/*
 * sp_symbol_cmp_addr() order as one integer, when the addresses span less
 * than 2^62: the offset from the lowest address, then 0 for a function,
 * then 1 for a static. The radix sort keeps equal keys in table order, as
 * the merge sort does. 0 if the span is too wide.
 */
static int sort_by_key(struct sp_symbol *syms, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	struct sp_keyed *k, *tmp_keys, *v;
	size_t i, j;

	for (i = 0; i < n; i++) {
		lo = syms[i].addr < lo ? syms[i].addr : lo;
		hi = syms[i].addr > hi ? syms[i].addr : hi;
	}
	if (hi - lo >= UINT64_C(1) << 62 || n >= UINT32_MAX)
		return 0;
	/* two blocks, each small enough for malloc to reuse later */
	k = sp_xreallocarray(NULL, n, sizeof(*k));
	tmp_keys = sp_xreallocarray(NULL, n, sizeof(*tmp_keys));
	for (i = 0; i < n; i++) {
		k[i].key = (syms[i].addr - lo) << 2 | (uint64_t)!syms[i].is_func << 1 |
			   syms[i].is_static;
		k[i].idx = (uint32_t)i;
	}
	v = sp_sort_keyed(k, n, tmp_keys);
	/* v[i].idx is the symbol that goes to i: follow each cycle once */
	for (i = 0; i < n; i++) {
		struct sp_symbol tmp;

		if (v[i].idx == i)
			continue;
		tmp = syms[i];
		for (j = i; v[j].idx != i;) {
			size_t from = v[j].idx;

			syms[j] = syms[from];
			v[j].idx = (uint32_t)j;
			j = from;
		}
		syms[j] = tmp;
		v[j].idx = (uint32_t)j;
	}
	free(k);
	free(tmp_keys);
	return 1;
}

void sp_symbols_finalize(struct sp_symbol *syms, size_t *len, uint64_t text_end)
{
	/* a program's table is thousands of symbols: a radix sort by a key */
	if (*len < 256 || !sort_by_key(syms, *len))
		sp_sort(syms, *len, sizeof(*syms), cmp_addr, NULL);
	symbols_dedup(syms, len, text_end);
}

static void symbols_dedup(struct sp_symbol *syms, size_t *len, uint64_t text_end)
{
	size_t src, dst = 0;
	uint64_t prev_addr;

	if (!*len)
		return;
	prev_addr = syms[0].addr - 1;
	for (src = 0; src < *len; src++) {
		if (syms[src].addr == prev_addr) {
			if (prefer(&syms[src], &syms[dst - 1]))
				syms[dst - 1] = syms[src];
			continue;
		}
		if (dst > 0 && syms[dst - 1].end_addr == 0)
			syms[dst - 1].end_addr = syms[src].addr - 1;
		if (!syms[src].end_addr || syms[src].addr <= syms[src].end_addr) {
			syms[dst++] = syms[src];
			prev_addr = syms[src].addr;
		}
	}
	if (dst > 0 && syms[dst - 1].end_addr == 0)
		syms[dst - 1].end_addr = text_end;
	/* gprof reads one entry past the end (hist.c); it is zero here */
	if (dst < *len)
		memset(&syms[dst], 0, sizeof(*syms));
	*len = dst;
}

/* The slots of the name-pointer table for n symbols: a power of two
 * above 2n. */
static size_t name_slots(size_t n)
{
	size_t k = 64;

	while (k < 2 * n + 2)
		k *= 2;
	return k;
}

size_t sp_symtab_name_ranks_scratch(const struct sp_symtab *t)
{
	return (2 * t->len + 1) * sizeof(struct sp_named) + 2 * (t->len + 1) * sizeof(uint32_t) +
	       name_slots(t->len) * sizeof(uint32_t);
}

uint32_t *sp_symtab_name_ranks(const struct sp_symtab *t)
{
	void *scratch = sp_xmalloc(sp_symtab_name_ranks_scratch(t));
	uint32_t *ranks = sp_symtab_name_ranks_in(t, scratch);

	free(scratch);
	return ranks;
}

uint32_t *sp_symtab_name_ranks_in(const struct sp_symtab *t, void *scratch)
{
	/* line symbols share their function's name pointer, in runs that
	 * inlined functions' lines interrupt: each distinct pointer is sorted
	 * once (found through an open-addressing table), then mapped back */
	size_t i, nu = 0, runs = 0, mask;
	uint32_t *sym_u, *rank_u, *slot, *ranks, r = 0;
	struct sp_named *v;

	/* the names and their sort's room, two maps of symbols, the table
	 * (sized for the runs: the scratch's pages beyond are not touched) */
	v = scratch;
	sym_u = (uint32_t *)(v + 2 * t->len + 1);
	rank_u = sym_u + t->len + 1;
	slot = rank_u + t->len + 1;
	for (i = 0; i < t->len; i++)
		runs += !i || t->syms[i].name != t->syms[i - 1].name;
	mask = name_slots(runs) - 1;
	memset(slot, 0xff, (mask + 1) * sizeof(*slot));
	for (i = 0; i < t->len; i++) {
		const char *name = t->syms[i].name ? t->syms[i].name : "";
		size_t h;

		if (nu && v[nu - 1].name == name) {
			sym_u[i] = (uint32_t)nu - 1;
			continue;
		}
		h = (size_t)sp_hash_u64((uint64_t)(uintptr_t)name) & mask;
		while (slot[h] != UINT32_MAX && v[slot[h]].name != name)
			h = (h + 1) & mask;
		if (slot[h] == UINT32_MAX) {
			slot[h] = (uint32_t)nu;
			v[nu].name = name;
			v[nu].idx = (uint32_t)nu;
			nu++;
		}
		sym_u[i] = slot[h];
	}
	sp_sort_names(v, nu, v + nu);
	for (i = 0; i < nu; i++) {
		/* equal strings at different addresses share a rank */
		if (i && strcmp(v[i].name, v[i - 1].name))
			r = (uint32_t)i;
		rank_u[v[i].idx] = r;
	}
	ranks = sp_xreallocarray(NULL, t->len + 1, sizeof(*ranks));
	for (i = 0; i < t->len; i++)
		ranks[i] = rank_u[sym_u[i]];
	return ranks;
}

/*
 * The lookup index: the addresses from addrs[0] on are cut into nbuckets
 * buckets of 2^bucket_shift bytes, about one per symbol, and buckets[b] is
 * the first symbol starting in bucket b or later (buckets[nbuckets] = len).
 * An address then finds its symbol among the few starting in its bucket
 * (or it is the last one before), instead of by a binary search with a
 * cache miss per step over the whole table.
 */
static void index_buckets(struct sp_symtab *t)
{
	uint64_t base = t->addrs[0], span = t->addrs[t->len - 1] - base;
	unsigned shift = 0;
	size_t b, i = 0;

	while (shift < 63 && (span >> shift) >= t->len)
		shift++;
	t->bucket_shift = shift;
	t->nbuckets = (size_t)(span >> shift) + 1;
	t->buckets = sp_xreallocarray(NULL, t->nbuckets + 1, sizeof(*t->buckets));
	for (b = 0; b <= t->nbuckets; b++) {
		while (i < t->len && ((t->addrs[i] - base) >> shift) < b)
			i++;
		t->buckets[b] = (uint32_t)i;
	}
}

static void symtab_index(struct sp_symtab *t)
{
	size_t i;

	memset(&t->syms[t->len], 0, sizeof(t->syms[0]));
	free(t->addrs);
	free(t->buckets);
	t->buckets = NULL;
	t->nbuckets = 0;
	t->addrs = sp_xreallocarray(NULL, t->len + 1, sizeof(*t->addrs));
	for (i = 0; i < t->len; i++)
		t->addrs[i] = t->syms[i].addr;
	if (t->len && t->len < UINT32_MAX)
		index_buckets(t);
}

void sp_symtab_finalize_sorted(struct sp_symtab *t)
{
	SP_ALLOC_GROW(t->syms, t->len + 1, t->syms_alloc);
	symbols_dedup(t->syms, &t->len, t->text_end);
	symtab_index(t);
}

void sp_symtab_compact(struct sp_symtab *t, const uint8_t *keep)
{
	size_t i, n = 0;

	for (i = 0; i < t->len; i++)
		if (keep[i])
			t->syms[n++] = t->syms[i];
	if (n == t->len)
		return;
	t->len = n;
	/* the room given back, at the end of the array: the next blocks
	 * allocated take those pages, touched already */
	t->syms = sp_xreallocarray(t->syms, n + 1, sizeof(*t->syms));
	t->syms_alloc = n + 1;
	symtab_index(t);
}

void sp_symtab_finalize(struct sp_symtab *t)
{
	SP_ALLOC_GROW(t->syms, t->len + 1, t->syms_alloc);
	sp_symbols_finalize(t->syms, &t->len, t->text_end);
	symtab_index(t);
}

/*
 * gprof's sym_lookup() answers with the last symbol starting at or below
 * addr (addresses are distinct after finalizing), if addr is within its
 * range. The bucket of addr holds the symbols that may start at or below
 * it past the ones of earlier buckets; a crowded bucket (-l puts many
 * lines in a few bytes) is searched by halves.
 */
size_t sp_symtab_floor(const struct sp_symtab *t, uint64_t addr)
{
	const uint64_t *a = t->addrs;
	size_t lo, hi, b;

	if (!t->len || addr < a[0])
		return SIZE_MAX;
	if (!t->buckets) {
		/* a[lo - 1] <= addr < a[hi] once lo is past a[0] */
		lo = 0;
		hi = t->len;
	} else if ((b = (size_t)((addr - a[0]) >> t->bucket_shift)) >= t->nbuckets) {
		return t->len - 1;
	} else {
		/* a[lo - 1] <= addr < a[hi]: symbol 0 starts bucket 0 */
		lo = t->buckets[b];
		hi = t->buckets[b + 1];
	}
	while (hi - lo > 4) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < hi && a[lo] <= addr)
		lo++;
	return lo - 1;
}

const struct sp_symbol *sp_symtab_lookup(const struct sp_symtab *t, uint64_t addr)
{
	size_t i;

	if (!t->buckets)
		return sp_symbols_lookup(t->syms, t->len, addr);
	i = sp_symtab_floor(t, addr);
	return i == SIZE_MAX || addr > t->syms[i].end_addr ? NULL : &t->syms[i];
}

const struct sp_symbol *sp_symtab_lookup_near(const struct sp_symtab *t, uint64_t addr,
					      size_t *hint)
{
	const struct sp_symbol *s;
	size_t i = *hint;

	/* the same answer as the search: the last symbol starting at or below */
	if (t->buckets && i < t->len && t->addrs[i] <= addr &&
	    (i + 1 == t->len || t->addrs[i + 1] > addr))
		return addr > t->syms[i].end_addr ? NULL : &t->syms[i];
	s = sp_symtab_lookup(t, addr);
	if (s)
		*hint = (size_t)(s - t->syms);
	return s;
}

const struct sp_symbol *sp_symbols_lookup(const struct sp_symbol *sym, size_t len, uint64_t addr)
{
	long low, high, mid = -1;

	if (!len)
		return NULL;
	for (low = 0, high = (long)len - 1; low != high;) {
		mid = (high + low) / 2;
		if (sym[mid].addr <= addr && sym[mid + 1].addr > addr)
			return addr > sym[mid].end_addr ? NULL : &sym[mid];
		if (sym[mid].addr > addr)
			high = mid;
		else
			low = mid + 1;
	}
	if (sym[mid + 1].addr <= addr)
		return addr > sym[mid + 1].end_addr ? NULL : &sym[mid + 1];
	return NULL;
}
