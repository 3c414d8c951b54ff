/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The gperftools CPU profile pipeline:
 *
 *   read and sum every profile (formats/gperf.c)
 *   -> symbolizer: the executable named on the command line stands for
 *      the profile's main object, --path-map and build-ids find the rest
 *   -> by --format:
 *        text       frames -> functions (inline chains expanded) -> exact
 *                   call graph of the stacks -> gprof's flat profile, call
 *                   graph and index (no call counts: sampling has none);
 *                   -A: annotated source with per-line samples
 *        pprof      google-pprof --text (its naming and counting rules)
 *        callgrind  KCachegrind's format, inclusive cost once per sample
 *        folded     one "a;b;c N" line per distinct stack
 *        proto      pprof's profile.proto: the stacks, their addresses
 *                   and inline chains
 *        json, dot, flamegraph, --html, --diff: the exact call graph and
 *                   flame graph of the stacks, handed to cli/render.c
 *
 * The steps after reading are cli/stack-run.c's, shared with the pprof
 * protobuf command; this file says what is gperftools' own.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stack-run.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

/* Whether the report is google-pprof's text alone: it reads the stacks as
 * a list, which the reader fills faster than the calling-context tree. */
static int pprof_only(const struct sp_opts *o)
{
	return o->out_format == SP_OUT_PPROF && !o->diff && !o->html;
}

static void check_main(const struct sp_cli_stack_run *g)
{
	size_t i, nmain = 0;

	if (g->o->nspecs)
		sp_cli_error("warning: symbol specifications (-p NAME, -q NAME, -e, -f, -k ...) "
			     "are not supported for stack profiles yet: ignored");
	for (i = 0; i < g->prof->nobjects; i++)
		nmain += g->prof->objects[i].is_main;
	if (g->exe && !nmain && g->prof->nmaps)
		sp_cli_error("warning: the profile maps no executable: '%s' is not used", g->exe);
}

/* Adds the profile at `path` to g's (counted negative with --base). */
static int read_one(struct sp_cli_stack_run *g, const char *path, int negative)
{
	struct sp_error err = SP_ERROR_INIT;
	size_t maps = g->prof->nmaps, first = g->prof->nstacks, i;

	if (sp_fmt_gperf_read(g->prof, path, &err) < 0) {
		sp_cli_error("%s", err.msg);
		return 1;
	}
	if (g->prof->nmaps == maps && !(g->o->image && g->o->image_given))
		sp_cli_error("warning: '%s' has no memory map: its addresses cannot be "
			     "symbolized",
			     path);
	/* each count is below 2^63 (the reader checks the sums) */
	for (i = first; negative && i < g->prof->nstacks; i++)
		g->prof->stacks[i].count = -g->prof->stacks[i].count;
	return 0;
}

/* Records a and b's stacks as pprof's keys: by depth, then address by
 * address (each file has frames of its own: their addresses compare). */
static int cmp_stack(const void *a, const void *b, void *ctx)
{
	const struct sp_profile *p = ctx;
	const struct sp_stack *x = &p->stacks[*(const uint32_t *)a];
	const struct sp_stack *y = &p->stacks[*(const uint32_t *)b];
	size_t k;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	for (k = 0; k < x->depth; k++) {
		uint64_t u = p->frames[p->stack_frames[x->first + k]].addr;
		uint64_t v = p->frames[p->stack_frames[y->first + k]].addr;

		if (u != v)
			return u < v ? -1 : 1;
	}
	return 0;
}

/*
 * google-pprof's --drop_negative, after the base's stacks (records
 * [base, nstacks), negated) joined the profiles' ([0, base)). pprof sums
 * the profiles per stack, subtracts the base per stack and, with the
 * option, counts a negative difference as 0 and leaves out the base's
 * stacks that the profiles lack. Records of equal stacks (the same
 * addresses as recorded, the leaf first) end in their group's first,
 * clamped at 0; the others go. Stable sort: each group's first record is
 * its first in file order.
 */
static void drop_negative(struct sp_profile *p, size_t base)
{
	uint32_t *order = sp_xreallocarray(NULL, p->nstacks ? p->nstacks : 1, sizeof(*order));
	char *gone = sp_xcalloc(p->nstacks + 1, 1);
	size_t i, j, w = 0;

	for (i = 0; i < p->nstacks; i++)
		order[i] = (uint32_t)i;
	sp_sort(order, p->nstacks, sizeof(*order), cmp_stack, p);
	for (i = 0; i < p->nstacks; i = j) {
		struct sp_stack *head = &p->stacks[order[i]];

		for (j = i + 1; j < p->nstacks && !cmp_stack(&order[i], &order[j], p); j++) {
			head->count += p->stacks[order[j]].count;
			gone[order[j]] = 1;
		}
		if (order[i] >= base)
			gone[order[i]] = 1; /* the base's alone */
		else if (head->count < 0)
			head->count = 0;
	}
	for (i = 0; i < p->nstacks; i++)
		if (!gone[i])
			p->stacks[w++] = p->stacks[i];
	p->nstacks = w;
	free(gone);
	free(order);
}

