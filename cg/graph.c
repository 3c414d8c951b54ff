/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The graph container: nodes, arcs and the arc index. Arcs are kept in
 * creation order; each node lists its arcs in the order gprof's linked
 * lists have them (newest first), because gprof's depth-first numbering,
 * its float sums and its insertion sorts all follow that order.
 */
#include "symprof/cg.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/hashmap.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"
#include "internal.h"

static void arc_key(const void *ctx, uint32_t a, uint64_t *k1, uint64_t *k2)
{
	const struct sp_cg *cg = ctx;

	*k1 = cg->arcs[a].parent;
	*k2 = cg->arcs[a].child;
}

/*
 * The (parent, child) -> arc index is built on first use: sp_cg_from_gmon()
 * adds the arcs of a gmon.out without it (tally_arcs() finds repeats by
 * other means), and most runs never ask for an arc by its ends.
 */
static struct sp_pairmap *arc_index(const struct sp_cg *cg)
{
	struct sp_cg_private *pv = cg->priv;
	size_t i;

	if (!pv->arc_index) {
		pv->arc_index = sp_xmalloc(sizeof(struct sp_pairmap));
		sp_pairmap_init(pv->arc_index, arc_key, cg);
		sp_pairmap_reserve(pv->arc_index, cg->narcs);
		for (i = 0; i < cg->narcs; i++)
			sp_pairmap_put(pv->arc_index, cg->arcs[i].parent, cg->arcs[i].child,
				       (uint32_t)i);
	}
	return pv->arc_index;
}

void sp_cg_arc_reserve(struct sp_cg *cg, size_t n)
{
	SP_ALLOC_GROW(cg->arcs, cg->narcs + n, cg->arcs_alloc);
	SP_ALLOC_GROW(cg->arc_list, cg->narc_list + n, cg->arc_list_alloc);
	if (cg->priv->arc_index)
		sp_pairmap_reserve(cg->priv->arc_index, n);
}

uint32_t sp_cg_arc_find(const struct sp_cg *cg, uint32_t parent, uint32_t child)
{
	uint32_t a;

	if (!cg->narcs)
		return SP_CG_NONE;
	/* the index is a cache: building it changes nothing the caller sees */
	a = sp_pairmap_get(arc_index(cg), parent, child);
	return a == UINT32_MAX ? SP_CG_NONE : a;
}

uint32_t sp_cg_arc_append_slow(struct sp_cg *cg, uint32_t parent, uint32_t child, uint64_t count)
{
	uint32_t a;

	SP_ALLOC_GROW(cg->arcs, cg->narcs + 1, cg->arcs_alloc);
	SP_ALLOC_GROW(cg->arc_list, cg->narc_list + 1, cg->arc_list_alloc);
	a = sp_cg_arc_link(cg, parent, child, count);
	if (cg->priv->arc_index)
		sp_pairmap_put(cg->priv->arc_index, parent, child, a);
	return a;
}

uint32_t sp_cg_arc_add(struct sp_cg *cg, uint32_t parent, uint32_t child, uint64_t count)
{
	uint32_t a = sp_pairmap_get(arc_index(cg), parent, child);

	if (a != UINT32_MAX) {
		cg->arcs[a].count += count;
		return a;
	}
	return sp_cg_arc_append(cg, parent, child, count);
}

/* ---- pseudo nodes ---- */

uint32_t sp_cg_pseudo_findnew(struct sp_cg *cg, const char *name)
{
	size_t i, n = cg->nnodes + cg->npseudo, len = strlen(name);
	struct sp_symbol *sym;
	struct sp_cg_node *nd;

	for (i = cg->nnodes; i < n; i++)
		if (!strcmp(cg->nodes[i].sym->name, name))
			return (uint32_t)i;
	/* the symbol only names the node: address 0, no file, like gprof's */
	sym = sp_xcalloc(1, sizeof(*sym) + len + 1);
	sym->name = memcpy(sym + 1, name, len + 1);
	cg->nodes = sp_xreallocarray(cg->nodes, n + 2, sizeof(*cg->nodes));
	nd = &cg->nodes[n];
	memset(nd, 0, 2 * sizeof(*nd)); /* the node and the zeroed sentinel after it */
	nd->sym = sym;
	nd->pseudo = 1;
	nd->prop_fract = 1.0;
	nd->cyc_head = (uint32_t)n;
	nd->cyc_next = nd->parents = nd->children = SP_CG_NONE;
	cg->npseudo++;
	return (uint32_t)n;
}

