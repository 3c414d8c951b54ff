/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The pprof protobuf pipeline:
 *
 *   read and sum every profile (formats/pprof.c; gzip, bzip2 or plain)
 *   -> the counter the reports count: a sample type counted in "count"
 *      when the profile has a period in nanoseconds (a CPU profile: its
 *      samples, each worth the period, as gperftools' reports count
 *      them), else the default sample type, else the last one (pprof's
 *      rule); amounts in nanoseconds, microseconds, milliseconds or
 *      seconds print as seconds, others in their own unit
 *   -> symbolizer: frames whose locations carry lines are named by them
 *      (sp_symbolizer_frame() answers with what the profile recorded);
 *      the others are looked up in the files the mappings name (the
 *      executable on the command line stands for the main mapping,
 *      --path-map and build-ids find the rest), as for gperftools
 *   -> by --format, as for gperftools profiles (cli/cmd-gperf.c): gprof's
 *      text from the exact stacks, -l, -A; pprof, callgrind, folded,
 *      proto from the stacks; json, dot, flamegraph, speedscope, --html,
 *      --diff through cli/render.c
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symprof/alloc.h"
#include "symprof/annotate.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

struct pprof_run {
	struct sp_opts *o;
	const char *const *files;
	size_t nfiles;
	struct sp_profile *prof;
	struct sp_symbolizer *sym;
	struct sp_frame_funcs ff;
	struct sp_cg_stack_opts co;
	struct sp_cg *cg;
	const char **objs;
	struct sp_flame *flame;
	struct sp_cli_sources src;
	FILE *out;
	const char *exe;
	uint32_t counter;   /* what the reports count */
	long hz;	    /* counter units per dimension unit */
	const char *dimen;  /* "seconds", "bytes" ... */
	double unit_scale;  /* seconds (or dimen units) per counter unit */
	const char *metric; /* the JSON's metric */
};

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	sp_cli_error("warning: %s", msg);
}

static int read_profiles(struct pprof_run *g)
{
	size_t i;

	g->prof = sp_profile_new(SP_PROFILE_PPROF);
	for (i = 0; i < g->nfiles; i++) {
		struct sp_error err = SP_ERROR_INIT;

		sp_cli_progress_reading(g->files[i], i, g->nfiles);
		if (sp_fmt_pprof_read(g->prof, g->files[i], &err) < 0) {
			sp_cli_error("%s", err.msg);
			return 1;
		}
	}
	if (g->prof->diag[SP_DIAG_EMPTY_STACK])
		sp_cli_error("warning: skipped %llu samples with no location",
			     (unsigned long long)g->prof->diag[SP_DIAG_EMPTY_STACK]);
	sp_cli_mark("read profiles");
	return 0;
}

/* Seconds per unit of a time unit, 0 for other units. */
static double seconds_per(const char *unit)
{
	static const struct {
		const char *name;
		double s;
	} t[] = {{"nanoseconds", 1e-9},
		 {"microseconds", 1e-6},
		 {"milliseconds", 1e-3},
		 {"seconds", 1}};
	size_t i;

	for (i = 0; unit && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(unit, t[i].name))
			return t[i].s;
	return 0;
}

/* The counter the reports count and how its values print (see above). */
static void pick_counter(struct pprof_run *g)
{
	const struct sp_profile *p = g->prof;
	double s;
	size_t i;

	g->counter = p->pprof.default_counter != SP_NONE ? p->pprof.default_counter
							 : (uint32_t)(p->ncounters - 1);
	for (i = 0; p->period_ns && i < p->ncounters; i++)
		if (!strcmp(p->counters[i].unit, "count")) {
			g->counter = (uint32_t)i;
			g->hz = (long)(1e9 / (double)p->period_ns + 0.5);
			g->hz = g->hz < 1 ? 1 : g->hz;
			g->dimen = "seconds";
			g->unit_scale = (double)p->period_ns / 1e9;
			g->metric = "time";
			return;
		}
	g->metric = p->counters[g->counter].name;
	if ((s = seconds_per(p->counters[g->counter].unit)) > 0) {
		g->hz = (long)(1 / s + 0.5);
		g->dimen = "seconds";
		g->unit_scale = s;
		g->metric = "time";
		return;
	}
	g->hz = 1;
	g->dimen = p->counters[g->counter].unit;
	g->unit_scale = 1;
}

