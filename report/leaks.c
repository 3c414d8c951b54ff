/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The leak report of an IgProf memory (or file descriptor) profile: what
 * each allocation site still held when the dump was written, from the
 * tree cg/igtree.c builds for MEM_LIVE (allocation functions folded into
 * their callers, so a site is the function that called malloc or new):
 *
 *   Leaks: MEM_LIVE, 532'480 bytes in 2'003 blocks at 4 sites
 *
 *        Bytes  % total     Blocks  Site
 *      400'000    75.12          1  double* corpus::make_table<double>(unsigned long)
 *                                     from main <- __libc_start_call_main <- ...
 *
 * Sites are functions, largest first (then by name); the "from" line is
 * the call path of the site's largest stack (up to 8 callers). With
 * --leak-addresses every leaked block follows its site: address and size.
 */
#include "symprof/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

#define MAX_FROM 8

struct site {
	int64_t bytes, blocks;
	uint32_t top; /* the node with the most bytes */
	int64_t top_bytes;
};

struct lr {
	const struct sp_profile *t;
	const struct sp_igprof_report_opts *o;
	struct site *s; /* per frame (= function) */
	char **names;
	size_t *first; /* --leak-addresses: see group_leaks() */
	size_t *by_site;
};

static const char *name_of(struct lr *l, uint32_t frame)
{
	const char *raw;

	if (l->names[frame])
		return l->names[frame];
	raw = l->t->frames[frame].name ? l->t->frames[frame].name : "??";
	l->names[frame] = l->o->demangle ? sp_demangle(raw, 0) : NULL;
	if (!l->names[frame])
		l->names[frame] = sp_xstrdup(raw);
	return l->names[frame];
}

static int cmp_site(const void *a, const void *b, void *ctx)
{
	struct lr *l = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (l->s[x].bytes != l->s[y].bytes)
		return l->s[x].bytes > l->s[y].bytes ? -1 : 1;
	return strcmp(name_of(l, x), name_of(l, y));
}

static void commas(struct sp_buf *b, int64_t v)
{
	char d[32];
	int n = snprintf(d, sizeof(d), "%lld", (long long)v), i;

	sp_buf_reset(b);
	for (i = 0; i < n; i++) {
		if (i && d[i - 1] != '-' && (n - i) % 3 == 0)
			sp_buf_addch(b, '\'');
		sp_buf_addch(b, d[i]);
	}
}

static void from_line(FILE *out, struct lr *l, uint32_t node)
{
	uint32_t n = l->t->nodes[node].parent;
	int k = 0;

	fputs("                                    from ", out);
	for (; n && n != SP_NONE && k < MAX_FROM; n = l->t->nodes[n].parent, k++)
		fprintf(out, "%s%s", k ? " <- " : "", name_of(l, l->t->nodes[n].frame));
	if (!k)
		fputs("<spontaneous>", out);
	else if (n && n != SP_NONE)
		fputs(" <- ...", out);
	fputc('\n', out);
}

/* The leaks grouped by site (a counting sort): site f's are
 * by_site[first[f] .. first[f + 1]). */
static void group_leaks(struct lr *l)
{
	const struct sp_profile *t = l->t;
	size_t i, nf = t->nframes;

	l->first = sp_xcalloc(nf + 2, sizeof(*l->first));
	l->by_site = sp_xmalloc((t->nleaks + 1) * sizeof(*l->by_site));
	for (i = 0; i < t->nleaks; i++)
		if (t->leaks[i].node < t->nnodes)
			l->first[t->nodes[t->leaks[i].node].frame + 1]++;
	for (i = 0; i < nf; i++)
		l->first[i + 1] += l->first[i];
	for (i = 0; i < t->nleaks; i++)
		if (t->leaks[i].node < t->nnodes)
			l->by_site[l->first[t->nodes[t->leaks[i].node].frame]++] = i;
	for (i = nf; i > 0; i--)
		l->first[i] = l->first[i - 1];
	l->first[0] = 0;
}

static void addresses(FILE *out, struct lr *l, uint32_t frame)
{
	size_t i;

	for (i = l->first[frame]; i < l->first[frame + 1]; i++) {
		const struct sp_leak *k = &l->t->leaks[l->by_site[i]];

		fprintf(out, "                                    0x%llx %llu\n",
			(unsigned long long)k->addr, (unsigned long long)k->size);
	}
}

static size_t collect(struct lr *l, uint32_t **order, int64_t *bytes, int64_t *blocks)
{
	const struct sp_profile *t = l->t;
	size_t i, n = 0;

	for (i = 0; i < t->nvalues; i++) {
		const struct sp_cct_value *v = &t->values[i];
		struct site *s;

		if (v->node == 0 || v->node >= t->nnodes || (!v->value && !v->count))
			continue;
		s = &l->s[t->nodes[v->node].frame];
		s->bytes += v->value;
		s->blocks += v->count;
		*bytes += v->value;
		*blocks += v->count;
		if (!s->top || v->value > s->top_bytes) {
			s->top = v->node;
			s->top_bytes = v->value;
		}
	}
	*order = sp_xmalloc((t->nframes + 1) * sizeof(**order));
	for (i = 0; i < t->nframes; i++)
		if (l->s[i].top)
			(*order)[n++] = (uint32_t)i;
	sp_sort(*order, n, sizeof(**order), cmp_site, l);
	return n;
}

void sp_report_leaks(FILE *out, const struct sp_profile *t, const struct sp_igprof_report_opts *o)
{
	struct lr l;
	struct sp_buf a = SP_BUF_INIT, b = SP_BUF_INIT;
	int64_t bytes = 0, blocks = 0;
	uint32_t *order;
	size_t i, n;

	l.t = t;
	l.o = o;
	l.s = sp_xcalloc(t->nframes + 1, sizeof(*l.s));
	l.names = sp_xcalloc(t->nframes + 1, sizeof(*l.names));
	l.first = NULL;
	l.by_site = NULL;
	if (o->addresses)
		group_leaks(&l);
	n = collect(&l, &order, &bytes, &blocks);
	commas(&a, bytes);
	commas(&b, blocks);
	fprintf(out, "Leaks: %s, %s bytes in %s blocks at %zu site%s\n\n", o->counter, a.buf, b.buf,
		n, n == 1 ? "" : "s");
	fprintf(out, "%12s  %7s  %9s  %s\n", "Bytes", "% total", "Blocks", "Site");
	for (i = 0; i < n; i++) {
		const struct site *s = &l.s[order[i]];

		commas(&a, s->bytes);
		commas(&b, s->blocks);
		fprintf(out, "%12s  %7.2f  %9s  %s\n", a.buf,
			bytes ? 100.0 * (double)s->bytes / (double)bytes : 0.0, b.buf,
			name_of(&l, order[i]));
		from_line(out, &l, s->top);
		if (o->addresses)
			addresses(out, &l, order[i]);
	}
	for (i = 0; i < t->nframes; i++)
		free(l.names[i]);
	free(l.names);
	free(l.s);
	free(l.first);
	free(l.by_site);
	free(order);
	sp_buf_release(&a);
	sp_buf_release(&b);
}
