/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=folded: the input of flame-graph tools (Brendan Gregg's
 * flamegraph.pl, speedscope, inferno): one line per distinct stack,
 *
 *   root;caller;...;leaf N
 *
 * functions from the outermost to the innermost, inline chains expanded
 * (an inlined function is a frame of its own), N the samples of that
 * stack. Stacks that differ only in their call sites inside a function
 * print as one line. Lines are sorted by the stack text (byte order), so
 * the output is deterministic; names are demangled unless --no-demangle,
 * with -l each followed by ":line" (the line of the address, or of the
 * call site).
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/cg.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct folded {
	struct sp_strtab strs;
	struct sp_pairmap index; /* interned stack text -> lines[] */
	const char **text;
	int64_t *count;
	size_t n, alloc;
	char **name; /* per function: its printed name */
};

static void key_of(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct folded *f = ctx;

	*k1 = (uint64_t)(uintptr_t)f->text[i];
	*k2 = 0;
}

static void add(struct folded *f, const char *s, int64_t count)
{
	const char *k = sp_strtab_intern(&f->strs, s);
	uint32_t i = sp_pairmap_get(&f->index, (uint64_t)(uintptr_t)k, 0);

	if (i == UINT32_MAX) {
		SP_ALLOC_GROW(f->text, f->n + 1, f->alloc);
		f->count = sp_xreallocarray(f->count, f->alloc, sizeof(*f->count));
		f->text[f->n] = k;
		f->count[f->n] = 0;
		i = (uint32_t)f->n++;
		sp_pairmap_put(&f->index, (uint64_t)(uintptr_t)k, 0, i);
	}
	f->count[i] += count;
}

static const char *fn_name(struct folded *f, const struct sp_frame_funcs *ff, uint32_t fn,
			   const struct sp_stack_report_opts *o)
{
	const struct sp_symbol *s = &ff->funcs->syms[fn];
	struct sp_buf b = SP_BUF_INIT;
	char *d;

	if (f->name[fn])
		return f->name[fn];
	d = o->demangle ? sp_demangle(s->name, 0) : NULL;
	sp_buf_addstr(&b, d ? d : s->name);
	free(d);
	if (o->lines && s->file)
		sp_buf_addf(&b, ":%d", s->line);
	f->name[fn] = sp_buf_detach(&b, NULL);
	return f->name[fn];
}

/* The functions of node n's path, outermost first, joined by ';'. */
static void stack_text(struct folded *f, const struct sp_profile *p,
		       const struct sp_frame_funcs *ff, uint32_t n,
		       const struct sp_stack_report_opts *o, struct sp_buf *b, uint32_t **path,
		       size_t *alloc)
{
	size_t depth = 0, i;
	uint32_t k;

	for (; n != 0 && n != SP_NONE; n = p->nodes[n].parent) {
		SP_ALLOC_GROW(*path, depth + 1, *alloc);
		(*path)[depth++] = p->nodes[n].frame;
	}
	sp_buf_reset(b);
	for (i = depth; i > 0; i--) {
		uint32_t fr = (*path)[i - 1];

		for (k = ff->first[fr]; k < ff->first[fr + 1]; k++) {
			if (b->len)
				sp_buf_addch(b, ';');
			sp_buf_addstr(b, fn_name(f, ff, ff->list[k], o));
		}
	}
}

static int cmp_text(const void *a, const void *b, void *ctx)
{
	const struct folded *f = ctx;

	return strcmp(f->text[*(const uint32_t *)a], f->text[*(const uint32_t *)b]);
}

int64_t *sp_stack_node_values(const struct sp_profile *p, const struct sp_stack_report_opts *o)
{
	uint32_t counter = sp_profile_find_counter(p, o->counter ? o->counter : "samples");

	return sp_profile_node_values(p, counter, (enum sp_value_pick)o->pick);
}

void sp_report_folded(FILE *out, const struct sp_profile *p, const struct sp_frame_funcs *ff,
		      const struct sp_stack_report_opts *o)
{
	uint32_t *path = NULL, *order;
	int64_t *node_count = sp_stack_node_values(p, o);
	struct sp_buf b = SP_BUF_INIT;
	struct folded f;
	size_t i, alloc = 0;

	memset(&f, 0, sizeof(f));
	sp_strtab_init(&f.strs);
	sp_pairmap_init(&f.index, key_of, &f);
	f.name = sp_xcalloc(ff->funcs->len + 1, sizeof(*f.name));
	for (i = 1; i < p->nnodes; i++) {
		if (!node_count[i])
			continue;
		stack_text(&f, p, ff, (uint32_t)i, o, &b, &path, &alloc);
		add(&f, b.buf, node_count[i]);
	}
	order = sp_xmalloc((f.n + 1) * sizeof(*order));
	for (i = 0; i < f.n; i++)
		order[i] = (uint32_t)i;
	sp_sort(order, f.n, sizeof(*order), cmp_text, &f);
	for (i = 0; i < f.n; i++)
		fprintf(out, "%s %lld\n", f.text[order[i]], (long long)f.count[order[i]]);
	for (i = 0; i < ff->funcs->len; i++)
		free(f.name[i]);
	free(f.name);
	free(order);
	free(path);
	free(node_count);
	free(f.text);
	free(f.count);
	sp_buf_release(&b);
	sp_pairmap_release(&f.index);
	sp_strtab_release(&f.strs);
}
