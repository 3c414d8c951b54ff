/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The pprof protobuf pipeline:
 *
 *   read and sum every profile (formats/pprof.c; gzip, bzip2 or plain)
 *   -> the counter the reports count: a sample type counted in "count"
 *      when the profile has a period in nanoseconds (a CPU profile: its
 *      samples, each worth the period, as gperftools' reports count
 *      them), else the default sample type, else the last one (pprof's
 *      rule); amounts in nanoseconds, microseconds, milliseconds or
 *      seconds print as seconds, others in their own unit
 *   -> symbolizer: frames whose locations carry lines are named by them
 *      (sp_symbolizer_frame() answers with what the profile recorded);
 *      the others are looked up in the files the mappings name (the
 *      executable on the command line stands for the main mapping,
 *      --path-map and build-ids find the rest), as for gperftools
 *   -> by --format, as for gperftools profiles (the stack pipeline both
 *      share, cli/stack-run.c): gprof's text from the exact stacks, -l,
 *      -A; pprof, callgrind, folded, proto from the stacks; json, dot,
 *      flamegraph, speedscope, --html, --diff through cli/render.c
 */
#include "cli.h"

#include <string.h>

#include "stack-run.h"
#include "symprof/alloc.h"
#include "symprof/annotate.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

struct pprof_run {
	struct sp_cli_stack_run run; /* first: the pipeline's callbacks get it */
	uint32_t counter;	     /* what the reports count */
	long hz;		     /* counter units per dimension unit */
	const char *dimen;	     /* "seconds", "bytes" ... */
	double unit_scale;	     /* seconds (or dimen units) per counter unit */
	const char *metric;	     /* the JSON's metric */
};

static const struct pprof_run *pprof_of(const struct sp_cli_stack_run *run)
{
	return (const struct pprof_run *)run;
}

/* Seconds per unit of a time unit, 0 for other units. */
static double seconds_per(const char *unit)
{
	static const struct {
		const char *name;
		double s;
	} t[] = {{"nanoseconds", 1e-9},
		 {"microseconds", 1e-6},
		 {"milliseconds", 1e-3},
		 {"seconds", 1}};
	size_t i;

	for (i = 0; unit && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(unit, t[i].name))
			return t[i].s;
	return 0;
}

/* The counter the reports count and how its values print (see above). */
static void pick_counter(struct pprof_run *g)
{
	const struct sp_profile *p = g->run.prof;
	double s;
	size_t i;

	g->counter = p->pprof.default_counter != SP_NONE ? p->pprof.default_counter
							 : (uint32_t)(p->ncounters - 1);
	for (i = 0; p->period_ns && i < p->ncounters; i++)
		if (!strcmp(p->counters[i].unit, "count")) {
			g->counter = (uint32_t)i;
			g->hz = (long)(1e9 / (double)p->period_ns + 0.5);
			g->hz = g->hz < 1 ? 1 : g->hz;
			g->dimen = "seconds";
			g->unit_scale = (double)p->period_ns / 1e9;
			g->metric = "time";
			return;
		}
	g->metric = p->counters[g->counter].name;
	if ((s = seconds_per(p->counters[g->counter].unit)) > 0) {
		g->hz = (long)(1 / s + 0.5);
		g->dimen = "seconds";
		g->unit_scale = s;
		g->metric = "time";
		return;
	}
	g->hz = 1;
	g->dimen = p->counters[g->counter].unit;
	g->unit_scale = 1;
}

static int read_profiles(struct sp_cli_stack_run *run)
{
	size_t i;

	if (run->o->pprof_base) {
		sp_cli_error("--base subtracts gperftools CPU profiles, not pprof protobufs "
			     "(compare with --diff=BASE)");
		return 1;
	}
	run->prof = sp_profile_new(SP_PROFILE_PPROF);
	for (i = 0; i < run->nfiles; i++) {
		struct sp_error err = SP_ERROR_INIT;

		sp_cli_progress_reading(run->files[i], i, run->nfiles);
		if (sp_fmt_pprof_read(run->prof, run->files[i], &err) < 0) {
			sp_cli_error("%s", err.msg);
			return 1;
		}
	}
	if (run->prof->diag[SP_DIAG_EMPTY_STACK])
		sp_cli_error("warning: skipped %llu samples with no location",
			     (unsigned long long)run->prof->diag[SP_DIAG_EMPTY_STACK]);
	sp_cli_mark("read profiles");
	pick_counter((struct pprof_run *)run);
	return 0;
}

