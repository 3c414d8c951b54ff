/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The gmon.out pipeline, in gprof 2.40's order (gprof.md section 0):
 *
 *   image -> symbol table -> symspecs -> read and sum every profile
 *   (printing -i info per file) -> default output styles -> -s gmon.sum
 *   -> histogram and call graph -> [BSD call graph] flat profile
 *   [call graph] index -> exec counts -> ...
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symprof/annotate.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"
#include "symprof/worker.h"

/* One way of looking at the profile: a symbol table (functions, or lines
 * with -l), the symspecs resolved against it, and the graph built on it. */
struct view {
	struct sp_symtab *symtab;
	struct sp_symspecs *specs;
	size_t *fold; /* --precise: clone -> origin */
	struct sp_cg *cg;
	int line;
};

struct gmon_run {
	struct sp_opts *o;
	struct sp_image *im;
	struct view v;	/* what gprof would build (lines with -l) */
	struct view fv; /* --precise -l: functions, for the call graph */
	struct view lv; /* lines, when a report needs them without -l */
	struct sp_profile *prof;
	struct sp_gmon_state st;
	struct sp_function_map *map;
	struct sp_cg_static *scanner;
	FILE *out;
	int files_loaded;		 /* the symbols' source files are known */
	struct sp_demangle_batch *names; /* v.symtab's names, demangled on the side */
	struct early_read *early;	 /* the profiles being read (read_ahead()) */
	struct sp_worker *files_worker;	 /* finds the symbols' files (files_ahead()) */
};

/* The profiles read on another thread while the symbols load. */
struct early_read {
	struct gmon_run *g;
	struct sp_gmon_read_opts ro;
	struct sp_worker *worker;
	int failed; /* err says why */
	struct sp_error err;
};

static const char *const default_excluded[] = {
	"_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal", "__mcleanup",
};

static int fail(const struct sp_error *err)
{
	sp_cli_error("%s", err->msg);
	return 1;
}

/* Whether a user symspec names a file or a line (so symbols need theirs
 * before the specs are resolved). */
static int specs_need_files(const struct sp_opts *o)
{
	size_t i;

	for (i = 0; i < o->nspecs; i++)
		if (strpbrk(o->specs[i].spec, ":.0123456789"))
			return 1;
	return 0;
}

/* Whether the reports will ask for the symbols' source files: all but a
 * plain flat profile do, or may (the index names the file of static
 * functions). Deciding wrongly only costs time: files load on demand. */
static int files_wanted(const struct sp_opts *o)
{
	unsigned plain = STYLE_FLAT_PROFILE;

	return o->output_style == 0 || (o->output_style & ~plain) || o->line ||
	       o->inline_file_names || o->precise || o->static_cg || o->out_format != SP_OUT_TEXT ||
	       o->html || o->diff || specs_need_files(o);
}

static int build_view(struct gmon_run *g, struct view *v, int line)
{
	struct sp_opts *o = g->o;
	struct sp_error err = SP_ERROR_INIT;
	struct sp_gprof_symopts so;
	size_t i;

	memset(&so, 0, sizeof(so));
	so.no_static = o->no_static;
	so.ignore_non_functions = o->ignore_non_functions;
	so.line_granularity = line;
	so.external_symtab = o->external_symtab;
	so.map = g->map;
	so.debug = (o->debug & SP_DBG_AOUT) ? stderr : NULL;
	so.defer_files = !line;
	so.no_prefetch = !files_wanted(o);
	/* the symbols' files are all the reports ask for, but for the line
	 * views of --html (annotated source), --precise and -A */
	so.files_only =
		!line && !o->html && !o->precise && !(o->output_style & STYLE_ANNOTATED_SOURCE);
	so.keep_clones = o->precise;
	so.use_sizes = o->precise;
	v->line = line;
	v->symtab = sp_image_gprof_symtab(g->im, &so, &err);
	if (!v->symtab)
		return fail(&err);
	sp_cli_mark("symbol table");
	if (o->precise)
		v->fold = sp_symtab_clone_origins(v->symtab);
	v->specs = sp_symspecs_new();
	sp_symspecs_set_leading_char(v->specs, sp_image_target(g->im)->leading_char);
	for (i = 0; i < o->nspecs; i++)
		sp_symspecs_add(v->specs, o->specs[i].spec, o->specs[i].table);
	for (i = 0; i < sizeof(default_excluded) / sizeof(default_excluded[0]); i++) {
		sp_symspecs_add(v->specs, default_excluded[i], SP_EXCL_TIME);
		sp_symspecs_add(v->specs, default_excluded[i], SP_EXCL_GRAPH);
		sp_symspecs_add(v->specs, default_excluded[i], SP_EXCL_FLAT);
	}
	if (specs_need_files(o))
		sp_image_symtab_files(g->im, v->symtab);
	sp_symspecs_resolve(v->specs, v->symtab, (o->debug & SP_DBG_ID) ? stderr : NULL);
	sp_cli_mark("symspecs");
	return 0;
}

