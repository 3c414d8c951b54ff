/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * google-pprof's "nm view" of a file (pprof.h): what the Perl script of
 * gperftools 2.0 (peers.md 1.4) makes of `nm -n --demangle`'s listing,
 * which the symbolizer gives (sp_symfile_nm(), one call per file):
 *
 *  - GetProcedureBoundariesViaNm: the first symbol at each address opens a
 *    routine named "name<addr>" that ends at the next address; a later t/T
 *    symbol at the same address replaces its name (without the <addr>
 *    tag); routines are kept in a hash by name, so a later one of the same
 *    name replaces the range;
 *  - MapSymbolsWithNM: an address belongs to the first routine (up to the
 *    last) whose end is above it;
 *  - a listing with a symbol "_fini" makes pprof ask addr2line for inline
 *    chains (it uses _fini as a separator).
 *
 * The views are built once per file and kept until the release.
 */
#include "pprof.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/buf.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

/* A routine as google-pprof's nm pass keeps it. */
struct nm_routine {
	uint64_t start, end;
	const struct sp_nm_line *line; /* the symbol's */
	const char *fullname;	       /* "name<start>" (interned when first
					* asked: NULL till then), or the t/T
					* name (see build) */
};

struct sp_pprof_nmfile {
	struct sp_symfile *file;
	struct nm_routine *routines; /* sorted by start */
	size_t nroutines;
	int has_fini; /* a routine starts with "_fini" */
};

static void file_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_pprof_nmview *v = ctx;

	*k1 = (uint64_t)(uintptr_t)v->files[i].file;
	*k2 = 0;
}

static void routine_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_pprof_nmfile *nf = ctx;

	*k1 = (uint64_t)(uintptr_t)nf->routines[i].fullname;
	*k2 = 0;
}

/*
 * Adds a routine. pprof keeps them in a hash by name, so a later one of
 * the same name replaces the range; only t/T names can come back (a
 * tagged one holds its start, and the starts are distinct), so only they
 * go through `index`, by their printed name. A tagged routine's name is
 * only printed if a profile's address lands in it.
 */
static void emit(struct sp_pprof_nmfile *nf, struct sp_pairmap *index, size_t *alloc,
		 const struct sp_nm_line *line, int tagged, uint64_t start, uint64_t end)
{
	uint32_t i = (uint32_t)nf->nroutines;
	const char *name = tagged ? NULL : sp_symfile_nm_name(nf->file, line);

	SP_ALLOC_GROW(nf->routines, nf->nroutines + 1, *alloc);
	nf->routines[i].line = line;
	nf->routines[i].fullname = name;
	if (!tagged)
		i = sp_pairmap_put(index, (uint64_t)(uintptr_t)name, 0, i);
	if (i == nf->nroutines)
		nf->nroutines++;
	nf->routines[i].start = start;
	nf->routines[i].end = end;
}

/* "name<%016llx>": nm's line as MapSymbolsWithNM keeps it (no printf),
 * interned so that equal names of several files are one pointer. */
static const char *tag(struct sp_pprof_nmview *v, const char *name, uint64_t addr)
{
	char hex[18];
	int i;

	hex[0] = '<';
	for (i = 16; i > 0; i--, addr >>= 4)
		hex[i] = "0123456789abcdef"[addr & 15];
	hex[17] = '>';
	sp_buf_reset(&v->buf);
	sp_buf_addstr(&v->buf, name);
	sp_buf_add(&v->buf, hex, sizeof(hex));
	return sp_strtab_intern_n(&v->strs, v->buf.buf, v->buf.len);
}

static int cmp_routine(const void *a, const void *b, void *ctx)
{
	const struct nm_routine *x = a, *y = b;

	(void)ctx;
	return (x->start > y->start) - (x->start < y->start);
}

