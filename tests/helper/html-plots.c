/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * html-plots: writes an HTML report with cost-vs-input plots, the part of
 * the report only aprof profiles fill, so that the browser test can check
 * it before an aprof reader exists. The graph is built by hand (main calls
 * sort and lookup; sort is n log n, lookup linear) and the JSON of the same
 * graph is written beside it for check-report.mjs.
 *
 *   html-plots REPORT.html REPORT.json
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/cg.h"
#include "symprof/flame.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

#define NPTS 12

static struct sp_cg *hand_graph(struct sp_symtab *t)
{
	static const char *const names[] = {"main", "sort_records", "lookup", "compare"};
	static const double self[] = {5, 40, 30, 25};
	struct sp_cg *cg = calloc(1, sizeof(*cg));
	size_t i;

	for (i = 0; i < 4; i++) {
		struct sp_symbol *s = sp_symtab_add(t);
		s->name = sp_strtab_intern(&t->strs, names[i]);
		s->is_func = 1;
	}
	cg->symtab = t;
	cg->nsyms = cg->nnodes = 4;
	cg->nodes = calloc(5, sizeof(*cg->nodes));
	for (i = 0; i < 4; i++) {
		cg->nodes[i].sym = &t->syms[i];
		cg->nodes[i].parents = cg->nodes[i].children = SP_CG_NONE;
		cg->nodes[i].cyc_head = (uint32_t)i;
		cg->nodes[i].cyc_next = SP_CG_NONE;
		cg->nodes[i].time = cg->nodes[i].prop_self = self[i];
		cg->total_time += self[i];
	}
	cg->hz = 100;
	cg->have_arcs = 1;
	cg->print_time = cg->total_time;
	snprintf(cg->dimen, sizeof(cg->dimen), "seconds");
	cg->nodes[0].prop_child = 95;
	cg->nodes[1].prop_child = 25;
	cg->nodes[1].ncalls = cg->nodes[2].ncalls = NPTS;
	cg->nodes[3].ncalls = 5000;
	sp_cg_arc_add(cg, 0, 1, NPTS);
	sp_cg_arc_add(cg, 0, 2, NPTS);
	sp_cg_arc_add(cg, 1, 3, 5000);
	cg->arcs[0].time = 40, cg->arcs[0].child_time = 25;
	cg->arcs[1].time = 30;
	cg->arcs[2].time = 25;
	return cg;
}

int main(int argc, char **argv)
{
	static double x[NPTS], ysort[NPTS], ylook[NPTS], fx[40], fsort[40], flook[40];
	const char *files[] = {"(built by hand)"};
	struct sp_report_meta m = {.format = "aprof", .executable = "plots-demo", .files = files,
				   .nfiles = 1, .metric = "time", .unit = "seconds"};
	struct sp_html_plot plots[2];
	struct sp_html_curve curves[4];
	struct sp_report_opts ro;
	struct sp_html_opts ho;
	struct sp_symtab *t = sp_symtab_new();
	struct sp_cg *cg = hand_graph(t);
	struct sp_report r;
	FILE *html, *json;
	size_t i;

	if (argc != 3 || !(html = fopen(argv[1], "w")) || !(json = fopen(argv[2], "w")))
		return 2;
	for (i = 0; i < NPTS; i++) {
		x[i] = 100.0 * (double)(i + 1) * (double)(i + 1);
		ysort[i] = 3.0 * x[i] * log2(x[i]) * (1 + 0.05 * sin((double)i));
		ylook[i] = 2.0 * x[i] + 50 * cos((double)i);
	}
	for (i = 0; i < 40; i++) {
		fx[i] = 100.0 + (x[NPTS - 1] - 100.0) * (double)i / 39;
		fsort[i] = 3.0 * fx[i] * log2(fx[i]);
		flook[i] = 2.0 * fx[i];
	}
	curves[0] = (struct sp_html_curve){"average", "avg", x, ysort, NPTS, 0};
	curves[1] = (struct sp_html_curve){"cost = 3.0 n log n", "fit-avg", fx, fsort, 40, 1};
	curves[2] = (struct sp_html_curve){"average", "avg", x, ylook, NPTS, 0};
	curves[3] = (struct sp_html_curve){"cost = 2.0 n", "fit-avg", fx, flook, 40, 1};
	memset(plots, 0, sizeof(plots));
	plots[0] = (struct sp_html_plot){"sort_records", "input size (RMS)", "cost (basic blocks)",
					 NULL, curves, 2};
	plots[1] = (struct sp_html_plot){"lookup", "input size (RMS)", "cost (basic blocks)", NULL,
					 curves + 2, 2};
	memset(&ro, 0, sizeof(ro));
	ro.ignore_zeros = 1;
	sp_report_init(&r, json, cg, &ro);
	sp_report_json(&r, &m);
	memset(&ho, 0, sizeof(ho));
	ho.meta = &m;
	ho.flame = sp_flame_from_cg(&r, "plots-demo");
	ho.plots = plots;
	ho.nplots = 2;
	sp_report_html(&r, &ho, html);
	sp_flame_free(ho.flame);
	sp_report_release(&r);
	sp_cg_free(cg);
	sp_symtab_free(t);
	return fclose(html) || fclose(json) ? 1 : 0;
}