static int is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int make_symbolizer(struct pprof_run *g)
{
	struct sp_symbolizer_opts so;

	memset(&so, 0, sizeof(so));
	if (g->o->image && g->o->image_given) {
		if (!is_regular(g->o->image)) {
			sp_cli_error("cannot open '%s': no such file", g->o->image);
			return 1;
		}
		g->exe = g->o->image;
	}
	so.exe = g->exe;
	so.path_maps = g->o->path_maps;
	so.npath_maps = g->o->npath_maps;
	so.search = &g->o->search;
	so.warn = warn_cb;
	g->sym = sp_symbolizer_new(&so);
	return 0;
}

static int build_graph(struct pprof_run *g)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_cg_stack_opts co;

	sp_cli_progress("symbolizing %zu addresses", g->prof->nframes);
	if (!g->ff.funcs)
		sp_frame_funcs_build(&g->ff, g->prof, g->sym, g->o->line);
	sp_cli_mark("symbolize");
	memset(&co, 0, sizeof(co));
	co.counter = g->counter;
	co.field = SP_VALUE_COUNT;
	co.frame_first = g->ff.first;
	co.frame_funcs = g->ff.list;
	co.funcs = g->ff.funcs;
	co.hz = g->hz;
	co.dimen = g->dimen;
	co.dimen_abbrev = g->dimen[0];
	g->co = co;
	if (!(g->cg = sp_cg_from_cct(g->prof, &co, &err))) {
		sp_cli_error("%s", err.msg);
		return 1;
	}
	sp_cli_mark("call graph");
	return 0;
}

/* ---- outputs ---- */

static void pprof_model(struct pprof_run *g, struct sp_cli_model *m)
{
	size_t i, n = g->ff.funcs->len;

	memset(m, 0, sizeof(*m));
	if (!g->objs) {
		g->objs = sp_xcalloc(n + 1, sizeof(*g->objs));
		for (i = 0; i < n; i++)
			g->objs[i] = g->ff.object[i] < g->prof->nobjects
					     ? g->prof->objects[g->ff.object[i]].path
					     : NULL;
	}
	m->cg = g->cg;
	sp_cli_stack_report_opts(g->o, &m->ro);
	m->meta.format = "pprof";
	m->meta.executable = g->exe;
	m->meta.files = g->files;
	m->meta.nfiles = g->nfiles;
	m->meta.metric = g->metric;
	m->meta.unit = g->dimen;
	m->meta.sym_objects = g->objs;
	m->meta.sym_files = (const char *const *)g->ff.file;
	m->meta.sample_seconds = !strcmp(g->metric, "time") ? g->unit_scale : 0;
}

/* The flame graph of the stacks, names as the reports print them. */
static struct sp_flame *make_flame(struct pprof_run *g)
{
	size_t i, n = g->ff.funcs->len;
	char **names = sp_xmalloc((n + 1) * sizeof(*names));
	struct sp_flame *fl;

	for (i = 0; i < n; i++) {
		const struct sp_symbol *s = &g->ff.funcs->syms[i];
		char *d = g->o->demangle && !s->no_linkage ? sp_demangle(s->name, 0) : NULL;

		names[i] = d ? d : sp_xstrdup(s->name);
	}
	fl = sp_flame_from_cct(g->prof, &g->co, (const char *const *)names,
			       g->exe ? g->exe : g->files[0]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!strcmp(g->dimen, "seconds")) {
		fl->dimen = sp_strtab_intern(&fl->names, "seconds");
		fl->unit_scale = g->unit_scale;
	}
	return fl;
}