/* GetProcedureBoundariesViaNm over the file's nm listing. */
static void build(struct sp_pprof_nmfile *nf, struct sp_symfile *f)
{
	const struct sp_nm_line *l, *routine = NULL;
	size_t n = sp_symfile_nm(f, &l);
	struct sp_pairmap index;
	uint64_t last = 0;
	size_t i, alloc = 0;
	int have_last = 0, tagged = 0;

	memset(nf, 0, sizeof(*nf));
	nf->file = f;
	sp_pairmap_init(&index, routine_key, nf);
	for (i = 0; i < n; i++) {
		if (have_last && l[i].addr == last) {
			if (l[i].type == 't' || l[i].type == 'T') {
				routine = &l[i];
				tagged = 0;
			}
			continue;
		}
		if (sp_symfile_nm_is(f, &l[i], "_fini"))
			nf->has_fini = 1;
		if (routine && !sp_symfile_nm_is_empty(f, routine))
			emit(nf, &index, &alloc, routine, tagged, last, l[i].addr);
		last = l[i].addr;
		have_last = 1;
		routine = &l[i];
		tagged = 1;
	}
	if (routine && !sp_symfile_nm_is_empty(f, routine))
		emit(nf, &index, &alloc, routine, tagged, last, last);
	sp_pairmap_release(&index);
	/* in address order already, unless a name came back (the starts
	 * are distinct: one routine per address) */
	for (i = 1; i < nf->nroutines; i++)
		if (nf->routines[i - 1].start > nf->routines[i].start)
			break;
	if (i < nf->nroutines)
		sp_sort(nf->routines, nf->nroutines, sizeof(*nf->routines), cmp_routine, NULL);
}

/* The view of file f, built on first use. */
static struct sp_pprof_nmfile *view(struct sp_pprof_nmview *v, struct sp_symfile *f)
{
	uint32_t i;
	struct sp_pprof_nmfile nf;

	/* callers ask about one file many times in a row */
	if (v->nfiles && v->files[v->last].file == f)
		return &v->files[v->last];
	i = sp_pairmap_get(&v->index, (uint64_t)(uintptr_t)f, 0);
	if (i == UINT32_MAX) {
		build(&nf, f);
		SP_ALLOC_GROW(v->files, v->nfiles + 1, v->files_alloc);
		v->files[v->nfiles] = nf;
		i = sp_pairmap_put(&v->index, (uint64_t)(uintptr_t)f, 0, (uint32_t)v->nfiles++);
	}
	v->last = i;
	return &v->files[i];
}

int sp_pprof_nmview_routine(struct sp_pprof_nmview *v, struct sp_symfile *f, uint64_t vaddr,
			    const char **name, const char **plain, uint64_t *start)
{
	struct sp_pprof_nmfile *nf = view(v, f);
	size_t lo = 0, hi, n = nf->nroutines;
	struct nm_routine *r;

	if (!n)
		return 0;
	/* MapSymbolsWithNM: the first routine (up to the last) whose end is
	 * above vaddr */
	hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vaddr >= nf->routines[mid].end)
			lo = mid + 1;
		else
			hi = mid;
	}
	r = &nf->routines[lo];
	if (vaddr >= r->end)
		return 0;
	if (!r->fullname)
		r->fullname = tag(v, sp_symfile_nm_name(nf->file, r->line), r->start);
	*name = r->fullname;
	if (plain)
		*plain = sp_symfile_nm_name(nf->file, r->line);
	*start = r->start;
	return 1;
}

int sp_pprof_nmview_has_routines(struct sp_pprof_nmview *v, struct sp_symfile *f)
{
	return view(v, f)->nroutines != 0;
}

int sp_pprof_nmview_has_fini(struct sp_pprof_nmview *v, struct sp_symfile *f)
{
	return view(v, f)->has_fini;
}

void sp_pprof_nmview_init(struct sp_pprof_nmview *v)
{
	memset(v, 0, sizeof(*v));
	sp_pairmap_init(&v->index, file_key, v);
	sp_strtab_init(&v->strs);
	sp_buf_init(&v->buf, 0);
}

void sp_pprof_nmview_release(struct sp_pprof_nmview *v)
{
	size_t i;

	for (i = 0; i < v->nfiles; i++)
		free(v->files[i].routines);
	free(v->files);
	sp_pairmap_release(&v->index);
	sp_strtab_release(&v->strs);
	sp_buf_release(&v->buf);
}
