/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's call graph (cg_print.c; gprof.md 2.2): one entry per printed node
 * in rank order; callers above the primary line sorted by time ascending,
 * callees below descending; cycles as a whole with their members; the BSD
 * layout (-T) with its wider "descendants" column and blank lines.
 *
 * A large graph is formatted on two threads (print_split()): the entries
 * are independent, each sorting only its own lists, so a worker formats
 * the second half into memory while the main thread prints the first.
 */
#include "symprof/report.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "blurbs.h"
#include "fmt.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/symbolize.h"

static void print_granularity(struct sp_report *r, double *print_time)
{
	const struct sp_cg *cg = r->cg;
	FILE *out = sp_report_out(r);

	if (cg->stack_based)
		fprintf(out, "\ngranularity: each sample counts as %g %s", 1.0 / cg->hz, cg->dimen);
	else if (cg->precise)
		fprintf(out, "\ngranularity: each sample hit covers %.2f byte(s)",
			cg->hist_scale * 2);
	else
		fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)",
			(long)cg->hist_scale * 2L);
	if (*print_time > 0.0) {
		fprintf(out, " for %.2f%% of %.2f seconds\n\n", 100.0 / *print_time,
			*print_time / cg->hz);
	} else {
		fputs(" no time propagated\n\n", out);
		*print_time = 1.0;
	}
}

static void print_header(struct sp_report *r, double *print_time)
{
	const struct sp_cg *cg = r->cg;
	FILE *out = sp_report_out(r);

	if (r->first_output)
		r->first_output = 0;
	else
		fputs("\f\n", out);
	if (!r->o->bsd)
		fputs(r->o->brief ? "\t\t\tCall graph\n\n"
				  : "\t\t     Call graph (explanation follows)\n\n",
		      out);
	if (cg->cost_note) {
		fprintf(out, "\n%s Total %.0f %s.\n\n", cg->cost_note, *print_time / cg->hz,
			cg->dimen);
		if (*print_time <= 0.0)
			*print_time = 1.0;
	} else {
		print_granularity(r, print_time);
	}
	if (r->o->bsd) {
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "",
			"called", "total", "parents");
		fprintf(out, "%-6.6s %5.5s %7.7s %11.11s %7.7s+%-7.7s %-8.8s\t%5.5s\n", "index",
			"%time", "self", "descendants", "called", "self", "name", "index");
		fprintf(out, "%6.6s %5.5s %7.7s %11.11s %7.7s/%-7.7s     %-8.8s\n", "", "", "", "",
			"called", "total", "children");
		fputc('\n', out);
	} else {
		fputs("index % time    self  children    called     name\n", out);
	}
}

/*
 * The lines below are written with the field writers of fmt.h into room
 * reserved once per line (LINE_ROOM plus the name): the name's text is
 * cached per node, so a line is a few stores and one copy.
 */
#define LINE_ROOM (8 * (size_t)SP_FMT_NUM_MAX)

/* sp_report_name_text(), with the usual case (text made) inline. */
static inline const char *name_text(struct sp_report *r, unsigned node, size_t *len)
{
	const struct sp_cg_node *n = &r->cg->nodes[node];

	if (node < r->nfull &&
	    sp_report_full_name_fresh(&r->full[node], n->index, n->cycle, n->print_flag)) {
		*len = r->full[node].len;
		return r->names.buf + r->full[node].off;
	}
	return sp_report_name_text(r, node, len);
}

/* "+%-7lu" (trailing space optional), or " %7.7s" of "" */
static char *at_self_calls(char *p, uint64_t self_calls, int trailing_space)
{
	if (self_calls != 0) {
		*p++ = '+';
		p = sp_fmt_at_ulong_left(p, self_calls, 7);
	} else {
		p = sp_fmt_at_spaces(p, 8);
	}
	if (trailing_space)
		*p++ = ' ';
	return p;
}

