/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The gperftools CPU profile pipeline:
 *
 *   read and sum every profile (formats/gperf.c)
 *   -> symbolizer: the executable named on the command line stands for
 *      the profile's main object, --path-map and build-ids find the rest
 *   -> by --format:
 *        text       frames -> functions (inline chains expanded) -> exact
 *                   call graph of the stacks -> gprof's flat profile, call
 *                   graph and index (no call counts: sampling has none);
 *                   -A: annotated source with per-line samples
 *        pprof      google-pprof --text (its naming and counting rules)
 *        callgrind  KCachegrind's format, inclusive cost once per sample
 *        folded     one "a;b;c N" line per distinct stack
 *        proto      pprof's profile.proto: the stacks, their addresses
 *                   and inline chains
 *        json, dot, flamegraph, --html, --diff: the exact call graph and
 *                   flame graph of the stacks, handed to cli/render.c
 *
 * Symbolization problems (a missing file, another build-id, a file that
 * does not fit its mapping) are warnings: the frames concerned print as
 * "0xADDR (in OBJECT)". An unreadable profile is an error (exit 1).
 */
#include "cli.h"

#include <math.h>
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

struct gperf_run {
	struct sp_opts *o;
	const char *const *files; /* the profiles read */
	size_t nfiles;
	struct sp_profile *prof;
	struct sp_symbolizer *sym;
	struct sp_frame_funcs ff;
	struct sp_cg_stack_opts co;
	struct sp_cg *cg;
	const char **objs; /* per function: its object (JSON) */
	struct sp_flame *flame;
	struct sp_cli_sources src;
	FILE *out;
	const char *exe;
};

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	sp_cli_error("warning: %s", msg);
}

/* Whether the report is google-pprof's text alone: it reads the stacks as
 * a list, which the reader fills faster than the calling-context tree. */
static int pprof_only(const struct sp_opts *o)
{
	return o->out_format == SP_OUT_PPROF && !o->diff && !o->html;
}

static int read_profiles(struct gperf_run *g)
{
	size_t i;

	g->prof = sp_profile_new(SP_PROFILE_GPERF);
	g->prof->stack_list = pprof_only(g->o);
	for (i = 0; i < g->nfiles; i++) {
		struct sp_error err = SP_ERROR_INIT;
		size_t maps = g->prof->nmaps;

		sp_cli_progress_reading(g->files[i], i, g->nfiles);
		if (sp_fmt_gperf_read(g->prof, g->files[i], &err) < 0) {
			sp_cli_error("%s", err.msg);
			return 1;
		}
		if (g->prof->nmaps == maps && !(g->o->image && g->o->image_given))
			sp_cli_error("warning: '%s' has no memory map: its addresses cannot be "
				     "symbolized",
				     g->files[i]);
	}
	if (g->prof->diag[SP_DIAG_PERIOD_MIXED])
		sp_cli_error("warning: the profiles have different sampling periods: samples are "
			     "added as they are, and count as %g seconds each",
			     (double)g->prof->period_ns / 1e9);
	if (g->prof->diag[SP_DIAG_EMPTY_STACK])
		sp_cli_error("warning: skipped %llu records with an empty stack",
			     (unsigned long long)g->prof->diag[SP_DIAG_EMPTY_STACK]);
	sp_cli_mark("read profiles");
	return 0;
}

static int is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int make_symbolizer(struct gperf_run *g)
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
	so.cache_dir = g->o->cache_dir;
	g->sym = sp_symbolizer_new(&so);
	return 0;
}

static void check_main(const struct gperf_run *g)
{
	size_t i, nmain = 0;

	if (g->o->nspecs)
		sp_cli_error("warning: symbol specifications (-p NAME, -q NAME, -e, -f, -k ...) "
			     "are not supported for stack profiles yet: ignored");
	for (i = 0; i < g->prof->nobjects; i++)
		nmain += g->prof->objects[i].is_main;
	if (g->exe && !nmain && g->prof->nmaps)
		sp_cli_error("warning: the profile maps no executable: '%s' is not used", g->exe);
}

/* Samples per second: the cg's "hz" (values are sample counts). */
static long sample_rate(const struct sp_profile *p)
{
	double hz = p->period_ns ? 1e9 / (double)p->period_ns : 100;

	return hz < 1 ? 1 : lround(hz);
}