static void graph_opts(const struct sp_cli_stack_run *run, struct sp_cg_stack_opts *co)
{
	const struct pprof_run *g = pprof_of(run);

	co->counter = g->counter;
	co->field = SP_VALUE_COUNT;
	co->hz = g->hz;
	co->dimen = g->dimen;
	co->dimen_abbrev = g->dimen[0];
}

static void meta(const struct sp_cli_stack_run *run, struct sp_report_meta *m)
{
	const struct pprof_run *g = pprof_of(run);

	m->metric = g->metric;
	m->unit = g->dimen;
	m->sample_seconds = !strcmp(g->metric, "time") ? g->unit_scale : 0;
}

static void flame_units(const struct sp_cli_stack_run *run, struct sp_flame *fl)
{
	const struct pprof_run *g = pprof_of(run);

	if (!strcmp(g->dimen, "seconds")) {
		fl->dimen = sp_strtab_intern(&fl->names, "seconds");
		fl->unit_scale = g->unit_scale;
	}
}

/* --format=proto: every sample type as read, period and duration. */
static void proto_opts(const struct sp_cli_stack_run *run, struct sp_proto_opts *po)
{
	const struct sp_profile *p = run->prof;
	size_t i;

	for (i = 0; i < p->ncounters && i < SP_PROTO_MAX_VALUES; i++)
		po->values[po->nvalues++] = (struct sp_proto_value){
			p->counters[i].name, p->counters[i].unit, SP_PROTO_COUNTER,
			(uint32_t)i,	     SP_PICK_VALUE,	  1};
	po->default_value =
		p->pprof.default_counter != SP_NONE ? (int)p->pprof.default_counter : -1;
	po->period_type = p->pprof.period_type;
	po->period_unit = p->pprof.period_unit ? p->pprof.period_unit : "";
	po->period = p->pprof.period;
	po->time_ns = p->pprof.time_ns;
	po->duration_ns = p->pprof.duration_ns;
}

/* The stack renderers count the counter's events ("samples" is their
 * default; callgrind: "Samples"). */
static void stack_opts(const struct sp_cli_stack_run *run, struct sp_stack_report_opts *so)
{
	const char *name = run->prof->counters[pprof_of(run)->counter].name;

	so->counter = strcmp(name, "samples") ? name : NULL;
	so->pick = SP_PICK_COUNT;
}

static void annotate_opts(const struct sp_cli_stack_run *run, struct sp_annotate_samples_opts *ao)
{
	ao->counter = run->prof->counters[pprof_of(run)->counter].name;
	ao->pick = SP_PICK_COUNT;
}

static const struct sp_cli_stack_ops pprof_ops = {
	.format = "pprof",
	.flame_linkage_only = 1,
	.read = read_profiles,
	.graph_opts = graph_opts,
	.stack_opts = stack_opts,
	.annotate_opts = annotate_opts,
	.proto_opts = proto_opts,
	.meta = meta,
	.flame_units = flame_units,
};

static int pprof_pipeline(struct sp_opts *o)
{
	struct pprof_run g;

	memset(&g, 0, sizeof(g));
	g.run.ops = &pprof_ops;
	return sp_cli_stack_pipeline(&g.run, o);
}

/* --diff: the base profile through the same pipeline, none of its outputs. */
static int pprof_base(struct sp_opts *o, const char *path, struct sp_cli_model *m)
{
	struct pprof_run *g = sp_xcalloc(1, sizeof(*g));

	g->run.ops = &pprof_ops;
	return sp_cli_stack_base(&g->run, o, path, m);
}

/* Plain or compressed; the executable, when named, stands for the main
 * mapping. A CPU profile measures time as gperftools' and gmon.out's do;
 * a profile of something else is told apart by its metric once loaded. */
const struct sp_cli_format sp_cmd_pprof_format = {
	.name = "pprof",
	.noun = "pprof protobuf",
	.plural = "pprof protobufs",
	.probe = sp_fmt_pprof_probe,
	.compressed = 1,
	.image = 1,
	.outputs = SP_CLI_OUT_SHARED | SP_CLI_OUT(SP_OUT_PPROF) | SP_CLI_OUT(SP_OUT_CALLGRIND),
	.measures = "time",
	.run = pprof_pipeline,
	.model = pprof_base,
};
