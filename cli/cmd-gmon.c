/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The gmon.out pipeline, in gprof 2.40's order (gprof.md section 0):
 *
 *   image -> symbol table -> symspecs -> read and sum every profile
 *   (printing -i info per file) -> default output styles -> -s gmon.sum
 *   -> histogram and call graph -> [BSD call graph] flat profile
 *   [call graph] index -> exec counts -> ...
 *
 * The work done ahead on workers is in gmon-ahead.c, the reports in
 * gmon-print.c (gmon.h); this file is the order of the steps.
 */
#include "gmon.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"

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

/*
 * Whether the reports ask for no source file but those of the static
 * functions the index names: gprof's text without -l,
 * --inline-file-names, the styles that list files (exec counts, orders,
 * annotated source) or specs naming files. `style` is the output style, 0
 * while the profiles are unread: then most likely the flat profile and
 * the call graph (gprof chooses the exec counts for a profile with
 * neither, rare enough that it may pay for asking twice).
 */
static int static_files_only(const struct sp_opts *o, unsigned style)
{
	unsigned plain = STYLE_FLAT_PROFILE | STYLE_CALL_GRAPH | STYLE_SUMMARY_FILE;

	return !(style & ~plain) && !o->line && !o->inline_file_names && !o->precise &&
	       !o->static_cg && o->out_format == SP_OUT_TEXT && !o->html && !o->diff && !o->debug &&
	       !specs_need_files(o);
}

/*
 * -l, gprof's text without -z: the line symbols that no bin, arc or basic
 * block reaches leave the table before the graph is built (see
 * sp_cg_gmon_mark_used()); on a program of a few thousand functions they
 * are nine in ten of its symbols, each a node, a place in the sorts and a
 * name. Not where anything may show them or look at them all: -z, specs
 * (they may name one), -c (it scans every symbol), --precise, the other
 * outputs and styles, -R's map, --diff, the debugging lines.
 * SYMPROF_DROP_LINES=0 keeps them (to compare).
 */
static int may_drop_lines(const struct sp_opts *o)
{
	const char *env = getenv("SYMPROF_DROP_LINES");

	return o->line && o->ignore_zeros && !o->static_cg && !o->precise && !o->nspecs &&
	       o->out_format == SP_OUT_TEXT && !o->html && !o->diff && !o->debug &&
	       !o->function_map && !(env && !strcmp(env, "0"));
}

/* The output style choose_styles() will set, once the profiles are read. */
static unsigned final_style(const struct gmon_run *g)
{
	int in = g->st.input_flags;

	if (g->o->output_style)
		return g->o->output_style;
	if (!(in & (SP_GMON_INPUT_HISTOGRAM | SP_GMON_INPUT_CALL_GRAPH)))
		return STYLE_EXEC_COUNTS;
	return (((in & SP_GMON_INPUT_HISTOGRAM) ? STYLE_FLAT_PROFILE : 0) |
		((in & SP_GMON_INPUT_CALL_GRAPH) ? STYLE_CALL_GRAPH : 0)) &
	       ~(unsigned)g->o->user_specified;
}

static int build_view(struct gmon_run *g, struct gmon_view *v, int line)
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
	so.statics_only = so.files_only && static_files_only(o, o->output_style);
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

static void gmon_read_opts(const struct gmon_run *g, struct sp_gmon_read_opts *ro)
{
	const struct sp_target *t = sp_image_target(g->im);

	memset(ro, 0, sizeof(*ro));
	ro->target.ptr_size = t->ptr_size;
	ro->target.big_endian = t->big_endian;
	ro->target.sign_extend = t->sign_extend;
	ro->format = g->o->file_format;
	ro->debug = (g->o->debug & SP_DBG_SAMPLE) ? stderr : NULL;
}

static int load_symbols(struct gmon_run *g)
{
	struct sp_opts *o = g->o;
	struct sp_error err = SP_ERROR_INIT;
	struct sp_gmon_read_opts ro;
	int rc;

	sp_cli_progress("reading the symbols of %s", o->image);
	g->im = sp_image_open(o->image, &o->search, &err);
	if (!g->im)
		return fail(&err);
	sp_cli_mark("open image");
	/* -l names every line of .text: its tables from the index cache
	 * (the other reports ask a few lines, cheaper from the DWARF) */
	if (o->line)
		sp_image_set_cache(g->im, o->cache_dir);
	gmon_read_opts(g, &ro);
	sp_cli_gmon_read_ahead(g, &ro);
	g->drop_lines = may_drop_lines(o);
	if (o->function_map && !(g->map = sp_function_map_read(o->function_map, &err)))
		return fail(&err);
	rc = build_view(g, &g->v, o->line);
	/* gprof refuses such a file ("has no symbols"); the report is
	 * printed, but not as if its names could be trusted */
	if (!rc && sp_image_dynsym_only(g->im))
		sp_cli_error("warning: '%s' has no symbol table (.symtab) and no debug file "
			     "with one: functions are named from .dynsym, the exported ones "
			     "alone, and the others' time and calls go to the exported "
			     "function before them",
			     o->image);
	if (!rc && o->precise && o->line)
		rc = build_view(g, &g->fv, 0);
	if (!rc && !o->line && (o->output_style & STYLE_ANNOTATED_SOURCE) &&
	    (o->precise || o->out_format == SP_OUT_JSON))
		rc = build_view(g, &g->lv, 1);
	/* demangled by index: once the table is final */
	if (!rc && !g->drop_lines)
		sp_cli_gmon_demangle_ahead(g);
	return rc;
}

