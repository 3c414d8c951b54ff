/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Input-sensitive analysis of aprof profiles: per routine (and per calling
 * context when the profile has a CCT) the calls, the self and cumulative
 * cost, the cost as a function of the input size (min/avg/max and calls per
 * size) and fitted growth models cost = a + b * x^c on the worst-case and
 * the average curves.
 *
 * It lives in cg/ (the analysis layer, library sp_cg) with a header of its
 * own: it reads a struct sp_profile like the call-graph builders do, but
 * its result is not a call graph, and only the aprof pipeline and its
 * renderers use it. Fit method and accuracy: cg/fit.c, docs/formats.md.
 */
#ifndef SYMPROF_INPUTCOST_H
#define SYMPROF_INPUTCOST_H

#include <stddef.h>
#include <stdint.h>

#include "symprof/alloc.h"

struct sp_profile;
struct sp_symtab;
struct sp_cg;

/* ---- growth fits (cg/fit.c) ---- */

#define SP_FIT_MIN_POINTS 4 /* distinct sizes needed for a fit */
#define SP_FIT_C_MIN (-1.0) /* the exponents searched */
#define SP_FIT_C_MAX 6.0
#define SP_FIT_C_ZERO_MIN 0.05 /* lowest exponent when a size is 0 */
#define SP_FIT_GOOD_R2 0.9     /* --rank=growth trusts fits with this R^2 */
#define SP_FIT_GOOD_POINTS 8   /* ... over this many sizes */

struct sp_fit {
	double a, b, c; /* cost = a + b * x^c */
	double r2;	/* 1 - SS_res / SS_tot (1 for a constant curve) */
	unsigned n;	/* points given */
	int ok;		/* 0: no fit (fewer than SP_FIT_MIN_POINTS distinct sizes) */
};

/*
 * Least-squares fit of y = a + b * x^c to n points (x, y >= 0, finite),
 * c in [SP_FIT_C_MIN, SP_FIT_C_MAX] ([SP_FIT_C_ZERO_MIN, ...] when some
 * x is 0). A constant curve gives b = c = 0 and r2 = 1. Returns 0, or -1
 * (and out->ok = 0) when there are too few distinct x or bad values.
 */
int sp_fit_power(const double *x, const double *y, size_t n, struct sp_fit *out);

/* The growth exponent used for ranking: c when the curve grows without
 * bound (b > 0 and c > 0), else 0; NaN without a fit. */
double sp_fit_growth(const struct sp_fit *f);

/* Whether --rank=growth trusts the fit: R^2 >= SP_FIT_GOOD_R2 over at
 * least SP_FIT_GOOD_POINTS sizes. */
int sp_fit_trusted(const struct sp_fit *f);

/* ---- cost as a function of the input size (cg/inputcost.c) ---- */

/* The activations with one input size. */
struct sp_ic_point {
	uint64_t size; /* RMS or DRMS */
	uint64_t calls;
	uint64_t min, max, sum; /* cumulative cost */
	double avg;		/* sum / calls */
	uint64_t real;		/* cumulative, recursion counted once */
	uint64_t self_sum, self_min, self_max;
	uint64_t induced[4]; /* DRMS: cumul syscall/thread, self syscall/thread */
};

/* A routine over all its contexts, or one calling context of it. */
struct sp_ic_entry {
	uint32_t func; /* index into the profile's funcs */
	uint32_t node; /* SP_NONE for a routine, else its CCT node */
	uint64_t calls;
	uint64_t self;		    /* sum of the self costs (0 if unknown) */
	uint64_t total;		    /* sum of `real`: cumulative, recursion counted once */
	uint64_t cumul;		    /* sum of the cumulative costs of all activations */
	struct sp_ic_point *points; /* one per distinct input size, ascending */
	size_t npoints;
	struct sp_fit worst; /* fit of max cost per size */
	struct sp_fit avg;   /* fit of average cost per size */
	uint32_t ncontexts;  /* routines: how many contexts have points */
	uint64_t induced[4];
};

struct sp_inputcost {
	const struct sp_profile *p;
	struct sp_ic_entry *routines; /* one per function of the profile, same index */
	size_t nroutines;
	struct sp_ic_entry *contexts; /* CCT nodes with points, in node order */
	size_t ncontexts;
	uint32_t *context_of_node; /* node -> contexts index or SP_NONE (NULL: no CCT) */
	uint64_t run_total;	   /* k, or the sum of self costs when k is 0 */
	uint64_t self_total;	   /* sum of the self costs */
	unsigned has_self : 1;	   /* the reports carry self costs (v2+) */
	unsigned has_real : 1;	   /* ... and `real` (v2+); else total = cumul */
	unsigned contexts_fitted : 1;
	struct sp_arena arena;
};

/*
 * Analyses an aprof profile: per routine, its tuples of every context
 * merged by input size (aprof's rules), the totals and both fits.
 * Contexts are grouped too but fitted only by sp_inputcost_fit_contexts().
 * Never NULL; free with sp_inputcost_free().
 */
struct sp_inputcost *sp_inputcost_new(const struct sp_profile *p);
void sp_inputcost_free(struct sp_inputcost *ic);
void sp_inputcost_fit_contexts(struct sp_inputcost *ic);

enum sp_ic_rank {
	SP_IC_RANK_COST = 0, /* total cost, highest first */
	SP_IC_RANK_GROWTH,   /* growth exponent of the worst-case fit, highest first:
			      * trusted fits (R^2 >= SP_FIT_GOOD_R2, SP_FIT_GOOD_POINTS
			      * sizes or more), then the others, then routines
			      * without a fit, by cost */
};

/* Fills `order` with the indices of the routines that have points, in the
 * given order (ties: total cost, then name); returns how many. `order`
 * holds ic->nroutines entries. */
size_t sp_inputcost_rank(const struct sp_inputcost *ic, enum sp_ic_rank by, uint32_t *order);

/* The routines named `name` (demangled or mangled), cost order; returns
 * how many were written to `out` (at most max). */
size_t sp_inputcost_find(const struct sp_inputcost *ic, const char *name, uint32_t *out,
			 size_t max);

/*
 * A call graph without arcs for a profile without a CCT: one node per
 * function of `t` (symbol i = routine i), self = self cost, children =
 * total - self, calls = activations (for the flat profile); print_time,
 * what totals are a share of, is the run's cost (run_total).
 */
struct sp_cg *sp_inputcost_flat_cg(const struct sp_inputcost *ic, const struct sp_symtab *t);

#endif
