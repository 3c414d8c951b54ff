/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=flamegraph: a flame graph as one self-contained SVG, in the
 * layout of Brendan Gregg's flamegraph.pl (root at the bottom, siblings in
 * name order, width proportional to the value):
 *
 *   <svg class="sp-flame" data-total=T data-width=W data-unit=U
 *        data-scale=S data-dimen=D ...>     (T * S = the total in D)
 *     <style>assets/flame.css</style>
 *     title, "Reset zoom", a search box (an XHTML <input> in a
 *     <foreignObject>), the matched share, the details line
 *     <g class="frames">
 *       <g class="f" data-x=START data-v=VALUE data-d=DEPTH data-n=NAME>
 *         <title>NAME\nVALUE UNIT (AMOUNT DIMEN), PCT%</title>
 *         <rect .../><text ...>label</text></g> ...
 *     </g>
 *     <script>assets/flame.js, then spFlameInit(the svg)</script>
 *   </svg>
 *
 * The frames are drawn in full view without the script; the script adds
 * hover details, zoom and search. Embedded in the HTML report (o->embedded)
 * the prolog and the script are left out: the page has them once.
 */
#include "symprof/flame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assets.h"
#include "escape.h"
#include "symprof/alloc.h"
#include "symprof/sort.h"
#include "symprof/strtab.h"

#define FRAME_H 16
#define PAD 10
#define TOP 60
#define BOTTOM 34

struct svg {
	struct sp_flame *f;
	FILE *out;
	int width;
	double total, min_value;
	double *x; /* per node: start, in value units */
	int height;
};

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct sp_flame *f = ctx;

	return strcmp(f->nodes[*(const uint32_t *)a].name, f->nodes[*(const uint32_t *)b].name);
}

/* x of every node: children side by side in name order from the parent's x. */
static void layout(struct svg *s)
{
	struct sp_flame *f = s->f;
	uint32_t *kids = NULL;
	size_t alloc = 0, i;

	s->x = sp_xcalloc(f->len + 1, sizeof(double));
	for (i = 0; i < f->len; i++) {
		size_t n = 0, k;
		uint32_t c;
		double x = s->x[i];

		for (c = f->nodes[i].first_child; c != SP_FLAME_NONE;
		     c = f->nodes[c].next_sibling) {
			SP_ALLOC_GROW(kids, n + 1, alloc);
			kids[n++] = c;
		}
		sp_sort(kids, n, sizeof(*kids), cmp_name, f);
		for (k = 0; k < n; k++) {
			s->x[kids[k]] = x;
			x += f->nodes[kids[k]].value;
		}
	}
	free(kids);
}

/* flamegraph.pl's "hot" palette, chosen by a hash of the name. */
static void frame_color(const char *name, int estimated, char out[24])
{
	uint64_t h = sp_hash_bytes(name, strlen(name));
	unsigned r = 205 + (unsigned)(h % 50), g = (unsigned)((h >> 8) % 230),
		 b = (unsigned)((h >> 16) % 55);

	if (!strcmp(name, "all") || name[0] == '[')
		snprintf(out, 24, "rgb(200,200,200)");
	else if (estimated)
		snprintf(out, 24, "rgb(%u,%u,%u)", r, 100 + g / 2, b + 20);
	else
		snprintf(out, 24, "rgb(%u,%u,%u)", r, g, b);
}

static void put_amount(const struct sp_flame *f, double v, FILE *out)
{
	if (v == floor(v) && v < 1e15)
		fprintf(out, "%.0f", v);
	else
		sp_esc_num(out, v, 6);
	fprintf(out, " %s", f->unit);
	if (f->dimen && f->unit_scale != 1) {
		fputs(" (", out);
		sp_esc_num(out, v * f->unit_scale, 4);
		fprintf(out, " %s)", f->dimen);
	}
}

static void put_frame(struct svg *s, uint32_t i)
{
	const struct sp_flame_node *n = &s->f->nodes[i];
	double scale = (s->width - 2 * PAD) / s->total;
	double x = PAD + s->x[i] * scale, w = n->value * scale;
	int y = s->height - BOTTOM - (int)(n->depth + 1) * FRAME_H;
	size_t chars = w > 6 ? (size_t)((w - 6) / 7) : 0, len = strlen(n->name);
	char fill[24], *label;

	frame_color(n->name, s->f->estimated, fill);
	fprintf(s->out, "<g class=\"f\" data-x=\"%.10g\" data-v=\"%.10g\" data-d=\"%u\" data-n=\"",
		s->x[i], n->value, n->depth);
	sp_esc_xml(s->out, n->name);
	fputs("\"><title>", s->out);
	sp_esc_xml(s->out, n->name);
	fputs("\n", s->out);
	put_amount(s->f, n->value, s->out);
	fprintf(s->out,
		", %.2f%%</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		"rx=\"2\" fill=\"%s\"/><text x=\"%.2f\" y=\"%d\">",
		100.0 * n->value / s->total, x, y, w, FRAME_H - 1, fill, x + 3, y + 11);
	if (chars >= 3) {
		label = sp_xstrndup(n->name, chars < len ? chars - 2 : len);
		sp_esc_xml(s->out, label);
		if (chars < len)
			fputs("..", s->out);
		free(label);
	}
	fputs("</text></g>\n", s->out);
}

