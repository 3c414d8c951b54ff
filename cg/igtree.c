/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The call tree igprof-analyse reports on (src/analyse.cc, readDump and
 * the default filters; shared/reference/peers.md §2.2), built from a
 * profile's CCT of frames:
 *
 *  - frames become functions (sp_frame_funcs: with IgProf, the function
 *    each address is in), and a path is a path of functions: two call
 *    sites in the same function under the same caller are one node, as
 *    igprof-analyse merges children by symbol name;
 *  - one counter, one field: the value (or the peak, --value=peak) and the
 *    count of events; a MAX counter (MEM_MAX) keeps the largest value
 *    where nodes merge, others add up;
 *  - the default filters, in igprof-analyse's order:
 *      IgProf's own frames (objects whose name ends in libigprof.*,
 *        IgProf.*, IgHook.*): dropped with their own values, their
 *        callees move up to the caller (RemoveIgProfFilter, mergeToNode);
 *      for MEM_* counters, the allocation functions (malloc, calloc,
 *        realloc, memalign, posix_memalign, valloc, zmalloc, zcalloc,
 *        zrealloc, operator new and new[]): their values go to the caller,
 *        and they disappear with what they call (MallocFilter);
 *      for MEM_LIVE, gcc 2's pool allocator is dropped with its subtree
 *        (IgProfGccPoolAllocFilter).
 *
 * The result is a new profile whose frame i is function i (named, object
 * kept), one counter, the values per node, and the leaks moved onto the
 * nodes their allocation sites became.
 *
 * With by_frame, the same filters make a tree of the dumps' own frames
 * instead (frame i is frame i of the dumps, call-site offsets kept, paths
 * merged by frame): the filtered profile that the outputs at line
 * granularity read (-l, -A, callgrind), so that every output sees the
 * same filters. A fold then goes into the caller's frame node.
 */
#include "symprof/cg.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"

static const char *const malloc_names[] = {
	"malloc",  "calloc",   "realloc", "memalign", "posix_memalign", "valloc", "zmalloc",
	"zcalloc", "zrealloc", "_Znwj",	  "_Znwm",    "_Znaj",		"_Znam",  NULL,
};

static const char *const pool_names[] = {
	"_ZNSt24__default_alloc_templateILb1ELi0EE14_S_chunk_allocEjRi",
	"_ZNSt24__default_alloc_templateILb1ELi0EE9_S_refillEj",
	"_ZNSt24__default_alloc_templateILb1ELi0EE8allocateEj",
	NULL,
};

static int in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return 1;
	return 0;
}

int sp_igtree_is_igprof_object(const char *path)
{
	size_t n = strlen(path);
	const char *tail = path + (n > 20 ? n - 20 : 0);

	return strstr(tail, "libigprof.") || strstr(tail, "IgProf.") || strstr(tail, "IgHook.");
}

/* What becomes of a CCT node. */
enum fate {
	KEEP,	  /* a node of its function */
	MERGE_UP, /* transparent: its callees hang from its caller */
	FOLD_UP,  /* its values go to the caller, its subtree is dropped */
	DROP,	  /* dropped with its subtree */
};

static enum fate fate_of(const struct sp_igtree_opts *o, const struct sp_frame_funcs *ff,
			 const struct sp_profile *p, uint32_t fn)
{
	const char *name = ff->funcs->syms[fn].name;
	uint32_t obj = ff->object[fn];

	if ((o->filters & SP_IGF_IGPROF) && obj < p->nobjects &&
	    sp_igtree_is_igprof_object(p->objects[obj].path))
		return MERGE_UP;
	if ((o->filters & SP_IGF_MALLOC) && in_list(malloc_names, name))
		return FOLD_UP;
	if ((o->filters & SP_IGF_POOL) && in_list(pool_names, name))
		return DROP;
	return KEEP;
}

static int64_t pick(const struct sp_cct_value *v, enum sp_value_field f)
{
	return f == SP_VALUE_PEAK ? v->peak : f == SP_VALUE_COUNT ? v->count : v->value;
}

