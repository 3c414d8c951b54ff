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
 *  4. A unit whose line program bfd cannot decode answers nothing.
 *
 * Rows with line 0 or no file are kept in the table (bfd finds them, and
 * they stop the search), but sp_linetab_find() returns NULL for them, as
 * gprof treats them as "no line".
 *
 * Not reproduced: bfd consults units in the order it happened to put their
 * ranges into its lookup trie, which depends on which units earlier
 * lookups decoded; and a unit with a function (DIE) but no line row at an
 * address stops bfd's search there. Both only matter when units overlap
 * at real code addresses and disagree; see lines.h for the exact contract.
 */
#include "lines.h"

#include <stdlib.h>
#include <string.h>

#include "dwarf-lineprog.h"
#include "ivsweep.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/strtab.h"

struct sp_linetab {
	struct sp_line *rows;
	uint64_t *addrs; /* rows[i].addr, for the binary search */
	uint32_t *units; /* unit answering rows[i], UINT32_MAX for gaps */
	size_t nrows;
	int has_warning;
	struct sp_error warning;
};

/* A range [start, end) answered by one row of one unit. */
struct piece {
	uint64_t start, end;
	uint64_t rowkey; /* identifies the source row, to merge splits */
	const char *file;
	uint32_t line, column, discriminator;
	uint32_t unit;
	uint8_t is_stmt;
};

/* A run of contiguous pieces of one unit. */
struct chunk {
	uint64_t start, end;
	size_t first, n;
	uint32_t unit;
};

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
	struct sp_lprow *rows;
	size_t nrows, rows_alloc;
	struct seq *seqs;
	size_t nseqs, seqs_alloc;
	struct seq *kept;
	size_t nkept, kept_alloc;
	uint64_t *bps;
	size_t bps_alloc;
	uint32_t unit;
	uint64_t rowkey;
	struct piece *pieces;
	size_t npieces, pieces_alloc;
	struct chunk *chunks;
	size_t nchunks, chunks_alloc;
	struct sp_linetab *t;
	size_t out_alloc;
	uint64_t out_end; /* end of the last piece written, 0 if none */
	uint64_t out_key;
	int out_any;
};

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

