/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=pprof: google-pprof's `--text` report of a CPU profile (the
 * Perl script of gperftools 2.0: PrintText and what feeds it), so that a
 * pprof user sees the same numbers and names:
 *
 *   Total: N samples
 *   <flat> <flat%> <sum%> <cum> <cum%> <name>      "%8s %6s %6s %8s %6s %s"
 *
 * sorted by flat (by cum with --cum), then by name (byte order); flat% and
 * cum% are of the flat total, sum% the running sum of flat. The steps are
 * pprof's, on the stacks of the profile:
 *
 *  1. RemoveUninterestingFrames: while every stack has a second address
 *     and it is the same one, it is a signal-handler artefact: it goes
 *     (and the next one with it when it is the leaf's duplicate), and
 *     "Removing NAME from all stack traces." goes to stderr; then frames
 *     of the profiler itself (ProfileData::Add, CpuProfiler::prof_handler,
 *     __pthread_sighandler, __restore ...) are dropped.
 *  2. TranslateStack: each address becomes its symbol list, innermost
 *     first, every function but the outermost marked " (inline)"; names
 *     that several routines share get "@addr" (FillFullnameToShortnameMap);
 *     addresses above 0x7fffffffffffffff (kernel) are skipped. With -l an
 *     entry is "name file:line".
 *  3. ReduceProfile: a stack counts once per entry however often the entry
 *     repeats in it (recursion), so cum is the samples whose stack holds
 *     the entry; flat goes to the first entry.
 *
 * pprof's names come from pprof-names.c. Differences on purpose: every
 * frame of every file is named (pprof loses PIE executables not at their
 * recorded path, and later profiles' libraries); Callback::Run frames are
 * not renamed "Run#N" (pprof numbers them in hash order).
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "pprof.h"
#include "symprof/alloc.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct pprof {
	FILE *out;
	const struct sp_profile *p;
	const struct sp_stack_report_opts *o;
	struct sp_pprof_names names;
	struct sp_pprof_addr *addrs;   /* distinct addresses */
	size_t naddrs, addrs_alloc;
	struct sp_pairmap addr_index;  /* pc -> addrs */
	uint32_t *frame_addr;          /* per frame */
	/* stacks, leaf first: addresses stk[off[i] .. off[i + 1]) */
	uint32_t *stk;
	size_t nstk, stk_alloc;
	size_t *off;
	int64_t *count;
	size_t nstacks;
	int64_t total;                 /* samples */
	/* entries (translated names) */
	struct sp_pairmap entry_index; /* interned string -> entries */
	const char **entry;
	int64_t *flat, *cum;
	uint32_t *seen;                /* per entry: last stack that counted it */
	size_t nentries, entries_alloc;
	char *listed;                  /* per entry: in some stack (pprof's cum keys) */
	struct pprof_memo {
		const char *func;
		uint64_t k2;
		uint32_t entry;
	} *memo;                       /* (name, file:line, inline) -> entry */
	struct sp_pairmap memo_index;
	size_t nmemo, memo_alloc;
	uint32_t *aent;                /* per address: its entries ... */
	size_t *aent_off;              /* ... aent[aent_off[a] .. aent_off[a + 1]) */
	size_t naent, aent_alloc;
	struct sp_strtab strs;
};

/* ---- addresses ---- */

static void addr_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pprof *pp = ctx;

	*k1 = pp->addrs[i].pc;
	*k2 = 0;
}

struct pending {
	struct sp_symfile *file;
	uint64_t pc, vaddr;
	uint32_t addr;
};

static int cmp_pending(const void *a, const void *b, void *ctx)
{
	const struct pending *x = a, *y = b;

	(void)ctx;
	if (x->file != y->file)
		return (uintptr_t)x->file < (uintptr_t)y->file ? -1 : 1;
	return (x->pc > y->pc) - (x->pc < y->pc);
}

/*
 * MapToSymbols runs one addr2line per file on its addresses in ascending
 * order, and libbfd's answers depend on the lookups before (rule 8 of
 * symbolize/dwarf-funcs.c): resolve each file's addresses in that order.
 */
