/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The aprof pipeline (docs/manual.md, "aprof reports"):
 *
 *   read and merge every report (warnings for aprof's sanity rules)
 *     -> cost-vs-input analysis and growth fits (cg/inputcost.c)
 *     -> a call graph: exact from the CCT, or routine totals only
 *     -> one output: --check, --plot (SVG), --routine, -p / -q (gprof's
 *        flat profile and call graph), or by default the routine table
 *        ranked by --rank
 *     -> or the outputs every format shares (render.c): --format=json,
 *        dot, flamegraph, folded, --diff, --html; this file hands over
 *        the graph, the flame graph (the CCT's stacks, or one level of
 *        routines without a CCT) and the cost plots
 *
 * Every file name on the command line is a report (aprof has no image).
 */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/inputcost.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

#define MAX_WARNINGS 20
#define MAX_MATCHES 64

struct aprof_run {
	struct sp_opts *o;
	const char **files;
	size_t nfiles;
	struct sp_profile *prof;
	struct sp_inputcost *ic;
	struct sp_fn_cost *costs; /* the model's (aprof_model()) */
	struct sp_symtab *symtab;
	struct sp_cg *cg;
	struct sp_flame *flame;	     /* --format=flamegraph|folded, --html */
	struct sp_aprof_plots plots; /* --html */
	char note[160];
	FILE *out;
	/* warnings */
	unsigned long nwarn;
	int quiet;
	FILE *warn_to; /* --check: stdout */
};

static void on_warning(void *ctx, const char *msg)
{
	struct aprof_run *a = ctx;

	if (a->quiet)
		return;
	if (a->warn_to)
		fprintf(a->warn_to, "Warning: %s\n", msg);
	else if (a->nwarn < MAX_WARNINGS)
		sp_cli_error("warning: %s", msg);
	a->nwarn++;
}

/* The reports: every file named (cli/formats.c leaves aprof no
 * executable). */
static void collect_files(struct aprof_run *a)
{
	struct sp_opts *o = a->o;
	size_t i;

	a->files = sp_xmalloc((o->nprofiles + 1) * sizeof(*a->files));
	for (i = 0; i < o->nprofiles; i++)
		a->files[a->nfiles++] = o->profiles[i];
}

/* --check: each report alone, aprof-helper -k style; 1 if one failed. */
static int check_reports(struct aprof_run *a)
{
	struct sp_aprof_read_opts ro = {on_warning, a, NULL};
	int failed = 0;
	size_t i;

	a->warn_to = stdout;
	for (i = 0; i < a->nfiles; i++) {
		struct sp_profile *p = sp_profile_new(SP_PROFILE_APROF);
		struct sp_error err = SP_ERROR_INIT;
		unsigned long before = a->nwarn;

		if (sp_fmt_aprof_read(p, a->files[i], &ro, &err) < 0)
			printf("Error: %s\n", err.msg);
		if (err.code || a->nwarn > before) {
			printf("Failed: Checked consistency of report: %s\n", a->files[i]);
			failed = 1;
		} else {
			printf("Passed: Checked consistency of report: %s\n", a->files[i]);
		}
		sp_profile_free(p);
	}
	return failed;
}

static int read_reports(struct aprof_run *a)
{
	struct sp_aprof_read_opts ro = {on_warning, a, NULL};
	struct sp_error err = SP_ERROR_INIT;
	size_t i;

	a->prof = sp_profile_new(SP_PROFILE_APROF);
	for (i = 0; i < a->nfiles; i++) {
		sp_cli_progress_reading(a->files[i], i, a->nfiles);
		ro.progress = sp_cli_progress_hook();
		if (sp_fmt_aprof_read(a->prof, a->files[i], &ro, &err) < 0) {
			sp_cli_error("%s", err.msg);
			return 1;
		}
	}
	if (a->nwarn > MAX_WARNINGS && !a->quiet)
		sp_cli_error("warning: %lu more warnings like these", a->nwarn - MAX_WARNINGS);
	if (!a->prof->npoints) {
		sp_cli_error("'%s': no routine has any activation (no p or q lines)", a->files[0]);
		return 1;
	}
	sp_cli_mark("read reports");
	return 0;
}

static const char *metric_desc(const char *metric)
{
	const char *d = sp_report_aprof_metric(metric);

	return d ? d : "cost units";
}

/* One symbol per routine (symbol i = routine i), and the call graph. */
static void build_graph(struct aprof_run *a)
{
	const struct sp_profile *p = a->prof;
	const struct sp_counter *c = &p->counters[0];
	struct sp_cg_stack_opts so;
	uint32_t *first, *funcs;
	size_t i;

	a->symtab = sp_symtab_new();
	first = sp_xmalloc((p->nfuncs + 2) * sizeof(*first));
	funcs = sp_xmalloc((p->nfuncs + 1) * sizeof(*funcs));
	for (i = 0; i < p->nfuncs; i++) {
		struct sp_symbol *s = sp_symtab_add(a->symtab);

		s->name = p->funcs[i].name;
		s->addr = i;
		s->is_func = 1;
		first[i] = (uint32_t)i;
		funcs[i] = (uint32_t)i;
	}
	first[p->nfuncs] = (uint32_t)p->nfuncs;
	if (p->aprof.has_cct) {
		memset(&so, 0, sizeof(so));
		so.counter = 0;
		so.field = SP_VALUE_VALUE;
		so.frame_first = first;
		so.frame_funcs = funcs;
		so.funcs = a->symtab;
		so.hz = 1;
		so.dimen = c->unit;
		so.dimen_abbrev = c->unit[0];
		so.counts_known = 1;
		so.node_counts = 1;
		a->cg = sp_cg_from_cct(p, &so, NULL);
	} else {
		a->cg = sp_inputcost_flat_cg(a->ic, a->symtab);
		snprintf(a->cg->dimen, sizeof(a->cg->dimen), "%s", c->unit);
		a->cg->dimen_abbrev = c->unit[0];
	}
	snprintf(a->note, sizeof(a->note), "Costs are in %s: %s (aprof's %s).", c->unit,
		 metric_desc(c->name), c->name);
	a->cg->cost_note = a->note;
	free(first);
	free(funcs);
	sp_cli_mark("analysis");
}

/* The routines named NAME (most costly first); 0 with a message if none. */
static size_t find_routines(struct aprof_run *a, const char *name, uint32_t *out)
{
	size_t n = sp_inputcost_find(a->ic, name, out, MAX_MATCHES);

	if (!n)
		sp_cli_error("no routine named '%s' has activations in the report%s", name,
			     a->nfiles > 1 ? "s" : "");
	return n;
}

static int print_plot(struct aprof_run *a)
{
	uint32_t match[MAX_MATCHES];
	size_t n = find_routines(a, a->o->plot, match), i;

	if (!n)
		return 1;
	for (i = 1; i < n; i++)
		sp_cli_error("warning: plotting '%s' of '%s', not the one of '%s'", a->o->plot,
			     a->prof->objects[a->prof->funcs[match[0]].object].path,
			     a->prof->objects[a->prof->funcs[match[i]].object].path);
	sp_report_aprof_svg(a->out, a->ic, match[0], a->o->plot_axes);
	return 0;
}

static int print_routines(struct aprof_run *a)
{
	uint32_t match[MAX_MATCHES];
	size_t n = find_routines(a, a->o->routine, match), i;

	if (!n)
		return 1;
	sp_report_aprof_header(a->out, a->ic, a->files, a->nfiles);
	for (i = 0; i < n; i++) {
		if (i)
			fputs("\n\n", a->out);
		sp_report_aprof_routine(a->out, a->ic, match[i]);
	}
	return 0;
}

static void report_opts(const struct sp_opts *o, struct sp_report_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->brief = 1;
	ro->demangle = o->demangle;
	ro->ignore_zeros = o->ignore_zeros;
	ro->width = o->width;
}

/* -p, -q: gprof's renderers over the call graph */
static int print_gprof_style(struct aprof_run *a)
{
	struct sp_opts *o = a->o;
	struct sp_report_opts ro;
	struct sp_report r;

	report_opts(o, &ro);
	sp_report_init(&r, a->out, a->cg, &ro);
	if (o->output_style & STYLE_FLAT_PROFILE)
		sp_report_flat(&r);
	if (o->output_style & STYLE_CALL_GRAPH) {
		sp_report_graph(&r);
		sp_report_index(&r);
	}
	sp_report_release(&r);
	return 0;
}

/* The text reports: the routine table, --routine, -p, -q. */
static int print_text(struct aprof_run *a)
{
	struct sp_opts *o = a->o;
	int styles = o->user_specified & (STYLE_FLAT_PROFILE | STYLE_CALL_GRAPH);

	if (o->routine)
		return print_routines(a);
	if (styles && (o->output_style & STYLE_CALL_GRAPH) && !a->prof->aprof.has_cct) {
		sp_cli_error("'%s' has no calling-context tree (aprof --collect-cct=yes): no call "
			     "graph",
			     a->files[0]);
		return 1;
	}
	if (styles && (o->output_style & styles))
		return print_gprof_style(a);
	sp_report_aprof_header(a->out, a->ic, a->files, a->nfiles);
	sp_report_aprof_table(a->out, a->ic, o->rank, o->min_sizes);
	return 0;
}

/* ---- the outputs shared with the other formats (render.c) ---- */

static const char *title_of(const struct aprof_run *a)
{
	return a->prof->aprof.app ? a->prof->aprof.app : a->files[0];
}

/*
 * --format=proto: each routine's self cost in the cost metric, each arc
 * of the CCT its activations. The metric's unit as pprof names units:
 * microseconds for time-usec, counts for basic blocks and instructions.
 */
static void proto_opts(const struct aprof_run *a, struct sp_proto_opts *po)
{
	const char *metric = a->prof->counters[0].name;

	memset(po, 0, sizeof(*po));
	po->values[0] = (struct sp_proto_value){"calls", "count", SP_PROTO_CALLS, 0, 0, 1};
	po->values[1] =
		(struct sp_proto_value){metric,
					!strcmp(metric, "time-usec") ? "microseconds" : "count",
					SP_PROTO_SELF,
					0,
					0,
					1};
	po->nvalues = 2;
	po->default_value = 1;
	po->demangle = a->o->demangle;
	po->executable = a->prof->aprof.app;
}

/* What the JSON, the HTML page and the diff list for each routine: the
 * analysis's self cost, total cost (aprof's `real`) and activations; the
 * routines without a point are left out. */
static struct sp_fn_cost *fn_costs(const struct sp_inputcost *ic)
{
	struct sp_fn_cost *c = sp_xcalloc(ic->nroutines + 1, sizeof(*c));
	size_t i;

	for (i = 0; i < ic->nroutines; i++) {
		const struct sp_ic_entry *e = &ic->routines[i];

		c[i].listed = e->npoints != 0;
		c[i].self = (double)e->self;
		c[i].children = e->total > e->self ? (double)(e->total - e->self) : 0;
		c[i].calls = e->calls;
	}
	return c;
}

/* The model render.c reads: the graph with the analysis's numbers, the
 * run's cost for total, and aprof's own JSON document. */
static void aprof_model(struct aprof_run *a, struct sp_cli_model *m)
{
	memset(m, 0, sizeof(*m));
	m->cg = a->cg;
	report_opts(a->o, &m->ro);
	m->meta.format = "aprof";
	m->meta.executable = a->prof->aprof.app;
	m->meta.files = a->files;
	m->meta.nfiles = a->nfiles;
	m->meta.metric = a->prof->counters[0].name;
	m->meta.unit = a->prof->counters[0].unit;
	if (!a->costs)
		a->costs = fn_costs(a->ic);
	m->meta.fn_costs = a->costs;
	m->meta.nfn_costs = a->ic->nroutines;
	m->meta.total = (double)a->ic->run_total;
	m->meta.has_total = 1;
	m->meta.no_source = 1;
	m->meta.inputcost = a->ic;
	m->meta.rank = a->o->rank;
	proto_opts(a, &m->proto);
	m->json = sp_report_json_aprof;
}

static int render(struct aprof_run *a)
{
	struct sp_opts *o = a->o;
	struct sp_cli_model m;

	aprof_model(a, &m);
	if (o->html || o->out_format == SP_OUT_FLAMEGRAPH || o->out_format == SP_OUT_FOLDED ||
	    o->out_format == SP_OUT_SPEEDSCOPE)
		m.flame = a->flame = sp_flame_from_inputcost(a->ic, title_of(a));
	if (o->html) {
		sp_report_aprof_plots(&a->plots, a->ic, o->rank);
		m.plots = a->plots.v;
		m.nplots = a->plots.n;
	}
	return sp_cli_render(o, &m, a->out);
}

static int print_output(struct aprof_run *a)
{
	struct sp_opts *o = a->o;
	int rc = 0;

	if (o->plot)
		rc = print_plot(a);
	else if (o->out_format == SP_OUT_TEXT && !o->diff && (!o->html || o->format_given))
		rc = print_text(a); /* unless --html alone, --diff or --format replace it */
	if (!rc && sp_cli_renders(o))
		rc = render(a);
	return rc;
}

/* Reads the reports and analyses them; 0 or the exit status. */
static int analyse(struct aprof_run *a)
{
	int rc = read_reports(a);

	if (rc)
		return rc;
	sp_cli_progress("fitting the cost of %zu routines", a->prof->nfuncs);
	a->ic = sp_inputcost_new(
		a->prof, (unsigned)(a->o->min_sizes > UINT_MAX ? UINT_MAX : a->o->min_sizes));
	build_graph(a);
	return 0;
}

static void aprof_run_release(struct aprof_run *a)
{
	sp_report_aprof_plots_release(&a->plots);
	sp_flame_free(a->flame);
	sp_cg_free(a->cg);
	sp_symtab_free(a->symtab);
	free(a->costs);
	sp_inputcost_free(a->ic);
	sp_profile_free(a->prof);
	free(a->files);
}

static int aprof_pipeline(struct sp_opts *o)
{
	struct aprof_run a;
	int rc;

	memset(&a, 0, sizeof(a));
	sp_cli_mark(NULL);
	a.o = o;
	a.quiet = o->quiet;
	collect_files(&a);
	if (o->check) {
		rc = check_reports(&a);
		free(a.files);
		return rc;
	}
	sp_cli_progress_start(o, (int)a.nfiles + 2 + (o->diff ? 2 : 0));
	rc = analyse(&a);
	if (!rc && !(a.out = sp_cli_open_output(o)))
		rc = 1;
	if (!rc) {
		sp_cli_progress("writing the report");
		if (a.out == stdout && isatty(STDOUT_FILENO))
			sp_cli_progress_stop(); /* the report goes to the same screen */
		rc = print_output(&a);
	}
	rc = sp_cli_close_output(o, a.out, rc);
	sp_cli_progress_stop();
	aprof_run_release(&a);
	sp_cli_mark("report");
	return rc;
}

static void base_release(void *owner)
{
	struct aprof_run *a = owner;

	aprof_run_release(a);
	free(a);
}

/*
 * --diff: the base report through the same pipeline (read, analysed, its
 * graph built), none of its outputs.
 */
static int aprof_base(struct sp_opts *o, const char *path, struct sp_cli_model *m)
{
	struct aprof_run *a = sp_xcalloc(1, sizeof(*a));
	int rc;

	a->o = o;
	a->quiet = o->quiet;
	a->files = sp_xmalloc(sizeof(*a->files));
	a->files[a->nfiles++] = path;
	memset(m, 0, sizeof(*m));
	rc = analyse(a);
	if (!rc)
		aprof_model(a, m);
	m->owner = a;
	m->release = base_release;
	return rc;
}

/* Options that make no sense together (--check ignores the others). */
static int check_options(const struct sp_opts *o)
{
	if (!o->check && o->plot &&
	    (o->diff || (o->format_given && o->out_format != SP_OUT_TEXT))) {
		sp_cli_error("--plot draws one routine as an SVG file, not with %s",
			     o->diff ? "--diff" : "--format");
		return 2;
	}
	return 0;
}

/* The options of aprof reports alone. */
static const char *own_option(const struct sp_opts *o)
{
	if (o->routine)
		return "--routine";
	if (o->plot)
		return "--plot";
	if (o->rank_given)
		return "--rank";
	if (o->check)
		return "--check";
	return NULL;
}

/* aprof names its routines itself: no executable, every file a report. */
const struct sp_cli_format sp_cmd_aprof_format = {
	.name = "aprof",
	.noun = "aprof report",
	.plural = "aprof reports",
	.probe = sp_fmt_aprof_probe,
	.outputs = SP_CLI_OUT_SHARED,
	.measures = "aprof costs",
	.mismatch_note = "their costs measure different things",
	.own_option = own_option,
	.check_options = check_options,
	.run = aprof_pipeline,
	.model = aprof_base,
};
