/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's call graph (cg_print.c; gprof.md 2.2): one entry per printed node
 * in rank order; callers above the primary line sorted by time ascending,
 * callees below descending; cycles as a whole with their members; the BSD
 * layout (-T) with its wider "descendants" column and blank lines.
 */
#include "symprof/report.h"

#include <stdlib.h>

#include "blurbs.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/symbolize.h"

static void print_header(struct sp_report *r, double *print_time)
{
	const struct sp_cg *cg = r->cg;
	FILE *out = r->out;

	if (r->first_output)
		r->first_output = 0;
	else
		fputs("\f\n", out);
	if (!r->o->bsd)
		fputs(r->o->brief ? "\t\t\tCall graph\n\n"
				  : "\t\t     Call graph (explanation follows)\n\n",
		      out);
	fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)",
		(long)cg->hist_scale * 2L);
	if (*print_time > 0.0) {
		fprintf(out, " for %.2f%% of %.2f seconds\n\n", 100.0 / *print_time,
			*print_time / cg->hz);
	} else {
		fputs(" no time propagated\n\n", out);
		*print_time = 1.0;
	}
	if (r->o->bsd) {
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "",
			"called", "total", "parents");
		fprintf(out, "%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n", "index",
			"%time", "self", "descendants", "called", "self", "name", "index");
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "",
			"called", "total", "children");
		fputc('\n', out);
	} else {
		fputs("index % time    self  children    called     name\n", out);
	}
}

static void print_self_calls(FILE *out, uint64_t self_calls, int trailing_space)
{
	if (self_calls != 0)
		fprintf(out, trailing_space ? "+%-7lu " : "+%-7lu", (unsigned long)self_calls);
	else
		fprintf(out, trailing_space ? " %7.7s " : " %7.7s", "");
}

static void print_cycle(struct sp_report *r, unsigned c, double print_time)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[c];
	char buf[32];

	snprintf(buf, sizeof(buf), "[%d]", n->index);
	fprintf(r->out, r->o->bsd ? "%-6.6s %5.1f %7.2f %11.2f %7lu" : "%-6.6s %5.1f %7.2f %7.2f %7lu",
		buf, 100 * (n->prop_self + n->prop_child) / print_time, n->prop_self / cg->hz,
		n->prop_child / cg->hz, (unsigned long)n->ncalls);
	print_self_calls(r->out, n->self_calls, 0);
	fprintf(r->out, " <cycle %d as a whole> [%d]\n", n->cycle, n->index);
}

/* gprof's cmp_member(): 1 if l sorts before r (more time, then calls). */
static int member_greater(const struct sp_cg_node *l, const struct sp_cg_node *r)
{
	double lt = l->prop_self + l->prop_child, rt = r->prop_self + r->prop_child;
	uint64_t lc = l->ncalls + l->self_calls, rc = r->ncalls + r->self_calls;

	if (lt > rt)
		return 1;
	if (lt < rt)
		return 0;
	return lc > rc;
}

/* gprof's sort_members() (it relinks the cycle's member list). */
static void sort_members(struct sp_cg *cg, unsigned cyc)
{
	struct sp_cg_node *N = cg->nodes;
	uint32_t todo = N[cyc].cyc_next, doing;

	N[cyc].cyc_next = SP_CG_NONE;
	for (doing = todo; doing != SP_CG_NONE; doing = todo) {
		uint32_t prev = cyc;

		todo = N[doing].cyc_next;
		while (N[prev].cyc_next != SP_CG_NONE && !member_greater(&N[doing], &N[N[prev].cyc_next]))
			prev = N[prev].cyc_next;
		N[doing].cyc_next = N[prev].cyc_next;
		N[prev].cyc_next = doing;
	}
}

static void print_members(struct sp_report *r, unsigned cyc)
{
	struct sp_cg *cg = r->cg;
	uint32_t m;

	sort_members(cg, cyc);
	for (m = cg->nodes[cyc].cyc_next; m != SP_CG_NONE; m = cg->nodes[m].cyc_next) {
		const struct sp_cg_node *n = &cg->nodes[m];

		fprintf(r->out, r->o->bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu" : "%6.6s %5.5s %7.2f %7.2f %7lu",
			"", "", n->prop_self / cg->hz, n->prop_child / cg->hz,
			(unsigned long)n->ncalls);
		print_self_calls(r->out, n->self_calls, 0);
		fputs("     ", r->out);
		sp_report_name(r, m);
		fputc('\n', r->out);
	}
}

