/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to the gmon.out pipeline: the run its three files share.
 * cmd-gmon.c calls the other two, gmon-print.c calls gmon-ahead.c, and
 * gmon-ahead.c calls neither.
 *
 *   cmd-gmon.c    the pipeline: image, symbols, profiles, graph, in
 *                 gprof's order, and --diff's base
 *   gmon-ahead.c  the work done ahead on workers while the pipeline goes
 *                 on (the profiles read, the names demangled, the
 *                 symbols' files found), and what waits for it
 *   gmon-print.c  the reports: gprof's text, or the model render.c reads
 */
#ifndef SYMPROF_CLI_GMON_H
#define SYMPROF_CLI_GMON_H

#include "cli.h"

struct gmon_early;
struct sp_demangle_batch;
struct sp_input;
struct sp_worker;

/* One way of looking at the profile: a symbol table (functions, or lines
 * with -l), the symspecs resolved against it, and the graph built on it. */
struct gmon_view {
	struct sp_symtab *symtab;
	struct sp_symspecs *specs;
	size_t *fold; /* --precise: clone -> origin */
	struct sp_cg *cg;
	int line;
};

struct gmon_run {
	struct sp_opts *o;
	struct sp_image *im;
	struct gmon_view v;  /* what gprof would build (lines with -l) */
	struct gmon_view fv; /* --precise -l: functions, for the call graph */
	struct gmon_view lv; /* lines, when a report needs them without -l */
	struct sp_profile *prof;
	struct sp_gmon_state st;
	struct sp_function_map *map;
	struct sp_cg_static *scanner;
	FILE *out;
	int files_loaded;		 /* the symbols' source files are known */
	int static_files;		 /* the reports ask for those of static functions only */
	struct sp_demangle_batch *names; /* v.symtab's names, demangled on the side */
	struct gmon_early *early;	 /* the profiles being read (gmon-ahead.c) */
	struct sp_worker *files_worker;	 /* finds the symbols' files (gmon-ahead.c) */
	int drop_lines;			 /* -l: v may leave out unused lines (cmd-gmon.c) */
};

/* ---- gmon-ahead.c: each start may do nothing (no worker, or the run
 * prints as it goes); what waits for the work does it then ---- */

/* Reads every profile into g->prof with ro on a worker, from the moment
 * the image is open (g->early). */
void sp_cli_gmon_read_ahead(struct gmon_run *g, const struct sp_gmon_read_opts *ro);
/* Waits for that worker: 0, or 1 when reading failed (reported). */
int sp_cli_gmon_read_ahead_join(struct gmon_run *g);
/* Demangles g->v's names on a worker (g->names). */
void sp_cli_gmon_demangle_ahead(struct gmon_run *g);
/* Finds the symbols' source files on a worker while the graph is built,
 * if the reports may ask for them (files_wanted). */
void sp_cli_gmon_files_ahead(struct gmon_run *g, int files_wanted);
/* The symbols' source files, known from here on (once). */
void sp_cli_gmon_load_files(struct gmon_run *g);
/* Joins every worker still running, dropping what it did: first thing
 * when the run is released. */
void sp_cli_gmon_ahead_stop(struct gmon_run *g);

/* ---- gmon-print.c ---- */

/* -i: what one file held. */
void sp_cli_gmon_print_file_info(struct gmon_run *g, const struct sp_input *in);
/* The model the shared outputs (render.c) read: the graph of g->v. */
void sp_cli_gmon_model(struct gmon_run *g, const char *const *files, size_t nfiles,
		       struct sp_cli_model *m);
/* Every report the options ask for; the exit status. */
int sp_cli_gmon_print_reports(struct gmon_run *g, int first_output);

#endif
