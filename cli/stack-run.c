/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The stack pipeline of the gperftools and pprof protobuf commands (see
 * stack-run.h): symbolizer, the stack renderers' own formats, the exact
 * call graph of the stacks, gprof's text, and the model of cli/render.c.
 *
 * Symbolization problems (a missing file, another build-id, a file that
 * does not fit its mapping) are warnings: the frames concerned print as
 * "0xADDR (in OBJECT)". An unreadable profile is an error (exit 1).
 */
#include "stack-run.h"

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

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	sp_cli_error("warning: %s", msg);
}

static int is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The executable named on the command line (a file) stands for the
 * profile's main object. */
static int make_symbolizer(struct sp_cli_stack_run *g)
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
	so.search = &g->o->search;
	so.cache_dir = g->o->cache_dir;
	so.exe = g->exe;
	so.path_maps = g->o->path_maps;
	so.npath_maps = g->o->npath_maps;
	so.lib_prefixes = (const char *const *)g->o->lib_prefixes;
	so.nlib_prefixes = g->o->nlib_prefixes;
	so.warn = warn_cb;
	g->sym = sp_symbolizer_new(&so);
	return 0;
}

/* Reads the profiles and starts symbolizing them in the background. */
static int load(struct sp_cli_stack_run *g)
{
	int rc = make_symbolizer(g);

	if (!rc) {
		sp_symbolizer_preload(g->sym);
		rc = g->ops->read(g);
	}
	if (!rc) {
		sp_symbolizer_prefetch(g->sym, g->prof);
		sp_cli_mark("prefetch");
	}
	return rc;
}

static int build_graph(struct sp_cli_stack_run *g)
{
	struct sp_cg_stack_opts co;
	struct sp_error err = SP_ERROR_INIT;

	sp_cli_progress("symbolizing %zu addresses", g->prof->nframes);
	if (!g->ff.funcs) /* not built for --format=folded already */
		sp_frame_funcs_build(&g->ff, g->prof, g->sym, g->o->line);
	sp_cli_mark("symbolize");
	sp_cli_progress("building the call graph");
	memset(&co, 0, sizeof(co));
	g->ops->graph_opts(g, &co);
	co.frame_first = g->ff.first;
	co.frame_funcs = g->ff.list;
	co.funcs = g->ff.funcs;
	g->co = co;
	g->cg = sp_cg_from_cct(g->prof, &co, &err);
	if (!g->cg) {
		sp_cli_error("%s", err.msg);
		return 1;
	}
	sp_cli_mark("call graph");
	return 0;
}

/* ---- outputs ---- */

static const char **function_objects(const struct sp_cli_stack_run *g)
{
	size_t i, n = g->ff.funcs->len;
	const char **v = sp_xmalloc((n + 1) * sizeof(*v));

	for (i = 0; i < n; i++) {
		uint32_t obj = g->ff.object[i];

		v[i] = obj < g->prof->nobjects ? g->prof->objects[obj].path : NULL;
	}
	return v;
}

/* The model cli/render.c reads: the exact graph, the names of the
 * objects and files for the JSON. */
static void make_model(struct sp_cli_stack_run *g, struct sp_cli_model *m)
{
	memset(m, 0, sizeof(*m));
	if (!g->objs)
		g->objs = function_objects(g);
	m->cg = g->cg;
	sp_cli_stack_report_opts(g->o, &m->ro);
	m->meta.format = g->ops->format;
	m->meta.executable = g->exe;
	m->meta.files = g->files;
	m->meta.nfiles = g->nfiles;
	m->meta.sym_objects = g->objs;
	m->meta.sym_files = (const char *const *)g->ff.file;
	g->ops->meta(g, &m->meta);
}

/* The flame graph of the stacks, names as the reports print them. */
static struct sp_flame *make_flame(struct sp_cli_stack_run *g)
{
	size_t i, n = g->ff.funcs->len;
	char **names = sp_xmalloc((n + 1) * sizeof(*names));
	struct sp_flame *fl;

