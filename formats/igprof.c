/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * IgProf dumps (igprof -pp / -mp / -fd ..., `igprof.<prog>.<pid>...gz`).
 *
 * Grammar (shared/reference/peers.md §2.1; writer igprof/igprof
 * src/profile.cc dumpOneProfile, reader src/analyse.cc readDump): a text
 * file, usually gzip-compressed (bzip2 and plain are accepted too), one
 * header line and then one line per node of the call tree in depth-first
 * pre-order:
 *
 *   dump    := header '\n' { node '\n' }
 *   header  := 'P=(' ['HEX '] 'ID=' num ' N=(' program ') T=' double ')'
 *   node    := 'C' num ' ' fn { ' ' counter } { leak }
 *   fn      := 'FN' num [ '=(' file ' N=(' name '))' ] '+' num
 *   file    := 'F' num [ '=(' path ')' ] '+' num
 *   counter := 'V' num [ '=(' cname ')' ] ':(' num ',' num ',' num ')'
 *   leak    := ';LK=(0x' hex ',' num ')'
 *   num     := ['-'] digits        hexadecimal without "0x" after 'HEX ',
 *                                  decimal in old dumps
 *
 * - `C<depth>`: 1 is the outermost frame; a depth at most one more than the
 *   previous line's. A line's parent is the last line of depth - 1. Each
 *   thread's tree is written in turn, each starting again at depth 1, and
 *   stacks cut by IgProf's depth limit start at depth 1 in the middle of
 *   the recursion, so equal paths repeat: they fall onto one CCT node.
 * - `FN<id>=(F<fid>[=(path)]+<binoff> N=(<name>))` defines a symbol the
 *   first time (later lines say `FN<id>`): the object (a path, may be bare
 *   or empty), the offset of the symbol from the object's load base
 *   (dladdr's dli_fbase: the vaddr for PIE and shared objects, vaddr -
 *   0x400000 for a non-PIE x86-64 executable) and dladdr's name, or
 *   `@?0x<runtime address>` when dladdr knew none (`@?(nil)` for 0). The
 *   `+<symoff>` after it is the call site's offset from that symbol.
 *   Nothing is escaped: a name ends at the ')' that is followed by "))+"
 *   closing it, a path at the ')' followed by '+'.
 * - `V<cid>=(<NAME>):(count,value,peak)`: counter cid's triple for the
 *   exact stack of the line (self), defined on first use.
 * - `;LK=(0x<addr>,<size>)`: a resource still held (MEM_LIVE, FD_LIVE),
 *   any number of them, glued to the end of the line.
 *
 * The model (profile.h): an F entry is an object (by path); an FN entry a
 * frame whose `addr` is the code's offset from the object's base (binoff +
 * symoff: the symbolizer turns it into a vaddr with the object's first
 * PT_LOAD, as igprof-analyse -g does), with IgProf's name (none for `@?`)
 * and `symoff`; a line a CCT node; a triple a value (equal nodes' triples
 * summed, peaks maxed); LK entries leaks, kept one by one only on request
 * (otherwise counted), so memory grows with the distinct stacks and leak
 * sites, never with the size of the file.
 *
 * Lines are parsed in place in a window over the decompressed text
 * (zstream.h); a line longer than the window (a node with millions of LK
 * entries) is read entry by entry.
 */
#include "symprof/formats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/progress.h"
#include "zstream.h"

#define ID_SLACK                                                                                   \
	65536u		    /* ids beyond those defined so far (IgProf numbers                     \
			       FN, F and V definitions 0, 1, 2 ... per dump) */
#define MAX_HEAD (2u << 20) /* a line without its LK entries */
#define LK_ROOM 128	    /* enough for one LK entry */
#define HEADER_START "P=("  /* every dump starts so (sp_fmt_igprof_probe) */

/* ---- the window over the text ---- */

/* An FN entry: a symbol of an object. */
struct sym {
	uint32_t obj;
	int defined;
	uint64_t off;	  /* its address's offset from the object's base */
	uint64_t start;	  /* the symbol's: off - the definition's symoff */
	const char *name; /* interned; NULL for @? names */
};

struct reader {
	struct sp_profile *p;
	const struct sp_igprof_read_opts *o;
	struct sp_error *err;
	const char *name;
	struct sp_zin *z;
	char *win; /* [0, len): text; pos: next unread */
	size_t len, pos, alloc;
	int eof;
	uint64_t lineno;
	int base; /* 16 after "HEX ", else 10 */

