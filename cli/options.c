/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Command-line options. The short options and the gprof long options are
 * gprof 2.40's, parsed by the same getopt_long string so that argument
 * permutation, glued optional arguments (-pfoo) and abbreviations behave
 * the same; symprof's own options are long only.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/inputcost.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

#define SHORTOPTS "aA::bBcC::d::De:E:f:F:hiI:J::k:lLm:n:N:O:p::P::q::Q::rR:sS:t:Tvw:xyzZ::"

enum {
	OPT_DEMANGLE = 150,
	OPT_NO_DEMANGLE,
	OPT_INLINE_FILE_NAMES,
	OPT_FORMAT,
	OPT_OUTPUT,
	OPT_PRECISE,
	OPT_QUIET,
	OPT_INPUT_FORMAT,
	OPT_ROUTINE,
	OPT_RANK,
	OPT_PLOT,
	OPT_PLOT_AXES,
	OPT_CHECK,
	OPT_MIN_SIZES,
	OPT_NODE_THRESHOLD,
	OPT_EDGE_THRESHOLD,
	OPT_HTML,
	OPT_DIFF,
	OPT_CUM,
	OPT_TEXT,
	OPT_ADDRESSES,
	OPT_FILES,
	OPT_FUNCTIONS,
	OPT_SHOW_ADDRESSES,
	OPT_FOCUS,
	OPT_IGNORE,
	OPT_PATH_MAP,
	OPT_NO_DEBUGINFOD,
	OPT_CACHE_DIR,
	OPT_NO_CACHE,
	OPT_ADDR2LINE,
	OPT_COUNTER,
	OPT_VALUE,
	OPT_NO_FILTER,
	OPT_MERGE_CLONES,
	OPT_LEAKS,
	OPT_LEAK_ADDRESSES,
	OPT_NODECOUNT,
	OPT_MAXDEGREE,
	OPT_NODEFRACTION,
	OPT_EDGEFRACTION,
	OPT_TOOLS,
	OPT_PPROF_BASE,
	OPT_DROP_NEGATIVE,
	OPT_LIB_PREFIX,
	OPT_NO_STRIP_TEMP,
	OPT_NO_AUTO_SIGNAL_FRM,
};

/* symprof's options that both command lines take: gprof's and
 * --addr2line's (parse_addr2line()), handled by handle_option() */
#define SHARED_LONG_OPTIONS                                                                        \
	{"path-map", required_argument, 0, OPT_PATH_MAP},                                          \
		{"no-debuginfod", no_argument, 0, OPT_NO_DEBUGINFOD},                              \
		{"cache-dir", required_argument, 0, OPT_CACHE_DIR},                                \
		{"no-cache", no_argument, 0, OPT_NO_CACHE},                                        \
	{                                                                                          \
		"addr2line", no_argument, 0, OPT_ADDR2LINE                                         \
	}