static void resolve_addrs(struct pprof *pp, struct sp_symbolizer *s, const uint32_t *rep)
{
	struct pending *v = sp_xmalloc((pp->naddrs + 1) * sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < pp->naddrs; i++) {
		struct sp_symfile *f;
		uint64_t vaddr;

		/* found in a file: looked up below, in a session, only */
		if (sp_symbolizer_place(s, pp->p, rep[i], &f, &vaddr) == SP_SYM_OK) {
			v[n].file = f;
			v[n].pc = pp->addrs[i].pc;
			v[n].vaddr = vaddr;
			v[n++].addr = (uint32_t)i;
		} else {
			sp_pprof_names_resolve(&pp->names, &pp->addrs[i],
					       sp_symbolizer_frame(s, pp->p, rep[i]));
		}
	}
	sp_sort(v, n, sizeof(*v), cmp_pending, NULL);
	for (i = 0; i < n; i++) {
		struct sp_symfile *f = v[i].file;

		if (!i || v[i - 1].file != f)
			sp_symfile_session_reset(f);
		sp_pprof_names_resolve(&pp->names, &pp->addrs[v[i].addr],
				       sp_symfile_lookup_session(f, v[i].vaddr));
	}
	free(v);
}

static void collect_addrs(struct pprof *pp, struct sp_symbolizer *s)
{
	const struct sp_profile *p = pp->p;
	uint32_t *rep = NULL;
	size_t f, rep_alloc = 0;

	pp->frame_addr = sp_xmalloc((p->nframes + 1) * sizeof(*pp->frame_addr));
	sp_pairmap_init(&pp->addr_index, addr_key, pp);
	for (f = 0; f < p->nframes; f++) {
		const struct sp_frame *fr = &p->frames[f];
		uint64_t pc = fr->addr - ((fr->flags & SP_FRAME_RETURN_ADDR) ? 1 : 0);
		uint32_t i = sp_pairmap_get(&pp->addr_index, pc, 0);

		if (i == UINT32_MAX) {
			SP_ALLOC_GROW(pp->addrs, pp->naddrs + 1, pp->addrs_alloc);
			SP_ALLOC_GROW(rep, pp->naddrs + 1, rep_alloc);
			memset(&pp->addrs[pp->naddrs], 0, sizeof(*pp->addrs));
			pp->addrs[pp->naddrs].pc = pc;
			rep[pp->naddrs] = (uint32_t)f;
			i = (uint32_t)pp->naddrs++;
			sp_pairmap_put(&pp->addr_index, pc, 0, i);
		}
		pp->frame_addr[f] = i;
	}
	resolve_addrs(pp, s, rep);
	free(rep);
}

/* ---- stacks ---- */

static void collect_stacks(struct pprof *pp)
{
	const struct sp_profile *p = pp->p;
	uint32_t counter = sp_profile_find_counter(p, "samples");
	int64_t *node_count = sp_xcalloc(p->nnodes + 1, sizeof(*node_count));
	size_t i, total = 0, n = 0;

	for (i = 0; i < p->nvalues; i++)
		if (p->values[i].counter == counter && p->values[i].node < p->nnodes)
			node_count[p->values[i].node] += p->values[i].count;
	for (i = 1; i < p->nnodes; i++) {
		if (node_count[i]) {
			total += p->nodes[i].depth;
			n++;
		}
	}
	pp->off = sp_xmalloc((n + 1) * sizeof(*pp->off));
	pp->count = sp_xmalloc((n + 1) * sizeof(*pp->count));
	pp->stk = sp_xmalloc((total + 1) * sizeof(*pp->stk));
	pp->stk_alloc = total + 1;
	for (i = 1; i < p->nnodes; i++) {
		uint32_t node;

		if (!node_count[i])
			continue;
		pp->off[pp->nstacks] = pp->nstk;
		pp->count[pp->nstacks++] = node_count[i];
		for (node = (uint32_t)i; node != 0 && node != SP_NONE; node = p->nodes[node].parent)
			pp->stk[pp->nstk++] = pp->frame_addr[p->nodes[node].frame];
	}
	pp->off[pp->nstacks] = pp->nstk;
	free(node_count);
}

