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
#include "symprof/report.h"
#include "symprof/symbolize.h"

struct sp_profile;
struct sp_progress_hook;
struct sp_warn_hook;
struct sp_cli_format;
struct sp_cli_model;

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
	SP_OUT_DOT,	   /* Graphviz call graph */
	SP_OUT_FLAMEGRAPH, /* interactive SVG */
	SP_OUT_FOLDED,	   /* "a;b;c N" lines */
	SP_OUT_PPROF,	   /* google-pprof --text (stack profiles) */
	SP_OUT_CALLGRIND,  /* callgrind/KCachegrind (stack profiles) */
	SP_OUT_IGPROF,	   /* igprof-analyse's text report (IgProf dumps) */
	SP_OUT_PROTO,	   /* pprof's profile.proto, gzipped */
	SP_OUT_SPEEDSCOPE, /* speedscope's JSON file format */
};

/* A set of output formats as bits, and the outputs every input format
 * writes. */
#define SP_CLI_OUT(f) (1u << (f))
#define SP_CLI_OUT_SHARED                                                                          \
	(SP_CLI_OUT(SP_OUT_TEXT) | SP_CLI_OUT(SP_OUT_JSON) | SP_CLI_OUT(SP_OUT_DOT) |              \
	 SP_CLI_OUT(SP_OUT_FLAMEGRAPH) | SP_CLI_OUT(SP_OUT_FOLDED) | SP_CLI_OUT(SP_OUT_PROTO) |    \
	 SP_CLI_OUT(SP_OUT_SPEEDSCOPE))

/* --format's names (cli/output.c): 0 and *f, or -1 for no such format. */
int sp_cli_out_format_parse(const char *name, enum sp_out_format *f);
const char *sp_cli_out_format_name(enum sp_out_format f);

struct spec_arg {
	const char *spec;
	enum sp_symspec_table table;
};