/*
 * The profiles, summed; then google-pprof's --base (SubtractProfile): the
 * base's stacks with their counts negated. pprof subtracts per stack and
 * its report sums per entry, so the same stack counted twice, once each
 * way, gives the same rows (with their zeros). Only the list form (the
 * pprof report alone) keeps stacks as they are read.
 */
static int read_profiles(struct sp_cli_stack_run *g)
{
	size_t i;

	g->prof = sp_profile_new(SP_PROFILE_GPERF);
	g->prof->stack_list = pprof_only(g->o);
	for (i = 0; i < g->nfiles; i++) {
		sp_cli_progress_reading(g->files[i], i, g->nfiles);
		if (read_one(g, g->files[i], 0))
			return 1;
	}
	if (g->o->pprof_base) {
		size_t base = g->prof->nstacks; /* the base's records from here */

		/* sp_cli_parse() takes --base with the pprof report alone */
		if (!g->prof->stack_list)
			SP_BUG("--base without the stacks as a list");
		if (read_one(g, g->o->pprof_base, 1))
			return 1;
		if (g->o->pprof_drop_negative)
			drop_negative(g->prof, base);
	}
	if (g->prof->diag[SP_DIAG_PERIOD_MIXED])
		sp_cli_error("warning: the profiles have different sampling periods: samples are "
			     "added as they are, and count as %g seconds each",
			     (double)g->prof->period_ns / 1e9);
	if (g->prof->diag[SP_DIAG_EMPTY_STACK])
		sp_cli_error("warning: skipped %llu records with an empty stack",
			     (unsigned long long)g->prof->diag[SP_DIAG_EMPTY_STACK]);
	sp_cli_mark("read profiles");
	check_main(g);
	return 0;
}

/* Samples per second: the cg's "hz" (values are sample counts). */
static long sample_rate(const struct sp_profile *p)
{
	double hz = p->period_ns ? 1e9 / (double)p->period_ns : 100;

	return hz < 1 ? 1 : lround(hz);
}

static void graph_opts(const struct sp_cli_stack_run *g, struct sp_cg_stack_opts *co)
{
	co->counter = sp_profile_find_counter(g->prof, "samples");
	co->field = SP_VALUE_COUNT;
	co->hz = sample_rate(g->prof);
	co->dimen = "seconds";
	co->dimen_abbrev = 's';
	co->counts_known = 0;
	if (co->counter == SP_NONE)
		co->counter = 0;
}

static void meta(const struct sp_cli_stack_run *g, struct sp_report_meta *m)
{
	m->metric = "time";
	m->unit = "seconds";
	m->sample_seconds = (double)g->prof->period_ns / 1e9;
}

/* Values are samples, each worth the period. */
static void flame_units(const struct sp_cli_stack_run *g, struct sp_flame *fl)
{
	fl->unit = sp_strtab_intern(&fl->names, "samples");
	fl->dimen = sp_strtab_intern(&fl->names, "seconds");
	fl->unit_scale = (double)g->prof->period_ns / 1e9;
}

/* --format=proto: samples and CPU time, the period. */
static void proto_opts(const struct sp_cli_stack_run *g, struct sp_proto_opts *po)
{
	uint32_t c = sp_profile_find_counter(g->prof, "samples");
	double period = (double)g->prof->period_ns;

	po->values[0] =
		(struct sp_proto_value){"samples", "count", SP_PROTO_COUNTER, c, SP_PICK_COUNT, 1};
	po->values[1] = (struct sp_proto_value){"cpu", "nanoseconds", SP_PROTO_COUNTER,
						c,     SP_PICK_COUNT, period};
	po->nvalues = 2;
	po->default_value = 1;
	po->period_type = "cpu";
	po->period_unit = "nanoseconds";
	po->period = (int64_t)g->prof->period_ns;
}

static const struct sp_cli_stack_ops gperf_ops = {
	.format = "gperftools",
	.read = read_profiles,
	.graph_opts = graph_opts,
	.proto_opts = proto_opts,
	.meta = meta,
	.flame_units = flame_units,
};

static int gperf_pipeline(struct sp_opts *o)
{
	struct sp_cli_stack_run g;

	memset(&g, 0, sizeof(g));
	g.ops = &gperf_ops;
	return sp_cli_stack_pipeline(&g, o);
}

/*
 * --diff: the base profile through the same pipeline (the executable on
 * the command line stands for its main object too), none of its outputs.
 */
static int gperf_base(struct sp_opts *o, const char *path, struct sp_cli_model *m)
{
	struct sp_cli_stack_run *g = sp_xcalloc(1, sizeof(*g));

	g->ops = &gperf_ops;
	return sp_cli_stack_base(g, o, path, m);
}

/* The executable, when named, stands for the profile's main object. */
const struct sp_cli_format sp_cmd_gperf_format = {
	.name = "gperftools",
	.noun = "gperftools profile",
	.plural = "gperftools profiles",
	.probe = sp_fmt_gperf_probe,
	.image = 1,
	.outputs = SP_CLI_OUT_SHARED | SP_CLI_OUT(SP_OUT_PPROF) | SP_CLI_OUT(SP_OUT_CALLGRIND),
	.measures = "time",
	.run = gperf_pipeline,
	.model = gperf_base,
};
