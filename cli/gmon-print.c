/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The gmon.out pipeline's reports (gmon.h): gprof's text in gprof's order
 * ([BSD call graph] flat profile [call graph] index, exec counts,
 * annotated source, orderings), or the model the shared outputs read
 * (render.c: --format, --html, --diff).
 */
#include "gmon.h"

#include <string.h>
#include <unistd.h>

#include "symprof/annotate.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

void sp_cli_gmon_print_file_info(struct gmon_run *g, const struct sp_input *in)
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
	ao.warn = sp_cli_warn_hook();
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
		sp_cli_gmon_load_files(g);
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
		sp_cli_gmon_load_files(g);
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
void sp_cli_gmon_model(struct gmon_run *g, const char *const *files, size_t nfiles,
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

	sp_cli_gmon_load_files(g);
	sp_cli_gmon_model(g, g->o->profiles, g->o->nprofiles, &m);
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

int sp_cli_gmon_print_reports(struct gmon_run *g, int first_output)
{
	struct sp_opts *o = g->o;
	struct sp_report_opts ro;
	struct sp_report r;

	if (g->out == stdout && isatty(STDOUT_FILENO))
		sp_cli_progress_stop(); /* the report goes to the same screen */
	/* gprof's text, unless --html alone or --diff (or --format) replaces it */
	if (o->out_format == SP_OUT_TEXT && !o->diff && (!o->html || o->format_given)) {
		if (o->line || o->inline_file_names)
			sp_cli_gmon_load_files(g);
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