/* Only gprof's text reports of the one function view: the outputs the
 * work done ahead on other threads is for (names, files). */
static int plain_text(const struct sp_opts *o)
{
	return !o->line && !o->precise && o->out_format == SP_OUT_TEXT && !o->diff && !o->html;
}

/*
 * gprof's text demangles every name it prints; for a C++ program that is a
 * fifth of the work. Started once the symbols are known, the demangling
 * runs on another thread while the profile is read and the graph built.
 * Only for the text reports of one function view (-l has a symbol per
 * line, --precise other views).
 */
static void demangle_ahead(struct gmon_run *g)
{
	const struct sp_opts *o = g->o;
	const struct sp_symtab *t = g->v.symtab;
	const char **names;
	size_t i;

	if (!o->demangle || o->bsd || !plain_text(o) || !t || !t->len)
		return;
	names = sp_xreallocarray(NULL, t->len, sizeof(*names));
	for (i = 0; i < t->len; i++)
		names[i] = t->syms[i].name;
	g->names = sp_demangle_batch_start(names, t->len, sp_image_target(g->im)->leading_char);
	free(names);
}

static void read_ahead(struct gmon_run *g);

static int load_symbols(struct gmon_run *g)
{
	struct sp_opts *o = g->o;
	struct sp_error err = SP_ERROR_INIT;
	int rc;

	sp_cli_progress("reading the symbols of %s", o->image);
	g->im = sp_image_open(o->image, &o->search, &err);
	if (!g->im)
		return fail(&err);
	sp_cli_mark("open image");
	read_ahead(g);
	if (o->function_map && !(g->map = sp_function_map_read(o->function_map, &err)))
		return fail(&err);
	rc = build_view(g, &g->v, o->line);
	if (!rc && o->precise && o->line)
		rc = build_view(g, &g->fv, 0);
	if (!rc && !o->line && (o->output_style & STYLE_ANNOTATED_SOURCE) &&
	    (o->precise || o->out_format == SP_OUT_JSON))
		rc = build_view(g, &g->lv, 1);
	if (!rc)
		demangle_ahead(g);
	return rc;
}

static void view_release(struct view *v)
{
	sp_cg_free(v->cg);
	sp_symspecs_free(v->specs);
	sp_symtab_free(v->symtab);
	free(v->fold);
}

static void print_file_info(struct gmon_run *g, const struct sp_input *in)
{
	fprintf(g->out, "File `%s' (version %d) contains:\n", in->path, g->st.file_version);
	fprintf(g->out, in->nhist == 1 ? "\t%u histogram record\n" : "\t%u histogram records\n",
		in->nhist);
	fprintf(g->out, in->narcs == 1 ? "\t%u call-graph record\n" : "\t%u call-graph records\n",
		in->narcs);
	fprintf(g->out,
		in->nbbs == 1 ? "\t%u basic-block count record\n"
			      : "\t%u basic-block count records\n",
		in->nbbs);
}

/*
 * A profile of another program: its histogram misses the executable's
 * text, or an arc's callee (an mcount call site) lies outside the code. gprof silently prints
 * nonsense for those; symprof stops.
 */
static int check_match(struct gmon_run *g)
{
	struct sp_error err = SP_ERROR_INIT;
	uint64_t lo, size, hi;
	size_t i;

	if (g->o->external_symtab || sp_image_text(g->im, &lo, &size, &err) < 0)
		return 0;
	hi = lo + size;
	for (i = 0; i < g->prof->nhists; i++) {
		const struct sp_hist *h = &g->prof->hists[i];

		if (h->high_pc <= lo || h->low_pc >= hi) {
			sp_cli_error("profile does not match '%s': its histogram covers "
				     "[%#llx, %#llx), the .text section is [%#llx, %#llx)",
				     g->o->image, (unsigned long long)h->low_pc,
				     (unsigned long long)h->high_pc, (unsigned long long)lo,
				     (unsigned long long)hi);
			return 1;
		}
	}
	for (i = 0; i < g->prof->npcarcs; i++) {
		uint64_t self = g->prof->pcarcs[i].self_pc;

		/* .text is code: the other sections only for what lies outside */
		if (!(self >= lo && self < hi) && !sp_image_in_code(g->im, self)) {
			sp_cli_error("profile does not match '%s': a call-graph record has its "
				     "callee at %#llx, outside every code section",
				     g->o->image, (unsigned long long)self);
			return 1;
		}
	}
	return 0;
}

