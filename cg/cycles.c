/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Assembling the call graph (gprof's cg_assemble, cg_dfn, cycle_link,
 * propagate_flags, propagate_time; gprof.md 4.5):
 *
 *  - self-recursive calls are taken out of each node's call count;
 *  - a depth-first walk numbers the nodes (callees get smaller numbers than
 *    their callers) and finds the cycles (below);
 *  - each cycle gets a node of its own ("<cycle N as a whole>");
 *  - from the top of the topological order down, a node inherits its print
 *    flag (OR of its callers') and its propagation fraction (the callers'
 *    fractions weighted by their share of its calls); -f/-e/-F/-E/-n/-N
 *    adjust them;
 *  - from the bottom up, each arc receives the callee's self and child
 *    time in proportion to its share of the callee's calls;
 *  - nodes and cycles are ranked by propagated time (cmp_total).
 *
 * Cycles in linear time. gprof's cg_dfn() walks the graph depth first
 * (roots in symbol order, children in list order) and, on reaching a node
 * that is still "busy" (visited, not numbered), gloms every node above it
 * on the stack onto the cycle of the outermost one: find_cycle() walks the
 * stack down to that node, walks the head's member list to its tail, and
 * relabels the head of every member it appends. A cycle of m members can
 * take m such steps, each walking the list: quadratic (a 3,000-member
 * cycle took two thirds of a whole report).
 *
 * What gprof computes is the strongly connected components of the graph,
 * and its glomming is the path-based algorithm (Purdom, Munro; Gabow 2000):
 * the busy nodes on the stack fall into contiguous segments, one per
 * cycle being built, each opened by its head (the first node of the cycle
 * the walk reached: Tarjan's root). This file runs that algorithm with
 * Gabow's bookkeeping, which makes each step constant time (amortised):
 *
 *  - every node gets a preorder number when it is pushed; a busy node
 *    keeps it, as a negative number in the walk's copy of the numbers;
 *  - a second stack holds the open segments: the head's stack position,
 *    its preorder number and the tail of its member list;
 *  - reaching a busy node w closes every segment whose head was reached
 *    after w: their member lists are appended, bottom segment first, to
 *    the list of the segment that holds w. That is gprof's glomming order
 *    (it walks the stack upwards from w's segment and appends each
 *    unglommed node with its list), so the member lists, which decide
 *    the order of sums and of ties in the report, are gprof's;
 *  - when a node is popped and it opens the top segment, the segment is
 *    a finished cycle (or a lone node): the topological counter goes up
 *    and every member gets that number and the head, as in post_visit().
 *
 * Each node is pushed, numbered and appended once, and each arc is walked
 * once: O(nodes + arcs), whatever the cycles. The numbers, the heads (the
 * cycles are numbered by their head's place in the symbol table) and the
 * member lists are the ones gprof's walk leaves.
 */
#include "symprof/cg.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"
#include "internal.h"

#define DFN_NAN 0

/* An open segment of the stack: a cycle being built (or a lone node). */
struct segment {
	uint32_t pos;  /* the head's place on the stack */
	uint32_t pre;  /* the head's preorder number */
	uint32_t tail; /* the last node of the head's member list */
};

/*
 * The walk reads and writes arrays of its own, 4 bytes a node or an arc,
 * and the nodes (120 bytes) only at the end, in one pass: with 100,000
 * functions the nodes and arcs are tens of megabytes, and following the
 * lists of arcs in them missed the cache at nearly every step.
 */
struct dfn {
	struct sp_cg *cg;
	uint32_t *stack;  /* 1-based, like gprof's dfn_stack */
	uint32_t *cursor; /* next child (in kids) for each stack slot */
	/* node p's children in list order: kids[first[p + 1] .. first[p + 2]) */
	uint32_t *first, *kids;
	/* each node's number as the walk reads it: DFN_NAN, a topological
	 * number (> 0), or minus the preorder number of a busy node */
	int32_t *order;
	uint32_t *next, *head; /* cyc_next and cyc_head until the walk ends */
	struct segment *seg;
	size_t depth, alloc, nseg;
	int32_t counter;  /* topological numbers given */
	uint32_t reached; /* preorder numbers given */
	FILE *dbg;
};

static const char *nname(const struct sp_cg *cg, uint32_t n)
{
	const struct sp_symbol *s = cg->nodes[n].sym;

	return s ? s->name : "<cycle>";
}

/* gprof's debugging line for find_cycle(): the stack slot it stops at is
 * the busy node's own, or its segment head's when it left the stack. */
static void debug_find_cycle(const struct dfn *d, uint32_t child, size_t k)
{
	size_t top = d->seg[k].pos, i;

	for (i = d->depth; i > top; i--)
		if (d->stack[i] == child) {
			top = i;
			break;
		}
	fprintf(d->dbg, "[find_cycle] dfn_depth %zu cycle_top %zu %s\n", d->depth, top,
		nname(d->cg, d->stack[top]));
}

/* `child` is busy (gprof's find_cycle()): the segments above the one
 * holding it join that one, their lists appended in stack order. */
static void find_cycle(struct dfn *d, uint32_t child)
{
	uint32_t pre = (uint32_t)-d->order[child];
	size_t k = d->nseg, j;
	struct segment *into;

	/* a busy node's segment is open, so k stops above 0 */
	while (k > 0 && d->seg[k - 1].pre > pre)
		k--;
	if (k == 0)
		return;
	into = &d->seg[k - 1];
	if (d->dbg)
		debug_find_cycle(d, child, k - 1);
	for (j = k; j < d->nseg; j++) {
		uint32_t head = d->stack[d->seg[j].pos];

		d->next[into->tail] = head;
		into->tail = d->seg[j].tail;
		if (d->dbg)
			fprintf(d->dbg, "[find_cycle] glomming %s onto %s\n", nname(d->cg, head),
				nname(d->cg, d->stack[into->pos]));
	}
	d->nseg = k;
}

static void pre_visit(struct dfn *d, uint32_t n)
{
	++d->depth;
	if (d->depth >= d->alloc) {
		d->alloc = d->alloc ? d->alloc * 2 : 128;
		d->stack = sp_xreallocarray(d->stack, d->alloc, sizeof(*d->stack));
		d->cursor = sp_xreallocarray(d->cursor, d->alloc, sizeof(*d->cursor));
		d->seg = sp_xreallocarray(d->seg, d->alloc, sizeof(*d->seg));
	}
	d->stack[d->depth] = n;
	d->cursor[d->depth] = d->first[n + 1];
	d->order[n] = -(int32_t)++d->reached;
	d->seg[d->nseg].pos = (uint32_t)d->depth;
	d->seg[d->nseg].pre = d->reached;
	d->seg[d->nseg].tail = n;
	d->nseg++;
}

/* gprof's post_visit(): a node that still opens the top segment is the
 * head of a finished cycle (or alone): number it and its members. */
static void post_visit(struct dfn *d, uint32_t n)
{
	uint32_t m;

	if (d->nseg > 0 && d->seg[d->nseg - 1].pos == d->depth) {
		++d->counter;
		for (m = n; m != SP_CG_NONE; m = d->next[m]) {
			d->order[m] = d->counter;
			d->head[m] = n;
			if (d->dbg)
				fprintf(d->dbg, "[post_visit] %s -> cg.top_order = %d\n",
					nname(d->cg, m), d->counter);
		}
		d->nseg--;
	}
	--d->depth;
}

/* Visits `n`; returns 1 if it was pushed (its children are to be walked).
 * The test reads the walk's copy of the numbers: a node is visited once
 * per arc into it and pushed once, and the copy is 4 bytes a node, not
 * the node's 120. */
static inline int visit(struct dfn *d, uint32_t n)
{
	int32_t order = d->order[n];

	if (order > 0)
		return 0;
	if (order < 0) {
		find_cycle(d, n);
		return 0;
	}
	pre_visit(d, n);
	return 1;
}

/* gprof's recursive cg_dfn(), as a loop over an explicit stack. */
static void dfn_from(struct dfn *d, uint32_t root)
{
	size_t base = d->depth;

	if (!visit(d, root))
		return;
	while (d->depth > base) {
		uint32_t k = d->cursor[d->depth], n = d->stack[d->depth];

		if (k == d->first[n + 2]) {
			post_visit(d, n);
			continue;
		}
		d->cursor[d->depth] = k + 1;
		visit(d, d->kids[k]);
	}
}

/* Each cycle's members in list order: cycle i's are v[first[i] .. first[i + 1]).
 * Walking them there, rather than along the nodes' cyc_next, is a load a
 * member that does not wait for the one before (a cycle of 50,000 members
 * made each walk a chain of cache misses). */
struct members {
	uint32_t *first, *v;
};

/* gprof's cycle_link(): one node per cycle, with its outside/inside calls.
 * `next` is the walk's copy of the member lists (cyc_next). */
static void cycle_link(struct sp_cg *cg, const uint32_t *next, struct members *mb, FILE *dbg)
{
	uint32_t *heads = NULL, *cycle_of, m;
	size_t i, n = 0, alloc = 0, k = 0;

	/* the heads in symbol order, in one pass over the nodes (with -l
	 * there are hundreds of thousands, and few cycles) */
	for (i = 0; i < cg->nsyms; i++)
		if (cg->nodes[i].cyc_head == i && next[i] != SP_CG_NONE) {
			SP_ALLOC_GROW(heads, n + 1, alloc);
			heads[n++] = (uint32_t)i;
		}
	cg->ncycles = n;
	sp_cg_insert_nodes(cg, n);
	mb->first = sp_xmalloc((n + 1) * sizeof(*mb->first));
	mb->v = NULL;
	mb->first[0] = 0;
	if (n == 0) {
		free(heads);
		return;
	}
	mb->v = sp_xmalloc(cg->nsyms * sizeof(*mb->v));
	/* each symbol's cycle, 4 bytes a symbol for the pass over the arcs */
	cycle_of = sp_xcalloc(cg->nsyms + 1, sizeof(*cycle_of));
	for (n = 0; n < cg->ncycles; n++) {
		uint32_t c = (uint32_t)(cg->nsyms + n), head = heads[n];
		struct sp_cg_node *cyc = &cg->nodes[c];
		int number = (int)n + 1;

		cyc->print_flag = 1;
		cyc->top_order = DFN_NAN;
		cyc->cycle = number;
		cyc->cyc_head = c;
		cyc->cyc_next = head;
		cyc->parents = SP_CG_NONE;
		cyc->children = SP_CG_NONE;
		if (dbg)
			fprintf(dbg, "[cycle_link] %s is the head of cycle %d\n", nname(cg, head),
				number);
		for (m = head; m != SP_CG_NONE; m = next[m]) {
			mb->v[k++] = m;
			cycle_of[m] = (uint32_t)number;
		}
		mb->first[n + 1] = (uint32_t)k;
		for (i = mb->first[n]; i < k; i++) {
			cg->nodes[mb->v[i]].cycle = number;
			cg->nodes[mb->v[i]].cyc_head = c;
		}
	}
	/* the calls into each cycle's members, from inside it or outside: one
	 * pass over the arcs in memory order, where walking the members'
	 * lists of callers misses the cache at every arc of a big cycle */
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];
		uint32_t number;
		struct sp_cg_node *cyc;

		if (a->child >= cg->nsyms || !(number = cycle_of[a->child]) ||
		    a->parent == a->child)
			continue;
		cyc = &cg->nodes[cg->nsyms + number - 1];
		if (a->parent < cg->nsyms && cycle_of[a->parent] == number)
			cyc->self_calls += a->count;
		else
			cyc->ncalls += a->count;
	}
	free(cycle_of);
	free(heads);
}