static void view_release(struct gmon_view *v)
{
	sp_cg_free(v->cg);
	sp_symspecs_free(v->specs);
	sp_symtab_free(v->symtab);
	free(v->fold);
}

/*
 * Where a check below found the profile another program's: the file
 * (NULL: the sum of several, none of which fails alone) and whether to
 * say so (a check runs quietly first, then again on the file to blame).
 */
struct mismatch_report {
	const char *file;
	int quiet;
};

static void mismatch(const struct gmon_run *g, const struct mismatch_report *m, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));

static void mismatch(const struct gmon_run *g, const struct mismatch_report *m, const char *fmt,
		     ...)
{
	struct sp_buf b = SP_BUF_INIT;
	va_list ap;

	if (m->quiet)
		return;
	va_start(ap, fmt);
	sp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (m->file)
		sp_cli_error("profile '%s' does not match '%s': %s", m->file, g->o->image, b.buf);
	else
		sp_cli_error("the profiles summed do not match '%s': %s", g->o->image, b.buf);
	sp_buf_release(&b);
}

/*
 * glibc's startup code (gcrt1.o) profiles [__executable_start, etext),
 * rounded to the histogram's 4-byte granularity: a GNU gmon.out whose
 * histogram starts there but ends elsewhere was written by another
 * program linked at the same base, even when it falls inside this one's
 * text (gprof prints nonsense then). Only checked when the executable
 * defines both symbols (a stripped one does not) and every profile is GNU
 * gmon.
 */
static int glibc_range_differs(const struct gmon_run *g, const struct sp_profile *prof,
			       const struct mismatch_report *m)
{
	uint64_t etext, start, lo, hi;
	size_t i;

	for (i = 0; i < prof->ninputs; i++)
		if (!prof->inputs[i].format || strcmp(prof->inputs[i].format, "gmon"))
			return 0;
	if (sp_image_symbol_value(g->im, "etext", &etext) < 0 ||
	    sp_image_symbol_value(g->im, "__executable_start", &start) < 0)
		return 0;
	lo = start & ~(uint64_t)3;
	hi = (etext + 3) & ~(uint64_t)3;
	for (i = 0; i < prof->nhists; i++) {
		const struct sp_hist *h = &prof->hists[i];

		/* a histogram from __executable_start is glibc's; one that
		 * starts elsewhere was made otherwise (monstartup() called by
		 * hand, another libc, a hand-made file): not judged */
		if (h->low_pc != lo || h->high_pc == hi)
			continue;
		mismatch(g, m,
			 "its histogram covers [%#llx, %#llx), and this program's profiles cover "
			 "[%#llx, %#llx) (__executable_start to etext)",
			 (unsigned long long)h->low_pc, (unsigned long long)h->high_pc,
			 (unsigned long long)lo, (unsigned long long)hi);
		return 1;
	}
	return 0;
}

/*
 * Samples in bins that hold no code (.text is [lo, hi)): a histogram that
 * reaches past the program's code into its data, and has samples there,
 * is another program's or damaged (gprof credits them to the last symbol
 * of its table, or to none, silently); 1 after a message, which gives the
 * first such bin's offset in the file (known when one file was read).
 */
static int samples_outside_code(const struct gmon_run *g, const struct sp_profile *prof,
				uint64_t lo, uint64_t hi, const struct mismatch_report *m)
{
	uint64_t n = 0, first = 0, first_off = 0;
	char where[40] = "";
	size_t i, k;

	for (i = 0; i < prof->nhists; i++) {
		const struct sp_hist *h = &prof->hists[i];

		for (k = 0; k < h->nnonzero; k++) {
			uint64_t a = sp_hist_bin_start(h, h->nonzero[k]),
				 b = sp_hist_bin_start(h, h->nonzero[k] + 1);

			if (!h->counts[k] || (a >= lo && a < hi) || (b > lo && b <= hi) ||
			    sp_image_in_code(g->im, a) || (b > a && sp_image_in_code(g->im, b - 1)))
				continue;
			if (!n++) {
				first = a;
				first_off =
					h->bins_off ? h->bins_off + 2 * (uint64_t)h->nonzero[k] : 0;
			}
		}
	}
	if (!n)
		return 0;
	if (first_off && m->file)
		snprintf(where, sizeof(where), ", offset %#llx", (unsigned long long)first_off);
	mismatch(g, m,
		 "its histogram has samples outside the program's code (%llu bin%s, the first at "
		 "%#llx%s)",
		 (unsigned long long)n, n == 1 ? "" : "s", (unsigned long long)first, where);
	return 1;
}