static void gmon_read_opts(struct gmon_run *g, struct sp_gmon_read_opts *ro)
{
	const struct sp_target *t = sp_image_target(g->im);

	memset(ro, 0, sizeof(*ro));
	ro->target.ptr_size = t->ptr_size;
	ro->target.big_endian = t->big_endian;
	ro->target.sign_extend = t->sign_extend;
	ro->format = g->o->file_format;
	ro->debug = (g->o->debug & SP_DBG_SAMPLE) ? stderr : NULL;
}

static void early_main(void *job)
{
	struct early_read *e = job;
	struct gmon_run *g = e->g;
	size_t i;

	for (i = 0; i < g->o->nprofiles && !e->failed; i++)
		if (sp_fmt_gmon_read(g->prof, &g->st, g->o->profiles[i], &e->ro, &e->err) < 0)
			e->failed = 1;
}

/*
 * Reading the profiles needs of the executable only its word size and
 * byte order, known once it is open, and the line thread starts only when
 * the symbols are known: so a thread reads the profiles while this one
 * builds the symbol table, and read_profiles() takes what it read,
 * reporting an error where it would without it (after the symbols' own).
 * Not when the reading prints (-i, debugging) or progress lines show.
 */
static void read_ahead(struct gmon_run *g)
{
	const struct sp_opts *o = g->o;
	struct early_read *e;

	if (o->file_format == SP_GMON_PROF || (o->output_style & STYLE_GMON_INFO) || o->debug ||
	    sp_cli_progress_hook())
		return;
	e = sp_xcalloc(1, sizeof(*e));
	e->g = g;
	e->err = (struct sp_error)SP_ERROR_INIT;
	gmon_read_opts(g, &e->ro);
	g->prof = sp_profile_new(SP_PROFILE_GMON);
	e->worker = sp_worker_start(early_main, e);
	if (!e->worker) {
		free(e);
		sp_profile_free(g->prof);
		g->prof = NULL;
		return;
	}
	g->early = e;
}

/* Waits for read_ahead()'s thread: 0, or -1 when it failed (reported). */
static int early_join(struct gmon_run *g)
{
	struct early_read *e = g->early;
	int failed;

	sp_worker_join(e->worker);
	failed = e->failed;
	if (failed)
		fail(&e->err);
	free(e);
	g->early = NULL;
	return failed ? -1 : 0;
}

static int read_profiles(struct gmon_run *g, int *first_output)
{
	struct sp_gmon_read_opts ro;
	size_t i;

	if (g->early) {
		if (early_join(g) < 0)
			return 1;
	} else {
		if (g->o->file_format == SP_GMON_PROF) {
			sp_cli_error("file format 'prof' is not supported");
			return 1;
		}
		gmon_read_opts(g, &ro);
		g->prof = sp_profile_new(SP_PROFILE_GMON);
		for (i = 0; i < g->o->nprofiles; i++) {
			struct sp_error err = SP_ERROR_INIT;
			size_t before = g->prof->ninputs;

			sp_cli_progress_reading(g->o->profiles[i], i, g->o->nprofiles);
			if (sp_fmt_gmon_read(g->prof, &g->st, g->o->profiles[i], &ro, &err) < 0)
				return fail(&err);
			if ((g->o->output_style & STYLE_GMON_INFO) && g->prof->ninputs > before) {
				print_file_info(g, &g->prof->inputs[before]);
				*first_output = 0;
			}
		}
	}
	if (g->prof->diag[SP_DIAG_TIME_IN_TICKS])
		sp_cli_error("time is in ticks, not seconds");
	if (g->prof->diag[SP_DIAG_TRAILING_BYTES])
		sp_cli_error("warning: ignored a partial arc record at the end of a BSD gmon file");
	if ((g->st.input_flags & SP_GMON_INPUT_BB_COUNTS) && !g->o->line)
		sp_cli_error("warning: ignoring basic-block exec counts (use -l or --line)");
	sp_cli_mark("read profiles");
	return check_match(g);
}

