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

static void arc_key(const void *ctx, uint32_t a, uint64_t *k1, uint64_t *k2)
{
	const struct sp_cg *cg = ctx;

	*k1 = cg->arcs[a].parent;
	*k2 = cg->arcs[a].child;
}

void sp_cg_arc_reserve(struct sp_cg *cg, size_t n)
{
	if (!cg->arc_index) {
		cg->arc_index = sp_xmalloc(sizeof(struct sp_pairmap));
		sp_pairmap_init(cg->arc_index, arc_key, cg);
	}
	sp_pairmap_reserve(cg->arc_index, n);
}

uint32_t sp_cg_arc_find(const struct sp_cg *cg, uint32_t parent, uint32_t child)
{
	uint32_t a;

	if (!cg->arc_index)
		return SP_CG_NONE;
	a = sp_pairmap_get(cg->arc_index, parent, child);
	return a == UINT32_MAX ? SP_CG_NONE : a;
}

uint32_t sp_cg_arc_add(struct sp_cg *cg, uint32_t parent, uint32_t child, uint64_t count)
{
	struct sp_cg_arc *arc;
	uint32_t a;

	if (!cg->arc_index)
		sp_cg_arc_reserve(cg, 0);
	a = sp_pairmap_put(cg->arc_index, parent, child, (uint32_t)cg->narcs);
	if (a != cg->narcs) {
		cg->arcs[a].count += count;
		return a;
	}
	SP_ALLOC_GROW(cg->arcs, cg->narcs + 1, cg->arcs_alloc);
	arc = &cg->arcs[cg->narcs++];
	memset(arc, 0, sizeof(*arc));
	arc->parent = parent;
	arc->child = child;
	arc->count = count;
	arc->next_child = cg->nodes[parent].children;
	cg->nodes[parent].children = a;
	arc->next_parent = cg->nodes[child].parents;
	cg->nodes[child].parents = a;
	if (parent != child) {
		SP_ALLOC_GROW(cg->arc_list, cg->narc_list + 1, cg->arc_list_alloc);
		cg->arc_list[cg->narc_list++] = a;
	}
	return a;
}

void sp_cg_free(struct sp_cg *cg)
{
	if (!cg)
		return;
	if (cg->arc_index) {
		sp_pairmap_release(cg->arc_index);
		free(cg->arc_index);
	}
	free(cg->nodes);
	free(cg->arcs);
	free(cg->order);
	free(cg->arc_list);
	free(cg->bbs);
	free(cg);
}

/* ---- printing order (gprof's cmp_arc and insertion sorts) ---- */

static int in_cycle_arc(const struct sp_cg *cg, const struct sp_cg_arc *a)
{
	int pc = cg->nodes[a->parent].cycle, cc = cg->nodes[a->child].cycle;

	return pc != 0 && cc != 0 && pc == cc;
}

/*
 * gprof sorts a node's arc list by insertion: each arc, in list order, goes
 * before the first arc it does not exceed (callers) or is not below
 * (callees). Since cmp_arc is a consistent order, that equals a stable sort
 * of the reversed list, which is O(n log n) instead of O(n^2) for a function
 * with thousands of callers. The keys are gathered first so that the sort
 * compares contiguous records.
 */
/* gprof's cmp_arc(): self calls first, then calls inside a cycle by count,
 * then the rest by propagated time and count. */
struct arc_key {
	double t;        /* time + child_time (normal arcs) */
	uint64_t count;
	uint32_t arc;
	int cls;         /* 0 self call, 1 call inside a cycle, 2 other */
};

static int cmp_key(const void *a, const void *b, void *ctx)
{
	const struct arc_key *l = a, *r = b;
	int sign = ctx ? -1 : 1;

	if (l->cls != r->cls)
		return sign * (l->cls < r->cls ? -1 : 1);
	if (l->cls == 0)
		return sign * -1;
	if (l->cls == 2) {
		if (l->t < r->t)
			return -sign;
		if (l->t > r->t)
			return sign;
	}
	return sign * ((l->count > r->count) - (l->count < r->count));
}

static uint32_t sort_list(struct sp_cg *cg, uint32_t head, int parents, int descending)
{
	struct arc_key stack_buf[32], *v = stack_buf;
	size_t n = 0, i, alloc = 32;
	uint32_t a;

	for (a = head; a != SP_CG_NONE; a = parents ? cg->arcs[a].next_parent : cg->arcs[a].next_child) {
		const struct sp_cg_arc *arc = &cg->arcs[a];
		struct arc_key *k;

		if (n == alloc) {
			struct arc_key *nv = sp_xreallocarray(NULL, alloc * 2, sizeof(*nv));
			memcpy(nv, v, n * sizeof(*v));
			if (v != stack_buf)
				free(v);
			v = nv;
			alloc *= 2;
		}
		k = &v[n++];
		k->arc = a;
		k->count = arc->count;
		k->t = arc->time + arc->child_time;
		k->cls = arc->parent == arc->child ? 0 : in_cycle_arc(cg, arc) ? 1 : 2;
	}
	for (i = 0; i < n / 2; i++) {
		struct arc_key t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	sp_sort(v, n, sizeof(*v), cmp_key, descending ? (void *)1 : NULL);
	head = SP_CG_NONE;
	for (i = n; i > 0; i--) {
		if (parents)
			cg->arcs[v[i - 1].arc].next_parent = head;
		else
			cg->arcs[v[i - 1].arc].next_child = head;
		head = v[i - 1].arc;
	}
	if (v != stack_buf)
		free(v);
	return head;
}

void sp_cg_sort_parents(struct sp_cg *cg, uint32_t node)
{
	cg->nodes[node].parents = sort_list(cg, cg->nodes[node].parents, 1, 0);
}

void sp_cg_sort_children(struct sp_cg *cg, uint32_t node)
{
	cg->nodes[node].children = sort_list(cg, cg->nodes[node].children, 0, 1);
}