/* --format=proto: every sample type as read, period and duration. */
static void proto_opts(const struct pprof_run *g, struct sp_proto_opts *po)
{
	const struct sp_profile *p = g->prof;
	size_t i;

	memset(po, 0, sizeof(*po));
	for (i = 0; i < p->ncounters && i < SP_PROTO_MAX_VALUES; i++)
		po->values[po->nvalues++] = (struct sp_proto_value){
			p->counters[i].name, p->counters[i].unit, SP_PROTO_COUNTER,
			(uint32_t)i,	     SP_PICK_VALUE,	  1};
	po->default_value =
		p->pprof.default_counter != SP_NONE ? (int)p->pprof.default_counter : -1;
	po->period_type = p->pprof.period_type;
	po->period_unit = p->pprof.period_unit ? p->pprof.period_unit : "";
	po->period = p->pprof.period;
	po->time_ns = p->pprof.time_ns;
	po->duration_ns = p->pprof.duration_ns;
	po->demangle = g->o->demangle;
}

static void print_text(struct pprof_run *g)
{
	int style = sp_cli_print_stack_text(g->o, g->out, g->cg);

	if (style & STYLE_ANNOTATED_SOURCE) {
		struct sp_annotate_samples_opts ao;
		char **dirs;

		memset(&ao, 0, sizeof(ao));
		ao.ndirs = sp_cli_source_dirs(g->o, &dirs);
		ao.dirs = (const char *const *)dirs;
		ao.counter = g->prof->counters[g->counter].name;
		ao.pick = SP_PICK_COUNT;
		ao.warn = sp_cli_warn_hook();
		fflush(g->out);
		sp_annotate_samples(g->out, g->prof, g->sym, &ao,
				    !(style & ~STYLE_ANNOTATED_SOURCE));
		sp_cli_source_dirs_free(dirs, ao.ndirs);
	}
}

static int render(struct pprof_run *g, int printed)
{
	struct sp_opts *o = g->o, html_only;
	struct sp_cli_model m;

	pprof_model(g, &m);
	if (o->html || o->out_format == SP_OUT_FLAMEGRAPH || o->out_format == SP_OUT_SPEEDSCOPE)
		m.flame = g->flame = make_flame(g);
	if (o->html) {
		char **dirs;
		size_t i, ndirs = sp_cli_source_dirs(o, &dirs);

		sp_cli_sources_build_stacks(&g->src, g->cg, g->prof, g->sym, &g->co,
					    (const char *const *)dirs, ndirs, 10);
		m.sources = g->src.v;
		m.nsources = g->src.n;
		for (i = 0; i < ndirs; i++)
			free(dirs[i]);
		free(dirs);
	}
	if (!printed)
		return sp_cli_render(o, &m, g->out);
	html_only = *o;
	html_only.out_format = SP_OUT_TEXT;
	return sp_cli_render(&html_only, &m, g->out);
}

/* The stack renderers' own formats: 1 if one was written. */
static int print_stacks(struct pprof_run *g)
{
	struct sp_stack_report_opts so;
	struct sp_proto_opts po;

	memset(&so, 0, sizeof(so));
	so.demangle = g->o->demangle;
	so.cum = g->o->cum;
	so.lines = g->o->line;
	so.stderr_lines = sp_cli_echo_hook();
	/* "samples" is the stack renderers' default (callgrind: "Samples") */
	so.counter = strcmp(g->prof->counters[g->counter].name, "samples")
			     ? g->prof->counters[g->counter].name
			     : NULL;
	so.pick = SP_PICK_COUNT;
	switch (g->o->diff ? SP_OUT_TEXT : g->o->out_format) {
	case SP_OUT_PPROF:
		sp_report_pprof(g->out, g->prof, g->sym, &so);
		return 1;
	case SP_OUT_CALLGRIND:
		sp_report_callgrind(g->out, g->prof, g->sym, &so);
		return 1;
	case SP_OUT_FOLDED:
		sp_frame_funcs_build(&g->ff, g->prof, g->sym, g->o->line);
		sp_report_folded(g->out, g->prof, &g->ff, &so);
		return 1;
	case SP_OUT_PROTO:
		proto_opts(g, &po);
		sp_report_proto_stacks(g->out, g->prof, g->sym, &po);
		return 1;
	default:
		return 0;
	}
}

