/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The profile model (profile.h): constructors used by the readers. Records
 * that a format may repeat (basic blocks, CCT paths) are summed through
 * hash indexes so readers never need a second pass; pc arcs, which come by
 * the tens of thousands and in glibc's files never repeat, are appended as
 * read and summed once per file (sp_profile_sum_pcarcs()).
 */
#include "symprof/profile.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/hashmap.h"
#include "symprof/sort.h"

struct sp_profile *sp_profile_new(enum sp_profile_kind kind)
{
	struct sp_profile *p = sp_xcalloc(1, sizeof(*p));

	p->kind = kind;
	sp_arena_init(&p->arena);
	sp_strtab_init(&p->strs);
	memcpy(p->hist_dimen, "seconds", 8);
	p->hist_dimen_abbrev = 's';
	p->pprof.default_counter = SP_NONE;
	return p;
}

static void cct_index_free(struct sp_profile *p);

static void free_map(void **slot)
{
	if (*slot) {
		sp_pairmap_release(*slot);
		free(*slot);
		*slot = NULL;
	}
}

void sp_profile_free(struct sp_profile *p)
{
	size_t i;

	if (!p)
		return;
	free(p->inputs);
	free(p->objects);
	free(p->maps);
	free(p->counters);
	for (i = 0; i < p->nhists; i++) {
		free(p->hists[i].nonzero);
		free(p->hists[i].counts);
	}
	free(p->hists);
	free(p->pcarcs);
	free(p->bbs);
	free_map(&p->bb_index);
	free(p->frames);
	free(p->frame_lines);
	cct_index_free(p);
	free(p->nodes);
	free(p->values);
	free(p->leaks);
	free(p->stacks);
	free(p->stack_frames);
	free(p->funcs);
	free_map(&p->func_index);
	free(p->points);
	free_map(&p->point_index);
	sp_strtab_release(&p->strs);
	sp_arena_release(&p->arena);
	free(p);
}

const char *sp_profile_intern(struct sp_profile *p, const char *s)
{
	return sp_strtab_intern(&p->strs, s);
}

struct sp_input *sp_profile_add_input(struct sp_profile *p, const char *path, const char *format)
{
	struct sp_input *in;

	SP_ALLOC_GROW(p->inputs, p->ninputs + 1, p->inputs_alloc);
	in = &p->inputs[p->ninputs++];
	memset(in, 0, sizeof(*in));
	in->path = sp_profile_intern(p, path);
	in->format = format;
	return in;
}

uint32_t sp_profile_findnew_object(struct sp_profile *p, const char *path)
{
	const char *s = sp_profile_intern(p, path);
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].path == s)
			return (uint32_t)i;
	SP_ALLOC_GROW(p->objects, p->nobjects + 1, p->objects_alloc);
	memset(&p->objects[p->nobjects], 0, sizeof(p->objects[0]));
	p->objects[p->nobjects].path = s;
	return (uint32_t)p->nobjects++;
}

uint32_t sp_profile_add_map(struct sp_profile *p, const struct sp_map *m)
{
	SP_ALLOC_GROW(p->maps, p->nmaps + 1, p->maps_alloc);
	p->maps[p->nmaps] = *m;
	return (uint32_t)p->nmaps++;
}

uint32_t sp_profile_add_counter(struct sp_profile *p, const struct sp_counter *c)
{
	SP_ALLOC_GROW(p->counters, p->ncounters + 1, p->counters_alloc);
	p->counters[p->ncounters] = *c;
	return (uint32_t)p->ncounters++;
}

uint32_t sp_profile_find_counter(const struct sp_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ncounters; i++)
		if (!strcmp(p->counters[i].name, name))
			return (uint32_t)i;
	return SP_NONE;
}

struct sp_hist *sp_profile_findnew_hist(struct sp_profile *p, uint64_t low, uint64_t high,
					uint32_t nbins)
{
	struct sp_hist *h;
	size_t i;

	for (i = 0; i < p->nhists; i++)
		if (p->hists[i].low_pc == low && p->hists[i].high_pc == high)
			return &p->hists[i];
	SP_ALLOC_GROW(p->hists, p->nhists + 1, p->hists_alloc);
	h = &p->hists[p->nhists++];
	h->low_pc = low;
	h->high_pc = high;
	h->nbins = nbins;
	h->nonzero = NULL;
	h->counts = NULL;
	h->nnonzero = 0;
	h->bins_off = 0;
	h->nrecords = 0;
	return h;
}