/* "%-6.6s" of "[N]" (a longer index is cut, as gprof's precision does) */
static char *at_index_field(char *p, int index)
{
	char tmp[32];
	int n;

	if (index >= 0 && index < 10000) {
		n = index < 10 ? 1 : index < 100 ? 2 : index < 1000 ? 3 : 4;
		sp_fmt_spaces16(p);
		p[0] = '[';
		sp_fmt_digits_back(p + 1 + n, (uint64_t)index);
		p[1 + n] = ']';
		return p + 6;
	}
	if (index >= 0) {
		tmp[0] = '[';
		n = (int)sp_fmt_utoa(tmp + 1, (unsigned long long)index) + 1;
		tmp[n++] = ']';
	} else {
		n = snprintf(tmp, sizeof(tmp), "[%d]", index);
	}
	if (n > 6)
		n = 6;
	return sp_fmt_at_text(p, tmp, (size_t)n, 6, 1);
}

/* the " %5.1f %7.2f %7.2f" (BSD: %11.2f) columns */
static char *at_times(const struct sp_report *r, char *p, double pct, double self, double child)
{
	*p++ = ' ';
	p = sp_fmt_at_fixed(p, pct, 5, 1);
	*p++ = ' ';
	p = sp_fmt_at_fixed(p, self, 7, 2);
	*p++ = ' ';
	return sp_fmt_at_fixed(p, child, r->o->bsd ? 11 : 7, 2);
}

/* sp_report_end_line(), but a worker's report (out NULL, see
 * print_split()) keeps everything in its line buffer. */
static inline void end_line(struct sp_report *r)
{
	if (r->out)
		sp_report_end_line(r);
}

/* The name of `node`, a newline, and the end of the line begun at `p`'s
 * reservation (the name is looked up before the line is reserved). */
static void end_named_line(struct sp_report *r, char *p, const char *name, size_t len)
{
	memcpy(p, name, len);
	p += len;
	*p++ = '\n';
	sp_fmt_line_end(&r->line, p);
	end_line(r);
}

static void print_cycle(struct sp_report *r, unsigned c, double print_time)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[c];
	struct sp_buf *b = &r->line;
	char *p = sp_fmt_line_begin(b, LINE_ROOM);

	p = at_index_field(p, n->index);
	p = at_times(r, p, 100 * (n->prop_self + n->prop_child) / print_time, n->prop_self / cg->hz,
		     n->prop_child / cg->hz);
	*p++ = ' ';
	p = sp_fmt_at_ulong(p, n->ncalls, 7);
	p = at_self_calls(p, n->self_calls, 0);
	sp_fmt_line_end(b, p);
	sp_buf_addstr(b, " <cycle ");
	sp_fmt_put_long(b, n->cycle);
	sp_buf_addstr(b, " as a whole> [");
	sp_fmt_put_long(b, n->index);
	sp_buf_addstr(b, "]\n");
	end_line(r);
}

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

/* gprof's sort_members() (it relinks the cycle's member list). */
static void sort_members(struct sp_cg *cg, unsigned cyc)
{
	struct sp_cg_node *N = cg->nodes;
	uint32_t todo = N[cyc].cyc_next, doing;

	N[cyc].cyc_next = SP_CG_NONE;
	for (doing = todo; doing != SP_CG_NONE; doing = todo) {
		uint32_t prev = cyc;

		todo = N[doing].cyc_next;
		while (N[prev].cyc_next != SP_CG_NONE && !member_greater(&N[doing], &N[N[prev].cyc_next]))
			prev = N[prev].cyc_next;
		N[doing].cyc_next = N[prev].cyc_next;
		N[prev].cyc_next = doing;
	}
}

static void print_members(struct sp_report *r, unsigned cyc)
{
	struct sp_cg *cg = r->cg;
	uint32_t m;

	sort_members(cg, cyc);
	for (m = cg->nodes[cyc].cyc_next; m != SP_CG_NONE; m = cg->nodes[m].cyc_next) {
		const struct sp_cg_node *n = &cg->nodes[m];
		size_t len;
		const char *name = name_text(r, m, &len);
		char *p = sp_fmt_line_begin(&r->line, LINE_ROOM + len);

		p = sp_fmt_at_spaces(p, 6 + 1 + 5 + 1);
		p = sp_fmt_at_fixed(p, n->prop_self / cg->hz, 7, 2);
		*p++ = ' ';
		p = sp_fmt_at_fixed(p, n->prop_child / cg->hz, r->o->bsd ? 11 : 7, 2);
		*p++ = ' ';
		p = sp_fmt_at_ulong(p, n->ncalls, 7);
		p = at_self_calls(p, n->self_calls, 0);
		p = sp_fmt_at_spaces(p, 5);
		end_named_line(r, p, name, len);
	}
}