/* The objects in p's order, and the input files. */
static void copy_objects(struct sp_profile *t, const struct sp_profile *p)
{
	size_t i;

	for (i = 0; i < p->ninputs; i++) {
		struct sp_input *in = sp_profile_add_input(t, p->inputs[i].path, NULL);
		const char *path = in->path;

		*in = p->inputs[i];
		in->path = path;
		in->format = p->inputs[i].format ? sp_profile_intern(t, p->inputs[i].format) : NULL;
	}

	for (i = 0; i < p->nobjects; i++) {
		uint32_t k = sp_profile_findnew_object(t, p->objects[i].path);

		t->objects[k].is_main = p->objects[i].is_main;
	}
}

/* by_frame: frame i of the tree is frame i of p (IgProf's frames name an
 * object and an offset in it, no mapping). */
static void copy_frames(struct sp_profile *t, const struct sp_profile *p)
{
	size_t i;

	for (i = 0; i < p->nframes; i++) {
		struct sp_frame f = p->frames[i];

		f.map = SP_NONE;
		f.name = f.name ? sp_profile_intern(t, f.name) : NULL;
		sp_profile_add_frame(t, &f);
	}
}

/* Frame i of the tree is function i of ff. */
static void copy_functions(struct sp_profile *t, const struct sp_profile *p,
			   const struct sp_frame_funcs *ff)
{
	size_t i;

	for (i = 0; i < ff->funcs->len; i++) {
		struct sp_frame f;

		memset(&f, 0, sizeof(f));
		f.map = SP_NONE;
		f.object = ff->object[i] < p->nobjects ? ff->object[i] : SP_NONE;
		f.name = sp_profile_intern(t, ff->funcs->syms[i].name);
		f.flags = SP_FRAME_NAMED;
		sp_profile_add_frame(t, &f);
	}
}

#define FOLDED 0x80000000u /* in a node map: a folded node (index into folds) */

/* The builder: the tree, and the folded nodes (an allocation function
 * under a caller: igprof-analyse first merges equal paths, adding their
 * values up, and only then folds them into the caller, with max for a MAX
 * counter). */
struct igb {
	struct sp_profile *t;
	uint32_t *fold_up; /* per fold: the caller's tree node */
	uint32_t *fold_fn;
	size_t nfolds, folds_alloc, fn_alloc;
	struct sp_pairmap fold_index; /* (caller, function) -> fold */
	int64_t *val, *cnt;	      /* per tree node, then per fold */
	uint8_t *has;
};

static void fold_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct igb *b = ctx;

	*k1 = b->fold_up[i];
	*k2 = b->fold_fn[i];
}

static uint32_t fold_for(struct igb *b, uint32_t up, uint32_t fn)
{
	uint32_t i;

	SP_ALLOC_GROW(b->fold_up, b->nfolds + 1, b->folds_alloc);
	SP_ALLOC_GROW(b->fold_fn, b->nfolds + 1, b->fn_alloc);
	b->fold_up[b->nfolds] = up;
	b->fold_fn[b->nfolds] = fn;
	i = sp_pairmap_put(&b->fold_index, up, fn, (uint32_t)b->nfolds);
	if (i == b->nfolds)
		b->nfolds++;
	return i;
}

/* Node map: CCT node -> tree node, FOLDED | fold, or SP_NONE (dropped). */
static uint32_t *map_nodes(struct igb *b, const struct sp_profile *p,
			   const struct sp_frame_funcs *ff, const struct sp_igtree_opts *o,
			   uint8_t *drop_self)
{
	uint32_t *map = sp_xmalloc((p->nnodes + 1) * sizeof(*map));
	size_t i;

	sp_profile_cct_root(b->t);
	map[0] = 0;
	for (i = 1; i < p->nnodes; i++) {
		const struct sp_cct_node *n = &p->nodes[i];
		uint32_t up = n->parent < i ? map[n->parent] : SP_NONE, fn;
		uint32_t first = ff->first[n->frame], last = ff->first[n->frame + 1];

		drop_self[i] = 0;
		if (up == SP_NONE || (up & FOLDED)) {
			map[i] = SP_NONE; /* under a dropped or folded node */
			continue;
		}
		map[i] = up;
		if (first == last)
			continue; /* a transparent frame */
		fn = ff->list[last - 1];
		switch (fate_of(o, ff, p, fn)) {
		case MERGE_UP:
			drop_self[i] = 1;
			break;
		case FOLD_UP:
			map[i] = FOLDED | fold_for(b, up, fn);
			break;
		case DROP:
			map[i] = SP_NONE;
			break;
		default:
			map[i] = sp_profile_cct_child(b->t, up, o->by_frame ? n->frame : fn);
			break;
		}
	}
	return map;
}

