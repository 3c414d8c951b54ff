/* SPDX-License-Identifier: GPL-3.0-or-later */
/* JSON helpers shared by the JSON renderers (private to report/). */
#ifndef SYMPROF_REPORT_JSON_H
#define SYMPROF_REPORT_JSON_H

#include <stdio.h>

#include "symprof/report.h"

/* A JSON string (NULL: null). */
void sp_json_str(FILE *out, const char *s);
/* A JSON number with 10 significant digits (NaN, infinities: null). */
void sp_json_num(FILE *out, double v);
/* The document's opening: "format" to "metric" (no trailing comma). */
void sp_json_head(struct sp_report *r, const struct sp_report_meta *m);
/* The aprof document (report/json-aprof.c). */
void sp_json_aprof(struct sp_report *r, const struct sp_report_meta *m);

#endif
