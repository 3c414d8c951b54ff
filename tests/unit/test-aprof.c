/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for the aprof path: the report reader on hand-written
 * reports (every version's field order, DRMS columns, quoted names,
 * contexts in any order, merging), the cost-vs-input analysis and the
 * pictures of the analysis (flame graphs with and without a CCT, the HTML
 * report's cost plots). The growth fitter: test-fit.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/formats.h"
#include "symprof/inputcost.h"
#include "symprof/profile.h"
#include "symprof/progress.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

/* ---- the reader ---- */

static int read_str(struct sp_profile *p, const char *name, const char *text, struct sp_error *err)
{
	return sp_fmt_aprof_read_mem(p, name, (const uint8_t *)text, strlen(text), NULL, err);
}

static const struct sp_input_point *point_of(const struct sp_profile *p, const char *name,
					     uint64_t size)
{
	size_t i;

	for (i = 0; i < p->npoints; i++)
		if (!strcmp(p->funcs[p->points[i].func].name, name) && p->points[i].size == size)
			return &p->points[i];
	return NULL;
}

static void test_read_versions(void)
{
	static const char *const reports[] = {
		"v 1\nr \"f\" \"o\" 3\np 3 10 5 9 14 106 2\n",
		"v 2\nr \"f\" \"o\" 3\np 3 10 5 9 14 2 13 12\n",
		"v 3\nr \"f\" \"o\" 3\np 3 10 5 9 14 2 13 12 4 8\n",
		"v 4\nr \"f\" \"o\" 3\np 3 10 5 9 14 106 2 13 12 4 8 80\n",
		"v 6\ni drms\nr \"f\" \"o\" 3\np 3 10 5 9 14 106 2 13 12 4 8 80 0 0 6 2 3 1\n",
	};
	size_t v;

	for (v = 0; v < sizeof(reports) / sizeof(reports[0]); v++) {
		struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
		struct sp_error err = SP_ERROR_INIT;
		const struct sp_input_point *pt;

		CU_ASSERT_EQUAL_FATAL(read_str(p, "x.aprof", reports[v], &err), 0);
		pt = point_of(p, "f", 10);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pt);
		CU_ASSERT_EQUAL(pt->min, 5);
		CU_ASSERT_EQUAL(pt->max, 9);
		CU_ASSERT_EQUAL(pt->sum, 14);
		CU_ASSERT_EQUAL(pt->calls, 2);
		CU_ASSERT_EQUAL(pt->real, v ? 13 : 0);
		CU_ASSERT_EQUAL(pt->self_sum, v ? 12 : 0);
		CU_ASSERT_EQUAL(pt->self_min, v >= 2 ? 4 : 0);
		CU_ASSERT_EQUAL(pt->extra[0], v == 4 ? 6 : 0);
		CU_ASSERT_EQUAL(pt->extra[3], v == 4 ? 1 : 0);
		CU_ASSERT_EQUAL(!!(p->aprof.fields & SP_APROF_HAS_SQR), v == 0 || v >= 3);
		sp_profile_free(p);
	}
}

static void test_read_quoted_names(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
	struct sp_error err = SP_ERROR_INIT;

	CU_ASSERT_EQUAL_FATAL(
		read_str(p, "q.aprof",
			 "v 6\r\nr \"operator\"\" _x(char const*) \"q\"\" \"/a b/c d\" 12 \r\n"
			 "u 12 \"_Zli2_xPKc\"\n  p 12 1 1 1 1 1 1 1 1 1 1 1\n\n",
			 &err),
		0);
	CU_ASSERT_EQUAL_FATAL(p->nfuncs, 1);
	CU_ASSERT_STRING_EQUAL(p->funcs[0].name, "operator\"\" _x(char const*) \"q\"");
	CU_ASSERT_STRING_EQUAL(p->objects[p->funcs[0].object].path, "/a b/c d");
	CU_ASSERT_STRING_EQUAL(p->funcs[0].mangled, "_Zli2_xPKc");
	CU_ASSERT_EQUAL(p->funcs[0].id, 12);
	sp_profile_free(p);
}

/* main -> rec -> rec, contexts defined after their children and after
 * the q lines */
