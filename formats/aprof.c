/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * aprof report reader (shared/reference/peers.md section 3.2; writers:
 * valgrind/aprof/report.c and cct.c of ercoppa/aprof; readers: aprof-plot's
 * AprofReport.java and aprof's merge.c).
 *
 * aprof measures, for every activation of a routine, its cost (basic blocks
 * by default) and its input size (RMS: distinct memory cells first read by
 * the activation or its callees; DRMS: also cells written by other threads
 * or system calls since). A report is text, one record per line, a tag and
 * space-separated fields; one report per thread
 * (`<prog>_<pid>_<thread>_<memres>.aprof`):
 *
 *   c <text>                       comment
 *   v <version>                    1 to 6; before any r, p, q, x, u or d line
 *   k <cost>                       the thread's total cost
 *   e <mtime>                      the program's mtime (seconds)
 *   m bb-count|time-usec|vex-instr cost metric (default bb-count)
 *   i rms|drms                     input metric ("rvms" = drms; default rms)
 *   t 1|2|4|8|16                   memory resolution, bytes per cell
 *   a <application>                rest of the line
 *   f <command line>               rest of the line ("(null)": none)
 *   r "<name>" "<object>" <rid>    a routine; rid is local to the report
 *   u <rid> "<mangled name>"       (d <rid> <name>: the same in old reports)
 *   p <rid> <tuple>                activations of a routine with one input size
 *   q <ctx> <tuple>                the same for one calling context (CCT)
 *   x <rid> <ctx> <parent ctx|-1>  context ctx: routine rid called from parent
 *   fav <name>..., g <rid> ...     aprof-plot favourites, old DRMS lists: skipped
 *
 * The tuple after the id, by version (sqr = sum of squares, real = the
 * cumulative cost counted once for recursive activations, self = exclusive
 * cost; min/max/sum of the cumulative cost over `calls` activations):
 *
 *   v1    size min max sum sqr calls
 *   v2    size min max sum calls real self
 *   v3    size min max sum calls real self self_min self_max
 *   v4+   size min max sum sqr calls real self self_min self_max self_sqr
 *   v5+   ... self_sqr [0 0 [cumul_syscall cumul_thread [self_syscall self_thread]]]
 *
 * The v5+ DRMS columns are two deprecated fields and the input induced by
 * system calls and other threads. Names are quoted but not escaped: a `"`
 * inside a name is kept (the name ends at the last `" "` of the line, so only
 * object paths containing `" "` cannot be read). q lines come after their
 * routine's r line and refer to contexts that the x lines (at the end of the
 * report, in any order) define.
 *
 * Errors stop reading (the line cannot be understood): a malformed line, an
 * unknown tag, a wrong field count for the version, a number out of range,
 * an id used before its definition or defined twice, a context tree with a
 * cycle, p and q lines in one report, and reports that cannot be merged.
 * Warnings (reading goes on, the data is kept as written) are the sanity
 * rules aprof's merge.c applies to every tuple: min > 0, max >= min,
 * sum >= max, sum >= min * calls, sqr >= sum, calls > 0, real <= sum,
 * 0 < self <= sum, 0 < self_min <= min, self >= self_min * calls,
 * self_min <= self_max <= max, the squares not below min^2 * calls
 * ("overflow?", once per report), induced input <= size * calls, plus a
 * tuple or name line that does not follow its routine's r line, a
 * routine whose `real` sums to 0, k = 0, and reports of one program built
 * at different times (e).
 *
 * Several reports (the threads of one run, aprof-helper -t, or several
 * runs, -r) are merged the same way: tuples of the same routine (same name
 * and object) and input size add up (min of the minima, max of the maxima),
 * k adds up, and the reports must agree on the application, the cost and
 * input metrics, the memory resolution and whether they have a CCT.
 */
#include "symprof/formats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/mfile.h"
#include "symprof/profile.h"
#include "symprof/progress.h"

#define MAX_FIELDS 20

/* the fields of a p/q tuple, in the order of struct tuple's values */
enum field {
	F_ID,
	F_SIZE,
	F_MIN,
	F_MAX,
	F_SUM,
	F_CALLS,
	F_REAL,
	F_SELF,
	F_SELF_MIN,
	F_SELF_MAX,
	F_CSYS,
	F_CTHR,
	F_SSYS,
	F_STHR,
	F_NUM_, /* integers; then the doubles: */
	F_SQR = F_NUM_,
	F_SELF_SQR,
	F_DEP1,
	F_DEP2,
	F_END_
};

struct tuple {
	uint64_t v[F_NUM_];
	double sqr, self_sqr;
	uint32_t fields; /* enum sp_aprof_fields */
};

/* a q line waiting for the x lines */
struct pending_q {
	uint64_t ctx;
	size_t line;
	uint32_t func;	  /* the routine of the last r line */
	uint32_t rid_idx; /* its index in rids */
	struct tuple t;
};

struct rid_entry {
	uint64_t rid;
	uint32_t func;
	size_t line;
	uint32_t ntuples, nreal; /* its tuples, those with real cost > 0 */
};

struct ctx_entry {
	uint64_t ctx;
	int64_t parent;
	uint32_t func;
	uint32_t node; /* SP_NONE until built */
	size_t line;
	int state; /* 0 new, 1 being built, 2 built */
};

struct hdr_line {
	size_t line;   /* 0: not in this report */
	const char *s; /* interned text */
	uint64_t n;
};

