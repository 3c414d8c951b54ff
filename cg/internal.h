/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to cg/: what the graph's source files share beyond the public
 * cg.h.
 */
#ifndef SYMPROF_CG_INTERNAL_H
#define SYMPROF_CG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct sp_cg;
struct sp_cg_gmon_opts;

/* gprof's cg_assemble() (cycles.c). */
void sp_cg_assemble(struct sp_cg *cg, const struct sp_cg_gmon_opts *o);

/*
 * Adds n zeroed nodes at nodes[nnodes] (graph.c): nnodes grows by n, and
 * the pseudo nodes after it move up by n, with the arc ends that name them
 * and the arc index.
 */
void sp_cg_insert_nodes(struct sp_cg *cg, size_t n);

/*
 * Adds the arc parent -> child with `count` (graph.c), in gprof's list
 * order, without looking for one with the same ends: for a caller that
 * knows there is none.
 */
uint32_t sp_cg_arc_append(struct sp_cg *cg, uint32_t parent, uint32_t child, uint64_t count);

#endif
