/* SPDX-License-Identifier: GPL-3.0-or-later */
/* JSON helpers shared by the JSON renderers (private to report/). */
#ifndef SYMPROF_REPORT_JSON_H
#define SYMPROF_REPORT_JSON_H

#include <stdio.h>

#include "symprof/report.h"

/* Strings and numbers: escape.h. */
/* The document's opening: "format" to "metric" (no trailing comma). */
void sp_json_head(struct sp_report *r, const struct sp_report_meta *m);
/* The aprof document (report/json-aprof.c). */
void sp_json_aprof(struct sp_report *r, const struct sp_report_meta *m);

#endif