static int build_graph(struct gperf_run *g)
{
	struct sp_cg_stack_opts co;
	struct sp_error err = SP_ERROR_INIT;

	sp_cli_progress("symbolizing %zu addresses", g->prof->nframes);
	if (!g->ff.funcs) /* not built for --format=folded already */
		sp_frame_funcs_build(&g->ff, g->prof, g->sym, g->o->line);
	sp_cli_mark("symbolize");
	sp_cli_progress("building the call graph");
	memset(&co, 0, sizeof(co));
	co.counter = sp_profile_find_counter(g->prof, "samples");
	co.field = SP_VALUE_COUNT;
	co.frame_first = g->ff.first;
	co.frame_funcs = g->ff.list;
	co.funcs = g->ff.funcs;
	co.hz = sample_rate(g->prof);
	co.dimen = "seconds";
	co.dimen_abbrev = 's';
	co.counts_known = 0;
	if (co.counter == SP_NONE)
		co.counter = 0;
	g->co = co;
	g->cg = sp_cg_from_cct(g->prof, &co, &err);
	if (!g->cg) {
		sp_cli_error("%s", err.msg);
		return 1;
	}
	sp_cli_mark("call graph");
	return 0;
}

static const char **function_objects(const struct gperf_run *g)
{
	size_t i, n = g->ff.funcs->len;
	const char **v = sp_xmalloc((n + 1) * sizeof(*v));

	for (i = 0; i < n; i++) {
		uint32_t obj = g->ff.object[i];

		v[i] = obj < g->prof->nobjects ? g->prof->objects[obj].path : NULL;
	}
	return v;
}

static void print_text(struct gperf_run *g)
{
	struct sp_opts *o = g->o;
	int style = sp_cli_print_stack_text(o, g->out, g->cg);

	if (style & STYLE_ANNOTATED_SOURCE) {
		struct sp_annotate_samples_opts ao;

		char **dirs;

		memset(&ao, 0, sizeof(ao));
		ao.ndirs = sp_cli_source_dirs(o, &dirs);
		ao.dirs = (const char *const *)dirs;
		ao.warn = sp_cli_warn_hook();
		fflush(g->out);
		sp_annotate_samples(g->out, g->prof, g->sym, &ao,
				    !(style & ~STYLE_ANNOTATED_SOURCE));
		sp_cli_source_dirs_free(dirs, ao.ndirs);
	}
}

/* The model cli/render.c reads: the exact graph, the names of the
 * objects and files for the JSON, the exact flame graph. */
static void gperf_model(struct gperf_run *g, struct sp_cli_model *m)
{
	memset(m, 0, sizeof(*m));
	if (!g->objs)
		g->objs = function_objects(g);
	m->cg = g->cg;
	sp_cli_stack_report_opts(g->o, &m->ro);
	m->meta.format = "gperftools";
	m->meta.executable = g->exe;
	m->meta.files = g->files;
	m->meta.nfiles = g->nfiles;
	m->meta.metric = "time";
	m->meta.unit = "seconds";
	m->meta.sym_objects = g->objs;
	m->meta.sym_files = (const char *const *)g->ff.file;
	m->meta.sample_seconds = (double)g->prof->period_ns / 1e9;
}

/* The flame graph of the stacks, names as the reports print them. */
static struct sp_flame *make_flame(struct gperf_run *g)
{
	size_t i, n = g->ff.funcs->len;
	char **names = sp_xmalloc((n + 1) * sizeof(*names));
	struct sp_flame *fl;

