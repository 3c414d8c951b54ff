/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Escaping for the renderers that write other languages: JSON (json.c,
 * diff.c, html.c), XML and HTML text (flame graphs, the HTML report) and
 * Graphviz strings (dot.c). Names come from symbol tables and profilers and
 * may hold any byte; the output must still parse, so bytes that are not
 * valid UTF-8 become U+FFFD and control characters are escaped or dropped.
 */
#include "escape.h"

#include <math.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* The length of the valid UTF-8 sequence at s (s[0] >= 0x80), 0 if none. */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Copies the non-ASCII character at *s (valid UTF-8, else U+FFFD for one
 * byte) and advances *s past it, minus one (the caller's loop adds it). */
static void put_utf8(FILE *out, const char **s)
{
	int n = utf8_len((const unsigned char *)*s);

	if (n) {
		fwrite(*s, 1, (size_t)n, out);
		*s += n - 1;
	} else {
		fputs(REPLACEMENT, out);
	}
}

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
		else if (c >= 0x80)
			put_utf8(out, &s);
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
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			if (c >= 0x80)
				put_utf8(out, &s);
			else if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n')
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
		if (c >= 0x80)
			put_utf8(out, &s);
		else if (c >= 0x20 || c == '\t')
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
