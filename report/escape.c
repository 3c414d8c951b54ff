/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Escaping for the renderers that write other languages: JSON (json.c,
 * diff.c, html.c), XML and HTML text (flame graphs, the HTML report) and
 * Graphviz strings (dot.c). Names come from symbol tables and profilers and
 * may hold any byte; the output must still parse.
 */
#include "escape.h"

#include <math.h>

static void json_str(FILE *out, const char *s, int in_html)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else if (c == '<' && in_html)
			fputs("\\u003c", out);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void sp_esc_json_str(FILE *out, const char *s)
{
	json_str(out, s, 0);
}

void sp_esc_json_str_html(FILE *out, const char *s)
{
	json_str(out, s, 1);
}

void sp_esc_json_num(FILE *out, double v)
{
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", out);
	else if (v == 0)
		fputc('0', out);
	else
		fprintf(out, "%.10g", v);
}

void sp_esc_xml(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if (c >= 0x20 || c == '\t' || c == '\n')
				fputc(c, out);
		}
	}
}

void sp_esc_dot(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fputc('\\', out);
		if (c >= 0x20 || c == '\t')
			fputc(c, out);
	}
}

void sp_esc_num(FILE *out, double v, int prec)
{
	char buf[64];

	if (v != v || isinf(v)) {
		fputs("0", out);
		return;
	}
	if (v == 0)
		v = 0; /* no "-0" */
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	fputs(buf, out);
}