struct reader {
	struct sp_profile *p;
	const struct sp_aprof_read_opts *o;
	struct sp_error *err;
	const char *name;
	const char *s, *e; /* the current line, trailing blanks cut */
	size_t lineno;
	int version;
	size_t version_line;
	struct hdr_line k, e_, m, i, t, a, f;
	struct rid_entry *rids;
	size_t nrids, rids_alloc;
	struct sp_pairmap rid_map;
	struct ctx_entry *ctxs;
	size_t nctxs, ctxs_alloc;
	struct sp_pairmap ctx_map;
	struct pending_q *qs;
	size_t nqs, qs_alloc;
	uint32_t cur_func; /* routine of the last r line, SP_NONE before */
	uint32_t cur_idx;  /* its index in rids */
	uint32_t fields;   /* what this report's tuples carry */
	int saw_p, saw_q, sqr_warned, self_sqr_warned;
	uint64_t ntuples;
};

/* ---- messages ---- */

static int bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int vbad_at(struct reader *r, size_t line, const char *fmt, va_list ap)
{
	char msg[SP_ERROR_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return sp_error_set(r->err, SP_E_CORRUPT, "%s:%zu: %s", r->name, line, msg);
}

static int bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbad_at(r, r->lineno, fmt, ap);
	va_end(ap);
	return rc;
}