static void choose_styles(struct gmon_run *g)
{
	struct sp_opts *o = g->o;
	int in = g->st.input_flags;

	if (o->output_style != 0)
		return;
	if (in & (SP_GMON_INPUT_HISTOGRAM | SP_GMON_INPUT_CALL_GRAPH)) {
		if (in & SP_GMON_INPUT_HISTOGRAM)
			o->output_style |= STYLE_FLAT_PROFILE;
		if (in & SP_GMON_INPUT_CALL_GRAPH)
			o->output_style |= STYLE_CALL_GRAPH;
	} else {
		o->output_style = STYLE_EXEC_COUNTS;
	}
	o->output_style &= ~o->user_specified;
}

static int write_sum(struct gmon_run *g)
{
	const struct sp_target *t = sp_image_target(g->im);
	struct sp_gmon_write_opts wo;
	struct sp_error err = SP_ERROR_INIT;

	memset(&wo, 0, sizeof(wo));
	wo.target.ptr_size = t->ptr_size;
	wo.target.big_endian = t->big_endian;
	wo.format = g->o->file_format;
	wo.hz = g->st.hz;
	if (sp_fmt_gmon_write(g->prof, &g->st, "gmon.sum", &wo, &err) < 0)
		return fail(&err);
	return 0;
}

/* -c: a code scanner for the hook of sp_cg_assemble(). Like gprof, an
 * image whose code cannot be scanned only costs a message. */
static void open_scanner(struct gmon_run *g, struct sp_cg_gmon_opts *co)
{
	struct sp_error err = SP_ERROR_INIT;
	const struct sp_code *code;
	unsigned flags = g->o->precise ? SP_CG_STATIC_TAIL | SP_CG_STATIC_WIDE : 0;
	FILE *dbg = (g->o->debug & SP_DBG_CALL) ? stderr : NULL;

	if (!(code = sp_image_code(g->im, &err)) ||
	    !(g->scanner = sp_cg_static_new(code, sp_image_target(g->im), flags, dbg, &err))) {
		sp_cli_error("%s", err.msg);
		return;
	}
	sp_cg_static_set_hist(g->scanner, g->prof);
	co->find_calls = sp_cg_static_find_calls;
	co->find_calls_ctx = g->scanner;
}

static int graph_of(struct gmon_run *g, struct view *v)
{
	struct sp_cg_gmon_opts co;
	struct sp_error err = SP_ERROR_INIT;

	memset(&co, 0, sizeof(co));
	co.specs = v->specs;
	co.hz = g->st.hz;
	co.hist_scale = g->st.hist_scale;
	co.have_hist = (g->st.input_flags & SP_GMON_INPUT_HISTOGRAM) != 0;
	co.have_arcs = (g->st.input_flags & SP_GMON_INPUT_CALL_GRAPH) != 0;
	co.line_granularity = v->line;
	co.precise = g->o->precise;
	co.fold = v->fold;
	co.debug.out = g->o->debug ? stderr : NULL;
	co.debug.mask = g->o->debug;
	if (g->o->static_cg && v == &g->v)
		open_scanner(g, &co);
	v->cg = sp_cg_from_gmon(g->prof, v->symtab, &co, &err);
	if (!v->cg)
		return fail(&err);
	return 0;
}

static int build_graph(struct gmon_run *g)
{
	int in = g->st.input_flags;

	sp_cli_progress(g->o->static_cg ? "building the call graph (decoding the code for -c)"
					: "building the call graph");
	if (graph_of(g, &g->v) || (g->fv.symtab && graph_of(g, &g->fv)) ||
	    (g->lv.symtab && graph_of(g, &g->lv)))
		return 1;
	sp_cli_mark("call graph");
	if ((g->o->output_style & STYLE_FLAT_PROFILE) && !(in & SP_GMON_INPUT_HISTOGRAM)) {
		sp_cli_error("gmon.out file is missing histogram");
		return 1;
	}
	if ((g->o->output_style & STYLE_CALL_GRAPH) && !(in & SP_GMON_INPUT_CALL_GRAPH)) {
		sp_cli_error("gmon.out file is missing call-graph data");
		return 1;
	}
	return 0;
}