	for (i = 0; i < n; i++) {
		const struct sp_symbol *s = &g->ff.funcs->syms[i];
		int demangle = g->o->demangle && !(g->ops->flame_linkage_only && s->no_linkage);
		char *d = demangle ? sp_demangle(s->name, 0) : NULL;

		names[i] = d ? d : sp_xstrdup(s->name);
	}
	fl = sp_flame_from_cct(g->prof, &g->co, (const char *const *)names,
			       g->exe ? g->exe : g->files[0]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	g->ops->flame_units(g, fl);
	return fl;
}

/* gprof's text of the graph; -A: annotated source with per-line samples. */
static void print_text(struct sp_cli_stack_run *g)
{
	int style = sp_cli_print_stack_text(g->o, g->out, g->cg);

	if (style & STYLE_ANNOTATED_SOURCE) {
		struct sp_annotate_samples_opts ao;
		char **dirs;

		memset(&ao, 0, sizeof(ao));
		ao.ndirs = sp_cli_source_dirs(g->o, &dirs);
		ao.dirs = (const char *const *)dirs;
		ao.warn = sp_cli_warn_hook();
		if (g->ops->annotate_opts)
			g->ops->annotate_opts(g, &ao);
		fflush(g->out);
		sp_annotate_samples(g->out, g->prof, g->sym, &ao,
				    !(style & ~STYLE_ANNOTATED_SOURCE));
		sp_cli_source_dirs_free(dirs, ao.ndirs);
	}
}

/* The outputs of cli/render.c; `printed`: --format's output is written
 * already (the stack renderers'), only --html is left. */
static int render(struct sp_cli_stack_run *g, int printed)
{
	struct sp_opts *o = g->o, html_only;
	struct sp_cli_model m;

	make_model(g, &m);
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

/* The stack renderers' own formats (--diff takes text or JSON only): 1
 * if one was written. */
static int print_stacks(struct sp_cli_stack_run *g)
{
	struct sp_stack_report_opts so;
	struct sp_proto_opts po;

	memset(&so, 0, sizeof(so));
	so.demangle = g->o->demangle;
	so.cum = g->o->cum;
	so.lines = g->o->line;
	so.addresses = g->o->pprof_addresses;
	so.files = g->o->pprof_files;
	so.show_addresses = g->o->show_addresses;
	so.focus = g->o->focus;
	so.ignore = g->o->ignore;
	so.keep_templates = g->o->no_strip_temp;
	so.keep_signal_frames = g->o->no_auto_signal_frames;
	so.stderr_lines = sp_cli_echo_hook();
	if (g->ops->stack_opts)
		g->ops->stack_opts(g, &so);
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
		memset(&po, 0, sizeof(po));
		g->ops->proto_opts(g, &po);
		po.demangle = g->o->demangle;
		sp_report_proto_stacks(g->out, g->prof, g->sym, &po);
		return 1;
	default:
		return 0;
	}
}

static int print_report(struct sp_cli_stack_run *g)
{
	int printed;

	if (g->out == stdout && isatty(STDOUT_FILENO))
		sp_cli_progress_stop(); /* the report goes to the same screen */
	printed = print_stacks(g);
	if (printed && !g->o->html)
		return 0;
	if (build_graph(g))
		return 1;
	/* gprof's text, unless --html alone or --diff (or --format) replaces it */
	if (g->o->out_format == SP_OUT_TEXT && !g->o->diff && (!g->o->html || g->o->format_given))
		print_text(g);
	return sp_cli_renders(g->o) ? render(g, printed) : 0;
}

static void run_release(struct sp_cli_stack_run *g)
{
	sp_cli_sources_release(&g->src);
	sp_flame_free(g->flame);
	free(g->objs);
	sp_cg_free(g->cg);
	sp_frame_funcs_release(&g->ff);
	sp_symbolizer_free(g->sym);
	sp_profile_free(g->prof);
}

int sp_cli_stack_pipeline(struct sp_cli_stack_run *g, struct sp_opts *o)
{
	int rc;

	sp_cli_mark(NULL);
	g->o = o;
	g->files = o->profiles;
	g->nfiles = o->nprofiles;
	if (!(g->out = sp_cli_open_output(o)))
		return 1;
	sp_cli_progress_start(o, 3 + (int)o->nprofiles + (o->diff ? 3 : 0));
	rc = load(g);
	if (!rc) {
		rc = print_report(g);
		sp_cli_mark("report");
	}
	rc = sp_cli_close_output(o, g->out, rc);
	run_release(g);
	sp_cli_progress_stop();
	sp_cli_mark("release");
	return rc;
}

static void base_release(void *owner)
{
	struct sp_cli_stack_run *g = owner;

	run_release(g);
	free((void *)g->files);
	free(g);
}

int sp_cli_stack_base(struct sp_cli_stack_run *g, struct sp_opts *o, const char *path,
		      struct sp_cli_model *m)
{
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
		make_model(g, m);
	m->owner = g;
	m->release = base_release;
	return rc;
}
