/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The profile model: the contract between readers (formats/) and everything
 * after them (symbolize/, cg/, annotate/, report/).
 *
 * A reader turns one or more files of one profiler into one struct
 * sp_profile holding only what the files say, in the address space the
 * files use; nothing here is symbolized or analysed. What each profiler
 * records maps onto these parts:
 *
 *   part                 gmon.out   gperftools   IgProf          aprof        pprof
 *   objects + maps       1 (exe)    /proc maps   F entries       r objects    mappings
 *   histograms           yes        -            -               -            -
 *   pc arcs              yes        -            -               -            -
 *   basic-block counts   yes        -            -               -            -
 *   frames + CCT         -          stacks       call tree       CCT (x/q)    samples
 *   frame lines          -          -            -               -            locations'
 *                                                                             lines
 *   counters             time       samples      PERF_TICKS,     cost metric  sample
 *                                                MEM_*, ...                   types
 *   leaks                -          -            LK entries      -            -
 *   input points         -          -            -               p/q tuples   -
 *
 * Stacks are stored as a calling-context tree (CCT): a node is one frame
 * reached through one exact path from a root, and carries the values of the
 * samples whose stack is exactly that path. Identical stacks (gperftools
 * evictions, IgProf threads that restart at depth 1) fall onto the same
 * node, so a stack costs one node per distinct path prefix, and the exact
 * stacks can always be recovered (a node with a value is one stack).
 *
 * A caller that only counts what each stack holds (google-pprof's report)
 * may ask for the stacks as a list instead (stack_list, set before
 * reading): each record's frames as recorded, one word per frame, which a
 * deep profile fills with less memory than the tree's nodes and no lookup
 * per level; a reader may list records with identical stacks once, their
 * counts summed (gperftools does, within a file). Readers that can
 * (gperftools) then fill stacks and stack_frames and leave the CCT empty;
 * the others build the CCT anyway, so a renderer handles both.
 *
 * Address spaces (see docs/architecture.md): `abs` is an address recorded
 * at run time, `vaddr` an ELF virtual address, `off` an offset in a file.
 * gmon.out holds vaddrs of the executable (glibc removes the PIE load
 * bias), so its reader adds one identity map.
 *
 * Ownership: the profile owns an arena and a string table; every pointer
 * inside it (names, paths, bins, node arrays) is valid until
 * sp_profile_free(). Growable arrays are plain malloc'ed vectors owned by
 * the profile as well.
 */
#ifndef SYMPROF_PROFILE_H
#define SYMPROF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "symprof/alloc.h"
#include "symprof/strtab.h"

#define SP_NONE UINT32_MAX

enum sp_profile_kind {
	SP_PROFILE_NONE = 0,
	SP_PROFILE_GMON,
	SP_PROFILE_GPERF,
	SP_PROFILE_IGPROF,
	SP_PROFILE_APROF,
	SP_PROFILE_PPROF,
};

/* ---- objects and runtime mappings ---- */

/* A file on disk (executable or shared library) that code came from. */
struct sp_object {
	const char *path;	 /* as recorded in the profile; interned */
	const uint8_t *build_id; /* NULL if not recorded */
	size_t build_id_len;
	unsigned is_main : 1; /* the program itself */
};

/* A runtime mapping: abs [start, end) shows `object` from file offset pgoff. */
struct sp_map {
	uint64_t start, end, pgoff;
	uint32_t object; /* index into objects */
	unsigned executable : 1;
	unsigned identity : 1; /* abs == vaddr (gmon.out) */
	unsigned merged : 1;   /* may show several adjacent segments (pprof) */
};

/* ---- gmon.out: histograms, pc arcs, basic-block counts ---- */

/*
 * One histogram: nbins counters over vaddr [low_pc, high_pc). Most bins of
 * a profile are empty (705 of 390,524 in bench/'s program), so only the
 * others are kept: bin nonzero[k] holds counts[k], every bin not listed
 * holds 0. Counts are added with sp_profile_hist_add().
 */
struct sp_hist {
	uint64_t low_pc, high_pc;
	uint32_t nbins;
	uint32_t *nonzero; /* bin indexes, ascending, no repeats */
	uint32_t *counts;  /* their summed counts (0 only if a sum wrapped) */
	size_t nnonzero;
	/* where its bins are in the file that gave them, when one record did
	 * (a profile of one file): for messages; 0 otherwise */
	size_t bins_off;
	uint32_t nrecords; /* the records summed into it */
};

/* A call-graph record: the caller's return address, the callee's mcount
 * site and the number of traversals. Records are kept in file order with
 * equal (from_pc, self_pc) pairs summed onto the first occurrence (once a
 * reader is done: see sp_profile_sum_pcarcs()). */
struct sp_pcarc {
	uint64_t from_pc, self_pc;
	uint64_t count;
};

/* A basic-block execution count (tag 2 of the GNU format). */
struct sp_bbcount {
	uint64_t addr;
	uint64_t count;
};

/* Per input file, what it contained (gprof's -i / --file-info). */
struct sp_input {
	const char *path;
	const char *format; /* "gmon", "bsd", "4.4bsd", "gperftools", ... */
	int version;	    /* GNU gmon version; 0 for BSD formats */
	uint32_t nhist, narcs, nbbs;
	int word_size; /* gperftools: bytes per slot (4 or 8) */
};

/* ---- counters (what a value measures) ---- */

enum sp_counter_kind {
	SP_COUNTER_SUM = 0, /* values add up (ticks, bytes allocated, cost) */
	SP_COUNTER_MAX,	    /* a high-water mark: combine with max */
};

struct sp_counter {
	const char *name;      /* "time", "samples", "PERF_TICKS", "MEM_LIVE" ... */
	const char *unit;      /* "seconds", "bytes", "bb" ... */
	double unit_per_count; /* seconds per tick, 1 for bytes ... */
	enum sp_counter_kind kind;
};

/* ---- frames and the calling-context tree ---- */

enum sp_frame_flags {
	SP_FRAME_RETURN_ADDR = 1 << 0, /* a return address: look up addr - 1 */
	SP_FRAME_NAMED = 1 << 1,       /* the profiler named it (name != NULL) */
	/* addr is the offset from where `object`'s first byte is loaded
	 * (dladdr's dli_fbase; IgProf), not a runtime address: the
	 * symbolizer adds the first PT_LOAD's p_vaddr - p_offset */
	SP_FRAME_BASE_OFFSET = 1 << 2,
	/* the profile recorded the frame's inline chain (pprof locations
	 * with lines): lines[first_line .. first_line + nlines) */
	SP_FRAME_LINES = 1 << 3,
};

/* One function of a frame's inline chain as the profile recorded it,
 * innermost first (pprof's Line messages). Strings interned; NULL (0 for
 * numbers) when not recorded. */
struct sp_frame_line {
	const char *name;	 /* readable (demangled) */
	const char *system_name; /* as the linker knows it (mangled) */
	const char *file;
	uint32_t line;
	uint32_t start_line;
};

/* One distinct code location. */
struct sp_frame {
	uint64_t addr;		     /* abs, or off inside `object` (IgProf) */
	uint32_t map;		     /* index into maps, SP_NONE if unmapped */
	uint32_t object;	     /* index into objects, SP_NONE if unknown */
	const char *name;	     /* as named by the profiler, else NULL */
	uint64_t symoff;	     /* offset of addr from the named symbol */
	uint32_t flags;		     /* enum sp_frame_flags */
	uint32_t first_line, nlines; /* SP_FRAME_LINES: its recorded inline chain */
};

/* A CCT node; node 0 is the invisible root (frame SP_NONE). */
struct sp_cct_node {
	uint32_t parent; /* SP_NONE for the root */
	uint32_t frame;	 /* index into frames */
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t depth; /* root = 0 */
};

/* A value attached to a node: `count` events amounting to `value`, with
 * `peak` the largest amount seen (IgProf's triple; other formats set
 * count == value or leave peak 0). */
struct sp_cct_value {
	uint32_t node;
	uint32_t counter;
	int64_t count, value, peak;
};

/* One recorded stack of the list form: frames stack_frames[first ..
 * first + depth), leaf first, and `count` events of `counter`. */
struct sp_stack {
	size_t first, depth;
	uint32_t counter;
	int64_t count;
};

/* A resource still held at the end (IgProf LK entries). */
struct sp_leak {
	uint32_t node;
	uint64_t addr;
	uint64_t size;
};

/* ---- aprof: cost as a function of input size ---- */

/* One p/q tuple: activations of a routine (or context) with one input size. */
struct sp_input_point {
	uint32_t func; /* index into funcs */
	uint32_t node; /* CCT node for q lines, SP_NONE for p lines */
	uint64_t size; /* RMS or DRMS */
	uint64_t calls;
	uint64_t min, max, sum; /* cumulative cost */
	double sum_sq;
	uint64_t real; /* cumulative, recursion counted once */
	uint64_t self_sum, self_min, self_max;
	double self_sq;
	uint64_t extra[4]; /* DRMS: cumul syscall/thread, self syscall/thread */
};

/* A function named by the profiler itself (aprof routines). For aprof,
 * function i is also frame i (the CCT's frames are the routines). */
struct sp_func {
	const char *name;    /* demangled */
	const char *mangled; /* NULL if same as name */
	uint32_t object;
	int64_t id; /* the profiler's id (in the first report naming it) */
};

/* Which p/q tuple fields the reports carried (aprof report versions differ;
 * with several reports, the fields every one of them had). */
enum sp_aprof_fields {
	SP_APROF_HAS_SQR = 1 << 0,	   /* sum of squares of the cumulative cost (v1, v4+) */
	SP_APROF_HAS_REAL = 1 << 1,	   /* cumulative cost, recursion once (v2+) */
	SP_APROF_HAS_SELF = 1 << 2,	   /* self cost sum (v2+) */
	SP_APROF_HAS_SELF_MINMAX = 1 << 3, /* self min and max (v3+) */
	SP_APROF_HAS_SELF_SQR = 1 << 4,	   /* sum of squares of the self cost (v4+) */
	SP_APROF_HAS_INDUCED = 1 << 5,	   /* DRMS: syscall/thread induced input (v5+) */
};

/* The header of aprof reports (c v k e m i t a f lines). With several
 * reports: the first one's, `total_cost` summed and `fields` intersected
 * (the reader has checked that the rest agree). */
struct sp_aprof_info {
	int version;		  /* v: 1 to 6 (the lowest of the reports read) */
	uint64_t total_cost;	  /* k: the thread's whole cost, summed */
	uint64_t mtime;		  /* e: the program's mtime (0: unknown) */
	const char *cost_metric;  /* m: "bb-count", "time-usec", "vex-instr" (interned) */
	const char *input_metric; /* i: "rms", "drms" ("rvms" is read as "drms") */
	uint32_t mem_resolution;  /* t: bytes per shadow cell, 0 if not given */
	const char *app;	  /* a: the application, NULL if not given */
	const char *cmdline;	  /* f: the command line, NULL if not given */
	uint32_t fields;	  /* enum sp_aprof_fields */
	uint64_t ntuples;	  /* p and q lines read */
	unsigned has_cct : 1;	  /* contexts (x and q lines) */
};

/* What IgProf dumps say besides their call trees. */
struct sp_igprof_info {
	const char *program; /* the first dump's N=(...) (interned) */
	double tick;	     /* T=: seconds per PERF_TICKS tick (the first non-zero) */
	uint32_t ndumps;
	uint64_t nleaks;     /* LK entries read (in leaks[] only if asked for) */
	uint64_t leak_bytes; /* their sizes summed */
};

/* What pprof profiles say besides their samples (the first file's, the
 * durations summed). */
struct sp_pprof_info {
	int64_t time_ns;		       /* when the first profile started (0: unknown) */
	int64_t duration_ns;		       /* how long they ran, summed */
	const char *period_type, *period_unit; /* interned, NULL if none */
	int64_t period;
	uint32_t default_counter; /* default_sample_type's counter, SP_NONE if none */
	uint32_t nfiles;
};

/* Damaged but recoverable input, counted per kind; cli prints each once. */
enum sp_diag_kind {
	SP_DIAG_EMPTY_STACK,
	SP_DIAG_BAD_MAP_LINE,
	SP_DIAG_BB_IGNORED,
	SP_DIAG_TRAILING_BYTES, /* bytes after the last whole record */
	SP_DIAG_TIME_IN_TICKS,	/* old BSD file and no system rate */
	SP_DIAG_APROF_RULE,	/* an aprof tuple breaks one of merge.c's rules */
	SP_DIAG_PERIOD_MIXED,	/* gperftools: files with different periods */
	SP_DIAG_COUNT_
};

struct sp_profile {
	enum sp_profile_kind kind;
	struct sp_arena arena;
	struct sp_strtab strs;

	struct sp_input *inputs;
	size_t ninputs, inputs_alloc;

	struct sp_object *objects;
	size_t nobjects, objects_alloc;
	struct sp_map *maps;
	size_t nmaps, maps_alloc;

	struct sp_counter *counters;
	size_t ncounters, counters_alloc;

	/* gmon.out */
	struct sp_hist *hists;
	size_t nhists, hists_alloc;
	uint32_t hist_rate;	/* profiling rate (Hz), from the first histogram */
	char hist_dimen[16];	/* "seconds" */
	char hist_dimen_abbrev; /* 's' */
	struct sp_pcarc *pcarcs;
	size_t npcarcs, pcarcs_alloc;
	struct sp_bbcount *bbs;
	size_t nbbs, bbs_alloc;
	void *bb_index; /* private: addr -> bbs index */

	/* stack formats */
	struct sp_frame *frames;
	size_t nframes, frames_alloc;
	struct sp_cct_node *nodes;
	size_t nnodes, nodes_alloc;
	void *cct_index; /* private: children of nodes with many */
	struct sp_cct_value *values;
	size_t nvalues, values_alloc;
	struct sp_leak *leaks;
	size_t nleaks, leaks_alloc;
	uint64_t period_ns; /* sampling period (gperftools) */
	/* the list form of the stacks (stack_list: asked for by the caller) */
	unsigned stack_list : 1;
	struct sp_stack *stacks;
	size_t nstacks, stacks_alloc;
	uint32_t *stack_frames;
	size_t nstack_frames, stack_frames_alloc;

	/* aprof */
	struct sp_func *funcs;
	size_t nfuncs, funcs_alloc;
	void *func_index; /* private: (name, object) -> funcs index */
	struct sp_input_point *points;
	size_t npoints, points_alloc;
	void *point_index; /* private: (func, node, size) -> points index */
	struct sp_aprof_info aprof;

	/* IgProf */
	struct sp_igprof_info igprof;

	/* pprof */
	struct sp_frame_line *frame_lines; /* of frames with SP_FRAME_LINES */
	size_t nframe_lines, frame_lines_alloc;
	struct sp_pprof_info pprof;

	uint64_t diag[SP_DIAG_COUNT_];
};

/* Allocates an empty profile of the given kind. Never NULL. */
struct sp_profile *sp_profile_new(enum sp_profile_kind kind);
/* Frees the profile and everything it owns; NULL is fine. */
void sp_profile_free(struct sp_profile *p);

/* Interns a string in the profile (valid until sp_profile_free()). */
const char *sp_profile_intern(struct sp_profile *p, const char *s);

/* Appends and returns a zeroed input record. */
struct sp_input *sp_profile_add_input(struct sp_profile *p, const char *path, const char *format);
/* Finds an object by recorded path, adding it if absent; returns its index. */
uint32_t sp_profile_findnew_object(struct sp_profile *p, const char *path);
uint32_t sp_profile_add_map(struct sp_profile *p, const struct sp_map *m);
uint32_t sp_profile_add_counter(struct sp_profile *p, const struct sp_counter *c);
/* Index of the counter named `name`, SP_NONE if absent. */
uint32_t sp_profile_find_counter(const struct sp_profile *p, const char *name);

/* gmon: a histogram record [low,high) with nbins bins; returns the existing
 * one if a record with the same range exists (counts then add up), else a
 * new empty one. The caller checks overlaps first. */
struct sp_hist *sp_profile_findnew_hist(struct sp_profile *p, uint64_t low, uint64_t high,
					uint32_t nbins);
/* gmon: adds counts[k] to bin idx[k] of h for k < n (idx strictly
 * ascending, each below h->nbins). Zero counts may be left out. */
void sp_profile_hist_add(struct sp_hist *h, const uint32_t *idx, const uint32_t *counts, size_t n);
/* The first k with h->nonzero[k] >= bin (h->nnonzero if none). */
size_t sp_hist_find(const struct sp_hist *h, uint32_t bin);
/* Where bin `bin` (at most nbins) of h starts: low_pc + bin * (high_pc -
 * low_pc) / nbins, in double as the reports place their bins. */
uint64_t sp_hist_bin_start(const struct sp_hist *h, uint64_t bin);
/* gmon: appends n records as they are, equal pairs or not: a reader
 * appends a file's records, then calls sp_profile_sum_pcarcs() once,
 * before anything reads pcarcs. */
void sp_profile_append_pcarcs(struct sp_profile *p, const struct sp_pcarc *v, size_t n);
/* gmon: sums the records with equal (from_pc, self_pc) onto the first of
 * them; the others go, and the records keep their order. Costs a pass over
 * pcarcs when no pair repeats in the file order glibc writes (by call
 * site), a sort otherwise. */
void sp_profile_sum_pcarcs(struct sp_profile *p);
/* gmon: adds `count` traversals of (from_pc, self_pc), summing equal pairs
 * (append and sum: a pass over pcarcs per call, for single records). */
void sp_profile_add_pcarc(struct sp_profile *p, uint64_t from_pc, uint64_t self_pc, uint64_t count);
/* gmon: makes room for n more pc arcs (a reader that knows how many follow). */
void sp_profile_reserve_pcarcs(struct sp_profile *p, size_t n);
/* gmon: adds a basic-block count, summing equal addresses. */
void sp_profile_add_bbcount(struct sp_profile *p, uint64_t addr, uint64_t count);

/* stacks: adds a frame (no dedup; readers dedup with their own keys). */
uint32_t sp_profile_add_frame(struct sp_profile *p, const struct sp_frame *f);
/* Appends n recorded lines (copied; strings must be the profile's);
 * returns the index of the first, for sp_frame.first_line. */
uint32_t sp_profile_add_frame_lines(struct sp_profile *p, const struct sp_frame_line *v, size_t n);
/* Makes room for `nodes` more CCT nodes and `values` more values, so that
 * a reader knowing its sizes (an upper bound is fine: untouched room costs
 * address space only) never grows the arrays by copying. */
void sp_profile_reserve(struct sp_profile *p, size_t nodes, size_t values);
/* The root node (0), created on first use. */
uint32_t sp_profile_cct_root(struct sp_profile *p);
/* The child of `parent` for `frame`, created if absent. */
uint32_t sp_profile_cct_child(struct sp_profile *p, uint32_t parent, uint32_t frame);
/* Inserts a stack given leaf first (frames[0] = leaf); returns its node. */
uint32_t sp_profile_cct_insert_leaf_first(struct sp_profile *p, const uint32_t *frames,
					  size_t depth);
void sp_profile_add_value(struct sp_profile *p, uint32_t node, uint32_t counter, int64_t count,
			  int64_t value, int64_t peak);
/* The list form: makes room for `stacks` more stacks of `frames` frames in
 * all (an upper bound is fine), so that filling them never copies. */
void sp_profile_reserve_stacks(struct sp_profile *p, size_t stacks, size_t frames);
/* The list form: appends a stack of `depth` frames with `count` events of
 * `counter`; returns its frames (leaf first) for the caller to fill, valid
 * until the next call. */
uint32_t *sp_profile_add_stack(struct sp_profile *p, size_t depth, uint32_t counter, int64_t count);
void sp_profile_add_leak(struct sp_profile *p, uint32_t node, uint64_t addr, uint64_t size);

/* Which field of a value a per-node sum takes. */
enum sp_value_pick {
	SP_PICK_COUNT = 0, /* the number of events (samples, allocations) */
	SP_PICK_VALUE,	   /* the amount */
	SP_PICK_PEAK,
};
enum sp_node_sum_flags {
	SP_SUM_MAX = 1 << 0, /* a MAX counter: the largest value, not the sum */
};
/*
 * The one per-node sum of the CCT, for the graph builders and the
 * renderers alike: self[n] (nnodes entries, overwritten) gets the values
 * of `counter` at node n in field `pick`, added up (wrapping like
 * uint64_t), or their largest with SP_SUM_MAX; subtree, unless NULL, gets
 * the same over node n and every node below it (nodes are numbered
 * parents first). Zeros if the counter is SP_NONE.
 */
void sp_profile_node_sums(const struct sp_profile *p, uint32_t counter, enum sp_value_pick pick,
			  unsigned flags, int64_t *self, int64_t *subtree);
/* sp_profile_node_sums()'s self sums in a malloc'ed array of nnodes + 1
 * entries. */
int64_t *sp_profile_node_values(const struct sp_profile *p, uint32_t counter,
				enum sp_value_pick pick);

/* aprof: the function named `name` in object `object` (interned strings),
 * added with a frame of the same index if absent; returns its index. */
uint32_t sp_profile_findnew_func(struct sp_profile *p, const char *name, uint32_t object);
/* aprof: the tuple of (func, node, size), added zeroed if absent (the
 * caller merges into it); valid until the next call. */
struct sp_input_point *sp_profile_findnew_point(struct sp_profile *p, uint32_t func, uint32_t node,
						uint64_t size);

#endif
