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
	free(t->pending);
	free(t->files);
	sp_strtab_release(&t->strs);
	sp_arena_release(&t->arena);
	free(t);
}

const struct sp_srcfile *sp_symtab_file(struct sp_symtab *t, const char *name)
{
	const char *s = sp_strtab_intern(&t->strs, name);
	struct sp_srcfile *f;
	size_t i;

	/* the interned pointer identifies the file; scan newest first */
	for (i = t->nfiles; i > 0; i--)
		if (t->files[i - 1]->name == s)
			return t->files[i - 1];
	f = sp_arena_zalloc(&t->arena, sizeof(*f));
	f->name = s;
	f->id = (uint32_t)t->nfiles;
	SP_ALLOC_GROW(t->files, t->nfiles + 1, t->files_alloc);
	t->files[t->nfiles++] = f;
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

void sp_symbols_finalize(struct sp_symbol *syms, size_t *len, uint64_t text_end)
{
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

static int cmp_str(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_ptr(const void *a, const void *b, void *ctx)
{
	uintptr_t x = (uintptr_t) * (const char *const *)a, y = (uintptr_t) * (const char *const *)b;

	(void)ctx;
	return (x > y) - (x < y);
}

/* Binary search of p among the n sorted pointers of v. */
static size_t find_ptr(const char *const *v, size_t n, const char *p)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)v[mid] < (uintptr_t)p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t *sp_symtab_name_ranks(const struct sp_symtab *t)
{
	const char **ptrs, **names;
	uint32_t *rank_of, *ranks;
	size_t i, n = 0, u = 0;

	ptrs = sp_xreallocarray(NULL, t->len + 1, sizeof(*ptrs));
	for (i = 0; i < t->len; i++)
		ptrs[n++] = t->syms[i].name ? t->syms[i].name : "";
	/* distinct strings: the names are interned, but not necessarily all in
	 * this table's string table, so dedup by pointer, then rank by value */
	sp_sort(ptrs, n, sizeof(*ptrs), cmp_ptr, NULL);
	for (i = 0; i < n; i++)
		if (!u || ptrs[u - 1] != ptrs[i])
			ptrs[u++] = ptrs[i];
	names = sp_xreallocarray(NULL, u + 1, sizeof(*names));
	memcpy(names, ptrs, u * sizeof(*names));
	sp_sort(names, u, sizeof(*names), cmp_str, NULL);
	rank_of = sp_xreallocarray(NULL, u + 1, sizeof(*rank_of));
	for (i = 0; i < u; i++) {
		/* equal strings at different addresses get one rank */
		uint32_t r = (uint32_t)i;

		if (i && !strcmp(names[i - 1], names[i]))
			r = rank_of[find_ptr(ptrs, u, names[i - 1])];
		rank_of[find_ptr(ptrs, u, names[i])] = r;
	}
	ranks = sp_xreallocarray(NULL, t->len + 1, sizeof(*ranks));
	for (i = 0; i < t->len; i++)
		ranks[i] = rank_of[find_ptr(ptrs, u, t->syms[i].name ? t->syms[i].name : "")];
	free(ptrs);
	free(names);
	free(rank_of);
	return ranks;
}

static void symtab_index(struct sp_symtab *t)
{
	size_t i;


	memset(&t->syms[t->len], 0, sizeof(t->syms[0]));
	free(t->addrs);
	t->addrs = sp_xreallocarray(NULL, t->len + 1, sizeof(*t->addrs));
	for (i = 0; i < t->len; i++)
		t->addrs[i] = t->syms[i].addr;
}

void sp_symtab_finalize_sorted(struct sp_symtab *t)
{
	SP_ALLOC_GROW(t->syms, t->len + 1, t->syms_alloc);
	symbols_dedup(t->syms, &t->len, t->text_end);
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
 * range; searching a plain array of addresses finds it with fewer cache
 * misses than walking the symbols.
 */
const struct sp_symbol *sp_symtab_lookup(const struct sp_symtab *t, uint64_t addr)
{
	size_t lo = 0, n = t->len;

	if (!n || !t->addrs || addr < t->addrs[0])
		return !t->addrs ? sp_symbols_lookup(t->syms, t->len, addr) : NULL;
	while (n > 1) {
		size_t half = n / 2;

		if (t->addrs[lo + half] <= addr)
			lo += half;
		n -= half;
	}
	return addr > t->syms[lo].end_addr ? NULL : &t->syms[lo];
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