static int bad_at(struct reader *r, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad_at(struct reader *r, size_t line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vbad_at(r, line, fmt, ap);
	va_end(ap);
	return rc;
}

static void vwarn_at(struct reader *r, size_t line, const char *fmt, va_list ap)
{
	char msg[SP_ERROR_MSG_MAX], full[SP_ERROR_MSG_MAX + 64];

	r->p->diag[SP_DIAG_APROF_RULE]++;
	if (!r->o || !r->o->warn)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	snprintf(full, sizeof(full), "%s:%zu: %s", r->name, line, msg);
	r->o->warn(r->o->warn_ctx, full);
}

static void warn(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn_at(r, r->lineno, fmt, ap);
	va_end(ap);
}

static void warn_at(struct reader *r, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn_at(struct reader *r, size_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn_at(r, line, fmt, ap);
	va_end(ap);
}

/* ---- tokens and numbers ---- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *s, const char *e)
{
	while (s < e && is_blank(*s))
		s++;
	return s;
}

/* Splits [s, e) at blanks into at most max tokens; returns the count, or
 * max + 1 if there are more. */
static size_t tokens(const char *s, const char *e, const char **tok, size_t *len, size_t max)
{
	size_t n = 0;

	for (s = skip_blanks(s, e); s < e; s = skip_blanks(s, e)) {
		const char *t = s;

		while (s < e && !is_blank(*s))
			s++;
		if (n == max)
			return max + 1;
		tok[n] = t;
		len[n++] = (size_t)(s - t);
	}
	return n;
}

/* A decimal unsigned integer that fills the token; -1 if not or too big. */
static int parse_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	*v = 0; /* defined on failure too: gcc -O3 cannot see bad() < 0 */
	if (!len || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int parse_i64(const char *s, size_t len, int64_t *v)
{
	uint64_t u;

	if (len && s[0] == '-') {
		if (parse_u64(s + 1, len - 1, &u) < 0 || u > (uint64_t)INT64_MAX)
			return -1;
		*v = -(int64_t)u;
		return 0;
	}
	if (parse_u64(s, len, &u) < 0 || u > (uint64_t)INT64_MAX)
		return -1;
	*v = (int64_t)u;
	return 0;
}

/* A non-negative decimal number (squares: "%llu" from aprof, "%.0f" from
 * aprof-helper, so possibly beyond 2^64). */
static int parse_double(const char *s, size_t len, double *v)
{
	char buf[64], *end;
	size_t i;

	if (!len || len >= sizeof(buf))
		return -1;
	for (i = 0; i < len; i++)
		if (!strchr("0123456789.eE+", s[i]))
			return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*v = strtod(buf, &end);
	return end == buf + len && *v >= 0 ? 0 : -1;
}

static int num_token(struct reader *r, const char *s, size_t len, const char *what, uint64_t *v)
{
	if (parse_u64(s, len, v) < 0)
		return bad(r, "%s '%.*s' is not a number from 0 to 2^64-1", what, (int)len, s);
	return 0;
}

/* The text after the tag (trailing blanks are already cut). */
static const char *rest_of_line(const struct reader *r, size_t taglen)
{
	return skip_blanks(r->s + taglen, r->e);
}

/* [s, e) without one pair of surrounding double quotes. */
static void unquote(const char **s, const char **e)
{
	if (*e - *s >= 2 && (*s)[0] == '"' && (*e)[-1] == '"') {
		(*s)++;
		(*e)--;
	}
}

/* ---- routines and ids ---- */

static void rid_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct reader *r = ctx;

	*k1 = r->rids[i].rid;
	*k2 = 0;
}

static void ctx_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct reader *r = ctx;

	*k1 = r->ctxs[i].ctx;
	*k2 = 0;
}

/* The routine of rid in this report and its index in rids, or -1 with an
 * error. */
static int find_rid_num(struct reader *r, uint64_t rid, uint32_t *func, uint32_t *idx)
{
	uint32_t i = sp_pairmap_get(&r->rid_map, rid, 0);

	*func = 0;
	if (i == UINT32_MAX)
		return bad(r, "routine id %llu has no 'r' line before it", (unsigned long long)rid);
	*func = r->rids[i].func;
	if (idx)
		*idx = i;
	return 0;
}

static int find_rid(struct reader *r, const char *s, size_t len, uint32_t *func, uint32_t *idx)
{
	uint64_t rid;

	if (num_token(r, s, len, "routine id", &rid) < 0)
		return -1;
	return find_rid_num(r, rid, func, idx);
}

/* r "<name>" "<object>" <rid> */
static int parse_r(struct reader *r)
{
	const char *s = rest_of_line(r, 1), *e = r->e, *id = e, *sep = NULL, *q;
	struct sp_profile *p = r->p;
	uint64_t rid;
	uint32_t obj, func, i;

	while (id > s && !is_blank(id[-1]))
		id--;
	if (num_token(r, id, (size_t)(e - id), "routine id", &rid) < 0)
		return -1;
	e = id;
	while (e > s && is_blank(e[-1]))
		e--;
	for (q = s + 1; q + 3 <= e - 1; q++)
		if (q[0] == '"' && q[1] == ' ' && q[2] == '"')
			sep = q;
	if (e - s < 5 || s[0] != '"' || e[-1] != '"' || !sep)
		return bad(r, "malformed routine line (expected r \"NAME\" \"OBJECT\" ID)");
	if (sep == s + 1)
		return bad(r, "routine %llu has an empty name", (unsigned long long)rid);
	obj = sp_profile_findnew_object(
		p, sp_strtab_intern_n(&p->strs, sep + 3, (size_t)(e - 1 - (sep + 3))));
	func = sp_profile_findnew_func(
		p, sp_strtab_intern_n(&p->strs, s + 1, (size_t)(sep - s - 1)), obj);
	if (p->funcs[func].id < 0)
		p->funcs[func].id = (int64_t)rid;
	i = sp_pairmap_put(&r->rid_map, rid, 0, (uint32_t)r->nrids);
	if (i != r->nrids)
		return bad(r, "routine id %llu is defined twice", (unsigned long long)rid);
	SP_ALLOC_GROW(r->rids, r->nrids + 1, r->rids_alloc);
	memset(&r->rids[i], 0, sizeof(r->rids[i]));
	r->rids[i].rid = rid;
	r->rids[i].func = func;
	r->rids[i].line = r->lineno;
	r->nrids++;
	r->cur_func = func;
	r->cur_idx = i;
	return 0;
}

/* u <rid> "<mangled>" and the old d <rid> <name> */
static int parse_name_line(struct reader *r, char tag)
{
	const char *s = rest_of_line(r, 1), *e = r->e, *t = s;
	struct sp_func *f;
	const char *name;
	uint32_t func;

	while (t < e && !is_blank(*t))
		t++;
	if (find_rid(r, s, (size_t)(t - s), &func, NULL) < 0)
		return -1;
	if (func != r->cur_func)
		warn(r, "'%c' line for routine '%s' does not follow its 'r' line", tag,
		     r->p->funcs[func].name);
	s = skip_blanks(t, e);
	unquote(&s, &e);
	if (s == e)
		return bad(r, "'%c' line without a name", tag);
	/* d: merge.c reads a mangled name, aprof-plot a demangled one */
	if (tag == 'd' && !(e - s > 2 && s[0] == '_' && s[1] == 'Z'))
		return 0;
	f = &r->p->funcs[func];
	name = sp_strtab_intern_n(&r->p->strs, s, (size_t)(e - s));
	if (f->mangled && f->mangled != name)
		warn(r, "routine '%s' has the mangled name '%s' here and '%s' before", f->name,
		     name, f->mangled);
	else if (name != f->name)
		f->mangled = name;
	return 0;
}

/* ---- header lines ---- */

static int need_version(struct reader *r)
{
	if (!r->version)
		return bad(r, "data before the report version ('v' line)");
	return 0;
}

static int parse_version(struct reader *r)
{
	const char *tok[2];
	size_t len[2];
	uint64_t v;

	if (tokens(rest_of_line(r, 1), r->e, tok, len, 1) != 1)
		return bad(r, "malformed version line (expected v N)");
	if (num_token(r, tok[0], len[0], "version", &v) < 0)
		return -1;
	if (v < 1 || v > 6)
		return bad(r, "unsupported report version %llu (symprof reads versions 1 to 6)",
			   (unsigned long long)v);
	if (r->version && (uint64_t)r->version != v)
		return bad(r, "second version line (%llu after %d)", (unsigned long long)v,
			   r->version);
	if (r->nrids || r->nctxs)
		return bad(r, "version line after the first routine");
	r->version = (int)v;
	r->version_line = r->lineno;
	return 0;
}

/* k, e, t: one number */
static int parse_number_line(struct reader *r, struct hdr_line *h, const char *what)
{
	const char *tok[2];
	size_t len[2];

	if (tokens(rest_of_line(r, 1), r->e, tok, len, 1) != 1)
		return bad(r, "malformed %s line (expected one number)", what);
	if (num_token(r, tok[0], len[0], what, &h->n) < 0)
		return -1;
	if (h == &r->t && h->n != 1 && h->n != 2 && h->n != 4 && h->n != 8 && h->n != 16)
		return bad(r, "memory resolution %llu is not 1, 2, 4, 8 or 16",
			   (unsigned long long)h->n);
	if (h == &r->k && h->n == 0)
		warn(r, "total cost (k) is 0");
	h->line = r->lineno;
	return 0;
}

/* m, i: one word; a, f: the rest of the line */
static int parse_text_line(struct reader *r, struct hdr_line *h, int word, const char *what)
{
	const char *s = rest_of_line(r, 1), *e = r->e;

	if (word) {
		const char *tok[2];
		size_t len[2];

		if (tokens(s, e, tok, len, 1) != 1)
			return bad(r, "malformed %s line (expected one word)", what);
		s = tok[0];
		e = s + len[0];
	}
	if (h == &r->i) {
		if (e - s == 4 && !memcmp(s, "rvms", 4))
			s = "drms", e = s + 4;
		else if (!(e - s == 3 && !memcmp(s, "rms", 3)) &&
			 !(e - s == 4 && !memcmp(s, "drms", 4)))
			return bad(r, "unknown input metric '%.*s' (expected rms or drms)",
				   (int)(e - s), s);
	}
	/* aprof-helper writes "f (null)" when runs had other command lines */
	if (h == &r->f && e - s == 6 && !memcmp(s, "(null)", 6))
		return 0;
	h->s = sp_strtab_intern_n(&r->p->strs, s, (size_t)(e - s));
	h->line = r->lineno;
	return 0;
}

/* ---- tuples ---- */

/* The field order of a p/q line with n numbers (the id included) in this
 * version; NULL if n is wrong. */
static const signed char *layout(int version, size_t n)
{
	static const signed char v1[] = {F_ID, F_SIZE, F_MIN, F_MAX, F_SUM, F_SQR, F_CALLS, -1};
	static const signed char v2[] = {F_ID,	  F_SIZE, F_MIN,  F_MAX, F_SUM,
					 F_CALLS, F_REAL, F_SELF, -1};
	static const signed char v3[] = {F_ID,	 F_SIZE, F_MIN,	     F_MAX,	 F_SUM, F_CALLS,
					 F_REAL, F_SELF, F_SELF_MIN, F_SELF_MAX, -1};
	/* v4 to v6; v5+ may add 2, 4 or 6 DRMS columns */
	static const signed char v4[] = {F_ID,	     F_SIZE,	 F_MIN,	 F_MAX,	 F_SUM,
					 F_SQR,	     F_CALLS,	 F_REAL, F_SELF, F_SELF_MIN,
					 F_SELF_MAX, F_SELF_SQR, F_DEP1, F_DEP2, F_CSYS,
					 F_CTHR,     F_SSYS,	 F_STHR, -1};

	switch (version) {
	case 1:
		return n == 7 ? v1 : NULL;
	case 2:
		return n == 8 ? v2 : NULL;
	case 3:
		return n == 10 ? v3 : NULL;
	case 4:
		return n == 12 ? v4 : NULL;
	default:
		return n == 12 || n == 14 || n == 16 || n == 18 ? v4 : NULL;
	}
}

static const char *expected_fields(int version)
{
	switch (version) {
	case 1:
		return "7";
	case 2:
		return "8";
	case 3:
		return "10";
	case 4:
		return "12";
	default:
		return "12, or 14, 16 or 18 with the DRMS columns";
	}
}

static uint32_t fields_of(int version, size_t n)
{
	uint32_t f = 0;

	if (version == 1 || version >= 4)
		f |= SP_APROF_HAS_SQR;
	if (version >= 2)
		f |= SP_APROF_HAS_REAL | SP_APROF_HAS_SELF;
	if (version >= 3)
		f |= SP_APROF_HAS_SELF_MINMAX;
	if (version >= 4)
		f |= SP_APROF_HAS_SELF_SQR;
	if (version >= 5 && n >= 16)
		f |= SP_APROF_HAS_INDUCED;
	return f;
}

/* Parses the numbers of a p or q line (tag of length 1) into t. */
static int parse_tuple(struct reader *r, uint64_t *id, struct tuple *t)
{
	const char *tok[MAX_FIELDS + 1];
	size_t len[MAX_FIELDS + 1], n, k;
	const signed char *lay;
	static const char *const names[F_END_] = {"id",
						  "input size",
						  "min cost",
						  "max cost",
						  "cost sum",
						  "calls",
						  "real cost",
						  "self cost",
						  "self min",
						  "self max",
						  "cumulative syscall input",
						  "cumulative thread input",
						  "self syscall input",
						  "self thread input",
						  "sum of squares",
						  "self sum of squares",
						  "deprecated field",
						  "deprecated field"};

	n = tokens(rest_of_line(r, 1), r->e, tok, len, MAX_FIELDS);
	lay = layout(r->version, n);
	if (!lay && n > MAX_FIELDS)
		return bad(r, "'%c' line has more than %d fields, version %d has %s", *r->s,
			   MAX_FIELDS, r->version, expected_fields(r->version));
	if (!lay)
		return bad(r, "'%c' line has %zu fields, version %d has %s", *r->s, n, r->version,
			   expected_fields(r->version));
	memset(t, 0, sizeof(*t));
	t->fields = fields_of(r->version, n);
	for (k = 0; k < n; k++) {
		int f = lay[k];
		double d;

		if (f < F_NUM_) {
			if (num_token(r, tok[k], len[k], names[f], &t->v[f]) < 0)
				return -1;
			continue;
		}
		if (parse_double(tok[k], len[k], &d) < 0)
			return bad(r, "%s '%.*s' is not a number", names[f], (int)len[k], tok[k]);
		if (f == F_SQR)
			t->sqr = d;
		else if (f == F_SELF_SQR)
			t->self_sqr = d;
	}
	*id = t->v[F_ID];
	return 0;
}

/* 1 if a * b > c, exactly (no overflow) */
static int mul_gt(uint64_t a, uint64_t b, uint64_t c)
{
	return a && b > c / a;
}

/* 1 if x + y > a * b, exactly */
static int sum_gt_mul(uint64_t x, uint64_t y, uint64_t a, uint64_t b)
{
	uint64_t s = x + y;

	if (s < x)
		s = UINT64_MAX;
	return s > 0 && !mul_gt(a, b, s - 1);
}

/* merge.c's rules on the cumulative cost */
static void check_cumulative(struct reader *r, const struct tuple *t)
{
	const uint64_t *v = t->v;

	if (v[F_CALLS] == 0)
		warn(r, "invalid calls: 0");
	if (v[F_MIN] == 0)
		warn(r, "invalid min: min cost is 0");
	if (v[F_MAX] < v[F_MIN])
		warn(r, "invalid max: max cost %llu < min cost %llu", (unsigned long long)v[F_MAX],
		     (unsigned long long)v[F_MIN]);
	if (v[F_SUM] < v[F_MAX])
		warn(r, "invalid sum: cost sum %llu < max cost %llu", (unsigned long long)v[F_SUM],
		     (unsigned long long)v[F_MAX]);
	if (mul_gt(v[F_MIN], v[F_CALLS], v[F_SUM]))
		warn(r, "invalid sum: cost sum %llu < min cost * calls",
		     (unsigned long long)v[F_SUM]);
	if (t->fields & SP_APROF_HAS_SQR) {
		double m = (double)v[F_MIN];

		if (t->sqr < (double)v[F_SUM])
			warn(r, "invalid sqr_sum: sum of squares %.0f < cost sum %llu", t->sqr,
			     (unsigned long long)v[F_SUM]);
		else if (t->sqr < m * m * (double)v[F_CALLS] && !r->sqr_warned++)
			warn(r, "invalid sqr_sum (overflow?): sum of squares %.0f < min^2 * calls",
			     t->sqr);
	}
	if ((t->fields & SP_APROF_HAS_REAL) && v[F_REAL] > v[F_SUM])
		warn(r, "invalid cumul: real cost %llu > cost sum %llu",
		     (unsigned long long)v[F_REAL], (unsigned long long)v[F_SUM]);
}

/* merge.c's rules on the self cost and the induced input */
static void check_self(struct reader *r, const struct tuple *t)
{
	const uint64_t *v = t->v;
	uint64_t size = v[F_SIZE], calls = v[F_CALLS];

	if ((t->fields & SP_APROF_HAS_SELF) && (v[F_SELF] == 0 || v[F_SELF] > v[F_SUM]))
		warn(r, "invalid self total: self cost %llu is 0 or > cost sum %llu",
		     (unsigned long long)v[F_SELF], (unsigned long long)v[F_SUM]);
	if (t->fields & SP_APROF_HAS_SELF_MINMAX) {
		if (v[F_SELF_MIN] == 0 || v[F_SELF_MIN] > v[F_MIN])
			warn(r, "invalid self min: %llu is 0 or > min cost %llu",
			     (unsigned long long)v[F_SELF_MIN], (unsigned long long)v[F_MIN]);
		if (mul_gt(v[F_SELF_MIN], calls, v[F_SELF]))
			warn(r, "invalid self total: self cost %llu < self min * calls",
			     (unsigned long long)v[F_SELF]);
		if (v[F_SELF_MAX] < v[F_SELF_MIN] || v[F_SELF_MAX] > v[F_MAX])
			warn(r, "invalid self max: %llu is < self min or > max cost %llu",
			     (unsigned long long)v[F_SELF_MAX], (unsigned long long)v[F_MAX]);
	}
	if ((t->fields & SP_APROF_HAS_SELF_SQR) && !r->self_sqr_warned) {
		double m = (double)v[F_SELF_MIN];

		if (t->self_sqr < m * m && !r->self_sqr_warned++)
			warn(r, "invalid self sqr (overflow?): %.0f < self min^2", t->self_sqr);
	}
	if (!(t->fields & SP_APROF_HAS_INDUCED))
		return;
	if (sum_gt_mul(v[F_CSYS], v[F_CTHR], size, calls))
		warn(r,
		     "invalid syscall/thread input: cumulative induced input %llu + %llu > "
		     "input size * calls",
		     (unsigned long long)v[F_CSYS], (unsigned long long)v[F_CTHR]);
	if (sum_gt_mul(v[F_SSYS], v[F_STHR], size, calls))
		warn(r,
		     "invalid self syscall/thread input: induced input %llu + %llu > "
		     "input size * calls",
		     (unsigned long long)v[F_SSYS], (unsigned long long)v[F_STHR]);
}

static int add_checked(uint64_t *dst, uint64_t v)
{
	if (*dst + v < *dst)
		return -1;
	*dst += v;
	return 0;
}

/* Adds a tuple to the point of (func, node, size), aprof's merge rules. */
static int merge_tuple(struct reader *r, size_t line, uint32_t func, uint32_t node,
		       const struct tuple *t)
{
	const uint64_t *v = t->v;
	struct sp_input_point *pt = sp_profile_findnew_point(r->p, func, node, v[F_SIZE]);
	int fresh = pt->calls == 0 && pt->sum == 0;
	int i;

	if (fresh || v[F_MIN] < pt->min)
		pt->min = v[F_MIN];
	if (fresh || v[F_SELF_MIN] < pt->self_min)
		pt->self_min = v[F_SELF_MIN];
	if (v[F_MAX] > pt->max)
		pt->max = v[F_MAX];
	if (v[F_SELF_MAX] > pt->self_max)
		pt->self_max = v[F_SELF_MAX];
	pt->sum_sq += t->sqr;
	pt->self_sq += t->self_sqr;
	if (add_checked(&pt->calls, v[F_CALLS]) < 0 || add_checked(&pt->sum, v[F_SUM]) < 0 ||
	    add_checked(&pt->real, v[F_REAL]) < 0 || add_checked(&pt->self_sum, v[F_SELF]) < 0)
		return bad_at(r, line, "merged sums overflow 64 bits");
	for (i = 0; i < 4; i++)
		if (add_checked(&pt->extra[i], v[F_CSYS + i]) < 0)
			return bad_at(r, line, "merged sums overflow 64 bits");
	return 0;
}

static void note_fields(struct reader *r, const struct tuple *t)
{
	if (!r->ntuples++)
		r->fields = t->fields;
	else
		r->fields &= t->fields;
}

static int parse_p(struct reader *r)
{
	struct tuple t;
	uint64_t id;
	uint32_t func = 0, idx = 0;

	if (parse_tuple(r, &id, &t) < 0)
		return -1;
	if (r->saw_q)
		return bad(r, "'p' line in a report with contexts ('q' lines)");
	if (find_rid_num(r, id, &func, &idx) < 0)
		return -1;
	if (func != r->cur_func)
		warn(r, "tuple of routine '%s' does not follow its 'r' line",
		     r->p->funcs[func].name);
	check_cumulative(r, &t);
	check_self(r, &t);
	note_fields(r, &t);
	r->saw_p = 1;
	r->rids[idx].ntuples++;
	r->rids[idx].nreal += t.v[F_REAL] != 0;
	return merge_tuple(r, r->lineno, func, SP_NONE, &t);
}

static int parse_q(struct reader *r)
{
	struct pending_q *q;
	struct tuple t;
	uint64_t id;

	if (parse_tuple(r, &id, &t) < 0)
		return -1;
	if (r->saw_p)
		return bad(r, "'q' line in a report without contexts ('p' lines)");
	if (r->cur_func == SP_NONE)
		return bad(r, "'q' line before the first routine ('r' line)");
	check_cumulative(r, &t);
	check_self(r, &t);
	note_fields(r, &t);
	r->saw_q = 1;
	SP_ALLOC_GROW(r->qs, r->nqs + 1, r->qs_alloc);
	q = &r->qs[r->nqs++];
	q->ctx = id;
	q->line = r->lineno;
	q->func = r->cur_func;
	q->rid_idx = r->cur_idx;
	q->t = t;
	r->rids[r->cur_idx].ntuples++;
	r->rids[r->cur_idx].nreal += t.v[F_REAL] != 0;
	return 0;
}

/* x <rid> <ctx> <parent ctx | -1> */
static int parse_x(struct reader *r)
{
	const char *tok[4];
	size_t len[4];
	struct ctx_entry *c;
	uint64_t ctx;
	int64_t parent;
	uint32_t func, i;

	if (tokens(rest_of_line(r, 1), r->e, tok, len, 3) != 3)
		return bad(r, "malformed context line (expected x RID CTX PARENT)");
	if (find_rid(r, tok[0], len[0], &func, NULL) < 0 ||
	    num_token(r, tok[1], len[1], "context id", &ctx) < 0)
		return -1;
	if (parse_i64(tok[2], len[2], &parent) < 0 || parent < -1)
		return bad(r, "parent context '%.*s' is not -1 or a context id", (int)len[2],
			   tok[2]);
	i = sp_pairmap_put(&r->ctx_map, ctx, 0, (uint32_t)r->nctxs);
	if (i != r->nctxs)
		return bad(r, "context %llu is defined twice (first on line %zu)",
			   (unsigned long long)ctx, r->ctxs[i].line);
	SP_ALLOC_GROW(r->ctxs, r->nctxs + 1, r->ctxs_alloc);
	c = &r->ctxs[r->nctxs++];
	c->ctx = ctx;
	c->parent = parent;
	c->func = func;
	c->node = SP_NONE;
	c->line = r->lineno;
	c->state = 0;
	return 0;
}

/* ---- the calling-context tree ---- */

/* Builds the CCT node of context i and of its ancestors (parents first, so
 * that nodes are numbered parents first), without recursion. */
static int build_ctx(struct reader *r, uint32_t i, uint32_t **stack, size_t *alloc)
{
	size_t sp = 0;

	while (r->ctxs[i].state != 2) {
		struct ctx_entry *c = &r->ctxs[i];
		uint32_t par;

		if (c->state == 1)
			return bad_at(r, c->line, "context %llu is its own ancestor",
				      (unsigned long long)c->ctx);
		c->state = 1;
		SP_ALLOC_GROW(*stack, sp + 1, *alloc);
		(*stack)[sp++] = i;
		if (c->parent < 0)
			break;
		par = sp_pairmap_get(&r->ctx_map, (uint64_t)c->parent, 0);
		if (par == UINT32_MAX)
			return bad_at(r, c->line,
				      "parent context %lld of context %llu is not defined",
				      (long long)c->parent, (unsigned long long)c->ctx);
		i = par;
	}
	while (sp) {
		struct ctx_entry *c = &r->ctxs[(*stack)[--sp]];
		uint32_t parent_node = sp_profile_cct_root(r->p);

		if (c->parent >= 0)
			parent_node =
				r->ctxs[sp_pairmap_get(&r->ctx_map, (uint64_t)c->parent, 0)].node;
		c->node = sp_profile_cct_child(r->p, parent_node, c->func);
		c->state = 2;
	}
	return 0;
}

/* Resolves the q lines once every context is known; one CCT value per
 * context: its self cost and its calls. */
static int finish_cct(struct reader *r)
{
	uint32_t *stack = NULL, i;
	size_t alloc = 0, k;
	int64_t *self, *calls;

	for (i = 0; i < r->nctxs; i++)
		if (build_ctx(r, i, &stack, &alloc) < 0) {
			free(stack);
			return -1;
		}
	free(stack);
	self = sp_xcalloc(r->nctxs + 1, sizeof(*self));
	calls = sp_xcalloc(r->nctxs + 1, sizeof(*calls));
	for (k = 0; k < r->nqs; k++) {
		const struct pending_q *q = &r->qs[k];

		i = sp_pairmap_get(&r->ctx_map, q->ctx, 0);
		if (i == UINT32_MAX) {
			free(self);
			free(calls);
			return bad_at(r, q->line, "context %llu has no 'x' line",
				      (unsigned long long)q->ctx);
		}
		if (r->ctxs[i].func != q->func)
			warn_at(r, q->line,
				"tuple of context %llu (routine '%s') follows the 'r' line of '%s'",
				(unsigned long long)q->ctx, r->p->funcs[r->ctxs[i].func].name,
				r->p->funcs[q->func].name);
		self[i] += (int64_t)q->t.v[F_SELF];
		calls[i] += (int64_t)q->t.v[F_CALLS];
		if (merge_tuple(r, q->line, r->ctxs[i].func, r->ctxs[i].node, &q->t) < 0) {
			free(self);
			free(calls);
			return -1;
		}
	}
	for (i = 0; i < r->nctxs; i++)
		if (self[i] || calls[i])
			sp_profile_add_value(r->p, r->ctxs[i].node, 0, calls[i], self[i], 0);
	free(self);
	free(calls);
	return 0;
}

/* ---- lines ---- */

static int parse_line(struct reader *r)
{
	size_t taglen = 0;

	while (r->s + taglen < r->e && !is_blank(r->s[taglen]))
		taglen++;
	if (taglen == 3 && !memcmp(r->s, "fav", 3))
		return 0;
	if (taglen != 1)
		return bad(r, "unknown tag '%.*s'", (int)(taglen > 16 ? 16 : taglen), r->s);
	switch (r->s[0]) {
	case 'c':
		return 0;
	case 'v':
		return parse_version(r);
	case 'k':
		return parse_number_line(r, &r->k, "total cost");
	case 'e':
		return parse_number_line(r, &r->e_, "program mtime");
	case 't':
		return parse_number_line(r, &r->t, "memory resolution");
	case 'm':
		return parse_text_line(r, &r->m, 1, "cost metric");
	case 'i':
		return parse_text_line(r, &r->i, 1, "input metric");
	case 'a':
		return parse_text_line(r, &r->a, 0, "application");
	case 'f':
		return parse_text_line(r, &r->f, 0, "command line");
	case 'g':
		return need_version(r); /* old DRMS lists of distinct sizes: not used */
	case 'r':
		return need_version(r) < 0 ? -1 : parse_r(r);
	case 'u':
	case 'd':
		return need_version(r) < 0 ? -1 : parse_name_line(r, r->s[0]);
	case 'p':
		return need_version(r) < 0 ? -1 : parse_p(r);
	case 'q':
		return need_version(r) < 0 ? -1 : parse_q(r);
	case 'x':
		return need_version(r) < 0 ? -1 : parse_x(r);
	default:
		return bad(r, "unknown tag '%c' (expected one of c v k e m i t a f r u d p q x)",
			   r->s[0]);
	}
}

/* Lines between two progress reports (each may take a lock). */
#define PROGRESS_LINES 8192

static int read_lines(struct reader *r, const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	const struct sp_progress_hook *progress = r->o ? r->o->progress : NULL;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;

		r->lineno++;
		if (progress && r->lineno % PROGRESS_LINES == 0)
			sp_progress_update(progress, (uint64_t)(s - (const char *)data), size);
		if (memchr(s, '\0', (size_t)(le - s)))
			return bad(r, "NUL byte in the line (not a text report)");
		r->s = skip_blanks(s, le);
		r->e = le;
		while (r->e > r->s && (r->e[-1] == '\r' || is_blank(r->e[-1])))
			r->e--;
		s = nl ? nl + 1 : end;
		if (r->s < r->e && parse_line(r) < 0)
			return -1;
	}
	if (!r->version)
		return sp_error_set(r->err, SP_E_FORMAT,
				    "cannot read '%s': no report version ('v' line): not an aprof "
				    "report",
				    r->name);
	return 0;
}

