/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's call graph (cg_print.c; gprof.md 2.2): one entry per printed node
 * in rank order; callers above the primary line sorted by time ascending,
 * callees below descending; cycles as a whole with their members; the BSD
 * layout (-T) with its wider "descendants" column and blank lines.
 *
 * The graph is only read: each list is printed from a sorted view that
 * cg/ makes into the report's memory (sp_cg_sorted_parents() ...). A large
 * graph is formatted on two threads (print_split()): the entries are
 * independent, so a worker formats blocks of them into memory while the
 * main thread prints the others.
 */
#include "symprof/report.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "blurbs.h"
#include "num.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"
#include "symprof/worker.h"

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
 * The lines below are written with the field writers of num.h into room
 * reserved once per line (LINE_ROOM plus the name): the name's text is
 * cached per node, so a line is a few stores and one copy.
 */
#define LINE_ROOM (8 * (size_t)SP_NUM_MAX)

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
		p = sp_num_at_ulong_left(p, self_calls, 7);
	} else {
		p = sp_num_at_spaces(p, 8);
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
		sp_num_spaces16(p);
		p[0] = '[';
		sp_num_digits_back(p + 1 + n, (uint64_t)index);
		p[1 + n] = ']';
		return p + 6;
	}
	if (index >= 0) {
		tmp[0] = '[';
		n = (int)sp_num_utoa(tmp + 1, (unsigned long long)index) + 1;
		tmp[n++] = ']';
	} else {
		n = snprintf(tmp, sizeof(tmp), "[%d]", index);
	}
	if (n > 6)
		n = 6;
	return sp_num_at_text(p, tmp, (size_t)n, 6, 1);
}

/* the " %5.1f %7.2f %7.2f" (BSD: %11.2f) columns */
static char *at_times(const struct sp_report *r, char *p, double pct, double self, double child)
{
	*p++ = ' ';
	p = sp_num_at_fixed(p, pct, 5, 1);
	*p++ = ' ';
	p = sp_num_at_fixed(p, self, 7, 2);
	*p++ = ' ';
	return sp_num_at_fixed(p, child, r->o->bsd ? 11 : 7, 2);
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
	sp_num_line_end(&r->line, p);
	end_line(r);
}

static void print_cycle(struct sp_report *r, unsigned c, double print_time)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[c];
	struct sp_buf *b = &r->line;
	char *p = sp_num_line_begin(b, LINE_ROOM);

	p = at_index_field(p, n->index);
	p = at_times(r, p, 100 * (n->prop_self + n->prop_child) / print_time, n->prop_self / cg->hz,
		     n->prop_child / cg->hz);
	*p++ = ' ';
	p = sp_num_at_ulong(p, n->ncalls, 7);
	p = at_self_calls(p, n->self_calls, 0);
	sp_num_line_end(b, p);
	sp_buf_addstr(b, " <cycle ");
	sp_num_put_long(b, n->cycle);
	sp_buf_addstr(b, " as a whole> [");
	sp_num_put_long(b, n->index);
	sp_buf_addstr(b, "]\n");
	end_line(r);
}

/* A cycle's members, in gprof's order (sp_cg_sorted_members()). */
static void print_members(struct sp_report *r, unsigned cyc)
{
	const struct sp_cg *cg = r->cg;
	size_t k, nm;
	const uint32_t *members = sp_cg_sorted_members(cg, cyc, &r->sort_mem, &nm);

	for (k = 0; k < nm; k++) {
		uint32_t m = members[k];
		const struct sp_cg_node *n = &cg->nodes[m];
		size_t len;
		const char *name = name_text(r, m, &len);
		char *p = sp_num_line_begin(&r->line, LINE_ROOM + len);

		p = sp_num_at_spaces(p, 6 + 1 + 5 + 1);
		p = sp_num_at_fixed(p, n->prop_self / cg->hz, 7, 2);
		*p++ = ' ';
		p = sp_num_at_fixed(p, n->prop_child / cg->hz, r->o->bsd ? 11 : 7, 2);
		*p++ = ' ';
		p = sp_num_at_ulong(p, n->ncalls, 7);
		p = at_self_calls(p, n->self_calls, 0);
		p = sp_num_at_spaces(p, 5);
		end_named_line(r, p, name, len);
	}
}