static void put_head(struct svg *s, int embedded)
{
	FILE *out = s->out;
	const struct sp_flame *f = s->f;

	if (!embedded)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n", out);
	fprintf(out,
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" class=\"sp-flame\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" data-width=\"%d\" "
		"data-total=\"%.10g\" data-unit=\"",
		s->width, s->height, s->width, s->height, s->width, f->nodes[0].value);
	sp_esc_xml(out, f->unit);
	fprintf(out, "\" data-scale=\"%.10g\" data-dimen=\"", f->unit_scale);
	sp_esc_xml(out, f->dimen ? f->dimen : "");
	fprintf(out, "\" data-estimated=\"%d\">\n", f->estimated);
	if (!embedded) {
		fputs("<style>\n", out);
		sp_esc_xml(out, sp_asset_flame_css);
		fputs("</style>\n", out);
	}
	fprintf(out, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>\n", s->width,
		s->height);
	fprintf(out, "<text class=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">Flame graph",
		s->width / 2);
	if (f->title && *f->title) {
		fputs(": ", out);
		sp_esc_xml(out, f->title);
	}
	fputs("</text>\n", out);
	if (!(f->nodes[0].value > 0)) {
		fprintf(out,
			"<text class=\"note\" x=\"%d\" y=\"44\" text-anchor=\"middle\">no samples "
			"in this profile</text>\n",
			s->width / 2);
	} else if (f->note) {
		fprintf(out, "<text class=\"note\" x=\"%d\" y=\"44\" text-anchor=\"middle\">",
			s->width / 2);
		sp_esc_xml(out, f->note);
		fputs("</text>\n", out);
	} else if (f->estimated) {
		fprintf(out,
			"<text class=\"note\" x=\"%d\" y=\"44\" text-anchor=\"middle\">estimated "
			"from "
			"the call graph: gprof's assumption that every call of a function costs "
			"the "
			"same</text>\n",
			s->width / 2);
	}
	fprintf(out, "<text class=\"btn reset\" x=\"%d\" y=\"24\">Reset zoom</text>\n", PAD);
	fprintf(out,
		"<foreignObject x=\"%d\" y=\"8\" width=\"240\" height=\"24\"><input "
		"xmlns=\"http://www.w3.org/1999/xhtml\" class=\"search\" type=\"search\" "
		"placeholder=\"Search (regular expression)\"/></foreignObject>\n",
		s->width - PAD - 240);
	fprintf(out, "<text class=\"matched\" x=\"%d\" y=\"48\" text-anchor=\"end\"> </text>\n",
		s->width - PAD);
	fprintf(out, "<text class=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, s->height - 12);
}

void sp_flame_write_svg(struct sp_flame *f, FILE *out, const struct sp_flame_svg_opts *o)
{
	struct svg s;
	size_t i;

	sp_flame_finish(f);
	memset(&s, 0, sizeof(s));
	s.f = f;
	s.out = out;
	s.width = o && o->width > 0 ? o->width : 1200;
	s.total = f->nodes[0].value > 0 ? f->nodes[0].value : 1;
	s.min_value = s.total * 0.1 / (s.width - 2 * PAD);
	s.height = TOP + (int)(f->max_depth + 1) * FRAME_H + BOTTOM;
	layout(&s);
	put_head(&s, o && o->embedded);
	fputs("<g class=\"frames\">\n", out);
	for (i = 0; i < f->len; i++)
		if (i == 0 || f->nodes[i].value >= s.min_value)
			put_frame(&s, (uint32_t)i);
	fputs("</g>\n", out);
	if (!(o && o->embedded)) {
		fputs("<script><![CDATA[\n", out);
		fputs(sp_asset_flame_js, out);
		fputs("spFlameInit(document.documentElement);\n]]></script>\n", out);
	}
	fputs("</svg>\n", out);
	free(s.x);
}