/* merge.c's post-merge rule: a routine with tuples has real cost */
static void check_real(struct reader *r)
{
	size_t i;

	if (!(r->fields & SP_APROF_HAS_REAL))
		return;
	for (i = 0; i < r->nrids; i++)
		if (r->rids[i].ntuples && !r->rids[i].nreal)
			warn_at(r, r->rids[i].line,
				"invalid cumul real: no activation of routine '%s' has a real cost",
				r->p->funcs[r->rids[i].func].name);
}

static const char *unit_of(const char *metric)
{
	if (!strcmp(metric, "bb-count"))
		return "bb";
	if (!strcmp(metric, "time-usec"))
		return "usec";
	if (!strcmp(metric, "vex-instr"))
		return "instr";
	return metric;
}

static void first_header(struct reader *r, const char *m, const char *im)
{
	struct sp_aprof_info *a = &r->p->aprof;
	struct sp_counter c;

	a->version = r->version;
	a->mtime = r->e_.n;
	a->cost_metric = m;
	a->input_metric = im;
	a->mem_resolution = (uint32_t)r->t.n;
	a->app = r->a.s;
	a->cmdline = r->f.s;
	a->has_cct = r->saw_q || r->nctxs;
	c.name = m;
	c.unit = unit_of(m);
	c.unit_per_count = 1;
	c.kind = SP_COUNTER_SUM;
	sp_profile_add_counter(r->p, &c);
}

