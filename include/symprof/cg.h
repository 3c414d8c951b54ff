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
struct sp_code;
struct sp_target;

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
	uint64_t ncalls;	     /* calls, self-recursion excluded */
	uint64_t self_calls;	     /* self-recursive calls (in-cycle calls for a cycle) */
	double time;		     /* self ticks (flat profile) */
	double child_time;	     /* ticks propagated from callees */
	double prop_fract;	     /* share of the time that propagates to callers */
	double prop_self;	     /* time * fract (call graph "self") */
	double prop_child;	     /* propagated child time (call graph "children") */
	int top_order;		     /* topological number, callees first */
	int index;		     /* 1-based rank in the call graph, 0 = none */
	int cycle;		     /* cycle number, 0 = not in a cycle */
	uint32_t cyc_head;	     /* the cycle's node, or this node */
	uint32_t cyc_next;	     /* next member of the cycle */
	uint32_t parents;	     /* first arc into this node */
	uint32_t children;	     /* first arc out of this node */
	unsigned print_flag : 1;     /* printed in the call graph ([N] vs (N)) */
	unsigned flat_print : 1;     /* selected for the flat profile */
	unsigned folded : 1;	     /* --precise: a GCC clone counted in its origin */
	unsigned pseudo : 1;	     /* a stand-in callee (sp_cg_pseudo_findnew) */
	uint32_t bb_first;	     /* basic blocks of this symbol (index into bbs) */
	uint32_t nbbs;
	uint32_t indirect_calls; /* -c: calls through a register or memory in its code */
};

enum sp_cg_arc_flags {
	SP_CG_ARC_STATIC = 1 << 0, /* a call instruction for it was found in the code (-c) */
	SP_CG_ARC_TAIL = 1 << 1,   /* a jump to the callee's entry was found (a tail call) */
};

struct sp_cg_arc {
	uint32_t parent, child;
	uint64_t count;
	double time, child_time; /* propagated, scaled by the parent's fract */
	uint32_t next_parent;	 /* next arc into the same child */
	uint32_t next_child;	 /* next arc out of the same parent */
	uint32_t flags;
};

struct sp_cg_bb {
	uint64_t addr;
	uint64_t count;
};

/*
 * Nodes are laid out as nsyms symbol nodes, ncycles cycle nodes (nnodes =
 * nsyms + ncycles: the nodes that are ranked and printed as entries), then
 * npseudo pseudo nodes: callees that are not in the symbol table, such as
 * gprof's "<indirect child>" (-c on MIPS). A pseudo node has a symbol of
 * its own that only names it (address 0, no file or line), no index, no
 * time and no calls; it appears only as the callee of arcs.
 */
struct sp_cg {
	struct sp_cg_node *nodes; /* symbols, cycles, pseudo nodes (see above) */
	size_t nsyms, ncycles, nnodes;
	size_t npseudo;		/* nodes[nnodes .. nnodes + npseudo) */
	struct sp_cg_arc *arcs; /* in creation order */
	size_t narcs, arcs_alloc;
	uint32_t *order;    /* nnodes entries: call-graph order (index - 1) */
	uint32_t *arc_list; /* non-self arcs in creation order (gprof's arcs[]) */
	size_t narc_list, arc_list_alloc;
	struct sp_cg_bb *bbs; /* basic blocks grouped by symbol (-l) */
	size_t nbbs;
	const struct sp_symtab *symtab;
	double total_time; /* flat profile total, ticks */
	double print_time; /* call graph total, ticks */
	double hist_scale; /* UNITs per bin, gprof's hist_scale */
	long hz;
	char dimen[16];
	char dimen_abbrev;
	int have_hist;
	int have_arcs;
	int have_bbs;
	int stack_based;       /* built from exact stacks (no cycles) */
	int precise;	       /* --precise arithmetic (exact bins, sizes, clones) */
	const size_t *fold;    /* --precise: per symbol, its clone origin or SIZE_MAX
				  (sp_cg_gmon_opts.fold), or NULL */
	double unattributed;   /* --precise: ticks that fell on no symbol */
	int counts_known;      /* call counts are meaningful */
	unsigned static_flags; /* enum sp_cg_static_flags of the scan, 0 without -c */
	/* For costs that are not samples (aprof): one line describing the
	 * unit, printed instead of gprof's sampling lines in the flat profile
	 * and call graph headers; per-call columns then use `dimen` as is.
	 * NULL for gmon.out and sampling profiles. Borrowed from the caller. */
	const char *cost_note;
	/* cg/'s own (cg/internal.h): caches and scratch memory, no part of
	 * what the graph says */
	struct sp_cg_private *priv;
};

