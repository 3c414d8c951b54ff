/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What google-pprof (the Perl script of gperftools 2.0, peers.md 1.4)
 * knows about each address of a CPU profile, computed from symprof's own
 * symbolizer instead of nm and addr2line processes:
 *
 *  - MapSymbolsWithNM: the `nm -n --demangle` routine around the address
 *    (pprof-nmview.c), tagged "name<addr>";
 *  - MapToSymbols: `addr2line -f -C` answers, with -i (inline chains) only
 *    for files whose nm listing has `_fini` (pprof's separator trick),
 *    each answer becoming (ShortFunctionName, "file:line", full name); nm
 *    replaces the name when addr2line has none ("??"), and when nm's full
 *    name starts with addr2line's short name (to get the <addr> tag);
 *  - the list is kept outermost first (pprof unshifts addr2line's lines).
 *
 * Where pprof would fail, symprof does not: the executable is found
 * whatever its path (pprof loses PIE executables that moved), and every
 * library is symbolized with its own mapping. Addresses in no file print
 * as pprof prints them: "0x" and 16 hex digits (8 for 32-bit profiles).
 */
#include "pprof.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/buf.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"

/* ---- ShortFunctionName ---- */

/*
 * One pass of s/OPEN[^OPEN CLOSE]*CLOSE//g over b, in place (what is kept
 * only moves left), also dropping \s*const after a removed CLOSE when
 * `then_const`; returns 1 if anything was removed. Text between openers
 * is moved in one piece, not character by character.
 */
static int strip_pairs(struct sp_buf *b, char open, char close, int then_const)
{
	char *s = b->buf;
	size_t i = 0, w = 0, n = b->len, j, k;
	int changed = 0;

	if (!n || !memchr(s, open, n))
		return 0;
	while (i < n) {
		const char *o = memchr(s + i, open, n - i);
		size_t at = o ? (size_t)(o - s) : n;

		memmove(s + w, s + i, at - i);
		w += at - i;
		if ((i = at) == n)
			break;
		for (j = i + 1; j < n && s[j] != open && s[j] != close; j++)
			;
		if (j >= n || s[j] != close) {
			s[w++] = s[i++]; /* no match from here: the regex moves on */
			continue;
		}
		i = j + 1;
		if (then_const) {
			for (k = i; k < n && isspace((unsigned char)s[k]); k++)
				;
			if (n - k >= 5 && !memcmp(s + k, "const", 5))
				i = k + 5;
		}
		changed = 1;
	}
	sp_buf_setlen(b, w);
	return changed;
}

/* s/\([^()]*\)(\s*const)?//g once; returns 1 if anything was removed. */
static int strip_parens(struct sp_buf *b)
{
	return strip_pairs(b, '(', ')', 1);
}

/* s/<[^<>]*>//g once. */
static int strip_templates(struct sp_buf *b)
{
	return strip_pairs(b, '<', '>', 0);
}

/* Where s/<[0-9a-f]*>$// would cut s (of length n): n if nowhere. */
static size_t tag_start(const char *s, size_t n)
{
	size_t i;

	if (!n || s[n - 1] != '>')
		return n;
	for (i = n - 1; i > 0; i--) {
		char c = s[i - 1];

		if (c == '<')
			return i - 1;
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return n;
	}
	return n;
}

/* s/<[0-9a-f]*>$//: a trailing address tag. */
static void strip_addr_tag(struct sp_buf *b)
{
	sp_buf_setlen(b, tag_start(b->buf, b->len));
}

static int is_word(int c)
{
	return isalnum(c) || c == '_';
}

/* s/^.*\s+(\w+::)/$1/: drop a leading return type. */
static void strip_return_type(struct sp_buf *b)
{
	const char *s = b->buf;
	size_t i;

	/* the last blank run followed by \w+:: wins (greedy .*) */
	for (i = b->len; i > 1; i--) {
		size_t k = i - 1, w = k;

		if (!isspace((unsigned char)s[k - 1]) || isspace((unsigned char)s[k]))
			continue;
		while (w < b->len && is_word((unsigned char)s[w]))
			w++;
		if (w > k && w + 1 < b->len + 0 && s[w] == ':' && s[w + 1] == ':') {
			struct sp_buf out = SP_BUF_INIT;

			sp_buf_addstr(&out, s + k);
			sp_buf_release(b);
			*b = out;
			return;
		}
	}
}

/* ShortFunctionName of full, or of full + "<addr>" when tagged: the tag is
 * the one trailing "<hex>" pprof's regular expression removes, so a name
 * that ends in one of its own ("spin<1>", "sort::<f64>") keeps it. */
static const char *short_name(struct sp_strtab *strs, const char *full, int keep_templates,
			      int tagged)
{
	struct sp_buf b = SP_BUF_INIT;
	size_t n = strlen(full), k = tagged ? n : tag_start(full, n);
	const char *out;

	/* nothing to strip (C names) but nm's "<addr>" tag: no parentheses,
	 * brackets or blanks before it */
	if (strcspn(full, "()<> \t\n\v\f\r") >= k)
		return sp_strtab_intern_n(strs, full, k);
	sp_buf_addstr(&b, full);
	while (strip_parens(&b))
		;
	if (!tagged)
		strip_addr_tag(&b);
	while (!keep_templates && strip_templates(&b))
		;
	strip_return_type(&b);
	out = sp_strtab_intern(strs, b.buf);
	sp_buf_release(&b);
	return out;
}

const char *sp_pprof_short_name(struct sp_strtab *strs, const char *full)
{
	return sp_pprof_short_name_opt(strs, full, 0);
}

const char *sp_pprof_short_name_opt(struct sp_strtab *strs, const char *full, int keep_templates)
{
	return short_name(strs, full, keep_templates, 0);
}

const char *sp_pprof_short_name_tagged(struct sp_strtab *strs, const char *untagged,
				       int keep_templates)
{
	return short_name(strs, untagged, keep_templates, 1);
}

/* ---- memos ---- */

static void short_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_pprof_names *n = ctx;

	*k1 = (uint64_t)(uintptr_t)n->shorts[i].k1;
	*k2 = n->shorts[i].k2;
}

static void fl_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_pprof_names *n = ctx;

	*k1 = (uint64_t)(uintptr_t)n->fls[i].k1;
	*k2 = n->fls[i].k2;
}