static int header_differs(struct reader *r, const struct hdr_line *h, const char *what,
			  const char *mine, const char *theirs)
{
	return bad_at(r, h->line ? h->line : r->version_line,
		      "%s '%s' differs from the reports before ('%s'): they cannot be merged", what,
		      mine, theirs);
}

/* Adds this report's header to the profile's, checking that they agree. */
static int merge_header(struct reader *r, int first)
{
	struct sp_aprof_info *a = &r->p->aprof;
	const char *m = r->m.s ? r->m.s : sp_profile_intern(r->p, "bb-count");
	const char *im = r->i.s ? r->i.s : sp_profile_intern(r->p, "rms");
	int tuples = r->saw_p || r->saw_q;

	if (first) {
		first_header(r, m, im);
	} else {
		if (m != a->cost_metric)
			return header_differs(r, &r->m, "cost metric", m, a->cost_metric);
		if (im != a->input_metric)
			return header_differs(r, &r->i, "input metric", im, a->input_metric);
		if (r->t.n && a->mem_resolution && r->t.n != a->mem_resolution)
			return bad_at(r, r->t.line,
				      "memory resolution %llu differs from the reports "
				      "before (%u): they cannot be merged",
				      (unsigned long long)r->t.n, a->mem_resolution);
		if (r->a.s && a->app && r->a.s != a->app)
			return header_differs(r, &r->a, "application", r->a.s, a->app);
		if ((r->saw_q || r->nctxs) != a->has_cct)
			return bad_at(r, r->version_line,
				      "this report has %scontexts and the ones "
				      "before %s: reports with and without contexts cannot be "
				      "merged",
				      a->has_cct ? "no " : "",
				      a->has_cct ? "have some" : "have none");
		if (r->e_.n && a->mtime && r->e_.n != a->mtime)
			warn_at(r, r->e_.line,
				"the program was built at another time (mtime %llu, "
				"%llu before)",
				(unsigned long long)r->e_.n, (unsigned long long)a->mtime);
		if (!a->mem_resolution)
			a->mem_resolution = (uint32_t)r->t.n;
		if (!a->app)
			a->app = r->a.s;
		if (a->cmdline && r->f.s && a->cmdline != r->f.s)
			a->cmdline = NULL;
		if (r->version < a->version)
			a->version = r->version;
	}
	if (tuples)
		a->fields = a->ntuples ? a->fields & r->fields : r->fields;
	if (add_checked(&a->total_cost, r->k.n) < 0)
		return bad_at(r, r->k.line, "total cost overflows 64 bits");
	return 0;
}