static void new_seq(struct build *b, const struct sp_lprow *row)
{
	struct seq *s;

	SP_ALLOC_GROW(b->seqs, b->nseqs + 1, b->seqs_alloc);
	s = &b->seqs[b->nseqs++];
	s->first = b->nrows;
	s->n = 1;
	s->low = row->addr;
	s->lcl_head = 0;
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

static int add_row(void *ctx, const struct sp_lprow *row)
{
	struct build *b = ctx;
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

static void add_piece(struct build *b, const struct sp_lprow *r, uint64_t key, uint64_t start,
		      uint64_t end)
{
	struct piece *p;

	SP_ALLOC_GROW(b->pieces, b->npieces + 1, b->pieces_alloc);
	p = &b->pieces[b->npieces++];
	p->start = start;
	p->end = end;
	p->rowkey = key;
	p->file = r->file;
	p->line = r->line;
	p->column = r->column;
	p->discriminator = r->discriminator;
	p->unit = b->unit;
	p->is_stmt = r->is_stmt;
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
 * When every kept sequence is a proper, disjoint range, bfd's search finds
 * exactly the sequence holding an address. Otherwise (a sequence ending
 * below its start in a broken program) the search can take odd turns, so
 * ask it at every boundary: its answer is constant between boundaries.
 */
static void emit_unit(struct build *b)
{
	size_t i, nb = 0;

	for (i = 0; i < b->nkept; i++)
		if (b->kept[i].low > b->kept[i].high ||
		    (i > 0 && b->kept[i].low < b->kept[i - 1].high))
			break;
	if (i == b->nkept) {
		for (i = 0; i < b->nkept; i++)
			if (b->kept[i].low < b->kept[i].high)
				emit_seq(b, &b->kept[i], b->kept[i].low, b->kept[i].high);
		return;
	}
	SP_ALLOC_GROW(b->bps, 2 * b->nkept, b->bps_alloc);
	for (i = 0; i < b->nkept; i++) {
		b->bps[nb++] = b->kept[i].low;
		b->bps[nb++] = b->kept[i].high;
	}
	qsort(b->bps, nb, sizeof(*b->bps), u64_cmp);
	for (i = 0; i + 1 < nb; i++) {
		const struct seq *s;

		if (b->bps[i] == b->bps[i + 1])
			continue;
		s = search_seq(b, b->bps[i]);
		if (s)
			emit_seq(b, s, b->bps[i], b->bps[i + 1]);
	}
}

/* Decodes unit u and appends its pieces; negative + err if bfd would not. */
static int read_unit(struct build *b, struct sp_lineprog *lp, const struct sp_dwsecs *secs,
		     const struct sp_dwunit *u, struct sp_strtab *strs, struct sp_error *err)
{
	b->nrows = 0;
	b->nseqs = 0;
	if (sp_lineprog_open(lp, secs, u, strs, err) < 0 || sp_lineprog_run(lp, add_row, b, err))
		return -SP_E_CORRUPT;
	if (b->nseqs == 0)
		return 0;
	sort_seqs(b);
	emit_unit(b);
	return 0;
}

/* ---- rule 3: merging units ---- */

static void out_push(struct build *b, uint64_t addr, const struct piece *p)
{
	struct sp_linetab *t = b->t;
	struct sp_line *l;

	if (t->nrows == b->out_alloc) {
		b->out_alloc = b->out_alloc ? 2 * b->out_alloc : 1024;
		t->rows = sp_xreallocarray(t->rows, b->out_alloc, sizeof(*t->rows));
		t->units = sp_xreallocarray(t->units, b->out_alloc, sizeof(*t->units));
	}
	l = &t->rows[t->nrows];
	memset(l, 0, sizeof(*l));
	l->addr = addr;
	if (p) {
		l->file = p->file;
		l->line = p->line;
		l->column = p->column;
		l->discriminator = p->discriminator;
		l->is_stmt = p->is_stmt;
	} else {
		l->end_sequence = 1;
	}
	t->units[t->nrows++] = p ? p->unit : UINT32_MAX;
}

/* Appends "[start, end) answers p", after a gap row if there is a hole. */
static void output(struct build *b, uint64_t start, uint64_t end, const struct piece *p)
{
	if (b->out_any && start == b->out_end && p->rowkey == b->out_key) {
		b->out_end = end;
		return;
	}
	if (b->out_any && start > b->out_end)
		out_push(b, b->out_end, NULL);
	out_push(b, start, p);
	b->out_any = 1;
	b->out_end = end;
	b->out_key = p->rowkey;
}

static void make_chunks(struct build *b)
{
	size_t i;

	b->nchunks = 0;
	for (i = 0; i < b->npieces; i++) {
		const struct piece *p = &b->pieces[i];
		struct chunk *c = b->nchunks ? &b->chunks[b->nchunks - 1] : NULL;

		if (c && c->unit == p->unit && c->end == p->start) {
			c->end = p->end;
			c->n++;
			continue;
		}
		SP_ALLOC_GROW(b->chunks, b->nchunks + 1, b->chunks_alloc);
		c = &b->chunks[b->nchunks++];
		c->start = p->start;
		c->end = p->end;
		c->first = i;
		c->n = 1;
		c->unit = p->unit;
	}
}

static int chunk_cmp(const void *pa, const void *pb)
{
	const struct chunk *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->unit != b->unit)
		return a->unit < b->unit ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static void resolve_out(void *ctx, uint64_t start, uint64_t end, const struct sp_iv *w)
{
	struct build *b = ctx;

	output(b, start, end, &b->pieces[w->id]);
}

/* Overlapping chunks [ci, cj): at every address the first unit wins. */
static void resolve(struct build *b, size_t ci, size_t cj)
{
	struct sp_iv *iv;
	size_t n = 0, k = 0, c, i;

	for (c = ci; c < cj; c++)
		n += b->chunks[c].n;
	iv = sp_xreallocarray(NULL, n, sizeof(*iv));
	for (c = ci; c < cj; c++)
		for (i = 0; i < b->chunks[c].n; i++, k++) {
			const struct piece *p = &b->pieces[b->chunks[c].first + i];

			iv[k].start = p->start;
			iv[k].end = p->end;
			iv[k].key1 = p->unit;
			iv[k].key2 = 0;
			iv[k].id = b->chunks[c].first + i;
		}
	sp_iv_sort(iv, n);
	sp_iv_sweep(iv, n, resolve_out, b);
	free(iv);
}

static void merge_units(struct build *b)
{
	size_t i = 0, j, k;

	make_chunks(b);
	qsort(b->chunks, b->nchunks, sizeof(*b->chunks), chunk_cmp);
	while (i < b->nchunks) {
		uint64_t end = b->chunks[i].end;

		for (j = i + 1; j < b->nchunks && b->chunks[j].start < end; j++)
			if (b->chunks[j].end > end)
				end = b->chunks[j].end;
		if (j == i + 1) {
			const struct chunk *c = &b->chunks[i];

			for (k = c->first; k < c->first + c->n; k++)
				output(b, b->pieces[k].start, b->pieces[k].end, &b->pieces[k]);
		} else {
			resolve(b, i, j);
		}
		i = j;
	}
	if (b->out_any)
		out_push(b, b->out_end, NULL);
}

/* ---- API ---- */

static void build_release(struct build *b)
{
	free(b->rows);
	free(b->seqs);
	free(b->kept);
	free(b->bps);
	free(b->pieces);
	free(b->chunks);
}

static int read_units(struct build *b, Dwarf *dw, struct sp_strtab *strs, int lenient,
		      struct sp_error *err)
{
	struct sp_lineprog lp;
	struct sp_dwsecs secs;
	struct sp_dwunit u;
	Dwarf_CU *cu = NULL;
	uint32_t index = 0;
	int have_offset0 = 0, r;

	if (sp_dwsecs_load(dw, &secs, err) < 0)
		return -SP_E_LIBELF;
	sp_lineprog_init(&lp);
	while ((r = sp_dwunit_next(dw, &cu, &u, err)) > 0) {
		struct sp_error uerr = SP_ERROR_INIT;

		b->unit = index++;
		/* bfd decodes the program at offset 0 once, for the first unit */
		if (!u.has_stmt_list || (u.line_offset == 0 && have_offset0))
			continue;
		if (read_unit(b, &lp, &secs, &u, strs, &uerr) == 0) {
			have_offset0 |= u.line_offset == 0;
			continue;
		}
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
	return r;
}

static struct sp_linetab *linetab_build(Dwarf *dw, struct sp_strtab *strs, int lenient,
					struct sp_error *err)
{
	struct sp_linetab *t = sp_xcalloc(1, sizeof(*t));
	struct build b;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.t = t;
	if (read_units(&b, dw, strs, lenient, err) < 0) {
		build_release(&b);
		sp_linetab_free(t);
		return NULL;
	}
	merge_units(&b);
	build_release(&b);
	t->addrs = sp_xreallocarray(NULL, t->nrows ? t->nrows : 1, sizeof(*t->addrs));
	for (i = 0; i < t->nrows; i++)
		t->addrs[i] = t->rows[i].addr;
	return t;
}

struct sp_linetab *sp_linetab_new(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err)
{
	return linetab_build(dw, strs, 0, err);
}

struct sp_linetab *sp_linetab_new_lenient(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err)
{
	return linetab_build(dw, strs, 1, err);
}

const char *sp_linetab_warning(const struct sp_linetab *t)
{
	return t->has_warning ? t->warning.msg : NULL;
}

void sp_linetab_free(struct sp_linetab *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->addrs);
	free(t->units);
	free(t);
}

/* Index of the last row at or below addr, or nrows if there is none. */
static size_t row_at(const struct sp_linetab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->addrs[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : t->nrows;
}

const struct sp_line *sp_linetab_find(const struct sp_linetab *t, uint64_t addr)
{
	size_t i = row_at(t, addr);
	const struct sp_line *l;

	if (i == t->nrows)
		return NULL;
	l = &t->rows[i];
	if (l->end_sequence || !l->file || l->line == 0)
		return NULL;
	return l;
}

const struct sp_line *sp_linetab_find_any(const struct sp_linetab *t, uint64_t addr)
{
	size_t i = row_at(t, addr);

	if (i == t->nrows || t->rows[i].end_sequence)
		return NULL;
	return &t->rows[i];
}

size_t sp_linetab_rows(const struct sp_linetab *t, const struct sp_line **rows)
{
	*rows = t->rows;
	return t->nrows;
}

uint32_t sp_linetab_unit_at(const struct sp_linetab *t, uint64_t addr)
{
	size_t i = row_at(t, addr);

	return i == t->nrows ? UINT32_MAX : t->units[i];
}

const uint32_t *sp_linetab_units(const struct sp_linetab *t)
{
	return t->units;
}
