/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --html=FILE: one self-contained page. Styles, scripts (assets/) and data
 * are inline; the page fetches nothing, so it opens from a file path on a
 * machine without network. Layout:
 *
 *   <header> title, tabs: Summary | Functions | Flame graph [| Source]
 *            [| Differences] [| Cost plots] </header>
 *   <main> one <section> per tab; the flame graph is the SVG of
 *          flame-svg.c, embedded </main>
 *   <script type="application/json" id="sp-data"> the data </script>
 *   <script> assets/flame.js, assets/report.js </script>
 *
 * The data (read by report.js):
 *
 *   {"title", "format", "executable", "files", "metric", "unit", "total",
 *    "graph_total": what totals are a share of (gprof's call-graph time),
 *    "estimated": gprof's proportional times?, "counts": call counts known?,
 *    "functions": [[name, file, line, self, children, calls,
 *                   recursive_calls, cycle]],          (one per function)
 *    "arcs": [[caller, callee, count, self, children]], (function indices)
 *    "sources": [{"fn", "path", "lines": [[line, value, text]]}],
 *    "diff": {"base_files", "base_total", "noise_total", "sampled",
 *             "rows": [[name, self, base_self, total, base_total, calls,
 *                       base_calls, noise_self, noise_total]]},
 *    "plots": [{"name", "x_label", "y_label", "note",
 *               "curves": [{"label", "kind", "line", "band",
 *                           "points": [[x, y]]}]}]}
 *
 * Amounts are in the metric's unit (seconds for gmon time). The functions
 * are those --format=json lists, in the same order, with its numbers
 * (sp_json_fn(): for aprof the analysis's self and total cost); "calls"
 * there are the calls from other functions, as gprof counts them. A 5,000-function
 * profile is about a megabyte of data; the table is built once and
 * re-sorted or filtered in place.
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "assets.h"
#include "escape.h"
#include "json.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/flame.h"
#include "symprof/symbolize.h"

static void put_num(FILE *out, double v)
{
	sp_esc_json_num(out, v);
}

static void data_functions(struct sp_report *r, const struct sp_html_opts *o, const long *ids,
			   FILE *out)
{
	const struct sp_cg *cg = r->cg;
	size_t i;
	int first = 1;

	fputs(",\n\"functions\": [", out);
	for (i = 0; i < cg->nsyms; i++) {
		const struct sp_cg_node *n = &cg->nodes[i];
		struct sp_json_fn fn;

		if (ids[i] < 0)
			continue;
		sp_json_fn(cg, o->meta, r->o->ignore_zeros, i, &fn);
		fputs(first ? "\n[" : ",\n[", out);
		first = 0;
		sp_esc_json_str_html(out, sp_report_display_name(r, (unsigned)i, NULL));
		fputc(',', out);
		sp_esc_json_str_html(out, n->sym->file ? n->sym->file->name : NULL);
		fprintf(out, ",%d,", n->sym->file ? n->sym->line : 0);
		put_num(out, fn.self);
		fputc(',', out);
		put_num(out, fn.children);
		fprintf(out, ",%llu,%llu,%d]", (unsigned long long)fn.outside_calls,
			(unsigned long long)fn.recursive_calls, n->cycle);
	}
	fputs("]", out);
}

static void data_arcs(struct sp_report *r, const long *ids, FILE *out)
{
	const struct sp_cg *cg = r->cg;
	double hz = cg->hz > 0 ? (double)cg->hz : 1;
	size_t i;
	int first = 1;

	fputs(",\n\"arcs\": [", out);
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->parent >= cg->nsyms || a->child >= cg->nsyms || ids[a->parent] < 0 ||
		    ids[a->child] < 0 || a->parent == a->child)
			continue;
		fprintf(out, "%s[%ld,%ld,%llu,", first ? "\n" : ",\n", ids[a->parent],
			ids[a->child], (unsigned long long)a->count);
		first = 0;
		put_num(out, a->time / hz);
		fputc(',', out);
		put_num(out, a->child_time / hz);
		fputc(']', out);
	}
	fputs("]", out);
}

static void data_sources(const struct sp_html_opts *o, const long *ids, FILE *out)
{
	size_t i, j;
	int first = 1;

	fputs(",\n\"sources\": [", out);
	for (i = 0; i < o->nsources; i++) {
		const struct sp_html_source *s = &o->sources[i];

		if (ids[s->node] < 0)
			continue;
		fprintf(out, "%s{\"fn\": %ld, \"path\": ", first ? "\n" : ",\n", ids[s->node]);
		first = 0;
		sp_esc_json_str_html(out, s->path);
		fputs(", \"lines\": [", out);
		for (j = 0; j < s->nlines; j++) {
			fprintf(out, "%s[%d,", j ? "," : "", s->lines[j].line);
			put_num(out, s->lines[j].value);
			fputc(',', out);
			sp_esc_json_str_html(out, s->lines[j].text ? s->lines[j].text : "");
			fputc(']', out);
		}
		fputs("]}", out);
	}
	fputs("]", out);
}

