/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The call graph: nodes (functions, or source lines with -l) with their self
 * time and call counts, arcs between them, cycles, and the time propagated
 * along the arcs. Every renderer in report/ reads a struct sp_cg and nothing
 * else of the analysis.
 *
 * For gmon.out the graph is built from the histogram and the arc records
 * with gprof's arithmetic (sp_cg_from_gmon), so that the numbers print the
 * same. Times are in "ticks" (histogram samples); seconds = ticks / hz.
 */
#ifndef SYMPROF_CG_H
#define SYMPROF_CG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sp_profile;
struct sp_symtab;
struct sp_symbol;
struct sp_error;

/* ---- symspecs (gprof's sym_ids.c) ---- */

enum sp_symspec_table {
	SP_INCL_GRAPH = 0,
	SP_EXCL_GRAPH,
	SP_INCL_ARCS,
	SP_EXCL_ARCS,
	SP_INCL_FLAT,
	SP_EXCL_FLAT,
	SP_INCL_TIME,
	SP_EXCL_TIME,
	SP_INCL_ANNO,
	SP_EXCL_ANNO,
	SP_INCL_EXEC,
	SP_EXCL_EXEC,
	SP_SYMSPEC_TABLES
};

struct sp_symspecs;

struct sp_symspecs *sp_symspecs_new(void);
void sp_symspecs_free(struct sp_symspecs *s);
/* Adds a user spec ("name", "file.c", "file:name", "file:line", "12", and
 * for arc tables "spec/spec") to a table, in command-line order. */
void sp_symspecs_add(struct sp_symspecs *s, const char *spec, enum sp_symspec_table table);
/* The target's symbol prefix, skipped when names are compared. */
void sp_symspecs_set_leading_char(struct sp_symspecs *s, char c);
/* Turns the specs into address ranges of `t` (call once, before queries). */
void sp_symspecs_resolve(struct sp_symspecs *s, const struct sp_symtab *t, FILE *debug);
/* gprof's rule: in the INCL table, or the INCL table is empty and the
 * address is not in the EXCL table. `incl` is an SP_INCL_* table. */
int sp_symspecs_selects(const struct sp_symspecs *s, enum sp_symspec_table incl, uint64_t addr);
int sp_symspecs_in(const struct sp_symspecs *s, enum sp_symspec_table table, uint64_t addr);
size_t sp_symspecs_len(const struct sp_symspecs *s, enum sp_symspec_table table);
/* Whether an arc from `from` to `to` is kept (INCL_ARCS / EXCL_ARCS). */
int sp_symspecs_keeps_arc(const struct sp_symspecs *s, const struct sp_symbol *from,
			  const struct sp_symbol *to);

/* ---- the graph ---- */

#define SP_CG_NONE UINT32_MAX

struct sp_cg_node {
	const struct sp_symbol *sym; /* NULL for a cycle as a whole */
	uint64_t ncalls;             /* calls, self-recursion excluded */
	uint64_t self_calls;         /* self-recursive calls (in-cycle calls for a cycle) */
	double time;                 /* self ticks (flat profile) */
	double child_time;           /* ticks propagated from callees */
	double prop_fract;           /* share of the time that propagates to callers */
	double prop_self;            /* time * fract (call graph "self") */
	double prop_child;           /* propagated child time (call graph "children") */
	int top_order;               /* topological number, callees first */
	int index;                   /* 1-based rank in the call graph, 0 = none */
	int cycle;                   /* cycle number, 0 = not in a cycle */
	uint32_t cyc_head;           /* the cycle's node, or this node */
	uint32_t cyc_next;           /* next member of the cycle */
	uint32_t parents;            /* first arc into this node */
	uint32_t children;           /* first arc out of this node */
	unsigned print_flag : 1;     /* printed in the call graph ([N] vs (N)) */
	unsigned flat_print : 1;     /* selected for the flat profile */
	unsigned has_been_placed : 1;
	uint32_t nuses;
	uint32_t chain_next, chain_prev; /* -r/-R placement chains */
	uint32_t bb_first;           /* basic blocks of this symbol (index into bbs) */
	uint32_t nbbs;
};

enum sp_cg_arc_flags {
	SP_CG_ARC_STATIC = 1 << 0,    /* found by scanning code (-c) */
	SP_CG_ARC_TAIL = 1 << 1,      /* a tail call (jump to an entry) */
};

struct sp_cg_arc {
	uint32_t parent, child;
	uint64_t count;
	double time, child_time;      /* propagated, scaled by the parent's fract */
	uint32_t next_parent;         /* next arc into the same child */
	uint32_t next_child;          /* next arc out of the same parent */
	uint32_t flags;
	unsigned has_been_placed : 1;
};

struct sp_cg_bb {
	uint64_t addr;
	uint64_t count;
};

struct sp_cg {
	struct sp_cg_node *nodes;    /* nsyms symbol nodes, then ncycles cycle nodes */
	size_t nsyms, ncycles, nnodes;
	struct sp_cg_arc *arcs;      /* in creation order */
	size_t narcs, arcs_alloc;
	uint32_t *order;             /* nnodes entries: call-graph order (index - 1) */
	uint32_t *arc_list;          /* non-self arcs in creation order (gprof's arcs[]) */
	size_t narc_list, arc_list_alloc;
	struct sp_cg_bb *bbs;        /* basic blocks grouped by symbol (-l) */
	size_t nbbs;
	const struct sp_symtab *symtab;
	double total_time;           /* flat profile total, ticks */
	double print_time;           /* call graph total, ticks */
	double hist_scale;           /* UNITs per bin, gprof's hist_scale */
	long hz;
	char dimen[16];
	char dimen_abbrev;
	int have_hist;
	int have_arcs;
	int have_bbs;
	int stack_based;             /* built from exact stacks (no cycles) */
	int counts_known;            /* call counts are meaningful */
	void *arc_index;             /* private */
};