/* Drops the arc index after arc ends were renumbered (the next use
 * builds it again). */
static void reindex_arcs(struct sp_cg *cg)
{
	if (!cg->priv->arc_index)
		return;
	sp_pairmap_release(cg->priv->arc_index);
	free(cg->priv->arc_index);
	cg->priv->arc_index = NULL;
}

void sp_cg_insert_nodes(struct sp_cg *cg, size_t n)
{
	size_t at = cg->nnodes, i;

	cg->nodes = sp_xreallocarray(cg->nodes, at + n + cg->npseudo + 1, sizeof(*cg->nodes));
	memset(&cg->nodes[at + n + cg->npseudo], 0, sizeof(*cg->nodes));
	cg->nnodes += n;
	if (n == 0)
		return;
	if (cg->npseudo) {
		memmove(&cg->nodes[at + n], &cg->nodes[at], cg->npseudo * sizeof(*cg->nodes));
		for (i = 0; i < cg->npseudo; i++)
			cg->nodes[at + n + i].cyc_head += (uint32_t)n;
		for (i = 0; i < cg->narcs; i++) {
			if (cg->arcs[i].parent >= at)
				cg->arcs[i].parent += (uint32_t)n;
			if (cg->arcs[i].child >= at)
				cg->arcs[i].child += (uint32_t)n;
		}
		reindex_arcs(cg);
	}
	memset(&cg->nodes[at], 0, n * sizeof(*cg->nodes));
}

struct sp_cg *sp_cg_new(void)
{
	struct sp_cg *cg = sp_xcalloc(1, sizeof(*cg));

	cg->priv = sp_xcalloc(1, sizeof(*cg->priv));
	return cg;
}

void sp_cg_free(struct sp_cg *cg)
{
	size_t i;

	if (!cg)
		return;
	for (i = cg->nnodes; i < cg->nnodes + cg->npseudo; i++)
		free((void *)cg->nodes[i].sym);
	reindex_arcs(cg);
	free(cg->nodes);
	free(cg->arcs);
	free(cg->order);
	free(cg->arc_list);
	free(cg->priv->name_rank);
	free(cg->priv->scratch);
	free(cg->priv);
	free(cg->bbs);
	free(cg);
}

/* ---- stable sorts of (k1, k2, rank) keys ---- */

/* A place in an order: compared by k1, then k2, then rank; `node` is what
 * is sorted (a node, or an arc). */
struct packed_key {
	uint64_t k1, k2;
	uint32_t rank, node;
};

void *sp_cg_scratch(const struct sp_cg *cg, size_t size)
{
	struct sp_cg_private *pv = cg->priv;
	/* room for the largest user from the start, the sort keys of every
	 * node (a cycle node needs two symbols): pages never touched cost
	 * nothing, and growing would fault in a new block */
	size_t keys = 3 * (cg->nsyms + cg->nsyms / 2 + cg->npseudo + 2) * sizeof(struct packed_key);

	if (size > pv->scratch_size) {
		free(pv->scratch);
		pv->scratch_size = size > keys ? size : keys;
		pv->scratch = sp_xmalloc(pv->scratch_size);
	}
	return pv->scratch;
}

static int packed_less(const struct packed_key *l, const struct packed_key *r)
{
	if (l->k1 != r->k1)
		return l->k1 < r->k1;
	if (l->k2 != r->k2)
		return l->k2 < r->k2;
	return l->rank < r->rank;
}

SP_DEFINE_STABLE_SORT(sort_packed, struct packed_key, packed_less)

/* Stable counting sort of v[0..n) by rank, or by k1, (each below `range`)
 * into out. */
static void counting_sort(const struct packed_key *v, size_t n, size_t range, int by_rank,
			  struct packed_key *out)
{
	uint32_t *pos = sp_xcalloc(range + 1, sizeof(*pos));
	size_t i, sum = 0;

	for (i = 0; i < n; i++)
		pos[by_rank ? v[i].rank : v[i].k1]++;
	for (i = 0; i < range; i++) {
		size_t c = pos[i];

		pos[i] = (uint32_t)sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		out[pos[by_rank ? v[i].rank : v[i].k1]++] = v[i];
	free(pos);
}

/* One stable pass of a least-significant-digit radix sort: v into out by
 * byte `shift / 8` of k2 (or of rank when by_rank). */
static void radix_pass(const struct packed_key *v, size_t n, int by_rank, unsigned shift,
		       struct packed_key *out)
{
	size_t pos[256] = {0}, i, sum = 0;