static size_t stack_len(const struct pprof *pp, size_t i)
{
	return pp->off[i + 1] - pp->off[i];
}

static const char *addr_name(struct pprof *pp, uint32_t a)
{
	const struct sp_pprof_addr *x = &pp->addrs[a];

	return x->known && x->nsyms ? x->syms[0].func : sp_pprof_names_hex(&pp->names, x->pc);
}

/* Removes position k (and the duplicate leaf) from every stack. */
static void drop_second(struct pprof *pp)
{
	size_t i, w = 0, start = 0;

	for (i = 0; i < pp->nstacks; i++) {
		size_t b = pp->off[i], n = pp->off[i + 1] - b, k;
		uint32_t *s = pp->stk + b;
		int dup = n > 3 && pp->addrs[s[2]].pc + 1 == pp->addrs[s[0]].pc;

		pp->off[i] = w;
		for (k = 0; k < n; k++)
			if (k != 1 && !(dup && k == 2))
				pp->stk[w++] = s[k];
		start = w;
	}
	pp->off[pp->nstacks] = start;
	pp->nstk = w;
}

/* IsSecondPcAlwaysTheSame, repeated. */
static void remove_signal_frames(struct pprof *pp)
{
	for (;;) {
		size_t i;
		uint32_t second = UINT32_MAX;

		if (!pp->nstacks)
			return;
		for (i = 0; i < pp->nstacks; i++) {
			if (stack_len(pp, i) < 2)
				return;
			if (second == UINT32_MAX)
				second = pp->stk[pp->off[i] + 1];
			else if (pp->stk[pp->off[i] + 1] != second)
				return;
		}
		fprintf(stderr, "Removing %s from all stack traces.\n", addr_name(pp, second));
		drop_second(pp);
	}
}

static int uninteresting_name(const struct pprof *pp, uint32_t a)
{
	static const char *const skip[] = {
		"ProfileData::Add",  "ProfileData::prof_handler", "CpuProfiler::prof_handler",
		"__FRAME_END__",     "__pthread_sighandler",      "__restore",
	};
	const struct sp_pprof_addr *x = &pp->addrs[a];
	size_t i;

	if (!x->known || !x->nsyms)
		return 0;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strcmp(x->syms[0].func, skip[i]))
			return 1;
	return 0;
}

static void remove_uninteresting(struct pprof *pp)
{
	char *skip = sp_xmalloc(pp->naddrs + 1);
	size_t i, k, w = 0;

	for (i = 0; i < pp->naddrs; i++)
		skip[i] = (char)uninteresting_name(pp, (uint32_t)i);
	remove_signal_frames(pp);
	for (i = 0; i < pp->nstacks; i++) {
		size_t b = pp->off[i], e = pp->off[i + 1];

		pp->off[i] = w;
		for (k = b; k < e; k++)
			if (!skip[pp->stk[k]])
				pp->stk[w++] = pp->stk[k];
	}
	pp->off[pp->nstacks] = w;
	pp->nstk = w;
	free(skip);
}

/* ---- names ---- */

static void entry_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pprof *pp = ctx;

	*k1 = (uint64_t)(uintptr_t)pp->entry[i];
	*k2 = 0;
}

static void memo_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pprof *pp = ctx;

	*k1 = (uint64_t)(uintptr_t)pp->memo[i].func;
	*k2 = pp->memo[i].k2;
}

static uint32_t entry_for(struct pprof *pp, const char *s)
{
	const char *key = sp_strtab_intern(&pp->strs, s);
	uint32_t i = sp_pairmap_get(&pp->entry_index, (uint64_t)(uintptr_t)key, 0);

	if (i != UINT32_MAX)
		return i;
	SP_ALLOC_GROW(pp->entry, pp->nentries + 1, pp->entries_alloc);
	pp->entry[pp->nentries] = key;
	sp_pairmap_put(&pp->entry_index, (uint64_t)(uintptr_t)key, 0, (uint32_t)pp->nentries);
	return (uint32_t)pp->nentries++;
}