static void data_diff(const struct sp_diff *d, FILE *out)
{
	size_t i;

	fputs(",\n\"diff\": {\"base_files\": [", out);
	for (i = 0; i < d->base_meta.nfiles; i++) {
		if (i)
			fputc(',', out);
		sp_esc_json_str_html(out, d->base_meta.files[i]);
	}
	fputs("], \"base_total\": ", out);
	put_num(out, d->base_total);
	fputs(", \"noise_total\": ", out);
	put_num(out, d->noise_total);
	fprintf(out, ", \"sampled\": %s, \"rows\": [", d->sampled ? "true" : "false");
	for (i = 0; i < d->len; i++) {
		const struct sp_diff_row *r = &d->rows[i];

		fputs(i ? ",\n[" : "\n[", out);
		sp_esc_json_str_html(out, r->name);
		fputc(',', out);
		put_num(out, r->self);
		fputc(',', out);
		put_num(out, r->base_self);
		fputc(',', out);
		put_num(out, r->total);
		fputc(',', out);
		put_num(out, r->base_total);
		fprintf(out, ",%llu,%llu,", (unsigned long long)r->calls,
			(unsigned long long)r->base_calls);
		put_num(out, r->noise_self);
		fputc(',', out);
		put_num(out, r->noise_total);
		fputc(']', out);
	}
	fputs("]}", out);
}

static void xy_points(FILE *out, const double *x, const double *y, size_t n)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < n; i++) {
		fputs(i ? ",[" : "[", out);
		put_num(out, x[i]);
		fputc(',', out);
		put_num(out, y[i]);
		fputc(']', out);
	}
	fputc(']', out);
}

static void data_curve(const struct sp_html_curve *c, FILE *out)
{
	fputs("{\"label\": ", out);
	sp_esc_json_str_html(out, c->label ? c->label : "");
	fputs(", \"kind\": ", out);
	sp_esc_json_str_html(out, c->kind ? c->kind : c->line ? "fit" : "points");
	fprintf(out, ", \"line\": %s, \"band\": %s, \"points\": ", c->line ? "true" : "false",
		c->band ? "true" : "false");
	xy_points(out, c->x, c->y, c->n);
	fputc('}', out);
}

static void data_plots(const struct sp_html_opts *o, FILE *out)
{
	size_t i, k;

	fputs(",\n\"plots\": [", out);
	for (i = 0; i < o->nplots; i++) {
		const struct sp_html_plot *p = &o->plots[i];

		fputs(i ? ",\n{\"name\": " : "\n{\"name\": ", out);
		sp_esc_json_str_html(out, p->name);
		fputs(", \"x_label\": ", out);
		sp_esc_json_str_html(out, p->x_label ? p->x_label : "input size");
		fputs(", \"y_label\": ", out);
		sp_esc_json_str_html(out, p->y_label ? p->y_label : "cost");
		fputs(", \"note\": ", out);
		sp_esc_json_str_html(out, p->note);
		fputs(", \"curves\": [", out);
		for (k = 0; k < p->ncurves; k++) {
			if (k)
				fputc(',', out);
			data_curve(&p->curves[k], out);
		}
		fputs("]}", out);
	}
	fputs("]", out);
}

static void data_head(struct sp_report *r, const struct sp_html_opts *o, FILE *out)
{
	const struct sp_report_meta *m = o->meta;
	const struct sp_cg *cg = r->cg;
	size_t i;

	fputs("{\"title\": ", out);
	sp_esc_json_str_html(out, m->executable);
	fputs(", \"format\": ", out);
	sp_esc_json_str_html(out, m->format);
	fputs(", \"executable\": ", out);
	sp_esc_json_str_html(out, m->executable);
	fputs(", \"files\": [", out);
	for (i = 0; i < m->nfiles; i++) {
		if (i)
			fputc(',', out);
		sp_esc_json_str_html(out, m->files[i]);
	}
	fputs("], \"metric\": ", out);
	sp_esc_json_str_html(out, m->metric);
	fputs(", \"unit\": ", out);
	sp_esc_json_str_html(out, m->unit);
	fputs(", \"total\": ", out);
	if (m->has_total) {
		/* aprof: the run's cost (k), as --format=json and the routine table */
		put_num(out, m->total);
		fputs(", \"graph_total\": ", out);
		put_num(out, m->total);
	} else {
		put_num(out, cg->total_time / (cg->hz > 0 ? (double)cg->hz : 1));
		fputs(", \"graph_total\": ", out);
		put_num(out, (cg->print_time > 0 ? cg->print_time : cg->total_time) /
				     (cg->hz > 0 ? (double)cg->hz : 1));
	}
	fprintf(out, ", \"estimated\": %s, \"counts\": %s, \"call_graph\": %s",
		cg->stack_based ? "false" : "true",
		!cg->stack_based || cg->counts_known ? "true" : "false",
		cg->have_arcs || cg->narcs ? "true" : "false");
}

