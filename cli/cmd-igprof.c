/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The IgProf dump pipeline:
 *
 *   read and merge every dump (formats/igprof.c; decompressed on a thread)
 *   -> the counter: --counter, else PERF_TICKS, else the first one defined
 *   -> symbolizer: each F entry's file (--path-map), its first PT_LOAD for
 *      the offsets, debug files by build-id or .gnu_debuglink (libc6-dbg)
 *   -> frames -> functions: the function each address is in, as
 *      igprof-analyse -g names it (IgProf's own name only when nothing
 *      else does; "@{file+offset}" when nothing does), clones merged with
 *      --merge-clones
 *   -> igprof-analyse's call tree (cg/igtree.c): one counter's value or
 *      peak, the default filters unless --no-filter; and the same filters
 *      on the dumps' frames (the frame tree: call sites kept)
 *   -> by --format:
 *        text       gprof's flat profile, call graph and index, exact from
 *                   the tree (calls = the counter's count of events); with
 *                   -l from the frame tree at line granularity; -A
 *                   annotated source with the frame tree's values per
 *                   line; --leaks: the leak report instead
 *        igprof     igprof-analyse's report (report/igprof.c)
 *        json       the document of docs/formats.md
 *        folded     one "a;b;c N" line per stack of the tree
 *        callgrind  from the frame tree, with source lines
 *        proto      pprof's profile.proto of the frame tree
 *        dot, flamegraph, --html, --diff: render.c
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/annotate.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

struct igprof_run {
	struct sp_opts *o;
	struct sp_profile *prof;  /* the dumps */
	struct sp_profile *tree;  /* igprof-analyse's tree of functions */
	struct sp_profile *ftree; /* the same filters on prof's frames */
	struct sp_symbolizer *sym;
	struct sp_frame_funcs ff;  /* frames of prof (and ftree) -> functions */
	struct sp_frame_funcs lff; /* -l: frames of prof (and ftree) -> lines */
	struct sp_frame_funcs tff; /* frames of tree -> functions (identity) */
	struct sp_cg *cg;
	struct sp_flame *flame;
	const char **objs;
	uint32_t counter;
	FILE *out;
	char note[160];
	char proto_count[64];	   /* --format=proto: "MEM_LIVE_count" */
	struct sp_cli_sources src; /* --html: annotated source */
};

/* Symbolization problems are warnings, except about IgProf's own library
 * (its frames are dropped by the default filters, and it is rarely kept
 * beside a dump). */
static void warn_cb(void *ctx, const char *msg)
{
	const struct igprof_run *g = ctx;

	if (!g->o->no_filter && strstr(msg, "libigprof."))
		return;
	sp_cli_error("warning: %s", msg);
}

static int read_dumps(struct igprof_run *g)
{
	struct sp_igprof_read_opts ro;
	size_t i;

	memset(&ro, 0, sizeof(ro));
	ro.keep_leaks = g->o->leak_addresses;
	ro.progress = sp_cli_progress_hook();
	g->prof = sp_profile_new(SP_PROFILE_IGPROF);
	for (i = 0; i < g->o->nprofiles; i++) {
		struct sp_error err = SP_ERROR_INIT;

		sp_cli_progress_reading(g->o->profiles[i], i, g->o->nprofiles);
		if (sp_fmt_igprof_read(g->prof, g->o->profiles[i], &ro, &err) < 0) {
			sp_cli_error("%s", err.msg);
			return 1;
		}
	}
	if (g->prof->diag[SP_DIAG_PERIOD_MIXED])
		sp_cli_error("warning: the dumps have different tick periods: ticks are added as "
			     "they are, and count as %g seconds each",
			     g->prof->igprof.tick);
	sp_cli_mark("read dumps");
	return 0;
}

/* --counter, else for --leaks MEM_LIVE or FD_LIVE, else PERF_TICKS, else
 * the first counter of the first dump (igprof-analyse's default). */
static int pick_counter(struct igprof_run *g)
{
	const struct sp_profile *p = g->prof;
	size_t i;

	if (!p->ncounters) {
		sp_cli_error("'%s': no counter values in the dump%s", g->o->profiles[0],
			     g->o->nprofiles > 1 ? "s" : "");
		return 1;
	}
	if (g->o->counter) {
		g->counter = sp_profile_find_counter(p, g->o->counter);
		if (g->counter == SP_NONE) {
			sp_cli_error("no counter '%s' in '%s'; it has:", g->o->counter,
				     g->o->profiles[0]);
			for (i = 0; i < p->ncounters; i++)
				sp_cli_error("  %s", p->counters[i].name);
			return 1;
		}
		return 0;
	}
	if (g->o->leaks) {
		/* what is still held: memory, else file descriptors */
		g->counter = sp_profile_find_counter(p, "MEM_LIVE");
		if (g->counter == SP_NONE)
			g->counter = sp_profile_find_counter(p, "FD_LIVE");
		if (g->counter == SP_NONE) {
			sp_cli_error("'%s' has no MEM_LIVE or FD_LIVE counter for a leak report "
				     "(try --counter=NAME)",
				     g->o->profiles[0]);
			return 1;
		}
		return 0;
	}
	g->counter = sp_profile_find_counter(p, "PERF_TICKS");
	if (g->counter == SP_NONE)
		g->counter = 0;
	return 0;
}

static void make_symbolizer(struct igprof_run *g)
{
	struct sp_symbolizer_opts so;

	memset(&so, 0, sizeof(so));
	so.path_maps = g->o->path_maps;
	so.npath_maps = g->o->npath_maps;
	so.search = &g->o->search;
	so.warn = warn_cb;
	so.warn_ctx = g;
	so.cache_dir = g->o->cache_dir;
	g->sym = sp_symbolizer_new(&so);
}

/*
 * IgProf records no build-ids, so a binary found at a recorded path (or
 * through --path-map) might be another build. Where IgProf named a frame
 * itself (dladdr: shared libraries, -rdynamic executables), the symbol
 * must start where the file says: checked once per object.
 */
static void check_binaries(struct igprof_run *g)
{
	const struct sp_profile *p = g->prof;
	uint8_t *done = sp_xcalloc(p->nobjects + 1, 1);
	size_t i;

	for (i = 0; i < p->nframes; i++) {
		const struct sp_frame *f = &p->frames[i];
		struct sp_symfile *file;
		uint64_t vaddr, at;

		if (!(f->flags & SP_FRAME_NAMED) || f->object >= p->nobjects || done[f->object])
			continue;
		if (sp_symbolizer_place(g->sym, p, (uint32_t)i, &file, &vaddr) != SP_SYM_OK)
			continue;
		done[f->object] = 1;
		if (sp_symfile_find_symbol(file, f->name, &at) == 0 && at != vaddr - f->symoff)
			sp_cli_error(
				"warning: '%s' is not the '%s' the dump was made with: IgProf "
				"found '%s' at %#llx, the file has it at %#llx; its frames may be "
				"misnamed",
				sp_symfile_path(file), p->objects[f->object].path, f->name,
				(unsigned long long)(vaddr - f->symoff), (unsigned long long)at);
	}
	free(done);
}

static const struct sp_counter *counter_of(const struct igprof_run *g)
{
	return &g->prof->counters[g->counter];
}

static int is_ticks(const struct sp_counter *c)
{
	return !strcmp(c->name, "PERF_TICKS") || !strncmp(c->name, "NRG_", 4);
}

static unsigned filters_for(const struct igprof_run *g)
{
	const char *name = counter_of(g)->name;
	unsigned f = SP_IGF_IGPROF;

	if (g->o->no_filter)
		return 0;
	if (!strncmp(name, "MEM_", 4))
		f |= SP_IGF_MALLOC;
	if (!strcmp(name, "MEM_LIVE"))
		f |= SP_IGF_POOL;
	return f;
}

static void tree_opts(const struct igprof_run *g, struct sp_igtree_opts *to, int by_frame)
{
	memset(to, 0, sizeof(*to));
	to->counter = g->counter;
	to->field = g->o->value_peak ? SP_VALUE_PEAK : SP_VALUE_VALUE;
	to->filters = filters_for(g);
	to->by_frame = by_frame;
}

/* The frame tree (-l, -A, callgrind, --html sources), built on first use:
 * --format=igprof and the function outputs do without it. */
static struct sp_profile *frame_tree(struct igprof_run *g)
{
	struct sp_igtree_opts to;

	if (!g->ftree) {
		tree_opts(g, &to, 1);
		g->ftree = sp_igtree_build(g->prof, &g->ff, &to);
	}
	return g->ftree;
}

/* Frames -> functions -> the tree -> the call graph. */
/* The graph of a tree's counter 0 (its values already picked), frames
 * mapped to functions by ff. */
static void graph_opts(struct sp_cg_stack_opts *co, const struct sp_frame_funcs *ff)
{
	memset(co, 0, sizeof(*co));
	co->counter = 0;
	co->field = SP_VALUE_VALUE;
	co->frame_first = ff->first;
	co->frame_funcs = ff->list;
	co->funcs = ff->funcs;
}

static int analyse(struct igprof_run *g)
{
	unsigned flags = SP_FF_OUTERMOST | SP_FF_RESOLVE_NAMED | SP_FF_IGPROF_NAMES;
	struct sp_igtree_opts to;
	struct sp_cg_stack_opts co;
	struct sp_error err = SP_ERROR_INIT;
	const struct sp_counter *c = counter_of(g);

	if (g->o->merge_clones)
		flags |= SP_FF_MERGE_CLONES;
	sp_frame_funcs_build_flags(&g->ff, g->prof, g->sym, flags);
	if (g->o->line)
		sp_frame_funcs_build_flags(&g->lff, g->prof, g->sym, flags | SP_FF_LINES);
	sp_cli_mark("symbolize");
	tree_opts(g, &to, 0);
	g->tree = sp_igtree_build(g->prof, &g->ff, &to);
	sp_frame_funcs_build(&g->tff, g->tree, NULL, 0);
	graph_opts(&co, &g->tff);
	co.max_values = c->kind == SP_COUNTER_MAX;
	if (g->o->line) {
		/* lines: the frame tree (frame i is frame i of the dumps), each
		 * frame its line */
		co.frame_first = g->lff.first;
		co.frame_funcs = g->lff.list;
		co.funcs = g->lff.funcs;
	}
	/* calls are the counter's counts (JSON, HTML, dot, diffs); gprof's
	 * "called" column would mix counts of stacks and of functions: blank */
	co.counts_known = !(g->o->out_format == SP_OUT_TEXT && !g->o->html && !g->o->diff);
	if (is_ticks(c)) {
		double hz = g->prof->igprof.tick > 0 ? 1 / g->prof->igprof.tick : 100;

		co.hz = hz < 1 ? 1 : lround(hz);
		co.dimen = "seconds";
		co.dimen_abbrev = 's';
	} else {
		co.hz = 1;
		co.dimen = c->unit ? c->unit : "units";
		co.dimen_abbrev = co.dimen[0];
	}
	g->cg = sp_cg_from_cct(g->o->line ? frame_tree(g) : g->tree, &co, &err);
	if (!g->cg) {
		sp_cli_error("%s", err.msg);
		return 1;
	}
	if (!is_ticks(c)) {
		snprintf(g->note, sizeof(g->note), "Costs are in %s: IgProf's %s%s.", co.dimen,
			 c->name, g->o->value_peak ? " peaks" : "");
		g->cg->cost_note = g->note;
	}
	if (g->o->html || g->o->out_format == SP_OUT_FLAMEGRAPH ||
	    g->o->out_format == SP_OUT_FOLDED || g->o->out_format == SP_OUT_SPEEDSCOPE)
		g->flame = sp_flame_from_cct(g->tree, &co, NULL, g->prof->igprof.program);
	sp_cli_mark("call graph");
	return 0;
}

/* ---- outputs ---- */

static void fill_meta(struct igprof_run *g, struct sp_report_meta *m)
{
	const struct sp_counter *c = counter_of(g);
	size_t i, n = g->tff.funcs->len;

	if (!g->objs) {
		g->objs = sp_xcalloc(n + 1, sizeof(*g->objs));
		for (i = 0; i < n; i++) {
			uint32_t f = g->tff.object[i];

			g->objs[i] = f < g->tree->nobjects ? g->tree->objects[f].path : NULL;
		}
	}
	memset(m, 0, sizeof(*m));
	m->format = "igprof";
	m->executable = g->prof->igprof.program;
	m->files = g->o->profiles;
	m->nfiles = g->o->nprofiles;
	m->metric = c->name;
	m->unit = is_ticks(c) ? "seconds" : c->unit;
	m->sym_objects = g->objs;
	/* function i of the tree is function i of ff (frames.c keeps order) */
	m->sym_files = g->o->line ? NULL : (const char *const *)g->ff.file;
	m->sample_seconds = is_ticks(c) ? g->prof->igprof.tick : 0;
}

/* -A: source lines with the counter's self and cumulative values, from
 * the frame tree (its values are already picked: value == peak). */
static void annotate(struct igprof_run *g, int first_output)
{
	struct sp_annotate_samples_opts ao;
	char **dirs;

	memset(&ao, 0, sizeof(ao));
	ao.ndirs = sp_cli_source_dirs(g->o, &dirs);
	ao.dirs = (const char *const *)dirs;
	ao.counter = counter_of(g)->name;
	ao.pick = SP_PICK_VALUE;
	ao.what = is_ticks(counter_of(g)) ? "ticks" : counter_of(g)->unit;
	ao.warn = sp_cli_warn_hook();
	fflush(g->out);
	sp_annotate_samples(g->out, frame_tree(g), g->sym, &ao, first_output);
	sp_cli_source_dirs_free(dirs, ao.ndirs);
}

static void print_text(struct igprof_run *g)
{
	int style = sp_cli_print_stack_text(g->o, g->out, g->cg);

	if (style & STYLE_ANNOTATED_SOURCE)
		annotate(g, !(style & ~STYLE_ANNOTATED_SOURCE));
}

static void stack_opts(const struct igprof_run *g, struct sp_stack_report_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->demangle = g->o->demangle;
	so->counter = counter_of(g)->name;
	so->pick = SP_PICK_VALUE; /* the trees' values are already picked */
}

static void igprof_opts(const struct igprof_run *g, struct sp_igprof_report_opts *io)
{
	const struct sp_counter *c = counter_of(g);

	memset(io, 0, sizeof(*io));
	io->demangle = g->o->demangle;
	io->seconds_per_tick = is_ticks(c) ? g->prof->igprof.tick : 0;
	io->is_max = c->kind == SP_COUNTER_MAX;
	io->with_calls = !is_ticks(c);
	io->counter = c->name;
}

static void fill_model(struct igprof_run *g, struct sp_cli_model *m)
{
	memset(m, 0, sizeof(*m));
	m->cg = g->cg;
	sp_cli_stack_report_opts(g->o, &m->ro);
	fill_meta(g, &m->meta);
	m->flame = g->flame;
}

/* --html: the source of the functions with the most self value, with
 * the frame tree's values per line (function i of the tree is function i
 * of the dumps' frames, see fill_meta()). */
static void html_sources(struct igprof_run *g, struct sp_cli_model *m)
{
	struct sp_cg_stack_opts co;
	char **dirs;
	size_t ndirs = sp_cli_source_dirs(g->o, &dirs);

	graph_opts(&co, &g->ff);
	sp_cli_sources_build_stacks(&g->src, g->cg, frame_tree(g), g->sym, &co,
				    (const char *const *)dirs, ndirs, 10);
	m->sources = g->src.v;
	m->nsources = g->src.n;
	sp_cli_source_dirs_free(dirs, ndirs);
}

/*
 * --format=proto: the counter's events and amounts in its unit (ticks as
 * CPU time), from the frame tree (counter 0, its values picked: the
 * value or, with --value=peak, the peak).
 */
static void proto_opts(struct igprof_run *g, struct sp_proto_opts *po)
{
	const struct sp_counter *c = counter_of(g);
	double tick = g->prof->igprof.tick > 0 ? g->prof->igprof.tick : 0.01;

	memset(po, 0, sizeof(*po));
	po->nvalues = 2;
	po->default_value = 1;
	po->demangle = g->o->demangle;
	if (is_ticks(c)) {
		po->values[0] = (struct sp_proto_value){"samples", "count",	  SP_PROTO_COUNTER,
							0,	   SP_PICK_COUNT, 1};
		po->values[1] = (struct sp_proto_value){"cpu", "nanoseconds", SP_PROTO_COUNTER,
							0,     SP_PICK_VALUE, tick * 1e9};
		po->period_type = "cpu";
		po->period_unit = "nanoseconds";
		po->period = (int64_t)(tick * 1e9 + 0.5);
		return;
	}
	snprintf(g->proto_count, sizeof(g->proto_count), "%s_count", c->name);
	po->values[0] = (struct sp_proto_value){g->proto_count, "count", SP_PROTO_COUNTER, 0,
						SP_PICK_COUNT,	1};
	po->values[1] = (struct sp_proto_value){
		c->name, c->unit ? c->unit : "count", SP_PROTO_COUNTER, 0, SP_PICK_VALUE, 1};
}

static int print_output(struct igprof_run *g)
{
	struct sp_opts *o = g->o;
	struct sp_stack_report_opts so;
	struct sp_igprof_report_opts io;
	struct sp_proto_opts po;
	struct sp_cli_model m;

	stack_opts(g, &so);
	switch (o->out_format) {
	case SP_OUT_FOLDED:
		if (!o->html && !o->diff) {
			sp_report_folded(g->out, g->tree, &g->tff, &so);
			return 0;
		}
		break;
	case SP_OUT_CALLGRIND:
		sp_report_callgrind(g->out, frame_tree(g), g->sym, &so);
		return 0;
	case SP_OUT_IGPROF:
		igprof_opts(g, &io);
		sp_report_igprof(g->out, g->tree, &io);
		return 0;
	case SP_OUT_PROTO:
		proto_opts(g, &po);
		sp_report_proto_stacks(g->out, frame_tree(g), g->sym, &po);
		return 0;
	default:
		break;
	}
	if (o->leaks && o->out_format == SP_OUT_TEXT) {
		igprof_opts(g, &io);
		io.addresses = o->leak_addresses;
		sp_report_leaks(g->out, g->tree, &io);
		return 0;
	}
	if (o->out_format == SP_OUT_TEXT && !o->diff && (!o->html || o->format_given))
		print_text(g);
	if (!sp_cli_renders(o))
		return 0;
	fill_model(g, &m);
	if (o->html && !o->line)
		html_sources(g, &m);
	return sp_cli_render(o, &m, g->out);
}

static void run_release(struct igprof_run *g)
{
	sp_cli_sources_release(&g->src);
	sp_flame_free(g->flame);
	sp_cg_free(g->cg);
	sp_frame_funcs_release(&g->ff);
	sp_frame_funcs_release(&g->lff);
	sp_frame_funcs_release(&g->tff);
	sp_symbolizer_free(g->sym);
	sp_profile_free(g->tree);
	sp_profile_free(g->ftree);
	sp_profile_free(g->prof);
	free(g->objs);
}

static int load(struct igprof_run *g)
{
	int rc;

	make_symbolizer(g);
	rc = read_dumps(g);
	if (!rc)
		rc = pick_counter(g);
	if (!rc) {
		sp_symbolizer_prefetch(g->sym, g->prof);
		check_binaries(g);
		sp_cli_mark("prefetch");
		rc = analyse(g);
	}
	return rc;
}

static int igprof_pipeline(struct sp_opts *o)
{
	struct igprof_run g;
	int rc;

	memset(&g, 0, sizeof(g));
	sp_cli_mark(NULL);
	g.o = o;
	if (!(g.out = sp_cli_open_output(o)))
		return 1;
	sp_cli_progress_start(o, (int)o->nprofiles + 2);
	rc = load(&g);
	sp_cli_progress_stop();
	if (!rc)
		rc = print_output(&g);
	rc = sp_cli_close_output(o, g.out, rc);
	run_release(&g);
	sp_cli_mark("release");
	return rc;
}

/* ---- --diff=BASE: the base's dumps through the same steps ---- */

static void base_release(void *owner)
{
	struct igprof_run *g = owner;

	run_release(g);
	free((void *)g->o->profiles);
	free(g->o);
	free(g);
}

static int igprof_base(struct sp_opts *o, const char *path, struct sp_cli_model *m)
{
	struct igprof_run *g = sp_xcalloc(1, sizeof(*g));
	struct sp_opts *bo = sp_xmalloc(sizeof(*bo));
	int rc;

	*bo = *o;
	bo->profiles = sp_xmalloc(sizeof(*bo->profiles));
	bo->profiles[0] = path;
	bo->nprofiles = 1;
	bo->html = NULL;
	g->o = bo;
	g->out = stdout;
	rc = load(g);
	memset(m, 0, sizeof(*m));
	if (!rc)
		fill_model(g, m);
	m->owner = g;
	m->release = base_release;
	return rc;
}

/* The options of IgProf dumps alone. */
static const char *own_option(const struct sp_opts *o)
{
	if (o->counter)
		return "--counter";
	if (o->value_given)
		return "--value";
	if (o->no_filter)
		return "--no-filter";
	if (o->leaks)
		return o->leak_addresses ? "--leak-addresses" : "--leaks";
	return NULL;
}

/* Dumps name their binaries (every file is a dump), plain or compressed;
 * a counter is compared with the same counter only. */
const struct sp_cli_format sp_cmd_igprof_format = {
	.name = "igprof",
	.noun = "IgProf dump",
	.plural = "IgProf dumps",
	.probe = sp_fmt_igprof_probe,
	.compressed = 1,
	.outputs = SP_CLI_OUT_SHARED | SP_CLI_OUT(SP_OUT_CALLGRIND) | SP_CLI_OUT(SP_OUT_IGPROF),
	.measures = "IgProf counters",
	.own_option = own_option,
	.run = igprof_pipeline,
	.model = igprof_base,
};