	struct sym *syms; /* by FN id */
	size_t nsyms, nsym_defs, nfile_defs, nctr_defs;
	uint32_t *file; /* F id -> object + 1 */
	size_t nfile;
	uint32_t *ctr; /* V id -> counter + 1 */
	size_t nctr;
	uint32_t *stack; /* depth - 1 -> node */
	size_t depth, stack_alloc;
	struct sp_pairmap frame_index; /* (off, object) -> frame */
	struct sp_pairmap value_index; /* (node, counter) -> value */
	uint64_t progress_at;
};

static int bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct reader *r, const char *fmt, ...)
{
	char msg[SP_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sp_error_set(r->err, SP_E_CORRUPT, "%s:%llu: %s", r->name,
			    (unsigned long long)r->lineno, msg);
}

/* Appends the next chunk to the window, keeping [pos, len); 0 at the end
 * of the text (r->eof set), 1 with more, < 0 on error. */
static int refill(struct reader *r)
{
	const char *buf;
	size_t n, keep = r->len - r->pos;
	int rc;

	if (r->eof)
		return 0;
	rc = sp_zin_next(r->z, &buf, &n, r->err);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		r->eof = 1;
		return 0;
	}
	if (r->pos)
		memmove(r->win, r->win + r->pos, keep);
	r->pos = 0;
	r->len = keep;
	if (keep + n + 1 > r->alloc) {
		r->alloc = (keep + n + 1) * 2;
		r->win = sp_xrealloc(r->win, r->alloc);
	}
	memcpy(r->win + keep, buf, n);
	r->len = keep + n;
	r->win[r->len] = '\0';
	if (r->o && r->o->progress && sp_zin_consumed(r->z) >= r->progress_at + (4u << 20)) {
		r->progress_at = sp_zin_consumed(r->z);
		sp_progress_update(r->o->progress, r->progress_at, sp_zin_size(r->z));
	}
	return 1;
}

/* The end of the line at pos (its '\n', or the end of the text): reads on
 * until the line is whole or its head (MAX_HEAD bytes) is. *whole says
 * which. */
static int line_end(struct reader *r, size_t *end, int *whole)
{
	size_t from = r->pos;

	for (;;) {
		const char *nl = r->len > from ? memchr(r->win + from, '\n', r->len - from) : NULL;
		int rc;

		if (nl) {
			*end = (size_t)(nl - r->win);
			*whole = 1;
			return 0;
		}
		if (r->len - r->pos >= MAX_HEAD) {
			*end = r->len;
			*whole = 0;
			return 0;
		}
		from = r->len - r->pos;
		rc = refill(r);
		if (rc < 0)
			return rc;
		from += r->pos;
		if (rc == 0) {
			/* IgProf ends every line with '\n': a dump cut short */
			if (r->len > r->pos)
				return sp_error_set(
					r->err, SP_E_TRUNCATED,
					"%s:%llu: the file ends in the middle of a line "
					"(truncated?)",
					r->name, (unsigned long long)r->lineno + 1);
			*end = r->len;
			*whole = 1;
			return 0;
		}
	}
}

/* ---- tokens: each takes the cursor and the end of the text it may read ---- */

struct cur {
	const char *p, *end;
};

static int lit(struct cur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return 0;
	c->p += n;
	return 1;
}

