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

#include "symprof/annotate.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

struct gmon_run {
	struct sp_opts *o;
	struct sp_image *im;
	struct sp_symtab *symtab;
	struct sp_symspecs *specs;
	struct sp_profile *prof;
	struct sp_gmon_state st;
	struct sp_cg *cg;
	struct sp_function_map *map;
	FILE *out;
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

static int load_symbols(struct gmon_run *g)
{
	struct sp_opts *o = g->o;
	struct sp_error err = SP_ERROR_INIT;
	struct sp_gprof_symopts so;
	size_t i;

	g->im = sp_image_open(o->image, &err);
	if (!g->im)
		return fail(&err);
	sp_cli_mark("open image");
	if (o->function_map && !(g->map = sp_function_map_read(o->function_map, &err)))
		return fail(&err);
	memset(&so, 0, sizeof(so));
	so.no_static = o->no_static;
	so.ignore_non_functions = o->ignore_non_functions;
	so.line_granularity = o->line;
	so.external_symtab = o->external_symtab;
	so.map = g->map;
	so.debug = (o->debug & SP_DBG_AOUT) ? stderr : NULL;
	so.defer_files = !o->line;
	g->symtab = sp_image_gprof_symtab(g->im, &so, &err);
	if (!g->symtab)
		return fail(&err);
	sp_cli_mark("symbol table");
	g->specs = sp_symspecs_new();
	sp_symspecs_set_leading_char(g->specs, sp_image_target(g->im)->leading_char);
	for (i = 0; i < o->nspecs; i++)
		sp_symspecs_add(g->specs, o->specs[i].spec, o->specs[i].table);
	for (i = 0; i < sizeof(default_excluded) / sizeof(default_excluded[0]); i++) {
		sp_symspecs_add(g->specs, default_excluded[i], SP_EXCL_TIME);
		sp_symspecs_add(g->specs, default_excluded[i], SP_EXCL_GRAPH);
		sp_symspecs_add(g->specs, default_excluded[i], SP_EXCL_FLAT);
	}
	if (specs_need_files(o))
		sp_image_symtab_files(g->im, g->symtab);
	sp_symspecs_resolve(g->specs, g->symtab, (o->debug & SP_DBG_ID) ? stderr : NULL);
	sp_cli_mark("symspecs");
	return 0;
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
 * text, or an arc's callee (an mcount call site) lies outside the code. gprof silently prints nonsense for those; symprof stops.
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

		if (!sp_image_in_code(g->im, self)) {
			sp_cli_error("profile does not match '%s': a call-graph record has its "
				     "callee at %#llx, outside every code section",
				     g->o->image, (unsigned long long)self);
			return 1;
		}
	}
	return 0;
}