/*
 * Each symbol's callers as one run of (caller, count) pairs, in the order
 * of its list of arcs: until a report sorts them, the arcs into a node are
 * listed newest first (sp_cg_arc_link() puts each new arc at the head), so
 * a count of the arcs by callee (sp_cg_count_callees()) and a pass placing
 * them from the first to the last, each at the end of its callee's run,
 * gives every list. Two
 * passes in memory order, where walking the lists costs a cache miss per
 * arc. Arcs into pseudo nodes are left out: no symbol inherits from them.
 */
struct caller {
	uint32_t node;
	uint64_t count;
};

struct callers {
	uint32_t *first; /* node c's callers: v[first[c + 1] .. first[c + 2]) */
	struct caller *v;
};

/* The bytes of `first`, rounded up so that the pairs after it are aligned. */
static size_t callers_first_size(const struct sp_cg *cg)
{
	return ((cg->nsyms + 2) * sizeof(uint32_t) + 7) / 8 * 8;
}

static size_t callers_size(const struct sp_cg *cg)
{
	return callers_first_size(cg) + cg->narcs * sizeof(struct caller);
}

/* Fills c in mem, of callers_size(cg) bytes, 8-aligned. */
static void callers_build(const struct sp_cg *cg, struct callers *c, void *mem)
{
	size_t n = cg->nsyms, i;

	c->first = mem;
	c->v = (struct caller *)((char *)mem + callers_first_size(cg));
	sp_cg_count_callees(cg, n, c->first);
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->child < n) {
			struct caller *e = &c->v[--c->first[a->child + 1]];

			e->node = a->parent;
			e->count = a->count;
		}
	}
}

