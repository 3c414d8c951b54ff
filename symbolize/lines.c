/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The line table: bfd_find_nearest_line()'s file and line for every
 * address, computed once for the whole program.
 *
 * gprof asks bfd for the source line of each symbol and, with -l, of every
 * byte of .text. bfd answers from per-unit tables that it builds lazily
 * with a few rules of its own; this file applies the same rules up front
 * and flattens the result into one sorted array of rows, so that a lookup
 * is one binary search and gives bfd's answer.
 *
 * When the caller knows every address it will ask about (gprof without
 * -l: its symbols' addresses), a query table applies the same rules but
 * keeps only those answers: the decoder leaves out the rows that cannot
 * answer an asked address (sp_lineprog_want()), each sequence keeps its
 * top row and the rows whose range holds an asked address, and the first
 * unit with an answer keeps it (rule 3). No table of every row is built,
 * sorted, merged or indexed. See "query mode" below for when it falls
 * back to decoding a unit in full.
 *
 * The rules, as observed in binutils 2.40 (dwarf2.c) and checked against
 * libbfd by tests/helper/lines-vs-bfd.c:
 *
 *  1. Rows group into sequences: a sequence starts with the first row after
 *     an end_sequence row (or the first row of the unit) and ends with its
 *     end_sequence row. Within a sequence, a row at the same address (and
 *     op_index) as the sequence's highest row replaces it: of consecutive
 *     rows at one address only the last one is kept. Rows that arrive out
 *     of address order are inserted where they sort, in front of equal
 *     ones; an end_sequence row always goes on top. A sequence covers
 *     [low_pc, address of its top row), where low_pc is the first row's
 *     address, lowered only by some of the out-of-order insertions (the
 *     ones bfd handles without its "lcl_head" shortcut).
 *  2. Per unit, sequences are sorted by low_pc, then by decreasing end,
 *     then newest first. Walking that order, a sequence inside the ones
 *     before it is dropped, and one that overlaps them is cut to start
 *     where they end. A lookup binary-searches these sequences, then the
 *     rows of the one found; the answer is the row whose range holds the
 *     address, never the sequence's top row (usually its end_sequence).
 *  3. Across units, the first unit (in .debug_info order) with an answer
 *     wins. Units overlap for real: the linker points the line programs of
 *     duplicate COMDAT functions at the copy it kept, and functions it
 *     discarded at address 0.
 *  4. A unit whose line program bfd cannot decode answers nothing, nor
 *     does one with a function whose DW_AT_ranges bfd cannot read; and
 *     bfd reads no unit after one whose own DW_AT_ranges it cannot read.
 *
 * Rows with line 0 or no file are kept in the table (bfd finds them, and
 * they stop the search), but sp_linetab_find() returns NULL for them, as
 * gprof treats them as "no line".
 *
 * Not reproduced, as they depend on the lookups bfd did before or on its
 * long-lived state (tests/helper/lines-vs-bfd.c walks .text the way gprof
 * -l does, so it would show them):
 *  - bfd consults the units whose ranges hold an address in the order they
 *    entered its lookup trie, which follows the order earlier lookups
 *    decoded them; here the first unit in .debug_info order wins. This only
 *    matters where units overlap at real code and disagree.
 *  - A unit with a function DIE but no line row at an address stops bfd's
 *    search there (no line); here the next unit's row answers. dwarf-funcs.c
 *    follows bfd in that case.
 *  - A unit whose DIEs bfd fails to read loses its lines too. Here that
 *    is followed for unreadable function ranges (rule 4 below is checked
 *    before decoding), not for other DIE errors such as bad references.
 *  - bfd's trie misses the last byte (0x..ff) of a 256-byte bucket holding
 *    more than 16 ranges, for every range that runs past it (the bucket
 *    clamp mixes an inclusive end with an exclusive one); once all units
 *    are read, lookups there find nothing. Seen at 2 of 900,094 addresses
 *    of libasan.so.8, in none of the other programs tried.
 */
#include "lines.h"

#include "addrindex.h"

#include <dwarf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf-lineprog.h"
#include "ivsweep.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/sort.h"
#include "symprof/strtab.h"

/* A packed table's rows (sp_linetab_adopt_packed) are decoded one at a
 * time as lookups reach them, into chunks of this many, in the order
 * they are asked: a profile asks for a few rows spread over all of them,
 * and a row per slot of a whole-table array would make most of its pages. */
#define PACKED_CHUNK 1024

struct sp_linetab {
	struct sp_line *rows; /* NULL for a packed table until every row is asked */
	size_t nrows;
	/* a packed table's (sp_linetab_adopt_packed): its records, and the
	 * rows decoded from them so far (see row()) */
	struct sp_linetab_packed packed;
	_Atomic uint32_t *slot;	 /* per row: 0, or 1 + its place in the chunks */
	struct sp_line **chunks; /* the decoded rows, PACKED_CHUNK a chunk */
	size_t nchunks, ndecoded;
	/* per block of records (2^block_shift rows): enum block_state; NULL
	 * when the records need no check */
	uint8_t *block;
	size_t nblocks;
	unsigned block_shift;
	int damaged;		   /* a block was found damaged */
	pthread_mutex_t decode_mu; /* decoding a row: ndecoded, chunks, block, damaged */
	/* every row in one array, once sp_linetab_rows() asked or lookups
	 * reached many (then all of them are answered from it) */
	_Atomic(struct sp_line *) all;
	struct sp_addr_index rindex; /* rows by address */
	struct sp_addr_index uindex; /* runs by start */
	struct sp_linetab_run *runs;
	size_t nruns;
	uint8_t *ustate; /* enum sp_linetab_unit_state, per unit */
	size_t nunits, ustate_alloc;
	int has_warning;
	struct sp_error warning;
	int query; /* rows: one per asked address (sp_linetab_new_query) */
};

/*
 * Rows of one unit answering [start, end) without a hole: rows[first ..
 * first + n) of the table (or of the merge buffer), then in storage a gap
 * row at end if `gap`.
 */
struct chunk {
	uint64_t start, end;
	size_t first, n;
	uint32_t unit;
	uint8_t gap;
	uint8_t state; /* enum chunk_state */
};

enum chunk_state { KEPT, MOVED, CLUSTERED, DEAD };

/* A sequence of the unit being read; rows[first .. first + n). */
struct seq {
	size_t first, n;
	uint64_t low;
	size_t lcl_head;  /* bfd's insertion hint, an index into the sequence */
	uint64_t high;	  /* address of the top row, once sorted */
	uint32_t high_op; /* op_index of the top row (0 unless VLIW) */
	uint32_t rank;	  /* newest sequence first, bfd's last tie-breaker */
};

struct build {
	struct sp_linetab *t;
	size_t out_alloc;
	/* the unit being read */
	struct sp_lprow *rows;
	size_t nrows, rows_alloc;
	struct seq *seqs;
	size_t nseqs, seqs_alloc;
	struct seq *kept;
	size_t nkept, kept_alloc;
	uint64_t *bps;
	size_t bps_alloc;
	uint32_t unit;
	uint64_t last_key; /* source row of the last row written */
	/* all units */
	struct chunk *chunks;
	size_t nchunks, chunks_alloc;
	size_t open; /* the chunk rows are appended to, or NONE */
	/* merging */
	struct sp_line *tmp; /* rows of moved chunks and resolved overlaps */
	size_t ntmp, tmp_alloc;
	/* sp_linetab_new_watched()'s listener */
	void (*unit_done)(void *ctx, uint32_t unit, int state);
	void *unit_done_ctx;
	/* sp_linetab_new_units()'s units, or NULL for all */
	const struct sp_unit_set *only;
	/* sp_linetab_new_query()'s addresses, or NULL */
	struct query *q;
};

#define NONE ((size_t)-1)

/* ---- rule 1: rows into sequences ---- */

static int row_after(const struct sp_lprow *a, const struct sp_lprow *b)
{
	return a->addr > b->addr || (a->addr == b->addr && a->op_index > b->op_index);
}

static void push_row(struct build *b, const struct sp_lprow *row, size_t at)
{
	SP_ALLOC_GROW(b->rows, b->nrows + 1, b->rows_alloc);
	if (at < b->nrows)
		memmove(b->rows + at + 1, b->rows + at, (b->nrows - at) * sizeof(*b->rows));
	b->rows[at] = *row;
	b->nrows++;
}

/* Starts a sequence at address low, with no rows yet. */
static struct seq *open_seq(struct build *b, uint64_t low)
{
	struct seq *s;

	SP_ALLOC_GROW(b->seqs, b->nseqs + 1, b->seqs_alloc);
	s = &b->seqs[b->nseqs++];
	s->first = b->nrows;
	s->n = 0;
	s->low = low;
	s->lcl_head = 0;
	return s;
}

static void new_seq(struct build *b, const struct sp_lprow *row)
{
	open_seq(b, row->addr)->n = 1;
	push_row(b, row, b->nrows);
}

/* An out-of-order row: insert it in front of the first row not below it. */
static void insert_row(struct build *b, struct seq *s, const struct sp_lprow *row)
{
	size_t lo = 0, hi = s->n - 1, pos;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (row_after(row, &b->rows[s->first + mid]))
			lo = mid + 1;
		else
			hi = mid;
	}
	pos = lo;
	if (pos != s->lcl_head && row->addr < s->low)
		s->low = row->addr;
	push_row(b, row, s->first + pos);
	s->n++;
	s->lcl_head = pos + 1;
}

