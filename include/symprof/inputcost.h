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

#define SP_FIT_MIN_SIZES 8  /* distinct sizes needed for a fit */
#define SP_FIT_MIN_SPAN 2.0 /* ... spanning this factor (largest / smallest nonzero) */
#define SP_FIT_C_MIN (-1.0) /* the exponents searched */
#define SP_FIT_C_MAX 6.0
#define SP_FIT_C_ZERO_MIN 0.05 /* lowest exponent when a size is 0 */
#define SP_FIT_LEVEL 0.95      /* confidence of the interval for c */

/* Why a curve has no fit. */
enum sp_fit_none {
	SP_FIT_FITTED = 0,
	SP_FIT_BAD_VALUES,   /* a size or cost negative or not finite */
	SP_FIT_FEW_SIZES,    /* fewer distinct sizes than the minimum */
	SP_FIT_NARROW,	     /* sizes span less than SP_FIT_MIN_SPAN */
	SP_FIT_CONSTANT,     /* the same cost at every size: no exponent */
	SP_FIT_AT_BOUND,     /* the best exponent is a bound of the search */
	SP_FIT_UNDETERMINED, /* the interval for c reaches a bound of the search */
};

struct sp_fit {
	double a, b, c;	     /* cost = a + b * x^c */
	double r2;	     /* 1 - SS_res / SS_tot */
	double c_lo, c_hi;   /* SP_FIT_LEVEL interval for c (profile likelihood) */
	double a_lo, b_lo;   /* the fit with c fixed at c_lo (a, b refitted) */
	double a_hi, b_hi;   /* ... at c_hi */
	double x_min, x_max; /* the smallest and largest size given */
	double x_low;	     /* the smallest size above 0 (0 if none) */
	double bound;	     /* SP_FIT_AT_BOUND, SP_FIT_UNDETERMINED: the bound reached */
	unsigned n;	     /* points given */
	unsigned sizes;	     /* distinct sizes among them */
	unsigned min_sizes;  /* the minimum of distinct sizes that applied */
	int ok;		     /* 1: fitted; 0: no fit, `none` says why */
	enum sp_fit_none none;
};

/*
 * Least-squares fit of y = a + b * x^c to n points (x, y >= 0, finite),
 * c in [SP_FIT_C_MIN, SP_FIT_C_MAX] ([SP_FIT_C_ZERO_MIN, ...] when some
 * x is 0), with the SP_FIT_LEVEL interval [c_lo, c_hi] of the exponent.
 * There is a fit only when the data can support one: at least
 * max(SP_FIT_MIN_SIZES, min_sizes) distinct sizes spanning a factor of
 * SP_FIT_MIN_SPAN or more, a cost that varies, and an exponent and an
 * interval inside the searched range. Returns 0 with out->ok = 1, or -1
 * with out->ok = 0 and out->none saying why (sizes, x_min, x_max and n
 * are set either way).
 */
int sp_fit_power(const double *x, const double *y, size_t n, unsigned min_sizes,
		 struct sp_fit *out);

/* Why there is no fit, as one line without a final period ("input sizes
 * span 100..157"); "" for a fit. Writes at most len bytes to buf. */
const char *sp_fit_reason(const struct sp_fit *f, char *buf, size_t len);

/* The 0.975 quantile of Student's t with nu degrees of freedom (nu >= 1):
 * the half-width, in standard errors, of a two-sided 95% interval. */
double sp_student_t975(unsigned nu);

/* The band of the fit at size x: the least and the greatest cost of the
 * fits with c = c_lo, c and c_hi. 0, or -1 (lo, hi unset) without a fit
 * or where a curve is not finite (x = 0 with a negative exponent). */
int sp_fit_band(const struct sp_fit *f, double x, double *lo, double *hi);

/* What --rank=growth sorts by, highest first: c_lo when the fitted cost
 * grows without bound (b > 0 and c > 0), -INFINITY when it does not
 * (it falls, or levels off), NaN without a fit. */
double sp_fit_growth(const struct sp_fit *f);

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
	unsigned min_sizes; /* of a fit: max(SP_FIT_MIN_SIZES, --min-sizes) */
	struct sp_arena arena;
};

/*
 * Analyses an aprof profile: per routine, its tuples of every context
 * merged by input size (aprof's rules), the totals and both fits, fitted
 * when there are at least max(SP_FIT_MIN_SIZES, min_sizes) input sizes
 * (--min-sizes). Contexts are grouped too but fitted only by
 * sp_inputcost_fit_contexts(). Never NULL; free with sp_inputcost_free().
 */
struct sp_inputcost *sp_inputcost_new(const struct sp_profile *p, unsigned min_sizes);
void sp_inputcost_free(struct sp_inputcost *ic);
void sp_inputcost_fit_contexts(struct sp_inputcost *ic);

enum sp_ic_rank {
	SP_IC_RANK_COST = 0, /* total cost, highest first */
	SP_IC_RANK_GROWTH,   /* sp_fit_growth() of the worst-case fit (c_lo of a
			      * growing cost), highest first; then the fits whose
			      * cost does not grow, then the routines without a
			      * fit, by cost */
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
