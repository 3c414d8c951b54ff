/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: functions and inline chains from DWARF, with the
 * answers of addr2line -f -i (libbfd's bfd_find_nearest_line followed by
 * bfd_find_inliner_info). See dwarf-funcs.c for the rules.
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_FUNCS_H
#define SYMPROF_SYMBOLIZE_DWARF_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "lines.h"

struct sp_error;
struct sp_strtab;
struct sp_dwfuncs;

/*
 * One frame of an inline chain; frames[0] is the innermost. Frame i names
 * function i and the place in it: for frame 0 the line-table row of the
 * address, for the others the call site of the frame below (its
 * DW_AT_call_file and DW_AT_call_line). Strings are interned in the strtab
 * given to sp_dwfuncs_new(); NULL where addr2line prints "??".
 */
struct sp_inline_frame {
	const char *name; /* linkage name if any, else DW_AT_name; see below */
	const char *file; /* composed like the line table's names */
	uint32_t line;	  /* 0 if unknown */
	uint32_t fn;	  /* the function, for sp_dwfuncs_fn_name() ... */
};

/* A function (subprogram, entry point or inlined instance). */
struct sp_dwfn {
	const char *name;
	const char *call_file;
	uint64_t low;	 /* bfd's arange.low: the start of its first range */
	uint32_t caller; /* enclosing function of an inlined one, else UINT32_MAX */
	uint32_t call_line;
	uint32_t unit;
	uint8_t is_linkage, inlined;
};

/* An allocated section and its function symbols, best first per address. */
struct sp_dwsymsec {
	uint64_t lo, hi;
	size_t first, n; /* into sym_addr / sym_name */
};

/* A symbol bfd does not pick (an alias of the one it does). */
struct sp_dwalias {
	uint64_t addr;
	const char *name;
};

/* A function of no linkage name, and its origin in the origins. */
struct sp_dwnolink {
	uint64_t fn; /* first: the key of sp_lower_bound_u64() */
	uint32_t origin;
};

/*
 * Reads every DW_TAG_subprogram, DW_TAG_entry_point and
 * DW_TAG_inlined_subroutine of the units the line table could read, and
 * the ELF symbol table of dw's file. `lines` must come from the same dw and
 * outlive the result; neither dw nor lines is needed by sp_dwfuncs_find().
 * NULL + err if the sections or the DIEs cannot be read.
 */
struct sp_dwfuncs *sp_dwfuncs_new(Dwarf *dw, const struct sp_linetab *lines, struct sp_strtab *strs,
				  struct sp_error *err);
void sp_dwfuncs_free(struct sp_dwfuncs *f);

/*
 * sp_dwfuncs_new() in two steps, so that the DIEs can be read on another
 * thread while the line table is built: sp_dwfuncs_read() asks state(ctx,
 * unit) for each unit in order (what became of its line program, as
 * sp_linetab_unit_state() will tell; the call may wait for it), and
 * sp_dwfuncs_finish() completes the table with the line table itself.
 * Lookups need both steps.
 */
typedef enum sp_linetab_unit_state (*sp_dwfuncs_state_fn)(void *ctx, uint32_t unit);
struct sp_dwfuncs *sp_dwfuncs_read(Dwarf *dw, sp_dwfuncs_state_fn state, void *ctx,
				   struct sp_strtab *strs, struct sp_error *err);
void sp_dwfuncs_finish(struct sp_dwfuncs *f, const struct sp_linetab *lines);

/*
 * For tests: on != 0 makes sp_dwfuncs_read() walk every unit's DIEs
 * through libdw, the path it takes for a unit whose abbreviations it
 * does not read itself (dwarf-dies.h). Set before any file is read.
 */
void sp_dwfuncs_set_libdw_walk(int on);

/*
 * The ELF symbols alone (for files without DWARF): sp_dwfuncs_find() then
 * finds nothing and sp_dwfuncs_symbol() answers from `elf`'s .symtab, or
 * its .dynsym when it has no .symtab, as bfd does. Never NULL.
 */
struct sp_dwfuncs *sp_dwfuncs_new_syms(Elf *elf, struct sp_strtab *strs);