/* A map from interned strings to interned strings (pointer keys). */
struct strmap {
	struct sp_pairmap index;
	const char **k, **v;
	size_t n, alloc;
};

static void strmap_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct strmap *m = ctx;

	*k1 = (uint64_t)(uintptr_t)m->k[i];
	*k2 = 0;
}

static void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
	sp_pairmap_init(&m->index, strmap_key, m);
}

static void strmap_release(struct strmap *m)
{
	sp_pairmap_release(&m->index);
	free(m->k);
	free(m->v);
}

static const char **strmap_get(struct strmap *m, const char *k)
{
	uint32_t i = sp_pairmap_get(&m->index, (uint64_t)(uintptr_t)k, 0);

	return i == UINT32_MAX ? NULL : &m->v[i];
}

static const char **strmap_put(struct strmap *m, const char *k, const char *v)
{
	const char **old = strmap_get(m, k);

	if (old)
		return old;
	SP_ALLOC_GROW(m->k, m->n + 1, m->alloc);
	m->v = sp_xreallocarray(m->v, m->alloc, sizeof(*m->v));
	m->k[m->n] = k;
	m->v[m->n] = v;
	sp_pairmap_put(&m->index, (uint64_t)(uintptr_t)k, 0, (uint32_t)m->n);
	return &m->v[m->n++];
}

static int ends_with_hex_tag(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 3 || s[n - 1] != '>')
		return 0;
	for (i = n - 1; i > 0 && s[i - 1] != '<'; i--)
		if (!strchr("0123456789abcdefABCDEF", s[i - 1]))
			return 0;
	return i > 0 && i < n - 1;
}

/*
 * FillFullnameToShortnameMap: full name -> "short@addr" for the short
 * names that routines at several addresses share (outermost entries).
 * Only full names with nm's <addr> tag take part; they and the short
 * names are interned, so their addresses identify them.
 */
static void fullname_map(struct pprof *pp, struct strmap *map)
{
	struct strmap once;   /* short -> its first tagged full name, or "" if several */
	size_t i;

	strmap_init(&once);
	for (i = 0; i < pp->naddrs; i++) {
		const struct sp_pprof_addr *a = &pp->addrs[i];
		const char **f;

		if (!a->known || !a->nsyms || !ends_with_hex_tag(a->syms[0].full))
			continue;
		f = strmap_put(&once, a->syms[0].func, a->syms[0].full);
		if (*f != a->syms[0].full)
			*f = "";
	}
	for (i = 0; i < pp->naddrs; i++) {
		const struct sp_pprof_addr *a = &pp->addrs[i];
		const char *full, **f, *lt, *gt;
		struct sp_buf b = SP_BUF_INIT;

		if (!a->known || !a->nsyms)
			continue;
		full = a->syms[0].full;
		f = strmap_get(&once, a->syms[0].func);
		if (!f || **f || strmap_get(map, full))
			continue;
		gt = full + strlen(full) - 1;
		if (*gt != '>' || !(lt = strrchr(full, '<')) || memchr(lt, '>', (size_t)(gt - lt)))
			continue;
		for (lt++; *lt == '0'; lt++)
			;
		sp_buf_addf(&b, "%s@%.*s", a->syms[0].func, (int)(gt - lt), lt);
		strmap_put(map, full, sp_strtab_intern(&pp->strs, b.buf));
		sp_buf_release(&b);
	}
	strmap_release(&once);
}

/* The entry "func[ (inline)][ fileline]", memoized by the strings'
 * addresses (names and file:line strings are interned). */
static uint32_t entry_memo(struct pprof *pp, const char *func, const char *fl, int inl,
			   struct sp_buf *b)
{
	uint64_t k2 = ((uint64_t)(uintptr_t)fl << 1) | (unsigned)inl;
	uint32_t i = sp_pairmap_get(&pp->memo_index, (uint64_t)(uintptr_t)func, k2), e;