struct sp_cg_debug {
	FILE *out;                   /* NULL: no debugging output */
	unsigned mask;               /* gprof's -d bits */
};

/* gprof's debugging categories (-d N), as in its manual. */
enum {
	SP_DBG_ANY = 1 << 0,
	SP_DBG_DFN = 1 << 1,
	SP_DBG_CYCLE = 1 << 2,
	SP_DBG_ARC = 1 << 3,
	SP_DBG_TALLY = 1 << 4,
	SP_DBG_TIME = 1 << 5,
	SP_DBG_SAMPLE = 1 << 6,
	SP_DBG_AOUT = 1 << 7,
	SP_DBG_CALL = 1 << 8,
	SP_DBG_LOOKUP = 1 << 9,
	SP_DBG_PROP = 1 << 10,
	SP_DBG_BB = 1 << 11,
	SP_DBG_ID = 1 << 12,
	SP_DBG_SRC = 1 << 13,
};

/* A hook that adds static arcs for one symbol (gprof's find_call for -c):
 * called with each symbol's node and address range during assembly. */
typedef void (*sp_cg_find_calls_fn)(struct sp_cg *cg, uint32_t node, uint64_t lo, uint64_t hi,
				    void *ctx);

struct sp_cg_gmon_opts {
	const struct sp_symspecs *specs;
	long hz;                     /* profiling rate (0 if no histogram) */
	double hist_scale;
	int have_hist;               /* the input had histogram records */
	int have_arcs;               /* the input had call-graph records */
	int line_granularity;        /* -l: arcs go to line symbols, bbs kept */
	sp_cg_find_calls_fn find_calls; /* -c, or NULL */
	void *find_calls_ctx;
	struct sp_cg_debug debug;
};

/*
 * Builds the call graph of a gmon.out profile over a gprof symbol table:
 * arcs tallied onto symbols, histogram samples credited with gprof's
 * proportional overlap, cycles found (iteratively, no depth limit), flags
 * and time propagated, nodes ranked. Returns NULL + err on failure.
 */
struct sp_cg *sp_cg_from_gmon(const struct sp_profile *p, const struct sp_symtab *t,
			      const struct sp_cg_gmon_opts *o, struct sp_error *err);
void sp_cg_free(struct sp_cg *cg);

/* ---- stack-based profiles ---- */

enum sp_value_field {
	SP_VALUE_VALUE = 0, /* the amount (ticks, bytes, cost) */
	SP_VALUE_COUNT,     /* the number of events */
	SP_VALUE_PEAK,      /* the peak amount */
};

struct sp_cg_stack_opts {
	uint32_t counter;               /* which of the profile's counters */
	enum sp_value_field field;
	/* frame f expands to functions frame_funcs[frame_first[f] ..
	 * frame_first[f + 1]), outermost first (inline chains); none: the frame
	 * is transparent */
	const uint32_t *frame_first;
	const uint32_t *frame_funcs;
	const struct sp_symtab *funcs;  /* one symbol per function, any order */
	long hz;                        /* value units per dimension unit */
	const char *dimen;              /* "seconds", "bytes" ... */
	char dimen_abbrev;
	int counts_known;               /* counts are calls/events worth showing */
};

/*
 * Builds the call graph of a profile's calling-context tree for one
 * counter: exact self and total per function (each stack counted once per
 * function, even under recursion) and exact caller -> callee values.
 */
struct sp_cg *sp_cg_from_cct(const struct sp_profile *p, const struct sp_cg_stack_opts *o,
			     struct sp_error *err);

/*
 * The functions of a stack profile's frames (frames.c), laid out as
 * sp_cg_stack_opts wants them: frame f expands to list[first[f] ..
 * first[f + 1]), outermost first (inline chains). A function is its
 * object plus its raw name (plus file and line with line granularity);
 * funcs holds one symbol per function (name = raw name, or "0xADDR (in
 * OBJECT)" for an address nothing names), object[] its object index.
 */
struct sp_symbolizer;

struct sp_frame_funcs {
	struct sp_symtab *funcs;
	uint32_t *first;    /* nframes + 1 entries */
	uint32_t *list;
	size_t nlist;
	uint32_t *object;   /* per function, SP_NONE-like UINT32_MAX if unknown */
	const char **file;  /* per function: a source file its code is in (the
			       first frame's), NULL if none; in funcs->strs */
};

/* Symbolizes every frame of p (once each) with s and fills ff; s may be
 * NULL (every frame unknown). */
void sp_frame_funcs_build(struct sp_frame_funcs *ff, const struct sp_profile *p,
			  struct sp_symbolizer *s, int line_granularity);
void sp_frame_funcs_release(struct sp_frame_funcs *ff);

/* Makes room for n arcs in the arc index. */
void sp_cg_arc_reserve(struct sp_cg *cg, size_t n);
/* Adds (or finds) the arc parent -> child and adds `count` to it. */
uint32_t sp_cg_arc_add(struct sp_cg *cg, uint32_t parent, uint32_t child, uint64_t count);
/* gprof's sort_parents()/sort_children(): relinks the node's arc list in
 * printing order (callers ascending, callees descending by time). */
void sp_cg_sort_parents(struct sp_cg *cg, uint32_t node);
void sp_cg_sort_children(struct sp_cg *cg, uint32_t node);
/* The arc parent -> child, SP_CG_NONE if absent. */
uint32_t sp_cg_arc_find(const struct sp_cg *cg, uint32_t parent, uint32_t child);

#endif