static void add_row(struct build *b, const struct sp_lprow *row)
{
	struct seq *s = b->nseqs ? &b->seqs[b->nseqs - 1] : NULL;
	struct sp_lprow *top = s ? &b->rows[s->first + s->n - 1] : NULL;

	if (s && top->addr == row->addr && top->op_index == row->op_index &&
	    top->end_sequence == row->end_sequence)
		*top = *row;
	else if (!s || top->end_sequence)
		new_seq(b, row);
	else if (row->end_sequence || row_after(row, top))
		push_row(b, row, b->nrows), s->n++;
	else
		insert_row(b, s, row);
}

static int add_rows(void *ctx, const struct sp_lprow *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		add_row(ctx, &rows[i]);
	return 0;
}

/* ---- rule 2: sorting, trimming and searching sequences ---- */

static int seq_cmp(const void *pa, const void *pb)
{
	const struct seq *a = pa, *b = pb;

	if (a->low != b->low)
		return a->low < b->low ? -1 : 1;
	if (a->high != b->high)
		return a->high > b->high ? -1 : 1;
	if (a->high_op != b->high_op)
		return a->high_op > b->high_op ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static void sort_seqs(struct build *b)
{
	uint64_t last_high = 0;
	size_t i;

	for (i = 0; i < b->nseqs; i++) {
		struct seq *s = &b->seqs[i];
		const struct sp_lprow *top = &b->rows[s->first + s->n - 1];

		s->high = top->addr;
		s->high_op = top->op_index;
		s->rank = (uint32_t)(b->nseqs - 1 - i);
	}
	qsort(b->seqs, b->nseqs, sizeof(*b->seqs), seq_cmp);
	b->nkept = 0;
	for (i = 0; i < b->nseqs; i++) {
		struct seq s = b->seqs[i];

		if (i > 0 && s.low < last_high) {
			if (s.high <= last_high)
				continue;
			s.low = last_high;
		}
		last_high = s.high;
		SP_ALLOC_GROW(b->kept, b->nkept + 1, b->kept_alloc);
		b->kept[b->nkept++] = s;
	}
}

/* bfd's binary search over the kept sequences; NULL if it finds none. */
static const struct seq *search_seq(const struct build *b, uint64_t addr)
{
	const struct seq *s = NULL;
	size_t lo = 0, hi = b->nkept;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		s = &b->kept[mid];
		if (addr < s->low)
			hi = mid;
		else if (addr >= s->high)
			lo = mid + 1;
		else
			break;
	}
	if (!s || addr < s->low || addr >= s->high)
		return NULL;
	return s;
}

/* ---- writing rows ---- */

static struct sp_line *out_row(struct build *b)
{
	struct sp_linetab *t = b->t;

	if (t->nrows == b->out_alloc) {
		b->out_alloc = b->out_alloc ? 2 * b->out_alloc : 4096;
		t->rows = sp_xreallocarray(t->rows, b->out_alloc, sizeof(*t->rows));
	}
	return &t->rows[t->nrows++];
}

/*
 * Room for the rows of `line_bytes` of line programs, which take 6 bytes
 * a row in gcc's output (special opcodes; a row is never less than a
 * byte): room for one row per 4 bytes spares the table the copies of
 * growing by doubling, which touched twice its final size in fresh pages.
 * Untouched room costs address space only.
 */
static void reserve_rows(struct build *b, size_t line_bytes)
{
	size_t n = line_bytes / 4;

	if (n > b->out_alloc) {
		b->out_alloc = n;
		b->t->rows = sp_xreallocarray(b->t->rows, n, sizeof(*b->t->rows));
	}
}

static void set_row(struct sp_line *l, uint64_t addr, const struct sp_lprow *r)
{
	l->addr = addr;
	l->file = r->file;
	l->line = r->line;
	l->column = r->column;
	l->discriminator = r->discriminator;
	l->is_stmt = r->is_stmt;
	l->end_sequence = 0;
}

static void set_gap(struct sp_line *l, uint64_t addr)
{
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	l->end_sequence = 1;
}

static void close_chunk(struct build *b)
{
	if (b->open != NONE)
		set_gap(out_row(b), b->chunks[b->open].end);
	b->open = NONE;
}

/* "Row r (source row `key`) of this unit answers [start, end)." */
static void add_piece(struct build *b, const struct sp_lprow *r, uint64_t key, uint64_t start,
		      uint64_t end)
{
	struct chunk *c = b->open != NONE ? &b->chunks[b->open] : NULL;

	if (c && c->end == start && key == b->last_key) {
		c->end = end;
		return;
	}
	if (!c || c->end != start) {
		close_chunk(b);
		SP_ALLOC_GROW(b->chunks, b->nchunks + 1, b->chunks_alloc);
		b->open = b->nchunks;
		c = &b->chunks[b->nchunks++];
		c->start = start;
		c->first = b->t->nrows;
		c->n = 0;
		c->unit = b->unit;
		c->gap = 1;
		c->state = KEPT;
	}
	set_row(out_row(b), start, r);
	c->n++;
	c->end = end;
	b->last_key = key;
}

/*
 * The answers of sequence s for [a, end): the row k whose range
 * [row k, row k + 1) holds an address answers it. The rows below the top
 * are sorted; the top (the end_sequence row) may sit lower in broken
 * programs, which only shortens the sequence.
 */
static void emit_seq(struct build *b, const struct seq *s, uint64_t a, uint64_t end)
{
	const struct sp_lprow *r = &b->rows[s->first];
	size_t lo = 0, hi = s->n - 1, k;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].addr <= a)
			lo = mid;
		else
			hi = mid;
	}
	for (k = lo; k + 1 < s->n && r[k].addr < end; k++) {
		uint64_t st = r[k].addr > a ? r[k].addr : a;
		uint64_t en = r[k + 1].addr < end ? r[k + 1].addr : end;

		if (st < en)
			add_piece(b, &r[k], (uint64_t)b->unit << 32 | (s->first + k), st, en);
	}
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/*
 * Whether every kept sequence is a proper range, disjoint from the others.
 * Then bfd's search finds exactly the sequence holding an address.
 * Otherwise (a sequence ending below its start in a broken program) the
 * search can take odd turns, so it is asked at every boundary (see
 * boundaries()): its answer is constant between boundaries.
 */