/*
 * Fills up to max frames of the chain at addr, innermost first, and
 * returns how many it filled: 0 if no function covers addr (addr2line then
 * names the ELF symbol, see sp_dwfuncs_symbol()). Frame 0's name is the
 * function's linkage name, or its DW_AT_name in C-like languages; for other
 * functions without a linkage name (C++ main, extern "C"), it is the ELF
 * symbol, as bfd prefers it. No allocation; safe to call concurrently.
 */
size_t sp_dwfuncs_find(const struct sp_dwfuncs *f, uint64_t addr, struct sp_inline_frame *frames,
		       size_t max);

/* A position for lookups at ascending addresses (zero-initialised); any
 * order stays correct, only slower. */
struct sp_dwfuncs_cursor {
	size_t seg, sym;
	struct sp_linetab_cursor lines;
};

/* sp_dwfuncs_find() and sp_dwfuncs_symbol() from a cursor. */
size_t sp_dwfuncs_find_at(const struct sp_dwfuncs *f, uint64_t addr, struct sp_inline_frame *frames,
			  size_t max, struct sp_dwfuncs_cursor *c);
const char *sp_dwfuncs_symbol_at(const struct sp_dwfuncs *f, uint64_t addr,
				 struct sp_dwfuncs_cursor *c);

/* What one bfd remembers between lookups (rule 8 of dwarf-funcs.c). */
struct sp_dwfuncs_state {
	uint8_t *named;	   /* per function: bfd has named it */
	const char **name; /* the name it kept */
	struct sp_dwfuncs_cursor cursor;
};

void sp_dwfuncs_state_init(struct sp_dwfuncs_state *st, const struct sp_dwfuncs *f);
void sp_dwfuncs_state_release(struct sp_dwfuncs_state *st);
/* sp_dwfuncs_find() as one addr2line process answers addr after the
 * lookups recorded in st, which it updates. */
size_t sp_dwfuncs_find_state(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st, uint64_t addr,
			     struct sp_inline_frame *frames, size_t max);
/* The same without the line table: frame 0's file and line are NULL and
 * 0 (the inlined frames' call sites are there); names and st the same. */
size_t sp_dwfuncs_find_state_names(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st,
				   uint64_t addr, struct sp_inline_frame *frames, size_t max);

/*
 * Turns the chain sp_dwfuncs_find() gave for addr (frames[i].name and
 * .fn of n frames) into the one sp_dwfuncs_find_state() gives after the
 * lookups recorded in st, and records this lookup in st: the answers of
 * one process, found in another order.
 */
void sp_dwfuncs_state_apply(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st, uint64_t addr,
			    struct sp_inline_frame *frames, size_t n);

/*
 * The ELF function symbol bfd names for addr when DWARF does not (its
 * _bfd_elf_find_function: the nearest symbol at or below addr in the same
 * section), or NULL.
 */
const char *sp_dwfuncs_symbol(const struct sp_dwfuncs *f, uint64_t addr);

/* The same, and the file bfd names with that symbol when DWARF has none
 * (its last STT_FILE before it, see _bfd_elf_find_function), or NULL. */
const char *sp_dwfuncs_symbol_file(const struct sp_dwfuncs *f, uint64_t addr, const char **file);

/*
 * The addresses at which the answers of sp_dwfuncs_find() and
 * sp_dwfuncs_symbol() may change: the starts of the function segments and
 * of the ELF symbols (each array ascending within its sections; borrowed).
 */
void sp_dwfuncs_change_points(const struct sp_dwfuncs *f, const uint64_t **segs, size_t *nsegs,
			      const uint64_t **syms, size_t *nsyms);

/* The symbol table libbfd reads a file's symbols from: its .symtab when
 * that has more than the null symbol, else its .dynsym; NULL if none. */
Elf_Scn *sp_elf_symtab(Elf *elf, GElf_Shdr *sh);

/* ---- for the index cache (dwcache.c) ---- */

/*
 * What a table is made of: borrowed from a table by sp_dwfuncs_get_parts()
 * (names point into its strtab), or arrays malloc'ed (one spare entry
 * each) to be given to sp_dwfuncs_adopt_parts().
 */
struct sp_dwfuncs_parts {
	struct sp_dwfn *fns;
	size_t nfns;
	uint64_t *seg_start;
	uint32_t *seg_fn;
	size_t nsegs;
	struct sp_dwsymsec *secs;
	size_t nsecs;
	uint64_t *sym_addr;
	const char **sym_name;
	const char **sym_file;
	size_t nsyms;
	struct sp_dworigin *origins; /* only .outline is kept */
	size_t norigins;
	struct sp_dwnolink *nolink;
	size_t nnolink;
	struct sp_dwalias *aliases;
	size_t naliases;
};

