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
#include "symprof/cg.h"
#include "symprof/strtab.h"

struct sp_cg;
struct sp_symbol;
struct sp_symspecs;
struct sp_profile;
struct sp_function_map;
struct sp_inputcost;
struct sp_demangle_batch;
struct sp_warn_hook;

struct sp_report_opts {
	unsigned brief : 1;		/* -b */
	unsigned bsd : 1;		/* -T */
	unsigned demangle : 1;		/* on by default */
	unsigned inline_file_names : 1; /* --inline-file-names */
	unsigned line_granularity : 1;	/* -l */
	unsigned print_path : 1;	/* -L */
	unsigned ignore_zeros : 1;	/* on unless -z */
	int width;			/* -w, 80 */
	char leading_char;		/* the target's symbol prefix */
	/* The call graph is formatted on two threads when its entries have
	 * at least this many lines; 0: always on one (the default of a
	 * zeroed struct). */
	unsigned graph_split;
	/* The cg's symbols' names demangled ahead of time (indexed like
	 * cg->symtab->syms, which symbol node i is), or NULL: demangled when
	 * first printed. */
	struct sp_demangle_batch *demangled;
};

/* A node's name as the call graph prints it (at `off` in the report's
 * `names`, `len` bytes, 0 for none yet), with what it was made of. */
struct sp_report_full_name {
	size_t off, len;
	int index, cycle;
	unsigned print_flag;
};

/* Whether f holds the text of a node with these fields. */
static inline int sp_report_full_name_fresh(const struct sp_report_full_name *f, int index,
					    int cycle, unsigned print_flag)
{
	return f->len && f->index == index && f->cycle == cycle && f->print_flag == print_flag;
}

/* State shared by the sections of one report. */
struct sp_report {
	FILE *out;
	const struct sp_cg *cg;
	const struct sp_report_opts *o;
	int first_output;		  /* no form feed before the first section */
	char **demangled;		  /* per symbol node: the name to print (cache) */
	uint32_t *name_len;		  /* its length */
	struct sp_report_full_name *full; /* per node: sp_report_name()'s text (cache) */
	size_t nfull;
	struct sp_buf names;		/* the texts of `full`, one after the other */
	struct sp_buf line;		/* the line being built */
	struct sp_cg_sort_mem sort_mem; /* the call graph's sorted views */
};