/* An arc line: count only for recursion and calls inside a cycle. When
 * the profile has no call counts (sampling), the count fields are blank.
 * Inlined into both loops (a call per arc line was a tenth of its cost). */
static inline __attribute__((always_inline)) void
print_arc(struct sp_report *r, const struct sp_cg_arc *a, int count_only, uint64_t total,
	  unsigned name_node)
{
	const struct sp_cg *cg = r->cg;
	int wide = r->o->bsd ? 11 : 7;
	size_t len;
	const char *name = name_text(r, name_node, &len);
	char *p = sp_fmt_line_begin(&r->line, LINE_ROOM + len);

	p = sp_fmt_at_spaces(p, 6 + 1 + 5 + 1);
	if (count_only) {
		p = sp_fmt_at_spaces(p, (size_t)wide + 1 + 7 + 1);
		p = cg->counts_known ? sp_fmt_at_ulong(p, a->count, 7) : sp_fmt_at_spaces(p, 7);
		p = sp_fmt_at_spaces(p, 1 + 7);
	} else {
		p = sp_fmt_at_fixed(p, a->time / cg->hz, 7, 2);
		*p++ = ' ';
		p = sp_fmt_at_fixed(p, a->child_time / cg->hz, wide, 2);
		*p++ = ' ';
		if (cg->counts_known) {
			p = sp_fmt_at_ulong(p, a->count, 7);
			*p++ = '/';
			p = sp_fmt_at_ulong_left(p, total, 7);
		} else {
			p = sp_fmt_at_spaces(p, 7 + 1 + 7);
		}
	}
	p = sp_fmt_at_spaces(p, 5);
	end_named_line(r, p, name, len);
}

static void print_parents(struct sp_report *r, unsigned child)
{
	struct sp_cg *cg = r->cg;
	const struct sp_cg_node *c = &cg->nodes[child];
	uint32_t head = c->cyc_head, a;

	if (c->parents == SP_CG_NONE) {
		/* into the line buffer: a report without a FILE has only that */
		sp_buf_addf(&r->line,
			    r->o->bsd ? "%6.6s %5.5s %7.7s %11.11s %7.7s %7.7s     <spontaneous>\n"
				      : "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n",
			    "", "", "", "", "", "");
		end_line(r);
		return;
	}
	sp_cg_sort_parents(cg, child);
	for (a = cg->nodes[child].parents; a != SP_CG_NONE; a = cg->arcs[a].next_parent) {
		uint32_t p = cg->arcs[a].parent;
		int inner = child == p || (c->cycle != 0 && cg->nodes[p].cycle == c->cycle);

		print_arc(r, &cg->arcs[a], inner, cg->nodes[head].ncalls, p);
	}
}

static void print_children(struct sp_report *r, unsigned parent)
{
	struct sp_cg *cg = r->cg;
	const struct sp_cg_node *p = &cg->nodes[parent];
	uint32_t a;

	sp_cg_sort_children(cg, parent);
	for (a = cg->nodes[parent].children; a != SP_CG_NONE; a = cg->arcs[a].next_child) {
		uint32_t c = cg->arcs[a].child;
		int inner = c == parent || (cg->nodes[c].cycle != 0 && cg->nodes[c].cycle == p->cycle);

		print_arc(r, &cg->arcs[a], inner, cg->nodes[cg->nodes[c].cyc_head].ncalls, c);
	}
}

static void print_primary(struct sp_report *r, unsigned node, double print_time)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[node];
	size_t len;
	const char *name = name_text(r, node, &len);
	char *p = sp_fmt_line_begin(&r->line, LINE_ROOM + len);

	p = at_index_field(p, n->index);
	p = at_times(r, p, 100 * (n->prop_self + n->prop_child) / print_time,
		     n->prop_self / cg->hz, n->prop_child / cg->hz);
	if (n->ncalls + n->self_calls != 0) {
		*p++ = ' ';
		p = sp_fmt_at_ulong(p, n->ncalls, 7);
		p = at_self_calls(p, n->self_calls, 1);
	} else {
		p = sp_fmt_at_spaces(p, 1 + 7 + 1 + 7 + 1);
	}
	end_named_line(r, p, name, len);
}