static const struct option long_options[] = {
	{"line", no_argument, 0, 'l'},
	{"lines", no_argument, 0, 'l'},
	{"no-static", no_argument, 0, 'a'},
	{"ignore-non-functions", no_argument, 0, 'D'},
	{"external-symbol-table", required_argument, 0, 'S'},
	{"annotated-source", optional_argument, 0, 'A'},
	{"no-annotated-source", optional_argument, 0, 'J'},
	{"flat-profile", optional_argument, 0, 'p'},
	{"no-flat-profile", optional_argument, 0, 'P'},
	{"graph", optional_argument, 0, 'q'},
	{"no-graph", optional_argument, 0, 'Q'},
	{"exec-counts", optional_argument, 0, 'C'},
	{"no-exec-counts", optional_argument, 0, 'Z'},
	{"function-ordering", no_argument, 0, 'r'},
	{"file-ordering", required_argument, 0, 'R'},
	{"file-info", no_argument, 0, 'i'},
	{"sum", no_argument, 0, 's'},
	{"all-lines", no_argument, 0, 'x'},
	{"demangle", optional_argument, 0, OPT_DEMANGLE},
	{"no-demangle", no_argument, 0, OPT_NO_DEMANGLE},
	{"directory-path", required_argument, 0, 'I'},
	{"display-unused-functions", no_argument, 0, 'z'},
	{"inline-file-names", no_argument, 0, OPT_INLINE_FILE_NAMES},
	{"min-count", required_argument, 0, 'm'},
	{"print-path", no_argument, 0, 'L'},
	{"separate-files", no_argument, 0, 'y'},
	{"static-call-graph", no_argument, 0, 'c'},
	{"table-length", required_argument, 0, 't'},
	{"time", required_argument, 0, 'n'},
	{"no-time", required_argument, 0, 'N'},
	{"width", required_argument, 0, 'w'},
	{"brief", no_argument, 0, 'b'},
	{"debug", optional_argument, 0, 'd'},
	{"help", no_argument, 0, 'h'},
	{"file-format", required_argument, 0, 'O'},
	{"traditional", no_argument, 0, 'T'},
	{"version", no_argument, 0, 'v'},
	/* symprof's own */
	{"format", required_argument, 0, OPT_FORMAT},
	{"output", required_argument, 0, OPT_OUTPUT},
	{"precise", no_argument, 0, OPT_PRECISE},
	{"quiet", no_argument, 0, OPT_QUIET},
	{"input-format", required_argument, 0, OPT_INPUT_FORMAT},
	{"routine", required_argument, 0, OPT_ROUTINE},
	{"rank", required_argument, 0, OPT_RANK},
	{"plot", required_argument, 0, OPT_PLOT},
	{"plot-axes", required_argument, 0, OPT_PLOT_AXES},
	{"check", no_argument, 0, OPT_CHECK},
	{"min-sizes", required_argument, 0, OPT_MIN_SIZES},
	{"node-threshold", required_argument, 0, OPT_NODE_THRESHOLD},
	{"edge-threshold", required_argument, 0, OPT_EDGE_THRESHOLD},
	{"html", required_argument, 0, OPT_HTML},
	{"diff", required_argument, 0, OPT_DIFF},
	{"cum", no_argument, 0, OPT_CUM},
	{"text", no_argument, 0, OPT_TEXT},
	{"addresses", no_argument, 0, OPT_ADDRESSES},
	{"files", no_argument, 0, OPT_FILES},
	{"functions", no_argument, 0, OPT_FUNCTIONS},
	{"show_addresses", no_argument, 0, OPT_SHOW_ADDRESSES},
	{"focus", required_argument, 0, OPT_FOCUS},
	{"ignore", required_argument, 0, OPT_IGNORE},
	{"lib_prefix", required_argument, 0, OPT_LIB_PREFIX},
	{"no_strip_temp", no_argument, 0, OPT_NO_STRIP_TEMP},
	{"no-auto-signal-frm", no_argument, 0, OPT_NO_AUTO_SIGNAL_FRM},
	/* google-pprof's, for its graphs and its tools: its --text ignores them */
	{"nodecount", required_argument, 0, OPT_NODECOUNT},
	{"maxdegree", required_argument, 0, OPT_MAXDEGREE},
	{"nodefraction", required_argument, 0, OPT_NODEFRACTION},
	{"edgefraction", required_argument, 0, OPT_EDGEFRACTION},
	{"tools", required_argument, 0, OPT_TOOLS},
	{"base", required_argument, 0, OPT_PPROF_BASE},
	{"drop_negative", no_argument, 0, OPT_DROP_NEGATIVE},
	SHARED_LONG_OPTIONS,
	{"counter", required_argument, 0, OPT_COUNTER},
	{"value", required_argument, 0, OPT_VALUE},
	{"no-filter", no_argument, 0, OPT_NO_FILTER},
	{"merge-clones", no_argument, 0, OPT_MERGE_CLONES},
	{"leaks", no_argument, 0, OPT_LEAKS},
	{"leak-addresses", no_argument, 0, OPT_LEAK_ADDRESSES},
	{0, 0, 0, 0},
};

