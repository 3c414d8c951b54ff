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

/* State shared by the sections of one report. */
struct sp_report {
	FILE *out;
	struct sp_cg *cg;
	const struct sp_report_opts *o;
	int first_output;   /* no form feed before the first section */
	char **demangled;   /* per symbol node: the name to print (cache) */
	uint32_t *name_len; /* its length */
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

/* gprof's print_name_only() and print_name(), appended to r->line:
 * returns the width of what was appended. */
int sp_report_name_only(struct sp_report *r, unsigned node);
void sp_report_name(struct sp_report *r, unsigned node);
/* Writes r->line to the output and empties it. */
void sp_report_flush_line(struct sp_report *r);

/* Metadata for machine-readable outputs. */
struct sp_report_meta {
	const char *format;      /* "gmon", "gperftools", ... */
	const char *executable;
	const char *const *files;
	size_t nfiles;
	const char *metric;      /* "time" */
	const char *unit;        /* "seconds" */
	const char *const *sym_objects; /* per symbol: its object, or NULL (executable) */
	const char *const *sym_files;   /* per symbol: a source file for a symbol
					   without one (stack profiles), or NULL */
	double sample_seconds;   /* stack profiles: seconds per sample, else 0 */
};

/* The JSON document of docs/formats.md. */
void sp_report_json(struct sp_report *r, const struct sp_report_meta *m);

/* ---- stack profiles (gperftools) ---- */

struct sp_symbolizer;
struct sp_frame_funcs;

struct sp_stack_report_opts {
	unsigned demangle : 1; /* C++ names demangled */
	unsigned cum : 1;      /* pprof: rows sorted by cumulative samples */
	unsigned lines : 1;    /* line granularity */
};

/* google-pprof --text (--cum, --lines) of a CPU profile (pprof.c). */
void sp_report_pprof(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
		     const struct sp_stack_report_opts *o);
/* One "root;...;leaf N" line per distinct stack (folded.c). */
void sp_report_folded(FILE *out, const struct sp_profile *p, const struct sp_frame_funcs *ff,
		      const struct sp_stack_report_opts *o);
/* callgrind format for KCachegrind (callgrind.c). */
void sp_report_callgrind(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
			 const struct sp_stack_report_opts *o);

#endif