static int skipped(const struct sp_report *r, const struct sp_cg_node *n)
{
	if (n->folded)
		return 1;
	if (r->o->ignore_zeros && n->ncalls == 0 && n->self_calls == 0 && n->prop_self == 0 &&
	    n->prop_child == 0)
		return 1;
	if (!n->print_flag)
		return 1;
	return r->o->line_granularity && !(n->sym && n->sym->is_func);
}

/* One entry: a cycle as a whole with its members, or a function with its
 * callers and callees; then the separator. */
static void print_entry(struct sp_report *r, unsigned node, double print_time)
{
	const struct sp_cg_node *n = &r->cg->nodes[node];

	if (!n->sym && n->cycle != 0) {
		print_cycle(r, node, print_time);
		print_members(r, node);
	} else {
		print_parents(r, node);
		print_primary(r, node, print_time);
		print_children(r, node);
	}
	if (r->o->bsd)
		sp_buf_addch(&r->line, '\n');
	sp_buf_addstr(&r->line, "-----------------------------------------------\n");
	if (r->o->bsd)
		sp_buf_addch(&r->line, '\n');
	end_line(r);
}

/* ---- the entries on two threads ---- */

/*
 * Entries are independent: each sorts only its own lists (the arcs into
 * its node by next_parent, the arcs out of it by next_child, a cycle's
 * members by cyc_next), which no other entry reads, and every node is
 * printed once. What entries share is the name cache, which fills lazily
 * and may move: fill_names() fills it for every name the graph may print
 * before the worker starts, so that both threads only read it (the arcs
 * and nodes the other thread relinks are other fields than they read).
 */
struct graph_part {
	struct sp_report r;   /* the worker's: out NULL, its own line buffer */
	const uint32_t *nodes;
	size_t n;
	size_t bytes;         /* about what it prints */
	double print_time;
};

#define HUGE_PAGE ((size_t)2 << 20)

/*
 * The worker's buffer, for about `size` bytes: megabytes written once, so
 * pages touched for the first time. A fault per 4 KiB page cost as much as
 * formatting the lines (1.2 ms of 2.7 MB); on 2 MiB-aligned memory advised
 * to use huge pages it is a fault per 2 MiB. Elsewhere, a plain buffer.
 * The memory is malloc's (posix_memalign), which sp_buf may realloc and
 * free; taking it is the one place an sp_buf's fields are set by hand.
 */
static void part_buf_init(struct sp_buf *b, size_t size)
{
	void *p = NULL;

	size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
#ifdef MADV_HUGEPAGE
	if (posix_memalign(&p, HUGE_PAGE, size) == 0) {
		(void)madvise(p, size, MADV_HUGEPAGE);
		b->buf = p;
		b->alloc = size;
		b->len = 0;
		b->buf[0] = '\0';
		return;
	}
#endif
	(void)p;
	sp_buf_init(b, size);
}

static void *print_part(void *arg)
{
	struct graph_part *w = arg;
	size_t i;

	/* allocated here: mapping it is off the main thread's path too */
	part_buf_init(&w->r.line, w->bytes);
	for (i = 0; i < w->n; i++)
		print_entry(&w->r, w->nodes[i], w->print_time);
	return NULL;
}

/*
 * Fills the name of every node the graph prints, so that the worker only
 * reads the cache: the printed entries, their cycles' members, and the
 * other end of each arc of a printed entry (a caller or callee line). One
 * pass over the arcs and one over the nodes, in memory order, not down each
 * entry's lists. With -l most nodes are lines that are never printed (their
 * names, with file, line and address, are the costly ones), so the test is
 * what the entries print, not which nodes have arcs.
 */