static int seqs_disjoint(const struct build *b)
{
	size_t i;

	for (i = 0; i < b->nkept; i++)
		if (b->kept[i].low > b->kept[i].high ||
		    (i > 0 && b->kept[i].low < b->kept[i - 1].high))
			return 0;
	return 1;
}

/* The kept sequences' starts and ends in b->bps, sorted; returns their number. */
static size_t boundaries(struct build *b)
{
	size_t i, nb = 0;

	SP_ALLOC_GROW(b->bps, 2 * b->nkept, b->bps_alloc);
	for (i = 0; i < b->nkept; i++) {
		b->bps[nb++] = b->kept[i].low;
		b->bps[nb++] = b->kept[i].high;
	}
	qsort(b->bps, nb, sizeof(*b->bps), u64_cmp);
	return nb;
}

static void emit_unit(struct build *b)
{
	size_t i, nb;

	if (seqs_disjoint(b)) {
		for (i = 0; i < b->nkept; i++)
			if (b->kept[i].low < b->kept[i].high)
				emit_seq(b, &b->kept[i], b->kept[i].low, b->kept[i].high);
		return;
	}
	nb = boundaries(b);
	for (i = 0; i + 1 < nb; i++) {
		const struct seq *s;

		if (b->bps[i] == b->bps[i + 1])
			continue;
		s = search_seq(b, b->bps[i]);
		if (s)
			emit_seq(b, s, b->bps[i], b->bps[i + 1]);
	}
}

/* ---- query mode: the answers for some addresses only ---- */

/*
 * gprof without -l asks for the line of each function symbol only: a few
 * thousand addresses, where the full table holds hundreds of thousands of
 * rows. A query table decodes every unit and applies rules 1, 2 and 4 as
 * the full table does, but keeps of each sequence only its top row and the
 * rows whose range holds an asked address; rule 3 becomes "the first unit
 * with an answer keeps the address". The table is one row per address.
 *
 * Dropping rows is safe only while each sequence's rows come in address
 * order, as compilers write them: a row inserted lower down (rule 1) could
 * land between a dropped row and its successor. At the first such row the
 * unit is decoded again keeping every row, and answered from those.
 */
struct query {
	const uint64_t *want; /* the asked addresses, sorted and distinct */
	size_t n;
	struct sp_line *ans; /* per address: its row, a gap row while none */
	/* the unit being read */
	int filtered;	/* b->rows holds kept rows only, ends[] valid */
	uint64_t *ends; /* where the range of each row of b->rows ends */
	size_t ends_alloc;
	struct sp_lprow top; /* the open sequence's last row */
	int open;	     /* a sequence is open: top is valid */
	size_t next;	     /* the first asked address at or above top's */
	int every_unit;	     /* decode the units unit_may_answer() would skip */
};

/* The first asked address at or above addr (q->n if none). */
static size_t want_from(const struct query *q, uint64_t addr)
{
	return sp_addr_bound(q->want, q->n, sizeof(*q->want), addr, 0);
}

/* Appends a row, whose range ends at `end`, to the open sequence. */
static void keep_row(struct build *b, const struct sp_lprow *row, uint64_t end)
{
	struct query *q = b->q;

	SP_ALLOC_GROW(b->rows, b->nrows + 1, b->rows_alloc);
	SP_ALLOC_GROW(q->ends, b->nrows + 1, q->ends_alloc);
	b->rows[b->nrows] = *row;
	q->ends[b->nrows++] = end;
	b->seqs[b->nseqs - 1].n++;
}

/* Ends the open sequence with its top row, as sort_seqs() expects. */
static void filter_close(struct build *b, const struct sp_lprow *top)
{
	if (b->q->open)
		keep_row(b, top, top->addr);
	b->q->open = 0;
}

static void filter_new_seq(struct build *b, const struct sp_lprow *top, const struct sp_lprow *row)
{
	struct query *q = b->q;

	filter_close(b, top);
	open_seq(b, row->addr);
	q->open = 1;
	q->next = want_from(q, row->addr);
}

/* add_row() for a query table, for a row the fast path of filter_rows()
 * does not take; 1 for a row that add_row() would insert. */
static int filter_row(struct build *b, const struct sp_lprow *top, const struct sp_lprow *row)
{
	struct query *q = b->q;

	if (q->open && top->addr == row->addr && top->op_index == row->op_index &&
	    top->end_sequence == row->end_sequence)
		return 0; /* replaces top */
	if (!q->open || top->end_sequence) {
		filter_new_seq(b, top, row);
		return 0;
	}
	if (!row->end_sequence && !row_after(row, top))
		return 1;
	/* top answers [top->addr, row->addr); no asked address is below top */
	if (q->next < q->n && q->want[q->next] < row->addr) {
		keep_row(b, top, row->addr);
		while (q->next < q->n && q->want[q->next] < row->addr)
			q->next++;
	}
	return 0;
}

/*
 * The row callback of a query table. The open sequence's last row (top,
 * the row before the current one) is kept once the next row shows that its
 * range holds an asked address. Usually a row comes above the top and
 * below the next asked address, and is merely passed. Returns 1 at a row
 * add_row() would insert.
 */
static int filter_rows(void *ctx, const struct sp_lprow *rows, size_t n)
{
	struct build *b = ctx;
	struct query *q = b->q;
	const struct sp_lprow *top = &q->top;
	uint64_t next = q->next < q->n ? q->want[q->next] : UINT64_MAX;
	size_t i;

	for (i = 0; i < n; top = &rows[i++]) {
		const struct sp_lprow *row = &rows[i];

		/* above top (or replacing it) and not past the next address */
		if (row->addr <= next && !row->end_sequence && !top->end_sequence && q->open &&
		    (row->addr > top->addr ||
		     (row->addr == top->addr && row->op_index >= top->op_index)))
			continue;
		if (filter_row(b, top, row))
			return 1;
		next = q->next < q->n ? q->want[q->next] : UINT64_MAX;
	}
	q->top = *top;
	return 0;
}

/*
 * The row of sequence s whose range holds addr, or NULL: what emit_seq()
 * writes there. The rows below the top are sorted; the top answers nothing.
 */
static const struct sp_lprow *seq_row(const struct build *b, const struct seq *s, uint64_t addr)
{
	const struct sp_lprow *r = &b->rows[s->first];
	size_t lo = sp_addr_bound(r, s->n - 1, sizeof(*r), addr, 1);
	uint64_t end;

	if (lo == 0)
		return NULL;
	end = b->q->filtered ? b->q->ends[s->first + lo - 1] : r[lo].addr;
	return addr < end ? &r[lo - 1] : NULL;
}

/* Gives asked address i the answer of sequence s, if it has one. */
static void answer(struct build *b, size_t i, const struct seq *s)
{
	struct query *q = b->q;
	const struct sp_lprow *r;

	if (q->ans[i].end_sequence && (r = seq_row(b, s, q->want[i])))
		set_row(&q->ans[i], q->want[i], r);
}

/* emit_unit() for a query table: answers what earlier units did not. */
static void answer_unit(struct build *b)
{
	struct query *q = b->q;
	size_t i, j, nb;

	if (seqs_disjoint(b)) {
		for (i = 0; i < b->nkept; i++)
			for (j = want_from(q, b->kept[i].low);
			     j < q->n && q->want[j] < b->kept[i].high; j++)
				answer(b, j, &b->kept[i]);
		return;
	}
	nb = boundaries(b);
	for (j = 0; j < q->n; j++) {
		/* the boundaries around the address: bps[lo - 1] <= it < bps[lo] */
		size_t lo = sp_addr_bound(b->bps, nb, sizeof(*b->bps), q->want[j], 1);
		const struct seq *s;

		if (lo == 0 || lo == nb)
			continue;
		s = search_seq(b, b->bps[lo - 1]);
		if (s)
			answer(b, j, s);
	}
}