struct sp_cg_debug {
	FILE *out;     /* NULL: no debugging output */
	unsigned mask; /* gprof's -d bits */
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

/*
 * The line symbols a -l table was compacted without (sp_cg_gmon_mark_used,
 * sp_symtab_compact): gprof ranks them, all empty, after every node with
 * time and among the nodes without it (named ones with no calls by name,
 * then table order; those starting with '_' after the others), and numbers
 * the call graph's entries by that rank. The entries kept are numbered as
 * if the others were still there.
 */
struct sp_cg_dropped {
	uint32_t *before; /* per symbol kept: dropped ones ranked before it among
			     the empty named nodes */
	size_t plain;	  /* dropped ones whose name does not start with '_' */
};

struct sp_cg_gmon_opts {
	const struct sp_symspecs *specs;
	long hz; /* profiling rate (0 if no histogram) */
	double hist_scale;
	int have_hist;			/* the input had histogram records */
	int have_arcs;			/* the input had call-graph records */
	int line_granularity;		/* -l: arcs go to line symbols, bbs kept */
	int precise;			/* --precise: exact bin splitting, clones folded */
	const size_t *fold;		/* --precise: per symbol, its clone origin or SIZE_MAX */
	sp_cg_find_calls_fn find_calls; /* -c, or NULL */
	void *find_calls_ctx;
	const struct sp_cg_dropped *dropped; /* the table was compacted, or NULL */
	struct sp_cg_debug debug;
};

/* ---- the static call graph (-c, cg/static.c) ---- */

enum sp_cg_static_flags {
	SP_CG_STATIC_ON = 1 << 0,   /* set in cg->static_flags once a scan ran */
	SP_CG_STATIC_TAIL = 1 << 1, /* --precise: jumps to a function's entry are arcs */
	SP_CG_STATIC_WIDE = 1 << 2, /* --precise, MIPS: jal targets are checked against the
				     * histogram whole, not by their low 32 bits (gprof) */
};

/* The pseudo node MIPS `jalr $ra` calls go to (gprof's name for it). */
#define SP_CG_INDIRECT_CHILD "<indirect child>"

/* What one branch instruction does, as the scanner decodes it. */
enum sp_cg_call_kind {
	SP_CG_CALL_DIRECT,   /* a call to `target` */
	SP_CG_CALL_IMPORT,   /* a call through a PLT stub or a GOT slot to `name` */
	SP_CG_CALL_INDIRECT, /* a call through a register or ordinary memory */
	SP_CG_JUMP_DIRECT,   /* a jump (conditional or not) to `target` */
	SP_CG_JUMP_IMPORT,   /* a jump through a PLT stub or a GOT slot to `name` */
};

struct sp_cg_call {
	int kind;	  /* enum sp_cg_call_kind */
	uint64_t site;	  /* address of the instruction */
	uint64_t target;  /* *_DIRECT */
	const char *name; /* *_IMPORT: the imported (or, in an object file, external) name */
	unsigned conditional : 1;
};

typedef void (*sp_cg_call_fn)(void *ctx, const struct sp_cg_call *c);

/* A scanner: capstone handles opened once for the machine, reused for
 * every function. */
struct sp_cg_static;

/*
 * A scanner for `code` (borrowed; see sp_image_code()) of a machine `t`
 * (ELF e_machine): x86-64, i386, AArch64, ARM/Thumb, PowerPC with
 * capstone; MIPS (32- and 64-bit, either byte order) with gprof's word
 * rule (cg/static-mips.c). `flags`: SP_CG_STATIC_TAIL, SP_CG_STATIC_WIDE.
 * Debugging lines (gprof's -d 256) go to `debug` unless NULL. NULL + err
 * (SP_E_UNSUPPORTED) for other machines.
 */
struct sp_cg_static *sp_cg_static_new(const struct sp_code *code, const struct sp_target *t,
				      unsigned flags, FILE *debug, struct sp_error *err);
void sp_cg_static_free(struct sp_cg_static *s);

/*
 * Gives the scanner the histogram ranges of `p` (copied): on MIPS, as in
 * gprof, each symbol's range is clipped to the histogram it overlaps
 * (nothing is scanned without one) and a jal counts only if its target
 * lies in a histogram. Other machines ignore them.
 */
void sp_cg_static_set_hist(struct sp_cg_static *s, const struct sp_profile *p);

/*
 * Decodes [lo, hi) (clipped to the code section holding lo; decoding
 * restarts at every symbol, skips ARM/AArch64 data and undecodable bytes)
 * and calls fn for every call and jump, in address order. PLT stubs and
 * GOT slots are resolved to their imported names, object-file
 * relocations to their targets. MIPS: the words at lo, lo + 4, ... below
 * hi that lie wholly in .text, by gprof's rule (a jal is a direct call, a
 * `jalr $ra` an indirect one; with SP_CG_STATIC_TAIL a j is a jump).
 */
void sp_cg_static_scan(struct sp_cg_static *s, uint64_t lo, uint64_t hi, sp_cg_call_fn fn,
		       void *ctx);

/*
 * The find_calls hook (ctx = the scanner): adds a count-0 arc from `node`
 * to every function whose entry a call in its code reaches (directly, or
 * through the PLT/GOT by name), marked SP_CG_ARC_STATIC; with
 * SP_CG_STATIC_TAIL, also to every other function entry a jump reaches,
 * marked SP_CG_ARC_TAIL (AArch64 always adds unconditional `b` to an
 * entry, as gprof's BL scan does), and counts indirect calls. On MIPS an
 * indirect call (`jalr $ra`) is also an arc to the pseudo node
 * SP_CG_INDIRECT_CHILD, as in gprof.
 */
void sp_cg_static_find_calls(struct sp_cg *cg, uint32_t node, uint64_t lo, uint64_t hi, void *ctx);

/*
 * Builds the call graph of a gmon.out profile over a gprof symbol table:
 * arcs tallied onto symbols, histogram samples credited with gprof's
 * proportional overlap, cycles found (iteratively, no depth limit), flags
 * and time propagated, nodes ranked. Returns NULL + err on failure.
 */
struct sp_cg *sp_cg_from_gmon(const struct sp_profile *p, const struct sp_symtab *t,
			      const struct sp_cg_gmon_opts *o, struct sp_error *err);
/*
 * -l without -z, before sp_cg_from_gmon(): used[i] (t->len entries) is set
 * for the symbols the graph can see (every symbol but the lines that no
 * bin, arc or basic block of `p` reaches), so that the table compacted to
 * them gives the same graph. o as for sp_cg_from_gmon() (hist_scale,
 * have_hist, line_granularity are read).
 */
void sp_cg_gmon_mark_used(const struct sp_profile *p, const struct sp_symtab *t,
			  const struct sp_cg_gmon_opts *o, uint8_t *used);
/* Counts, on the table before it is compacted to `used`, what the entries
 * kept need to be numbered as gprof numbers them; release with
 * sp_cg_dropped_release(). */
void sp_cg_dropped_count(const struct sp_symtab *t, const uint8_t *used, struct sp_cg_dropped *d);
/* The three steps at once: t compacted (in place) to the symbols
 * sp_cg_gmon_mark_used() marks, *d counted before, and o->dropped set to
 * d for sp_cg_from_gmon(). Nothing for an empty table. */
void sp_cg_gmon_drop_unused(const struct sp_profile *p, struct sp_symtab *t,
			    struct sp_cg_gmon_opts *o, struct sp_cg_dropped *d);
void sp_cg_dropped_release(struct sp_cg_dropped *d);
/* An empty graph (no nodes, no arcs), for the builders and for tests;
 * free with sp_cg_free(). */
struct sp_cg *sp_cg_new(void);
void sp_cg_free(struct sp_cg *cg);

/* ---- stack-based profiles ---- */

enum sp_value_field {
	SP_VALUE_VALUE = 0, /* the amount (ticks, bytes, cost) */
	SP_VALUE_COUNT,	    /* the number of events */
	SP_VALUE_PEAK,	    /* the peak amount */
};

struct sp_cg_stack_opts {
	uint32_t counter; /* which of the profile's counters */
	enum sp_value_field field;
	/* frame f expands to functions frame_funcs[frame_first[f] ..
	 * frame_first[f + 1]), outermost first (inline chains); none: the frame
	 * is transparent */
	const uint32_t *frame_first;
	const uint32_t *frame_funcs;
	const struct sp_symtab *funcs; /* one symbol per function, any order */
	long hz;		       /* value units per dimension unit */
	const char *dimen;	       /* "seconds", "bytes" ... */
	char dimen_abbrev;
	int counts_known; /* counts are calls/events worth showing */
	/* a node's count is the number of activations of that very context
	 * (aprof), not of events in its subtree: an arc's count is then the
	 * sum of the counts of its callee's nodes */
	int node_counts;
	/* a MAX counter (IgProf's MEM_MAX): values combine by maximum, as
	 * igprof-analyse combines them (see cg/stacks.c) */
	int max_values;
};

/*
 * Builds the call graph of a profile's calling-context tree for one
 * counter: exact self and total per function (each stack counted once per
 * function, even under recursion) and exact caller -> callee values.
 */
struct sp_cg *sp_cg_from_cct(const struct sp_profile *p, const struct sp_cg_stack_opts *o,
			     struct sp_error *err);

/* The orders gprof sorts nodes in (each exactly as its qsort comparator,
 * with names compared by rank instead of strcmp). */
enum sp_cg_order {
	SP_CG_ORDER_TOTAL, /* cmp_total: call-graph rank */
	SP_CG_ORDER_TIME,  /* cmp_time: flat profile */
	SP_CG_ORDER_TOPO,  /* cmp_topo: topological number */
	SP_CG_ORDER_NAME,  /* cmp_name: index by function name */
};

/* Sorts n node indices in that order (stable, glibc's merge order). It
 * uses the graph's scratch memory and name ranks (made on first use):
 * one thread at a time. */
void sp_cg_sort_nodes(const struct sp_cg *cg, uint32_t *nodes, size_t n, enum sp_cg_order order);

/*
 * The pseudo node called `name`, added on first use (see struct sp_cg): its
 * own cycle head, print flag off, propagation fraction 1.0 and index 0, as
 * gprof sets up its "<indirect child>". `name` is copied. The index is
 * valid until sp_cg_from_gmon() adds the cycle nodes (pseudo nodes then
 * move up by ncycles), so look the node up again rather than keeping it.
 */
uint32_t sp_cg_pseudo_findnew(struct sp_cg *cg, const char *name);

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
	uint32_t *first; /* nframes + 1 entries */
	uint32_t *list;
	size_t nlist;
	uint32_t *object;  /* per function, SP_NONE-like UINT32_MAX if unknown */
	const char **file; /* per function: a source file its code is in (the
			      first frame's), NULL if none; in funcs->strs */
};

