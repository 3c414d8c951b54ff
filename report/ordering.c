/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Link orderings (gprof's cg_print.c, gprof.md 4.7 and 4.8): a suggested
 * order of functions (-r, for a linker ordering file) or of object files
 * (-R MAP, for the link line), one raw (mangled) name per line, exactly
 * as gprof 2.40 prints them.
 *
 * -r:
 *  1. functions never called are "unused" (printed last, in table order);
 *  2. the arcs, sorted by count (largest first, stable), are walked until
 *     90 % of all calls; each arc adds a use to its callee;
 *  3. of the used functions sorted by uses, the first used/80 are taken
 *     (stopping at one with exactly 5 uses), and every arc touching them
 *     is set aside; the arcs between two of them are the "high" arcs;
 *     those taken and in no high arc are printed first (gprof leaves out
 *     the last one taken);
 *  4. the greedy placement (below) runs on the high arcs (all of them),
 *     then on all arcs (only the top 99 % of calls), then on the arcs
 *     left unplaced (all of them);
 *  5. then the used functions not printed yet, then the unused ones.
 *
 * Placement: for each arc not yet placed whose ends are not placed either,
 * an end not yet in a chain is attached to the nearer end of the other's
 * chain (never closing a loop); the chains are then printed from their
 * heads; with "all", every remaining caller of an arc is printed alone.
 *
 * -R: arcs with an end that is not an object file of the map are set
 * aside, the placement runs on the rest, then the object files not
 * printed yet, then those of the map that have no symbol in the table.
 *
 * The quirks are gprof's and kept on purpose: "at least five uses" stops
 * at exactly five, the last multi-use function is not printed in step 3
 * (it comes out later), an arc whose callee already has a chain
 * successor can be dropped without being set aside, and the sums are
 * unsigned long long divided as doubles (0/0 is NaN: never above a
 * threshold).
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

#define NONE SP_CG_NONE

/* A node's state in the placement (gprof keeps it in its symbols; the
 * graph is only read here). */
struct place {
	uint32_t chain_next, chain_prev; /* its chain, NONE at the ends */
	uint32_t nuses;			 /* -r: uses among the top arcs */
	unsigned placed : 1;		 /* printed, or out of the placement */
};

struct order {
	FILE *out;
	const struct sp_cg *cg;
	struct place *P;     /* per node and pseudo node */
	uint8_t *arc_placed; /* per arc: placed, or out of the placement */
	uint32_t *unplaced;  /* set-aside arcs of a placement run */
	size_t nunplaced;
};

/* The placement's state for r's graph: no chains, nothing placed. */
static void order_init(struct order *o, const struct sp_report *r, uint32_t *unplaced)
{
	size_t i, n = r->cg->nnodes + r->cg->npseudo;

	o->out = r->out;
	o->cg = r->cg;
	o->P = sp_xcalloc(n + 1, sizeof(*o->P));
	for (i = 0; i < n; i++)
		o->P[i].chain_next = o->P[i].chain_prev = NONE;
	o->arc_placed = sp_xcalloc(r->cg->narcs + 1, 1);
	o->unplaced = unplaced;
	o->nunplaced = 0;
}

static void order_release(struct order *o)
{
	free(o->P);
	free(o->arc_placed);
}

static void put_name(struct order *o, uint32_t node)
{
	fprintf(o->out, "%s\n", o->cg->nodes[node].sym->name);
}

static int cmp_arc_count(const void *a, const void *b, void *ctx)
{
	const struct sp_cg *cg = ctx;
	uint64_t l = cg->arcs[*(const uint32_t *)a].count, r = cg->arcs[*(const uint32_t *)b].count;

	return (l < r) - (l > r);
}

static int cmp_nuses(const void *a, const void *b, void *ctx)
{
	const struct place *P = ctx;
	uint32_t l = P[*(const uint32_t *)a].nuses, r = P[*(const uint32_t *)b].nuses;

	return (l < r) - (l > r);
}

/* ---- the placement (order_and_dump_functions_by_arcs) ---- */

/* The far end of node n's chain, and how many links away it is. */
static uint32_t chain_end(const struct place *N, uint32_t n, int forward, int *count)
{
	*count = 0;
	for (;;) {
		uint32_t next = forward ? N[n].chain_next : N[n].chain_prev;

		if (next == NONE)
			return n;
		n = next;
		++*count;
	}
}

/* gprof's "make sure we don't tie two ends together" walk. */
static uint32_t chain_tip(const struct place *N, uint32_t n)
{
	int count;

	return chain_end(N, n, N[n].chain_next != NONE, &count);
}

static int unattached(const struct place *n)
{
	return n->chain_next == NONE && n->chain_prev == NONE;
}

static void link_nodes(struct place *N, uint32_t first, uint32_t second)
{
	N[first].chain_next = second;
	N[second].chain_prev = first;
}

/* Tries to chain the arc's ends; 0 placed or dropped, -1 set aside. */
static int place_arc(struct order *o, uint32_t a)
{
	struct place *N = o->P;
	uint32_t parent = o->cg->arcs[a].parent, child = o->cg->arcs[a].child;
	int nc, pc;

	if (N[parent].chain_next != NONE && N[parent].chain_prev != NONE &&
	    N[child].chain_next != NONE && N[child].chain_prev != NONE)
		return -1;
	if (unattached(&N[parent])) {
		uint32_t next = chain_end(N, child, 1, &nc), prev = chain_end(N, child, 0, &pc);

		child = nc < pc ? next : prev;
	} else if (unattached(&N[child])) {
		uint32_t next = chain_end(N, parent, 1, &nc), prev = chain_end(N, parent, 0, &pc);

		parent = pc < nc ? prev : next;
	} else {
		return -1;
	}
	if (chain_tip(N, parent) == child && chain_tip(N, child) == parent)
		return -1;
	if (N[parent].chain_next != NONE) {
		if (N[child].chain_next == NONE) {
			link_nodes(N, child, parent);
			o->arc_placed[a] = 1;
		}
	} else if (N[parent].chain_prev != NONE) {
		if (N[child].chain_prev == NONE) {
			link_nodes(N, parent, child);
			o->arc_placed[a] = 1;
		}
	} else {
		if (N[child].chain_prev != NONE)
			link_nodes(N, child, parent);
		else
			link_nodes(N, parent, child);
		o->arc_placed[a] = 1;
	}
	return 0;
}

static void dump_chains(struct order *o, const uint32_t *arcs, size_t n, int all)
{
	const struct sp_cg *cg = o->cg;
	struct place *N = o->P;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sp_cg_arc *a = &cg->arcs[arcs[i]];
		uint32_t sym = a->parent;
		int count;

		if (N[a->parent].placed || N[a->child].placed || unattached(&N[sym]))
			continue;
		for (sym = chain_end(N, sym, 0, &count); sym != NONE; sym = N[sym].chain_next) {
			N[sym].placed = 1;
			put_name(o, sym);
		}
	}
	if (!all)
		return;
	for (i = 0; i < n; i++) {
		const struct sp_cg_arc *a = &cg->arcs[arcs[i]];

		if (N[a->parent].placed || N[a->child].placed)
			continue;
		N[a->parent].placed = 1;
		put_name(o, a->parent);
	}
}

