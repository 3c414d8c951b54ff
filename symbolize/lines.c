/* SPDX-License-Identifier: GPL-3.0-or-later */
/* PLACEHOLDER until the line-table module lands (branch `lines`). */
#include "lines.h"

#include <stdlib.h>

#include "symprof/error.h"

struct sp_linetab *sp_linetab_new(Dwarf *dw, struct sp_strtab *strs, struct sp_error *err)
{
	(void)dw;
	(void)strs;
	sp_error_set(err, SP_E_UNSUPPORTED, "line tables are not available yet");
	return NULL;
}

void sp_linetab_free(struct sp_linetab *t)
{
	(void)t;
}

const struct sp_line *sp_linetab_find(const struct sp_linetab *t, uint64_t addr)
{
	(void)t;
	(void)addr;
	return NULL;
}

size_t sp_linetab_rows(const struct sp_linetab *t, const struct sp_line **rows)
{
	(void)t;
	*rows = NULL;
	return 0;
}