/* An arc line: count only for recursion and calls inside a cycle. When
 * the profile has no call counts (sampling), the count fields are blank.
 * Inlined into both loops (a call per arc line was a tenth of its cost). */
static inline __attribute__((always_inline)) void print_arc(struct sp_report *r,
							    const struct sp_cg_arc *a,
							    int count_only, uint64_t total,
							    unsigned name_node)
{
	const struct sp_cg *cg = r->cg;
	int wide = r->o->bsd ? 11 : 7;
	size_t len;
	const char *name = name_text(r, name_node, &len);
	char *p = sp_num_line_begin(&r->line, LINE_ROOM + len);

	p = sp_num_at_spaces(p, 6 + 1 + 5 + 1);
	if (count_only) {
		p = sp_num_at_spaces(p, (size_t)wide + 1 + 7 + 1);
		p = cg->counts_known ? sp_num_at_ulong(p, a->count, 7) : sp_num_at_spaces(p, 7);
		p = sp_num_at_spaces(p, 1 + 7);
	} else {
		p = sp_num_at_fixed(p, a->time / cg->hz, 7, 2);
		*p++ = ' ';
		p = sp_num_at_fixed(p, a->child_time / cg->hz, wide, 2);
		*p++ = ' ';
		if (cg->counts_known) {
			p = sp_num_at_ulong(p, a->count, 7);
			*p++ = '/';
			p = sp_num_at_ulong_left(p, total, 7);
		} else {
			p = sp_num_at_spaces(p, 7 + 1 + 7);
		}
	}
	p = sp_num_at_spaces(p, 5);
	end_named_line(r, p, name, len);
}

static void print_parents(struct sp_report *r, unsigned child)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *c = &cg->nodes[child];
	uint32_t head = c->cyc_head;
	const uint32_t *arcs;
	size_t k, na;

	if (c->parents == SP_CG_NONE) {
		/* into the line buffer: a report without a FILE has only that */
		sp_buf_addf(&r->line,
			    r->o->bsd ? "%6.6s %5.5s %7.7s %11.11s %7.7s %7.7s     <spontaneous>\n"
				      : "%6.6s %5.5s %7.7s %7.7s %7.7s %7.7s     <spontaneous>\n",
			    "", "", "", "", "", "");
		end_line(r);
		return;
	}
	arcs = sp_cg_sorted_parents(cg, child, &r->sort_mem, &na);
	for (k = 0; k < na; k++) {
		uint32_t a = arcs[k], p = cg->arcs[a].parent;
		int inner = child == p || (c->cycle != 0 && cg->nodes[p].cycle == c->cycle);

		print_arc(r, &cg->arcs[a], inner, cg->nodes[head].ncalls, p);
	}
}

static void print_children(struct sp_report *r, unsigned parent)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *p = &cg->nodes[parent];
	size_t k, na;
	const uint32_t *arcs = sp_cg_sorted_children(cg, parent, &r->sort_mem, &na);

	for (k = 0; k < na; k++) {
		uint32_t a = arcs[k], c = cg->arcs[a].child;
		int inner =
			c == parent || (cg->nodes[c].cycle != 0 && cg->nodes[c].cycle == p->cycle);

		print_arc(r, &cg->arcs[a], inner, cg->nodes[cg->nodes[c].cyc_head].ncalls, c);
	}
}