static const signed char hexval[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* An unsigned number in `base`; 0 if there is none or it overflows. */
static int unum(struct cur *c, int base, uint64_t *v)
{
	const char *p = c->p;
	uint64_t x = 0;

	if (base == 16) {
		for (; p < c->end && hexval[(unsigned char)*p]; p++) {
			if (x >> 60)
				return 0;
			x = x << 4 | (uint64_t)(hexval[(unsigned char)*p] - 1);
		}
	} else {
		for (; p < c->end && *p >= '0' && *p <= '9'; p++) {
			uint64_t d = (uint64_t)(*p - '0');

			if (x > (UINT64_MAX - d) / 10)
				return 0;
			x = x * 10 + d;
		}
	}
	if (p == c->p)
		return 0;
	c->p = p;
	*v = x;
	return 1;
}

static int snum(struct cur *c, int base, int64_t *v)
{
	int neg = c->p < c->end && *c->p == '-';
	uint64_t x;

	c->p += neg;
	if (!unum(c, base, &x) || x > (uint64_t)INT64_MAX) {
		c->p -= neg;
		return 0;
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 1;
}

/* Text up to the first ')' followed by `after` (not consumed). */
static int upto(struct cur *c, const char *after, const char **s, size_t *n)
{
	size_t alen = strlen(after);
	const char *q = c->p;

	for (;;) {
		q = memchr(q, ')', (size_t)(c->end - q));
		if (!q)
			return 0;
		if ((size_t)(c->end - q - 1) >= alen && !memcmp(q + 1, after, alen))
			break;
		q++;
	}
	*s = c->p;
	*n = (size_t)(q - c->p);
	c->p = q + 1;
	return 1;
}

/* ---- ids ---- */

/* Grows a table indexed by id (zeroed entries of `size` bytes) to hold
 * id; 0 if the id is not one IgProf would write: far beyond the ndefs
 * definitions read so far (so that the table stays as small as the
 * definitions whatever ids a hostile file has). */
static int id_grow(void **tab, size_t *n, uint64_t id, size_t size, size_t ndefs)
{
	if (id >= (uint64_t)ndefs + ID_SLACK)
		return 0;
	if (id >= *n) {
		size_t m = *n ? *n : 64;

		while (m <= id)
			m *= 2;
		*tab = sp_xreallocarray(*tab, m, size);
		memset((char *)*tab + *n * size, 0, (m - *n) * size);
		*n = m;
	}
	return 1;
}

static uint32_t *id_slot(uint32_t **tab, size_t *n, uint64_t id, size_t ndefs)
{
	return id_grow((void **)tab, n, id, sizeof(**tab), ndefs) ? &(*tab)[id] : NULL;
}

static struct sym *sym_slot(struct reader *r, uint64_t id)
{
	return id_grow((void **)&r->syms, &r->nsyms, id, sizeof(*r->syms), r->nsym_defs)
		       ? &r->syms[id]
		       : NULL;
}

static void frame_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_profile *p = ctx;

	*k1 = p->frames[i].addr;
	*k2 = p->frames[i].object;
}

static void value_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_profile *p = ctx;

	*k1 = p->values[i].node;
	*k2 = p->values[i].counter;
}

/* ---- the header ---- */

static int header(struct reader *r)
{
	struct sp_profile *p = r->p;
	struct cur c;
	size_t end, n;
	const char *s;
	uint64_t pid;
	char *tend, tbuf[64];
	double t;
	int whole, rc;

	r->lineno = 1;
	if ((rc = line_end(r, &end, &whole)) < 0)
		return rc;
	if (r->len == 0)
		return sp_error_set(r->err, SP_E_NODATA, "%s: the file is empty", r->name);
	c.p = r->win + r->pos;
	c.end = r->win + end;
	if (!lit(&c, HEADER_START))
		return bad(r, "not an IgProf dump (it does not start with \"" HEADER_START "\")");
	r->base = lit(&c, "HEX ") ? 16 : 10;
	if (!lit(&c, "ID=") || !unum(&c, r->base, &pid) || !lit(&c, " N=(") ||
	    !upto(&c, " T=", &s, &n) || !lit(&c, " T="))
		return bad(r, "malformed header (expected \"P=([HEX ]ID=<pid> N=(<program>) "
			      "T=<period>)\")");
	{
		char *prog = sp_xstrndup(s, n);
		uint32_t obj = sp_profile_findnew_object(p, prog);

		p->objects[obj].is_main = 1;
		if (!p->igprof.program)
			p->igprof.program = p->objects[obj].path;
		free(prog);
	}
	n = (size_t)(c.end - c.p);
	if (!n || n >= sizeof(tbuf) || c.end[-1] != ')')
		return bad(r, "malformed header: bad period after T=");
	memcpy(tbuf, c.p, n - 1);
	tbuf[n - 1] = '\0';
	t = strtod(tbuf, &tend);
	if (tend == tbuf || *tend || !isfinite(t) || t < 0)
		return bad(r, "malformed header: bad period '%s' after T=", tbuf);
	if (p->igprof.tick == 0)
		p->igprof.tick = t;
	else if (t != 0 && t != p->igprof.tick)
		p->diag[SP_DIAG_PERIOD_MIXED]++; /* ticks add up as they are */
	p->igprof.ndumps++;
	r->pos = end + (end < r->len);
	return 0;
}

/* ---- node lines ---- */