static const char cct_report[] = "v 6\nr \"main\" \"o\" 1\n"
				 "q 10 5 100 100 100 1e4 1 100 40 40 40 1600\n"
				 "r \"rec\" \"o\" 2\nq 12 3 20 20 20 400 1 0 20 20 20 400\n"
				 "q 11 4 60 60 60 3600 1 60 40 40 40 1600\n"
				 "x 2 12 11\nx 2 11 10\nx 1 10 -1\n";

static void test_read_cct(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
	struct sp_error err = SP_ERROR_INIT;
	uint32_t n12 = SP_NONE;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(read_str(p, "c.aprof", cct_report, &err), 0);
	CU_ASSERT(p->aprof.has_cct);
	CU_ASSERT_EQUAL(p->nnodes, 4);
	for (i = 0; i < p->npoints; i++)
		if (p->points[i].size == 3)
			n12 = p->points[i].node;
	CU_ASSERT_FATAL(n12 != SP_NONE);
	CU_ASSERT_EQUAL(p->nodes[n12].depth, 3);
	CU_ASSERT(p->nodes[n12].parent > p->nodes[p->nodes[n12].parent].parent);
	CU_ASSERT_EQUAL(p->nvalues, 3);
	sp_profile_free(p);
}

static void test_read_merge(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
	struct sp_error err = SP_ERROR_INIT;
	const struct sp_input_point *pt;

	CU_ASSERT_EQUAL(read_str(p, "a",
				 "v 6\nk 10\nr \"f\" \"o\" 1\np 1 8 5 9 14 106 2 14 10 4 6 52\n",
				 &err),
			0);
	CU_ASSERT_EQUAL(read_str(p, "b",
				 "v 6\nk 7\nr \"g\" \"o\" 1\nr \"f\" \"o\" 2\n"
				 "p 2 8 3 7 10 58 2 10 8 3 5 34\n",
				 &err),
			0);
	pt = point_of(p, "f", 8);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pt);
	CU_ASSERT_EQUAL(pt->calls, 4);
	CU_ASSERT_EQUAL(pt->min, 3);
	CU_ASSERT_EQUAL(pt->max, 9);
	CU_ASSERT_EQUAL(pt->sum, 24);
	CU_ASSERT_EQUAL(pt->self_min, 3);
	CU_ASSERT_EQUAL(pt->self_max, 6);
	CU_ASSERT_EQUAL(p->aprof.total_cost, 17);
	CU_ASSERT_EQUAL(p->nfuncs, 2);
	CU_ASSERT_EQUAL(p->ninputs, 2);
	CU_ASSERT(read_str(p, "c", "v 6\ni drms\nr \"f\" \"o\" 1\n", &err) < 0);
	CU_ASSERT(strstr(err.msg, "c:2: input metric 'drms' differs") != NULL);
	sp_profile_free(p);
}

static void test_read_errors(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"v 6\nr \"f\" \"o\" 1\np 1 1 1\n", "e:3: 'p' line has 3 fields"},
		{"r \"f\" \"o\" 1\n", "e:1: data before the report version"},
		{"v 6\nv 5\n", "e:2: second version line"},
		{"v 6\nq 3 1 1 1 1 1 1 1 1 1 1 1\n", "e:2: 'q' line before the first routine"},
		{"v 6\nr \"f\" \"o\" 1\nx 1 2 -2\n", "e:3: parent context '-2'"},
		{"c only\n", "no report version"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
		struct sp_error err = SP_ERROR_INIT;

		CU_ASSERT(read_str(p, "e", cases[i].text, &err) < 0);
		CU_ASSERT(strstr(err.msg, cases[i].msg) != NULL);
		sp_profile_free(p);
	}
}

struct progress_seen {
	uint64_t calls, last, total;
	int backwards;
};

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress_seen *s = ctx;

	s->backwards |= done < s->last || done > total;
	s->calls++;
	s->last = done;
	s->total = total;
}