/*
 * bfd consults a unit for an address only if the unit's ranges hold it, or
 * if the unit has none (rule 3 walks the units that bfd consults): the
 * ranges its DIE gives with DW_AT_low_pc and DW_AT_high_pc or with
 * DW_AT_ranges, to which bfd adds those of the unit's line sequences once
 * it has decoded them (so for a unit it never decodes, the DIE's alone).
 * A query table skips a unit whose DIE's ranges hold no asked address,
 * and decodes every unit whose ranges it does not read here as bfd would
 * (other forms, a base address, no ranges at all).
 */
struct unit_ranges {
	const struct query *q;
	int hit, any;
};

static void unit_range(void *ctx, uint64_t low, uint64_t high)
{
	struct unit_ranges *ur = ctx;
	size_t i;

	if (low >= high) /* bfd's arange_add() keeps no empty range */
		return;
	ur->any = 1;
	i = want_from(ur->q, low);
	if (i < ur->q->n && ur->q->want[i] < high)
		ur->hit = 1;
}

static int unit_may_answer(const struct sp_dwsecs *secs, const struct sp_dwunit *u,
			   const struct query *q)
{
	struct unit_ranges ur = {q, 0, 0};
	Dwarf_Die die = u->die;
	Dwarf_Attribute a;
	Dwarf_Addr low = 0;
	Dwarf_Word v;

	if (dwarf_attr(&die, DW_AT_low_pc, &a) &&
	    (dwarf_whatform(&a) != DW_FORM_addr || dwarf_formaddr(&a, &low) != 0))
		return 1;
	if (dwarf_attr(&die, DW_AT_ranges, &a)) {
		if (low != 0 || dwarf_hasattr(&die, DW_AT_high_pc) ||
		    !sp_dw_is_int_form(dwarf_whatform(&a)) || dwarf_formudata(&a, &v) != 0 ||
		    sp_dw_rangelist(secs, u, 0, v, unit_range, &ur) < 0)
			return 1;
	} else if (dwarf_attr(&die, DW_AT_high_pc, &a)) {
		Dwarf_Addr high;

		if (dwarf_whatform(&a) == DW_FORM_addr) {
			if (dwarf_formaddr(&a, &high) != 0)
				return 1;
		} else if (sp_dw_is_int_form(dwarf_whatform(&a)) && dwarf_formudata(&a, &v) == 0) {
			high = low + v;
		} else {
			return 1;
		}
		unit_range(&ur, low, high);
	}
	return ur.hit || !ur.any;
}

/*
 * Decodes unit u into b->rows and b->seqs: filtered for a query table,
 * unless a row comes out of order. Negative + err if bfd would not decode it.
 */
static int decode_unit(struct build *b, struct sp_lineprog *lp, const struct sp_dwsecs *secs,
		       const struct sp_dwunit *u, struct sp_strtab *strs, struct sp_error *err)
{
	int r;

	b->nrows = 0;
	b->nseqs = 0;
	if (sp_lineprog_open(lp, secs, u, strs, err) < 0)
		return -SP_E_CORRUPT;
	if (!b->q)
		return sp_lineprog_run(lp, add_rows, b, err) ? -SP_E_CORRUPT : 0;
	b->q->filtered = 1;
	b->q->open = 0;
	sp_lineprog_want(lp, b->q->want, b->q->n);
	r = sp_lineprog_run(lp, filter_rows, b, err);
	if (r == 0) {
		filter_close(b, &b->q->top);
		return 0;
	}
	if (r < 0)
		return -SP_E_CORRUPT;
	/* a row out of order: again, keeping every row (the header is read
	 * again too, as the program may have added files to its table) */
	b->q->filtered = 0;
	b->nrows = 0;
	b->nseqs = 0;
	if (sp_lineprog_open(lp, secs, u, strs, err) < 0 || sp_lineprog_run(lp, add_rows, b, err))
		return -SP_E_CORRUPT;
	return 0;
}

/* Decodes unit u and appends its pieces (or answers); negative + err if
 * bfd would not. */
static int read_unit(struct build *b, struct sp_lineprog *lp, const struct sp_dwsecs *secs,
		     const struct sp_dwunit *u, struct sp_strtab *strs, struct sp_error *err)
{
	if (decode_unit(b, lp, secs, u, strs, err) < 0)
		return -SP_E_CORRUPT;
	if (b->nseqs == 0)
		return 0;
	sort_seqs(b);
	if (b->q) {
		answer_unit(b);
		return 0;
	}
	emit_unit(b);
	close_chunk(b);
	return 0;
}

/* ---- rule 3: merging units ---- */

/*
 * Each unit wrote its rows as chunks, in .debug_info order. Usually the
 * chunks do not overlap and most are already in address order: a longest
 * increasing run of them stays in place, the others (main in .text.startup,
 * .cold parts) move through a buffer, and chunks that overlap (units
 * sharing COMDAT code) are resolved into that buffer. The final order is
 * then merged back into the table from its end, so the table is never
 * copied as a whole.
 */

struct ord {
	uint64_t start;
	uint32_t unit;
	size_t idx;
};

static int ord_cmp(const void *pa, const void *pb)
{
	const struct ord *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->unit != b->unit)
		return a->unit < b->unit ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static struct ord *sorted_chunks(const struct build *b, int with_state, size_t *n)
{
	struct ord *o = sp_xreallocarray(NULL, b->nchunks ? b->nchunks : 1, sizeof(*o));
	size_t i;

	*n = 0;
	for (i = 0; i < b->nchunks; i++) {
		if (with_state >= 0 && b->chunks[i].state != with_state)
			continue;
		o[*n].start = b->chunks[i].start;
		o[*n].unit = b->chunks[i].unit;
		o[(*n)++].idx = i;
	}
	qsort(o, *n, sizeof(*o), ord_cmp);
	return o;
}

/* Marks chunks that overlap others; returns whether there are any. */
static int mark_clusters(struct build *b)
{
	size_t n, i = 0, j, k;
	struct ord *o = sorted_chunks(b, -1, &n);
	int any = 0;

	while (i < n) {
		uint64_t end = b->chunks[o[i].idx].end;

		for (j = i + 1; j < n && b->chunks[o[j].idx].start < end; j++)
			if (b->chunks[o[j].idx].end > end)
				end = b->chunks[o[j].idx].end;
		if (j - i > 1)
			for (k = i, any = 1; k < j; k++)
				b->chunks[o[k].idx].state = CLUSTERED;
		i = j;
	}
	free(o);
	return any;
}

/* Keeps a longest address-ordered subsequence of chunks in place. */
static int mark_moved(struct build *b)
{
	size_t *tail = sp_xreallocarray(NULL, b->nchunks + 1, sizeof(*tail));
	size_t *prev = sp_xreallocarray(NULL, b->nchunks + 1, sizeof(*prev));
	size_t len = 0, i, k, kept = 0, cand = 0;

	for (i = 0; i < b->nchunks; i++) {
		size_t lo = 0, hi = len;

		if (b->chunks[i].state != KEPT)
			continue;
		cand++;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (b->chunks[tail[mid]].start < b->chunks[i].start)
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo ? tail[lo - 1] : NONE;
		tail[lo] = i;
		if (lo == len)
			len++;
	}
	for (i = 0; i < b->nchunks; i++)
		if (b->chunks[i].state == KEPT)
			b->chunks[i].state = MOVED;
	for (k = len ? tail[len - 1] : NONE; k != NONE; k = prev[k], kept++)
		b->chunks[k].state = KEPT;
	free(tail);
	free(prev);
	return kept != cand;
}

static struct sp_line *tmp_row(struct build *b)
{
	SP_ALLOC_GROW(b->tmp, b->ntmp + 1, b->tmp_alloc);
	return &b->tmp[b->ntmp++];
}