static void print_primary(struct sp_report *r, unsigned node, double print_time)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[node];
	size_t len;
	const char *name = name_text(r, node, &len);
	char *p = sp_num_line_begin(&r->line, LINE_ROOM + len);

	p = at_index_field(p, n->index);
	p = at_times(r, p, 100 * (n->prop_self + n->prop_child) / print_time, n->prop_self / cg->hz,
		     n->prop_child / cg->hz);
	if (n->ncalls + n->self_calls != 0) {
		*p++ = ' ';
		p = sp_num_at_ulong(p, n->ncalls, 7);
		p = at_self_calls(p, n->self_calls, 1);
	} else {
		p = sp_num_at_spaces(p, 1 + 7 + 1 + 7 + 1);
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
 * Entries are independent: both threads only read the graph, each with
 * its own memory for the sorted views of its lists (struct
 * sp_cg_sort_mem), and every node is printed once. What entries share is
 * the name cache, which fills lazily and may move: fill_names() fills it
 * for every name the graph may print before the worker starts, so that
 * both threads only read it.
 *
 * The entries are cut into blocks of consecutive entries, which the two
 * threads claim in order. The main thread writes the blocks in order: the
 * next one, if nobody has claimed it, straight to the output; one the
 * worker is formatting, after claiming and formatting later blocks into
 * memory while it waits. A block formatted into memory is written as soon
 * as its turn comes and its buffer formats another one, so the text in
 * memory stays a few blocks long: a buffer for the whole second half (2.7
 * MB on a 6,000-function program) cost as much in fresh pages, the
 * kernel zeroing each of them, as the formatting itself.
 */
enum { BLOCK_FREE, BLOCK_CLAIMED, BLOCK_DONE };

/* A block's lines, at most (see cut_blocks()), and a buffer for them. */
enum { BLOCK_LINES = 1024, BLOCK_BYTES = BLOCK_LINES * 80 };

struct graph_block {
	size_t first, end; /* entries [first, end) */
	int state;
	struct sp_buf text; /* when formatted into memory */
};

struct graph_split {
	pthread_mutex_t mu;
	pthread_cond_t done; /* a block was formatted */
	struct graph_block *blocks;
	size_t nblocks, next; /* next: the first block nobody has claimed */
	struct sp_buf *spare; /* buffers of written blocks, for the next ones */
	size_t nspare, spare_alloc;
	const uint32_t *nodes;
	double print_time;
};

/* Claims the next block (under the lock): its index, or nblocks. */
static size_t claim_block(struct graph_split *s)
{
	if (s->next == s->nblocks)
		return s->nblocks;
	s->blocks[s->next].state = BLOCK_CLAIMED;
	return s->next++;
}

/*
 * Formats block b into memory with r, a report without output (the
 * caller's lock is dropped meanwhile); the block's text is r's line
 * buffer, which takes a spare one for the next block.
 */
static void format_block(struct graph_split *s, struct sp_report *r, size_t b)
{
	struct graph_block *blk = &s->blocks[b];
	size_t i;

	pthread_mutex_unlock(&s->mu);
	for (i = blk->first; i < blk->end; i++)
		print_entry(r, s->nodes[i], s->print_time);
	pthread_mutex_lock(&s->mu);
	blk->text = r->line;
	if (s->nspare)
		r->line = s->spare[--s->nspare];
	else
		sp_buf_init(&r->line, BLOCK_BYTES);
	blk->state = BLOCK_DONE;
	pthread_cond_broadcast(&s->done);
}

struct graph_worker {
	struct graph_split *s;
	struct sp_report r; /* out NULL, its own line buffer */
};

/* The worker (worker.h): it reads the graph and the filled name cache,
 * writes its own report's buffers and sort keys, and takes blocks and
 * spare buffers under s->mu. */
static void print_blocks(void *job)
{
	struct graph_worker *w = job;
	struct graph_split *s = w->s;
	size_t b;

	pthread_mutex_lock(&s->mu);
	while ((b = claim_block(s)) < s->nblocks)
		format_block(s, &w->r, b);
	pthread_mutex_unlock(&s->mu);
}

/* The main thread's part: every block in order, see above. */
static void write_blocks(struct graph_split *s, struct sp_report *r)
{
	struct sp_report mem = *r; /* for blocks formatted into memory */
	size_t w, b, i;

	mem.out = NULL;
	sp_buf_init(&mem.line, BLOCK_BYTES);
	/* keys of its own (r's may move while mem's are in use), the runs */
	memset(&mem.sort_mem, 0, sizeof(mem.sort_mem));
	mem.sort_mem.runs = r->sort_mem.runs;
	pthread_mutex_lock(&s->mu);
	for (w = 0; w < s->nblocks; w++) {
		struct graph_block *blk = &s->blocks[w];

		if (blk->state == BLOCK_FREE) {
			claim_block(s); /* w: blocks are claimed in order */
			pthread_mutex_unlock(&s->mu);
			for (i = blk->first; i < blk->end; i++)
				print_entry(r, s->nodes[i], s->print_time);
			pthread_mutex_lock(&s->mu);
			continue;
		}
		while (blk->state != BLOCK_DONE) {
			if ((b = claim_block(s)) < s->nblocks)
				format_block(s, &mem, b);
			else
				pthread_cond_wait(&s->done, &s->mu);
		}
		pthread_mutex_unlock(&s->mu);
		sp_report_flush_line(r);
		fwrite(blk->text.buf, 1, blk->text.len, r->out);
		sp_buf_reset(&blk->text);
		pthread_mutex_lock(&s->mu);
		SP_ALLOC_GROW(s->spare, s->nspare + 1, s->spare_alloc);
		s->spare[s->nspare++] = blk->text;
	}
	pthread_mutex_unlock(&s->mu);
	sp_buf_release(&mem.line);
	sp_cg_sort_mem_release(&mem.sort_mem);
}

/*
 * Fills the name of every node the graph prints, so that the worker only
 * reads the cache: the printed entries, their cycles' members, and the
 * other end of each arc of a printed entry (a caller or callee line).
 * printed[] (a byte per node and pseudo node, zeroed) marks the entries;
 * the pass over the nodes names them and their members, in memory order,
 * and the pass over the arcs names only the ends those left out (a caller
 * that is not an entry of its own), so that it reads the arcs and two
 * bytes per arc rather than both nodes. With -l most nodes are lines that
 * are never printed (their names, with file, line and address, are the
 * costly ones), so the test is what the entries print, not which nodes
 * have arcs.
 */
static void fill_names(struct sp_report *r, uint8_t *printed)
{
	const struct sp_cg *cg = r->cg;
	size_t i, len, nn = cg->nnodes;
	uint8_t *named = printed; /* 1: an entry; 2: its name is made */

	for (i = 0; i < nn; i++) {
		const struct sp_cg_node *n = &cg->nodes[i];

		if (printed[i] ||
		    (n->cycle != 0 && n->cyc_head < nn && (printed[n->cyc_head] & 1))) {
			name_text(r, (unsigned)i, &len);
			named[i] |= 2;
		}
	}
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->child < nn && (printed[a->child] & 1) && !(named[a->parent] & 2)) {
			name_text(r, a->parent, &len);
			named[a->parent] |= 2;
		}
		if (a->parent < nn && (printed[a->parent] & 1) && !(named[a->child] & 2)) {
			name_text(r, a->child, &len);
			named[a->child] |= 2;
		}
	}
}