/* gprof's inherit_flags(): the callers of `child` (or of its cycle's
 * members) give it their print flag and their share of the fraction. */
static void inherit_flags(struct sp_cg *cg, const struct callers *cl, const struct members *mb,
			  uint32_t child)
{
	struct sp_cg_node *N = cg->nodes;
	uint32_t head = N[child].cyc_head, m, k, i, ci;

	if (child == head) {
		N[child].print_flag = 0;
		N[child].prop_fract = 0.0;
		for (k = cl->first[child + 1]; k < cl->first[child + 2]; k++) {
			uint32_t par = cl->v[k].node;

			if (par == child)
				continue;
			N[child].print_flag |= N[par].print_flag;
			if (N[child].ncalls != 0)
				N[child].prop_fract +=
					N[par].prop_fract *
					((double)cl->v[k].count / (double)N[child].ncalls);
		}
		return;
	}
	N[head].print_flag = 0;
	N[head].prop_fract = 0.0;
	ci = head - (uint32_t)cg->nsyms;
	for (i = mb->first[ci]; i < mb->first[ci + 1]; i++)
		for (m = mb->v[i], k = cl->first[m + 1]; k < cl->first[m + 2]; k++) {
			uint32_t par = cl->v[k].node;

			if (N[par].cyc_head == head)
				continue;
			N[head].print_flag |= N[par].print_flag;
			if (N[head].ncalls != 0)
				N[head].prop_fract += N[par].prop_fract * ((double)cl->v[k].count /
									   (double)N[head].ncalls);
		}
	for (i = mb->first[ci]; i < mb->first[ci + 1]; i++) {
		N[mb->v[i]].print_flag = N[head].print_flag;
		N[mb->v[i]].prop_fract = N[head].prop_fract;
	}
}