void sp_profile_hist_add(struct sp_hist *h, const uint32_t *idx, const uint32_t *counts, size_t n)
{
	uint32_t *bin = sp_xreallocarray(NULL, h->nnonzero + n + 1, sizeof(*bin));
	uint32_t *sum = sp_xreallocarray(NULL, h->nnonzero + n + 1, sizeof(*sum));
	size_t i = 0, j = 0, m = 0;

	/* merge the two ascending lists, adding the counts of a bin in both */
	while (i < h->nnonzero || j < n) {
		if (j < n && !counts[j]) {
			j++;
		} else if (j == n || (i < h->nnonzero && h->nonzero[i] < idx[j])) {
			bin[m] = h->nonzero[i];
			sum[m++] = h->counts[i++];
		} else if (i == h->nnonzero || idx[j] < h->nonzero[i]) {
			bin[m] = idx[j];
			sum[m++] = counts[j++];
		} else {
			bin[m] = idx[j];
			sum[m++] = h->counts[i++] + counts[j++];
		}
	}
	free(h->nonzero);
	free(h->counts);
	h->nonzero = bin;
	h->counts = sum;
	h->nnonzero = m;
}

size_t sp_hist_find(const struct sp_hist *h, uint32_t bin)
{
	size_t k = 0, n = h->nnonzero;

	/* halve the part of the list still in question */
	while (n > 0) {
		size_t half = n / 2;

		if (h->nonzero[k + half] < bin) {
			k += half + 1;
			n -= half + 1;
		} else {
			n = half;
		}
	}
	return k;
}

uint64_t sp_hist_bin_start(const struct sp_hist *h, uint64_t bin)
{
	uint64_t span = h->high_pc - h->low_pc;
	double off = (double)span / h->nbins * (double)bin;

	/* rounded up, the double may reach 2^64 (a damaged file's span):
	 * converting that is undefined; no bin starts past high_pc */
	return h->low_pc + (off < (double)span ? (uint64_t)off : span);
}

/* ---- pc arcs ---- */

void sp_profile_append_pcarcs(struct sp_profile *p, const struct sp_pcarc *v, size_t n)
{
	if (!n)
		return;
	SP_ALLOC_GROW(p->pcarcs, p->npcarcs + n, p->pcarcs_alloc);
	memcpy(p->pcarcs + p->npcarcs, v, n * sizeof(*v));
	p->npcarcs += n;
}

/*
 * Whether no pair repeats, found in one pass: glibc writes a file's records
 * by call site, so from_pc never decreases and an equal pair could only be
 * in one run of equal from_pc (one call site: usually one callee, a few
 * for an indirect call), which a small hash set of its callees checks. 0
 * also for whatever this pass cannot vouch for.
 */
static int pcarcs_distinct(const struct sp_profile *p)
{
	const struct sp_pcarc *a = p->pcarcs;
	size_t n = p->npcarcs, i, j, k;
	uint32_t set[256]; /* record index + 1, 0 empty */

	for (i = 0; i < n; i = j) {
		size_t mask = 255;

		for (j = i + 1; j < n && a[j].from_pc == a[i].from_pc; j++)
			;
		if (j < n && a[j].from_pc < a[i].from_pc)
			return 0;
		if (j - i < 2)
			continue;
		if (j - i > 64)
			return 0; /* let the sort see to a call site with that many callees */
		while (mask / 4 >= j - i)
			mask /= 2;
		memset(set, 0, (mask + 1) * sizeof(*set));
		for (k = i; k < j; k++) {
			size_t h = (size_t)(sp_hash_u64(a[k].self_pc) & mask);

			for (; set[h]; h = (h + 1) & mask)
				if (a[set[h] - 1].self_pc == a[k].self_pc)
					return 0;
			set[h] = (uint32_t)(k + 1);
		}
	}
	return 1;
}

struct pc_key {
	uint64_t from, self;
	uint32_t idx;
};

static uint64_t pc_key_from(const struct pc_key *k)
{
	return k->from;
}

static uint64_t pc_key_self(const struct pc_key *k)
{
	return k->self;
}

SP_DEFINE_RADIX_SORT(radix_by_from, struct pc_key, pc_key_from)
SP_DEFINE_RADIX_SORT(radix_by_self, struct pc_key, pc_key_self)