	if (i != UINT32_MAX)
		return pp->memo[i].entry;
	sp_buf_reset(b);
	sp_buf_addstr(b, func);
	if (inl)
		sp_buf_addstr(b, " (inline)");
	if (fl) {
		sp_buf_addch(b, ' ');
		sp_buf_addstr(b, fl);
	}
	e = entry_for(pp, b->buf);
	SP_ALLOC_GROW(pp->memo, pp->nmemo + 1, pp->memo_alloc);
	pp->memo[pp->nmemo].func = func;
	pp->memo[pp->nmemo].k2 = k2;
	pp->memo[pp->nmemo].entry = e;
	sp_pairmap_put(&pp->memo_index, (uint64_t)(uintptr_t)func, k2, (uint32_t)pp->nmemo++);
	return e;
}

/* TranslateStack for one address: its entries, innermost first. */
static void translate_addr(struct pprof *pp, uint32_t a, struct strmap *map, struct sp_buf *b)
{
	const struct sp_pprof_addr *x = &pp->addrs[a];
	struct sp_pprof_sym unknown;
	const struct sp_pprof_sym *syms = x->syms;
	uint32_t n = x->nsyms, j;

	if (pp->names.addr_width > 8 && x->pc > 0x7fffffffffffffffULL)
		return;
	if (!x->known) {
		unknown.func = unknown.full = sp_pprof_names_hex(&pp->names, x->pc);
		unknown.fileline = "";
		syms = &unknown;
		n = 1;
	}
	for (j = n; j > 0; j--) {
		const struct sp_pprof_sym *sy = &syms[j - 1];
		const char **m = map->n ? strmap_get(map, sy->full) : NULL;
		const char *func = m ? *m : sy->func;
		uint32_t e;

		if (func[0] == '?' && !strcmp(func, "??") &&
		    (!pp->o->lines || !strcmp(sy->fileline, "??:0"))) {
			sp_buf_reset(b);
			sp_buf_addstr(b, sp_pprof_names_hex(&pp->names, x->pc));
			e = entry_for(pp, b->buf);
		} else {
			e = entry_memo(pp, func, pp->o->lines ? sy->fileline : NULL, j > 1, b);
		}
		SP_ALLOC_GROW(pp->aent, pp->naent + 1, pp->aent_alloc);
		pp->aent[pp->naent++] = e;
	}
}

static void translate(struct pprof *pp)
{
	struct strmap map;
	struct sp_buf b = SP_BUF_INIT;
	size_t a;

	strmap_init(&map);
	sp_pairmap_init(&pp->entry_index, entry_key, pp);
	sp_pairmap_init(&pp->memo_index, memo_key, pp);
	fullname_map(pp, &map);
	pp->aent_off = sp_xmalloc((pp->naddrs + 1) * sizeof(*pp->aent_off));
	for (a = 0; a < pp->naddrs; a++) {
		pp->aent_off[a] = pp->naent;
		translate_addr(pp, (uint32_t)a, &map, &b);
	}
	pp->aent_off[pp->naddrs] = pp->naent;
	sp_buf_release(&b);
	strmap_release(&map);
}

/* ---- counting and printing ---- */

/* ReduceProfile, FlatProfile, CumulativeProfile. */
static void alloc_counts(struct pprof *pp)
{
	pp->flat = sp_xcalloc(pp->nentries + 1, sizeof(*pp->flat));
	pp->cum = sp_xcalloc(pp->nentries + 1, sizeof(*pp->cum));
	pp->listed = sp_xcalloc(pp->nentries + 1, 1);
}

static void reduce(struct pprof *pp)
{
	size_t i, k;

	alloc_counts(pp);
	pp->seen = sp_xcalloc(pp->nentries + 1, sizeof(*pp->seen));
	for (i = 0; i < pp->nstacks; i++) {
		int first = 1;

		for (k = pp->off[i]; k < pp->off[i + 1]; k++) {
			uint32_t a = pp->stk[k];
			size_t e;

			for (e = pp->aent_off[a]; e < pp->aent_off[a + 1]; e++) {
				uint32_t id = pp->aent[e];

				if (pp->seen[id] == i + 1)
					continue;
				pp->seen[id] = (uint32_t)(i + 1);
				pp->listed[id] = 1;
				pp->cum[id] += pp->count[i];
				if (first)
					pp->flat[id] += pp->count[i];
				first = 0;
			}
		}
	}
}