/* Symbolizes every frame of p (once each) with s and fills ff; s may be
 * NULL (every frame unknown). */
void sp_frame_funcs_build(struct sp_frame_funcs *ff, const struct sp_profile *p,
			  struct sp_symbolizer *s, int line_granularity);
void sp_frame_funcs_release(struct sp_frame_funcs *ff);

enum sp_frame_funcs_flags {
	SP_FF_LINES = 1 << 0,	      /* line granularity */
	SP_FF_OUTERMOST = 1 << 1,     /* only the function the address is in (no inline chain) */
	SP_FF_RESOLVE_NAMED = 1 << 2, /* look up profiler-named frames too; their name is the
					 fallback */
	SP_FF_MERGE_CLONES = 1 << 3,  /* f.constprop.0, f.isra.0, f.part.0, f.cold: f */
	SP_FF_IGPROF_NAMES = 1 << 4,  /* unknown frames as "@{FILE+OFFSET}" (igprof-analyse) */
};

/* sp_frame_funcs_build() with enum sp_frame_funcs_flags. */
void sp_frame_funcs_build_flags(struct sp_frame_funcs *ff, const struct sp_profile *p,
				struct sp_symbolizer *s, unsigned flags);
/* The length of `name` without a compiler clone suffix (.constprop.N,
 * .isra.N, .part.N, .cold and chains of them); strlen(name) if none. */
