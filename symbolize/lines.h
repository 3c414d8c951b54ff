/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: the line table, which answers "which source file
 * and line is this address" exactly as libbfd 2.40's bfd_find_nearest_line
 * does for gprof (see lines.c for the rules it reproduces).
 */
#ifndef SYMPROF_SYMBOLIZE_LINES_H
#define SYMPROF_SYMBOLIZE_LINES_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct sp_error;
struct sp_strtab;
struct sp_linetab;

/*
 * One row of the effective table: from `addr` up to the next row's addr,
 * lookups answer this row. A row with end_sequence set starts a range that
 * has no answer (it carries no file and line 0).
 */
struct sp_line {
	uint64_t addr;
	const char *file; /* path composed as bfd's concat_filename does;
			     interned in the caller's strtab; NULL if none */
	uint32_t line, column, discriminator;
	uint8_t is_stmt, end_sequence;
};

/*
 * Reads every unit's line program once and builds one sorted table. `strs`
 * interns the file names (they stay valid as long as strs does; the table
 * keeps no pointer into `dw`, which may be closed afterwards). Returns NULL
 * and fills err if the DWARF cannot be read or any unit's line program is
 * corrupt (the message names the unit and says what is wrong).
 */
struct sp_linetab *sp_linetab_new(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err);

/*
 * Like sp_linetab_new() but treats a corrupt line program the way bfd does:
 * that unit contributes nothing and the others still answer. The first
 * such problem is kept, see sp_linetab_warning(). NULL + err only when the
 * sections cannot be read at all.
 */
struct sp_linetab *sp_linetab_new_lenient(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err);

/* A set of units, by the offset of their DIE in .debug_info (sorted). */
struct sp_unit_set {
	const uint64_t *die_off;
	size_t n;
};

/*
 * sp_linetab_new_lenient() restricted to some units: the others count as
 * units without a line program (and so have no functions either, for
 * dwarf-funcs.c). For an address that only those units' ranges hold the
 * answers are the full table's; used to read a few units of a large file.
 */
struct sp_linetab *sp_linetab_new_units(Dwarf *dw, struct sp_strtab *strs,
					const struct sp_unit_set *only, struct sp_error *err);

/*
 * sp_linetab_new_lenient() for a caller whose only questions will be
 * sp_linetab_find() at the n addresses `addrs` (any order, repeats
 * allowed): a query table, which holds their answers only and is much
 * cheaper to build (no table of every row). sp_linetab_find() there gives
 * the full table's answers; any other address, and the functions that
 * need every row (sp_linetab_rows(), sp_linetab_find_any*(), the unit
 * runs), are a bug that aborts: ask through sp_linetab_ask() (or
 * sp_linetab_answers() first) and build the full table when it says no.
 *
 * As bfd, it reads no unit whose DIE gives ranges (DW_AT_low_pc and
 * DW_AT_high_pc, or DW_AT_ranges) that hold none of the addresses: such a
 * unit gives no answer, no warning and its state stays
 * SP_LINETAB_UNIT_NONE. Its rows could differ from the full table's only
 * for a line program with rows outside its unit's ranges, which compilers
 * do not write. Otherwise warnings and unit states are the full table's.
 */
struct sp_linetab *sp_linetab_new_query(Dwarf *dw, struct sp_strtab *strs, const uint64_t *addrs,
					size_t n, struct sp_error *err);

/* sp_linetab_new_query() reading every unit, whatever its ranges: its
 * answers are the full table's for any line program (the tests compare
 * the two on damaged ones). */
struct sp_linetab *sp_linetab_new_query_every_unit(Dwarf *dw, struct sp_strtab *strs,
						   const uint64_t *addrs, size_t n,
						   struct sp_error *err);

/* Whether t answers sp_linetab_find(t, addr): always, unless it is a query
 * table and addr was not asked. */
int sp_linetab_answers(const struct sp_linetab *t, uint64_t addr);
/* sp_linetab_answers() and sp_linetab_find() with one search: returns 0
 * and sets *line to sp_linetab_find()'s answer, or -1 when t cannot answer. */