static void print_annotated(struct gmon_run *g, int *first_output)
{
	struct sp_annotate_opts ao;
	char **dirs;

	memset(&ao, 0, sizeof(ao));
	ao.ndirs = sp_cli_source_dirs(g->o, &dirs);
	ao.dirs = (const char *const *)dirs;
	ao.all_lines = g->o->all_lines;
	ao.separate_files = g->o->separate_files;
	ao.ignore_zeros = g->o->ignore_zeros;
	ao.min_count = g->o->min_count;
	ao.table_length = g->o->table_length;
	if (g->o->precise)
		ao.line_cg = g->o->line ? g->v.cg : g->lv.cg;
	sp_annotate_gprof(g->out, g->v.cg, g->v.specs, &ao, first_output);
	sp_cli_source_dirs_free(dirs, ao.ndirs);
}

static void report_opts(const struct gmon_run *g, struct sp_report_opts *ro, int line)
{
	const struct sp_opts *o = g->o;

	memset(ro, 0, sizeof(*ro));
	ro->brief = o->brief;
	ro->bsd = o->bsd;
	ro->demangle = o->demangle;
	ro->inline_file_names = o->inline_file_names;
	ro->line_granularity = line;
	ro->print_path = o->print_path;
	ro->ignore_zeros = o->ignore_zeros;
	ro->width = o->width;
	ro->leading_char = sp_image_target(g->im)->leading_char;
	ro->graph_split = o->graph_split;
}

/* The call graph (and its index) from the function view with --precise -l,
 * else from the main one. */
/*
 * Source files of the symbols (deferred while the symbol table was built,
 * see sp_gprof_symopts.defer_files). The flat profile and the call graph
 * print them only with -l or --inline-file-names; the index prints those of
 * static functions. Loading them as late as possible leaves the line table,
 * built on another thread, time to finish while those reports are printed.
 */
static void load_files(struct gmon_run *g)
{
	if (g->files_loaded)
		return;
	sp_cli_progress("loading DWARF line tables of %s", g->o->image);
	if (g->files_worker) {
		sp_worker_join(g->files_worker);
		g->files_worker = NULL;
	} else {
		sp_image_symtab_files(g->im, g->v.symtab);
	}
	if (g->fv.symtab)
		sp_image_symtab_files(g->im, g->fv.symtab);
	sp_cli_mark("source lines");
	g->files_loaded = 1;
	sp_cli_progress("writing the report");
}

static void files_main(void *job)
{
	struct gmon_run *g = job;

	sp_image_symtab_files(g->im, g->v.symtab);
}

/*
 * The text reports of one function view ask for the symbols' files only
 * in the index, after the call graph. Another thread finds them while the
 * graph is built (it waits for the line table first), and load_files()
 * takes them. Meanwhile this thread reads the symbol table but none of
 * what that sets (the symbols' file and line, the table's files and
 * their names), and asks the image for no lines. Debugging output, the
 * other views, -c and the other outputs keep the plain order.
 */
static void files_ahead(struct gmon_run *g)
{
	const struct sp_opts *o = g->o;

	if (g->files_loaded || !g->v.symtab || !g->v.symtab->npending || g->fv.symtab ||
	    g->lv.symtab || !plain_text(o) || o->static_cg || o->debug || !files_wanted(o))
		return;
	g->files_worker = sp_worker_start(files_main, g);
}

static void print_graph(struct gmon_run *g, struct sp_report *r, int graph, int index)
{
	struct sp_report fr;
	struct sp_report_opts fro;
	struct sp_report *gr = r;

	if (g->fv.cg) {
		report_opts(g, &fro, 0);
		sp_report_init(&fr, g->out, g->fv.cg, &fro);
		fr.first_output = r->first_output;
		gr = &fr;
	}
	if (graph) {
		sp_report_graph(gr);
		sp_cli_mark("call graph text");
	}
	if (index) {
		load_files(g);
		sp_report_index(gr);
		sp_cli_mark("index");
	}
	if (gr != r) {
		r->first_output = fr.first_output;
		sp_report_release(&fr);
	}
}

