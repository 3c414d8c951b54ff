/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Flame graphs: a tree of stack frames, each with the value of the stacks
 * that pass through it (`value`) and of those that end in it (`self`). Node
 * 0 is the root ("all"); a node's children have distinct names, so every
 * distinct stack is one path.
 *
 * Where the trees come from:
 *   - stack formats (gperftools, IgProf, aprof's calling-context trees):
 *     sp_flame_from_cct(), exact (for aprof: sp_flame_from_inputcost());
 *   - gmon.out: sp_flame_from_cg(), an estimate under gprof's assumption
 *     that every call of a function costs the same, so a function's time
 *     splits among its callers in proportion to their calls;
 *   - anything else: sp_flame_new() and sp_flame_add_stack().
 * Renderers: sp_flame_write_folded() (Brendan Gregg's "a;b;c N" lines) and
 * sp_flame_write_svg() (report/flame-svg.c).
 *
 * Ownership: the tree owns its nodes and an interned copy of every name;
 * everything is freed by sp_flame_free().
 */
#ifndef SYMPROF_FLAME_H
#define SYMPROF_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symprof/hashmap.h"
#include "symprof/strtab.h"

struct sp_profile;
struct sp_cg_stack_opts;
struct sp_inputcost;
struct sp_report;

#define SP_FLAME_NONE UINT32_MAX

struct sp_flame_node {
	const char *name; /* interned in the tree */
	uint32_t parent;  /* SP_FLAME_NONE for the root */
	uint32_t first_child, next_sibling;
	uint32_t depth; /* root = 0 */
	double value;	/* stacks through this frame (after sp_flame_finish) */
	double self;	/* stacks ending at this frame */
};

struct sp_flame {
	struct sp_flame_node *nodes; /* nodes[0] is the root; parents before children */
	size_t len, alloc;
	struct sp_strtab names;
	struct sp_pairmap index; /* (parent, name) -> node */
	const char *title;	 /* e.g. the executable */
	const char *unit;	 /* what a value counts: "samples", "bytes", "calls" */
	const char *dimen;	 /* the unit of value * unit_scale: "seconds", or NULL */
	double unit_scale;
	uint32_t max_depth;
	const char *note;	/* said under the title (interned), or NULL */
	unsigned estimated : 1; /* gmon.out: proportional estimate, not stacks */
	unsigned finished : 1;
};

/* An empty tree (just the root). `title` and `unit` are copied. Never NULL. */
struct sp_flame *sp_flame_new(const char *title, const char *unit);
void sp_flame_free(struct sp_flame *f);

/* The child of `parent` named `name`, created if absent. */
uint32_t sp_flame_child(struct sp_flame *f, uint32_t parent, const char *name);
/* Adds `value` to the stacks that end at `node`. */
void sp_flame_add_self(struct sp_flame *f, uint32_t node, double value);
/* Adds one stack given outermost frame first. */
void sp_flame_add_stack(struct sp_flame *f, const char *const *names, size_t depth, double value);
/* Sums the self values up the tree into `value` (the renderers call it;
 * it runs once). */
void sp_flame_finish(struct sp_flame *f);

/*
 * The exact flame graph of a calling-context tree, for the counter and the
 * value field of `o` (the same options sp_cg_from_cct() takes): frame f
 * expands to the functions o->frame_funcs[o->frame_first[f] ..
 * o->frame_first[f + 1]), outermost first; a frame that expands to none is
 * skipped. Function k is named names[k], or o->funcs->syms[k].name when
 * names is NULL. The unit is the counter's (p->counters[o->counter]).
 */
struct sp_flame *sp_flame_from_cct(const struct sp_profile *p, const struct sp_cg_stack_opts *o,
				   const char *const *names, const char *title);

/*
 * The flame graph of an aprof analysis: with a calling-context tree its
 * exact stacks (sp_flame_from_cct() on the self costs; frame i of an aprof
 * profile is routine i); without one a single level, each routine's self
 * cost right above the root, with a note that the callers are unknown.
 * Either way the cost aprof counted outside every routine (the run's
 * total, ic->run_total, minus the self costs) is a frame "[unknown]", so
 * that the root holds the run's total. Values are counts of the cost
 * metric's unit ("bb").
 */
struct sp_flame *sp_flame_from_inputcost(const struct sp_inputcost *ic, const char *title);

/*
 * The flame graph of r's call graph, estimated as gprof estimates its
 * call graph: a function's total (its self time plus what it receives from
 * its callees) is shared among its callers in proportion to the calls
 * each made; cycles are one frame ("<cycle N>") with their members above
 * it; self-recursive calls are ignored. Names print as in r. Values are in
 * samples (ticks); the root's value is the profile's total, samples outside
 * every function included as "[unknown]" (and gprof's credits scaled down
 * where its rounding makes them add up to more than the samples). Contexts worth less than 1/20000
 * of the total are not expanded further (they stay one frame with their
 * whole value).
 */
struct sp_flame *sp_flame_from_cg(struct sp_report *r, const char *title);

/* One line per stack that ends somewhere: "root;...;leaf value" (the root
 * "all" is left out; ';' inside names becomes ':'). */
void sp_flame_write_folded(struct sp_flame *f, FILE *out);

/*
 * speedscope's file format (report/speedscope.c): one "sampled" profile
 * whose samples are the tree's stacks that end somewhere, outermost frame
 * first, weighted by their self values (in seconds when the tree knows
 * what a sample is worth); frames are the distinct names.
 */
void sp_flame_write_speedscope(struct sp_flame *f, FILE *out);

struct sp_flame_svg_opts {
	int width;    /* pixels, 1200 by default */
	int embedded; /* inside the HTML report: no XML prolog, no script */
};

/*
 * A self-contained interactive SVG (no external resources): hover shows a
 * frame's name, value and percentage; click zooms into a frame; a search
 * box highlights matching frames and shows their share. Frames narrower
 * than 0.1 pixel at full width are left out of the drawing. o may be NULL.
 */
void sp_flame_write_svg(struct sp_flame *f, FILE *out, const struct sp_flame_svg_opts *o);

#endif
