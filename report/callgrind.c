/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=callgrind: the profile in the callgrind format that KCachegrind
 * and callgrind_annotate read (valgrind's docs/callgrind-format):
 *
 *   version: 1 / creator / cmd / positions: line / events: Samples / summary
 *   ob=(id) object  fl=(id) file  fn=(id) function     one block per function
 *   LINE SELF                                          self samples per line
 *   fi=(id) file                                       lines in another file
 *   cob= cfi= cfn=(id) callee                          a call ...
 *   calls=N 0                                          ... N samples through it
 *   LINE INCLUSIVE                                     ... from this line
 *
 * Costs are samples, computed from the exact stacks. A call's cost is the
 * inclusive cost of the callee below that call, and a viewer takes a
 * function's inclusive cost from the calls into it (callgrind_annotate
 * --inclusive=yes adds them up; KCachegrind too, leaving out calls of a
 * function to itself), or, for a function nobody calls, from its self cost
 * plus its calls. So each sample is charged to exactly one call into each
 * function of its stack but the root: the call into its outermost
 * activation. For main -> a -> a -> b: main -> a and a -> b, and the
 * recursive a -> a carries nothing; for main -> e -> s -> x -> e -> s -> l
 * (a function re-entered through others, as sqlite3_step through execSql):
 * main -> e, e -> s, s -> x and the inner s -> l, never x -> e or the
 * inner e -> s. The leaf's function gets the sample as self cost. Inline
 * chains are expanded: an inlined function is a function of its own,
 * called from the line of its call site.
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct pos {
	uint32_t fn, file, line;
};

struct cost {
	uint32_t fn, file, line, callee; /* callee UINT32_MAX: self cost */
	int64_t n;
};

struct fn {
	uint32_t obj;  /* index into names */
	uint32_t name; /* index into names */
	uint32_t file; /* its main file (of its first position) */
	uint32_t id;   /* compressed id, 0 until printed */
};

struct cgw {
	FILE *out;
	const struct sp_profile *p;
	struct sp_symbolizer *s;
	const struct sp_stack_report_opts *o;
	/* interned strings: names[] with an index */
	struct sp_strtab strs;
	struct sp_pairmap str_index;
	const char **str;
	uint32_t *str_id; /* compressed ids per string kind, 0 = not yet */
	size_t nstr, str_alloc;
	struct fn *fns;
	struct sp_pairmap fn_index;
	size_t nfns, fns_alloc;
	struct pos *pos; /* per frame: positions pos[first[f] .. first[f + 1]) */
	uint32_t *first;
	size_t npos, pos_alloc;
	struct cost *costs;
	struct sp_pairmap cost_index;
	size_t ncosts, costs_alloc;
	uint32_t next_id[3]; /* ob, fl, fn */
};

/* ---- tables ---- */

static void str_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct cgw *w = ctx;

	*k1 = (uint64_t)(uintptr_t)w->str[i];
	*k2 = 0;
}

static uint32_t str_of(struct cgw *w, const char *s)
{
	const char *k = sp_strtab_intern(&w->strs, s ? s : "???");
	uint32_t i = sp_pairmap_get(&w->str_index, (uint64_t)(uintptr_t)k, 0);

	if (i != UINT32_MAX)
		return i;
	SP_ALLOC_GROW(w->str, w->nstr + 1, w->str_alloc);
	w->str[w->nstr] = k;
	sp_pairmap_put(&w->str_index, (uint64_t)(uintptr_t)k, 0, (uint32_t)w->nstr);
	return (uint32_t)w->nstr++;
}

static void fn_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct cgw *w = ctx;

	*k1 = w->fns[i].obj;
	*k2 = w->fns[i].name;
}

static uint32_t fn_of(struct cgw *w, uint32_t obj, uint32_t name, uint32_t file)
{
	uint32_t i;

	SP_ALLOC_GROW(w->fns, w->nfns + 1, w->fns_alloc);
	w->fns[w->nfns].obj = obj;
	w->fns[w->nfns].name = name;
	w->fns[w->nfns].file = file;
	w->fns[w->nfns].id = 0;
	i = sp_pairmap_put(&w->fn_index, obj, name, (uint32_t)w->nfns);
	if (i == w->nfns)
		w->nfns++;
	return i;
}

static void cost_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct cgw *w = ctx;
	const struct cost *c = &w->costs[i];

	*k1 = (uint64_t)c->fn << 32 | c->line;
	*k2 = (uint64_t)c->file << 32 | c->callee;
}