/* a large report tells how far it is read, in bytes, never backwards */
static void test_read_progress(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
	struct sp_error err = SP_ERROR_INIT;
	struct progress_seen seen = {0, 0, 0, 0};
	struct sp_progress_hook hook = {on_progress, &seen};
	struct sp_aprof_read_opts ro = {NULL, NULL, &hook};
	size_t alloc = 80 * 30000, n = 0;
	char *text = malloc(alloc);
	int x;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	n += (size_t)snprintf(text, alloc, "v 6\nr \"f\" \"o\" 1\n");
	for (x = 1; x <= 30000; x++)
		n += (size_t)snprintf(text + n, alloc - n, "p 1 %d %d %d %d 1 1 %d %d %d %d 1\n", x,
				      x, x, x, x, x, x, x);
	CU_ASSERT_EQUAL(sp_fmt_aprof_read_mem(p, "big", (const uint8_t *)text, n, &ro, &err), 0);
	CU_ASSERT(seen.calls >= 3);
	CU_ASSERT(!seen.backwards);
	CU_ASSERT_EQUAL(seen.total, n);
	CU_ASSERT(seen.last > n / 2);
	CU_ASSERT_EQUAL(p->npoints, 30000);
	free(text);
	sp_profile_free(p);
}

/* ---- the analysis ---- */

/* sq: cost x^2 + 1 over 20 sizes; lin: 3x; few: 2 sizes (no fit) */
static struct sp_profile *three_routines(const char *extra)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
	struct sp_error err = SP_ERROR_INIT;
	char text[4096];
	int n = 0, x;

	n += snprintf(text + n, sizeof(text) - (size_t)n, "v 6\n%sr \"sq\" \"/o/obj\" 1\n", extra);
	for (x = 1; x <= 20; x++)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "p 1 %d %d %d %d 1 2 %d %d %d %d 1\n", x, x * x, x * x + 2,
			      2 * x * x + 2, 2 * x * x + 2, 2 * x * x + 2, x * x, x * x + 2);
	n += snprintf(text + n, sizeof(text) - (size_t)n, "r \"lin\" \"/o/obj\" 2\n");
	for (x = 1; x <= 20; x++)
		n += snprintf(text + n, sizeof(text) - (size_t)n,
			      "p 2 %d %d %d %d 1 1 %d %d %d %d 1\n", x, 3 * x, 3 * x, 3 * x, 3 * x,
			      3 * x, 3 * x, 3 * x);
	n += snprintf(text + n, sizeof(text) - (size_t)n,
		      "r \"few\" \"/o/obj\" 3\np 3 1 5 5 5 1 1 5 5 5 5 1\n"
		      "p 3 2 6 6 6 1 1 6 6 6 6 1\n");
	CU_ASSERT_EQUAL_FATAL(read_str(p, "i", text, &err), 0);
	return p;
}