static void set_aside(struct order *o, uint32_t arc)
{
	if (o->unplaced)
		o->unplaced[o->nunplaced++] = arc;
}

static void order_and_dump(struct order *o, const uint32_t *arcs, size_t n, int all)
{
	const struct sp_cg *cg = o->cg;
	unsigned long long total = 0, tmp = 0;
	size_t i;

	if (!all)
		for (i = 0; i < n; i++)
			total += cg->arcs[arcs[i]].count;
	for (i = 0; i < n; i++) {
		const struct sp_cg_arc *a = &cg->arcs[arcs[i]];

		tmp += a->count;
		if (o->arc_placed[arcs[i]])
			continue;
		if ((!all && (double)tmp / (double)total > 0.99) || o->P[a->child].placed ||
		    o->P[a->parent].placed) {
			set_aside(o, arcs[i]);
			continue;
		}
		if (place_arc(o, arcs[i]) < 0)
			set_aside(o, arcs[i]);
	}
	dump_chains(o, arcs, n, all);
}

/* ---- -r ---- */

/* Steps 2 and 3: uses, the multi-use functions and their high arcs. */
static size_t pick_high(struct order *o, const uint32_t *sorted, uint32_t *used, size_t nused,
			uint32_t *scratch, uint32_t *high, size_t *nhigh)
{
	const struct sp_cg *cg = o->cg;
	struct place *P = o->P;
	unsigned long long total = 0, tmp = 0;
	size_t i, nscratch = 0, last = 0;

	for (i = 0; i < cg->narc_list; i++) {
		total += cg->arcs[sorted[i]].count;
		o->arc_placed[sorted[i]] = 0;
	}
	for (i = 0; i < cg->narc_list; i++) {
		tmp += cg->arcs[sorted[i]].count;
		if ((double)tmp / (double)total > 0.90)
			break;
		P[cg->arcs[sorted[i]].child].nuses++;
	}
	sp_sort(used, nused, sizeof(*used), cmp_nuses, P);
	for (i = 0; i < nused / 80; i++) {
		const struct sp_cg_node *sym = &cg->nodes[used[i]];
		uint32_t a;

		if (P[used[i]].nuses == 5)
			break;
		for (a = sym->children; a != NONE; a = cg->arcs[a].next_child) {
			if (cg->arcs[a].parent != cg->arcs[a].child)
				scratch[nscratch++] = a;
			o->arc_placed[a] = 1;
		}
		for (a = sym->parents; a != NONE; a = cg->arcs[a].next_parent) {
			if (cg->arcs[a].parent != cg->arcs[a].child)
				scratch[nscratch++] = a;
			o->arc_placed[a] = 1;
		}
		last = i;
		P[used[i]].placed = 1;
	}
	for (i = 0, *nhigh = 0; i < nscratch; i++) {
		const struct sp_cg_arc *a = &cg->arcs[scratch[i]];

		if (P[a->child].placed && P[a->parent].placed) {
			high[(*nhigh)++] = scratch[i];
			P[a->child].placed = 0;
			P[a->parent].placed = 0;
		}
	}
	return last;
}