void sp_profile_sum_pcarcs(struct sp_profile *p)
{
	size_t n = p->npcarcs, i, j, m = 0;
	struct pc_key *keys, *v;
	uint8_t *dup;

	if (n < 2 || pcarcs_distinct(p))
		return;
	/* sorted by (from, self), equal pairs in record order (both sorts are
	 * stable): the first of each run takes the others' counts */
	keys = sp_xreallocarray(NULL, 2 * n, sizeof(*keys));
	for (i = 0; i < n; i++) {
		keys[i].from = p->pcarcs[i].from_pc;
		keys[i].self = p->pcarcs[i].self_pc;
		keys[i].idx = (uint32_t)i;
	}
	v = radix_by_self(keys, n, keys + n);
	v = radix_by_from(v, n, v == keys ? keys + n : keys);
	dup = sp_xcalloc(n, 1);
	for (i = 0; i < n; i = j)
		for (j = i + 1; j < n && v[j].from == v[i].from && v[j].self == v[i].self; j++) {
			p->pcarcs[v[i].idx].count += p->pcarcs[v[j].idx].count;
			dup[v[j].idx] = 1;
		}
	for (i = 0; i < n; i++)
		if (!dup[i])
			p->pcarcs[m++] = p->pcarcs[i];
	p->npcarcs = m;
	free(dup);
	free(keys);
}

void sp_profile_add_pcarc(struct sp_profile *p, uint64_t from_pc, uint64_t self_pc, uint64_t count)
{
	struct sp_pcarc a;

	a.from_pc = from_pc;
	a.self_pc = self_pc;
	a.count = count;
	sp_profile_append_pcarcs(p, &a, 1);
	sp_profile_sum_pcarcs(p);
}

void sp_profile_reserve_pcarcs(struct sp_profile *p, size_t n)
{
	SP_ALLOC_GROW(p->pcarcs, p->npcarcs + n, p->pcarcs_alloc);
}

/* ---- basic blocks and the rest ---- */

static void bb_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_profile *p = ctx;

	*k1 = p->bbs[i].addr;
	*k2 = 0;
}

static struct sp_pairmap *index_of(struct sp_profile *p, void **slot, sp_pairmap_key_fn key)
{
	if (!*slot) {
		*slot = sp_xmalloc(sizeof(struct sp_pairmap));
		sp_pairmap_init(*slot, key, p);
	}
	return *slot;
}

void sp_profile_add_bbcount(struct sp_profile *p, uint64_t addr, uint64_t count)
{
	struct sp_pairmap *m = index_of(p, &p->bb_index, bb_key);
	uint32_t i = sp_pairmap_put(m, addr, 0, (uint32_t)p->nbbs);

	if (i == p->nbbs) {
		SP_ALLOC_GROW(p->bbs, p->nbbs + 1, p->bbs_alloc);
		p->bbs[i].addr = addr;
		p->bbs[i].count = 0;
		p->nbbs++;
	}
	p->bbs[i].count += count;
}

uint32_t sp_profile_add_frame(struct sp_profile *p, const struct sp_frame *f)
{
	SP_ALLOC_GROW(p->frames, p->nframes + 1, p->frames_alloc);
	p->frames[p->nframes] = *f;
	return (uint32_t)p->nframes++;
}

uint32_t sp_profile_add_frame_lines(struct sp_profile *p, const struct sp_frame_line *v, size_t n)
{
	size_t first = p->nframe_lines;

	SP_ALLOC_GROW(p->frame_lines, p->nframe_lines + n, p->frame_lines_alloc);
	memcpy(p->frame_lines + first, v, n * sizeof(*v));
	p->nframe_lines += n;
	return (uint32_t)first;
}

uint32_t sp_profile_cct_root(struct sp_profile *p)
{
	if (!p->nnodes) {
		SP_ALLOC_GROW(p->nodes, 1, p->nodes_alloc);
		p->nodes[0].parent = SP_NONE;
		p->nodes[0].frame = SP_NONE;
		p->nodes[0].first_child = SP_NONE;
		p->nodes[0].next_sibling = SP_NONE;
		p->nodes[0].depth = 0;
		p->nnodes = 1;
	}
	return 0;
}

static void child_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_profile *p = ctx;

	*k1 = p->nodes[i].parent;
	*k2 = p->nodes[i].frame;
}

void sp_profile_reserve(struct sp_profile *p, size_t nodes, size_t values)
{
	SP_ALLOC_GROW(p->nodes, p->nnodes + nodes, p->nodes_alloc);
	SP_ALLOC_GROW(p->values, p->nvalues + values, p->values_alloc);
}

/* Nodes with more children than this find them through a hash index. */
#define CCT_SCAN 16