static const char usage_text[] =
	"Usage: symprof [-[abcDhilLrsTvwxyz]] [-[ABCeEfFJnNOpPqQRStZ][name]] [-I dirs]\n"
	"\t[-d[num]] [-k from/to] [-m min-count] [-t table-length]\n"
	"\t[--[no-]annotated-source[=name]] [--[no-]exec-counts[=name]]\n"
	"\t[--[no-]flat-profile[=name]] [--[no-]graph[=name]]\n"
	"\t[--[no-]time=name] [--all-lines] [--brief] [--debug[=level]]\n"
	"\t[--function-ordering] [--file-ordering] [--inline-file-names]\n"
	"\t[--directory-path=dirs] [--display-unused-functions]\n"
	"\t[--file-format=name] [--file-info] [--help] [--line] [--min-count=n]\n"
	"\t[--no-static] [--print-path] [--separate-files]\n"
	"\t[--static-call-graph] [--sum] [--table-length=len] [--traditional]\n"
	"\t[--version] [--width=n] [--ignore-non-functions]\n"
	"\t[--demangle[=STYLE]] [--no-demangle] [--external-symbol-table=name] [@FILE]\n"
	"\t[--format=text|json|dot|flamegraph|folded|pprof|callgrind|proto|speedscope]\n"
	"\t[--text] [--cum] [--addresses|--functions|--files] [--show_addresses]\n"
	"\t[--focus=REGEX] [--ignore=REGEX] [--lib_prefix=DIRS] [--no_strip_temp]\n"
	"\t[--no-auto-signal-frm] [--nodecount=N] [--nodefraction=F] [--edgefraction=F]\n"
	"\t[--maxdegree=N] [--tools=T] [--base=PROFILE] [--drop_negative]\n"
	"\t[--input-format=gmon|gperftools|igprof|aprof|pprof] [--output=FILE]\n"
	"\t[--node-threshold=PCT] [--edge-threshold=PCT] [--html=FILE]\n"
	"\t[--diff=BASE] [--path-map=OLD=NEW] [--no-debuginfod] [--precise] [--quiet]\n"
	"\t[--cache-dir=DIR] [--no-cache] [image-file] [profile-file...]\n"
	"   or: symprof [options] report.aprof... (aprof reports)\n"
	"\t[--rank=cost|growth] [--min-sizes=N] [--routine=NAME]\n"
	"\t[--plot=NAME [--output=FILE.svg] [--plot-axes=linear|log|logx|logy]]\n"
	"\t[--check] [-p] [-q] [--format=json|dot|flamegraph|folded|proto|speedscope]\n"
	"\t[--html=FILE] [--diff=BASE.aprof] [--quiet]\n"
	"   or: symprof [options] igprof.DUMP.gz... (IgProf dumps)\n"
	"\t[--counter=NAME] [--value=normal|peak] [--no-filter] [--merge-clones]\n"
	"\t[--leaks [--leak-addresses]] [--path-map=OLD=NEW] [-l] [-A]\n"
	"\t[--format=text|igprof|json|dot|flamegraph|folded|callgrind|proto|speedscope]\n"
	"\t[--html=FILE]\n"
	"   or: symprof --addr2line [-a] [-C] [-f] [-i] [-p] [-s] [--no-demangle] -e FILE\n"
	"\t[address...]   (addresses on stdin without any; addr2line's output;\n"
	"\twithout -a, -C, -f, -i, -p, -s: like addr2line -f -i -C)\n"
	"\n"
	"Reads gmon.out profiles (GNU, BSD and 4.4BSD formats) and prints GNU gprof's\n"
	"reports byte for byte; reads gperftools CPU profiles and prints gprof-style\n"
	"reports computed from the exact stacks, or google-pprof's --text; reads IgProf\n"
	"dumps and prints the same, igprof-analyse's reports or leak reports; reads\n"
	"aprof reports and prints cost-vs-input reports.\n"
	"See symprof(1) and docs/manual.md.\n";

static _Noreturn void usage_error(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

/* A regular expression --focus or --ignore can use (POSIX extended). */
static int check_regex(const char *opt, const char *re)
{
	regex_t rx;
	char msg[128];
	int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);

	if (rc != 0) {
		regerror(rc, &rx, msg, sizeof(msg));
		sp_cli_error("%s: bad regular expression '%s': %s", opt, re, msg);
		return -1;
	}
	regfree(&rx);
	return 0;
}

static void add_spec(struct sp_opts *o, const char *spec, enum sp_symspec_table t)
{
	SP_ALLOC_GROW(o->specs, o->nspecs + 1, o->specs_alloc);
	o->specs[o->nspecs].spec = spec;
	o->specs[o->nspecs].table = t;
	o->nspecs++;
}

void sp_cli_opts_release(struct sp_opts *o)
{
	size_t i;

	for (i = 0; i < o->npath_maps; i++)
		free((char *)o->path_maps[i].from);
	free(o->path_maps);
	for (i = 0; i < o->nlib_prefixes; i++)
		free(o->lib_prefixes[i]);
	free(o->lib_prefixes);
	sp_cli_debug_search_release(o);
	free(o->cache_dir);
	free(o->specs);
	free(o->src_dirs);
	free(o->profiles);
}

static void add_src_dirs(struct sp_opts *o, const char *dirs)
{
	SP_ALLOC_GROW(o->src_dirs, o->nsrc_dirs + 1, o->src_dirs_alloc);
	o->src_dirs[o->nsrc_dirs++] = dirs;
}

static void style_on(struct sp_opts *o, int style, const char *spec, enum sp_symspec_table t)
{
	if (spec)
		add_spec(o, spec, t);
	o->output_style |= style;
	o->user_specified |= style;
}