	for (i = 0; i < n; i++)
		pos[((by_rank ? v[i].rank : v[i].k2) >> shift) & 0xff]++;
	for (i = 0; i < 256; i++) {
		size_t c = pos[i];

		pos[i] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		out[pos[((by_rank ? v[i].rank : v[i].k2) >> shift) & 0xff]++] = v[i];
}

static struct packed_key *radix_sort_k2_rank(struct packed_key *v, size_t n,
					     struct packed_key *tmp);

/* The k2 a majority of v[0..n) holds, if any does (Boyer-Moore vote), and
 * in *count how many keys hold it. */
static uint64_t majority_k2(const struct packed_key *v, size_t n, size_t *count)
{
	uint64_t cand = n ? v[0].k2 : 0;
	size_t i, votes = 0, c = 0;

	for (i = 0; i < n; i++) {
		if (!votes) {
			cand = v[i].k2;
			votes = 1;
		} else {
			votes += v[i].k2 == cand ? 1 : (size_t)-1;
		}
	}
	for (i = 0; i < n; i++)
		c += v[i].k2 == cand;
	*count = c;
	return cand;
}

/*
 * radix_sort_k2_rank() when most keys share one k2 m (-l's line symbols
 * without time or calls, which differ by name alone): those are counted
 * by rank in one pass, the others sorted apart, and the result is the
 * others below m, then the common keys, then the others above m. No two
 * keys of different parts tie, so this is the same stable order. The
 * result is in v.
 */
static struct packed_key *split_k2_rank(struct packed_key *v, size_t n, struct packed_key *tmp,
					uint64_t m, uint32_t max_rank)
{
	size_t i, nc = 0, nr = 0, below = 0;
	struct packed_key *rest;

	/* the common keys compacted in v, the others in tmp, both in order */
	for (i = 0; i < n; i++) {
		if (v[i].k2 == m)
			v[nc++] = v[i];
		else
			tmp[nr++] = v[i];
	}
	counting_sort(v, nc, (size_t)max_rank + 1, 1, tmp + nr);
	/* v is free: scratch for the others' sort */
	if (nr >= 4096)
		rest = radix_sort_k2_rank(tmp, nr, v);
	else
		sort_packed(rest = tmp, nr, v);
	if (rest != tmp)
		memcpy(tmp, rest, nr * sizeof(*tmp));
	while (below < nr && tmp[below].k2 < m)
		below++;
	memcpy(v, tmp, below * sizeof(*v));
	memcpy(v + below, tmp + nr, nc * sizeof(*v));
	memcpy(v + below + nc, tmp + below, (nr - below) * sizeof(*v));
	return v;
}

/*
 * Stable sort of keys that share k1 by (k2, rank): a radix sort over the
 * bytes that differ between the keys (often 2 of rank and 2 or 3 of a call
 * count), cheaper than merging for thousands of keys. The result is in v
 * or tmp (room for n); returns which.
 */
static struct packed_key *radix_sort_k2_rank(struct packed_key *v, size_t n, struct packed_key *tmp)
{
	uint64_t diff_k2 = 0, m;
	uint32_t diff_rank = 0, max_rank = n ? v[0].rank : 0;
	int digit;
	size_t i, nm;