static void add_cost(struct cgw *w, const struct pos *at, uint32_t callee, int64_t n)
{
	uint32_t i;

	SP_ALLOC_GROW(w->costs, w->ncosts + 1, w->costs_alloc);
	w->costs[w->ncosts].fn = at->fn;
	w->costs[w->ncosts].file = at->file;
	w->costs[w->ncosts].line = at->line;
	w->costs[w->ncosts].callee = callee;
	w->costs[w->ncosts].n = 0;
	i = sp_pairmap_put(&w->cost_index, (uint64_t)at->fn << 32 | at->line,
			   (uint64_t)at->file << 32 | callee, (uint32_t)w->ncosts);
	if (i == w->ncosts)
		w->ncosts++;
	w->costs[i].n += n;
}

/* ---- positions of frames ---- */

static void push_pos(struct cgw *w, uint32_t obj, const char *name, int linkage, const char *file,
		     uint32_t line)
{
	const char *shown = w->o->demangle && linkage ? sp_symbolizer_demangle(w->s, name) : name;
	uint32_t f = str_of(w, file ? file : "???");

	SP_ALLOC_GROW(w->pos, w->npos + 1, w->pos_alloc);
	w->pos[w->npos].fn = fn_of(w, obj, str_of(w, shown), f);
	w->pos[w->npos].file = f;
	w->pos[w->npos++].line = line;
}

static void frame_positions(struct cgw *w)
{
	const struct sp_profile *p = w->p;
	struct sp_buf buf = SP_BUF_INIT;
	size_t f;
	uint32_t k;

	w->first = sp_xmalloc((p->nframes + 1) * sizeof(*w->first));
	for (f = 0; f < p->nframes; f++) {
		const struct sp_frame *fr = &p->frames[f];
		const struct sp_symloc *loc = sp_symbolizer_frame(w->s, p, (uint32_t)f);
		const char *path = fr->object < p->nobjects ? p->objects[fr->object].path : NULL;
		uint32_t obj = str_of(w, path ? path : "???");

		w->first[f] = (uint32_t)w->npos;
		if (!loc->nframes || !loc->frames[loc->nframes - 1].func) {
			/* the name every other report gives it (cg/frames.c) */
			sp_buf_reset(&buf);
			sp_buf_addf(&buf, "0x%llx (in %s)", (unsigned long long)fr->addr,
				    path && path[0] ? path : "??");
			push_pos(w, obj, buf.buf, 0, NULL, 0);
			continue;
		}
		for (k = loc->nframes; k > 0; k--) {
			const struct sp_sym_frame *sf = &loc->frames[k - 1];

			push_pos(w, obj, sf->func ? sf->func : "??", sf->func_linkage, sf->file,
				 sf->line);
		}
	}
	w->first[p->nframes] = (uint32_t)w->npos;
	sp_buf_release(&buf);
}

/* ---- stacks ---- */

static void count_stacks(struct cgw *w, int64_t *total)
{
	const struct sp_profile *p = w->p;
	int64_t *node_count = sp_stack_node_values(p, w->o);
	uint32_t *stamp = sp_xcalloc(w->nfns + 1, sizeof(*stamp)), *fr = NULL;
	struct pos *path = NULL;
	size_t i, path_alloc = 0, fr_alloc = 0;

	for (i = 1; i < p->nnodes; i++) {
		size_t nfr = 0, m = 0, k;
		uint32_t n, j;

		if (!node_count[i])
			continue;
		*total += node_count[i];
		for (n = (uint32_t)i; n != 0 && n != SP_NONE; n = p->nodes[n].parent) {
			SP_ALLOC_GROW(fr, nfr + 1, fr_alloc);
			fr[nfr++] = p->nodes[n].frame;
		}
		for (k = nfr; k > 0; k--) {
			for (j = w->first[fr[k - 1]]; j < w->first[fr[k - 1] + 1]; j++) {
				SP_ALLOC_GROW(path, m + 1, path_alloc);
				path[m++] = w->pos[j];
			}
		}
		if (!m)
			continue;
		add_cost(w, &path[m - 1], UINT32_MAX, node_count[i]);
		for (k = 0; k < m; k++) {
			if (stamp[path[k].fn] == i)
				continue;
			stamp[path[k].fn] = (uint32_t)i;
			if (k > 0)
				add_cost(w, &path[k - 1], path[k].fn, node_count[i]);
		}
	}
	free(stamp);
	free(fr);
	free(path);
	free(node_count);
}