/* ShortFunctionName, once per name (by pointer), of the name itself or,
 * when tagged, of the name with nm's "<addr>" tag after it. */
static const char *short_of(struct sp_pprof_names *n, const char *full, int tagged)
{
	uint32_t i = sp_pairmap_get(&n->short_index, (uint64_t)(uintptr_t)full, (uint64_t)tagged);

	if (i != UINT32_MAX)
		return n->shorts[i].v;
	SP_ALLOC_GROW(n->shorts, n->nshorts + 1, n->shorts_alloc);
	n->shorts[n->nshorts].k1 = full;
	n->shorts[n->nshorts].k2 = (uint64_t)tagged;
	n->shorts[n->nshorts].v = short_name(&n->strs, full, n->keep_templates, tagged);
	sp_pairmap_put(&n->short_index, (uint64_t)(uintptr_t)full, (uint64_t)tagged,
		       (uint32_t)n->nshorts);
	return n->shorts[n->nshorts++].v;
}

/* ---- MapToSymbols ---- */

/* "%0*llx" of pc in addr_width digits (more if it needs them), after
 * "0x" if with_0x. */
static const char *hex_pc(struct sp_pprof_names *n, uint64_t pc, int with_0x)
{
	char buf[24], *e = buf + sizeof(buf) - 1;
	int digits = 0;

	*e = '\0';
	do {
		*--e = "0123456789abcdef"[pc & 15];
		pc >>= 4;
	} while (++digits < n->addr_width || pc);
	if (with_0x) {
		*--e = 'x';
		*--e = '0';
	}
	return sp_strtab_intern(&n->strs, e);
}

/* The file and line addr2line prints for frame f ("??" and 0 for none),
 * numbered per distinct pair from 1. */
static void fileline(struct sp_pprof_names *n, const struct sp_sym_frame *f,
		     struct sp_pprof_sym *sy)
{
	const char *file = f && f->file ? f->file : "??";
	uint32_t line = f ? f->line : 0, i;

	sy->file = file;
	sy->line = line;
	i = sp_pairmap_get(&n->fl_index, (uint64_t)(uintptr_t)file, line);
	if (i == UINT32_MAX) {
		SP_ALLOC_GROW(n->fls, n->nfls + 1, n->fls_alloc);
		n->fls[n->nfls].k1 = file;
		n->fls[n->nfls].k2 = line;
		n->fls[n->nfls].v = NULL;
		i = sp_pairmap_put(&n->fl_index, (uint64_t)(uintptr_t)file, line,
				   (uint32_t)n->nfls++);
	}
	sy->fl = i + 1;
}

/* Prepends an entry to a's list (pprof unshifts: the new one is outer);
 * returns it for the caller to finish. */
static struct sp_pprof_sym *add_sym(struct sp_pprof_addr *a, struct sp_arena *arena,
				    const char *func, const char *full)
{
	struct sp_pprof_sym *v = sp_arena_array(arena, a->nsyms + 1, sizeof(*v));

	if (a->nsyms)
		memcpy(v + 1, a->syms, a->nsyms * sizeof(*v));
	memset(&v[0], 0, sizeof(v[0]));
	v[0].func = func;
	v[0].full = full;
	a->syms = v;
	a->nsyms++;
	return &v[0];
}