/* -P -Q -J -Z: without a spec, turn the style off; with one, exclude it. */
static void style_off(struct sp_opts *o, int style, const char *spec, enum sp_symspec_table t)
{
	if (spec) {
		add_spec(o, spec, t);
		o->output_style |= style;
	} else {
		o->output_style &= ~style;
	}
	o->user_specified |= style;
}

static int parse_file_format(struct sp_opts *o, const char *arg)
{
	switch (arg[0]) {
	case 'a':
		o->file_format = SP_GMON_AUTO;
		return 0;
	case 'm':
		o->file_format = SP_GMON_MAGIC;
		return 0;
	case 'b':
		o->file_format = SP_GMON_BSD;
		return 0;
	case '4':
		o->file_format = SP_GMON_BSD44;
		return 0;
	case 'p':
		o->file_format = SP_GMON_PROF;
		return 0;
	default:
		sp_cli_error("unknown file format '%s' (try auto, magic, bsd, 4.4bsd or prof)",
			     arg);
		return -1;
	}
}

static int parse_format(struct sp_opts *o, const char *arg)
{
	if (sp_cli_out_format_parse(arg, &o->out_format) == 0) {
		o->format_given = 1;
		return 0;
	}
	sp_cli_error("unknown output format '%s' (try text, json, dot, flamegraph, folded, "
		     "pprof, callgrind, igprof, proto or speedscope)",
		     arg);
	return -1;
}

/* A percentage in [0, 100]. */
static int parse_percent(double *dst, const char *opt, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0 && v <= 100)) {
		sp_cli_error("%s wants a percentage from 0 to 100, not '%s'", opt, arg);
		return -1;
	}
	*dst = v;
	return 0;
}

/* --path-map=OLD=NEW (the first '=' separates them). A NEW that does not
 * exist maps nothing: one warning per NEW, however many maps name it. */
static int add_path_map(struct sp_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct sp_path_map *m;
	struct stat st;
	size_t i;

	if (!eq || eq == arg) {
		sp_cli_error("bad --path-map '%s' (expected OLD=NEW)", arg);
		return -1;
	}
	for (i = 0; i < o->npath_maps && strcmp(o->path_maps[i].to, eq + 1); i++)
		;
	if (i == o->npath_maps && stat(eq + 1, &st) != 0)
		sp_cli_error("warning: --path-map: '%s' does not exist", eq + 1);
	SP_ALLOC_GROW(o->path_maps, o->npath_maps + 1, o->path_maps_alloc);
	m = &o->path_maps[o->npath_maps++];
	m->from = sp_xstrndup(arg, (size_t)(eq - arg));
	m->to = eq + 1;
	return 0;
}

/*
 * --lib_prefix=A,B: google-pprof's list of prefixes to find libraries
 * under (Perl's split: empty fields kept but the trailing ones); a later
 * option replaces it.
 */
static int set_lib_prefixes(struct sp_opts *o, const char *arg)
{
	const char *p = arg, *comma;
	size_t n;

	for (n = 0; n < o->nlib_prefixes; n++)
		free(o->lib_prefixes[n]);
	o->nlib_prefixes = 0;
	for (;;) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		SP_ALLOC_GROW(o->lib_prefixes, o->nlib_prefixes + 1, o->lib_prefixes_alloc);
		o->lib_prefixes[o->nlib_prefixes++] = sp_xstrndup(p, n);
		if (!comma)
			break;
		p = comma + 1;
	}
	while (o->nlib_prefixes && !o->lib_prefixes[o->nlib_prefixes - 1][0])
		free(o->lib_prefixes[--o->nlib_prefixes]);
	return 0;
}

/* The value of an option google-pprof takes as an integer (=i) or a
 * number (=f), which its --text report does not use. */
static int check_pprof_number(const char *opt, const char *arg, int integer)
{
	char *end;

	errno = 0;
	if (integer)
		(void)strtol(arg, &end, 10);
	else
		(void)strtod(arg, &end);
	if (!arg[0] || *end || errno) {
		sp_cli_error("%s: '%s' is not %s", opt, arg, integer ? "an integer" : "a number");
		return -1;
	}
	return 0;
}

static int parse_rank(struct sp_opts *o, const char *arg)
{
	if (!strcmp(arg, "cost"))
		o->rank = SP_IC_RANK_COST;
	else if (!strcmp(arg, "growth"))
		o->rank = SP_IC_RANK_GROWTH;
	else {
		sp_cli_error("unknown ranking '%s' (try cost or growth)", arg);
		return -1;
	}
	o->rank_given = 1;
	return 0;
}