static void test_inputcost(void)
{
	struct sp_profile *p = three_routines("k 0\n");
	struct sp_inputcost *ic;
	const struct sp_ic_entry *e;
	uint32_t order[4], found[4];

	ic = sp_inputcost_new(p, 0);
	e = &ic->routines[0];
	CU_ASSERT_EQUAL(e->npoints, 20);
	CU_ASSERT_EQUAL(e->calls, 40);
	CU_ASSERT(e->worst.ok && e->avg.ok);
	CU_ASSERT_DOUBLE_EQUAL(e->worst.c, 2, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(e->avg.c, 2, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(e->points[2].avg, 10, 1e-12);
	CU_ASSERT_EQUAL(ic->run_total, ic->self_total);
	CU_ASSERT_DOUBLE_EQUAL(ic->routines[1].worst.c, 1, 1e-5);
	CU_ASSERT_FALSE(ic->routines[2].worst.ok);
	CU_ASSERT_EQUAL(ic->routines[2].worst.none, SP_FIT_FEW_SIZES);
	CU_ASSERT_EQUAL(sp_inputcost_rank(ic, SP_IC_RANK_GROWTH, order), 3);
	CU_ASSERT_EQUAL(order[0], 0); /* c_lo 2 */
	CU_ASSERT_EQUAL(order[1], 1); /* c_lo 1 */
	CU_ASSERT_EQUAL(order[2], 2); /* no fit */
	CU_ASSERT_EQUAL(sp_inputcost_find(ic, "lin", found, 4), 1);
	CU_ASSERT_EQUAL(found[0], 1);
	sp_inputcost_free(ic);
	/* --min-sizes raises the bar of a fit, never lowers it */
	ic = sp_inputcost_new(p, 21);
	CU_ASSERT_EQUAL(ic->min_sizes, 21);
	CU_ASSERT_FALSE(ic->routines[0].worst.ok || ic->routines[0].avg.ok);
	CU_ASSERT_EQUAL(ic->routines[0].worst.none, SP_FIT_FEW_SIZES);
	CU_ASSERT_EQUAL(ic->routines[0].worst.min_sizes, 21);
	sp_inputcost_free(ic);
	ic = sp_inputcost_new(p, 2);
	CU_ASSERT_EQUAL(ic->min_sizes, SP_FIT_MIN_SIZES);
	CU_ASSERT_FALSE(ic->routines[2].worst.ok);
	sp_inputcost_free(ic);
	sp_profile_free(p);
}

/* ---- pictures ---- */

static uint32_t flame_child(const struct sp_flame *f, uint32_t parent, const char *name)
{
	uint32_t c;

	for (c = f->nodes[parent].first_child; c != SP_FLAME_NONE; c = f->nodes[c].next_sibling)
		if (!strcmp(f->nodes[c].name, name))
			return c;
	return SP_FLAME_NONE;
}

/* without a CCT: one level of self costs, and what k has beyond them */
static void test_flame_flat(void)
{
	struct sp_profile *p = three_routines("k 100000\n");
	struct sp_inputcost *ic = sp_inputcost_new(p, 0);
	struct sp_flame *f = sp_flame_from_inputcost(ic, "prog");
	uint32_t sq = flame_child(f, 0, "sq"), unknown = flame_child(f, 0, "[unknown]");

	CU_ASSERT_DOUBLE_EQUAL(f->nodes[0].value, 100000, 1e-9);
	CU_ASSERT_FATAL(sq != SP_FLAME_NONE && unknown != SP_FLAME_NONE);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[sq].self, (double)ic->routines[0].self, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[unknown].self, 100000.0 - (double)ic->self_total, 1e-9);
	CU_ASSERT_EQUAL(f->max_depth, 1);
	CU_ASSERT_PTR_NOT_NULL(f->note);
	CU_ASSERT_STRING_EQUAL(f->unit, "bb");
	CU_ASSERT_PTR_NULL(f->dimen);
	sp_flame_free(f);
	sp_inputcost_free(ic);
	sp_profile_free(p);
}

/* with a CCT: the stacks main;rec;rec, and no [unknown] without k */
static void test_flame_cct(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
	struct sp_error err = SP_ERROR_INIT;
	struct sp_inputcost *ic;
	struct sp_flame *f;
	uint32_t m, r1, r2;

	CU_ASSERT_EQUAL_FATAL(read_str(p, "c.aprof", cct_report, &err), 0);
	ic = sp_inputcost_new(p, 0);
	f = sp_flame_from_inputcost(ic, "prog");
	m = flame_child(f, 0, "main");
	CU_ASSERT_FATAL(m != SP_FLAME_NONE);
	r1 = flame_child(f, m, "rec");
	CU_ASSERT_FATAL(r1 != SP_FLAME_NONE);
	r2 = flame_child(f, r1, "rec");
	CU_ASSERT_FATAL(r2 != SP_FLAME_NONE);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[m].self, 40, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[r1].self, 40, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[r2].self, 20, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[0].value, (double)ic->run_total, 1e-9);
	CU_ASSERT_EQUAL(flame_child(f, 0, "[unknown]"), SP_FLAME_NONE);
	CU_ASSERT_PTR_NULL(f->note);
	CU_ASSERT_STRING_EQUAL(f->unit, "bb");
	sp_flame_free(f);
	sp_inputcost_free(ic);
	sp_profile_free(p);
}

static const struct sp_html_curve *curve(const struct sp_html_plot *pl, const char *kind)
{
	size_t i;

	for (i = 0; i < pl->ncurves; i++)
		if (!strcmp(pl->curves[i].kind, kind))
			return &pl->curves[i];
	return NULL;
}

/* A band: its outline over the fitted curve's sizes, up and back, around
 * the fitted curve. */
static void check_band(const struct sp_html_curve *band, const struct sp_fit *f,
		       const struct sp_html_curve *fit)
{
	size_t i, m;

	CU_ASSERT_PTR_NOT_NULL_FATAL(band);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fit);
	CU_ASSERT(band->band && !band->line);
	CU_ASSERT_EQUAL_FATAL(band->n, 2 * fit->n);
	m = fit->n;
	for (i = 0; i < m; i++) {
		double lo, hi;

		CU_ASSERT_EQUAL(band->x[i], fit->x[i]);
		CU_ASSERT_EQUAL(band->x[2 * m - 1 - i], fit->x[i]);
		CU_ASSERT_EQUAL_FATAL(sp_fit_band(f, fit->x[i], &lo, &hi), 0);
		CU_ASSERT_EQUAL(band->y[i], hi);
		CU_ASSERT_EQUAL(band->y[2 * m - 1 - i], lo);
		CU_ASSERT(lo <= fit->y[i] * (1 + 1e-12) + 1e-12);
		CU_ASSERT(fit->y[i] <= hi * (1 + 1e-12) + 1e-12);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(band->label, "95% band"));
}