struct cct_index {
	struct sp_pairmap map; /* (parent, frame) -> child, for hashed parents */
	uint8_t *hashed;       /* per node */
	size_t alloc;
};

static struct cct_index *cct_index(struct sp_profile *p)
{
	struct cct_index *x = p->cct_index;

	if (!x) {
		x = sp_xcalloc(1, sizeof(*x));
		sp_pairmap_init(&x->map, child_key, p);
		p->cct_index = x;
	}
	if (x->alloc < p->nnodes + 1) {
		size_t old = x->alloc;

		x->alloc = (p->nnodes + 1) * 2;
		x->hashed = sp_xrealloc(x->hashed, x->alloc);
		memset(x->hashed + old, 0, x->alloc - old);
	}
	return x;
}

static void cct_index_free(struct sp_profile *p)
{
	struct cct_index *x = p->cct_index;

	if (x) {
		sp_pairmap_release(&x->map);
		free(x->hashed);
		free(x);
	}
}

/* From now on, parent's children are found through the hash index. */
static void hash_children(struct sp_profile *p, struct cct_index *x, uint32_t parent)
{
	uint32_t c;

	x->hashed[parent] = 1;
	for (c = p->nodes[parent].first_child; c != SP_NONE; c = p->nodes[c].next_sibling)
		sp_pairmap_put(&x->map, parent, p->nodes[c].frame, c);
}

/*
 * Children are found by scanning the sibling list, the found one moving to
 * the front (the stacks of a sampling profile repeat, so the next search
 * ends at the first step); a node with many children (a dispatcher, the
 * root of many threads) gets a hash index of them instead.
 */
uint32_t sp_profile_cct_child(struct sp_profile *p, uint32_t parent, uint32_t frame)
{
	uint32_t prev = SP_NONE, c, seen = 0;
	struct cct_index *x;
	struct sp_cct_node *n;

	/* the common case first: the child searched last time */
	if (parent < p->nnodes && (c = p->nodes[parent].first_child) != SP_NONE &&
	    p->nodes[c].frame == frame)
		return c;
	sp_profile_cct_root(p);
	x = cct_index(p);
	if (x->hashed[parent]) {
		c = sp_pairmap_get(&x->map, parent, frame);
		if (c != UINT32_MAX)
			return c;
	} else {
		for (c = p->nodes[parent].first_child; c != SP_NONE;
		     prev = c, c = p->nodes[c].next_sibling, seen++) {
			if (p->nodes[c].frame != frame)
				continue;
			if (prev != SP_NONE) {
				p->nodes[prev].next_sibling = p->nodes[c].next_sibling;
				p->nodes[c].next_sibling = p->nodes[parent].first_child;
				p->nodes[parent].first_child = c;
			}
			return c;
		}
		if (seen >= CCT_SCAN)
			hash_children(p, x, parent);
	}
	SP_ALLOC_GROW(p->nodes, p->nnodes + 1, p->nodes_alloc);
	c = (uint32_t)p->nnodes++;
	n = &p->nodes[c];
	n->parent = parent;
	n->frame = frame;
	n->first_child = SP_NONE;
	n->next_sibling = p->nodes[parent].first_child;
	n->depth = p->nodes[parent].depth + 1;
	p->nodes[parent].first_child = c;
	x = cct_index(p);
	if (x->hashed[parent])
		sp_pairmap_put(&x->map, parent, frame, c);
	return c;
}

uint32_t sp_profile_cct_insert_leaf_first(struct sp_profile *p, const uint32_t *frames,
					  size_t depth)
{
	uint32_t node = sp_profile_cct_root(p);
	size_t i;

	for (i = depth; i > 0; i--)
		node = sp_profile_cct_child(p, node, frames[i - 1]);
	return node;
}

void sp_profile_add_value(struct sp_profile *p, uint32_t node, uint32_t counter, int64_t count,
			  int64_t value, int64_t peak)
{
	struct sp_cct_value *v;

	SP_ALLOC_GROW(p->values, p->nvalues + 1, p->values_alloc);
	v = &p->values[p->nvalues++];
	v->node = node;
	v->counter = counter;
	v->count = count;
	v->value = value;
	v->peak = peak;
}

void sp_profile_reserve_stacks(struct sp_profile *p, size_t stacks, size_t frames)
{
	SP_ALLOC_GROW(p->stacks, p->nstacks + stacks, p->stacks_alloc);
	SP_ALLOC_GROW(p->stack_frames, p->nstack_frames + frames, p->stack_frames_alloc);
}