static void release(struct reader *r)
{
	sp_pairmap_release(&r->rid_map);
	sp_pairmap_release(&r->ctx_map);
	free(r->rids);
	free(r->ctxs);
	free(r->qs);
}

int sp_fmt_aprof_probe(const uint8_t *data, size_t size)
{
	static const char tags[] = "cvkemitafrudpqx";

	return size >= 2 && data[0] && data[1] == ' ' && strchr(tags, data[0]);
}

int sp_fmt_aprof_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			  const struct sp_aprof_read_opts *o, struct sp_error *err)
{
	int first = p->aprof.version == 0, rc;
	struct sp_input *in;
	struct reader r;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.o = o;
	r.err = err;
	r.name = name;
	r.cur_func = SP_NONE;
	sp_pairmap_init(&r.rid_map, rid_key, &r);
	sp_pairmap_init(&r.ctx_map, ctx_key, &r);
	rc = read_lines(&r, data, size);
	if (rc == 0 && (r.nctxs || r.nqs))
		rc = finish_cct(&r);
	if (rc == 0) {
		check_real(&r);
		rc = merge_header(&r, first);
	}
	if (rc == 0) {
		in = sp_profile_add_input(p, name, "aprof");
		in->version = r.version;
		p->aprof.ntuples += r.ntuples;
	}
	release(&r);
	return rc < 0 ? rc : 0;
}

int sp_fmt_aprof_read(struct sp_profile *p, const char *path, const struct sp_aprof_read_opts *o,
		      struct sp_error *err)
{
	struct sp_mfile f;
	int rc;

	rc = sp_mfile_open(&f, path, err);
	if (rc < 0)
		return rc;
	rc = sp_fmt_aprof_read_mem(p, path, f.data, f.size, o, err);
	sp_mfile_close(&f);
	return rc;
}