/* the routines with a fit, their points, both fitted curves and bands */
static void test_html_plots(void)
{
	struct sp_profile *p = three_routines("");
	struct sp_inputcost *ic = sp_inputcost_new(p, 0);
	const struct sp_ic_entry *e = &ic->routines[0];
	const struct sp_html_curve *w, *fw, *fa;
	struct sp_aprof_plots pl;
	size_t i;

	sp_report_aprof_plots(&pl, ic, SP_IC_RANK_COST);
	CU_ASSERT_EQUAL_FATAL(pl.n, 2); /* "few" has no fit */
	CU_ASSERT_STRING_EQUAL(pl.v[0].name, "sq");
	CU_ASSERT_STRING_EQUAL(pl.v[1].name, "lin");
	CU_ASSERT_STRING_EQUAL(pl.v[0].x_label, "input size (rms)");
	CU_ASSERT_STRING_EQUAL(pl.v[0].y_label, "cost per activation (bb)");
	CU_ASSERT_PTR_NOT_NULL(strstr(pl.v[0].note, "obj: 20 input sizes, 40 calls"));
	CU_ASSERT_EQUAL(pl.v[0].ncurves, 7);
	w = curve(&pl.v[0], "worst");
	fw = curve(&pl.v[0], "fit-worst");
	fa = curve(&pl.v[0], "fit-avg");
	CU_ASSERT_FATAL(w && fw && fa && curve(&pl.v[0], "avg") && curve(&pl.v[0], "best"));
	CU_ASSERT_EQUAL(w->n, e->npoints);
	CU_ASSERT_FALSE(w->line);
	for (i = 0; i < w->n; i++) {
		CU_ASSERT_DOUBLE_EQUAL(w->x[i], (double)e->points[i].size, 0);
		CU_ASSERT_DOUBLE_EQUAL(w->y[i], (double)e->points[i].max, 0);
	}
	CU_ASSERT(fw->line && fw->n > 32);
	CU_ASSERT_DOUBLE_EQUAL(fw->x[0], 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(fw->x[fw->n - 1], 20, 1e-9);
	for (i = 0; i < fw->n; i++) {
		double want = e->worst.a + e->worst.b * pow(fw->x[i], e->worst.c);

		CU_ASSERT(!i || fw->x[i] > fw->x[i - 1]);
		CU_ASSERT_DOUBLE_EQUAL(fw->y[i], want, 1e-9 * (1 + fw->y[i]));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(fw->label, "worst-case fit: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(fw->label, "c = 2.00 [2.00, 2.00]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(fa->label, "x^2.000"));
	check_band(curve(&pl.v[0], "band-worst"), &e->worst, fw);
	check_band(curve(&pl.v[1], "band-avg"), &ic->routines[1].avg, curve(&pl.v[1], "fit-avg"));
	sp_report_aprof_plots_release(&pl);
	sp_inputcost_free(ic);
	sp_profile_free(p);
}

int sp_test_register_aprof(void)
{
	CU_pSuite s = CU_add_suite("aprof", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "read: versions 1 to 6", test_read_versions) ||
	    !CU_add_test(s, "read: quoted names", test_read_quoted_names) ||
	    !CU_add_test(s, "read: contexts", test_read_cct) ||
	    !CU_add_test(s, "read: merging", test_read_merge) ||
	    !CU_add_test(s, "read: errors", test_read_errors) ||
	    !CU_add_test(s, "read: progress", test_read_progress) ||
	    !CU_add_test(s, "inputcost", test_inputcost) ||
	    !CU_add_test(s, "flame graph without a CCT", test_flame_flat) ||
	    !CU_add_test(s, "flame graph of a CCT", test_flame_cct) ||
	    !CU_add_test(s, "cost plots of the HTML report", test_html_plots))
		return -1;
	return 0;
}