void sp_pprof_names_nm(struct sp_pprof_names *n, struct sp_symfile *f, uint64_t vaddr, uint64_t pc,
		       struct sp_pprof_nm *out)
{
	const char *plain;
	uint64_t start;

	out->full = out->func = NULL;
	out->inl = sp_pprof_nmview_has_fini(&n->nm, f);
	/* ShortFunctionName drops the "<addr>" tag whatever comes before
	 * it (it holds no blank, parenthesis or bracket), and only the tag:
	 * "spin<1><addr>" is "spin<1>" with --no_strip_temp (without, the
	 * template rule removes both: the untagged name's memo serves) */
	if (sp_pprof_nmview_routine(&n->nm, f, vaddr, &out->full, &plain, &start))
		out->func = short_of(n, plain, n->keep_templates);
	else if (sp_pprof_nmview_has_routines(&n->nm, f))
		out->full = out->func = hex_pc(n, pc, 1);
}

/* An address pprof maps to a file it could read, with what nm says of it;
 * or one whose inline chain the profile recorded (no file: the whole
 * chain, no nm). */
static void from_file(struct sp_pprof_names *n, struct sp_pprof_addr *a,
		      const struct sp_symloc *loc, const struct sp_pprof_nm *nm)
{
	uint32_t k, count;
	struct sp_pprof_sym *sy;

	count = loc->nframes ? (nm->inl ? loc->nframes : 1) : 1;
	for (k = 0; k < count; k++) {
		const struct sp_sym_frame *f = loc->nframes ? &loc->frames[k] : NULL;
		const char *full =
			f && f->name ? sp_symbolizer_demangle_in(n->sym, loc->file, f->name) : "??";
		const char *func = short_of(n, full, 0);

		if (nm->full && !strcmp(full, "??")) {
			func = nm->func;
			full = nm->full;
		} else if (nm->full && !strncmp(nm->full, func, strlen(func))) {
			func = nm->func;
			full = nm->full;
		}
		sy = add_sym(a, &n->arena, func, full);
		/* without lines too for a frame nobody names: PrintText prints
		 * its address key as "?? file:line" */
		if (n->lines || (func[0] == '?' && !strcmp(func, "??")))
			fileline(n, f, sy);
	}
}

static void resolve(struct sp_pprof_names *n, struct sp_pprof_addr *a, const struct sp_symloc *loc,
		    const struct sp_pprof_nm *nm)
{
	struct sp_pprof_nm none = {NULL, NULL, 1};
	struct sp_pprof_sym *sy;
	const char *x;

	a->nsyms = 0;
	a->syms = NULL;
	a->known = 1;
	switch (loc->reason) {
	case SP_SYM_NO_FILE:
	case SP_SYM_BAD_FILE:
		/* nm and addr2line fail on a file that is not there */
		a->known = 0;
		return;
	case SP_SYM_UNMAPPED:
	case SP_SYM_BUILD_ID:
	case SP_SYM_MISMATCH:
		x = hex_pc(n, a->pc, 1);
		sy = add_sym(a, &n->arena, x, x);
		if (n->lines)
			fileline(n, NULL, sy);
		return;
	default:
		if (!nm && loc->file)
			sp_pprof_names_nm(n, loc->file, loc->vaddr, a->pc, &none);
		/* recorded (no file): no routine to look up */
		from_file(n, a, loc, nm ? nm : &none);
	}
}

void sp_pprof_names_resolve(struct sp_pprof_names *n, struct sp_pprof_addr *a,
			    const struct sp_symloc *loc)
{
	resolve(n, a, loc, NULL);
}

void sp_pprof_names_resolve_nm(struct sp_pprof_names *n, struct sp_pprof_addr *a,
			       const struct sp_symloc *loc, const struct sp_pprof_nm *nm)
{
	resolve(n, a, loc, nm);
}

const char *sp_pprof_names_hex(struct sp_pprof_names *n, uint64_t pc)
{
	return hex_pc(n, pc, 0);
}

void sp_pprof_names_init(struct sp_pprof_names *n, struct sp_symbolizer *s, int addr_width,
			 int lines)
{
	memset(n, 0, sizeof(*n));
	n->sym = s;
	n->addr_width = addr_width;
	n->lines = lines;
	sp_strtab_init(&n->strs);
	sp_arena_init(&n->arena);
	sp_pprof_nmview_init(&n->nm);
	sp_pairmap_init(&n->short_index, short_key, n);
	sp_pairmap_init(&n->fl_index, fl_key, n);
}

void sp_pprof_names_release(struct sp_pprof_names *n)
{
	sp_pairmap_release(&n->short_index);
	sp_pairmap_release(&n->fl_index);
	free(n->shorts);
	free(n->fls);
	sp_strtab_release(&n->strs);
	sp_arena_release(&n->arena);
	sp_pprof_nmview_release(&n->nm);
}