static void print_text(struct gmon_run *g, struct sp_report *r)
{
	struct sp_opts *o = g->o;
	int graph = g->v.cg->have_arcs && (o->output_style & STYLE_CALL_GRAPH);

	if (graph && o->bsd)
		print_graph(g, r, 1, 0);
	if (o->output_style & STYLE_FLAT_PROFILE) {
		sp_report_flat(r);
		sp_cli_mark("flat profile");
	}
	if (graph)
		print_graph(g, r, !o->bsd, 1);
	if (o->output_style &
	    (STYLE_EXEC_COUNTS | STYLE_ANNOTATED_SOURCE | STYLE_FUNCTION_ORDER | STYLE_FILE_ORDER))
		load_files(g);
	if (o->output_style & STYLE_EXEC_COUNTS)
		sp_report_exec_counts(r, g->v.specs);
	if (o->output_style & STYLE_ANNOTATED_SOURCE) {
		fflush(g->out);
		print_annotated(g, &r->first_output);
	}
	if (o->output_style & STYLE_FUNCTION_ORDER)
		sp_report_function_ordering(r);
	if (o->output_style & STYLE_FILE_ORDER)
		sp_report_file_ordering(r, g->map);
}

/*
 * --format=proto: the histogram's samples per function (and their time
 * when the histogram counts seconds), the arcs' calls; symbol addresses
 * are the executable's.
 */
static void proto_opts(struct gmon_run *g, const struct sp_cg *cg, struct sp_proto_opts *po)
{
	double hz = cg->hz > 0 ? (double)cg->hz : 1;

	memset(po, 0, sizeof(*po));
	po->values[po->nvalues++] =
		(struct sp_proto_value){"samples", "count", SP_PROTO_SELF, 0, 0, 1};
	if (!strcmp(cg->dimen, "seconds")) {
		po->values[po->nvalues++] = (struct sp_proto_value){
			"cpu", "nanoseconds", SP_PROTO_SELF, 0, 0, 1e9 / hz};
		po->period_type = "cpu";
		po->period_unit = "nanoseconds";
		po->period = (int64_t)(1e9 / hz + 0.5);
	}
	po->values[po->nvalues++] =
		(struct sp_proto_value){"calls", "count", SP_PROTO_CALLS, 0, 0, 1};
	po->default_value = po->nvalues > 2 ? 1 : 0;
	po->demangle = g->o->demangle && !g->o->bsd;
	po->executable = g->o->image;
	po->addresses = 1;
	if (g->im)
		po->build_id = sp_image_build_id(g->im, &po->build_id_len);
}

/* The model the shared outputs (render.c) read. */
static void gmon_model(struct gmon_run *g, const char *const *files, size_t nfiles,
		       struct sp_cli_model *m)
{
	memset(m, 0, sizeof(*m));
	m->cg = g->v.cg; /* what gprof would build, as --format=json prints it */
	report_opts(g, &m->ro, g->o->line);
	m->meta.format = "gmon";
	m->meta.executable = g->o->image;
	m->meta.files = files;
	m->meta.nfiles = nfiles;
	m->meta.metric = "time";
	m->meta.unit = m->cg->dimen;
	m->meta.line_cg = g->o->line ? g->v.cg : g->lv.cg;
	proto_opts(g, m->cg, &m->proto);
}

/* The outputs render.c writes (--format other than text, --html, --diff). */
static int render(struct gmon_run *g)
{
	struct sp_cli_model m;
	struct sp_cli_sources src;
	char **dirs = NULL;
	size_t ndirs = 0;
	int rc;

	load_files(g);
	gmon_model(g, g->o->profiles, g->o->nprofiles, &m);
	memset(&src, 0, sizeof(src));
	if (g->o->html) {
		ndirs = sp_cli_source_dirs(g->o, &dirs);
		sp_cli_sources_build(&src, m.cg, g->im, g->prof, (const char *const *)dirs, ndirs,
				     10);
		m.sources = src.v;
		m.nsources = src.n;
	}
	rc = sp_cli_render(g->o, &m, g->out);
	sp_cli_sources_release(&src);
	sp_cli_source_dirs_free(dirs, ndirs);
	return rc;
}

static int print_reports(struct gmon_run *g, int first_output)
{
	struct sp_opts *o = g->o;
	struct sp_report_opts ro;
	struct sp_report r;

	if (g->out == stdout && isatty(STDOUT_FILENO))
		sp_cli_progress_stop(); /* the report goes to the same screen */
	/* gprof's text, unless --html alone or --diff (or --format) replaces it */
	if (o->out_format == SP_OUT_TEXT && !o->diff && (!o->html || o->format_given)) {
		if (o->line || o->inline_file_names)
			load_files(g);
		report_opts(g, &ro, o->line);
		if (g->names && g->v.cg->nsyms <= sp_demangle_batch_len(g->names))
			ro.demangled = g->names;
		sp_report_init(&r, g->out, g->v.cg, &ro);
		r.first_output = first_output;
		print_text(g, &r);
		sp_report_release(&r);
	}
	return sp_cli_renders(o) ? render(g) : 0;
}