struct sp_opts {
	const char *image;     /* default "a.out" */
	const char **profiles; /* default "gmon.out" */
	size_t nprofiles;
	unsigned image_given : 1;	 /* a file name was given (not "a.out") */
	unsigned profiles_defaulted : 1; /* no profile named: "gmon.out" */
	int output_style, user_specified;
	struct spec_arg *specs;
	size_t nspecs, specs_alloc;
	const char **src_dirs; /* -I and GPROF_PATH, ':'-separated entries */
	size_t nsrc_dirs, src_dirs_alloc;
	const char *external_symtab;	 /* -S */
	const char *function_map;	 /* -R */
	enum sp_gmon_format file_format; /* -O */
	unsigned long min_count;	 /* -m */
	int table_length;		 /* -t */
	int width;			 /* -w */
	unsigned debug;			 /* -d */
	unsigned no_static : 1, brief : 1, static_cg : 1, ignore_non_functions : 1;
	unsigned line : 1, print_path : 1, bsd : 1, all_lines : 1, separate_files : 1;
	unsigned ignore_zeros : 1, demangle : 1, inline_file_names : 1;
	unsigned precise : 1, quiet : 1;
	enum sp_out_format out_format;
	unsigned format_given : 1; /* --format was on the command line */
	double node_threshold;	   /* --node-threshold, percent */
	double edge_threshold;	   /* --edge-threshold, percent */
	const char *html;	   /* --html=FILE */
	const char *diff;	   /* --diff=BASE */
	/* --input-format; once cli/formats.c has looked at the files, the
	 * format of the profiles */
	const struct sp_cli_format *input_format;
	/* how --diff's base is loaded: set by cli/formats.c (it picks the
	 * pipeline of the base's format); the exit status */
	int (*load_base)(struct sp_opts *o, const struct sp_cli_model *m,
			 struct sp_cli_model *base);
	const char *output; /* --output=FILE, NULL = stdout */
	unsigned cum : 1;   /* --cum: pprof rows sorted by cumulative */
	/* pprof's other granularities and --show_addresses (-l is `line`) */
	unsigned pprof_addresses : 1, pprof_files : 1, pprof_functions : 1;
	unsigned show_addresses : 1;
	/* --focus=RE, --ignore=RE: pprof's stacks kept or dropped (NULL: none) */
	const char *focus, *ignore;
	/* google-pprof's --no_strip_temp (template arguments kept in names)
	 * and --no-auto-signal-frm (the profiler's frames kept) */
	unsigned no_strip_temp : 1, no_auto_signal_frames : 1;
	/* --lib_prefix=A,B: where libraries are looked for first (pprof's
	 * FindLibrary) */
	char **lib_prefixes;
	size_t nlib_prefixes, lib_prefixes_alloc;
	/* --base=PROFILE: google-pprof's, its samples subtracted (NULL: none);
	 * --drop_negative: a stack's negative difference counts 0, and the
	 * base's stacks that the profiles lack go */
	const char *pprof_base;
	unsigned pprof_drop_negative : 1;
	unsigned addr2line : 1; /* --addr2line: resolve addresses from stdin */
	const char *last_e;	/* the last -e argument (--addr2line's FILE) */
	/* --addr2line's own options: -a, -p, -s, -f, -i (options.c) */
	unsigned a2l_addresses : 1, a2l_pretty : 1, a2l_basenames : 1;
	unsigned a2l_functions : 1, a2l_inlines : 1;
	struct sp_path_map *path_maps; /* --path-map=OLD=NEW, in order */
	size_t npath_maps, path_maps_alloc;
	char **argv_storage; /* expanded argv (freed at exit) */
	/* where files are found (cli/debug-search.c), --no-debuginfod */
	struct sp_debug_search search;
	unsigned no_debuginfod : 1;
	const char *cache_dir_arg; /* --cache-dir=DIR */
	unsigned no_cache : 1;	   /* --no-cache */
	char *cache_dir;	   /* the index cache's directory, NULL: off */
	/* aprof */
	const char *routine;	 /* --routine=NAME */
	const char *plot;	 /* --plot=NAME */
	unsigned plot_axes;	 /* --plot-axes: enum sp_plot_axes */
	int rank;		 /* --rank: enum sp_ic_rank */
	unsigned long min_sizes; /* --min-sizes */
	unsigned rank_given : 1, check : 1;
	/* IgProf */
	const char *counter;			  /* --counter=NAME */
	unsigned value_peak : 1, value_given : 1; /* --value=peak|normal */
	unsigned no_filter : 1;			  /* --no-filter */
	unsigned merge_clones : 1;		  /* --merge-clones */
	unsigned leaks : 1;			  /* --leaks: the leak report */
	unsigned leak_addresses : 1;		  /* --leak-addresses: with every leaked block */
	/* the environment, read once by sp_cli_parse() */
	unsigned no_threads : 1; /* SYMPROF_THREADS=0: no helper thread (core/worker.c) */
	unsigned graph_split;	 /* SYMPROF_GRAPH_SPLIT (sp_report_opts.graph_split) */
};

/* Parses argv (after @FILE expansion) into o: 0 to go on, 1 when the
 * command is done (--help, --version). Usage errors exit with status 2. */
int sp_cli_parse(struct sp_opts *o, int argc, char **argv);
void sp_cli_opts_release(struct sp_opts *o);

/* Expands @FILE arguments like libiberty's expandargv (quotes, backslashes,
 * nested @FILEs; an unreadable FILE stays a literal argument). */
void sp_cli_expand_argv(int *argc, char ***argv);

/* ---- input formats (cli/formats.c) ---- */

/*
 * One input format: how its files are recognised and the pipeline that
 * reads them. Each command file (cmd-<format>.c) defines the entry of its
 * format; the table in cli/formats.c lists the entries in the order the
 * probes are tried. See docs/architecture.md, "Adding an input format".
 */