size_t sp_clone_origin_len(const char *name);

/* ---- igprof-analyse's call tree (igtree.c) ---- */

enum sp_igtree_filters {
	SP_IGF_IGPROF = 1 << 0, /* drop IgProf's own frames (libigprof.so ...) */
	SP_IGF_MALLOC = 1 << 1, /* fold malloc, operator new ... into their callers */
	SP_IGF_POOL = 1 << 2,	/* drop gcc 2's pool allocator (MEM_LIVE) */
};

struct sp_igtree_opts {
	uint32_t counter;	   /* which of the profile's counters */
	enum sp_value_field field; /* SP_VALUE_VALUE or SP_VALUE_PEAK */
	unsigned filters;	   /* enum sp_igtree_filters */
	int by_frame;		   /* a tree of p's frames, not of functions */
};

/*
 * The tree of functions igprof-analyse reports on: p's CCT with frames
 * replaced by their function (the last of each frame's list in ff), equal
 * paths merged, one counter's values (count, and value or peak; a MAX
 * counter keeps the largest value) and the default filters applied (see
 * cg/igtree.c). A new profile: frame i is function i of ff, counter 0 the
 * counter, leaks moved along; free with sp_profile_free(). With by_frame,
 * frame i is frame i of p (objects in p's order, so a symbolizer's answers
 * for p's frames hold for it): the same filters, paths merged by frame.
 */
