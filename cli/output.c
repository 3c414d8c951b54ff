/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What every pipeline does the same way around its reports: the names of
 * the --format outputs, the --output file (opened before any work,
 * flushed and closed with one message when a write failed), and gprof's
 * text for a graph built from stacks.
 */
#include "cli.h"

#include <errno.h>
#include <string.h>

#include "symprof/error.h"
#include "symprof/report.h"

static const struct {
	const char *name;
	enum sp_out_format f;
} out_formats[] = {
	{"text", SP_OUT_TEXT},
	{"gprof", SP_OUT_TEXT},
	{"json", SP_OUT_JSON},
	{"dot", SP_OUT_DOT},
	{"flamegraph", SP_OUT_FLAMEGRAPH},
	{"folded", SP_OUT_FOLDED},
	{"pprof", SP_OUT_PPROF},
	{"callgrind", SP_OUT_CALLGRIND},
	{"igprof", SP_OUT_IGPROF},
	{"proto", SP_OUT_PROTO},
	{"speedscope", SP_OUT_SPEEDSCOPE},
};

int sp_cli_out_format_parse(const char *name, enum sp_out_format *f)
{
	size_t i;

	for (i = 0; i < sizeof(out_formats) / sizeof(out_formats[0]); i++)
		if (!strcmp(name, out_formats[i].name)) {
			*f = out_formats[i].f;
			return 0;
		}
	return -1;
}

const char *sp_cli_out_format_name(enum sp_out_format f)
{
	size_t i;

	for (i = 0; i < sizeof(out_formats) / sizeof(out_formats[0]); i++)
		if (out_formats[i].f == f)
			return out_formats[i].name;
	SP_BUG("output format %d has no name", (int)f);
}

FILE *sp_cli_open_output(const struct sp_opts *o)
{
	FILE *f;

	if (!o->output || !strcmp(o->output, "-"))
		return stdout;
	if (!(f = fopen(o->output, "w")))
		sp_cli_error("cannot write '%s': %s", o->output, strerror(errno));
	return f;
}

int sp_cli_close_output(const struct sp_opts *o, FILE *out, int rc)
{
	int named = out != stdout;

	if (!out)
		return rc;
	if ((fflush(out) != 0 || ferror(out)) && !rc) {
		if (named)
			sp_cli_error("cannot write '%s': write error", o->output);
		else
			sp_cli_error("cannot write the report: write error");
		rc = 1;
	}
	if (named && fclose(out) != 0 && !rc) {
		sp_cli_error("cannot write '%s': %s", o->output, strerror(errno));
		rc = 1;
	}
	return rc;
}

void sp_cli_stack_report_opts(const struct sp_opts *o, struct sp_report_opts *ro)
{
	memset(ro, 0, sizeof(*ro));
	ro->brief = o->brief;
	ro->demangle = o->demangle;
	ro->inline_file_names = o->line || o->inline_file_names;
	ro->print_path = o->print_path;
	ro->ignore_zeros = o->ignore_zeros;
	ro->width = o->width;
}

int sp_cli_print_stack_text(const struct sp_opts *o, FILE *out, const struct sp_cg *cg)
{
	struct sp_report_opts ro;
	struct sp_report r;
	int style = o->output_style;

	/* gprof's defaults: flat profile and call graph, less what -P/-Q took */
	if (!style)
		style = (STYLE_FLAT_PROFILE | STYLE_CALL_GRAPH) & ~o->user_specified;
	sp_cli_stack_report_opts(o, &ro);
	sp_report_init(&r, out, cg, &ro);
	if (style & STYLE_FLAT_PROFILE)
		sp_report_flat(&r);
	if (style & STYLE_CALL_GRAPH) {
		sp_report_graph(&r);
		sp_report_index(&r);
	}
	sp_report_release(&r);
	return style;
}