struct sp_cli_format {
	const char *name;   /* --input-format=NAME, the model's meta.format */
	const char *noun;   /* one file, in messages: "gperftools profile" */
	const char *plural; /* several: "gperftools profiles" */
	/* the reader's probe (formats/): 1 if a file's head (sp_fmt_head:
	 * decompressed) is this format's */
	int (*probe)(const uint8_t *data, size_t size);
	unsigned compressed : 1; /* the reader takes gzip and bzip2 files */
	unsigned image : 1;	 /* the first file may be the executable */
	unsigned fallback : 1;	 /* reads the files no probe recognises (BSD gmon.out) */
	unsigned outputs;	 /* the --format outputs it writes (SP_CLI_OUT bits) */
	/* what its costs are: --diff compares profiles that measure the same
	 * thing, and says `mismatch_note` (or NULL) when it refuses one */
	const char *measures;
	const char *mismatch_note;
	/* the first option given that only this format takes, or NULL */
	const char *(*own_option)(const struct sp_opts *o);
	/* options that make no sense together for this format: 0, or the
	 * exit status after a message; NULL: none */
	int (*check_options)(const struct sp_opts *o);
	/* the pipeline: reads o->profiles, writes the reports; the exit
	 * status. NULL: the format is recognised but not read yet */
	int (*run)(struct sp_opts *o);
	/* --diff: the base `path` through the same pipeline, into m (whose
	 * release frees it, also after a failure); the exit status */
	int (*model)(struct sp_opts *o, const char *path, struct sp_cli_model *m);
};

/* The entries of the command files. */
extern const struct sp_cli_format sp_cmd_gmon_format;
extern const struct sp_cli_format sp_cmd_gperf_format;
extern const struct sp_cli_format sp_cmd_igprof_format;
extern const struct sp_cli_format sp_cmd_aprof_format;
extern const struct sp_cli_format sp_cmd_pprof_format;

/* --input-format=NAME: 0 and *f, or -1 after a message naming the
 * formats there are. */
int sp_cli_format_parse(const char *name, const struct sp_cli_format **f);
/*
 * Runs what the file arguments are: looks at each file (executable,
 * profile of a format, or unknown), takes the first file for the
 * executable only when it is one (or when nothing says otherwise: gprof's
 * rule), picks the profiles' format, checks the options against it and
 * runs its pipeline. Returns the exit status.
 */
int sp_cli_run(struct sp_opts *o);

/*
 * What a pipeline hands to the outputs every input format shares
 * (cli/render.c): the analysed graph, how names print, where it came from.
 * `release` frees what the pipeline keeps behind it (NULL: nothing).
 */
struct sp_cli_model {
	const struct sp_cg *cg;
	struct sp_report_opts ro;
	struct sp_report_meta meta;
	const struct sp_flame *flame;	      /* exact stacks, or NULL: estimated from cg */
	const struct sp_html_source *sources; /* --html: annotated source, or NULL */
	size_t nsources;
	const struct sp_html_plot *plots; /* --html: aprof's cost plots, or NULL */
	size_t nplots;
	/* --format=proto of the graph (gmon.out, aprof): its sample types */
	struct sp_proto_opts proto;
	/* --format=json: the format's own document (aprof's), or NULL for
	 * sp_report_json() */
	void (*json)(struct sp_report *r, const struct sp_report_meta *m);
	void *owner;
	void (*release)(void *owner);
};

/* The -I directories then GPROF_PATH's, split at ':' (malloc'ed strings
 * in a malloc'ed array), where source files are searched (cli/sources.c);
 * returns how many. sp_cli_source_dirs_free() frees them. */
size_t sp_cli_source_dirs(const struct sp_opts *o, char ***out);
void sp_cli_source_dirs_free(char **dirs, size_t n);

/* Annotated source of the hottest functions for --html (cli/sources.c). */
struct sp_cli_sources {
	struct sp_html_source *v;
	size_t n, alloc;
	struct sp_html_source_line *lines;
	size_t nlines, lines_alloc;
};

struct sp_image;

/* The max_funcs functions with the most self time whose source file is
 * found (the name, then in dirs), with the samples of p's histograms per
 * line (none without histograms). */
void sp_cli_sources_build(struct sp_cli_sources *out, const struct sp_cg *cg, struct sp_image *im,
			  const struct sp_profile *p, const char *const *dirs, size_t ndirs,
			  size_t max_funcs);