static int parse_plot_axes(struct sp_opts *o, const char *arg)
{
	if (!strcmp(arg, "linear"))
		o->plot_axes = SP_PLOT_LINEAR;
	else if (!strcmp(arg, "log") || !strcmp(arg, "loglog"))
		o->plot_axes = SP_PLOT_LOG;
	else if (!strcmp(arg, "logx"))
		o->plot_axes = SP_PLOT_LOGX;
	else if (!strcmp(arg, "logy"))
		o->plot_axes = SP_PLOT_LOGY;
	else {
		sp_cli_error("unknown plot axes '%s' (try linear, log, logx or logy)", arg);
		return -1;
	}
	return 0;
}

static void print_version(void)
{
	printf("symprof %s\n", "0.1.0");
	printf("A symbolizing profile post-processor; reads gmon.out like GNU gprof 2.40.\n");
	printf("License GPLv3+: GNU GPL version 3 or later.\n");
}

/* One option; returns 0, 1 to exit successfully, -1 on a usage error. */
static int handle_option(struct sp_opts *o, int ch, const char *arg)
{
	switch (ch) {
	case 'a':
		o->no_static = 1;
		break;
	case 'A':
		style_on(o, STYLE_ANNOTATED_SOURCE, arg, SP_INCL_ANNO);
		break;
	case 'b':
		o->brief = 1;
		break;
	case 'B':
		style_on(o, STYLE_CALL_GRAPH, NULL, 0);
		break;
	case 'c':
		o->static_cg = 1;
		break;
	case 'C':
		style_on(o, STYLE_EXEC_COUNTS, arg, SP_INCL_EXEC);
		break;
	case 'd':
		if (arg)
			o->debug |= (unsigned)atoi(arg) | SP_DBG_ANY;
		else
			o->debug = ~0u;
		fprintf(stderr, "[main] debug-level=0x%x\n", o->debug);
		break;
	case 'D':
		o->ignore_non_functions = 1;
		break;
	case 'E':
		add_spec(o, arg, SP_EXCL_TIME); /* fall through */
	case 'e':
		add_spec(o, arg, SP_EXCL_GRAPH);
		o->last_e = arg;
		break;
	case 'F':
		add_spec(o, arg, SP_INCL_TIME); /* fall through */
	case 'f':
		add_spec(o, arg, SP_INCL_GRAPH);
		break;
	case 'h':
		fputs(usage_text, stdout);
		return 1;
	case 'i':
		style_on(o, STYLE_GMON_INFO, NULL, 0);
		break;
	case 'I':
		add_src_dirs(o, arg);
		break;
	case 'J':
		style_off(o, STYLE_ANNOTATED_SOURCE, arg, SP_EXCL_ANNO);
		break;
	case 'k':
		add_spec(o, arg, SP_EXCL_ARCS);
		break;
	case 'l':
		o->line = 1;
		break;
	case 'L':
		o->print_path = 1;
		break;
	case 'm':
		o->min_count = strtoul(arg, NULL, 10);
		break;
	case 'n':
		add_spec(o, arg, SP_INCL_TIME);
		break;
	case 'N':
		add_spec(o, arg, SP_EXCL_TIME);
		break;
	case 'O':
		return parse_file_format(o, arg);
	case 'p':
		style_on(o, STYLE_FLAT_PROFILE, arg, SP_INCL_FLAT);
		break;
	case 'P':
		style_off(o, STYLE_FLAT_PROFILE, arg, SP_EXCL_FLAT);
		break;
	case 'q':
		style_on(o, STYLE_CALL_GRAPH, arg,
			 arg && strchr(arg, '/') ? SP_INCL_ARCS : SP_INCL_GRAPH);
		break;
	case 'Q':
		style_off(o, STYLE_CALL_GRAPH, arg,
			  arg && strchr(arg, '/') ? SP_EXCL_ARCS : SP_EXCL_GRAPH);
		break;
	case 'r':
		style_on(o, STYLE_FUNCTION_ORDER, NULL, 0);
		break;
	case 'R':
		style_on(o, STYLE_FILE_ORDER, NULL, 0);
		o->function_map = arg;
		break;
	case 's':
		style_on(o, STYLE_SUMMARY_FILE, NULL, 0);
		break;
	case 'S':
		o->external_symtab = arg;
		break;
	case 't':
		o->table_length = atoi(arg) < 0 ? 0 : atoi(arg);
		break;
	case 'T':
		o->bsd = 1;
		break;
	case 'v':
		print_version();
		return 1;
	case 'w':
		o->width = atoi(arg) < 1 ? 1 : atoi(arg);
		break;
	case 'x':
		o->all_lines = 1;
		break;
	case 'y':
		o->separate_files = 1;
		break;
	case 'z':
		o->ignore_zeros = 0;
		break;
	case 'Z':
		style_off(o, STYLE_EXEC_COUNTS, arg, SP_EXCL_EXEC);
		break;
	case OPT_DEMANGLE:
		o->demangle = 1;
		if (arg && sp_demangle_set_style(arg) < 0) {
			sp_cli_error("unknown demangling style '%s'", arg);
			return -1;
		}
		break;
	case OPT_NO_DEMANGLE:
		o->demangle = 0;
		break;
	case OPT_INLINE_FILE_NAMES:
		o->inline_file_names = 1;
		break;
	case OPT_FORMAT:
		return parse_format(o, arg);
	case OPT_OUTPUT:
		o->output = arg;
		break;
	case OPT_PRECISE:
		o->precise = 1;
		break;
	case OPT_QUIET:
		o->quiet = 1;
		break;
	case OPT_INPUT_FORMAT:
		return sp_cli_format_parse(arg, &o->input_format);
	case OPT_ROUTINE:
		o->routine = arg;
		break;
	case OPT_RANK:
		return parse_rank(o, arg);
	case OPT_PLOT:
		o->plot = arg;
		break;
	case OPT_PLOT_AXES:
		return parse_plot_axes(o, arg);
	case OPT_CHECK:
		o->check = 1;
		break;
	case OPT_MIN_SIZES:
		o->min_sizes = strtoul(arg, NULL, 10);
		o->rank_given = 1;
		break;
	case OPT_NODE_THRESHOLD:
		return parse_percent(&o->node_threshold, "--node-threshold", arg);
	case OPT_EDGE_THRESHOLD:
		return parse_percent(&o->edge_threshold, "--edge-threshold", arg);
	case OPT_HTML:
		o->html = arg;
		break;
	case OPT_DIFF:
		o->diff = arg;
		break;
	case OPT_CUM:
		o->cum = 1;
		break;
	case OPT_TEXT:
		/* google-pprof's spelling */
		return parse_format(o, "pprof");
	case OPT_ADDRESSES:
		o->pprof_addresses = 1;
		break;
	case OPT_FILES:
		o->pprof_files = 1;
		break;
	case OPT_FUNCTIONS:
		o->pprof_functions = 1;
		break;
	case OPT_SHOW_ADDRESSES:
		o->show_addresses = 1;
		break;
	case OPT_FOCUS:
	case OPT_IGNORE:
		if (check_regex(ch == OPT_FOCUS ? "--focus" : "--ignore", arg) < 0)
			return -1;
		*(ch == OPT_FOCUS ? &o->focus : &o->ignore) = arg;
		break;
	case OPT_LIB_PREFIX:
		return set_lib_prefixes(o, arg);
	case OPT_NO_STRIP_TEMP:
		o->no_strip_temp = 1;
		break;
	case OPT_NO_AUTO_SIGNAL_FRM:
		o->no_auto_signal_frames = 1;
		break;
	case OPT_NODECOUNT:
		return check_pprof_number("--nodecount", arg, 1);
	case OPT_MAXDEGREE:
		return check_pprof_number("--maxdegree", arg, 1);
	case OPT_NODEFRACTION:
		return check_pprof_number("--nodefraction", arg, 0);
	case OPT_EDGEFRACTION:
		return check_pprof_number("--edgefraction", arg, 0);
	case OPT_TOOLS:
		break;
	case OPT_PPROF_BASE:
		o->pprof_base = arg;
		break;
	case OPT_DROP_NEGATIVE:
		o->pprof_drop_negative = 1;
		break;
	case OPT_PATH_MAP:
		return add_path_map(o, arg);
	case OPT_NO_DEBUGINFOD:
		o->no_debuginfod = 1;
		break;
	case OPT_CACHE_DIR:
		o->cache_dir_arg = arg;
		break;
	case OPT_NO_CACHE:
		o->no_cache = 1;
		break;
	case OPT_ADDR2LINE:
		o->addr2line = 1;
		break;
	case OPT_COUNTER:
		o->counter = arg;
		break;
	case OPT_VALUE:
		if (strcmp(arg, "normal") && strcmp(arg, "peak")) {
			sp_cli_error("--value wants normal or peak, not '%s'", arg);
			return -1;
		}
		o->value_peak = !strcmp(arg, "peak");
		o->value_given = 1;
		break;
	case OPT_NO_FILTER:
		o->no_filter = 1;
		break;
	case OPT_MERGE_CLONES:
		o->merge_clones = 1;
		break;
	case OPT_LEAKS:
		o->leaks = 1;
		break;
	case OPT_LEAK_ADDRESSES:
		o->leaks = o->leak_addresses = 1;
		break;
	default:
		return -1;
	}
	return 0;
}