/* An arc line: count only for recursion and calls inside a cycle. */
static void print_arc(struct sp_report *r, const struct sp_cg_arc *a, int count_only,
		      uint64_t total, unsigned name_node)
{
	const struct sp_cg *cg = r->cg;

	if (count_only)
		fprintf(r->out,
			r->o->bsd ? "%6.6s %5.5s %7.7s %11.11s %7lu %7.7s     "
				  : "%6.6s %5.5s %7.7s %7.7s %7lu %7.7s     ",
			"", "", "", "", (unsigned long)a->count, "");
	else
		fprintf(r->out,
			r->o->bsd ? "%6.6s %5.5s %7.2f %11.2f %7lu/%-7lu     "
				  : "%6.6s %5.5s %7.2f %7.2f %7lu/%-7lu     ",
			"", "", a->time / cg->hz, a->child_time / cg->hz, (unsigned long)a->count,
			(unsigned long)total);
	sp_report_name(r, name_node);
	fputc('\n', r->out);
}

static void print_parents(struct sp_report *r, unsigned child)
{
	struct sp_cg *cg = r->cg;
	const struct sp_cg_node *c = &cg->nodes[child];
	uint32_t head = c->cyc_head, a;

	if (c->parents == SP_CG_NONE) {
		fprintf(r->out,
			r->o->bsd ? "%6.6s %5.5s %7.7s %11.11s %7.7s %7.7s     <spontaneous>\n"
				  : "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n",
			"", "", "", "", "", "");
		return;
	}
	sp_cg_sort_parents(cg, child);
	for (a = cg->nodes[child].parents; a != SP_CG_NONE; a = cg->arcs[a].next_parent) {
		uint32_t p = cg->arcs[a].parent;
		int inner = child == p || (c->cycle != 0 && cg->nodes[p].cycle == c->cycle);

		print_arc(r, &cg->arcs[a], inner, cg->nodes[head].ncalls, p);
	}
}

static void print_children(struct sp_report *r, unsigned parent)
{
	struct sp_cg *cg = r->cg;
	const struct sp_cg_node *p = &cg->nodes[parent];
	uint32_t a;

	sp_cg_sort_children(cg, parent);
	for (a = cg->nodes[parent].children; a != SP_CG_NONE; a = cg->arcs[a].next_child) {
		uint32_t c = cg->arcs[a].child;
		int inner = c == parent || (cg->nodes[c].cycle != 0 && cg->nodes[c].cycle == p->cycle);

		print_arc(r, &cg->arcs[a], inner, cg->nodes[cg->nodes[c].cyc_head].ncalls, c);
	}
}

static void print_primary(struct sp_report *r, unsigned node, double print_time)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[node];
	char buf[32];

	snprintf(buf, sizeof(buf), "[%d]", n->index);
	fprintf(r->out, r->o->bsd ? "%-6.6s %5.1f %7.2f %11.2f" : "%-6.6s %5.1f %7.2f %7.2f", buf,
		100 * (n->prop_self + n->prop_child) / print_time, n->prop_self / cg->hz,
		n->prop_child / cg->hz);
	if (n->ncalls + n->self_calls != 0) {
		fprintf(r->out, " %7lu", (unsigned long)n->ncalls);
		print_self_calls(r->out, n->self_calls, 1);
	} else {
		fprintf(r->out, " %7.7s %7.7s ", "", "");
	}
	sp_report_name(r, node);
	fputc('\n', r->out);
}

static int skipped(const struct sp_report *r, const struct sp_cg_node *n)
{
	if (r->o->ignore_zeros && n->ncalls == 0 && n->self_calls == 0 && n->prop_self == 0 &&
	    n->prop_child == 0)
		return 1;
	if (!n->print_flag)
		return 1;
	return r->o->line_granularity && !(n->sym && n->sym->is_func);
}

void sp_report_graph(struct sp_report *r)
{
	struct sp_cg *cg = r->cg;
	double print_time = cg->print_time;
	size_t i;

	if (!r->o->brief && r->o->bsd)
		fputs(sp_blurb_graph_bsd, r->out);
	print_header(r, &print_time);
	for (i = 0; i < cg->nnodes; i++) {
		unsigned node = cg->order[i];
		const struct sp_cg_node *n = &cg->nodes[node];

		if (skipped(r, n))
			continue;
		if (!n->sym && n->cycle != 0) {
			print_cycle(r, node, print_time);
			print_members(r, node);
		} else {
			print_parents(r, node);
			print_primary(r, node, print_time);
			print_children(r, node);
		}
		if (r->o->bsd)
			fputc('\n', r->out);
		fputs("-----------------------------------------------\n", r->out);
		if (r->o->bsd)
			fputc('\n', r->out);
	}
	if (!r->o->brief && !r->o->bsd)
		fputs(sp_blurb_graph_gnu, r->out);
}