/* The parts of f, borrowed: not to be changed or freed. */
void sp_dwfuncs_get_parts(const struct sp_dwfuncs *f, struct sp_dwfuncs_parts *p);
/*
 * The table that malloc'ed parts make: it takes them (p's arrays are NULL
 * afterwards) and answers with `lines` (made from the same file's parts)
 * as the one they came from, but without DIEs: its functions without a
 * linkage name cannot be named by names.c until sp_dwfuncs_needs_dies()
 * says no (the caller reads the DWARF instead).
 */
struct sp_dwfuncs *sp_dwfuncs_adopt_parts(struct sp_dwfuncs_parts *p,
					  const struct sp_linetab *lines, struct sp_strtab *strs);
/* The same for the parts of a table of symbols alone (sp_dwfuncs_new_syms(),
 * saved by the symbol cache): its names, wherever they are (they must stay
 * until the table is freed), are interned as lookups answer with them. */
struct sp_dwfuncs *sp_dwfuncs_adopt_syms(struct sp_dwfuncs_parts *p, struct sp_strtab *strs);
/* Frees malloc'ed parts not given to a table. */
void sp_dwfuncs_parts_release(struct sp_dwfuncs_parts *p);
/* 1 if naming function fn (sp_name_frame()) would read a DIE this table
 * made from parts does not have. */
int sp_dwfuncs_needs_dies(struct sp_dwfuncs *f, uint32_t fn);

/* ---- for the naming rule (names.c) ---- */

/*
 * Function fn of a frame: its name as bfd reads it (rule 2), whether that
 * is a linkage name (in C-like languages DW_AT_name is one) and whether
 * the function is an inlined instance.
 */
const char *sp_dwfuncs_fn_name(const struct sp_dwfuncs *f, uint32_t fn, int *is_linkage,
			       int *inlined);

/* Where a function without a linkage name takes its name from: shared by
 * every instance (inlined or not) of that function. */
struct sp_dworigin {
	Dwarf_Die die;	      /* the DIE with its DW_AT_name (valid while the Dwarf is) */
	uint64_t outline;     /* the low address of an out-of-line instance, 0 if none */
	const char *name;     /* names.c: the rule's name once computed, else NULL */
	unsigned linkage : 1; /* names.c: name is a linkage name (an ELF symbol's) */
};

/* The origin of function fn when it has no linkage name, else NULL. */
struct sp_dworigin *sp_dwfuncs_origin(struct sp_dwfuncs *f, uint32_t fn);

/* The function (not an inlined instance) whose code holds addr, or
 * UINT32_MAX if DWARF names none there. */
uint32_t sp_dwfuncs_outer_at(const struct sp_dwfuncs *f, uint64_t addr);

/* sp_dwfuncs_symbol() and the symbol's address. */
const char *sp_dwfuncs_symbol_addr(const struct sp_dwfuncs *f, uint64_t addr, uint64_t *sym_addr);

/* 1 if a function symbol called `name` that bfd does not pick (an alias
 * of the one it does) lies at addr. */
int sp_dwfuncs_has_alias(const struct sp_dwfuncs *f, uint64_t addr, const char *name);

/* The string table the names live in (the one given to sp_dwfuncs_new()). */
struct sp_strtab *sp_dwfuncs_strs(const struct sp_dwfuncs *f);

/* names.c's cache for this table's DWARF (freed with it by
 * sp_dwnames_free()). */
struct sp_dwnames;
struct sp_dwnames **sp_dwfuncs_names(struct sp_dwfuncs *f);
void sp_dwnames_free(struct sp_dwnames *n);

/*
 * symprof's naming rule (docs/formats.md, "Function names"), for frame fr
 * of the chain at vaddr (fr NULL: a file without DWARF, the ELF symbol
 * alone); `function` says the frame is the function the address is in
 * (not an inlined instance). The raw name to print (demangled for
 * display when *linkage is set: it is then a linkage name), or NULL if
 * there is none. Computed once per function, not per address.
 */
const char *sp_name_frame(struct sp_dwfuncs *f, const struct sp_inline_frame *fr, int function,
			  uint64_t vaddr, int *linkage);

#endif