static void put_data(struct sp_report *r, const struct sp_html_opts *o, FILE *out)
{
	const struct sp_cg *cg = r->cg;
	long *ids = sp_xmalloc((cg->nsyms + 1) * sizeof(*ids)), next = 0;
	size_t i;

	for (i = 0; i < cg->nsyms; i++) {
		struct sp_json_fn fn;

		ids[i] = sp_json_fn(cg, o->meta, r->o->ignore_zeros, i, &fn) ? next++ : -1;
	}
	fputs("<script type=\"application/json\" id=\"sp-data\">", out);
	data_head(r, o, out);
	data_functions(r, o, ids, out);
	data_arcs(r, ids, out);
	data_sources(o, ids, out);
	if (o->diff)
		data_diff(o->diff, out);
	data_plots(o, out);
	fputs("}\n</script>\n", out);
	free(ids);
}

/* aprof names routines, not addresses: it never has source lines */
static int source_tab(const struct sp_html_opts *o)
{
	return !o->meta || !o->meta->no_source;
}

static void put_sections(const struct sp_html_opts *o, FILE *out)
{
	struct sp_flame_svg_opts so = {1200, 1};

	fputs("<main>\n<section id=\"summary\"><h2>Summary</h2><div id=\"summary-body\"></div>"
	      "</section>\n"
	      "<section id=\"functions\"><div class=\"tools\"><input type=\"search\" id=\"filter\" "
	      "placeholder=\"Filter functions by name or file\"><span id=\"flat-count\" "
	      "class=\"muted\"></span><span class=\"muted\">Click a column to sort, a name for "
	      "its callers and callees.</span></div>\n"
	      "<div class=\"split\"><div class=\"left\"><table id=\"flat\"><thead></thead><tbody>"
	      "</tbody></table></div><div class=\"right\"><div id=\"detail\"></div></div></div>"
	      "</section>\n<section id=\"flame\"><h2>Flame graph</h2>",
	      out);
	if (o->flame) {
		fputs("<p class=\"muted\">Hover for details, click to zoom, type in the box to "
		      "search.</p><div class=\"flamebox\">\n",
		      out);
		sp_flame_write_svg(o->flame, out, &so);
		fputs("</div>", out);
	} else {
		fputs("<p class=\"muted\">No flame graph for this profile.</p>", out);
	}
	fputs("</section>\n", out);
	if (source_tab(o))
		fputs("<section id=\"source\"><h2>Annotated source of the hottest functions</h2>"
		      "<div id=\"source-body\"></div></section>\n",
		      out);
	if (o->diff)
		fputs("<section id=\"diff\"><h2>Differences</h2><div id=\"diff-body\"></div>"
		      "</section>\n",
		      out);
	if (o->nplots)
		fputs("<section id=\"plots\"><h2>Cost against input size</h2><div class=\"tools\">"
		      "<label><input type=\"checkbox\" id=\"plot-log\"> logarithmic axes</label>"
		      "</div><div id=\"plots-body\"></div></section>\n",
		      out);
	fputs("</main>\n", out);
}

void sp_report_html(struct sp_report *r, const struct sp_html_opts *o, FILE *out)
{
	const char *title = o->meta && o->meta->executable ? o->meta->executable : "profile";

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>symprof: ",
	      out);
	sp_esc_xml(out, title);
	fputs("</title>\n<style>\n", out);
	fputs(sp_asset_report_css, out);
	fputs(sp_asset_flame_css, out);
	fputs("</style>\n</head>\n<body>\n<header><h1>symprof: ", out);
	sp_esc_xml(out, title);
	fputs("</h1><nav><a href=\"#summary\">Summary</a><a href=\"#functions\">Functions</a>"
	      "<a href=\"#flame\">Flame graph</a>",
	      out);
	if (source_tab(o))
		fputs("<a href=\"#source\">Source</a>", out);
	if (o->diff)
		fputs("<a href=\"#diff\">Differences</a>", out);
	if (o->nplots)
		fputs("<a href=\"#plots\">Cost plots</a>", out);
	fputs("</nav></header>\n", out);
	put_sections(o, out);
	put_data(r, o, out);
	fputs("<script>\n", out);
	fputs(sp_asset_flame_js, out);
	fputs(sp_asset_report_js, out);
	fputs("</script>\n</body>\n</html>\n", out);
}