/* -f/-e/-F/-E (gprof.md 4.5): a node's print flag and fraction, after
 * what it inherited. */
static void apply_specs(const struct sp_symspecs *s, struct sp_cg_node *n)
{
	uint64_t addr = n->sym->addr;

	if (!n->print_flag) {
		if (sp_symspecs_in(s, SP_INCL_GRAPH, addr) ||
		    (sp_symspecs_len(s, SP_INCL_GRAPH) == 0 &&
		     !sp_symspecs_in(s, SP_EXCL_GRAPH, addr)))
			n->print_flag = 1;
	} else if (!sp_symspecs_in(s, SP_INCL_GRAPH, addr) &&
		   sp_symspecs_in(s, SP_EXCL_GRAPH, addr)) {
		n->print_flag = 0;
	}
	if (n->prop_fract == 0.0) {
		if (sp_symspecs_in(s, SP_INCL_TIME, addr) ||
		    (sp_symspecs_len(s, SP_INCL_TIME) == 0 &&
		     !sp_symspecs_in(s, SP_EXCL_TIME, addr)))
			n->prop_fract = 1.0;
	} else if (!sp_symspecs_in(s, SP_INCL_TIME, addr) &&
		   sp_symspecs_in(s, SP_EXCL_TIME, addr)) {
		n->prop_fract = 0.0;
	}
}