/* `F<fid>[=(path)]+<binoff>`: the object and the offset. */
static int file_ref(struct reader *r, struct cur *c, uint32_t *obj, uint64_t *off)
{
	uint64_t fid;
	uint32_t *slot;

	if (!lit(c, "F") || !unum(c, r->base, &fid))
		return bad(r, "malformed symbol definition (expected F<id>)");
	if (!(slot = id_slot(&r->file, &r->nfile, fid, r->nfile_defs)))
		return bad(r, "file id %llu is too large (%zu defined before it)",
			   (unsigned long long)fid, r->nfile_defs);
	if (lit(c, "=(")) {
		const char *s;
		size_t n;
		char *path;

		if (*slot)
			return bad(r, "file F%llu defined twice", (unsigned long long)fid);
		if (!upto(c, "+", &s, &n))
			return bad(r, "malformed file definition F%llu", (unsigned long long)fid);
		r->nfile_defs++;
		path = sp_xstrndup(s, n);
		*slot = sp_profile_findnew_object(r->p, path) + 1;
		free(path);
	} else if (!*slot) {
		return bad(r, "file F%llu referenced before definition", (unsigned long long)fid);
	}
	*obj = *slot - 1;
	if (!lit(c, "+") || !unum(c, r->base, off))
		return bad(r, "malformed offset after F%llu", (unsigned long long)fid);
	return 0;
}

/* The frame of (object, offset), added once, with IgProf's name of its
 * symbol (NULL for `@?` names). */
static uint32_t findnew_frame(struct reader *r, const struct sym *sy, uint64_t symoff)
{
	struct sp_profile *p = r->p;
	uint64_t off = sy->start + symoff;
	uint32_t i = sp_pairmap_get(&r->frame_index, off, sy->obj);
	struct sp_frame f;

	if (i != UINT32_MAX)
		return i;
	memset(&f, 0, sizeof(f));
	f.addr = off;
	f.map = SP_NONE;
	f.object = sy->obj;
	f.symoff = symoff;
	f.name = sy->name;
	f.flags = SP_FRAME_BASE_OFFSET | (sy->name ? SP_FRAME_NAMED : 0);
	i = sp_profile_add_frame(p, &f);
	sp_pairmap_put(&r->frame_index, off, sy->obj, i);
	return i;
}

/* `FN<id>[=(F... N=(name))]+<symoff>`: the frame. IgProf gives each
 * distinct address an FN id (its symbol cache is keyed by address), so a
 * reference repeats the definition's symoff; should a writer reuse an id
 * for other offsets in the same symbol, the code address is still the
 * symbol's start (binoff - symoff of the definition) plus the line's
 * symoff, and that address is what a frame is. */
static int fn_ref(struct reader *r, struct cur *c, uint32_t *frame)
{
	uint64_t id, symoff;
	struct sym *sy;
	int rc, def = 0;

	if (!lit(c, "FN") || !unum(c, r->base, &id))
		return bad(r, "malformed node (expected FN<id> after the depth)");
	if (!(sy = sym_slot(r, id)))
		return bad(r, "symbol id %llu is too large (%zu defined before it)",
			   (unsigned long long)id, r->nsym_defs);
	if (lit(c, "=(")) {
		const char *name;
		size_t nlen;

		if (sy->defined)
			return bad(r, "symbol FN%llu defined twice", (unsigned long long)id);
		if ((rc = file_ref(r, c, &sy->obj, &sy->off)) < 0)
			return rc;
		if (!lit(c, " N=(") || !upto(c, ")+", &name, &nlen) || !lit(c, ")"))
			return bad(r, "malformed symbol definition FN%llu", (unsigned long long)id);
		sy->name = NULL;
		if (nlen && !(nlen >= 2 && name[0] == '@' && name[1] == '?'))
			sy->name = sp_strtab_intern_n(&r->p->strs, name, nlen);
		sy->defined = 1;
		def = 1;
		r->nsym_defs++;
	} else if (!sy->defined) {
		return bad(r, "symbol FN%llu referenced before definition", (unsigned long long)id);
	}
	if (!lit(c, "+") || !unum(c, r->base, &symoff))
		return bad(r, "malformed call offset after FN%llu", (unsigned long long)id);
	if (def)
		sy->start = sy->off - symoff;
	*frame = findnew_frame(r, sy, symoff);
	return 0;
}

/* ---- counters and leaks ---- */

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t s;

	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return s;
}

static uint32_t new_counter(struct sp_profile *p, const char *name)
{
	struct sp_counter k;

	memset(&k, 0, sizeof(k));
	k.name = name;
	k.kind = strstr(name, "_MAX") ? SP_COUNTER_MAX : SP_COUNTER_SUM;
	k.unit_per_count = 1;
	if (!strcmp(name, "PERF_TICKS")) {
		k.unit = "seconds";
		k.unit_per_count = p->igprof.tick;
	} else if (!strncmp(name, "MEM_", 4)) {
		k.unit = "bytes";
	} else {
		k.unit = "count";
	}
	return sp_profile_add_counter(p, &k);
}