/* Where node's values go: a tree node, or nt + fold; SP_NONE: nowhere. */
static uint32_t target(const struct igb *b, const uint32_t *map, const uint8_t *drop_self,
		       uint32_t node)
{
	uint32_t m = map[node];

	if (m == SP_NONE || drop_self[node])
		return SP_NONE;
	return m & FOLDED ? (uint32_t)b->t->nnodes + (m & ~FOLDED) : m;
}

/* The folds' sums into their callers: added, or the largest (MAX). */
static void apply_folds(struct igb *b, int max)
{
	size_t i, nt = b->t->nnodes;

	for (i = 0; i < b->nfolds; i++) {
		uint32_t up = b->fold_up[i];
		int64_t x = b->val[nt + i];

		if (!b->has[nt + i])
			continue;
		if (!max)
			b->val[up] += x;
		else if (!b->has[up] || x > b->val[up])
			b->val[up] = x;
		b->cnt[up] += b->cnt[nt + i];
		b->has[up] = 1;
	}
}

static void add_values(struct igb *b, const struct sp_profile *p, const struct sp_igtree_opts *o,
		       const uint32_t *map, const uint8_t *drop_self)
{
	size_t i, n = b->t->nnodes + b->nfolds + 1;

	b->val = sp_xcalloc(n, sizeof(*b->val));
	b->cnt = sp_xcalloc(n, sizeof(*b->cnt));
	b->has = sp_xcalloc(n, 1);
	for (i = 0; i < p->nvalues; i++) {
		const struct sp_cct_value *v = &p->values[i];
		uint32_t to;

		if (v->counter != o->counter || v->node >= p->nnodes)
			continue;
		to = target(b, map, drop_self, v->node);
		if (to == SP_NONE)
			continue;
		b->val[to] += pick(v, o->field); /* equal paths add up, as igprof reads them */
		b->cnt[to] += v->count;
		b->has[to] = 1;
	}
	apply_folds(b, p->counters[o->counter].kind == SP_COUNTER_MAX);
	for (i = 0; i < b->t->nnodes; i++)
		if (b->has[i])
			sp_profile_add_value(b->t, (uint32_t)i, 0, b->cnt[i], b->val[i], b->val[i]);
}

struct sp_profile *sp_igtree_build(const struct sp_profile *p, const struct sp_frame_funcs *ff,
				   const struct sp_igtree_opts *o)
{
	const struct sp_counter *c = &p->counters[o->counter];
	uint8_t *drop_self = sp_xcalloc(p->nnodes + 1, 1);
	struct sp_counter k = *c;
	struct igb b;
	uint32_t *map;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.t = sp_profile_new(p->kind);
	sp_pairmap_init(&b.fold_index, fold_key, &b);
	copy_objects(b.t, p);
	if (o->by_frame)
		copy_frames(b.t, p);
	else
		copy_functions(b.t, p, ff);
	k.name = sp_profile_intern(b.t, c->name);
	sp_profile_add_counter(b.t, &k);
	b.t->igprof = p->igprof;
	b.t->igprof.program = p->igprof.program ? sp_profile_intern(b.t, p->igprof.program) : NULL;
	map = map_nodes(&b, p, ff, o, drop_self);
	add_values(&b, p, o, map, drop_self);
	for (i = 0; i < p->nleaks; i++) {
		uint32_t to = p->leaks[i].node < p->nnodes
				      ? target(&b, map, drop_self, p->leaks[i].node)
				      : SP_NONE;

		if (to != SP_NONE && to >= b.t->nnodes)
			to = b.fold_up[to - b.t->nnodes];
		if (to != SP_NONE)
			sp_profile_add_leak(b.t, to, p->leaks[i].addr, p->leaks[i].size);
	}
	free(b.val);
	free(b.cnt);
	free(b.has);
	free(b.fold_up);
	free(b.fold_fn);
	sp_pairmap_release(&b.fold_index);
	free(map);
	free(drop_self);
	return b.t;
}