static int print_report(struct pprof_run *g)
{
	int printed;

	if (g->out == stdout && isatty(STDOUT_FILENO))
		sp_cli_progress_stop();
	printed = print_stacks(g);
	if (printed && !g->o->html)
		return 0;
	if (build_graph(g))
		return 1;
	if (g->o->out_format == SP_OUT_TEXT && !g->o->diff && (!g->o->html || g->o->format_given))
		print_text(g);
	return sp_cli_renders(g->o) ? render(g, printed) : 0;
}

static void pprof_run_release(struct pprof_run *g)
{
	sp_cli_sources_release(&g->src);
	sp_flame_free(g->flame);
	free(g->objs);
	sp_cg_free(g->cg);
	sp_frame_funcs_release(&g->ff);
	sp_symbolizer_free(g->sym);
	sp_profile_free(g->prof);
}

static int load(struct pprof_run *g)
{
	int rc = make_symbolizer(g);

	if (!rc) {
		sp_symbolizer_preload(g->sym);
		rc = read_profiles(g);
	}
	if (!rc) {
		pick_counter(g);
		sp_symbolizer_prefetch(g->sym, g->prof);
	}
	return rc;
}

static int pprof_pipeline(struct sp_opts *o)
{
	struct pprof_run g;
	int rc;

	memset(&g, 0, sizeof(g));
	sp_cli_mark(NULL);
	g.o = o;
	g.files = o->profiles;
	g.nfiles = o->nprofiles;
	if (!(g.out = sp_cli_open_output(o)))
		return 1;
	sp_cli_progress_start(o, 3 + (int)o->nprofiles + (o->diff ? 3 : 0));
	rc = load(&g);
	if (!rc)
		rc = print_report(&g);
	rc = sp_cli_close_output(o, g.out, rc);
	pprof_run_release(&g);
	sp_cli_progress_stop();
	return rc;
}

static void base_release(void *owner)
{
	struct pprof_run *g = owner;

	pprof_run_release(g);
	free((void *)g->files);
	free(g);
}

/* --diff: the base profile through the same pipeline, none of its outputs. */
static int pprof_base(struct sp_opts *o, const char *path, struct sp_cli_model *m)
{
	struct pprof_run *g = sp_xcalloc(1, sizeof(*g));
	int rc;

	g->o = o;
	g->files = sp_xmalloc(sizeof(*g->files));
	((const char **)g->files)[0] = path;
	g->nfiles = 1;
	memset(m, 0, sizeof(*m));
	rc = load(g);
	if (!rc)
		rc = build_graph(g);
	if (!rc)
		pprof_model(g, m);
	m->owner = g;
	m->release = base_release;
	return rc;
}

/* Plain or compressed; the executable, when named, stands for the main
 * mapping. A CPU profile measures time as gperftools' and gmon.out's do;
 * a profile of something else is told apart by its metric once loaded. */
const struct sp_cli_format sp_cmd_pprof_format = {
	.name = "pprof",
	.noun = "pprof protobuf",
	.plural = "pprof protobufs",
	.probe = sp_fmt_pprof_probe,
	.compressed = 1,
	.image = 1,
	.outputs = SP_CLI_OUT_SHARED | SP_CLI_OUT(SP_OUT_PPROF) | SP_CLI_OUT(SP_OUT_CALLGRIND),
	.measures = "time",
	.run = pprof_pipeline,
	.model = pprof_base,
};
