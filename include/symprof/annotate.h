/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Annotated source: source files listed with what the profile says about
 * each line (gprof's -A, with -x -I -y -t -m), built from a call graph and
 * the source files named by its symbol table.
 */
#ifndef SYMPROF_ANNOTATE_H
#define SYMPROF_ANNOTATE_H

#include <stddef.h>
#include <stdio.h>

struct sp_cg;
struct sp_symspecs;
struct sp_warn_hook;

struct sp_annotate_opts {
	const char *const *dirs; /* search directories, in order (-I, then GPROF_PATH) */
	size_t ndirs;
	unsigned all_lines : 1;	     /* -x */
	unsigned separate_files : 1; /* -y: write FILE-ann in the current directory */
	unsigned ignore_zeros : 1;   /* skip files with no executions unless -z */
	unsigned long min_count;     /* -m: counts below are shown as ##### */
	int table_length;	     /* -t: the "Top N Lines" table */
	/* --precise: a line-level graph of the same profile; each line then
	 * also shows the histogram time it received, its share and its
	 * sampling error, and only lines that ran count as executed */
	const struct sp_cg *line_cg;
	const struct sp_warn_hook *warn; /* files not found or not written */
};

/*
 * gprof's annotated source listing for the files of cg's symbol table
 * (most recently seen file first, as gprof lists them), written to out
 * (or to FILE-ann files with separate_files). *first_output says whether a
 * form feed separates it from earlier sections, and is updated. A source
 * file that cannot be found is named once through o->warn and skipped.
 */
void sp_annotate_gprof(FILE *out, const struct sp_cg *cg, const struct sp_symspecs *specs,
		       const struct sp_annotate_opts *o, int *first_output);

/* ---- stack profiles (samples.c) ---- */

struct sp_profile;
struct sp_symbolizer;

struct sp_annotate_samples_opts {
	const char *const *dirs; /* source search directories, in order */
	size_t ndirs;
	const char *counter;		 /* the counter counted; NULL: "samples" */
	int pick;			 /* enum sp_value_pick of its values (0: counts) */
	const char *what;		 /* what the numbers count; NULL: "samples" */
	const struct sp_warn_hook *warn; /* source files not found */
};

/*
 * Annotated source of a stack profile: each source file samples point
 * into, every line prefixed with its flat samples (executing there) and
 * cum samples (on the stack there, once per sample); frames symbolized
 * with s. A form feed comes first unless first_output. A file that cannot
 * be found is named through o->warn and its lines with samples listed
 * alone.
 */
void sp_annotate_samples(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
			 const struct sp_annotate_samples_opts *o, int first_output);

#endif