/* Step 1: unused functions are placed, used ones reset. */
static size_t split_used(struct order *o, uint32_t *used, uint32_t *unused, size_t *nunused)
{
	size_t i, nused = 0;

	*nunused = 0;
	for (i = 0; i < o->cg->nsyms; i++) {
		if (o->cg->nodes[i].ncalls == 0) {
			unused[(*nunused)++] = (uint32_t)i;
			o->P[i].placed = 1;
		} else {
			used[nused++] = (uint32_t)i;
		}
	}
	return nused;
}

void sp_report_function_ordering(struct sp_report *r)
{
	const struct sp_cg *cg = r->cg;
	size_t na = cg->narc_list, ns = cg->nsyms, nused, nunused, nhigh, last, i, nunplaced;
	uint32_t *used = sp_xmalloc((ns + 1) * sizeof(*used));
	uint32_t *unused = sp_xmalloc((ns + 1) * sizeof(*unused));
	uint32_t *scratch_syms = sp_xmalloc((ns + 1) * sizeof(*scratch_syms));
	uint32_t *sorted = sp_xmalloc((na + 1) * sizeof(*sorted));
	uint32_t *scratch = sp_xmalloc((2 * na + 1) * sizeof(*scratch));
	uint32_t *high = sp_xmalloc((2 * na + 1) * sizeof(*high));
	uint32_t *unplaced = sp_xmalloc((na + 1) * sizeof(*unplaced));
	struct order o;

	order_init(&o, r, unplaced);
	nused = split_used(&o, used, unused, &nunused);
	if (na)
		memcpy(sorted, cg->arc_list, na * sizeof(*sorted));
	sp_sort(sorted, na, sizeof(*sorted), cmp_arc_count, (void *)cg);
	memcpy(scratch_syms, used, nused * sizeof(*used));
	last = pick_high(&o, sorted, scratch_syms, nused, scratch, high, &nhigh);
	for (i = 0; i < last; i++)
		if (o.P[scratch_syms[i]].placed)
			put_name(&o, scratch_syms[i]);
	sp_sort(high, nhigh, sizeof(*high), cmp_arc_count, (void *)cg);
	order_and_dump(&o, high, nhigh, 1);
	order_and_dump(&o, sorted, na, 0);
	nunplaced = o.nunplaced;
	o.unplaced = NULL;
	order_and_dump(&o, unplaced, nunplaced, 1);
	for (i = 0; i < nused; i++)
		if (!o.P[used[i]].placed)
			put_name(&o, used[i]);
	for (i = 0; i < nunused; i++)
		put_name(&o, unused[i]);
	order_release(&o);
	free(used);
	free(unused);
	free(scratch_syms);
	free(sorted);
	free(scratch);
	free(high);
	free(unplaced);
}

/* ---- -R ---- */

/* libiberty's filename_cmp on a POSIX host: plain (signed) char compare. */
static int filename_cmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = *a, cb = *b;

		if (ca != cb)
			return ca - cb;
		if (!ca)
			return 0;
	}
}

static int cmp_map_file(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return filename_cmp((*(const struct sp_function_map_entry *const *)a)->file_name,
			    (*(const struct sp_function_map_entry *const *)b)->file_name);
}

/* The map's object files that have no symbol in the table, in file order. */
static void files_without_text(struct order *o, const struct sp_function_map *map)
{
	const struct sp_cg *cg = o->cg;
	const struct sp_function_map_entry **v = sp_xmalloc((map->len + 1) * sizeof(*v));
	const char *last = NULL;
	size_t i, j;

	for (i = 0; i < map->len; i++)
		v[i] = &map->entries[i];
	sp_sort(v, map->len, sizeof(*v), cmp_map_file, NULL);
	for (i = 0; i < map->len; i++) {
		if (last && !filename_cmp(last, v[i]->file_name))
			continue;
		for (j = 0; j < cg->nsyms; j++)
			if (cg->nodes[j].sym->mapped &&
			    !filename_cmp(cg->nodes[j].sym->name, v[i]->file_name))
				break;
		if (j == cg->nsyms)
			fprintf(o->out, "%s\n", v[i]->file_name);
		last = v[i]->file_name;
	}
	free(v);
}

void sp_report_file_ordering(struct sp_report *r, const struct sp_function_map *map)
{
	const struct sp_cg *cg = r->cg;
	struct order o;
	size_t i;

	order_init(&o, r, NULL);
	for (i = 0; i < cg->narc_list; i++) {
		const struct sp_cg_arc *a = &cg->arcs[cg->arc_list[i]];

		if (!cg->nodes[a->parent].sym->mapped || !cg->nodes[a->child].sym->mapped)
			o.arc_placed[cg->arc_list[i]] = 1;
	}
	order_and_dump(&o, cg->arc_list, cg->narc_list, 0);
	for (i = 0; i < cg->nsyms; i++)
		if (cg->nodes[i].sym->mapped && !o.P[i].placed)
			put_name(&o, (uint32_t)i);
	if (map)
		files_without_text(&o, map);
	order_release(&o);
}
