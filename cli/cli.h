/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The symprof command: options (gprof's spelling and meaning, plus
 * symprof's own long options) and the pipelines they drive. cli/ is the
 * only layer that prints to stdout/stderr on its own and exits.
 */
#ifndef SYMPROF_CLI_H
#define SYMPROF_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "symprof/cg.h"
#include "symprof/formats.h"
#include "symprof/symbolize.h"

/* Output styles, as gprof's STYLE_* bits. */
enum {
	STYLE_FLAT_PROFILE = 1 << 0,
	STYLE_CALL_GRAPH = 1 << 1,
	STYLE_SUMMARY_FILE = 1 << 2,
	STYLE_EXEC_COUNTS = 1 << 3,
	STYLE_ANNOTATED_SOURCE = 1 << 4,
	STYLE_GMON_INFO = 1 << 5,
	STYLE_FUNCTION_ORDER = 1 << 6,
	STYLE_FILE_ORDER = 1 << 7,
};

enum sp_out_format {
	SP_OUT_TEXT = 0, /* gprof's text */
	SP_OUT_JSON,
	SP_OUT_PPROF,     /* google-pprof --text (stack profiles) */
	SP_OUT_CALLGRIND, /* callgrind/KCachegrind (stack profiles) */
	SP_OUT_FOLDED,    /* one "a;b;c N" line per stack (stack profiles) */
};

struct spec_arg {
	const char *spec;
	enum sp_symspec_table table;
};

struct sp_opts {
	const char *image;          /* default "a.out" */
	const char **profiles;      /* default "gmon.out" */
	size_t nprofiles;
	unsigned image_given : 1, profiles_defaulted : 1;
	int output_style, user_specified;
	struct spec_arg *specs;
	size_t nspecs, specs_alloc;
	const char **src_dirs;      /* -I and GPROF_PATH, ':'-separated entries */
	size_t nsrc_dirs, src_dirs_alloc;
	const char *external_symtab;   /* -S */
	const char *function_map;      /* -R */
	enum sp_gmon_format file_format; /* -O */
	unsigned long min_count;    /* -m */
	int table_length;           /* -t */
	int width;                  /* -w */
	unsigned debug;             /* -d */
	unsigned no_static : 1, brief : 1, static_cg : 1, ignore_non_functions : 1;
	unsigned line : 1, print_path : 1, bsd : 1, all_lines : 1, separate_files : 1;
	unsigned ignore_zeros : 1, demangle : 1, inline_file_names : 1;
	unsigned precise : 1, quiet : 1;
	enum sp_out_format out_format;
	enum sp_input_format input_format; /* --input-format, else detected */
	const char *output;         /* --output=FILE, NULL = stdout */
	unsigned cum : 1;           /* --cum: pprof rows sorted by cumulative */
	unsigned addr2line : 1;     /* --addr2line: resolve addresses from stdin */
	const char *last_e;         /* the last -e argument (--addr2line's FILE) */
	struct sp_path_map *path_maps; /* --path-map=OLD=NEW, in order */
	size_t npath_maps, path_maps_alloc;
	char **argv_storage;        /* expanded argv (freed at exit) */
};

/* Parses argv (after @FILE expansion) into o: 0 to go on, 1 when the
 * command is done (--help, --version). Usage errors exit with status 2. */
int sp_cli_parse(struct sp_opts *o, int argc, char **argv);
void sp_cli_opts_release(struct sp_opts *o);

/* Expands @FILE arguments like libiberty's expandargv (quotes, backslashes,
 * nested @FILEs; an unreadable FILE stays a literal argument). */
void sp_cli_expand_argv(int *argc, char ***argv);

/* The gmon.out pipeline; returns the exit status. */
int sp_cmd_gmon(struct sp_opts *o);
/* The gperftools CPU profile pipeline; returns the exit status. */
int sp_cmd_gperf(struct sp_opts *o);
/* --addr2line -e FILE: addresses from stdin, like addr2line -f -i -C. */
int sp_cmd_addr2line(struct sp_opts *o);

/* The -I directories then GPROF_PATH's, split at ':' (malloc'ed strings
 * in a malloc'ed array); returns how many. */
size_t sp_cli_source_dirs(const struct sp_opts *o, char ***out);

/* With SYMPROF_TIMING set, prints the time since the previous mark. */
void sp_cli_mark(const char *phase);

/* Prints "symprof: <msg>" on stderr. */
void sp_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