/* The same for a stack profile: per line the samples whose innermost
 * frame is there (frames symbolized with sym, functions as co expands
 * them), in seconds; the lines around the sampled ones. */
struct sp_symbolizer;
void sp_cli_sources_build_stacks(struct sp_cli_sources *out, const struct sp_cg *cg,
				 const struct sp_profile *p, struct sp_symbolizer *sym,
				 const struct sp_cg_stack_opts *co, const char *const *dirs,
				 size_t ndirs, size_t max_funcs);
void sp_cli_sources_release(struct sp_cli_sources *s);

/* Whether the pipeline hands its result to sp_cli_render() instead of
 * printing gprof's text itself. */
int sp_cli_renders(const struct sp_opts *o);
/*
 * Writes the output format chosen with --format (json, dot, flamegraph,
 * folded; the text of a diff) to out, and the --html file; with --diff,
 * loads the base profile first (o->load_base). Returns the exit status.
 */
int sp_cli_render(struct sp_opts *o, struct sp_cli_model *m, FILE *out);

/* --output (cli/output.c): stdout when absent or "-", else the file
 * opened for writing (NULL after a message when it cannot be). */
FILE *sp_cli_open_output(const struct sp_opts *o);
/* Flushes out and closes it unless it is stdout: rc, or 1 after a message
 * when a write failed (and rc was 0). NULL: rc. */
int sp_cli_close_output(const struct sp_opts *o, FILE *out, int rc);
/* The report options of a graph built from stacks (gperftools, IgProf):
 * -l names lines. */
void sp_cli_stack_report_opts(const struct sp_opts *o, struct sp_report_opts *ro);
/* gprof's flat profile, call graph and index of such a graph, as -p, -q,
 * -P and -Q choose; returns the styles chosen (STYLE_*). */
int sp_cli_print_stack_text(const struct sp_opts *o, FILE *out, const struct sp_cg *cg);

/* Progress lines on stderr (cli/progress.c): only when stderr is a
 * terminal and not --quiet; a step shows once it runs for half a second. */
void sp_cli_progress_start(struct sp_opts *o, int nsteps);
/* A new step: what is being done (printf format), counted as the next. */
void sp_cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The step "reading PATH (I+1 of N files, SIZE)" for input file i of n. */
void sp_cli_progress_reading(const char *path, size_t i, size_t n);
/* A hook for library code (symprof/progress.h) that adds "NN%" to the
 * current step; NULL when no progress is shown. */
const struct sp_progress_hook *sp_cli_progress_hook(void);
/* A wait inside the current step, shown after its text and timed on its
 * own ("asking debuginfod for ..."); NULL when it is over. */
void sp_cli_progress_detail(const char *detail);
/* Erases the line (before other output to the terminal). */
void sp_cli_progress_clear(void);
void sp_cli_progress_stop(void);

/* --addr2line [-a] [-C] [-f] [-i] [-p] [-s] -e FILE [ADDR...]: what
 * addr2line prints with those options (-f -i -C when none of -a, -C, -f,
 * -i, -p, -s is given). */
int sp_cmd_addr2line(struct sp_opts *o);

/*
 * o->search from the environment, read once (cli/debug-search.c): the
 * debug root (SYMPROF_DEBUG_ROOT), the program path ($PATH) and, unless
 * --no-debuginfod, a debuginfod client when DEBUGINFOD_URLS is set.
 */
void sp_cli_debug_search_init(struct sp_opts *o);
void sp_cli_debug_search_release(struct sp_opts *o);

/* With SYMPROF_TIMING set, prints the time since the previous mark
 * (cli/messages.c). */
void sp_cli_mark(const char *phase);

/* Prints "symprof: <msg>" on stderr, after erasing a progress line. */
void sp_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The hook library code warns through (struct sp_warn_hook, error.h):
 * each message printed as sp_cli_error() prints it. */
const struct sp_warn_hook *sp_cli_warn_hook(void);
/* A hook for the lines an emulated tool prints on stderr itself
 * (google-pprof's "Removing ... from all stack traces."): each printed as
 * it is. */
const struct sp_warn_hook *sp_cli_echo_hook(void);

#endif