static void propagate_flags(struct sp_cg *cg, const uint32_t *top, const struct callers *cl,
			    const struct members *mb, const struct sp_cg_gmon_opts *o)
{
	const struct sp_symspecs *s = o->specs;
	FILE *dbg = (o->debug.mask & SP_DBG_PROP) ? o->debug.out : NULL;
	uint32_t old_head = SP_CG_NONE;
	/* without any of those four tables (the usual case: gprof's default
	 * exclusions name libc's mcount, not a symbol of the program), the
	 * specs set both and read no symbol */
	int specs = sp_symspecs_len(s, SP_INCL_GRAPH) || sp_symspecs_len(s, SP_EXCL_GRAPH) ||
		    sp_symspecs_len(s, SP_INCL_TIME) || sp_symspecs_len(s, SP_EXCL_TIME);
	size_t i;

	for (i = cg->nsyms; i > 0; --i) {
		uint32_t c = top[i - 1];
		struct sp_cg_node *n = &cg->nodes[c];

		if (n->cyc_head != old_head) {
			old_head = n->cyc_head;
			inherit_flags(cg, cl, mb, c);
		}
		if (specs) {
			apply_specs(s, n);
		} else {
			n->print_flag = 1;
			if (n->prop_fract == 0.0)
				n->prop_fract = 1.0;
		}
		n->prop_self = n->time * n->prop_fract;
		cg->print_time += n->prop_self;
		if (dbg)
			fprintf(dbg,
				"[prop_flags] %s ends up with printflag %d and prop-fract %f\n"
				"[prop_flags] time %f propself %f print_time %f\n",
				n->sym->name, n->print_flag, n->prop_fract, n->time, n->prop_self,
				cg->print_time);
	}
}

static void cycle_time(struct sp_cg *cg, const struct members *mb)
{
	size_t c;
	uint32_t i;

	for (c = 0; c < cg->ncycles; c++) {
		struct sp_cg_node *cyc = &cg->nodes[cg->nsyms + c];

		for (i = mb->first[c]; i < mb->first[c + 1]; i++) {
			uint32_t m = mb->v[i];

			if (cg->nodes[m].prop_fract == 0.0)
				continue;
			cyc->time += cg->nodes[m].time;
		}
		cyc->prop_self = cyc->prop_fract * cyc->time;
	}
}

/* gprof's propagate_time() for one parent. */
static void propagate_time(struct sp_cg *cg, uint32_t parent, FILE *dbg)
{
	struct sp_cg_node *N = cg->nodes, *p = &N[parent];
	uint32_t a;

	if (p->prop_fract == 0.0)
		return;
	for (a = p->children; a != SP_CG_NONE; a = cg->arcs[a].next_child) {
		struct sp_cg_arc *arc = &cg->arcs[a];
		uint32_t child = arc->child;
		double share, prop_share;

		if (arc->count == 0 || child == parent || N[child].prop_fract == 0)
			continue;
		/* number_nodes() numbers every arc's callee below its caller
		 * unless both are in one cycle: gprof's "toporder botches"
		 * cannot happen here, whatever the profile says */
		if (p->top_order <= N[child].top_order &&
		    !(N[child].cyc_head != child && p->cycle == N[child].cycle))
			SP_BUG("arc %u: caller numbered %d, callee %d", a, p->top_order,
			       N[child].top_order);
		if (N[child].cyc_head != child) {
			if (p->cycle == N[child].cycle)
				continue;
			child = N[child].cyc_head;
		}
		if (N[child].ncalls == 0)
			continue;
		arc->time = N[child].time * ((double)arc->count / (double)N[child].ncalls);
		arc->child_time =
			N[child].child_time * ((double)arc->count / (double)N[child].ncalls);
		share = arc->time + arc->child_time;
		p->child_time += share;
		prop_share = p->prop_fract * share;
		p->prop_child += prop_share;
		arc->time *= p->prop_fract;
		arc->child_time *= p->prop_fract;
		if (p->cyc_head != parent) {
			N[p->cyc_head].child_time += share;
			N[p->cyc_head].prop_child += prop_share;
		}
		if (dbg)
			fprintf(dbg,
				"[prop_time] child %s with %f %f %llu/%llu, parent %s, share %f\n",
				nname(cg, child), N[child].time, N[child].child_time,
				(unsigned long long)arc->count, (unsigned long long)N[child].ncalls,
				nname(cg, parent), share);
	}
}