static void move_out(struct build *b)
{
	size_t i;

	for (i = 0; i < b->nchunks; i++) {
		struct chunk *c = &b->chunks[i];

		if (c->state != MOVED)
			continue;
		SP_ALLOC_GROW(b->tmp, b->ntmp + c->n, b->tmp_alloc);
		memcpy(b->tmp + b->ntmp, b->t->rows + c->first, c->n * sizeof(*b->tmp));
		c->first = b->ntmp;
		b->ntmp += c->n;
	}
}

struct resolve_ctx {
	struct build *b;
	size_t open; /* chunk written to, or NONE */
	size_t last_id;
};

/* Writes the winner of [start, end) (a row of the table) into the buffer. */
static void resolve_out(void *vctx, uint64_t start, uint64_t end, const struct sp_iv *w)
{
	struct resolve_ctx *x = vctx;
	struct build *b = x->b;
	struct chunk *c = x->open != NONE ? &b->chunks[x->open] : NULL;
	struct sp_line *l;

	if (c && c->end == start && c->unit == w->key1 && x->last_id == w->id) {
		c->end = end;
		return;
	}
	if (!c || c->end != start || c->unit != w->key1) {
		SP_ALLOC_GROW(b->chunks, b->nchunks + 1, b->chunks_alloc);
		x->open = b->nchunks;
		c = &b->chunks[b->nchunks++];
		c->start = start;
		c->first = b->ntmp;
		c->n = 0;
		c->unit = (uint32_t)w->key1;
		c->gap = 0;
		c->state = MOVED;
	}
	l = tmp_row(b);
	*l = b->t->rows[w->id];
	l->addr = start;
	c->n++;
	c->end = end;
	x->last_id = w->id;
}

/* Resolves the overlapping chunks: at every address the first unit wins. */
static void resolve_clusters(struct build *b)
{
	size_t nc = b->nchunks, i, j, n = 0;
	struct resolve_ctx x = {b, NONE, NONE};
	struct sp_iv *iv;

	for (i = 0; i < nc; i++)
		if (b->chunks[i].state == CLUSTERED)
			n += b->chunks[i].n;
	iv = sp_xreallocarray(NULL, n ? n : 1, sizeof(*iv));
	for (i = 0, n = 0; i < nc; i++) {
		const struct chunk *c = &b->chunks[i];

		if (c->state != CLUSTERED)
			continue;
		for (j = 0; j < c->n; j++, n++) {
			iv[n].start = b->t->rows[c->first + j].addr;
			iv[n].end = j + 1 < c->n ? b->t->rows[c->first + j + 1].addr : c->end;
			iv[n].key1 = c->unit;
			iv[n].key2 = 0;
			iv[n].id = c->first + j;
		}
	}
	sp_iv_sort(iv, n);
	sp_iv_sweep(iv, n, resolve_out, &x);
	free(iv);
	for (i = 0; i < nc; i++)
		if (b->chunks[i].state == CLUSTERED)
			b->chunks[i].state = DEAD;
}

static void add_run(struct sp_linetab *t, size_t *alloc, const struct chunk *c)
{
	struct sp_linetab_run *r = t->nruns ? &t->runs[t->nruns - 1] : NULL;

	if (r && r->unit == c->unit && r->end == c->start) {
		r->end = c->end;
		return;
	}
	SP_ALLOC_GROW(t->runs, t->nruns + 1, *alloc);
	r = &t->runs[t->nruns++];
	r->start = c->start;
	r->end = c->end;
	r->unit = c->unit;
}

/* The final order: kept chunks (already sorted) merged with moved ones. */
static size_t *final_order(struct build *b, size_t *n)
{
	size_t nm, i, k = 0, *order = sp_xreallocarray(NULL, b->nchunks + 1, sizeof(*order));
	struct ord *m = sorted_chunks(b, MOVED, &nm);

	*n = 0;
	for (i = 0; i < b->nchunks; i++) {
		if (b->chunks[i].state != KEPT)
			continue;
		while (k < nm && m[k].start < b->chunks[i].start)
			order[(*n)++] = m[k++].idx;
		order[(*n)++] = i;
	}
	while (k < nm)
		order[(*n)++] = m[k++].idx;
	free(m);
	return order;
}

/* Rebuilds the table in final order, writing from its end backwards. */
static void place(struct build *b, const size_t *order, size_t n)
{
	struct sp_linetab *t = b->t;
	size_t i, w = 0, total, runs_alloc = 0;

	for (i = 0; i < b->nchunks; i++) {
		struct chunk *c = &b->chunks[i];

		if (c->state != KEPT)
			continue;
		memmove(t->rows + w, t->rows + c->first, c->n * sizeof(*t->rows));
		c->first = w;
		w += c->n;
	}
	for (i = 0, total = 0; i < n; i++) {
		struct chunk *c = &b->chunks[order[i]];

		c->gap = i + 1 == n || b->chunks[order[i + 1]].start != c->end;
		total += c->n + c->gap;
	}
	if (total > b->out_alloc) {
		b->out_alloc = total;
		t->rows = sp_xreallocarray(t->rows, total, sizeof(*t->rows));
	}
	for (i = n, w = total; i-- > 0;) {
		struct chunk *c = &b->chunks[order[i]];
		const struct sp_line *src = (c->state == KEPT ? t->rows : b->tmp) + c->first;

		if (c->gap)
			set_gap(&t->rows[--w], c->end);
		w -= c->n;
		memmove(t->rows + w, src, c->n * sizeof(*t->rows));
	}
	t->nrows = total;
	for (i = 0; i < n; i++)
		add_run(t, &runs_alloc, &b->chunks[order[i]]);
}

/* No chunk moves: only drop the gap rows between touching chunks. */
static void compact(struct build *b)
{
	struct sp_linetab *t = b->t;
	size_t i, w = 0, runs_alloc = 0;

	for (i = 0; i < b->nchunks; i++) {
		struct chunk *c = &b->chunks[i];
		size_t from = c->first;

		c->gap = i + 1 == b->nchunks || b->chunks[i + 1].start != c->end;
		memmove(t->rows + w, t->rows + from, (c->n + c->gap) * sizeof(*t->rows));
		c->first = w;
		w += c->n + c->gap;
		add_run(t, &runs_alloc, c);
	}
	t->nrows = w;
}

static void merge_units(struct build *b)
{
	int clusters = mark_clusters(b), moved = mark_moved(b);
	size_t *order, n;

	if (!clusters && !moved) {
		compact(b);
		return;
	}
	move_out(b);
	if (clusters)
		resolve_clusters(b);
	order = final_order(b, &n);
	place(b, order, n);
	free(order);
}

static void build_index(struct sp_linetab *t)
{
	sp_addr_index_build(&t->rindex, t->rows, t->nrows, sizeof(*t->rows));
	sp_addr_index_build(&t->uindex, t->runs, t->nruns, sizeof(*t->runs));
}

/* ---- API ---- */

static void build_release(struct build *b)
{
	free(b->rows);
	free(b->seqs);
	free(b->kept);
	free(b->bps);
	free(b->chunks);
	free(b->tmp);
}