/* ` V<cid>[=(NAME)]:(count,value,peak)` for `node`. */
static int counter(struct reader *r, struct cur *c, uint32_t node)
{
	struct sp_profile *p = r->p;
	uint64_t id;
	uint32_t *slot, i;
	int64_t v[3];

	if (!unum(c, r->base, &id))
		return bad(r, "malformed counter (expected V<id>)");
	if (!(slot = id_slot(&r->ctr, &r->nctr, id, r->nctr_defs)))
		return bad(r, "counter id %llu is too large (%zu defined before it)",
			   (unsigned long long)id, r->nctr_defs);
	if (lit(c, "=(")) {
		const char *s;
		size_t n;
		const char *name;

		if (*slot)
			return bad(r, "counter V%llu defined twice", (unsigned long long)id);
		if (!upto(c, ":", &s, &n) || !n)
			return bad(r, "malformed counter definition V%llu", (unsigned long long)id);
		r->nctr_defs++;
		name = sp_strtab_intern_n(&p->strs, s, n);
		i = sp_profile_find_counter(p, name);
		*slot = (i == SP_NONE ? new_counter(p, name) : i) + 1;
	} else if (!*slot) {
		return bad(r, "counter V%llu referenced before definition", (unsigned long long)id);
	}
	if (!lit(c, ":(") || !snum(c, r->base, &v[0]) || !lit(c, ",") || !snum(c, r->base, &v[1]) ||
	    !lit(c, ",") || !snum(c, r->base, &v[2]) || !lit(c, ")"))
		return bad(r, "malformed values of counter V%llu (expected (count,value,peak))",
			   (unsigned long long)id);
	i = sp_pairmap_get(&r->value_index, node, *slot - 1);
	if (i == UINT32_MAX) {
		sp_profile_add_value(p, node, *slot - 1, v[0], v[1], v[2]);
		sp_pairmap_put(&r->value_index, node, *slot - 1, (uint32_t)(p->nvalues - 1));
	} else {
		struct sp_cct_value *x = &p->values[i];

		x->count = add_sat(x->count, v[0]);
		x->value = add_sat(x->value, v[1]);
		if (v[2] > x->peak)
			x->peak = v[2];
	}
	return 0;
}

/* `;LK=(0x<addr>,<size>)` of `node`. */
static int leak(struct reader *r, struct cur *c, uint32_t node)
{
	uint64_t addr, size;

	if (!lit(c, ";LK=(0x") || !unum(c, 16, &addr) || !lit(c, ",") || !unum(c, r->base, &size) ||
	    !lit(c, ")"))
		return bad(r, "malformed leak entry (expected ;LK=(0x<address>,<size>))");
	if (r->o && r->o->keep_leaks)
		sp_profile_add_leak(r->p, node, addr, size);
	r->p->igprof.nleaks++;
	r->p->igprof.leak_bytes += size;
	return 0;
}

/* Moves on to the rest of a line longer than the window (its LK entries):
 * keeps the text from c->p, reads more, finds the end again. */
static int more_line(struct reader *r, struct cur *c, int *whole)
{
	const char *nl;
	int rc;

	r->pos = (size_t)(c->p - r->win);
	if ((rc = refill(r)) < 0)
		return rc;
	c->p = r->win + r->pos;
	nl = r->len > r->pos ? memchr(c->p, '\n', r->len - r->pos) : NULL;
	c->end = nl ? nl : r->win + r->len;
	*whole = nl != NULL;
	if (!nl && r->eof)
		return sp_error_set(r->err, SP_E_TRUNCATED,
				    "%s:%llu: the file ends in the middle of a line (truncated?)",
				    r->name, (unsigned long long)r->lineno);
	return 0;
}

/* ---- node lines ---- */

/* "unexpected text": up to 40 bytes of it, other than printable ASCII as
 * \xNN. */
static int unexpected(struct reader *r, const struct cur *c)
{
	char shown[40 * 4 + 1];
	size_t i, n = 0;

	for (i = 0; i < 40 && c->p + i < c->end; i++) {
		unsigned char ch = (unsigned char)c->p[i];

		if (ch >= 0x20 && ch < 0x7f)
			shown[n++] = (char)ch;
		else
			n += (size_t)snprintf(shown + n, sizeof(shown) - n, "\\x%02x", ch);
	}
	shown[n] = '\0';
	return bad(r, "unexpected text after the node: '%s'", shown);
}