/* ---- output ---- */

static void name_ref(struct cgw *w, const char *key, int kind, uint32_t s)
{
	uint32_t *id = &w->str_id[s * 3 + (uint32_t)kind];

	if (*id) {
		fprintf(w->out, "%s=(%u)\n", key, *id);
		return;
	}
	*id = ++w->next_id[kind];
	fprintf(w->out, "%s=(%u) %s\n", key, *id, w->str[s]);
}

static int cmp_cost(const void *a, const void *b, void *ctx)
{
	const struct cgw *w = ctx;
	const struct cost *x = &w->costs[*(const uint32_t *)a],
			  *y = &w->costs[*(const uint32_t *)b];
	const struct fn *fx = &w->fns[x->fn], *fy = &w->fns[y->fn];
	int c;

	if (x->fn != y->fn) {
		if ((c = strcmp(w->str[fx->obj], w->str[fy->obj])))
			return c;
		if ((c = strcmp(w->str[fx->name], w->str[fy->name])))
			return c;
		return x->fn < y->fn ? -1 : 1;
	}
	if ((x->file == fx->file) != (y->file == fy->file))
		return x->file == fx->file ? -1 : 1;
	if (x->file != y->file)
		return strcmp(w->str[x->file], w->str[y->file]);
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if ((x->callee == UINT32_MAX) != (y->callee == UINT32_MAX))
		return x->callee == UINT32_MAX ? -1 : 1;
	if (x->callee == y->callee)
		return 0;
	return strcmp(w->str[w->fns[x->callee].name], w->str[w->fns[y->callee].name]);
}

static void print_costs(struct cgw *w)
{
	uint32_t *order = sp_xmalloc((w->ncosts + 1) * sizeof(*order));
	uint32_t cur_fn = UINT32_MAX, cur_file = UINT32_MAX;
	size_t i;

	for (i = 0; i < w->ncosts; i++)
		order[i] = (uint32_t)i;
	sp_sort(order, w->ncosts, sizeof(*order), cmp_cost, w);
	for (i = 0; i < w->ncosts; i++) {
		const struct cost *c = &w->costs[order[i]];
		const struct fn *f = &w->fns[c->fn];

		if (c->fn != cur_fn) {
			fputc('\n', w->out);
			name_ref(w, "ob", 0, f->obj);
			name_ref(w, "fl", 1, f->file);
			name_ref(w, "fn", 2, f->name);
			cur_fn = c->fn;
			cur_file = f->file;
		}
		if (c->file != cur_file) {
			name_ref(w, "fi", 1, c->file);
			cur_file = c->file;
		}
		if (c->callee != UINT32_MAX) {
			const struct fn *t = &w->fns[c->callee];

			if (t->obj != f->obj)
				name_ref(w, "cob", 0, t->obj);
			name_ref(w, "cfi", 1, t->file);
			name_ref(w, "cfn", 2, t->name);
			fprintf(w->out, "calls=%lld 0\n", (long long)c->n);
		}
		fprintf(w->out, "%u %lld\n", c->line, (long long)c->n);
	}
	free(order);
}

void sp_report_callgrind(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
			 const struct sp_stack_report_opts *o)
{
	struct cgw w;
	int64_t total = 0;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.out = out;
	w.p = p;
	w.s = s;
	w.o = o;
	sp_strtab_init(&w.strs);
	sp_pairmap_init(&w.str_index, str_key, &w);
	sp_pairmap_init(&w.fn_index, fn_key, &w);
	sp_pairmap_init(&w.cost_index, cost_key, &w);
	frame_positions(&w);
	count_stacks(&w, &total);
	w.str_id = sp_xcalloc(w.nstr * 3 + 1, sizeof(*w.str_id));
	fputs("# callgrind format\nversion: 1\ncreator: symprof\n", out);
	for (i = 0; i < p->ninputs; i++)
		fprintf(out, "# profile: %s\n", p->inputs[i].path);
	fprintf(out, "positions: line\nevents: %s\nsummary: %lld\n",
		w.o->counter ? w.o->counter : "Samples", (long long)total);
	print_costs(&w);
	free(w.str_id);
	free(w.str);
	free(w.fns);
	free(w.pos);
	free(w.first);
	free(w.costs);
	sp_pairmap_release(&w.str_index);
	sp_pairmap_release(&w.fn_index);
	sp_pairmap_release(&w.cost_index);
	sp_strtab_release(&w.strs);
}
