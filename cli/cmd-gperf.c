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
 *        json       the document of docs/formats.md
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

#include "symprof/alloc.h"
#include "symprof/annotate.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

struct gperf_run {
	struct sp_opts *o;
	struct sp_profile *prof;
	struct sp_symbolizer *sym;
	struct sp_frame_funcs ff;
	struct sp_cg *cg;
	FILE *out;
	const char *exe;
};

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	sp_cli_error("warning: %s", msg);
}

static int read_profiles(struct gperf_run *g)
{
	size_t i;

	g->prof = sp_profile_new(SP_PROFILE_GPERF);
	for (i = 0; i < g->o->nprofiles; i++) {
		struct sp_error err = SP_ERROR_INIT;
		size_t maps = g->prof->nmaps;

		if (sp_fmt_gperf_read(g->prof, g->o->profiles[i], &err) < 0) {
			sp_cli_error("%s", err.msg);
			return 1;
		}
		if (g->prof->nmaps == maps && !(g->o->image && g->o->image_given))
			sp_cli_error("warning: '%s' has no memory map: its addresses cannot be "
				     "symbolized",
				     g->o->profiles[i]);
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
	so.warn = warn_cb;
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
		sp_cli_error("warning: the profile maps no executable: '%s' is not used",
			     g->exe);
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

	sp_frame_funcs_build(&g->ff, g->prof, g->sym, g->o->line);
	sp_cli_mark("symbolize");
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

static void report_opts(const struct gperf_run *g, struct sp_report_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->brief = g->o->brief;
	ro->demangle = g->o->demangle;
	ro->inline_file_names = g->o->line || g->o->inline_file_names;
	ro->print_path = g->o->print_path;
	ro->ignore_zeros = g->o->ignore_zeros;
	ro->width = g->o->width;
}

static void print_text(struct gperf_run *g)
{
	struct sp_opts *o = g->o;
	struct sp_report_opts ro;
	struct sp_report r;
	int style = o->output_style;

	/* gprof's defaults: flat profile and call graph, less what -P/-Q took */
	if (!style)
		style = (STYLE_FLAT_PROFILE | STYLE_CALL_GRAPH) & ~o->user_specified;
	report_opts(g, &ro);
	sp_report_init(&r, g->out, g->cg, &ro);
	if (style & STYLE_FLAT_PROFILE)
		sp_report_flat(&r);
	if (style & STYLE_CALL_GRAPH) {
		sp_report_graph(&r);
		sp_report_index(&r);
	}
	sp_report_release(&r);
	if (style & STYLE_ANNOTATED_SOURCE) {
		struct sp_annotate_samples_opts ao;

		char **dirs;
		size_t i;

		memset(&ao, 0, sizeof(ao));
		ao.ndirs = sp_cli_source_dirs(o, &dirs);
		ao.dirs = (const char *const *)dirs;
		fflush(g->out);
		sp_annotate_samples(g->out, g->prof, g->sym, &ao, !(style & ~STYLE_ANNOTATED_SOURCE));
		for (i = 0; i < ao.ndirs; i++)
			free(dirs[i]);
		free(dirs);
	}
}

static void print_json(struct gperf_run *g)
{
	struct sp_report_opts ro;
	struct sp_report r;
	const char **objs = function_objects(g);
	struct sp_report_meta m;

	memset(&m, 0, sizeof(m));
	m.format = "gperftools";
	m.executable = g->exe;
	m.files = g->o->profiles;
	m.nfiles = g->o->nprofiles;
	m.metric = "time";
	m.unit = "seconds";
	m.sym_objects = objs;
	m.sym_files = (const char *const *)g->ff.file;
	m.sample_seconds = (double)g->prof->period_ns / 1e9;
	report_opts(g, &ro);
	sp_report_init(&r, g->out, g->cg, &ro);
	sp_report_json(&r, &m);
	sp_report_release(&r);
	free(objs);
}

static int print_report(struct gperf_run *g)
{
	struct sp_stack_report_opts so;

	memset(&so, 0, sizeof(so));
	so.demangle = g->o->demangle;
	so.cum = g->o->cum;
	so.lines = g->o->line;
	switch (g->o->out_format) {
	case SP_OUT_PPROF:
		sp_report_pprof(g->out, g->prof, g->sym, &so);
		return 0;
	case SP_OUT_FOLDED:
		sp_frame_funcs_build(&g->ff, g->prof, g->sym, g->o->line);
		sp_report_folded(g->out, g->prof, &g->ff, &so);
		return 0;
	case SP_OUT_CALLGRIND:
		sp_report_callgrind(g->out, g->prof, g->sym, &so);
		return 0;
	default:
		break;
	}
	if (build_graph(g))
		return 1;
	if (g->o->out_format == SP_OUT_JSON)
		print_json(g);
	else
		print_text(g);
	return 0;
}

int sp_cmd_gperf(struct sp_opts *o)
{
	struct gperf_run g;
	int rc;

	memset(&g, 0, sizeof(g));
	sp_cli_mark(NULL);
	g.o = o;
	g.out = stdout;
	rc = make_symbolizer(&g);
	if (!rc) {
		sp_symbolizer_preload(g.sym);
		rc = read_profiles(&g);
	}
	if (!rc) {
		check_main(&g);
		sp_symbolizer_prefetch(g.sym, g.prof);
		sp_cli_mark("prefetch");
		rc = print_report(&g);
		sp_cli_mark("report");
	}
	if (!rc && (fflush(stdout) != 0 || ferror(stdout))) {
		sp_cli_error("cannot write the report: write error");
		rc = 1;
	}
	sp_cg_free(g.cg);
	sp_frame_funcs_release(&g.ff);
	sp_symbolizer_free(g.sym);
	sp_profile_free(g.prof);
	sp_cli_mark("release");
	return rc;
}