	for (i = 0; i < n; i++) {
		const char *raw = g->ff.funcs->syms[i].name;
		char *d = g->o->demangle ? sp_demangle(raw, 0) : NULL;

		names[i] = d ? d : sp_xstrdup(raw);
	}
	fl = sp_flame_from_cct(g->prof, &g->co, (const char *const *)names,
			       g->exe ? g->exe : g->files[0]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	/* values are samples, each worth the period */
	fl->unit = sp_strtab_intern(&fl->names, "samples");
	fl->dimen = sp_strtab_intern(&fl->names, "seconds");
	fl->unit_scale = (double)g->prof->period_ns / 1e9;
	return fl;
}

/* --format=proto: samples and CPU time, the period. */
static void proto_opts(const struct gperf_run *g, struct sp_proto_opts *po)
{
	uint32_t c = sp_profile_find_counter(g->prof, "samples");
	double period = (double)g->prof->period_ns;

	memset(po, 0, sizeof(*po));
	po->values[0] =
		(struct sp_proto_value){"samples", "count", SP_PROTO_COUNTER, c, SP_PICK_COUNT, 1};
	po->values[1] = (struct sp_proto_value){"cpu", "nanoseconds", SP_PROTO_COUNTER,
						c,     SP_PICK_COUNT, period};
	po->nvalues = 2;
	po->default_value = 1;
	po->period_type = "cpu";
	po->period_unit = "nanoseconds";
	po->period = (int64_t)g->prof->period_ns;
	po->demangle = g->o->demangle;
}

/* The outputs of cli/render.c; `printed`: --format's output is written
 * already (pprof, callgrind, folded: the stack renderers'), only --html
 * is left. */
static int render(struct gperf_run *g, int printed)
{
	struct sp_opts *o = g->o, html_only;
	struct sp_cli_model m;

	gperf_model(g, &m);
	if (o->html || o->out_format == SP_OUT_FLAMEGRAPH || o->out_format == SP_OUT_SPEEDSCOPE)
		m.flame = g->flame = make_flame(g);
	if (o->html) {
		char **dirs;
		size_t ndirs = sp_cli_source_dirs(o, &dirs);

		sp_cli_sources_build_stacks(&g->src, g->cg, g->prof, g->sym, &g->co,
					    (const char *const *)dirs, ndirs, 10);
		m.sources = g->src.v;
		m.nsources = g->src.n;
		sp_cli_source_dirs_free(dirs, ndirs);
	}
	if (printed) {
		html_only = *o;
		html_only.out_format = SP_OUT_TEXT;
		return sp_cli_render(&html_only, &m, g->out);
	}
	return sp_cli_render(o, &m, g->out);
}

static int print_report(struct gperf_run *g)
{
	struct sp_stack_report_opts so;
	struct sp_proto_opts po;
	int printed = 1;

	memset(&so, 0, sizeof(so));
	so.demangle = g->o->demangle;
	so.cum = g->o->cum;
	so.lines = g->o->line;
	so.stderr_lines = sp_cli_echo_hook();
	if (g->out == stdout && isatty(STDOUT_FILENO))
		sp_cli_progress_stop(); /* the report goes to the same screen */
	/* the stack renderers' own formats (--diff takes text or JSON only) */
	switch (g->o->diff ? SP_OUT_TEXT : g->o->out_format) {
	case SP_OUT_PPROF:
		sp_report_pprof(g->out, g->prof, g->sym, &so);
		break;
	case SP_OUT_FOLDED:
		sp_frame_funcs_build(&g->ff, g->prof, g->sym, g->o->line);
		sp_report_folded(g->out, g->prof, &g->ff, &so);
		break;
	case SP_OUT_CALLGRIND:
		sp_report_callgrind(g->out, g->prof, g->sym, &so);
		break;
	case SP_OUT_PROTO:
		proto_opts(g, &po);
		sp_report_proto_stacks(g->out, g->prof, g->sym, &po);
		break;
	default:
		printed = 0;
		break;
	}
	if (printed && !g->o->html)
		return 0;
	if (build_graph(g))
		return 1;
	/* gprof's text, unless --html alone or --diff (or --format) replaces it */
	if (g->o->out_format == SP_OUT_TEXT && !g->o->diff && (!g->o->html || g->o->format_given))
		print_text(g);
	return sp_cli_renders(g->o) ? render(g, printed) : 0;
}

static void gperf_run_release(struct gperf_run *g)
{
	sp_cli_sources_release(&g->src);
	sp_flame_free(g->flame);
	free(g->objs);
	sp_cg_free(g->cg);
	sp_frame_funcs_release(&g->ff);
	sp_symbolizer_free(g->sym);
	sp_profile_free(g->prof);
}

/* Reads the profiles and starts symbolizing them in the background. */
static int load(struct gperf_run *g)
{
	int rc = make_symbolizer(g);

	if (!rc) {
		sp_symbolizer_preload(g->sym);
		rc = read_profiles(g);
	}
	if (!rc) {
		check_main(g);
		sp_symbolizer_prefetch(g->sym, g->prof);
		sp_cli_mark("prefetch");
	}
	return rc;
}

static int gperf_pipeline(struct sp_opts *o)
{
	struct gperf_run g;
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
	if (!rc) {
		rc = print_report(&g);
		sp_cli_mark("report");
	}
	rc = sp_cli_close_output(o, g.out, rc);
	gperf_run_release(&g);
	sp_cli_progress_stop();
	sp_cli_mark("release");
	return rc;
}

static void base_release(void *owner)
{
	struct gperf_run *g = owner;

	gperf_run_release(g);
	free((void *)g->files);
	free(g);
}

/*
 * --diff: the base profile through the same pipeline (the executable on
 * the command line stands for its main object too), none of its outputs.
 */
static int gperf_base(struct sp_opts *o, const char *path, struct sp_cli_model *m)
{
	struct gperf_run *g = sp_xcalloc(1, sizeof(*g));
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
		gperf_model(g, m);
	m->owner = g;
	m->release = base_release;
	return rc;
}

/* The executable, when named, stands for the profile's main object. */
const struct sp_cli_format sp_cmd_gperf_format = {
	.name = "gperftools",
	.noun = "gperftools profile",
	.plural = "gperftools profiles",
	.probe = sp_fmt_gperf_probe,
	.image = 1,
	.outputs = SP_CLI_OUT_SHARED | SP_CLI_OUT(SP_OUT_PPROF) | SP_CLI_OUT(SP_OUT_CALLGRIND),
	.measures = "time",
	.run = gperf_pipeline,
	.model = gperf_base,
};
