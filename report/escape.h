/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Escaping and number printing shared by the machine-readable and picture
 * renderers (private to report/): JSON strings and numbers, and text for
 * XML/HTML (SVG, dot labels). Each writes to the FILE * it is given.
 */
#ifndef SYMPROF_REPORT_ESCAPE_H
#define SYMPROF_REPORT_ESCAPE_H

#include <stdio.h>

/* All of these write valid UTF-8: a byte that does not start a valid
 * sequence becomes U+FFFD. */

/* A JSON string literal of s, or null when s is NULL. */
void sp_esc_json_str(FILE *out, const char *s);
/* The same, with '<' as \u003c: safe inside an HTML <script> element. */
void sp_esc_json_str_html(FILE *out, const char *s);
/* A JSON number ("%.10g"), or null for NaN and infinities. */
void sp_esc_json_num(FILE *out, double v);
/* s with & < > " ' replaced by entities, control bytes dropped (XML 1.0
 * allows none but tab and newline). */
void sp_esc_xml(FILE *out, const char *s);
/* s inside a Graphviz double-quoted string: " and \ escaped. */
void sp_esc_dot(FILE *out, const char *s);
/* The shortest "%g"-style text of v with up to `prec` significant digits,
 * with no exponent for ordinary magnitudes ("12.5", "0.001", "3"). */
void sp_esc_num(FILE *out, double v, int prec);

#endif
