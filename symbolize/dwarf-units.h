/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: the DWARF sections, the units of .debug_info and
 * the range lists as libbfd sees them (see dwarf-units.c).
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_UNITS_H
#define SYMPROF_SYMBOLIZE_DWARF_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

struct sp_error;

/* ---- sections ---- */

struct sp_dwsec {
	const uint8_t *data; /* NULL if the file has no such section */
	size_t size;
};

/* Borrowed from the Dwarf's Elf: valid while the Dwarf is open. */
struct sp_dwsecs {
	struct sp_dwsec line, line_str, str, str_offsets, ranges, rnglists, abbrev;
	int big_endian;
	/* bfd may fail to read a function's ranges in units of DWARF 2-4 / 5 */
	int ranges_may_fail[2];
};

/* Finds the sections (decompressing SHF_COMPRESSED and .zdebug ones). */
int sp_dwsecs_load(Dwarf *dw, struct sp_dwsecs *s, struct sp_error *err);

/* ---- forms ---- */

/* (inline: asked for every attribute of every function DIE) */
/* bfd's is_str_form(): the forms whose value bfd reads as a string. */
static inline int sp_dw_is_str_form(unsigned form)
{
	switch (form) {
	case DW_FORM_string:
	case DW_FORM_strp:
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_line_strp:
	case DW_FORM_GNU_strp_alt:
		return 1;
	default:
		return 0;
	}
}

/* bfd's is_int_form(): the forms whose value bfd reads as a number. */
static inline int sp_dw_is_int_form(unsigned form)
{
	switch (form) {
	case DW_FORM_addr:
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_flag:
	case DW_FORM_sdata:
	case DW_FORM_udata:
	case DW_FORM_ref_addr:
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
	case DW_FORM_sec_offset:
	case DW_FORM_flag_present:
	case DW_FORM_ref_sig8:
	case DW_FORM_addrx:
	case DW_FORM_implicit_const:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
	case DW_FORM_GNU_ref_alt:
		return 1;
	default:
		return 0;
	}
}

static inline int sp_dw_is_strx_form(unsigned form)
{
	return form == DW_FORM_strx || (form >= DW_FORM_strx1 && form <= DW_FORM_strx4);
}

/* ---- units ---- */

/* One unit of .debug_info with the attributes of its DIE that bfd reads. */
struct sp_dwunit {
	Dwarf_Die die;
	uint64_t die_off; /* offset of the unit DIE in .debug_info */
	int version;
	int addr_size, offset_size;
	int has_stmt_list;
	uint64_t line_offset; /* DW_AT_stmt_list */
	const char *comp_dir; /* bfd's reading of DW_AT_comp_dir, or NULL */
	uint64_t str_offsets_base;
	int lang; /* DW_AT_language, 0 if absent */
};

/*
 * Iterates the units of .debug_info in file order (like bfd, and unlike
 * libdw's dwarf_get_units, without DWARF 4 .debug_types). *cu is NULL to
 * start. Returns 1 and fills u for each unit, 0 at the end, negative with
 * err filled on a libdw failure.
 */
int sp_dwunit_next(Dwarf *dw, Dwarf_CU **cu, struct sp_dwunit *u, struct sp_error *err);

/*
 * Whether bfd keeps reading .debug_info at unit u: bfd stops for good at a
 * unit whose own DW_AT_ranges it cannot read (for instance a DWARF 5 unit
 * in a file whose range lists are in .zdebug_rnglists, a name bfd 2.40
 * misspells as .zdebug_rnglist).
 */
int sp_dwunit_bfd_reads(const struct sp_dwsecs *s, const struct sp_dwunit *u);

/*
 * Whether bfd reads the DIEs of unit u without error. bfd gives up on a
 * unit (its lines included) when a function's DW_AT_ranges cannot be read:
 * a missing section, or list entries it does not know. The DIEs are only
 * walked when the sections make that possible (ranges_may_fail).
 */
int sp_dwunit_functions_ok(const struct sp_dwsecs *s, const struct sp_dwunit *u);

/* ---- range lists ---- */

typedef void (*sp_dw_range_fn)(void *ctx, uint64_t low, uint64_t high);

/*
 * bfd's read_rangelist(): the ranges at `off` of .debug_ranges (DWARF 2-4)
 * or .debug_rnglists (DWARF 5, only the entry kinds without .debug_addr
 * indexes). Calls add() for each; -1 where bfd fails (then some ranges may
 * have been added, as in bfd).
 */
int sp_dw_rangelist(const struct sp_dwsecs *s, const struct sp_dwunit *u, uint64_t base,
		    uint64_t off, sp_dw_range_fn add, void *ctx);

#endif