/* check_match() on one profile (all files summed, or one alone). */
static int profile_mismatch(const struct gmon_run *g, const struct sp_profile *prof,
			    const struct mismatch_report *m)
{
	struct sp_error err = SP_ERROR_INIT;
	uint64_t lo, size, hi;
	size_t i;

	if (g->o->external_symtab || sp_image_text(g->im, &lo, &size, &err) < 0)
		return 0;
	hi = lo + size;
	for (i = 0; i < prof->nhists; i++) {
		const struct sp_hist *h = &prof->hists[i];

		if (h->high_pc <= lo || h->low_pc >= hi) {
			mismatch(g, m,
				 "its histogram covers [%#llx, %#llx), the .text section is "
				 "[%#llx, %#llx)",
				 (unsigned long long)h->low_pc, (unsigned long long)h->high_pc,
				 (unsigned long long)lo, (unsigned long long)hi);
			return 1;
		}
	}
	if (glibc_range_differs(g, prof, m) || samples_outside_code(g, prof, lo, hi, m))
		return 1;
	for (i = 0; i < prof->npcarcs; i++) {
		uint64_t self = prof->pcarcs[i].self_pc;

		/* .text is code: the other sections only for what lies outside */
		if (!(self >= lo && self < hi) && !sp_image_in_code(g->im, self)) {
			mismatch(g, m,
				 "a call-graph record has its callee at %#llx, outside every code "
				 "section",
				 (unsigned long long)self);
			return 1;
		}
	}
	return 0;
}

/*
 * A profile of another program: its histogram misses the executable's
 * text, or has samples where it has no code, or an arc's callee (an mcount
 * call site) lies outside the code. gprof silently prints nonsense for
 * those; symprof stops, naming the file: with several, the first that
 * fails alone (read again: this is the way out, not the common path).
 */
static int check_match(struct gmon_run *g)
{
	struct mismatch_report m = {NULL, 1};
	struct sp_gmon_read_opts ro;
	size_t i;

	if (!profile_mismatch(g, g->prof, &m))
		return 0;
	m.quiet = 0;
	if (g->o->nprofiles == 1) {
		m.file = g->o->profiles[0];
		return profile_mismatch(g, g->prof, &m);
	}
	gmon_read_opts(g, &ro);
	for (i = 0; i < g->o->nprofiles; i++) {
		struct sp_profile *alone = sp_profile_new(SP_PROFILE_GMON);
		struct sp_gmon_state st;
		struct sp_error err = SP_ERROR_INIT;
		int bad;

		memset(&st, 0, sizeof(st));
		m.quiet = 1;
		bad = sp_fmt_gmon_read(alone, &st, g->o->profiles[i], &ro, &err) == 0 &&
		      profile_mismatch(g, alone, &m);
		if (bad) {
			m.quiet = 0;
			m.file = g->o->profiles[i];
			profile_mismatch(g, alone, &m);
		}
		sp_profile_free(alone);
		if (bad)
			return 1;
	}
	m.quiet = 0;
	m.file = NULL;
	return profile_mismatch(g, g->prof, &m);
}

static int read_profiles(struct gmon_run *g, int *first_output)
{
	struct sp_gmon_read_opts ro;
	size_t i;

	if (g->early) {
		if (sp_cli_gmon_read_ahead_join(g))
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
				sp_cli_gmon_print_file_info(g, &g->prof->inputs[before]);
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

/* See may_drop_lines(): compacts g->v's table if the styles chosen are
 * the flat profile and the call graph, and starts demangling its names. */
static void drop_unused_lines(struct gmon_run *g, struct sp_cg_gmon_opts *co,
			      struct sp_cg_dropped *dropped)
{
	if (!(g->o->output_style & ~(STYLE_FLAT_PROFILE | STYLE_CALL_GRAPH)) && g->v.symtab->len) {
		sp_cg_gmon_drop_unused(g->prof, g->v.symtab, co, dropped);
		sp_cli_mark("unused lines");
	}
	sp_cli_gmon_demangle_ahead(g);
}

static int graph_of(struct gmon_run *g, struct gmon_view *v)
{
	struct sp_cg_gmon_opts co;
	struct sp_cg_dropped dropped = {NULL, 0};
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
	if (v == &g->v && g->drop_lines)
		drop_unused_lines(g, &co, &dropped);
	v->cg = sp_cg_from_gmon(g->prof, v->symtab, &co, &err);
	sp_cg_dropped_release(&dropped);
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

static void gmon_run_release(struct gmon_run *g)
{
	sp_cli_gmon_ahead_stop(g); /* first: its workers read the profile and the symbols */
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
	if (!rc) {
		g.static_files = static_files_only(o, final_style(&g));
		sp_cli_gmon_files_ahead(&g, files_wanted(o));
	}
	if (!rc) {
		choose_styles(&g);
		if (o->output_style & STYLE_SUMMARY_FILE)
			rc = write_sum(&g);
	}
	if (!rc)
		rc = build_graph(&g);
	if (!rc)
		rc = sp_cli_gmon_print_reports(&g, first_output);
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
	sp_cli_gmon_load_files(g);
	sp_cli_gmon_model(g, bo->profiles, 1, m);
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