uint32_t *sp_profile_add_stack(struct sp_profile *p, size_t depth, uint32_t counter, int64_t count)
{
	struct sp_stack *s;

	SP_ALLOC_GROW(p->stacks, p->nstacks + 1, p->stacks_alloc);
	SP_ALLOC_GROW(p->stack_frames, p->nstack_frames + depth, p->stack_frames_alloc);
	s = &p->stacks[p->nstacks++];
	s->first = p->nstack_frames;
	s->depth = depth;
	s->counter = counter;
	s->count = count;
	p->nstack_frames += depth;
	return p->stack_frames + s->first;
}

void sp_profile_add_leak(struct sp_profile *p, uint32_t node, uint64_t addr, uint64_t size)
{
	struct sp_leak *l;

	SP_ALLOC_GROW(p->leaks, p->nleaks + 1, p->leaks_alloc);
	l = &p->leaks[p->nleaks++];
	l->node = node;
	l->addr = addr;
	l->size = size;
}

static void func_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_profile *p = ctx;

	*k1 = (uint64_t)(uintptr_t)p->funcs[i].name;
	*k2 = p->funcs[i].object;
}

uint32_t sp_profile_findnew_func(struct sp_profile *p, const char *name, uint32_t object)
{
	struct sp_pairmap *m = index_of(p, &p->func_index, func_key);
	uint32_t i = sp_pairmap_put(m, (uint64_t)(uintptr_t)name, object, (uint32_t)p->nfuncs);
	struct sp_frame f;

	if (i < p->nfuncs)
		return i;
	SP_ALLOC_GROW(p->funcs, p->nfuncs + 1, p->funcs_alloc);
	memset(&p->funcs[i], 0, sizeof(p->funcs[i]));
	p->funcs[i].name = name;
	p->funcs[i].object = object;
	p->funcs[i].id = -1;
	p->nfuncs++;
	memset(&f, 0, sizeof(f));
	f.map = SP_NONE;
	f.object = object;
	f.name = name;
	f.flags = SP_FRAME_NAMED;
	sp_profile_add_frame(p, &f);
	return i;
}

static void point_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_profile *p = ctx;

	*k1 = (uint64_t)p->points[i].func << 32 | p->points[i].node;
	*k2 = p->points[i].size;
}

struct sp_input_point *sp_profile_findnew_point(struct sp_profile *p, uint32_t func, uint32_t node,
						uint64_t size)
{
	struct sp_pairmap *m = index_of(p, &p->point_index, point_key);
	uint32_t i = sp_pairmap_put(m, (uint64_t)func << 32 | node, size, (uint32_t)p->npoints);
	struct sp_input_point *pt;

	if (i < p->npoints)
		return &p->points[i];
	SP_ALLOC_GROW(p->points, p->npoints + 1, p->points_alloc);
	pt = &p->points[i];
	memset(pt, 0, sizeof(*pt));
	pt->func = func;
	pt->node = node;
	pt->size = size;
	p->npoints++;
	return pt;
}

/* *a += b, or *a = max(*a, b); sums wrap instead of overflowing */
static void node_acc(int64_t *a, int64_t b, unsigned flags)
{
	if (!(flags & SP_SUM_MAX))
		*a = (int64_t)((uint64_t)*a + (uint64_t)b);
	else if (b > *a)
		*a = b;
}

void sp_profile_node_sums(const struct sp_profile *p, uint32_t counter, enum sp_value_pick pick,
			  unsigned flags, int64_t *self, int64_t *subtree)
{
	size_t i, n = p->nnodes;

	memset(self, 0, n * sizeof(*self));
	for (i = 0; i < p->nvalues; i++) {
		const struct sp_cct_value *x = &p->values[i];

		if (x->counter != counter || x->node >= n)
			continue;
		node_acc(&self[x->node],
			 pick == SP_PICK_VALUE	? x->value
			 : pick == SP_PICK_PEAK ? x->peak
						: x->count,
			 flags);
	}
	if (!subtree)
		return;
	memcpy(subtree, self, n * sizeof(*subtree));
	for (i = n; i > 1; i--) {
		uint32_t par = p->nodes[i - 1].parent;

		if (par != SP_NONE && par < i - 1)
			node_acc(&subtree[par], subtree[i - 1], flags);
	}
}

int64_t *sp_profile_node_values(const struct sp_profile *p, uint32_t counter,
				enum sp_value_pick pick)
{
	int64_t *v = sp_xcalloc(p->nnodes + 1, sizeof(*v));

	sp_profile_node_sums(p, counter, pick, 0, v, NULL);
	return v;
}