static void gmon_run_release(struct gmon_run *g)
{
	/* first: the threads read the profile and the symbols */
	if (g->early) /* the symbols failed: what it read is not reported */
		sp_worker_join(g->early->worker);
	free(g->early);
	g->early = NULL;
	sp_worker_join(g->files_worker);
	g->files_worker = NULL;
	sp_demangle_batch_free(g->names); /* before the symbols: its thread reads their names */
	g->names = NULL;
	view_release(&g->v);
	view_release(&g->fv);
	view_release(&g->lv);
	sp_cg_static_free(g->scanner);
	sp_profile_free(g->prof);
	sp_function_map_free(g->map);
	sp_image_free(g->im);
}

static int gmon_pipeline(struct sp_opts *o)
{
	struct gmon_run g;
	int first_output = 1, rc;

	memset(&g, 0, sizeof(g));
	sp_cli_mark(NULL);
	g.o = o;
	if (!(g.out = sp_cli_open_output(o)))
		return 1;
	if (o->output_style & STYLE_SUMMARY_FILE)
		o->line = 1;
	sp_cli_progress_start(o, 4 + (int)o->nprofiles + (o->diff ? 4 : 0));
	rc = load_symbols(&g);
	if (!rc)
		rc = read_profiles(&g, &first_output);
	if (!rc)
		files_ahead(&g);
	if (!rc) {
		choose_styles(&g);
		if (o->output_style & STYLE_SUMMARY_FILE)
			rc = write_sum(&g);
	}
	if (!rc)
		rc = build_graph(&g);
	if (!rc)
		rc = print_reports(&g, first_output);
	rc = sp_cli_close_output(o, g.out, rc);
	gmon_run_release(&g);
	sp_cli_progress_stop();
	sp_cli_mark("release");
	return rc;
}

static void base_release(void *owner)
{
	struct gmon_run *g = owner;

	gmon_run_release(g);
	free(g->o->profiles);
	free(g->o);
	free(g);
}

/*
 * --diff: the base profile through the same pipeline, with the image,
 * symbol and graph options of the run but none of its outputs.
 */
static int gmon_base(struct sp_opts *o, const char *path, struct sp_cli_model *m)
{
	struct gmon_run *g = sp_xcalloc(1, sizeof(*g));
	struct sp_opts *bo = sp_xmalloc(sizeof(*bo));
	int first_output = 1, rc;

	*bo = *o;
	bo->profiles = sp_xmalloc(sizeof(*bo->profiles));
	bo->profiles[0] = path;
	bo->nprofiles = 1;
	bo->output_style = 0;
	bo->user_specified = 0;
	g->o = bo;
	g->out = stdout;
	memset(m, 0, sizeof(*m));
	m->owner = g;
	m->release = base_release;
	rc = load_symbols(g);
	if (!rc)
		rc = read_profiles(g, &first_output);
	if (!rc) {
		choose_styles(g);
		rc = build_graph(g);
	}
	if (rc)
		return rc;
	load_files(g);
	gmon_model(g, bo->profiles, 1, m);
	m->owner = g;
	m->release = base_release;
	return 0;
}

static int check_options(const struct sp_opts *o)
{
	if ((o->user_specified & STYLE_FUNCTION_ORDER) && (o->user_specified & STYLE_FILE_ORDER)) {
		sp_cli_error("only one of --function-ordering and --file-ordering may be given");
		return 2;
	}
	return 0;
}

/* GNU gmon.out files have a magic number; BSD ones have none, and gprof
 * takes any file for one: the reader judges the files nothing else
 * recognises. */
const struct sp_cli_format sp_cmd_gmon_format = {
	.name = "gmon",
	.noun = "gmon profile",
	.plural = "gmon profiles",
	.probe = sp_fmt_gmon_probe,
	.image = 1,
	.fallback = 1,
	.outputs = SP_CLI_OUT_SHARED,
	.measures = "time",
	.check_options = check_options,
	.run = gmon_pipeline,
	.model = gmon_base,
};
