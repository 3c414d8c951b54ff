/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The call graph of a gmon.out profile, computed exactly as GNU gprof 2.40
 * computes it (gprof.md section 4), so that every printed digit agrees:
 *
 *  1. tally: each arc record (from_pc, self_pc, count) is looked up in the
 *     symbol table; records with an unknown end are dropped; with -l the
 *     callee is moved back to its function symbol; -k/-q arc specs filter;
 *     the callee's call count grows and the arc is added or incremented.
 *  2. histogram: each bin's count is credited to the symbols its address
 *     range overlaps, in proportion to the overlap (hist_scale is
 *     fractional while bin bounds are truncated, hence gprof's >100%).
 *  3. assemble (cycles.c): self-recursive calls are split off, nodes are
 *     numbered depth first and cycles found, print flags and propagation
 *     fractions flow from callers down, time flows from callees up, and the
 *     nodes are ranked by total time.
 */
#include "symprof/cg.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"
#include "internal.h"

static void assign_gprof(struct sp_cg *cg, const struct sp_profile *p,
			 const struct sp_cg_gmon_opts *o);

#define UNIT 2

static uint32_t node_of(const struct sp_cg *cg, const struct sp_symbol *s)
{
	return (uint32_t)(s - cg->symtab->syms);
}

/*
 * Adding arcs without a hash index: while each parent's records come in
 * one run (gmon.out lists them by call site, so by caller), an arc to
 * `child` from the current parent exists iff seen[child] is the current
 * run, and is arc_of[child]. A parent that comes back after another ends
 * that, and the rest goes through sp_cg_arc_add() and its index, which
 * gives the same arcs in the same order.
 */
struct tally {
	uint32_t *parent_run; /* per node: its run as a parent, 0 none yet */
	uint32_t *seen;	      /* per node: the run of its last arc as a child */
	uint32_t *arc_of;     /* per node: that arc */
	uint32_t parent, run;
	int runs; /* the parents' runs are still distinct */
};

static void tally_arc(struct sp_cg *cg, struct tally *y, uint32_t parent, uint32_t child,
		      uint64_t count)
{
	if (y->runs && parent != y->parent) {
		if (y->parent_run[parent]) {
			y->runs = 0;
		} else {
			y->parent = parent;
			y->parent_run[parent] = ++y->run;
		}
	}
	if (!y->runs) {
		sp_cg_arc_add(cg, parent, child, count);
	} else if (y->seen[child] == y->run) {
		cg->arcs[y->arc_of[child]].count += count;
	} else {
		y->seen[child] = y->run;
		y->arc_of[child] = sp_cg_arc_append(cg, parent, child, count);
	}
}

/* gprof's cg_tally() for every summed record. */
static void tally_arcs(struct sp_cg *cg, const struct sp_profile *p,
		       const struct sp_cg_gmon_opts *o)
{
	const struct sp_symtab *t = cg->symtab;
	/* -k and -q arc specs: without any, every arc is kept */
	int filter =
		sp_symspecs_len(o->specs, SP_INCL_ARCS) || sp_symspecs_len(o->specs, SP_EXCL_ARCS);
	FILE *dbg = (o->debug.mask & SP_DBG_TALLY) ? o->debug.out : NULL;
	struct tally y;
	size_t i, hint = 0;
	uint32_t pn, cn;

	memset(&y, 0, sizeof(y));
	y.parent_run = sp_cg_scratch(cg, 3 * (t->len + 1) * sizeof(uint32_t));
	memset(y.parent_run, 0, 3 * (t->len + 1) * sizeof(uint32_t));
	y.seen = y.parent_run + t->len + 1;
	y.arc_of = y.seen + t->len + 1;
	y.parent = SP_CG_NONE;
	y.runs = 1;
	sp_cg_arc_reserve(cg, p->npcarcs);
	for (i = 0; i < p->npcarcs; i++) {
		const struct sp_pcarc *a = &p->pcarcs[i];
		/* gmon.out lists arcs by call site: mostly from the same caller */
		const struct sp_symbol *parent = sp_symtab_lookup_near(t, a->from_pc, &hint);
		const struct sp_symbol *child = sp_symtab_lookup(t, a->self_pc);

		if (!parent || !child)
			continue;
		while (!child->is_func && child > t->syms)
			child--;
		if (!child->is_func || (filter && !sp_symspecs_keeps_arc(o->specs, parent, child)))
			continue;
		pn = sp_cg_origin(cg, node_of(cg, parent));
		cn = sp_cg_origin(cg, node_of(cg, child));
		cg->nodes[cn].ncalls += a->count;
		if (dbg)
			fprintf(dbg, "[cg_tally] arc from %s to %s traversed %llu times\n",
				parent->name, child->name, (unsigned long long)a->count);
		tally_arc(cg, &y, pn, cn, a->count);
	}
}

/* The symbols' addresses in the histogram's units; gprof reads one symbol
 * past the end, ours is a zeroed sentinel. */
static void scaled_addrs(const struct sp_symtab *t, uint64_t *scaled)
{
	size_t i;

	for (i = 0; i < t->len; i++)
		scaled[i] = t->syms[i].addr / UNIT;
	scaled[t->len] = 0;
}

/* gprof's hist_assign_samples_1() for one histogram; with `used`, the
 * symbols credited are marked there instead (cg is NULL then). */
static void assign_samples(struct sp_cg *cg, const struct sp_symtab *t, double scale,
			   const struct sp_cg_gmon_opts *o, const struct sp_hist *h,
			   const uint64_t *scaled, uint8_t *used)
{
	uint64_t lowpc = h->low_pc / UNIT;
	uint32_t i, j, k;
	size_t x;
	FILE *dbg = used ? NULL : (o->debug.mask & SP_DBG_SAMPLE) ? o->debug.out : NULL;

	/* gprof walks every bin; the empty ones change nothing */
	for (x = 0, k = 1; x < h->nnonzero; ++x) {
		uint32_t bin_count = h->counts[x];
		uint64_t bin_low, bin_high;
		double count_time;

		if (!bin_count)
			continue;
		i = h->nonzero[x];
		bin_low = lowpc + (uint64_t)(scale * i);
		bin_high = lowpc + (uint64_t)(scale * (i + 1));
		count_time = bin_count;
		if (dbg)
			fprintf(dbg,
				"[assign_samples] bin_low_pc=0x%llx, bin_high_pc=0x%llx, "
				"bin_count=%u\n",
				(unsigned long long)(UNIT * bin_low),
				(unsigned long long)(UNIT * bin_high), bin_count);
		if (cg)
			cg->total_time += count_time;
		for (j = k - 1; j < t->len; k = ++j) {
			uint64_t sym_low = scaled[j], sym_high = scaled[j + 1], overlap;

			if (bin_high < sym_low)
				break;
			if (bin_low >= sym_high)
				continue;
			overlap = (bin_high < sym_high ? bin_high : sym_high) -
				  (bin_low > sym_low ? bin_low : sym_low);
			if (overlap > 0 && used) {
				used[j] = 1;
			} else if (overlap > 0) {
				double credit = (double)overlap * count_time / scale;

				if (dbg)
					fprintf(dbg,
						"[assign_samples] [0x%llx,0x%llx) %s gets %f ticks "
						"%ld overlap\n",
						(unsigned long long)t->syms[j].addr,
						(unsigned long long)(UNIT * sym_high),
						t->syms[j].name, credit, (long)overlap);
				if (sp_symspecs_selects(o->specs, SP_INCL_FLAT, t->syms[j].addr))
					cg->nodes[j].time += credit;
				else
					cg->total_time -= credit;
			}
		}
	}
}

/*
 * --precise: each bin covers exactly (high - low) / nbins bytes and gives
 * each symbol the fraction of its count that the symbol's bytes cover, so
 * the credits add up to the count; what falls on no symbol (padding,
 * code without a symbol, bytes past a symbol's size) is counted apart.
 */
static void assign_exact(struct sp_cg *cg, const struct sp_cg_gmon_opts *o, const struct sp_hist *h)
{
	const struct sp_symtab *t = cg->symtab;
	double w = (double)(h->high_pc - h->low_pc) / h->nbins;
	size_t j = 0, x;

	for (x = 0; x < h->nnonzero; x++) {
		uint32_t i = h->nonzero[x], count = h->counts[x];
		double bs = (double)h->low_pc + w * i, be = bs + w, left;
		double lo, hi;

		if (!count)
			continue;
		cg->total_time += count;
		left = count;
		if (j >= t->len)
			j = t->len ? t->len - 1 : 0;
		while (j > 0 && (double)t->syms[j].addr > bs)
			j--;
		for (; j < t->len && (double)t->syms[j].addr < be; j++) {
			double ss = (double)t->syms[j].addr, se = (double)t->syms[j].end_addr + 1;

			/* a function keeps its whole range under -l; its lines take over */
			if (j + 1 < t->len && (double)t->syms[j + 1].addr < se)
				se = (double)t->syms[j + 1].addr;
			double credit;

			lo = ss > bs ? ss : bs;
			hi = se < be ? se : be;
			if (hi <= lo)
				continue;
			credit = count * (hi - lo) / w;
			left -= credit;
			if (cg->nodes[j].flat_print)
				cg->nodes[sp_cg_origin(cg, (uint32_t)j)].time += credit;
			else
				cg->total_time -= credit;
			if (se > be)
				break;
		}
		cg->unattributed += left > 1e-9 ? left : 0;
	}
}

void sp_cg_dropped_count(const struct sp_symtab *t, const uint8_t *used, struct sp_cg_dropped *d)
{
	/* per name rank: its class (1 plain, 2 '_', 0 no symbol), the dropped
	 * symbols of that rank, then those ranked before the rank */
	uint32_t *rank = sp_symtab_name_ranks(t), *count, *base, acc = 0;
	uint8_t *cls;
	size_t i, k = 0;
	int c;

	memset(d, 0, sizeof(*d));
	count = sp_xcalloc(t->len + 1, sizeof(*count));
	base = sp_xcalloc(t->len + 1, sizeof(*base));
	cls = sp_xcalloc(t->len + 1, 1);
	for (i = 0; i < t->len; i++) {
		const char *name = t->syms[i].name;

		cls[rank[i]] = name && name[0] == '_' ? 2 : 1;
		if (!used[i]) {
			count[rank[i]]++;
			d->plain += cls[rank[i]] == 1;
		}
	}
	for (c = 1; c <= 2; c++)
		for (i = 0; i < t->len; i++)
			if (cls[i] == c) {
				base[i] = acc;
				acc += count[i];
			}
	/* then in table order: those of the same rank before each kept one */
	memset(count, 0, (t->len + 1) * sizeof(*count));
	d->before = sp_xreallocarray(NULL, t->len + 1, sizeof(*d->before));
	for (i = 0; i < t->len; i++) {
		if (used[i])
			d->before[k++] = base[rank[i]] + count[rank[i]];
		else
			count[rank[i]]++;
	}
	free(cls);
	free(base);
	free(count);
	free(rank);
}

void sp_cg_dropped_release(struct sp_cg_dropped *d)
{
	free(d->before);
	d->before = NULL;
}

static void assign_all_samples(struct sp_cg *cg, const struct sp_profile *p,
			       const struct sp_cg_gmon_opts *o)
{
	if (o->precise) {
		size_t i;

		for (i = 0; i < p->nhists; i++)
			assign_exact(cg, o, &p->hists[i]);
		return;
	}
	assign_gprof(cg, p, o);
}

static void assign_gprof(struct sp_cg *cg, const struct sp_profile *p,
			 const struct sp_cg_gmon_opts *o)
{
	const struct sp_symtab *t = cg->symtab;
	uint64_t *scaled = sp_cg_scratch(cg, (t->len + 1) * sizeof(*scaled));
	size_t i;

	scaled_addrs(t, scaled);
	for (i = 0; i < p->nhists; i++)
		assign_samples(cg, t, cg->hist_scale, o, &p->hists[i], scaled, NULL);
}

/*
 * Which symbols the graph of a -l profile can see. gprof gives each bin's
 * count to the symbols whose range [addr, next symbol's addr) overlaps the
 * bin, looks each arc's ends up as the last symbol at or below them (then
 * checks the range) and the callee's function by walking back, and hangs
 * basic blocks on the symbol holding them. A line symbol none of that
 * reaches has no time, no calls and no arcs: it is printed nowhere but
 * takes a node and a place in the sorts, and -l makes one per line of
 * the program. The table compacted to the symbols marked here gives the
 * same credits (a symbol's longer range only covers bins that credited
 * nothing), the same lookups (the same last symbol at or below, the same
 * range check) and the same walks (every function is kept), and so the
 * same graph: but for the call graph's numbers of empty nodes, which
 * sp_cg_dropped_count() makes up for.
 */
void sp_cg_gmon_mark_used(const struct sp_profile *p, const struct sp_symtab *t,
			  const struct sp_cg_gmon_opts *o, uint8_t *used)
{
	uint64_t *scaled;
	size_t i, k;

	if (!t->len)
		return;
	for (i = 0; i < t->len; i++)
		used[i] = !t->syms[i].is_line;
	/* the first starts the lookups, the last ends the bins' walk */
	used[0] = used[t->len - 1] = 1;
	for (i = 0; i < p->npcarcs; i++) {
		if ((k = sp_symtab_floor(t, p->pcarcs[i].from_pc)) != SIZE_MAX)
			used[k] = 1;
		if ((k = sp_symtab_floor(t, p->pcarcs[i].self_pc)) != SIZE_MAX)
			used[k] = 1;
	}
	for (i = 0; o->line_granularity && i < p->nbbs; i++)
		if ((k = sp_symtab_floor(t, p->bbs[i].addr)) != SIZE_MAX)
			used[k] = 1;
	if (!o->have_hist)
		return;
	scaled = sp_xreallocarray(NULL, t->len + 1, sizeof(*scaled));
	scaled_addrs(t, scaled);
	for (i = 0; i < p->nhists; i++)
		assign_samples(NULL, t, o->hist_scale, o, &p->hists[i], scaled, used);
	free(scaled);
}

void sp_cg_gmon_drop_unused(const struct sp_profile *p, struct sp_symtab *t,
			    struct sp_cg_gmon_opts *o, struct sp_cg_dropped *d)
{
	uint8_t *used;

	if (!t->len)
		return;
	used = sp_xmalloc(t->len);
	sp_cg_gmon_mark_used(p, t, o, used);
	sp_cg_dropped_count(t, used, d);
	sp_symtab_compact(t, used);
	free(used);
	o->dropped = d;
}

/* -l: basic-block counts attach to line symbols, up to NBBS per symbol. */
static void attach_bbs(struct sp_cg *cg, const struct sp_profile *p)
{
	const struct sp_symtab *t = cg->symtab;
	struct sp_cg_bb *tmp = sp_xcalloc(p->nbbs ? p->nbbs : 1, sizeof(*tmp));
	uint32_t *sym_of = sp_xcalloc(p->nbbs ? p->nbbs : 1, sizeof(*sym_of));
	size_t i, n = 0;

	for (i = 0; i < p->nbbs; i++) {
		const struct sp_symbol *s = sp_symtab_lookup(t, p->bbs[i].addr);

		sym_of[i] = SP_CG_NONE;
		/* gprof keeps at most NBBS (10) blocks per symbol */
		if (s && cg->nodes[node_of(cg, s)].nbbs < 10) {
			sym_of[i] = node_of(cg, s);
			cg->nodes[sym_of[i]].nbbs++;
		}
	}
	for (i = 0; i < cg->nsyms; i++) {
		cg->nodes[i].bb_first = (uint32_t)n;
		n += cg->nodes[i].nbbs;
		cg->nodes[i].nbbs = 0;
	}
	for (i = 0; i < p->nbbs; i++) {
		struct sp_cg_node *nd;

		if (sym_of[i] == SP_CG_NONE)
			continue;
		nd = &cg->nodes[sym_of[i]];
		tmp[nd->bb_first + nd->nbbs].addr = p->bbs[i].addr;
		tmp[nd->bb_first + nd->nbbs].count = p->bbs[i].count;
		nd->nbbs++;
	}
	cg->bbs = tmp;
	cg->nbbs = n;
	free(sym_of);
}

struct sp_cg *sp_cg_from_gmon(const struct sp_profile *p, const struct sp_symtab *t,
			      const struct sp_cg_gmon_opts *o, struct sp_error *err)
{
	struct sp_cg *cg = sp_cg_new();
	size_t i;

	(void)err;
	cg->symtab = t;
	cg->nsyms = t->len;
	cg->nnodes = t->len;
	cg->nodes = sp_xcalloc(t->len + 1, sizeof(*cg->nodes));
	for (i = 0; i < t->len; i++) {
		cg->nodes[i].sym = &t->syms[i];
		cg->nodes[i].parents = SP_CG_NONE;
		cg->nodes[i].children = SP_CG_NONE;
		cg->nodes[i].cyc_head = (uint32_t)i;
		cg->nodes[i].cyc_next = SP_CG_NONE;
		cg->nodes[i].flat_print =
			sp_symspecs_selects(o->specs, SP_INCL_FLAT, t->syms[i].addr);
	}
	if (o->fold)
		for (i = 0; i < t->len; i++)
			cg->nodes[i].folded = o->fold[i] != SIZE_MAX;
	cg->precise = o->precise;
	cg->fold = o->fold;
	cg->hz = o->hz;
	cg->hist_scale = o->hist_scale;
	memcpy(cg->dimen, p->hist_dimen, sizeof(cg->dimen));
	cg->dimen_abbrev = p->hist_dimen_abbrev;
	cg->have_hist = o->have_hist;
	cg->have_arcs = o->have_arcs;
	cg->counts_known = 1; /* gmon arcs count calls */
	tally_arcs(cg, p, o);
	if (o->line_granularity && p->nbbs) {
		attach_bbs(cg, p);
		cg->have_bbs = 1;
	}
	if (cg->have_hist)
		assign_all_samples(cg, p, o);
	if (cg->have_arcs)
		sp_cg_assemble(cg, o);
	return cg;
}