/* ---- counting on the calling-context tree ---- */

/*
 * The samples of the nodes that have any: few (a node per distinct stack)
 * among many, so a bitmap says which, and a small table how many.
 */
struct counts {
	uint8_t *bits;             /* per node */
	struct sp_pairmap index;   /* node -> node[], c[] */
	uint32_t *node;
	int64_t *c;
	size_t n;
};

static void counts_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct counts *x = ctx;

	*k1 = x->node[i];
	*k2 = 0;
}

static void counts_init(struct counts *x, const struct sp_profile *p)
{
	uint32_t counter = sp_profile_find_counter(p, "samples");
	size_t i;

	memset(x, 0, sizeof(*x));
	x->bits = sp_xcalloc(p->nnodes / 8 + 1, 1);
	x->node = sp_xmalloc((p->nvalues + 1) * sizeof(*x->node));
	x->c = sp_xmalloc((p->nvalues + 1) * sizeof(*x->c));
	sp_pairmap_init(&x->index, counts_key, x);
	for (i = 0; i < p->nvalues; i++) {
		const struct sp_cct_value *v = &p->values[i];
		uint32_t k;

		if (v->counter != counter || v->node >= p->nnodes || !v->count)
			continue;
		x->node[x->n] = v->node;
		k = sp_pairmap_put(&x->index, v->node, 0, (uint32_t)x->n);
		if (k == x->n)
			x->c[x->n++] = 0;
		x->c[k] += v->count;
		x->bits[v->node / 8] |= (uint8_t)(1u << (v->node % 8));
	}
}

static int64_t count_of(const struct counts *x, uint32_t n)
{
	uint32_t k;

	if (!(x->bits[n / 8] & (1u << (n % 8))))
		return 0;
	k = sp_pairmap_get(&x->index, n, 0);
	return k == UINT32_MAX ? 0 : x->c[k];
}

static void counts_release(struct counts *x)
{
	sp_pairmap_release(&x->index);
	free(x->bits);
	free(x->node);
	free(x->c);
}

static uint32_t node_addr(const struct pprof *pp, uint32_t n)
{
	return pp->frame_addr[pp->p->nodes[n].frame];
}

/* IsSecondPcAlwaysTheSame on the tree: every stack has a second address
 * and it is the same one. */
static int second_always_same(const struct pprof *pp, const struct counts *x)
{
	const struct sp_profile *p = pp->p;
	uint32_t second = UINT32_MAX;
	size_t i;

	for (i = 0; i < x->n; i++) {
		uint32_t par = p->nodes[x->node[i]].parent, a;

		if (x->c[i] == 0)
			continue;
		if (par == 0 || par == SP_NONE)
			return 0;
		a = node_addr(pp, par);
		if (second != UINT32_MAX && a != second)
			return 0;
		second = a;
	}
	return second != UINT32_MAX;
}

/*
 * ReduceProfile's counts without listing the stacks, in one depth-first
 * walk of the tree: an entry's cum gets the samples below the node where
 * it first occurs on the path (each stack once, however often it recurs),
 * added when the walk leaves that node; a stack's flat goes to its
 * innermost entry. Only per-depth state is kept, nothing per node.
 */
struct level {
	uint32_t node;
	uint32_t lo, hi;             /* the node's entries: aent[lo .. hi) */
	size_t firsts;               /* fstack length before this node's entries */
	int64_t below;               /* samples in the subtree so far */
};

struct walk {
	struct pprof *pp;
	const struct counts *count;
	const char *skip;
	uint32_t (*range)[2];        /* per frame: its entries, skip applied */
	uint32_t *occ;               /* per entry: occurrences on the path */
	uint32_t *fstack;            /* entries whose first occurrence is on the path */
	size_t nf, f_alloc;
	struct level *lv;
	size_t depth, lv_alloc;
};