/*
 * The children of nodes [0, n) as runs in first/kids (see struct dfn). The
 * lists are newest first until a report sorts them (sp_cg_arc_link()), so
 * counting the arcs by parent and placing them from the first to the last
 * at the end of their parent's run gives each run in list order (as
 * sp_cg_count_callees() does by callee).
 */
static void children_build(const struct sp_cg *cg, size_t n, uint32_t *first, uint32_t *kids)
{
	uint32_t total = 0;
	size_t i;

	memset(first, 0, (n + 2) * sizeof(*first));
	for (i = 0; i < cg->narcs; i++)
		first[cg->arcs[i].parent + 1]++;
	for (i = 0; i < n; i++) {
		total += first[i + 1];
		first[i + 1] = total;
	}
	first[n + 1] = total;
	for (i = 0; i < cg->narcs; i++)
		kids[--first[cg->arcs[i].parent + 1]] = cg->arcs[i].child;
}

/* Numbers the nodes and finds the cycles (top_order, cyc_head, cyc_next);
 * returns the member lists as the walk kept them (cyc_next of each node),
 * for the caller to free. */
static uint32_t *number_nodes(struct sp_cg *cg, const struct sp_cg_gmon_opts *o)
{
	/* every node (pseudo nodes too) starts unnumbered, as in the nodes */
	size_t n = cg->nnodes + cg->npseudo, i;
	struct dfn d;
	uint32_t *mem = sp_xmalloc((4 * (n + 2) + cg->narcs) * sizeof(*mem));

	memset(&d, 0, sizeof(d));
	d.cg = cg;
	d.dbg = (o->debug.mask & SP_DBG_DFN) ? o->debug.out : NULL;
	d.order = (int32_t *)mem;
	d.next = sp_xmalloc((n + 2) * sizeof(*d.next));
	d.head = mem + n + 2;
	d.first = d.head + n + 2;
	d.kids = d.first + n + 2;
	memset(d.order, 0, (n + 2) * sizeof(*d.order));
	for (i = 0; i < n; i++) {
		d.next[i] = SP_CG_NONE;
		d.head[i] = (uint32_t)i;
	}
	children_build(cg, n, d.first, d.kids);
	for (i = 0; i < cg->nsyms; i++)
		if (d.order[i] == DFN_NAN)
			dfn_from(&d, (uint32_t)i);
	for (i = 0; i < n; i++) {
		struct sp_cg_node *nd = &cg->nodes[i];

		nd->top_order = d.order[i];
		nd->cyc_next = d.next[i];
		nd->cyc_head = d.head[i];
	}
	free(mem);
	free(d.stack);
	free(d.cursor);
	free(d.seg);
	return d.next;
}

/*
 * The symbols by topological number (in the graph's scratch, or to be
 * freed when that differs), ties (a cycle's members) in symbol
 * order: gprof's sort of its topsortnlp by top_order, which is stable
 * here because glibc's qsort is a merge sort. The numbers run from 1 to
 * at most nsyms, so one counting pass does it, without the sort keys of
 * sp_cg_sort_nodes() (fresh pages and key packing for every symbol).
 */
static uint32_t *topo_order(struct sp_cg *cg, size_t extra, void **rest)
{
	size_t n = cg->nsyms, i, room = ((2 * n + 3) * sizeof(uint32_t) + 7) / 8 * 8;
	/* the order and its counters in the graph's scratch (see there), and
	 * after them `extra` bytes for the caller (*rest) */
	uint32_t *top = sp_cg_scratch(cg, room + extra), *pos = top + n + 1;

	memset(pos, 0, (n + 2) * sizeof(*pos));
	for (i = 0; i < n; i++) {
		int t = cg->nodes[i].top_order;

		if (t < 1 || (size_t)t > n)
			break;
		pos[t + 1]++;
	}
	if (i < n) {
		/* not numbered by number_nodes(): the general sort */
		top = sp_xmalloc((n + 1) * sizeof(*top));
		for (i = 0; i < n; i++)
			top[i] = (uint32_t)i;
		sp_cg_sort_nodes(cg, top, n, SP_CG_ORDER_TOPO);
		*rest = sp_cg_scratch(cg, extra);
		return top;
	}
	for (i = 1; i <= n + 1; i++)
		pos[i] += pos[i - 1];
	for (i = 0; i < n; i++)
		top[pos[cg->nodes[i].top_order]++] = (uint32_t)i;
	*rest = (char *)top + room;
	return top;
}