int sp_linetab_ask(const struct sp_linetab *t, uint64_t addr, const struct sp_line **line);

/*
 * sp_linetab_new_lenient() that tells, as it goes, what became of each
 * unit's line program: unit_done(ctx, unit, state) once per unit in unit
 * order as soon as its state is final, then unit_done(ctx, UINT32_MAX, 0)
 * at the end (also after an error). For a reader of the units' DIEs on
 * another thread (dwarf-funcs.c), which needs the states but not the rows.
 */
struct sp_linetab *sp_linetab_new_watched(Dwarf *dw, struct sp_strtab *strs,
					  void (*unit_done)(void *ctx, uint32_t unit, int state),
					  void *ctx, struct sp_error *err);

/*
 * The first problem sp_linetab_new_lenient() skipped over, or where bfd
 * stops reading units (a unit whose own ranges it cannot read; both
 * variants), or NULL.
 */
const char *sp_linetab_warning(const struct sp_linetab *t);

void sp_linetab_free(struct sp_linetab *t);

/*
 * Exactly the file and line bfd_find_nearest_line() returns for `addr`:
 * NULL when bfd returns no file or line 0. The row is borrowed (valid until
 * sp_linetab_free()); its addr is where its range starts, not `addr`.
 * lines.c lists the corner cases where bfd's answer depends on its earlier
 * lookups and this table gives bfd's first-lookup answer instead.
 */
const struct sp_line *sp_linetab_find(const struct sp_linetab *t, uint64_t addr);

/*
 * All rows in address order, end-of-sequence rows included, for line-level
 * reports; returns their number. Consecutive rows describe consecutive
 * ranges: rows that bfd can never answer (overwritten, overlapped by other
 * sequences, empty ranges) are not in it.
 */
size_t sp_linetab_rows(const struct sp_linetab *t, const struct sp_line **rows);

/* ---- for the index cache (dwcache.c) ---- */

/* What a table is made of (borrowed from it; file names point into the
 * strtab it was built with). */
struct sp_addr_index;

struct sp_linetab_parts {
	const struct sp_line *rows;
	size_t nrows;
	const struct sp_linetab_run *runs;
	size_t nruns;
	const uint8_t *ustate; /* enum sp_linetab_unit_state per unit */
	size_t nunits;
	const char *warning;		    /* sp_linetab_warning() */
	const struct sp_addr_index *rindex; /* the rows' address index */
};

/* 0 and p filled, or -1 for a query table or a packed table with a
 * damaged block (neither is cached). */
int sp_linetab_get_parts(const struct sp_linetab *t, struct sp_linetab_parts *p);
/* The table those parts make: the same answers as the one they came
 * from. It takes rows and runs (malloc'ed, one spare entry each) and
 * rindex, the rows' address index (addrindex.h) when the caller built it
 * while filling them (NULL: built here); ustate and warning are copied. */
struct sp_linetab *sp_linetab_adopt_parts(struct sp_line *rows, size_t nrows,
					  struct sp_linetab_run *runs, size_t nruns,
					  const uint8_t *ustate, size_t nunits, const char *warning,
					  struct sp_addr_index *rindex);

/*
 * A table whose rows stay as the index cache stores them, in a mapped
 * file, and are decoded a few at a time as lookups reach them: the nrows
 * addresses (8 bytes each, sorted, any alignment) at keys, and at rows a
 * record of SP_LINE_PAYLOAD_SIZE bytes per row, little-endian: the file
 * (4: 0 for none, else files[file - 1]), line, column and discriminator
 * (4 each), is_stmt and end_sequence (1 each). The records are checked
 * in blocks of sp_line_block_rows() rows (the last one shorter) before
 * any row of the block is decoded: check(ctx, block) returns 0 if the block
 * is sound, else -1, and the rows of a block that is not are decoded as
 * rows without a line (the caller reports the damage: see dwcache.c).
 * check NULL: every block is sound. release(ctx), when set, is called by
 * sp_linetab_free() (it unmaps the file and frees files[]).
 */
#define SP_LINE_PAYLOAD_SIZE 18