/*
 * The index cache's directory (symbolize/dwcache.c), or NULL when it is
 * off: --no-cache or SYMPROF_NO_CACHE turn it off; --cache-dir, then
 * SYMPROF_CACHE_DIR, then $XDG_CACHE_HOME/symprof (an absolute one, as
 * the XDG spec says), then ~/.cache/symprof.
 */
static char *cache_dir(const struct sp_opts *o)
{
	const char *off = getenv("SYMPROF_NO_CACHE"), *env = getenv("SYMPROF_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct sp_buf b = SP_BUF_INIT;

	if (o->no_cache || (off && *off))
		return NULL;
	if (o->cache_dir_arg)
		sp_buf_addstr(&b, o->cache_dir_arg);
	else if (env)
		sp_buf_addstr(&b, env);
	else if (xdg && xdg[0] == '/')
		sp_buf_addf(&b, "%s/symprof", xdg);
	else if (home && home[0] == '/')
		sp_buf_addf(&b, "%s/.cache/symprof", home);
	if (!b.len) {
		sp_buf_release(&b);
		return NULL;
	}
	return sp_buf_detach(&b, NULL);
}

/*
 * The call graph text goes on two threads from this many lines (about 0.6
 * ms of formatting): a split costs about 0.3 ms (names filled first, a
 * thread, a fresh output buffer), so smaller graphs gain little or lose.
 * The benchmark's 77,000 lines take 2.7 ms on one thread.
 * SYMPROF_GRAPH_SPLIT=N overrides it (0: never); the tests set 1 to take
 * the two-thread path on small fixtures.
 */
#define GRAPH_SPLIT_LINES 16384

/* The variables that tune how symprof runs (never what it prints). */
static void read_environment(struct sp_opts *o)
{
	const char *threads = getenv("SYMPROF_THREADS");
	const char *split = getenv("SYMPROF_GRAPH_SPLIT");
	const char *lines_split = getenv("SYMPROF_LINES_SPLIT");

	o->no_threads = threads && !strcmp(threads, "0");
	/* with threads off the graph takes one thread whatever this says
	 * (report/graph.c asks sp_workers_enabled()) */
	o->graph_split = split && *split ? (unsigned)strtoul(split, NULL, 10) : GRAPH_SPLIT_LINES;
	/* -l's line lookups in two halves from this many points (0: never) */
	if (lines_split && *lines_split)
		sp_image_set_lines_split((size_t)strtoull(lines_split, NULL, 10));
}

/*
 * The arguments after the options: the image, then the profiles (for
 * --addr2line, addresses), `dflt` standing for the profiles when there are
 * none (NULL: nothing); then what the options decided about the files.
 */
static void take_files(struct sp_opts *o, int argc, char **argv, const char *dflt)
{
	int i;

	if (optind < argc) {
		o->image = argv[optind++];
		o->image_given = 1;
	}
	o->profiles = sp_xmalloc((size_t)(argc - optind + 1) * sizeof(*o->profiles));
	for (i = optind; i < argc; i++)
		o->profiles[o->nprofiles++] = argv[i];
	if (!o->nprofiles) {
		if (dflt)
			o->profiles[o->nprofiles++] = dflt;
		o->profiles_defaulted = 1;
	}
	sp_cli_debug_search_init(o);
	o->cache_dir = cache_dir(o);
}

/*
 * --addr2line's command line is addr2line's (binutils 2.40): its options,
 * then addresses, parsed here rather than as gprof's (whose -a, -C, -f, -i,
 * -p, -s mean other things). With none of -a, -C, -f, -i, -p, -s the output
 * is `addr2line -f -i -C`'s (symprof's default, documented); with any of
 * them, exactly addr2line's for the options given.
 */
static const struct option a2l_long_options[] = {
	{"addresses", no_argument, 0, 'a'},
	{"target", required_argument, 0, 'b'},
	{"demangle", optional_argument, 0, 'C'},
	{"no-demangle", no_argument, 0, OPT_NO_DEMANGLE},
	{"exe", required_argument, 0, 'e'},
	{"functions", no_argument, 0, 'f'},
	{"inlines", no_argument, 0, 'i'},
	{"section", required_argument, 0, 'j'},
	{"pretty-print", no_argument, 0, 'p'},
	{"basenames", no_argument, 0, 's'},
	{"recurse-limit", no_argument, 0, 'R'},
	{"no-recurse-limit", no_argument, 0, 'r'},
	{"help", no_argument, 0, 'H'},
	{"version", no_argument, 0, 'v'},
	SHARED_LONG_OPTIONS, /* symprof's own */
	{0, 0, 0, 0},
};

static int parse_addr2line(struct sp_opts *o, int argc, char **argv)
{
	int ch, demangle = 0, any = 0;

	while ((ch = getopt_long(argc, argv, "ab:Ce:fHhij:pRrsVv", a2l_long_options, NULL)) != -1) {
		switch (ch) {
		case 'a':
			o->a2l_addresses = any = 1;
			break;
		case 'C':
			demangle = any = 1;
			if (optarg && sp_demangle_set_style(optarg) < 0) {
				sp_cli_error("unknown demangling style '%s'", optarg);
				usage_error();
			}
			break;
		case OPT_NO_DEMANGLE:
			demangle = -1;
			break;
		case 'e':
			o->last_e = optarg;
			break;
		case 'f':
			o->a2l_functions = any = 1;
			break;
		case 'i':
			o->a2l_inlines = any = 1;
			break;
		case 'p':
			o->a2l_pretty = any = 1;
			break;
		case 's':
			o->a2l_basenames = any = 1;
			break;
		case 'r':
		case 'R':
			break; /* the demangler's recursion limit: symprof's has its own */
		case 'b':
		case 'j':
			sp_cli_error("--addr2line: %s is not supported (%s)",
				     ch == 'b' ? "-b/--target" : "-j/--section",
				     ch == 'b' ? "the file's format is read from the file"
					       : "addresses are virtual addresses");
			usage_error();
		case 'H':
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case 'V':
		case 'v':
			print_version();
			return 1;
		case OPT_ADDR2LINE:
			o->addr2line = 1;
			break;
		case OPT_PATH_MAP:
		case OPT_NO_DEBUGINFOD:
		case OPT_CACHE_DIR:
		case OPT_NO_CACHE:
			if (handle_option(o, ch, optarg) < 0)
				usage_error();
			break;
		default:
			usage_error();
		}
	}
	if (!any)
		o->a2l_functions = o->a2l_inlines = 1;
	/* addr2line demangles with -C only; bare --addr2line does (unless
	 * --no-demangle) */
	o->demangle = demangle > 0 || (demangle == 0 && !any);
	take_files(o, argc, argv, NULL);
	return 0;
}

/* Whether the command line asks --addr2line (before any "--"). */
static int wants_addr2line(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--addr2line"))
			return 1;
	return 0;
}

int sp_cli_parse(struct sp_opts *o, int argc, char **argv)
{
	int ch;

	memset(o, 0, sizeof(*o));
	o->image = "a.out";
	o->width = 80;
	o->table_length = 10;
	o->min_count = 1;
	o->ignore_zeros = 1;
	o->demangle = 1;
	o->node_threshold = SP_DOT_NODE_THRESHOLD;
	o->edge_threshold = SP_DOT_EDGE_THRESHOLD;
	read_environment(o);
	opterr = 1;
	if (wants_addr2line(argc, argv))
		return parse_addr2line(o, argc, argv);
	while ((ch = getopt_long(argc, argv, SHORTOPTS, long_options, NULL)) != -1) {
		int r = handle_option(o, ch, optarg);

		if (r > 0)
			return 1;
		if (r < 0)
			usage_error();
	}
	/* google-pprof's rule: one granularity at most */
	if (o->pprof_addresses + o->pprof_files + o->pprof_functions + o->line > 1) {
		sp_cli_error("only one of --addresses, --lines, --functions and --files can be "
			     "given");
		usage_error();
	}
	if (o->pprof_base && (o->out_format != SP_OUT_PPROF || o->diff || o->html)) {
		sp_cli_error("--base subtracts a profile in google-pprof's report "
			     "(--format=pprof or --text) alone; the other reports compare with "
			     "--diff=BASE");
		usage_error();
	}
	if (o->diff && o->out_format != SP_OUT_TEXT && o->out_format != SP_OUT_JSON) {
		sp_cli_error("--diff prints text, JSON (--format=json) or HTML (--html), not "
			     "--format=%s",
			     sp_cli_out_format_name(o->out_format));
		usage_error();
	}
	take_files(o, argc, argv, "gmon.out");
	return 0;
}