/*
 * The printed entries in order into nodes[], marked in printed[] (zeroed,
 * a byte per node), and per node about the lines its entry prints but for
 * 3 (primary line, separator, <spontaneous>) into lines[]: its arcs and
 * members, counted from the arc array in memory order rather than down
 * each list (a pass as cheap as the split needs).
 */
static size_t collect_entries(const struct sp_report *r, uint32_t *nodes, uint32_t *lines,
			      uint8_t *printed)
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
		if (!skipped(r, e)) {
			nodes[n++] = cg->order[i];
			printed[cg->order[i]] = 1;
		}
	}
	return n;
}

/*
 * Blocks of about a 64th of the lines, at most BLOCK_LINES (some 70 KB of
 * text): enough blocks for the two threads to end together, few enough
 * that taking them costs nothing.
 */
/* About the lines an entry prints: collect_entries()'s count, and 3. */
static inline uint64_t entry_lines(const uint32_t *lines, uint32_t node)
{
	return (uint64_t)lines[node] + 3;
}

static size_t cut_blocks(struct graph_split *s, const uint32_t *lines, size_t n, uint64_t total)
{
	uint64_t size = total / 64 + 1, acc = 0;
	size_t i, nb = 0;

	if (size > BLOCK_LINES)
		size = BLOCK_LINES;
	s->blocks = sp_xcalloc(total / size + 2, sizeof(*s->blocks));
	for (i = 0; i < n; i++) {
		if (acc == 0)
			s->blocks[nb++].first = i;
		acc += entry_lines(lines, s->nodes[i]);
		if (acc >= size || i + 1 == n) {
			s->blocks[nb - 1].end = i + 1;
			acc = 0;
		}
	}
	return nb;
}