	/* the differences are taken against v[0]; the largest rank counts
	 * v[0]'s own (the index's first symbol, often main, may hold it) */
	for (i = 1; i < n; i++) {
		diff_k2 |= v[i].k2 ^ v[0].k2;
		diff_rank |= v[i].rank ^ v[0].rank;
		max_rank = v[i].rank > max_rank ? v[i].rank : max_rank;
	}
	if (!diff_k2 && max_rank <= 4 * (uint64_t)n) {
		/* by name alone (the index): one pass */
		counting_sort(v, n, (size_t)max_rank + 1, 1, tmp);
		return tmp;
	}
	if (max_rank <= 4 * (uint64_t)n && (m = majority_k2(v, n, &nm), 2 * nm >= n))
		return split_k2_rank(v, n, tmp, m, max_rank);
	/* the 4 bytes of rank, then the 8 of k2, least significant first */
	for (digit = 0; digit < 12; digit++) {
		int by_rank = digit < 4;
		unsigned shift = 8 * (unsigned)(by_rank ? digit : digit - 4);

		if (((by_rank ? diff_rank : diff_k2) >> shift) & 0xff) {
			struct packed_key *t = v;

			radix_pass(v, n, by_rank, shift, tmp);
			v = tmp;
			tmp = t;
		}
	}
	return v;
}

/*
 * The stable sort for large tables. Most of them share one k1: symbols
 * without time (and -l has a line symbol each), the callers of a function
 * without time. Those keys are radix sorted by (k2, rank), the others
 * merge sorted, and the two runs merged. Orders with a small integer key
 * (topological numbers) are counting sorts. Same result as sort_packed().
 * `tmp` has room for 2n keys; returns the array holding the result.
 */
static struct packed_key *sort_packed_large(struct packed_key *v, size_t n, struct packed_key *tmp,
					    int k1_is_small)
{
	struct packed_key *rest = tmp + n, *bulk;
	size_t i, votes = 0, nbulk = 0, nrest = 0, j, k;
	uint64_t cand = v[0].k1;

	if (k1_is_small) {
		uint64_t lo = v[0].k1, hi = v[0].k1;

		for (i = 1; i < n; i++) {
			lo = v[i].k1 < lo ? v[i].k1 : lo;
			hi = v[i].k1 > hi ? v[i].k1 : hi;
		}
		if (hi - lo < 4 * (uint64_t)n) {
			for (i = 0; i < n; i++)
				v[i].k1 -= lo;
			counting_sort(v, n, (size_t)(hi - lo) + 1, 0, tmp);
			for (i = 0; i < n; i++)
				tmp[i].k1 += lo;
			return tmp;
		}
	}
	/* the majority k1, if there is one (Boyer-Moore vote) */
	for (i = 0; i < n; i++) {
		if (!votes) {
			cand = v[i].k1;
			votes = 1;
		} else if (v[i].k1 == cand) {
			votes++;
		} else {
			votes--;
		}
	}
	for (i = 0; i < n; i++)
		nbulk += v[i].k1 == cand;
	if (2 * nbulk < n) {
		sort_packed(v, n, tmp);
		return v;
	}
	/* rest in input order (stable), then sorted in place; bulk by (k2, rank) */
	for (i = 0; i < n; i++)
		if (v[i].k1 != cand)
			rest[nrest++] = v[i];
	sort_packed(rest, nrest, tmp);
	nbulk = 0;
	for (i = 0; i < n; i++)
		if (v[i].k1 == cand)
			v[nbulk++] = v[i];
	bulk = radix_sort_k2_rank(v, nbulk, tmp);
	if (bulk == v) {
		memcpy(tmp, v, nbulk * sizeof(*v));
		bulk = tmp;
	}
	/* merge: the runs never hold equal keys, as they differ in k1 */
	for (i = 0, j = 0, k = 0; i < nbulk && j < nrest; k++)
		v[k] = packed_less(&rest[j], &bulk[i]) ? rest[j++] : bulk[i++];
	while (i < nbulk)
		v[k++] = bulk[i++];
	while (j < nrest)
		v[k++] = rest[j++];
	return v;
}

/* Ascending order of doubles as unsigned integers (-0.0 folded into 0.0). */
static uint64_t double_order(double d)
{
	uint64_t u;

	d += 0.0;
	memcpy(&u, &d, sizeof(u));
	return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

/* ---- printing order (gprof's cmp_arc and insertion sorts) ---- */

/* gprof's cmp_arc() class: 0 a self call, 1 a call inside a cycle, 2 other. */
static int arc_class(const struct sp_cg *cg, const struct sp_cg_arc *a)
{
	int pc, cc;

	if (a->parent == a->child)
		return 0;
	pc = cg->nodes[a->parent].cycle;
	cc = cg->nodes[a->child].cycle;
	return pc != 0 && cc != 0 && pc == cc ? 1 : 2;
}

/* gprof's cmp_arc(): self calls first, then calls inside a cycle by count,
 * then the rest by propagated time and count; <0, 0 or >0. */
static int cmp_arc(const struct sp_cg *cg, const struct sp_cg_arc *l, const struct sp_cg_arc *r)
{
	int lc = arc_class(cg, l), rc = arc_class(cg, r);

	if (lc != rc)
		return lc < rc ? -1 : 1;
	if (lc == 0)
		return -1;
	if (lc == 2) {
		double lt = l->time + l->child_time, rt = r->time + r->child_time;

		if (lt < rt)
			return -1;
		if (lt > rt)
			return 1;
	}
	return (l->count > r->count) - (l->count < r->count);
}

/* Room for n entries in mem's view. */
static uint32_t *view_room(struct sp_cg_sort_mem *mem, size_t n)
{
	SP_ALLOC_GROW(mem->view, n + 1, mem->view_alloc);
	return mem->view;
}

/*
 * gprof's own sort, by insertion into a new list: each arc, in list order,
 * goes before the first arc it does not exceed (callers) or is not below
 * (callees). O(n^2); used only when a time is NaN, where cmp_arc is not an
 * order and no other algorithm is sure to give the same list. The list
 * into mem's view; returns its length.
 */
static size_t insertion_sort_list(const struct sp_cg *cg, uint32_t head, int parents,
				  int descending, struct sp_cg_sort_mem *mem)
{
	size_t n = 0, j;
	uint32_t a, *v;

	for (a = head; a != SP_CG_NONE;
	     a = parents ? cg->arcs[a].next_parent : cg->arcs[a].next_child)
		n++;
	v = view_room(mem, n);
	n = 0;
	for (a = head; a != SP_CG_NONE;
	     a = parents ? cg->arcs[a].next_parent : cg->arcs[a].next_child) {
		for (j = 0; j < n; j++) {
			int c = cmp_arc(cg, &cg->arcs[a], &cg->arcs[v[j]]);

			if (descending ? c >= 0 : c <= 0)
				break;
		}
		memmove(v + j + 1, v + j, (n - j) * sizeof(*v));
		v[j] = a;
		n++;
	}
	return n;
}

/*
 * Without NaN, cmp_arc is a consistent order, and the insertion above
 * equals a stable sort of the reversed list: O(n log n) instead of O(n^2)
 * for a function with thousands of callers. Each arc's place in that order
 * is the pair (k1, k2) of unsigned integers: k1 = class for classes 0 and
 * 1 (their times are not compared), the time's order bits for class 2
 * (always above 1); k2 = the count. At most one arc of a list is a self
 * call, so class 0 needs no tie rule. Descending sorts complement both.
 * Long lists mostly share k1 (the callers of a function without time all
 * pass it none), which sort_packed_large() sorts by the count's bytes.
 */
enum {
	ARC_KEYS_ON_STACK = 128, /* short lists (most of them) stay on the stack */
	ARC_KEYS_LARGE = 128,	 /* from this length on, sort_packed_large() */
};

/*
 * Twice the room for keys: the alloc keys filled so far (keys[0..alloc),
 * from its end) move to the end of the new first part, which `mem` keeps
 * for the next list (instead of its keys, or the stack's when it had less).
 */
static struct packed_key *grow_keys(struct packed_key *keys, size_t alloc,
				    struct sp_cg_sort_mem *mem)
{
	struct packed_key *nk = sp_xreallocarray(NULL, 3 * (alloc * 2), sizeof(*nk));

	memcpy(nk + alloc, keys, alloc * sizeof(*keys));
	free(mem->keys);
	mem->keys = nk;
	mem->alloc = alloc * 2;
	return nk;
}

/* The list from `head` in printing order into mem's view; returns its
 * length. Inlined into its two callers, so that each gets a loop without
 * the tests on `parents` and `descending`. */
static inline __attribute__((always_inline)) size_t sort_list(const struct sp_cg *cg, uint32_t node,
							      uint32_t head, int parents,
							      int descending,
							      struct sp_cg_sort_mem *mem)
{
	/*
	 * The keys fill keys[0..alloc) from its end, so that they come out
	 * in reversed list order; the sorts' scratch (two more per key)
	 * follows at keys + alloc.
	 */
	struct packed_key stack_buf[3 * ARC_KEYS_ON_STACK], *keys = stack_buf, *v, *sorted;
	size_t n = 0, i, alloc = ARC_KEYS_ON_STACK;
	uint32_t *view;
	uint64_t flip = descending ? ~UINT64_C(0) : 0;
	const uint32_t *run = NULL;
	size_t run_len = 0, k = 0;
	uint32_t a;

	if (mem->alloc > alloc) {
		keys = mem->keys;
		alloc = mem->alloc;
	}

	/* the node's run, when it is this list (its first arc is the head) */
	if (parents && mem->runs && node < mem->runs->nnodes) {
		run = mem->runs->arcs + mem->runs->first[node];
		run_len = mem->runs->first[node + 1] - mem->runs->first[node];
		if (run_len ? run[0] != head : head != SP_CG_NONE)
			run = NULL;
	}
	for (a = run ? (run_len ? run[0] : SP_CG_NONE) : head; a != SP_CG_NONE;
	     a = run	   ? (++k < run_len ? run[k] : SP_CG_NONE)
		 : parents ? cg->arcs[a].next_parent
			   : cg->arcs[a].next_child) {
		const struct sp_cg_arc *arc = &cg->arcs[a];
		int cls = arc_class(cg, arc);
		uint64_t k1 = (uint64_t)cls;

		if (cls == 2) {
			double t = arc->time + arc->child_time;

			if (t != t)
				return insertion_sort_list(cg, head, parents, descending, mem);
			k1 = double_order(t);
		}
		if (n == alloc) {
			keys = grow_keys(keys, alloc, mem);
			alloc *= 2;
		}
		n++;
		v = &keys[alloc - n];
		v->k1 = k1 ^ flip;
		v->k2 = arc->count ^ flip;
		v->rank = 0;
		v->node = a;
	}
	v = keys + alloc - n;
	sorted = v;
	if (n >= ARC_KEYS_LARGE)
		sorted = sort_packed_large(v, n, keys + alloc, 0);
	else
		sort_packed(v, n, keys + alloc);
	view = view_room(mem, n);
	for (i = 0; i < n; i++)
		view[i] = sorted[i].node;
	return n;
}

const uint32_t *sp_cg_sorted_parents(const struct sp_cg *cg, uint32_t node,
				     struct sp_cg_sort_mem *mem, size_t *n)
{
	*n = sort_list(cg, node, cg->nodes[node].parents, 1, 0, mem);
	return mem->view;
}

const uint32_t *sp_cg_sorted_children(const struct sp_cg *cg, uint32_t node,
				      struct sp_cg_sort_mem *mem, size_t *n)
{
	*n = sort_list(cg, node, cg->nodes[node].children, 0, 1, mem);
	return mem->view;
}

/* ---- a cycle's members (gprof's sort_members) ---- */

/* gprof's cmp_member(): 1 if l sorts before r (more time, then calls). */
static int member_greater(const struct sp_cg_node *l, const struct sp_cg_node *r)
{
	double lt = l->prop_self + l->prop_child, rt = r->prop_self + r->prop_child;
	uint64_t lc = l->ncalls + l->self_calls, rc = r->ncalls + r->self_calls;

	if (lt > rt)
		return 1;
	if (lt < rt)
		return 0;
	return lc > rc;
}

/* A member as sp_cg_sorted_members() compares it. */
struct member_key {
	double time;
	uint64_t calls;
	uint32_t node;
};

/* member_greater() on keys: l sorts before r. */
static int member_before(const struct member_key *l, const struct member_key *r)
{
	return l->time > r->time || (l->time == r->time && l->calls > r->calls);
}

SP_DEFINE_STABLE_SORT(sort_member_keys, struct member_key, member_before)

/* gprof's insertion of each member, in list order, after the members it
 * is not greater than: quadratic, kept for NaN times only, where
 * member_greater() is no order and only gprof's own steps are sure to
 * give its list. Into v (room for every member); returns their number. */
static size_t insert_members(const struct sp_cg *cg, uint32_t cyc, uint32_t *v)
{
	const struct sp_cg_node *N = cg->nodes;
	size_t n = 0, j;
	uint32_t m;

	for (m = N[cyc].cyc_next; m != SP_CG_NONE; m = N[m].cyc_next) {
		for (j = 0; j < n && !member_greater(&N[m], &N[v[j]]); j++)
			;
		memmove(v + j + 1, v + j, (n - j) * sizeof(*v));
		v[j] = m;
		n++;
	}
	return n;
}

/*
 * gprof's sort_members() relinks the cycle's member list. Its insertion
 * puts each member after every earlier one that is not below it: a
 * stable sort by time, then calls, both descending, which a merge sort
 * gives in n log n for cycles of thousands of members.
 */
const uint32_t *sp_cg_sorted_members(const struct sp_cg *cg, uint32_t cyc,
				     struct sp_cg_sort_mem *mem, size_t *n)
{
	const struct sp_cg_node *N = cg->nodes;
	struct member_key *k = NULL;
	size_t alloc = 0, i;
	uint32_t m, *v;

	*n = 0;
	for (m = N[cyc].cyc_next; m != SP_CG_NONE; m = N[m].cyc_next) {
		double t = N[m].prop_self + N[m].prop_child;

		if (t != t) {
			free(k);
			for (*n = 0, m = N[cyc].cyc_next; m != SP_CG_NONE; m = N[m].cyc_next)
				++*n;
			*n = insert_members(cg, cyc, view_room(mem, *n));
			return mem->view;
		}
		SP_ALLOC_GROW(k, 2 * (*n + 1), alloc);
		k[*n].time = t;
		k[*n].calls = N[m].ncalls + N[m].self_calls;
		k[*n].node = m;
		++*n;
	}
	sort_member_keys(k, *n, k + *n);
	v = view_room(mem, *n);
	for (i = 0; i < *n; i++)
		v[i] = k[i].node;
	free(k);
	return v;
}

void sp_cg_count_callees(const struct sp_cg *cg, size_t n, uint32_t *first)
{
	uint32_t total = 0;
	size_t i;

	memset(first, 0, (n + 2) * sizeof(*first));
	for (i = 0; i < cg->narcs; i++)
		if (cg->arcs[i].child < n)
			first[cg->arcs[i].child + 1]++;
	for (i = 0; i < n; i++) {
		total += first[i + 1];
		first[i + 1] = total;
	}
	first[n + 1] = total;
}

struct sp_cg_parent_runs *sp_cg_parent_runs_new(const struct sp_cg *cg)
{
	size_t n = cg->nnodes + cg->npseudo, i;
	struct sp_cg_parent_runs *r = sp_xmalloc(sizeof(*r));

	r->nnodes = n;
	r->first = sp_xreallocarray(NULL, n + 2, sizeof(*r->first));
	r->arcs = sp_xreallocarray(NULL, cg->narcs + 1, sizeof(*r->arcs));
	sp_cg_count_callees(cg, n, r->first);
	for (i = 0; i < cg->narcs; i++)
		if (cg->arcs[i].child < n)
			r->arcs[--r->first[cg->arcs[i].child + 1]] = (uint32_t)i;
	/* first[c + 1] is c's start: shift so that first[c] is */
	r->first++;
	return r;
}

void sp_cg_parent_runs_free(struct sp_cg_parent_runs *runs)
{
	if (!runs)
		return;
	free(runs->first - 1);
	free(runs->arcs);
	free(runs);
}

void sp_cg_sort_mem_release(struct sp_cg_sort_mem *mem)
{
	free(mem->keys);
	free(mem->view);
	mem->keys = NULL;
	mem->view = NULL;
	mem->alloc = mem->view_alloc = 0;
}

/* ---- node orders ---- */

struct node_key {
	double a; /* the compared time */
	uint64_t calls;
	uint32_t rank; /* name rank */
	uint32_t node;
	int32_t top_order;
	uint8_t noname, cycle, underscore;
};

static int cmp_key_total(const void *pa, const void *pb, void *ctx)
{
	const struct node_key *l = pa, *r = pb;
	double diff = l->a - r->a;

	(void)ctx;
	if (diff < 0.0)
		return 1;
	if (diff > 0.0)
		return -1;
	if (l->noname && l->cycle)
		return -1;
	if (r->noname && r->cycle)
		return 1;
	if (l->noname)
		return -1;
	if (r->noname)
		return 1;
	if (!l->underscore && r->underscore)
		return -1;
	if (l->underscore && !r->underscore)
		return 1;
	if (l->calls != r->calls)
		return l->calls > r->calls ? -1 : 1;
	return (l->rank > r->rank) - (l->rank < r->rank);
}

static int cmp_key_time(const void *pa, const void *pb, void *ctx)
{
	const struct node_key *l = pa, *r = pb;
	double diff = r->a - l->a;

	(void)ctx;
	if (diff > 0.0)
		return 1;
	if (diff < 0.0)
		return -1;
	if (r->calls != l->calls)
		return r->calls > l->calls ? 1 : -1;
	return (l->rank > r->rank) - (l->rank < r->rank);
}

static int cmp_key_topo(const void *pa, const void *pb, void *ctx)
{
	(void)ctx;
	return ((const struct node_key *)pa)->top_order - ((const struct node_key *)pb)->top_order;
}

static int cmp_key_name(const void *pa, const void *pb, void *ctx)
{
	const struct node_key *l = pa, *r = pb;

	(void)ctx;
	return (l->rank > r->rank) - (l->rank < r->rank);
}

/*
 * The four orders above are consistent once glibc's merge sort is taken
 * into account (its merge keeps the left element unless the comparison is
 * positive, so cmp_total's "-1 both ways" for two nameless nodes is a tie
 * kept in input order). Each is therefore a stable sort by a key of at
 * most two words and a name rank, which the code below compares inline:
 * several times faster than calling the comparators. Keys that do not fit
 * (a NaN time, call counts of 2^61 or more) take the comparator path.
 */
/* Fills k[i] for nodes[i]; returns -1 if some key does not fit. */
static int pack_keys(const struct sp_cg *cg, const uint32_t *nodes, size_t n,
		     enum sp_cg_order order, struct packed_key *k)
{
	const uint64_t calls_max = UINT64_C(1) << 61;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sp_cg_node *nd = &cg->nodes[nodes[i]];
		const char *name;
		double a;

		k[i].node = nodes[i];
		k[i].rank = nodes[i] < cg->nsyms ? cg->priv->name_rank[nodes[i]] : 0;
		k[i].k1 = k[i].k2 = 0;
		switch (order) {
		case SP_CG_ORDER_TOTAL:
			/* only this order looks at the symbol (a miss per node with -l) */
			name = nd->sym ? nd->sym->name : NULL;
			a = nd->prop_self + nd->prop_child;
			if (a != a || nd->ncalls >= calls_max)
				return -1;
			k[i].k1 = ~double_order(a);
			if (!name) {
				/* nameless: cycles first, then the rest, each in input order */
				k[i].k2 = nd->cycle != 0 ? 0 : UINT64_C(1) << 62;
				k[i].rank = 0;
			} else {
				k[i].k2 = (UINT64_C(2) << 62) | ((uint64_t)(name[0] == '_') << 61) |
					  (calls_max - 1 - nd->ncalls);
			}
			break;
		case SP_CG_ORDER_TIME:
			if (nd->time != nd->time)
				return -1;
			k[i].k1 = ~double_order(nd->time);
			k[i].k2 = ~nd->ncalls;
			break;
		case SP_CG_ORDER_TOPO:
			k[i].k1 = (uint64_t)((int64_t)nd->top_order - INT32_MIN);
			k[i].rank = 0;
			break;
		case SP_CG_ORDER_NAME:
			break;
		}
	}
	return 0;
}

void sp_cg_sort_nodes(const struct sp_cg *cg, uint32_t *nodes, size_t n, enum sp_cg_order order)
{
	static const sp_cmp_fn cmp[] = {cmp_key_total, cmp_key_time, cmp_key_topo, cmp_key_name};
	struct node_key *k;
	struct packed_key *pk;
	size_t i;

	if (!cg->priv->name_rank)
		cg->priv->name_rank = sp_symtab_name_ranks_in(
			cg->symtab, sp_cg_scratch(cg, sp_symtab_name_ranks_scratch(cg->symtab)));
	pk = sp_cg_scratch(cg, (3 * n + 1) * sizeof(*pk));
	if (pack_keys(cg, nodes, n, order, pk) == 0) {
		const struct packed_key *sorted = pk;

		if (n >= 4096)
			sorted = sort_packed_large(pk, n, pk + n, order == SP_CG_ORDER_TOPO);
		else
			sort_packed(pk, n, pk + n);
		for (i = 0; i < n; i++)
			nodes[i] = sorted[i].node;
		return;
	}
	k = sp_xreallocarray(NULL, n + 1, sizeof(*k));
	for (i = 0; i < n; i++) {
		const struct sp_cg_node *nd = &cg->nodes[nodes[i]];
		const char *name = nd->sym ? nd->sym->name : NULL;

		k[i].node = nodes[i];
		k[i].a = order == SP_CG_ORDER_TIME ? nd->time : nd->prop_self + nd->prop_child;
		k[i].calls = nd->ncalls;
		k[i].rank = nodes[i] < cg->nsyms ? cg->priv->name_rank[nodes[i]] : 0;
		k[i].top_order = nd->top_order;
		k[i].noname = name == NULL;
		k[i].cycle = nd->cycle != 0;
		k[i].underscore = name && name[0] == '_';
	}
	sp_sort(k, n, sizeof(*k), cmp[order], NULL);
	for (i = 0; i < n; i++)
		nodes[i] = k[i].node;
	free(k);
}