static int read_profiles(struct gmon_run *g, int *first_output)
{
	const struct sp_target *t = sp_image_target(g->im);
	struct sp_gmon_read_opts ro;
	size_t i;

	if (g->o->file_format == SP_GMON_PROF) {
		sp_cli_error("file format 'prof' is not supported");
		return 1;
	}
	memset(&ro, 0, sizeof(ro));
	ro.target.ptr_size = t->ptr_size;
	ro.target.big_endian = t->big_endian;
	ro.target.sign_extend = t->sign_extend;
	ro.format = g->o->file_format;
	ro.debug = (g->o->debug & SP_DBG_SAMPLE) ? stderr : NULL;
	g->prof = sp_profile_new(SP_PROFILE_GMON);
	for (i = 0; i < g->o->nprofiles; i++) {
		struct sp_error err = SP_ERROR_INIT;
		size_t before = g->prof->ninputs;

		if (sp_fmt_gmon_read(g->prof, &g->st, g->o->profiles[i], &ro, &err) < 0)
			return fail(&err);
		if ((g->o->output_style & STYLE_GMON_INFO) && g->prof->ninputs > before) {
			print_file_info(g, &g->prof->inputs[before]);
			*first_output = 0;
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

static int build_graph(struct gmon_run *g)
{
	struct sp_cg_gmon_opts co;
	struct sp_error err = SP_ERROR_INIT;

	memset(&co, 0, sizeof(co));
	co.specs = g->specs;
	co.hz = g->st.hz;
	co.hist_scale = g->st.hist_scale;
	co.have_hist = (g->st.input_flags & SP_GMON_INPUT_HISTOGRAM) != 0;
	co.have_arcs = (g->st.input_flags & SP_GMON_INPUT_CALL_GRAPH) != 0;
	co.line_granularity = g->o->line;
	co.debug.out = g->o->debug ? stderr : NULL;
	co.debug.mask = g->o->debug;
	g->cg = sp_cg_from_gmon(g->prof, g->symtab, &co, &err);
	if (!g->cg)
		return fail(&err);
	sp_cli_mark("call graph");
	if ((g->o->output_style & STYLE_FLAT_PROFILE) && !co.have_hist) {
		sp_cli_error("gmon.out file is missing histogram");
		return 1;
	}
	if ((g->o->output_style & STYLE_CALL_GRAPH) && !co.have_arcs) {
		sp_cli_error("gmon.out file is missing call-graph data");
		return 1;
	}
	return 0;
}

/* -I directories then GPROF_PATH, each a ':'-separated list. */
size_t sp_cli_source_dirs(const struct sp_opts *o, char ***out)
{
	const char *gpath = getenv("GPROF_PATH");
	size_t i, n = 0, alloc = 0;
	char **v = NULL;

	for (i = 0; i <= o->nsrc_dirs; i++) {
		const char *list = i < o->nsrc_dirs ? o->src_dirs[i] : gpath, *p;

		if (!list)
			continue;
		for (p = list;;) {
			const char *colon = strchr(p, ':');
			size_t len = colon ? (size_t)(colon - p) : strlen(p);

			if (len) {
				SP_ALLOC_GROW(v, n + 1, alloc);
				v[n++] = sp_xstrndup(p, len);
			}
			if (!colon)
				break;
			p = colon + 1;
		}
	}
	*out = v;
	return n;
}

static void print_annotated(struct gmon_run *g, int *first_output)
{
	struct sp_annotate_opts ao;
	char **dirs;
	size_t i;

	memset(&ao, 0, sizeof(ao));
	ao.ndirs = sp_cli_source_dirs(g->o, &dirs);
	ao.dirs = (const char *const *)dirs;
	ao.all_lines = g->o->all_lines;
	ao.separate_files = g->o->separate_files;
	ao.ignore_zeros = g->o->ignore_zeros;
	ao.min_count = g->o->min_count;
	ao.table_length = g->o->table_length;
	sp_annotate_gprof(g->out, g->cg, g->specs, &ao, first_output);
	for (i = 0; i < ao.ndirs; i++)
		free(dirs[i]);
	free(dirs);
}

static void print_reports(struct gmon_run *g, int first_output)
{
	sp_image_symtab_files(g->im, g->symtab);
	sp_cli_mark("source lines");

	struct sp_opts *o = g->o;
	struct sp_report_opts ro;
	struct sp_report r;
	int graph = g->cg->have_arcs && (o->output_style & STYLE_CALL_GRAPH);

	memset(&ro, 0, sizeof(ro));
	ro.brief = o->brief;
	ro.bsd = o->bsd;
	ro.demangle = o->demangle;
	ro.inline_file_names = o->inline_file_names;
	ro.line_granularity = o->line;
	ro.print_path = o->print_path;
	ro.ignore_zeros = o->ignore_zeros;
	ro.width = o->width;
	ro.leading_char = sp_image_target(g->im)->leading_char;
	sp_report_init(&r, g->out, g->cg, &ro);
	r.first_output = first_output;
	if (o->out_format == SP_OUT_JSON) {
		struct sp_report_meta m = {"gmon", o->image, o->profiles, o->nprofiles,
					   "time", g->cg->dimen, NULL, NULL, 0};
		sp_report_json(&r, &m);
	} else {
		if (graph && o->bsd)
			sp_report_graph(&r);
		if (o->output_style & STYLE_FLAT_PROFILE) {
			sp_report_flat(&r);
			sp_cli_mark("flat profile");
		}
		if (graph) {
			if (!o->bsd)
				sp_report_graph(&r);
			sp_cli_mark("call graph text");
			sp_report_index(&r);
			sp_cli_mark("index");
		}
		if (o->output_style & STYLE_EXEC_COUNTS)
			sp_report_exec_counts(&r, g->specs);
		if (o->output_style & STYLE_ANNOTATED_SOURCE) {
			fflush(g->out);
			print_annotated(g, &r.first_output);
		}
	}
	sp_report_release(&r);
}

static void gmon_run_release(struct gmon_run *g)
{
	sp_cg_free(g->cg);
	sp_profile_free(g->prof);
	sp_symspecs_free(g->specs);
	sp_symtab_free(g->symtab);
	sp_function_map_free(g->map);
	sp_image_free(g->im);
}

int sp_cmd_gmon(struct sp_opts *o)
{
	struct gmon_run g;
	int first_output = 1, rc;

	memset(&g, 0, sizeof(g));
	sp_cli_mark(NULL);
	g.o = o;
	g.out = stdout;
	if ((o->user_specified & STYLE_FUNCTION_ORDER) && (o->user_specified & STYLE_FILE_ORDER)) {
		sp_cli_error("only one of --function-ordering and --file-ordering may be given");
		return 2;
	}
	if (o->output_style & STYLE_SUMMARY_FILE)
		o->line = 1;
	rc = load_symbols(&g);
	if (!rc)
		rc = read_profiles(&g, &first_output);
	if (!rc) {
		choose_styles(&g);
		if (o->output_style & STYLE_SUMMARY_FILE)
			rc = write_sum(&g);
	}
	if (!rc)
		rc = build_graph(&g);
	if (!rc)
		print_reports(&g, first_output);
	if (!rc && (fflush(stdout) != 0 || ferror(stdout))) {
		sp_cli_error("cannot write the report: write error");
		rc = 1;
	}
	gmon_run_release(&g);
	sp_cli_mark("release");
	return rc;
}
