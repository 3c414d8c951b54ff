/* SPDX-License-Identifier: GPL-3.0-or-later */
/* PLACEHOLDER until the line-table module lands (branch `lines`). */
#ifndef SYMPROF_SYMBOLIZE_LINES_H
#define SYMPROF_SYMBOLIZE_LINES_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "symprof/strtab.h"

struct sp_error;
struct sp_linetab;

struct sp_line {
	uint64_t addr;
	const char *file;
	uint32_t line, column, discriminator;
	uint8_t is_stmt, end_sequence;
};

struct sp_linetab *sp_linetab_new(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err);
void sp_linetab_free(struct sp_linetab *t);
const struct sp_line *sp_linetab_find(const struct sp_linetab *t, uint64_t addr);
size_t sp_linetab_rows(const struct sp_linetab *t, const struct sp_line **rows);

#endif
