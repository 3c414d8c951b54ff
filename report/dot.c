/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=dot: the call graph as a Graphviz digraph, in the manner of
 * gprof2dot (which people run on gprof's text today), drawn straight from
 * struct sp_cg so every input format gets it:
 *
 *   digraph "prog" {
 *     graph [label="...", labelloc=t, ...];
 *     n3 [label="hot_a\n82.41%\n(82.41%)\n1000×", fillcolor="#f80d0d", ...];
 *     subgraph cluster_cycle1 { label="<cycle 1> 37.29%"; style=dashed; n5; n7; }
 *     n1 -> n3 [label="82.41%\n1000×", penwidth=3.30, color="#..."];
 *     n9 -> n9 [label="360000×", style=dotted];
 *   }
 *
 * A node is a function: its total (self + children, the call graph's
 * "% time") and in parentheses its self share of the whole profile, and its
 * calls. Colour and pen width grow with the weight (gprof2dot's temperature
 * map: blue, green, yellow, red). For gmon.out the arc shares are gprof's
 * estimates (the callee's time split in proportion to the calls); for
 * stack profiles they are exact, and counts are shown only when the
 * format records them. Without any time (a profile with arcs but no
 * histogram) the weights are the call counts.
 *
 * The functions are those gprof's call graph prints (so -f, -e and -q
 * select them as they do there; the flat profile's without a call graph).
 * Thresholds keep large programs readable: functions below
 * --node-threshold percent (0.5) and arcs below --edge-threshold percent
 * (0.1) of the total are left out. Arcs inside a cycle carry no time in
 * gprof's model; they are kept (dashed) while both ends are, so that the
 * cycle shows.
 */
#include "symprof/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/symbolize.h"

#define TIMES "\xc3\x97" /* U+00D7 MULTIPLICATION SIGN */

struct dot {
	struct sp_report *r;
	const struct sp_dot_opts *o;
	double total;	     /* what 100% is: call-graph time, or the largest count */
	int flat;	     /* no call-graph time: weights are self times */
	int by_calls;	     /* no time at all: weights are call counts */
	unsigned char *kept; /* per symbol node */
};

static double hue_to_rgb(double m1, double m2, double h)
{
	if (h < 0.0)
		h += 1.0;
	else if (h > 1.0)
		h -= 1.0;
	if (h * 6 < 1.0)
		return m1 + (m2 - m1) * h * 6.0;
	if (h * 2 < 1.0)
		return m2;
	if (h * 3 < 2.0)
		return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
	return m1;
}

/* gprof2dot's temperature colour map for a weight in [0, 1]. */
static void color(char out[8], double w)
{
	double h, s, l, m1, m2;

	w = w < 0 ? 0 : w > 1 ? 1 : w;
	h = 2.0 / 3.0 + w * (0.0 - 2.0 / 3.0);
	s = 0.80 + w * (1.0 - 0.80);
	l = 0.25 + w * (0.5 - 0.25);
	m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s;
	m1 = l * 2.0 - m2;
	snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround(255 * hue_to_rgb(m1, m2, h + 1.0 / 3.0)),
		 (unsigned)lround(255 * hue_to_rgb(m1, m2, h)),
		 (unsigned)lround(255 * hue_to_rgb(m1, m2, h - 1.0 / 3.0)));
}

static double node_weight(const struct dot *d, uint32_t i)
{
	const struct sp_cg_node *n = &d->r->cg->nodes[i];

	if (d->by_calls)
		return d->total > 0 ? (double)(n->ncalls + n->self_calls) / d->total : 0;
	if (d->flat)
		return d->total > 0 ? n->time / d->total : 0;
	return d->total > 0 ? (n->prop_self + n->prop_child) / d->total : 0;
}

static double arc_weight(const struct dot *d, const struct sp_cg_arc *a)
{
	if (d->by_calls)
		return d->total > 0 ? (double)a->count / d->total : 0;
	if (d->flat)
		return 0;
	return d->total > 0 ? (a->time + a->child_time) / d->total : 0;
}

static void choose_total(struct dot *d)
{
	const struct sp_cg *cg = d->r->cg;
	size_t i;

	d->total = cg->print_time;
	if (d->total > 0)
		return;
	d->flat = 1;
	d->total = cg->total_time;
	if (d->total > 0)
		return;
	d->flat = 0;
	d->by_calls = 1;
	for (i = 0; i < cg->nsyms; i++)
		if ((double)(cg->nodes[i].ncalls + cg->nodes[i].self_calls) > d->total)
			d->total = (double)(cg->nodes[i].ncalls + cg->nodes[i].self_calls);
}

static void pick_nodes(struct dot *d)
{
	const struct sp_cg *cg = d->r->cg;
	size_t i;

	d->kept = sp_xcalloc(cg->nsyms + 1, 1);
	for (i = 0; i < cg->nsyms; i++) {
		const struct sp_cg_node *n = &cg->nodes[i];

		if (n->ncalls == 0 && n->self_calls == 0 && n->time == 0 && n->prop_child == 0)
			continue;
		/* what gprof's call graph (or, without one, its flat profile)
		 * prints: -f, -e, -q and -p select here too */
		if (d->flat ? !n->flat_print : !n->print_flag)
			continue;
		if (100.0 * node_weight(d, (uint32_t)i) >= d->o->node_threshold)
			d->kept[i] = 1;
	}
}

static void put_node(struct dot *d, uint32_t i)
{
	struct sp_report *r = d->r;
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[i];
	double w = node_weight(d, i);
	char fill[8];

	color(fill, w);
	fprintf(r->out, "  n%u [label=\"", i);
	sp_esc_dot(r->out, sp_report_display_name(r, i, NULL));
	if (!d->by_calls)
		fprintf(r->out, "\\n%.2f%%\\n(%.2f%%)", 100.0 * w,
			100.0 * (d->flat ? n->time : n->prop_self) / d->total);
	if (n->ncalls && (cg->counts_known || !cg->stack_based))
		fprintf(r->out, "\\n%llu" TIMES, (unsigned long long)n->ncalls);
	fprintf(r->out, "\", fillcolor=\"%s\"", fill);
	if (n->sym->file) {
		fputs(", tooltip=\"", r->out);
		sp_esc_dot(r->out, n->sym->file->name);
		fprintf(r->out, ":%d\"", n->sym->line);
	}
	fputs("];\n", r->out);
}

/* Each cycle whose members are kept: a dashed cluster around them. */
static void put_cycles(struct dot *d)
{
	const struct sp_cg *cg = d->r->cg;
	size_t c;

	for (c = cg->nsyms; c < cg->nnodes; c++) {
		const struct sp_cg_node *cn = &cg->nodes[c];
		uint32_t m;
		int any = 0;

		for (m = cn->cyc_next; m != SP_CG_NONE && m < cg->nsyms; m = cg->nodes[m].cyc_next)
			any |= d->kept[m];
		if (!any)
			continue;
		fprintf(d->r->out, "  subgraph cluster_cycle%d {\n    label=\"<cycle %d>",
			cn->cycle, cn->cycle);
		if (!d->by_calls && d->total > 0)
			fprintf(d->r->out, " %.2f%%",
				100.0 * (cn->prop_self + cn->prop_child) / d->total);
		fputs("\"; style=dashed; color=\"#808080\"; fontcolor=\"#404040\";\n", d->r->out);
		for (m = cn->cyc_next; m != SP_CG_NONE && m < cg->nsyms; m = cg->nodes[m].cyc_next)
			if (d->kept[m])
				put_node(d, m);
		fputs("  }\n", d->r->out);
	}
}

static void put_arc(struct dot *d, const struct sp_cg_arc *a)
{
	const struct sp_cg *cg = d->r->cg;
	FILE *out = d->r->out;
	int in_cycle = cg->nodes[a->parent].cycle != 0 &&
		       cg->nodes[a->parent].cycle == cg->nodes[a->child].cycle;
	double w = arc_weight(d, a), pen;
	int pct = !d->by_calls && !d->flat && !in_cycle;
	char col[8];

	if (!in_cycle && !d->flat && 100.0 * w < d->o->edge_threshold)
		return;
	pen = w * 4.0 < 0.5 ? 0.5 : w * 4.0;
	color(col, w);
	fprintf(out, "  n%u -> n%u [label=\"", a->parent, a->child);
	if (pct)
		fprintf(out, "%.2f%%", 100.0 * w);
	if (a->count && (cg->counts_known || !cg->stack_based))
		fprintf(out, "%s%llu" TIMES, pct ? "\\n" : "", (unsigned long long)a->count);
	fprintf(out, "\", color=\"%s\", fontcolor=\"%s\", penwidth=%.2f, arrowsize=%.2f%s];\n", col,
		col, pen, 0.5 * sqrt(pen), in_cycle ? ", style=dashed" : "");
}

static void put_arcs(struct dot *d)
{
	const struct sp_cg *cg = d->r->cg;
	size_t i;

	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->parent >= cg->nsyms || a->child >= cg->nsyms || a->parent == a->child)
			continue;
		if (d->kept[a->parent] && d->kept[a->child])
			put_arc(d, a);
	}
	for (i = 0; i < cg->nsyms; i++)
		if (d->kept[i] && cg->nodes[i].self_calls && (cg->counts_known || !cg->stack_based))
			fprintf(d->r->out,
				"  n%zu -> n%zu [label=\"%llu" TIMES "\", style=dotted];\n", i, i,
				(unsigned long long)cg->nodes[i].self_calls);
}