static void fill_names(struct sp_report *r)
{
	const struct sp_cg *cg = r->cg;
	size_t i, len;

	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->child < cg->nnodes && !skipped(r, &cg->nodes[a->child]))
			name_text(r, a->parent, &len);
		if (a->parent < cg->nnodes && !skipped(r, &cg->nodes[a->parent]))
			name_text(r, a->child, &len);
	}
	for (i = 0; i < cg->nnodes; i++) {
		const struct sp_cg_node *n = &cg->nodes[i];

		if (!skipped(r, n) ||
		    (n->cycle != 0 && n->cyc_head < cg->nnodes && !skipped(r, &cg->nodes[n->cyc_head])))
			name_text(r, (unsigned)i, &len);
	}
}

/*
 * The printed entries in order into nodes[], and per node about the lines
 * its entry prints but for 3 (primary line, separator, <spontaneous>)
 * into lines[]: its arcs and members, counted from the arc array in memory
 * order rather than down each list (a pass as cheap as the split needs).
 */
static size_t collect_entries(const struct sp_report *r, uint32_t *nodes, uint32_t *lines)
{
	const struct sp_cg *cg = r->cg;
	size_t i, n = 0;

	memset(lines, 0, cg->nnodes * sizeof(*lines));
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->parent < cg->nnodes)
			lines[a->parent]++;
		if (a->child < cg->nnodes)
			lines[a->child]++;
	}
	for (i = 0; i < cg->nnodes; i++) {
		const struct sp_cg_node *e = &cg->nodes[cg->order[i]];

		if (e->cycle != 0 && e->sym && e->cyc_head < cg->nnodes)
			lines[e->cyc_head]++;
		if (!skipped(r, e))
			nodes[n++] = cg->order[i];
	}
	return n;
}

/*
 * When the entries have at least o->graph_split lines, the worker formats
 * those after the middle line into its own buffer while this thread prints
 * the others, then writes the worker's text after them. Returns 0 (nothing
 * printed) below the threshold.
 */
static int print_split(struct sp_report *r, double print_time)
{
	size_t nn = r->cg->nnodes;
	uint32_t *nodes = sp_xreallocarray(NULL, nn + 1, 2 * sizeof(uint32_t));
	uint32_t *lines = nodes + nn + 1;
	size_t n = collect_entries(r, nodes, lines), i, mid;
	uint64_t total = 0, half;
	struct graph_part w;
	pthread_t t;

	for (i = 0; i < n; i++)
		total += lines[nodes[i]] + 3;
	if (total < r->o->graph_split) {
		free(nodes);
		return 0;
	}
	for (mid = 0, half = 0; mid < n && half < total / 2; mid++)
		half += lines[nodes[mid]] + 3;
	fill_names(r);
	w.r = *r;
	w.r.out = NULL;
	sp_buf_init(&w.r.line, 0);
	/* about 70 bytes a line: the buffer seldom moves */
	w.bytes = (size_t)(total - half) * 72 + 256;
	w.nodes = nodes + mid;
	w.n = n - mid;
	w.print_time = print_time;
	/* without a thread, all of it here as without a split */
	if (w.n == 0 || pthread_create(&t, NULL, print_part, &w) != 0)
		mid = n;
	for (i = 0; i < mid; i++)
		print_entry(r, nodes[i], print_time);
	if (mid < n) {
		pthread_join(t, NULL);
		sp_report_flush_line(r);
		fwrite(w.r.line.buf, 1, w.r.line.len, r->out);
	}
	sp_buf_release(&w.r.line);
	free(nodes);
	return 1;
}

void sp_report_graph(struct sp_report *r)
{
	struct sp_cg *cg = r->cg;
	double print_time = cg->print_time;
	size_t i;

	if (!r->o->brief && r->o->bsd)
		fputs(sp_blurb_graph_bsd, sp_report_out(r));
	print_header(r, &print_time);
	if (!r->o->graph_split || !print_split(r, print_time)) {
		for (i = 0; i < cg->nnodes; i++) {
			unsigned node = cg->order[i];

			if (!skipped(r, &cg->nodes[node]))
				print_entry(r, node, print_time);
		}
	}
	if (!r->o->brief && !r->o->bsd)
		fputs(sp_blurb_graph_gnu, sp_report_out(r));
	sp_report_flush_line(r);
}
