/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target: the input read as an aprof report (and, split at its middle
 * line, as two reports to merge); if it parses, analysed and printed in
 * every aprof output: routine table by cost and growth, the costliest
 * routine's table and SVG plot, JSON, flat profile and call graph, and
 * the pictures: dot, the flame graph (SVG and folded), the HTML report
 * with its cost plots, the diff of the report with itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/formats.h"
#include "symprof/inputcost.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sp_cg *graph(struct sp_profile *p, struct sp_inputcost *ic, struct sp_symtab *t)
{
	struct sp_cg_stack_opts so;
	uint32_t *first = malloc((p->nfuncs + 2) * sizeof(*first));
	uint32_t *funcs = malloc((p->nfuncs + 1) * sizeof(*funcs));
	struct sp_cg *cg;
	size_t i;

	for (i = 0; i < p->nfuncs; i++) {
		struct sp_symbol *s = sp_symtab_add(t);

		s->name = p->funcs[i].name;
		s->is_func = 1;
		first[i] = funcs[i] = (uint32_t)i;
	}
	first[p->nfuncs] = (uint32_t)p->nfuncs;
	memset(&so, 0, sizeof(so));
	so.frame_first = first;
	so.frame_funcs = funcs;
	so.funcs = t;
	so.hz = 1;
	so.dimen = "bb";
	so.counts_known = 1;
	so.node_counts = 1;
	cg = p->aprof.has_cct ? sp_cg_from_cct(p, &so, NULL) : sp_inputcost_flat_cg(ic, t);
	cg->cost_note = "Costs are in bb.";
	free(first);
	free(funcs);
	return cg;
}

static void pictures(FILE *out, struct sp_report *r, const struct sp_report_meta *m)
{
	struct sp_dot_opts dopts = {0, 0};
	struct sp_flame *f = sp_flame_from_inputcost(m->inputcost, m->executable);
	struct sp_diff *d = sp_diff_new(r->cg, m, r->cg, m, r->o);
	struct sp_aprof_plots pl;
	struct sp_html_opts ho;

	sp_report_dot(r, m, &dopts);
	sp_flame_write_folded(f, out);
	sp_flame_write_svg(f, out, NULL);
	sp_diff_write_text(d, out);
	sp_diff_write_json(d, out);
	sp_report_aprof_plots(&pl, m->inputcost, SP_IC_RANK_GROWTH);
	memset(&ho, 0, sizeof(ho));
	ho.meta = m;
	ho.flame = f;
	ho.diff = d;
	ho.plots = pl.v;
	ho.nplots = pl.n;
	sp_report_html(r, &ho, out);
	sp_report_aprof_plots_release(&pl);
	sp_diff_free(d);
	sp_flame_free(f);
}

static void render(FILE *out, struct sp_profile *p, const char *name)
{
	struct sp_inputcost *ic = sp_inputcost_new(p, 0);
	struct sp_symtab *t = sp_symtab_new();
	struct sp_cg *cg = graph(p, ic, t);
	struct sp_report_meta m = {.format = "aprof",
				   .executable = p->aprof.app,
				   .files = &name,
				   .nfiles = 1,
				   .metric = "cost",
				   .unit = "bb",
				   .inputcost = ic};
	struct sp_report_opts ro;
	struct sp_report r;
	uint32_t *order = malloc((ic->nroutines + 1) * sizeof(*order));

	sp_report_aprof_header(out, ic, &name, 1);
	sp_report_aprof_table(out, ic, SP_IC_RANK_COST, 0);
	sp_report_aprof_table(out, ic, SP_IC_RANK_GROWTH, 4);
	if (sp_inputcost_rank(ic, SP_IC_RANK_COST, order)) {
		sp_report_aprof_routine(out, ic, order[0]);
		sp_report_aprof_svg(out, ic, order[0], SP_PLOT_LINEAR);
		sp_report_aprof_svg(out, ic, order[0], SP_PLOT_LOG);
	}
	free(order);
	memset(&ro, 0, sizeof(ro));
	ro.brief = 1;
	ro.ignore_zeros = 1;
	ro.width = 80;
	sp_report_init(&r, out, cg, &ro);
	sp_report_json_aprof(&r, &m);
	sp_report_flat(&r);
	if (p->aprof.has_cct) {
		sp_report_graph(&r);
		sp_report_index(&r);
	}
	pictures(out, &r, &m);
	sp_report_release(&r);
	sp_cg_free(cg);
	sp_symtab_free(t);
	sp_inputcost_free(ic);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
	const uint8_t *mid = size ? memchr(data + size / 2, '\n', size - size / 2) : NULL;
	size_t half = mid ? (size_t)(mid - data) + 1 : size;

	if (!null)
		null = fopen("/dev/null", "w");
	if (sp_fmt_aprof_read_mem(p, "fuzz", data, size, NULL, NULL) == 0 && p->npoints)
		render(null, p, "fuzz");
	sp_profile_free(p);
	p = sp_profile_new(SP_PROFILE_APROF);
	if (sp_fmt_aprof_read_mem(p, "a", data, half, NULL, NULL) == 0 &&
	    sp_fmt_aprof_read_mem(p, "b", data + half, size - half, NULL, NULL) == 0 && p->npoints)
		render(null, p, "merged");
	sp_profile_free(p);
	return 0;
}