/*
 * How many symbols left out of a compacted -l table gprof ranks before
 * node v (struct sp_cg_dropped): all of them are named, without time or
 * calls, so none is before a node with time or a nameless one; before one
 * with calls only those of the plain class when v's name starts with '_';
 * before an empty named one, those of a lower (class, name rank, table
 * position), as counted.
 */
static size_t dropped_before(const struct sp_cg *cg, const struct sp_cg_gmon_opts *o, uint32_t v)
{
	const struct sp_cg_node *nd = &cg->nodes[v];
	const char *name;

	if (!o->dropped || v >= cg->nsyms || nd->prop_self + nd->prop_child > 0.0)
		return 0;
	if (!(name = nd->sym->name))
		return 0;
	if (nd->ncalls)
		return name[0] == '_' ? o->dropped->plain : 0;
	return o->dropped->before[v];
}

void sp_cg_assemble(struct sp_cg *cg, const struct sp_cg_gmon_opts *o)
{
	FILE *pdbg = (o->debug.mask & SP_DBG_PROP) ? o->debug.out : NULL;
	struct callers cl;
	struct members mb;
	uint32_t *top, *next;
	void *mem;
	size_t i;

	/* the nodes come from sp_cg_from_gmon() as assembling wants them:
	 * zeroed (no child time, self calls, fractions, print flag, top order
	 * or cycle), each its own cycle head, no next member; with -l there
	 * are hundreds of thousands, so no pass to set that again */
	/* self calls leave the call count (an arc is unique per pair); one pass
	 * over the arcs rather than a lookup per node */
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->parent == a->child && a->parent < cg->nsyms) {
			cg->nodes[a->parent].ncalls -= a->count;
			cg->nodes[a->parent].self_calls = a->count;
		}
	}
	/* -c: the static arcs come after (with no count, so no self calls);
	 * gprof scans up to (parent + 1)->addr, past the last symbol 0 (the
	 * node after it may be a pseudo node by then) */
	for (i = 0; o->find_calls && i < cg->nsyms; i++)
		o->find_calls(cg, (uint32_t)i, cg->nodes[i].sym->addr,
			      i + 1 < cg->nsyms ? cg->nodes[i + 1].sym->addr : 0,
			      o->find_calls_ctx);
	next = number_nodes(cg, o);
	cycle_link(cg, next, &mb, (o->debug.mask & SP_DBG_CYCLE) ? o->debug.out : NULL);
	free(next);
	top = topo_order(cg, callers_size(cg), &mem);
	callers_build(cg, &cl, mem);
	if ((o->debug.mask & SP_DBG_DFN) && o->debug.out) {
		fprintf(o->debug.out, "[cg_assemble] topological sort listing\n");
		for (i = 0; i < cg->nsyms; i++)
			fprintf(o->debug.out, "[cg_assemble] %d:%s\n", cg->nodes[top[i]].top_order,
				nname(cg, top[i]));
	}
	propagate_flags(cg, top, &cl, &mb, o);
	cycle_time(cg, &mb);
	free(mb.first);
	free(mb.v);
	for (i = 0; i < cg->nsyms; i++)
		propagate_time(cg, top[i], pdbg);
	if (top != cg->priv->scratch)
		free(top);
	cg->order = sp_xmalloc((cg->nnodes + 1) * sizeof(*cg->order));
	for (i = 0; i < cg->nnodes; i++)
		cg->order[i] = (uint32_t)i;
	sp_cg_sort_nodes(cg, cg->order, cg->nnodes, SP_CG_ORDER_TOTAL);
	for (i = 0; i < cg->nnodes; i++)
		cg->nodes[cg->order[i]].index = (int)(i + 1 + dropped_before(cg, o, cg->order[i]));
}
