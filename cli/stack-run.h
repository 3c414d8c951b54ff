/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to cli/: the pipeline the gperftools command (cmd-gperf.c) and
 * the pprof protobuf command (cmd-pprof.c) share, in stack-run.c.
 *
 *   the command's load: symbolizer (sp_cli_stack_symbolizer()), profiles
 *   read and summed, what the reports count
 *   -> the stack renderers' own formats (pprof, callgrind, folded, proto)
 *   -> frames -> functions -> the exact call graph of the stacks
 *      (sp_cg_from_cct()) -> gprof's text (-p, -q, -A), or the model of
 *      cli/render.c (json, dot, flamegraph, speedscope, --html, --diff)
 *
 * What differs between the formats (the counter, its unit, the JSON's
 * metric, the proto's sample types) comes from the command's struct
 * sp_cli_stack_ops; the rest is here once.
 */
#ifndef SYMPROF_CLI_STACK_RUN_H
#define SYMPROF_CLI_STACK_RUN_H

#include <stdio.h>

#include "cli.h"
#include "symprof/cg.h"

struct sp_annotate_samples_opts;
struct sp_flame;
struct sp_proto_opts;
struct sp_report_meta;
struct sp_stack_report_opts;
struct sp_cli_stack_ops;

/* One run of the pipeline: a command's own run struct starts with it. */
struct sp_cli_stack_run {
	const struct sp_cli_stack_ops *ops;
	struct sp_opts *o;
	const char *const *files; /* the profiles read */
	size_t nfiles;
	struct sp_profile *prof;
	struct sp_symbolizer *sym;
	struct sp_frame_funcs ff;
	struct sp_cg_stack_opts co; /* as the graph was built */
	struct sp_cg *cg;
	const char **objs; /* per function: its object (JSON) */
	struct sp_flame *flame;
	struct sp_cli_sources src;
	FILE *out;
	const char *exe; /* the executable on the command line, or NULL */
};

/* What a stack format's command brings to the pipeline. */
struct sp_cli_stack_ops {
	const char *format; /* the JSON's "format" */
	/* flame graph names: demangle only linkage names (else every name) */
	unsigned flame_linkage_only : 1;
	/* Reads g->files into g->prof (g->sym exists), says what is worth a
	 * warning and sets up what the reports count: 0, or 1 after a
	 * message. */
	int (*read)(struct sp_cli_stack_run *g);
	/* The graph's counter, field, hz and dimension (co is zeroed; the
	 * frames are the pipeline's). */
	void (*graph_opts)(const struct sp_cli_stack_run *g, struct sp_cg_stack_opts *co);
	/* The counter of the stack renderers and of -A (so and ao are filled
	 * but for it), or NULL: their defaults. */
	void (*stack_opts)(const struct sp_cli_stack_run *g, struct sp_stack_report_opts *so);
	void (*annotate_opts)(const struct sp_cli_stack_run *g,
			      struct sp_annotate_samples_opts *ao);
	/* --format=proto's sample types and period. */
	void (*proto_opts)(const struct sp_cli_stack_run *g, struct sp_proto_opts *po);
	/* The JSON's metric, unit and seconds per sample. */
	void (*meta)(const struct sp_cli_stack_run *g, struct sp_report_meta *meta);
	/* The flame graph's units (its names are the pipeline's). */
	void (*flame_units)(const struct sp_cli_stack_run *g, struct sp_flame *fl);
};

/* The whole pipeline for o->profiles, g zeroed but for g->ops: the
 * command's run function. Returns the exit status. */
int sp_cli_stack_pipeline(struct sp_cli_stack_run *g, struct sp_opts *o);

/*
 * --diff: the base profile at `path` through the same pipeline, none of
 * its outputs, into m (the command's model function). g is zeroed but
 * for g->ops, and allocated with malloc: m->release frees it.
 */
int sp_cli_stack_base(struct sp_cli_stack_run *g, struct sp_opts *o, const char *path,
		      struct sp_cli_model *m);

#endif