/* The entries of node n: aent[*lo .. *hi) (none if pprof drops it). */
static void node_entries(const struct walk *w, uint32_t n, size_t *lo, size_t *hi)
{
	const uint32_t *r = w->range[w->pp->p->nodes[n].frame];

	*lo = r[0];
	*hi = r[1];
}

/* Each frame's entries once, so that a node's are one load away. */
static void frame_ranges(struct walk *w)
{
	const struct pprof *pp = w->pp;
	size_t f;

	w->range = sp_xmalloc((pp->p->nframes + 1) * sizeof(*w->range));
	for (f = 0; f < pp->p->nframes; f++) {
		uint32_t a = pp->frame_addr[f];

		w->range[f][0] = (uint32_t)pp->aent_off[a];
		w->range[f][1] = (uint32_t)(w->skip[a] ? pp->aent_off[a] : pp->aent_off[a + 1]);
	}
}

/* Where ReduceProfile puts a stack's flat count: the first entry of the
 * innermost node that has entries. */
static void flat_of(struct walk *w, int64_t c)
{
	size_t k, lo, hi;

	for (k = w->depth; k > 0; k--) {
		node_entries(w, w->lv[k - 1].node, &lo, &hi);
		if (lo < hi) {
			w->pp->flat[w->pp->aent[lo]] += c;
			return;
		}
	}
}

static void walk_enter(struct walk *w, uint32_t n)
{
	int64_t c = count_of(w->count, n);
	size_t lo, hi, e;
	struct level *l;

	SP_ALLOC_GROW(w->lv, w->depth + 1, w->lv_alloc);
	l = &w->lv[w->depth++];
	l->node = n;
	l->firsts = w->nf;
	l->below = c;
	node_entries(w, n, &lo, &hi);
	l->lo = (uint32_t)lo;
	l->hi = (uint32_t)hi;
	for (e = lo; e < hi; e++) {
		uint32_t id = w->pp->aent[e];

		if (w->occ[id]++ == 0) {
			SP_ALLOC_GROW(w->fstack, w->nf + 1, w->f_alloc);
			w->fstack[w->nf++] = id;
		}
	}
	if (c)
		flat_of(w, c);
}

static void walk_leave(struct walk *w)
{
	struct level *l = &w->lv[--w->depth];
	size_t e;

	for (e = l->firsts; e < w->nf; e++) {
		if (l->below) {
			w->pp->cum[w->fstack[e]] += l->below;
			w->pp->listed[w->fstack[e]] = 1;
		}
	}
	w->nf = l->firsts;
	for (e = l->lo; e < l->hi; e++)
		w->occ[w->pp->aent[e]]--;
	if (w->depth)
		w->lv[w->depth - 1].below += l->below;
}

static void count_tree(struct pprof *pp, const struct counts *count, const char *skip)
{
	const struct sp_cct_node *nodes = pp->p->nodes;
	struct walk w;
	uint32_t n;

	if (!pp->p->nnodes)
		return;
	memset(&w, 0, sizeof(w));
	w.pp = pp;
	w.count = count;
	w.skip = skip;
	frame_ranges(&w);
	w.occ = sp_xcalloc(pp->nentries + 1, sizeof(*w.occ));
	for (n = nodes[0].first_child; n != SP_NONE;) {
		walk_enter(&w, n);
		if (nodes[n].first_child != SP_NONE) {
			n = nodes[n].first_child;
			continue;
		}
		/* leave nodes until one has a next sibling */
		for (;;) {
			uint32_t sib = nodes[n].next_sibling;

			walk_leave(&w);
			if (sib != SP_NONE) {
				n = sib;
				break;
			}
			if (!w.depth) {
				n = SP_NONE;
				break;
			}
			n = w.lv[w.depth - 1].node;
		}
	}
	free(w.range);
	free(w.occ);
	free(w.fstack);
	free(w.lv);
}

