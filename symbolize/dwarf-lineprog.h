/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: a reader of one unit's line-number program that
 * decodes it the way binutils 2.40 does (see dwarf-lineprog.c). Shared by
 * lines.c (the line table) and dwarf-funcs.c (which needs the same file
 * names for DW_AT_call_file).
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_LINEPROG_H
#define SYMPROF_SYMBOLIZE_DWARF_LINEPROG_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

#include "dwarf-units.h"

struct sp_error;
struct sp_strtab;

/* ---- line-number programs ---- */

struct sp_lprow {
	uint64_t addr;
	const char *file; /* composed and interned; NULL when bfd has none */
	uint32_t line, column, discriminator;
	uint8_t op_index, is_stmt, end_sequence;
};

struct sp_lpfile {
	const char *name; /* in the section data; NULL as bfd reads it */
	uint32_t dir;
};

/*
 * A unit's line program: the header after sp_lineprog_open(), the file
 * table growing with DW_LNE_define_file while sp_lineprog_run() decodes.
 * The arrays are reused from one unit to the next: init once, open per
 * unit, release at the end.
 */
struct sp_lineprog {
	const struct sp_dwsecs *secs;
	const struct sp_dwunit *unit;
	struct sp_strtab *strs;
	const uint8_t *prog, *end; /* the opcodes */
	int version;
	uint8_t min_insn_len, max_ops, default_is_stmt, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *std_lengths; /* opcode_base - 1 bytes, for opcodes 1.. */
	const char **dirs;
	size_t ndirs, dirs_alloc;
	struct sp_lpfile *files;
	size_t nfiles, files_alloc;
	const char **names; /* composed names by file index; NULL: not yet */
	size_t names_alloc;
	const char *unknown;  /* interned "<unknown>" */
	int fast;	      /* special opcodes precomputed (not VLIW) */
	const uint64_t *want; /* sp_lineprog_want(), or NULL */
	size_t nwant;
	int defines_files; /* the program used DW_LNE_define_file */
	uint32_t spec_addr[256], spec_line[256];
};

void sp_lineprog_init(struct sp_lineprog *lp);
void sp_lineprog_release(struct sp_lineprog *lp);

/*
 * Reads the header of unit u's program. Fails (negative, err filled with
 * the reason bfd would print) wherever bfd's decode_line_info fails, in
 * which case bfd ignores the whole unit.
 */
int sp_lineprog_open(struct sp_lineprog *lp, const struct sp_dwsecs *secs,
		     const struct sp_dwunit *u, struct sp_strtab *strs, struct sp_error *err);

/*
 * The name bfd's concat_filename() composes for file number `file` as a
 * DW_LNS_set_file, DW_AT_call_file or DW_AT_decl_file operand: interned,
 * "<unknown>" for a bad number, NULL only for an empty name.
 */
const char *sp_lineprog_filename(struct sp_lineprog *lp, uint64_t file);

/* Receives rows[0 .. n), the next n rows in program order. */
typedef int (*sp_lprow_fn)(void *ctx, const struct sp_lprow *rows, size_t n);

/*
 * Decodes the opcodes, handing row_fn (may be NULL) every row bfd would
 * add, in program order, a batch at a time. Stops with the callback's
 * nonzero return. Negative with err filled where bfd's decoder gives up on
 * the unit (rows decoded since the last batch are then not handed over).
 */
int sp_lineprog_run(struct sp_lineprog *lp, sp_lprow_fn row_fn, void *ctx, struct sp_error *err);

/*
 * For a caller that only needs the rows around some addresses (`want`,
 * sorted; NULL, the default after sp_lineprog_open(), for every row):
 * sp_lineprog_run() may then leave out a row R that comes between two
 * rows P and R' that it hands over, where P <= R <= R' in (address,
 * op_index) order, R' does not end the sequence, R does not start it, and
 * no wanted address lies in [P.addr, R'.addr). Whatever bfd's rules make
 * of such a run, the row answering a wanted address is then handed over,
 * and so is every row out of order. `want` must outlive the run.
 */
void sp_lineprog_want(struct sp_lineprog *lp, const uint64_t *want, size_t n);

#endif