void sp_report_init(struct sp_report *r, FILE *out, const struct sp_cg *cg,
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
/* What sp_report_name() appends, made once per node: `*len` bytes, not
 * NUL-terminated, borrowed and valid until the next call of a name
 * function or sp_report_release(). */
const char *sp_report_name_text(struct sp_report *r, unsigned node, size_t *len);
/* The name of a node as the reports print it (demangled unless -T or
 * --no-demangle), computed once per symbol and valid until
 * sp_report_release(); its length in *len unless len is NULL. */
const char *sp_report_display_name(struct sp_report *r, unsigned node, size_t *len);
/* Writes r->line (with every line ended before) to the output and empties it. */
void sp_report_flush_line(struct sp_report *r);
/* Ends the line in r->line; it may stay buffered with the following ones
 * until sp_report_flush_line() or sp_report_out() (thousands of small
 * writes cost more than formatting the lines). Inline: a call graph ends
 * tens of thousands of lines. */
static inline void sp_report_end_line(struct sp_report *r)
{
	if (r->line.len >= 32768)
		sp_report_flush_line(r);
}
/* The output stream, after writing what is buffered: for direct writes. */
FILE *sp_report_out(struct sp_report *r);

/* What the outputs list for a function whose format counts it itself
 * (aprof: the analysis's costs and activations, not the graph's). */
struct sp_fn_cost {
	double self, children; /* in the metric's unit */
	uint64_t calls;	       /* every activation, recursive ones included */
	unsigned listed : 1;   /* 0: the outputs leave the function out */
};

/* Metadata for machine-readable outputs. */
struct sp_report_meta {
	const char *format; /* "gmon", "gperftools", ... */
	const char *executable;
	const char *const *files;
	size_t nfiles;
	const char *metric; /* "time" */
	const char *unit;   /* "seconds" */
	/* line-level graph (-l or -A): adds "lines":[{file, line, self, count}] */
	const struct sp_cg *line_cg;
	/* a format that counts its functions itself (aprof): per symbol what
	 * the JSON, the HTML page and the diff list, fn_costs[i] for symbol i
	 * (symbols past nfn_costs are left out); NULL: the graph's numbers */
	const struct sp_fn_cost *fn_costs;
	size_t nfn_costs;
	/* the run's total when it is not the graph's (aprof: its cost k) */
	double total;
	unsigned has_total : 1;
	unsigned no_source : 1; /* the names are no addresses: no source lines */
	/* for sp_report_json_aprof(): the input-size analysis (symbol i of the
	 * graph is routine i) and its order (SP_IC_RANK_GROWTH lists the
	 * functions in that order, anything else in the routines') */
	struct sp_inputcost *inputcost;
	int rank;
	const char *const *sym_objects; /* per symbol: its object, or NULL (executable) */
	const char *const *sym_files;	/* per symbol: a source file for a symbol
					   without one (stack profiles), or NULL */
	double sample_seconds;		/* stack profiles: seconds per sample, else 0 */
};

/* The JSON document of docs/formats.md. */
void sp_report_json(struct sp_report *r, const struct sp_report_meta *m);
/* The aprof document (json-aprof.c): the same with the cost-vs-input data
 * of m->inputcost added to every function. */
void sp_report_json_aprof(struct sp_report *r, const struct sp_report_meta *m);

/* ---- aprof: cost as a function of the input size (report/aprof.c, svg.c) ---- */

/* The lines that say what was read: program, reports, metrics, totals. */
/* What an aprof cost metric counts ("basic blocks executed" for bb-count),
 * or NULL for a metric aprof does not define. */
const char *sp_report_aprof_metric(const char *metric);
void sp_report_aprof_header(FILE *out, const struct sp_inputcost *ic, const char *const *files,
			    size_t nfiles);
/* The routine table (aprof-plot's): cost %, total, self, calls, input
 * sizes, fitted exponent and R^2 of the worst case, routine [object];
 * `rank` is an enum sp_ic_rank; routines with fewer than `min_sizes`
 * input sizes are left out. */
void sp_report_aprof_table(FILE *out, const struct sp_inputcost *ic, int rank, size_t min_sizes);
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
void sp_report_aprof_svg(FILE *out, const struct sp_inputcost *ic, uint32_t routine, unsigned axes);

/* ---- pictures (report/dot.c) ---- */

struct sp_dot_opts {
	double node_threshold; /* percent of the total: lighter functions are left out */
	double edge_threshold; /* percent of the total: lighter arcs are left out */
};

#define SP_DOT_NODE_THRESHOLD 0.5
#define SP_DOT_EDGE_THRESHOLD 0.1

/*
 * A Graphviz digraph of the call graph in the manner of gprof2dot: one box
 * per function with its total and self percentages and its calls, coloured
 * from blue (cold) to red (hot) by total; arcs labelled with their share of
 * the total and their call counts, as thick as they are heavy; each cycle
 * a dashed cluster; self-recursion a loop. Functions whose total is below
 * node_threshold percent, and arcs below edge_threshold percent, are left
 * out (arcs inside a cycle are kept while both ends are).
 */
void sp_report_dot(struct sp_report *r, const struct sp_report_meta *m,
		   const struct sp_dot_opts *o);

/* ---- differences between two profiles (report/diff.c) ---- */

/* One function, matched by symbol name; amounts in the metric's unit. */
struct sp_diff_row {
	const char *name;    /* as printed (demangled unless asked not to) */
	const char *mangled; /* the symbol-table name, the matching key */
	int no_linkage;	     /* mangled is no linkage name: JSON prints null */
	const char *object;  /* its object when the profile names one per
			      * function (stack profiles), else NULL */
	const char *file;    /* source file, NULL if unknown */
	int line;
	double self, children, total, base_self, base_children, base_total;
	uint64_t calls, recursive_calls, base_calls, base_recursive_calls;
	double noise_self, noise_total; /* one standard deviation of the change from sampling */
	int significant,
		significant_total; /* the change in self (total) is outside the
				    * sampling error of both runs (sp_diff_significant()) */
};

struct sp_diff_arc {
	uint32_t caller, callee; /* rows */
	uint64_t count, base_count;
	double self, children, base_self, base_children;
};

struct sp_diff {
	struct sp_diff_row *rows; /* sorted by the size of the change, largest first */
	size_t len;
	struct sp_diff_arc *arcs;
	size_t narcs;
	double total, base_total, noise_total;
	int sampled;   /* time from samples: noise estimates apply */
	int counts;    /* both graphs count calls (not stack samples) */
	double sample; /* one sample in the unit (0 if not sampled) */
	char dimen[16];
	int decimals, width;		       /* of amounts in the text: 2 and 9 for seconds,
						* else 0 and 11 (aprof's counts) */
	struct sp_report_meta meta, base_meta; /* borrowed strings */
	struct sp_strtab strs;
};

/*
 * The differences between two call graphs of the same program (any two
 * input formats measuring the same thing): functions matched by symbol
 * name, each amount the profile's minus the base's. For sampled time the
 * noise of a change is the square root of the samples behind it in both
 * profiles (Poisson). Functions with nothing in either profile are left
 * out unless !ro->ignore_zeros. A meta with an aprof analysis (inputcost)
 * gives the amounts of its --format=json instead of the graph's: the
 * routines with activations, their self and total cost, and their calls
 * with the recursive ones. The diff keeps pointers to both metas' strings.
 */
struct sp_diff *sp_diff_new(const struct sp_cg *cg, const struct sp_report_meta *m,
			    const struct sp_cg *base, const struct sp_report_meta *base_meta,
			    const struct sp_report_opts *ro);
void sp_diff_free(struct sp_diff *d);
/* Whether a change is significant: outside both runs' sampling error
 * together, more than SP_DIFF_Z times its noise (one standard deviation
 * of the difference of two Poisson counts: the square root of the
 * samples behind it in both profiles). Amounts that are not sampled have
 * no sampling error: every change of them is significant. */
#define SP_DIFF_Z 2.0
int sp_diff_significant(const struct sp_diff *d, double change, double noise);

/* The flat profile of differences as text. */
void sp_diff_write_text(const struct sp_diff *d, FILE *out);
/* docs/formats.md's JSON schema, every number the profile's minus the
 * base's, with base_self, base_total and base_calls beside. */
void sp_diff_write_json(const struct sp_diff *d, FILE *out);

/* ---- the HTML report (report/html.c) ---- */

struct sp_flame;

struct sp_html_source_line {
	int line;
	double value;	  /* samples (or the metric) on that line */
	const char *text; /* the source line, without its newline */
};

/* Annotated source of one function (the pipeline finds the file). */
struct sp_html_source {
	uint32_t node;	  /* the function's node */
	const char *path; /* the file as found */
	const struct sp_html_source_line *lines;
	size_t nlines;
};

/* One curve of a cost-vs-input plot: measured points, or a fitted curve
 * sampled at enough sizes to be drawn as a line on linear and on
 * logarithmic axes. */
struct sp_html_curve {
	const char *label; /* the legend: "worst case (max)", "average fit: ..." */
	const char *kind;  /* the style: "worst", "avg", "best" (points),
			    * "fit-worst", "fit-avg" (lines), "band-worst",
			    * "band-avg" (bands) */
	const double *x, *y;
	size_t n;
	int line; /* drawn as a line (a fit), else as points */
	int band; /* drawn as a filled outline: the upper edge by ascending
		   * x, then the lower edge back */
};

/* A cost-vs-input plot (aprof): the curves of one routine. */
struct sp_html_plot {
	const char *name;	       /* the routine, as the functions list it */
	const char *x_label, *y_label; /* "input size (rms)", "cost per activation (bb)" */
	const char *note;	       /* under the plot (sizes, calls ...), NULL: none */
	const struct sp_html_curve *curves;
	size_t ncurves;
};

struct sp_html_opts {
	const struct sp_report_meta *meta;
	struct sp_flame *flame;		      /* NULL: no flame graph */
	const struct sp_diff *diff;	      /* --diff: a differences table */
	const struct sp_html_source *sources; /* hottest functions' source, or NULL */
	size_t nsources;
	const struct sp_html_plot *plots; /* aprof: cost-vs-input plots, or NULL */
	size_t nplots;
};

/* ---- aprof's cost plots in the HTML report (report/aprof-plots.c) ---- */

#define SP_APROF_PLOTS_COST 8	/* the costliest routines that have a fit */
#define SP_APROF_PLOTS_GROWTH 4 /* ... and the first growing fits of --rank=growth */

/* The plots and everything they point to (owned). */
struct sp_aprof_plots {
	struct sp_html_plot *v;
	size_t n;
	struct sp_arena arena;
};

/*
 * The cost plots of the HTML report: the SP_APROF_PLOTS_COST costliest
 * routines with a fit, and the first SP_APROF_PLOTS_GROWTH routines of
 * --rank=growth among the fits of a growing cost (sp_fit_growth()) that
 * are not plotted already, in the order `rank` (an enum sp_ic_rank) sorts
 * them. Each has the worst, average and best cost per input size, both
 * fitted curves and the band of the worst-case fit's exponent interval. Valid until
 * sp_report_aprof_plots_release(); the plots also point into ic's profile.
 */
void sp_report_aprof_plots(struct sp_aprof_plots *out, const struct sp_inputcost *ic, int rank);
void sp_report_aprof_plots_release(struct sp_aprof_plots *pl);

/*
 * One self-contained HTML page (no network: scripts, styles and data are
 * inline): summary, a sortable and filterable flat profile with one row
 * per function, callers and callees of the function clicked, the flame
 * graph, annotated source of the hottest functions, the differences
 * table, cost-vs-input plots with their fitted curves (aprof). The data
 * travel as one JSON document read by assets/report.js.
 */
void sp_report_html(struct sp_report *r, const struct sp_html_opts *o, FILE *out);

/* ---- stack profiles (gperftools) ---- */

struct sp_symbolizer;
struct sp_frame_funcs;

struct sp_stack_report_opts {
	unsigned demangle : 1; /* C++ names demangled */
	unsigned cum : 1;      /* pprof: rows sorted by cumulative samples */
	unsigned lines : 1;    /* line granularity */
	/* pprof: address or file granularity (google-pprof --addresses,
	 * --files), and the address after each function or line
	 * (--show_addresses) */
	unsigned addresses : 1, files : 1, show_addresses : 1;
	/* pprof: only the stacks with a frame whose address, name or
	 * file:line matches `focus`, then not those with one matching
	 * `ignore` (POSIX extended regular expressions; NULL: none) */
	const char *focus, *ignore;
	/* folded, callgrind: the counter counted (NULL: "samples") and which
	 * field of its values (enum sp_value_pick; 0: the count of events) */
	const char *counter;
	int pick;
	/* pprof: the lines google-pprof prints on stderr ("Removing F from
	 * all stack traces."), handed over as they come, to print as they are */
	const struct sp_warn_hook *stderr_lines;
	/* pprof: template arguments kept in function names (google-pprof
	 * --no_strip_temp); the profiler's frames and a second frame common
	 * to every stack kept (--no-auto-signal-frm) */
	unsigned keep_templates : 1, keep_signal_frames : 1;
};

/* ---- IgProf (igprof.c, leaks.c) ---- */

struct sp_igprof_report_opts {
	const char *counter;	 /* "Counter: NAME" */
	double seconds_per_tick; /* > 0: values are ticks, printed as seconds */
	unsigned is_max : 1;	 /* a MAX counter: maxima instead of sums */
	unsigned with_calls : 1; /* the Calls columns (MEM_* counters) */
	unsigned demangle : 1;
	unsigned addresses : 1; /* leak report: every leaked block */
};

/* igprof-analyse's text report of the tree sp_igtree_build() made. */
void sp_report_igprof(FILE *out, const struct sp_profile *tree,
		      const struct sp_igprof_report_opts *o);
/* The leak report of such a tree (a MEM_LIVE or FD_LIVE counter): the
 * allocation sites with what they still hold, largest first. */
void sp_report_leaks(FILE *out, const struct sp_profile *tree,
		     const struct sp_igprof_report_opts *o);

/* Per CCT node, what folded and callgrind count there: the values of the
 * counter o names, in o's field (sp_profile_node_values()). */
int64_t *sp_stack_node_values(const struct sp_profile *p, const struct sp_stack_report_opts *o);

/* google-pprof --text (--cum, --lines) of a CPU profile (pprof.c), from
 * its list of stacks (sp_profile.stack_list) or its CCT. */
void sp_report_pprof(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
		     const struct sp_stack_report_opts *o);
/* One "root;...;leaf N" line per distinct stack (folded.c). */
void sp_report_folded(FILE *out, const struct sp_profile *p, const struct sp_frame_funcs *ff,
		      const struct sp_stack_report_opts *o);
/* callgrind format for KCachegrind (callgrind.c). */
void sp_report_callgrind(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
			 const struct sp_stack_report_opts *o);

/* ---- pprof's profile.proto (report/proto.c) ---- */

/* Where one value of every sample comes from. */
enum sp_proto_source {
	SP_PROTO_COUNTER = 0, /* stacks: the values of a counter of the profile */
	SP_PROTO_SELF,	      /* call graph: a function's self time (cg units) */
	SP_PROTO_CALLS,	      /* call graph: the calls along an arc */
};

/* One sample type: what it measures and how it is computed. */
struct sp_proto_value {
	const char *type, *unit; /* "cpu", "nanoseconds" */
	enum sp_proto_source source;
	uint32_t counter; /* SP_PROTO_COUNTER: which counter */
	int pick;	  /* SP_PROTO_COUNTER: enum sp_value_pick */
	double scale;	  /* each amount times this (0: 1), rounded to an integer */
};

#define SP_PROTO_MAX_VALUES 4

struct sp_proto_opts {
	struct sp_proto_value values[SP_PROTO_MAX_VALUES];
	size_t nvalues;
	int default_value; /* the type viewers show first (an index), -1: pprof's default */
	const char *period_type, *period_unit; /* NULL: no period */
	int64_t period;
	int64_t time_ns, duration_ns; /* 0: not known */
	const char *comment;	      /* NULL: none */
	unsigned demangle : 1;	      /* Function.name demangled (system_name stays raw) */
	/* call graphs: the executable (NULL: none), its build-id, and whether
	 * symbol addresses are its virtual addresses (gmon.out) */
	const char *executable;
	const uint8_t *build_id;
	size_t build_id_len;
	unsigned addresses : 1;
};

/*
 * A stack profile as a gzipped profile.proto: one sample per distinct
 * stack (the CCT's nodes with values, and the list form's stacks), one
 * location per frame with its inline chain from s (NULL: unnamed frames),
 * one mapping per map of p (per object for profiles without maps).
 */
void sp_report_proto_stacks(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
			    const struct sp_proto_opts *o);
/*
 * A call graph (gmon.out, aprof) as a gzipped profile.proto: a one-frame
 * sample of each function's self time (SP_PROTO_SELF values) and a
 * two-frame sample [callee, caller] of each arc's calls (SP_PROTO_CALLS);
 * names as r prints them, objects from m->sym_objects.
 */
void sp_report_proto_cg(struct sp_report *r, const struct sp_report_meta *m,
			const struct sp_proto_opts *o);

#endif
