/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Renderers: the texts gprof prints (flat profile, call graph, index, exec
 * counts) and symprof's own formats (JSON). Each renderer reads a struct
 * sp_cg and writes to the FILE * it is given; none touches libdw or the
 * profile readers.
 */
#ifndef SYMPROF_REPORT_H
#define SYMPROF_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "symprof/buf.h"

struct sp_cg;
struct sp_symbol;
struct sp_symspecs;
struct sp_profile;
struct sp_function_map;
struct sp_inputcost;

struct sp_report_opts {
	unsigned brief : 1;             /* -b */
	unsigned bsd : 1;               /* -T */
	unsigned demangle : 1;          /* on by default */
	unsigned inline_file_names : 1; /* --inline-file-names */
	unsigned line_granularity : 1;  /* -l */
	unsigned print_path : 1;        /* -L */
	unsigned ignore_zeros : 1;      /* on unless -z */
	int width;                      /* -w, 80 */
	char leading_char;              /* the target's symbol prefix */
};

/* A node's name as the call graph prints it, with what it was made of. */
struct sp_report_full_name {
	char *text;
	uint32_t len;
	int index, cycle;
	unsigned print_flag;
};

/* State shared by the sections of one report. */
struct sp_report {
	FILE *out;
	struct sp_cg *cg;
	const struct sp_report_opts *o;
	int first_output;   /* no form feed before the first section */
	char **demangled;   /* per symbol node: the name to print (cache) */
	uint32_t *name_len; /* its length */
	struct sp_report_full_name *full; /* per node: sp_report_name()'s text (cache) */
	size_t nfull;
	struct sp_buf line; /* the line being built */
};

void sp_report_init(struct sp_report *r, FILE *out, struct sp_cg *cg,
		    const struct sp_report_opts *o);
void sp_report_release(struct sp_report *r);

/* gprof's flat profile (hist_print). */
void sp_report_flat(struct sp_report *r);
/* gprof's call graph (cg_print); it sorts the arc lists as gprof does. */
void sp_report_graph(struct sp_report *r);
/* gprof's index by function name (cg_print_index). */
void sp_report_index(struct sp_report *r);
/* gprof's exec counts (-C, print_exec_counts). */
void sp_report_exec_counts(struct sp_report *r, const struct sp_symspecs *specs);

/* gprof's suggested function order (-r, cg_print_function_ordering); it
 * uses the graph's placement fields (has_been_placed, nuses, chains). */
void sp_report_function_ordering(struct sp_report *r);
/* gprof's suggested object file order (-R, cg_print_file_ordering); `map`
 * is the -R map the symbol table was built with. */
void sp_report_file_ordering(struct sp_report *r, const struct sp_function_map *map);

/* gprof's print_name_only() and print_name(), appended to r->line:
 * returns the width of what was appended. */
int sp_report_name_only(struct sp_report *r, unsigned node);
void sp_report_name(struct sp_report *r, unsigned node);
/* Writes r->line (with every line ended before) to the output and empties it. */
void sp_report_flush_line(struct sp_report *r);
/* Ends the line in r->line; it may stay buffered with the following ones
 * until sp_report_flush_line() or sp_report_out() (thousands of small
 * writes cost more than formatting the lines). */
void sp_report_end_line(struct sp_report *r);
/* The output stream, after writing what is buffered: for direct writes. */
FILE *sp_report_out(struct sp_report *r);

/* Metadata for machine-readable outputs. */
struct sp_report_meta {
	const char *format;      /* "gmon", "gperftools", ... */
	const char *executable;
	const char *const *files;
	size_t nfiles;
	const char *metric;      /* "time" */
	const char *unit;        /* "seconds" */
	/* line-level graph (-l or -A): adds "lines":[{file, line, self, count}] */
	const struct sp_cg *line_cg;
	/* aprof: the input-size analysis; symbol i of the graph is routine i.
	 * The functions then carry input_sizes, points, fit and fit_avg. */
	struct sp_inputcost *inputcost;
};

/* The JSON document of docs/formats.md. */
void sp_report_json(struct sp_report *r, const struct sp_report_meta *m);

/* ---- aprof: cost as a function of the input size (report/aprof.c, svg.c) ---- */

/* The lines that say what was read: program, reports, metrics, totals. */
/* What an aprof cost metric counts ("basic blocks executed" for bb-count),
 * or NULL for a metric aprof does not define. */
const char *sp_report_aprof_metric(const char *metric);
void sp_report_aprof_header(FILE *out, const struct sp_inputcost *ic,
			    const char *const *files, size_t nfiles);
/* The routine table (aprof-plot's): cost %, total, self, calls, input
 * sizes, fitted exponent and R^2 of the worst case, routine [object];
 * `rank` is an enum sp_ic_rank; routines with fewer than `min_sizes`
 * input sizes are left out. */
void sp_report_aprof_table(FILE *out, const struct sp_inputcost *ic, int rank,
			   size_t min_sizes);
/* One routine: totals, both fits, the cost-vs-input table and, with a
 * CCT, its contexts (fitted here). */
void sp_report_aprof_routine(FILE *out, struct sp_inputcost *ic, uint32_t routine);

enum sp_plot_axes {
	SP_PLOT_LINEAR = 0,
	SP_PLOT_LOGX = 1 << 0,
	SP_PLOT_LOGY = 1 << 1,
	SP_PLOT_LOG = SP_PLOT_LOGX | SP_PLOT_LOGY,
};

/* An SVG cost plot of one routine: per input size the worst, average and
 * best cost (one <g class="point"> each), the fitted curves, axes
 * (`axes`: enum sp_plot_axes) and a legend. */
void sp_report_aprof_svg(FILE *out, const struct sp_inputcost *ic, uint32_t routine,
			 unsigned axes);

#endif