/* The rows of a block of records in a table of nrows: 32, doubled while
 * that makes more than 1,024 blocks (small blocks make a lookup check
 * little, few make a check of them all cheap). */
static inline size_t sp_line_block_rows(size_t nrows)
{
	size_t n = 32;

	while (nrows / n > 1024)
		n *= 2;
	return n;
}

/* The number of such blocks of a table of nrows. */
static inline size_t sp_line_nblocks(size_t nrows)
{
	return (nrows + sp_line_block_rows(nrows) - 1) / sp_line_block_rows(nrows);
}

/* Row r but its address as such a record at p, its file given as `file`
 * (0 or 1 + an index into the names the reader will have). */
void sp_line_pack(uint8_t *p, const struct sp_line *r, uint32_t file);

struct sp_linetab_packed {
	const uint8_t *keys;
	const uint8_t *rows;
	size_t nrows;
	const char *const *files;
	size_t nfiles;
	int (*check)(void *ctx, size_t block);
	void (*release)(void *ctx);
	void *ctx;
};

/* sp_linetab_adopt_parts() for packed rows; rindex (required) indexes
 * their keys (stride 8) and is taken. */
struct sp_linetab *sp_linetab_adopt_packed(const struct sp_linetab_packed *packed,
					   struct sp_linetab_run *runs, size_t nruns,
					   const uint8_t *ustate, size_t nunits,
					   const char *warning, struct sp_addr_index *rindex);

/* Makes a packed table an ordinary one, every row decoded and the file
 * released: for a caller about to ask most rows (addr2line), before any
 * other thread can see the table. Does nothing to other tables. */
void sp_linetab_unpack(struct sp_linetab *t);

/* 0 if every block of a packed table's records is sound (checked now, if
 * not yet), else -1; 0 for other tables. Before other threads see t. */
int sp_linetab_check_all(struct sp_linetab *t);

/* ---- for dwarf-funcs.c ---- */

/*
 * The unit whose line table answers for addr (its position in .debug_info
 * order, as counted by sp_dwunit_next()), or UINT32_MAX if none does.
 */
uint32_t sp_linetab_unit_at(const struct sp_linetab *t, uint64_t addr);

/* What became of each unit's line program. */
enum sp_linetab_unit_state {
	SP_LINETAB_UNIT_NONE, /* no DW_AT_stmt_list */
	SP_LINETAB_UNIT_OK,
	SP_LINETAB_UNIT_DEFINES, /* ok, and it uses DW_LNE_define_file */
	SP_LINETAB_UNIT_FAILED,	 /* bfd cannot decode it: the unit is ignored */
	SP_LINETAB_UNIT_SHARED,	 /* offset 0 again: bfd reuses the first one's table */
};

/* The state of unit `unit` (as counted by sp_dwunit_next()). */
enum sp_linetab_unit_state sp_linetab_unit_state(const struct sp_linetab *t, uint32_t unit);

/* Stretches of addresses answered by one unit, in address order. */
struct sp_linetab_run {
	uint64_t start, end;
	uint32_t unit;
};

size_t sp_linetab_unit_runs(const struct sp_linetab *t, const struct sp_linetab_run **runs);

/*
 * The row bfd finds for addr even when it has line 0 or no file (what
 * addr2line prints as "file:?" or "??:0"); NULL only where bfd finds none.
 */
const struct sp_line *sp_linetab_find_any(const struct sp_linetab *t, uint64_t addr);

/*
 * Where the last lookup ended, so that lookups at ascending addresses (a
 * walk over .text) step forward instead of searching. Zero-initialise it;
 * any address order stays correct, only slower.
 */
struct sp_linetab_cursor {
	size_t row, run;
};

/* sp_linetab_find_any() and sp_linetab_unit_at() from a cursor. */
const struct sp_line *sp_linetab_find_any_at(const struct sp_linetab *t, uint64_t addr,
					     struct sp_linetab_cursor *c);
uint32_t sp_linetab_unit_at_from(const struct sp_linetab *t, uint64_t addr,
				 struct sp_linetab_cursor *c);

#endif
