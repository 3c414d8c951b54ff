/* SPDX-License-Identifier: GPL-3.0-or-later */
/* JSON helpers shared by the JSON renderers (private to report/). */
#ifndef SYMPROF_REPORT_JSON_H
#define SYMPROF_REPORT_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "symprof/report.h"

/* Strings and numbers: escape.h. */
/* The document's opening: "format" to "metric" (no trailing comma). */
void sp_json_head(struct sp_report *r, const struct sp_report_meta *m);

/* What --format=json says of a function (json.c). */
struct sp_json_fn {
	double self, children;	  /* in the metric's unit */
	uint64_t calls;		  /* "calls" (aprof: every activation) */
	uint64_t recursive_calls; /* "recursive_calls": calls from itself */
	uint64_t outside_calls;	  /* the others (gprof's "called") */
};

/*
 * Function (symbol node) i of cg as --format=json lists it, so that the
 * HTML page and the diff show the same numbers: from the graph, or the
 * model's own (m->fn_costs: aprof's self cost, total cost and
 * activations). Returns 0 when the JSON leaves the function out (not
 * listed in m->fn_costs; with ignore_zeros, nothing at all otherwise).
 */
int sp_json_fn(const struct sp_cg *cg, const struct sp_report_meta *m, int ignore_zeros, size_t i,
	       struct sp_json_fn *out);

#endif