/*
 * When the entries have at least o->graph_split lines, a worker thread
 * formats some of the blocks (see above) while this thread formats and
 * writes the others; if no worker starts, this thread does them all.
 * Returns 0 (nothing printed) below the threshold.
 */
static int print_split(struct sp_report *r, double print_time)
{
	size_t nn = r->cg->nnodes, all = nn + r->cg->npseudo;
	uint32_t *nodes = sp_xreallocarray(NULL, nn + 1, 2 * sizeof(uint32_t));
	uint32_t *lines = nodes + nn + 1;
	uint8_t *printed = sp_xcalloc(all + 1, 1);
	size_t n = collect_entries(r, nodes, lines, printed), i;
	uint64_t total = 0;
	struct graph_split s;
	struct graph_worker w;
	struct sp_worker *worker;

	for (i = 0; i < n; i++)
		total += entry_lines(lines, nodes[i]);
	if (total < r->o->graph_split || n == 0) {
		free(printed);
		free(nodes);
		return 0;
	}
	fill_names(r, printed);
	free(printed);
	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.done, NULL);
	s.nodes = nodes;
	s.print_time = print_time;
	s.nblocks = cut_blocks(&s, lines, n, total);
	w.s = &s;
	w.r = *r;
	w.r.out = NULL;
	sp_buf_init(&w.r.line, BLOCK_BYTES);
	/* the worker's own keys, the shared runs */
	memset(&w.r.sort_mem, 0, sizeof(w.r.sort_mem));
	w.r.sort_mem.runs = r->sort_mem.runs;
	/* without a worker, this thread claims every block and writes it
	 * directly */
	worker = sp_worker_start(print_blocks, &w);
	write_blocks(&s, r);
	sp_worker_join(worker);
	sp_buf_release(&w.r.line);
	sp_cg_sort_mem_release(&w.r.sort_mem);
	for (i = 0; i < s.nspare; i++)
		sp_buf_release(&s.spare[i]);
	free(s.spare);
	free(s.blocks);
	pthread_cond_destroy(&s.done);
	pthread_mutex_destroy(&s.mu);
	free(nodes);
	return 1;
}

void sp_report_graph(struct sp_report *r)
{
	const struct sp_cg *cg = r->cg;
	double print_time = cg->print_time;
	/* the arcs into each node, read by the sorted views of the callers */
	struct sp_cg_parent_runs *runs = sp_cg_parent_runs_new(cg);
	size_t i;

	r->sort_mem.runs = runs;

	if (!r->o->brief && r->o->bsd)
		fputs(sp_blurb_graph_bsd, sp_report_out(r));
	print_header(r, &print_time);
	/* with threads off (worker.h), the plain loop: a split would only
	 * cost its preparation */
	if (!r->o->graph_split || !sp_workers_enabled() || !print_split(r, print_time)) {
		for (i = 0; i < cg->nnodes; i++) {
			unsigned node = cg->order[i];

			if (!skipped(r, &cg->nodes[node]))
				print_entry(r, node, print_time);
		}
	}
	r->sort_mem.runs = NULL;
	sp_cg_parent_runs_free(runs);
	if (!r->o->brief && !r->o->bsd)
		fputs(sp_blurb_graph_gnu, sp_report_out(r));
	sp_report_flush_line(r);
}