static int node_line(struct reader *r, struct cur *c, int whole)
{
	struct sp_profile *p = r->p;
	uint64_t depth;
	uint32_t frame = 0, node;
	int rc;

	if (!lit(c, "C") || !unum(c, r->base, &depth) || !lit(c, " "))
		return bad(r, "malformed line (expected C<depth> FN<id>...)");
	if (depth < 1 || depth > r->depth + 1)
		return bad(r, "depth %llu after depth %zu (a node needs its parent line)",
			   (unsigned long long)depth, r->depth);
	if ((rc = fn_ref(r, c, &frame)) < 0)
		return rc;
	node = sp_profile_cct_child(p, depth == 1 ? sp_profile_cct_root(p) : r->stack[depth - 2],
				    frame);
	SP_ALLOC_GROW(r->stack, depth, r->stack_alloc);
	r->stack[depth - 1] = node;
	r->depth = (size_t)depth;
	while (lit(c, " V"))
		if ((rc = counter(r, c, node)) < 0)
			return rc;
	while (c->p < c->end || !whole) {
		if (!whole && c->end - c->p < LK_ROOM && (rc = more_line(r, c, &whole)) < 0)
			return rc;
		if (c->p == c->end && whole)
			break;
		if (*c->p != ';')
			return unexpected(r, c);
		if ((rc = leak(r, c, node)) < 0)
			return rc;
	}
	return 0;
}

/* ---- the file ---- */

static int read_lines(struct reader *r)
{
	int rc;

	if ((rc = header(r)) < 0)
		return rc;
	for (;;) {
		size_t end;
		int whole;
		struct cur c;

		if (r->pos >= r->len) {
			if ((rc = refill(r)) < 0)
				return rc;
			if (rc == 0)
				break;
		}
		if ((rc = line_end(r, &end, &whole)) < 0)
			return rc;
		r->lineno++;
		if (end == r->pos) {
			r->pos++;
			continue;
		}
		c.p = r->win + r->pos;
		c.end = r->win + end;
		if ((rc = node_line(r, &c, whole)) < 0)
			return rc;
		r->pos = (size_t)(c.end - r->win) + 1;
		if (r->pos > r->len)
			r->pos = r->len;
	}
	return 0;
}

static int read_zin(struct sp_profile *p, const char *name, struct sp_zin *z,
		    const struct sp_igprof_read_opts *o, struct sp_error *err)
{
	struct reader r;
	size_t i;
	int rc;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.o = o;
	r.err = err;
	r.name = name;
	r.z = z;
	sp_pairmap_init(&r.frame_index, frame_key, p);
	sp_pairmap_init(&r.value_index, value_key, p);
	for (i = 0; i < p->nframes; i++)
		sp_pairmap_put(&r.frame_index, p->frames[i].addr, p->frames[i].object, (uint32_t)i);
	for (i = 0; i < p->nvalues; i++)
		sp_pairmap_put(&r.value_index, p->values[i].node, p->values[i].counter,
			       (uint32_t)i);
	sp_profile_add_input(p, name, "igprof");
	rc = read_lines(&r);
	sp_progress_update(o ? o->progress : NULL, sp_zin_consumed(z), sp_zin_size(z));
	sp_pairmap_release(&r.frame_index);
	sp_pairmap_release(&r.value_index);
	free(r.win);
	free(r.syms);
	free(r.file);
	free(r.ctr);
	free(r.stack);
	return rc;
}

int sp_fmt_igprof_probe(const uint8_t *data, size_t size)
{
	return size >= strlen(HEADER_START) && !memcmp(data, HEADER_START, strlen(HEADER_START));
}

int sp_fmt_igprof_read(struct sp_profile *p, const char *path, const struct sp_igprof_read_opts *o,
		       struct sp_error *err)
{
	struct sp_zin *z = sp_zin_open(path, !o || !o->no_thread, err);
	int rc;

	if (!z)
		return -SP_E_OPEN;
	rc = read_zin(p, path, z, o, err);
	sp_zin_close(z);
	return rc;
}

int sp_fmt_igprof_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			   const struct sp_igprof_read_opts *o, struct sp_error *err)
{
	struct sp_zin *z = sp_zin_open_mem(name, data, size);
	int rc = read_zin(p, name, z, o, err);

	sp_zin_close(z);
	return rc;
}