/*
 * The flat and cum columns. The common case counts on the tree; when
 * every stack has the same second address (a signal-frame artefact pprof
 * removes, rare in gperftools 2.x profiles) the stacks are listed and
 * reduced one by one as pprof does.
 */
static void count_samples(struct pprof *pp)
{
	struct counts count;
	char *skip;
	size_t i;

	counts_init(&count, pp->p);
	for (i = 0; i < count.n; i++)
		pp->total += count.c[i];
	if (second_always_same(pp, &count)) {
		collect_stacks(pp);
		remove_uninteresting(pp);
		translate(pp);
		reduce(pp);
		counts_release(&count);
		return;
	}
	skip = sp_xmalloc(pp->naddrs + 1);
	for (i = 0; i < pp->naddrs; i++)
		skip[i] = (char)uninteresting_name(pp, (uint32_t)i);
	translate(pp);
	alloc_counts(pp);
	count_tree(pp, &count, skip);
	free(skip);
	counts_release(&count);
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct pprof *pp = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const int64_t *s = pp->o->cum ? pp->cum : pp->flat;

	if (s[x] != s[y])
		return s[x] > s[y] ? -1 : 1;
	return strcmp(pp->entry[x], pp->entry[y]);
}

static void percent(char *buf, size_t n, int64_t num, int64_t total)
{
	if (total != 0)
		snprintf(buf, n, "%.1f%%", (double)num * 100.0 / (double)total);
	else
		snprintf(buf, n, "%s", num == 0 ? "nan" : num > 0 ? "+inf" : "-inf");
}

static void print_rows(struct pprof *pp)
{
	uint32_t *rows = sp_xmalloc((pp->nentries + 1) * sizeof(*rows));
	int64_t total = pp->total, flat_total = 0, running = 0;
	size_t i, n = 0;

	for (i = 0; i < pp->nentries; i++) {
		flat_total += pp->flat[i];
		if (pp->listed[i])
			rows[n++] = (uint32_t)i;
	}
	if (total != 0)
		fprintf(pp->out, "Total: %lld samples\n", (long long)total);
	sp_sort(rows, n, sizeof(*rows), cmp_rows, pp);
	for (i = 0; i < n; i++) {
		uint32_t e = rows[i];
		char p1[32], p2[32], p3[32];

		running += pp->flat[e];
		if (!pp->flat[e] && !pp->cum[e])
			continue;
		percent(p1, sizeof(p1), pp->flat[e], flat_total);
		percent(p2, sizeof(p2), running, flat_total);
		percent(p3, sizeof(p3), pp->cum[e], flat_total);
		fprintf(pp->out, "%8lld %6s %6s %8lld %6s %s\n", (long long)pp->flat[e], p1, p2,
			(long long)pp->cum[e], p3, pp->entry[e]);
	}
	free(rows);
}

static int addr_width(const struct sp_profile *p)
{
	return p->ninputs && p->inputs[0].word_size == 4 ? 8 : 16;
}

void sp_report_pprof(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
		     const struct sp_stack_report_opts *o)
{
	struct pprof pp;

	memset(&pp, 0, sizeof(pp));
	pp.out = out;
	pp.p = p;
	pp.o = o;
	sp_strtab_init(&pp.strs);
	sp_pprof_names_init(&pp.names, s, addr_width(p));
	collect_addrs(&pp, s);
	count_samples(&pp);
	print_rows(&pp);
	sp_pprof_names_release(&pp.names);
	sp_strtab_release(&pp.strs);
	sp_pairmap_release(&pp.addr_index);
	sp_pairmap_release(&pp.entry_index);
	sp_pairmap_release(&pp.memo_index);
	free(pp.memo);
	free(pp.addrs);
	free(pp.frame_addr);
	free(pp.stk);
	free(pp.off);
	free(pp.count);
	free(pp.entry);
	free(pp.flat);
	free(pp.cum);
	free(pp.seen);
	free(pp.listed);
	free(pp.aent);
	free(pp.aent_off);
}
