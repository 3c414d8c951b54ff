/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: the file and line addr2line prints for an address
 * in data, from libbfd's table of variables (see dwarf-vars.c).
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_VARS_H
#define SYMPROF_SYMBOLIZE_DWARF_VARS_H

#include <stdint.h>

#include <elfutils/libdw.h>
#include <libelf.h>

struct sp_strtab;
struct sp_dwvars;

/*
 * The data symbols of `elf` (the file addr2line is given) and the
 * variables of `dw` (its DWARF, perhaps from a separate debug file); names
 * are interned in strs. Never NULL; an empty table when either is missing.
 */
struct sp_dwvars *sp_dwvars_new(Elf *elf, Dwarf *dw, struct sp_strtab *strs);
void sp_dwvars_free(struct sp_dwvars *v);

/* 1 and the variable's DW_AT_decl_file and DW_AT_decl_line when bfd
 * answers addr from its variable table; 0 if it does not. */
int sp_dwvars_find(const struct sp_dwvars *v, uint64_t addr, const char **file, uint32_t *line);

#endif