/* What the title says of the arcs. */
static const char *graph_kind(const struct dot *d)
{
	const struct sp_cg *cg = d->r->cg;

	if (d->flat || !(cg->have_arcs || cg->narcs))
		return " (no call graph)";
	return cg->stack_based ? "" : ", arc times estimated from call counts";
}

static void put_header(struct dot *d, const struct sp_report_meta *m)
{
	const struct sp_cg *cg = d->r->cg;
	FILE *out = d->r->out;
	const char *name = m && m->executable ? m->executable : "profile";
	const char *slash = strrchr(name, '/');

	if (slash && slash[1])
		name = slash + 1;
	fputs("digraph \"", out);
	sp_esc_dot(out, name);
	fputs("\" {\n  graph [fontname=\"Helvetica\", nodesep=0.25, ranksep=0.3, labelloc=t, "
	      "label=\"",
	      out);
	sp_esc_dot(out, name);
	if (d->by_calls)
		fputs(": call counts (no time recorded)", out);
	else if (cg->hz > 0)
		fprintf(out, ": %.*f %s%s", strcmp(cg->dimen, "seconds") ? 0 : 2,
			d->total / (double)cg->hz, cg->dimen, graph_kind(d));
	fprintf(out, "; functions below %g%% and arcs below %g%% not shown\"];\n",
		d->o->node_threshold, d->o->edge_threshold);
	fputs("  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=filled, "
	      "fontcolor=white, width=0, height=0];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9];\n",
	      out);
}

void sp_report_dot(struct sp_report *r, const struct sp_report_meta *m, const struct sp_dot_opts *o)
{
	const struct sp_cg *cg = r->cg;
	struct dot d;
	size_t i;

	memset(&d, 0, sizeof(d));
	d.r = r;
	d.o = o;
	sp_report_out(r); /* what the report buffered goes first */
	choose_total(&d);
	pick_nodes(&d);
	put_header(&d, m);
	for (i = 0; i < cg->nsyms; i++)
		if (d.kept[i] && cg->nodes[i].cycle == 0)
			put_node(&d, (uint32_t)i);
	put_cycles(&d);
	put_arcs(&d);
	fputs("}\n", r->out);
	free(d.kept);
}