struct sp_profile *sp_igtree_build(const struct sp_profile *p, const struct sp_frame_funcs *ff,
				   const struct sp_igtree_opts *o);
/* 1 if the object's path is one of IgProf's own libraries. */
int sp_igtree_is_igprof_object(const char *path);

/* Makes room for n more arcs. */
void sp_cg_arc_reserve(struct sp_cg *cg, size_t n);
/* Adds (or finds) the arc parent -> child and adds `count` to it. */
uint32_t sp_cg_arc_add(struct sp_cg *cg, uint32_t parent, uint32_t child, uint64_t count);
/*
 * The arcs into each node, in the order of its list, as one array: the
 * list walked from arc to arc costs a cache miss per arc, one after the
 * other, where the array's arcs are fetched together. Made from the arc
 * array in two passes (the lists are newest first as the graph builds
 * them, and nothing reorders them after); a report's sorted views of the
 * callers read it.
 */
struct sp_cg_parent_runs {
	uint32_t *first; /* node n's run: arcs[first[n] .. first[n + 1]) */
	uint32_t *arcs;
	size_t nnodes; /* nodes and pseudo nodes it covers */
};
struct sp_cg_parent_runs *sp_cg_parent_runs_new(const struct sp_cg *cg);
void sp_cg_parent_runs_free(struct sp_cg_parent_runs *runs);
/*
 * Sorted views: a report reads the graph and asks cg/ for a node's arcs
 * or a cycle's members in printing order; the graph is never reordered,
 * so the threads of one report may ask at the same time, each with a
 * struct sp_cg_sort_mem of its own. The memory holds the view and the
 * sort keys from one sort to the next (a long list's keys otherwise come
 * from malloc and go back, fresh pages each time). Zeroed to start with.
 */
struct sp_cg_sort_mem {
	void *keys;
	size_t alloc;
	uint32_t *view; /* the last view */
	size_t view_alloc;
	/* borrowed, or NULL: the runs sp_cg_sorted_parents() reads instead
	 * of walking the lists (shared by the threads of one report) */
	const struct sp_cg_parent_runs *runs;
};
void sp_cg_sort_mem_release(struct sp_cg_sort_mem *mem);
/* gprof's sort_parents()/sort_children(): the arcs into (out of) `node`
 * in printing order (callers ascending, callees descending by time), *n
 * of them. The array is mem's: valid until mem's next view or release. */
const uint32_t *sp_cg_sorted_parents(const struct sp_cg *cg, uint32_t node,
				     struct sp_cg_sort_mem *mem, size_t *n);
const uint32_t *sp_cg_sorted_children(const struct sp_cg *cg, uint32_t node,
				      struct sp_cg_sort_mem *mem, size_t *n);
/* gprof's sort_members(): the members of the cycle node `cycle`, most
 * time first, then most calls, *n of them; the array is mem's, as above. */
const uint32_t *sp_cg_sorted_members(const struct sp_cg *cg, uint32_t cycle,
				     struct sp_cg_sort_mem *mem, size_t *n);
/* The arc parent -> child, SP_CG_NONE if absent. */
uint32_t sp_cg_arc_find(const struct sp_cg *cg, uint32_t parent, uint32_t child);

#endif
