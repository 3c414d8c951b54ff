/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to cg/: what the graph's source files share beyond the public
 * cg.h.
 */
#ifndef SYMPROF_CG_INTERNAL_H
#define SYMPROF_CG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "symprof/cg.h"

struct sp_pairmap;

/*
 * What cg/ keeps beside the public graph (struct sp_cg's priv), made on
 * first use and never part of what the graph says: const functions fill
 * them (sp_cg_arc_find(), sp_cg_sort_nodes()), so those run on one thread
 * at a time; the sorted views use none of it.
 */
struct sp_cg_private {
	struct sp_pairmap *arc_index; /* (parent, child) -> arc */
	uint32_t *name_rank;	      /* strcmp rank of each symbol's name */
	/* one scratch block for the temporaries of building and sorting
	 * (sp_cg_scratch), so that they reuse its pages */
	void *scratch;
	size_t scratch_size;
};

/* --precise: the node a symbol's samples, calls and arcs go to, its
 * clone origin (sp_cg.fold), or n itself. */
static inline uint32_t sp_cg_origin(const struct sp_cg *cg, uint32_t n)
{
	return cg->fold && n < cg->nsyms && cg->fold[n] != SIZE_MAX ? (uint32_t)cg->fold[n] : n;
}

/* gprof's cg_assemble() (cycles.c), once, on the nodes as
 * sp_cg_from_gmon() made them. */
void sp_cg_assemble(struct sp_cg *cg, const struct sp_cg_gmon_opts *o);

/*
 * Adds n zeroed nodes at nodes[nnodes] (graph.c): nnodes grows by n, and
 * the pseudo nodes after it move up by n, with the arc ends that name them
 * and the arc index.
 */
void sp_cg_insert_nodes(struct sp_cg *cg, size_t n);

/* The new arc parent -> child, first in both nodes' lists, with room for
 * it already made and no index to update. */
static inline uint32_t sp_cg_arc_link(struct sp_cg *cg, uint32_t parent, uint32_t child,
				      uint64_t count)
{
	uint32_t a = (uint32_t)cg->narcs++;
	struct sp_cg_arc *arc = &cg->arcs[a];

	memset(arc, 0, sizeof(*arc));
	arc->parent = parent;
	arc->child = child;
	arc->count = count;
	arc->next_child = cg->nodes[parent].children;
	cg->nodes[parent].children = a;
	arc->next_parent = cg->nodes[child].parents;
	cg->nodes[child].parents = a;
	if (parent != child)
		cg->arc_list[cg->narc_list++] = a;
	return a;
}

/*
 * Scratch memory of at least `size` bytes, 8-aligned, owned by the graph
 * (graph.c): valid until the next call. Every temporary of building and
 * sorting the graph takes it instead of an allocation of its own, so that
 * they all use the same pages: a fresh page costs a fault and zeroing,
 * about as much as the work done on it. Not zeroed.
 */
void *sp_cg_scratch(const struct sp_cg *cg, size_t size);

/*
 * The arcs into nodes [0, n) counted into first[0 .. n + 2): first[c + 1]
 * is where node c's run of them ends in an array in callee order (and
 * first[n + 1] the total). Placing the arcs from the first to the last at
 * --first[child + 1] then makes first[c + 1] the start of c's run, and
 * each run newest first: the order of the lists as the graph builds them.
 */
void sp_cg_count_callees(const struct sp_cg *cg, size_t n, uint32_t *first);

/* sp_cg_arc_append() when the arrays are full or the index exists (graph.c). */
uint32_t sp_cg_arc_append_slow(struct sp_cg *cg, uint32_t parent, uint32_t child, uint64_t count);

/*
 * Adds the arc parent -> child with `count`, in gprof's list order,
 * without looking for one with the same ends: for a caller that knows
 * there is none (one call per new arc of a gmon.out, hence inline).
 */
static inline uint32_t sp_cg_arc_append(struct sp_cg *cg, uint32_t parent, uint32_t child,
					uint64_t count)
{
	if (cg->narcs == cg->arcs_alloc || cg->narc_list == cg->arc_list_alloc ||
	    cg->priv->arc_index)
		return sp_cg_arc_append_slow(cg, parent, child, count);
	return sp_cg_arc_link(cg, parent, child, count);
}

#endif