/* Is the unit whose DIE is at `off` one of the sorted `only`? */
static int unit_wanted(const struct sp_unit_set *only, uint64_t off)
{
	size_t lo = 0, hi;

	if (!only)
		return 1;
	hi = only->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (only->die_off[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < only->n && only->die_off[lo] == off;
}

static int read_units(struct build *b, Dwarf *dw, struct sp_strtab *strs, int lenient,
		      struct sp_error *err)
{
	const struct sp_unit_set *only = b->only;
	struct sp_lineprog lp;
	struct sp_dwsecs secs;
	struct sp_dwunit u;
	Dwarf_CU *cu = NULL;
	uint32_t index = 0;
	int have_offset0 = 0, r;

	if (sp_dwsecs_load(dw, &secs, err) < 0)
		return -SP_E_LIBELF;
	reserve_rows(b, only || b->q ? 0 : secs.line.size);
	sp_lineprog_init(&lp);
	while ((r = sp_dwunit_next(dw, &cu, &u, err)) > 0) {
		struct sp_error uerr = SP_ERROR_INIT;
		uint8_t *st;

		/* the previous unit's state is final */
		if (b->unit_done && index > 0)
			b->unit_done(b->unit_done_ctx, index - 1, b->t->ustate[index - 1]);
		b->unit = index++;
		SP_ALLOC_GROW(b->t->ustate, index, b->t->ustate_alloc);
		b->t->nunits = index;
		st = &b->t->ustate[b->unit];
		*st = SP_LINETAB_UNIT_NONE;
		if (!sp_dwunit_bfd_reads(&secs, &u)) {
			sp_error_set(&b->t->warning, SP_E_CORRUPT,
				     "cannot read the ranges of the unit at %#llx: bfd reads no "
				     "further units",
				     (unsigned long long)u.die_off);
			b->t->has_warning = 1;
			break;
		}
		if (!u.has_stmt_list || !unit_wanted(only, u.die_off))
			continue;
		/* bfd drops a unit whose functions' ranges it cannot read */
		if (!sp_dwunit_functions_ok(&secs, &u)) {
			*st = SP_LINETAB_UNIT_FAILED;
			continue;
		}
		if (b->q && !b->q->every_unit && !unit_may_answer(&secs, &u, b->q))
			continue;
		/* bfd decodes the program at offset 0 once, for the first unit */
		*st = SP_LINETAB_UNIT_SHARED;
		if (u.line_offset == 0 && have_offset0)
			continue;
		if (read_unit(b, &lp, &secs, &u, strs, &uerr) == 0) {
			have_offset0 |= u.line_offset == 0;
			*st = lp.defines_files ? SP_LINETAB_UNIT_DEFINES : SP_LINETAB_UNIT_OK;
			continue;
		}
		*st = SP_LINETAB_UNIT_FAILED;
		if (!lenient || !b->t->has_warning)
			sp_error_set(lenient ? &b->t->warning : err, SP_E_CORRUPT,
				     "corrupt line table at .debug_line offset %#llx (unit at "
				     "%#llx): %s",
				     (unsigned long long)u.line_offset,
				     (unsigned long long)u.die_off, uerr.msg);
		b->t->has_warning = 1;
		if (!lenient) {
			r = -SP_E_CORRUPT;
			break;
		}
	}
	sp_lineprog_release(&lp);
	if (b->unit_done && index > 0)
		b->unit_done(b->unit_done_ctx, index - 1, b->t->ustate[index - 1]);
	return r;
}

/* Builds the table b was set up for (its listener, unit set or query). */
static struct sp_linetab *linetab_build(struct build *b, Dwarf *dw, struct sp_strtab *strs,
					int lenient, struct sp_error *err)
{
	struct sp_linetab *t = sp_xcalloc(1, sizeof(*t));
	int r;

	b->t = t;
	b->open = NONE;
	r = read_units(b, dw, strs, lenient, err);
	if (b->unit_done)
		b->unit_done(b->unit_done_ctx, UINT32_MAX, 0);
	if (r < 0) {
		build_release(b);
		sp_linetab_free(t);
		return NULL;
	}
	if (b->q) {
		/* one row per asked address, in address order */
		t->rows = b->q->ans;
		t->nrows = b->q->n;
		t->query = 1;
		b->q->ans = NULL;
	} else {
		merge_units(b);
	}
	build_release(b);
	if (!t->query)
		build_index(t);
	return t;
}

static struct sp_linetab *build_plain(Dwarf *dw, struct sp_strtab *strs, int lenient,
				      struct sp_error *err)
{
	struct build b;

	memset(&b, 0, sizeof(b));
	return linetab_build(&b, dw, strs, lenient, err);
}

struct sp_linetab *sp_linetab_new(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err)
{
	return build_plain(dw, strs, 0, err);
}

struct sp_linetab *sp_linetab_new_lenient(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err)
{
	return build_plain(dw, strs, 1, err);
}

struct sp_linetab *sp_linetab_new_watched(Dwarf *dw, struct sp_strtab *strs,
					  void (*unit_done)(void *ctx, uint32_t unit, int state),
					  void *ctx, struct sp_error *err)
{
	struct build b;

	memset(&b, 0, sizeof(b));
	b.unit_done = unit_done;
	b.unit_done_ctx = ctx;
	return linetab_build(&b, dw, strs, 1, err);
}

struct sp_linetab *sp_linetab_new_units(Dwarf *dw, struct sp_strtab *strs,
					const struct sp_unit_set *only, struct sp_error *err)
{
	struct build b;

	memset(&b, 0, sizeof(b));
	b.only = only;
	return linetab_build(&b, dw, strs, 1, err);
}

#define U64_LESS(a, b) (*(a) < *(b))
SP_DEFINE_STABLE_SORT(sort_u64, uint64_t, U64_LESS)

static struct sp_linetab *build_query(Dwarf *dw, struct sp_strtab *strs, const uint64_t *addrs,
				      size_t n, int every_unit, struct sp_error *err)
{
	uint64_t *want = sp_xreallocarray(NULL, n ? n : 1, sizeof(*want));
	uint64_t *tmp = sp_xreallocarray(NULL, n ? n : 1, sizeof(*tmp));
	struct sp_linetab *t;
	struct query q;
	struct build b;
	size_t i, k = 0;

	memcpy(want, addrs, n * sizeof(*want));
	sort_u64(want, n, tmp);
	free(tmp);
	for (i = 0; i < n; i++)
		if (k == 0 || want[i] != want[k - 1])
			want[k++] = want[i];
	memset(&q, 0, sizeof(q));
	q.want = want;
	q.n = k;
	q.every_unit = every_unit;
	q.ans = sp_xreallocarray(NULL, k ? k : 1, sizeof(*q.ans));
	for (i = 0; i < k; i++)
		set_gap(&q.ans[i], want[i]);
	memset(&b, 0, sizeof(b));
	b.q = &q;
	t = linetab_build(&b, dw, strs, 1, err);
	free(q.ans);
	free(q.ends);
	free(want);
	return t;
}

struct sp_linetab *sp_linetab_new_query(Dwarf *dw, struct sp_strtab *strs, const uint64_t *addrs,
					size_t n, struct sp_error *err)
{
	return build_query(dw, strs, addrs, n, 0, err);
}

struct sp_linetab *sp_linetab_new_query_every_unit(Dwarf *dw, struct sp_strtab *strs,
						   const uint64_t *addrs, size_t n,
						   struct sp_error *err)
{
	return build_query(dw, strs, addrs, n, 1, err);
}

const char *sp_linetab_warning(const struct sp_linetab *t)
{
	return t->has_warning ? t->warning.msg : NULL;
}

struct sp_linetab *sp_linetab_adopt_packed(const struct sp_linetab_packed *packed,
					   struct sp_linetab_run *runs, size_t nruns,
					   const uint8_t *ustate, size_t nunits,
					   const char *warning, struct sp_addr_index *rindex)
{
	struct sp_linetab *t = sp_linetab_adopt_parts(NULL, packed->nrows, runs, nruns, ustate,
						      nunits, warning, rindex);

	t->packed = *packed;
	/* a lookup reads its row's slot before it writes it: on calloc()'s
	 * untouched pages, two faults a page (the zero page mapped, then
	 * copied), and a profile's lookups reach most pages of the slots (500
	 * of them on a 5,000-function program); the pages are made in one call
	 * instead (the slots are a tenth of the rows' size) */
	t->slot = sp_xcalloc_probed(packed->nrows + 1, sizeof(*t->slot));
	t->nchunks = packed->nrows / PACKED_CHUNK + 1;
	t->chunks = sp_xcalloc(t->nchunks, sizeof(*t->chunks));
	if (packed->check) {
		size_t per = sp_line_block_rows(packed->nrows);

		while (((size_t)1 << t->block_shift) < per)
			t->block_shift++;
		t->nblocks = sp_line_nblocks(packed->nrows);
		t->block = sp_xcalloc(t->nblocks + 1, 1);
	}
	pthread_mutex_init(&t->decode_mu, NULL);
	return t;
}

static uint32_t packed_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

void sp_line_pack(uint8_t *p, const struct sp_line *r, uint32_t file)
{
	memcpy(p, &file, 4);
	memcpy(p + 4, &r->line, 4);
	memcpy(p + 8, &r->column, 4);
	memcpy(p + 12, &r->discriminator, 4);
	p[16] = r->is_stmt;
	p[17] = r->end_sequence;
}

/* Packed row i into out (its key and sp_line_pack()'s record); a row of a
 * damaged block (sound 0) into a row without a line, which ends whatever
 * sequence it is in. */
static inline void unpack_row(const struct sp_linetab_packed *pk, size_t i, struct sp_line *out,
			      int sound)
{
	const uint8_t *p = pk->rows + i * SP_LINE_PAYLOAD_SIZE;
	uint32_t file = packed_u32(p);

	memcpy(&out->addr, pk->keys + i * 8, sizeof(out->addr));
	if (!sound) {
		memset((uint8_t *)out + sizeof(out->addr), 0, sizeof(*out) - sizeof(out->addr));
		out->end_sequence = 1;
		return;
	}
	/* an index past the names: no file (the checksum makes it rare) */
	out->file = file && file <= pk->nfiles ? pk->files[file - 1] : NULL;
	out->line = packed_u32(p + 4);
	out->column = packed_u32(p + 8);
	out->discriminator = packed_u32(p + 12);
	out->is_stmt = p[16];
	out->end_sequence = p[17];
}

enum block_state { BLOCK_UNCHECKED, BLOCK_SOUND, BLOCK_DAMAGED };

/* 1 if the block of packed row i is sound (checked on first ask), else 0;
 * under decode_mu, or before other threads see the table. */
static int block_sound(struct sp_linetab *w, size_t i)
{
	size_t b = i >> w->block_shift;

	if (!w->block)
		return 1;
	if (w->block[b] == BLOCK_UNCHECKED) {
		w->block[b] = w->packed.check(w->packed.ctx, b) == 0 ? BLOCK_SOUND : BLOCK_DAMAGED;
		if (w->block[b] == BLOCK_DAMAGED)
			w->damaged = 1;
	}
	return w->block[b] == BLOCK_SOUND;
}

/* block_sound() for rows asked in order from 0 (*next and *sound start
 * at 0): checked once a block. */
static inline int next_sound(struct sp_linetab *w, size_t i, size_t *next, int *sound)
{
	if (i == *next) {
		*sound = block_sound(w, i);
		*next = w->block ? i + ((size_t)1 << w->block_shift) : w->nrows;
	}
	return *sound;
}

static const struct sp_line *decoded_at(const struct sp_linetab *t, uint32_t v)
{
	return &t->chunks[(v - 1) / PACKED_CHUNK][(v - 1) % PACKED_CHUNK];
}

/* Decodes every row into `all`, under decode_mu; returns it. */
static struct sp_line *decode_all(struct sp_linetab *w)
{
	struct sp_line *all = atomic_load_explicit(&w->all, memory_order_relaxed);
	size_t i, next = 0;
	int sound = 0;

	if (!all) {
		all = sp_xreallocarray(NULL, w->nrows + 1, sizeof(*all));
		sp_prefault(all, (w->nrows + 1) * sizeof(*all));
		for (i = 0; i < w->nrows; i++)
			unpack_row(&w->packed, i, &all[i], next_sound(w, i, &next, &sound));
		atomic_store_explicit(&w->all, all, memory_order_release);
	}
	return all;
}

/*
 * Row i of any table, a packed table's decoded on first use. Lookups may
 * come from any thread: a row is decoded under the lock and published by
 * its slot (release), which a reader sees (acquire) with the row and its
 * chunk pointer written before it. Once an eighth of the rows were asked
 * (addr2line's many addresses), all are decoded at once instead, and
 * published the same way; rows handed out before stay where they were.
 */
static const struct sp_line *row(const struct sp_linetab *t, size_t i)
{
	struct sp_linetab *w = (struct sp_linetab *)t; /* a cache: no answer changes */
	const struct sp_line *all, *l;
	uint32_t v;
	size_t at;

	if (t->rows)
		return &t->rows[i];
	if ((all = atomic_load_explicit(&w->all, memory_order_acquire)))
		return &all[i];
	v = atomic_load_explicit(&t->slot[i], memory_order_acquire);
	if (v)
		return decoded_at(t, v);
	pthread_mutex_lock(&w->decode_mu);
	v = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
	if (v) {
		l = decoded_at(t, v);
	} else if (w->ndecoded >= t->nrows / 8) {
		l = &decode_all(w)[i];
	} else {
		at = w->ndecoded++;
		if (!w->chunks[at / PACKED_CHUNK])
			w->chunks[at / PACKED_CHUNK] =
				sp_xreallocarray(NULL, PACKED_CHUNK, sizeof(struct sp_line));
		unpack_row(&t->packed, i, &w->chunks[at / PACKED_CHUNK][at % PACKED_CHUNK],
			   block_sound(w, i));
		v = (uint32_t)at + 1;
		atomic_store_explicit(&w->slot[i], v, memory_order_release);
		l = decoded_at(t, v);
	}
	pthread_mutex_unlock(&w->decode_mu);
	return l;
}

/* Frees what a packed table has beside its rows and index (the decoded
 * rows, the slots, the lock) and lets its file go. */
static void packed_release(struct sp_linetab *t)
{
	size_t k;

	for (k = 0; k < t->nchunks; k++)
		free(t->chunks[k]);
	free(t->chunks);
	free((void *)t->slot);
	free(atomic_load_explicit(&t->all, memory_order_relaxed));
	free(t->block);
	pthread_mutex_destroy(&t->decode_mu);
	if (t->packed.release)
		t->packed.release(t->packed.ctx);
	memset(&t->packed, 0, sizeof(t->packed));
	t->chunks = NULL;
	t->nchunks = 0;
	t->slot = NULL;
	t->block = NULL;
	t->nblocks = 0;
	atomic_store_explicit(&t->all, NULL, memory_order_relaxed);
}

void sp_linetab_unpack(struct sp_linetab *t)
{
	struct sp_line *rows;
	uint64_t first, last;
	size_t i, next = 0;
	int sound = 0;

	if (t->rows || !t->slot || t->ndecoded || atomic_load(&t->all))
		return;
	rows = sp_xreallocarray(NULL, t->nrows + 1, sizeof(*rows));
	sp_prefault(rows, (t->nrows + 1) * sizeof(*rows));
	/* the index of the file's rows gives way to one of these, filled as
	 * they are decoded */
	first = t->nrows ? sp_addr_index_key(&t->rindex, 0) : 0;
	last = t->nrows ? sp_addr_index_key(&t->rindex, t->nrows - 1) : 0;
	sp_addr_index_release(&t->rindex);
	sp_addr_index_begin(&t->rindex, rows, t->nrows, sizeof(*rows), first, last);
	for (i = 0; i < t->nrows; i++) {
		unpack_row(&t->packed, i, &rows[i], next_sound(t, i, &next, &sound));
		sp_addr_index_add(&t->rindex, i, rows[i].addr);
	}
	sp_addr_index_end(&t->rindex);
	packed_release(t);
	t->rows = rows;
}

int sp_linetab_check_all(struct sp_linetab *t)
{
	size_t b;

	for (b = 0; b < t->nblocks; b++)
		block_sound(t, b << t->block_shift);
	return t->damaged ? -1 : 0;
}

/* Every row in one array, for sp_linetab_rows(); *damaged set if a block
 * of a packed table's was found damaged (its rows have no line). */
static const struct sp_line *all_rows(const struct sp_linetab *t, int *damaged)
{
	struct sp_linetab *w = (struct sp_linetab *)t;
	struct sp_line *all;

	if (t->rows || !t->slot) {
		*damaged = t->damaged; /* set before the table was shared */
		return t->rows;
	}
	pthread_mutex_lock(&w->decode_mu);
	all = decode_all(w);
	*damaged = w->damaged;
	pthread_mutex_unlock(&w->decode_mu);
	return all;
}

int sp_linetab_get_parts(const struct sp_linetab *t, struct sp_linetab_parts *p)
{
	int damaged;

	if (t->query)
		return -1;
	p->rows = all_rows(t, &damaged);
	if (damaged)
		return -1;
	p->nrows = t->nrows;
	p->runs = t->runs;
	p->nruns = t->nruns;
	p->ustate = t->ustate;
	p->nunits = t->nunits;
	p->warning = sp_linetab_warning(t);
	p->rindex = &t->rindex;
	return 0;
}

struct sp_linetab *sp_linetab_adopt_parts(struct sp_line *rows, size_t nrows,
					  struct sp_linetab_run *runs, size_t nruns,
					  const uint8_t *ustate, size_t nunits, const char *warning,
					  struct sp_addr_index *rindex)
{
	struct sp_linetab *t = sp_xcalloc(1, sizeof(*t));

	t->rows = rows;
	t->nrows = nrows;
	t->runs = runs;
	t->nruns = nruns;
	t->ustate = sp_xmalloc(nunits + 1);
	memcpy(t->ustate, ustate, nunits);
	t->nunits = t->ustate_alloc = nunits;
	if (warning) {
		sp_error_set(&t->warning, SP_E_CORRUPT, "%s", warning);
		t->has_warning = 1;
	}
	if (rindex) {
		t->rindex = *rindex;
		sp_addr_index_build(&t->uindex, t->runs, t->nruns, sizeof(*t->runs));
	} else {
		build_index(t);
	}
	return t;
}

void sp_linetab_free(struct sp_linetab *t)
{
	if (!t)
		return;
	if (t->slot)
		packed_release(t);
	free(t->rows);
	sp_addr_index_release(&t->rindex);
	sp_addr_index_release(&t->uindex);
	free(t->runs);
	free(t->ustate);
	free(t);
}

/* The last row at or below addr (nrows if none). */
static size_t row_at(const struct sp_linetab *t, uint64_t addr)
{
	return sp_addr_index_find(&t->rindex, addr);
}

/*
 * The row of asked address addr in a query table, or nrows. A binary
 * search, not the address index: the asked addresses may be spread over
 * the whole address space (absolute symbols), which the index's buckets
 * assume they are not.
 */
static size_t query_row(const struct sp_linetab *t, uint64_t addr)
{
	size_t lo = sp_addr_bound(t->rows, t->nrows, sizeof(*t->rows), addr, 0);

	return lo < t->nrows && t->rows[lo].addr == addr ? lo : t->nrows;
}

int sp_linetab_answers(const struct sp_linetab *t, uint64_t addr)
{
	return !t->query || query_row(t, addr) < t->nrows;
}

/*
 * A query table given a question it has no answer for: a bug of the
 * caller, which must ask through sp_linetab_ask() or sp_linetab_answers()
 * first (a wrong answer would show only as a wrong report).
 */
static void full_only(const struct sp_linetab *t, const char *what)
{
	if (t->query)
		SP_BUG("%s() on a query line table", what);
}

/* row_at() starting from *hint: a few steps forward when addr is at or
 * just past the last answer, a search otherwise. */
static size_t row_at_hint(const struct sp_linetab *t, uint64_t addr, size_t *hint)
{
	size_t i = *hint, k;

	if (i < t->nrows && sp_addr_index_key(&t->rindex, i) <= addr) {
		for (k = 0;
		     k < 8 && i + 1 < t->nrows && sp_addr_index_key(&t->rindex, i + 1) <= addr; k++)
			i++;
		if (i + 1 == t->nrows || sp_addr_index_key(&t->rindex, i + 1) > addr) {
			*hint = i;
			return i;
		}
	}
	i = row_at(t, addr);
	if (i < t->nrows)
		*hint = i;
	return i;
}

const struct sp_line *sp_linetab_find_any_at(const struct sp_linetab *t, uint64_t addr,
					     struct sp_linetab_cursor *c)
{
	size_t i;

	full_only(t, __func__);
	i = row_at_hint(t, addr, &c->row);

	if (i == t->nrows || row(t, i)->end_sequence)
		return NULL;
	return row(t, i);
}

/* sp_linetab_find()'s answer from row i (t->nrows: none). */
static const struct sp_line *answer_of(const struct sp_linetab *t, size_t i)
{
	const struct sp_line *l;

	if (i == t->nrows)
		return NULL;
	l = row(t, i);
	if (l->end_sequence || !l->file || l->line == 0)
		return NULL;
	return l;
}

const struct sp_line *sp_linetab_find(const struct sp_linetab *t, uint64_t addr)
{
	size_t i = t->query ? query_row(t, addr) : row_at(t, addr);

	if (t->query && i == t->nrows)
		full_only(t, __func__);
	return answer_of(t, i);
}

int sp_linetab_ask(const struct sp_linetab *t, uint64_t addr, const struct sp_line **line)
{
	size_t i = t->query ? query_row(t, addr) : row_at(t, addr);

	if (t->query && i == t->nrows)
		return -1;
	*line = answer_of(t, i);
	return 0;
}

const struct sp_line *sp_linetab_find_any(const struct sp_linetab *t, uint64_t addr)
{
	size_t i;

	full_only(t, __func__);
	i = row_at(t, addr);

	if (i == t->nrows || row(t, i)->end_sequence)
		return NULL;
	return row(t, i);
}

size_t sp_linetab_rows(const struct sp_linetab *t, const struct sp_line **rows)
{
	int damaged;

	full_only(t, __func__);
	*rows = all_rows(t, &damaged);
	return t->nrows;
}

size_t sp_linetab_unit_runs(const struct sp_linetab *t, const struct sp_linetab_run **runs)
{
	full_only(t, __func__);
	*runs = t->runs;
	return t->nruns;
}

uint32_t sp_linetab_unit_at(const struct sp_linetab *t, uint64_t addr)
{
	struct sp_linetab_cursor c = {0, 0};

	return sp_linetab_unit_at_from(t, addr, &c);
}

uint32_t sp_linetab_unit_at_from(const struct sp_linetab *t, uint64_t addr,
				 struct sp_linetab_cursor *c)
{
	size_t i = c->run, k;

	full_only(t, __func__);

	if (i < t->nruns && t->runs[i].start <= addr) {
		for (k = 0; k < 8 && i + 1 < t->nruns && t->runs[i + 1].start <= addr; k++)
			i++;
		if (i + 1 == t->nruns || t->runs[i + 1].start > addr) {
			c->run = i;
			return addr < t->runs[i].end ? t->runs[i].unit : UINT32_MAX;
		}
	}
	i = sp_addr_index_find(&t->uindex, addr);
	if (i == t->nruns)
		return UINT32_MAX;
	c->run = i;
	return addr < t->runs[i].end ? t->runs[i].unit : UINT32_MAX;
}

enum sp_linetab_unit_state sp_linetab_unit_state(const struct sp_linetab *t, uint32_t unit)
{
	return unit < t->nunits ? (enum sp_linetab_unit_state)t->ustate[unit]
				: SP_LINETAB_UNIT_NONE;
}
