/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target: the input read as an IgProf dump (plain, gzip or bzip2,
 * recognised by its first bytes), keeping its leaks, and read a second
 * time into the same profile (merging); the model's invariants are checked
 * on what was read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct sp_profile *p)
{
	size_t i;

	for (i = 1; i < p->nnodes; i++)
		if (p->nodes[i].parent >= i || p->nodes[i].frame >= p->nframes)
			abort();
	for (i = 0; i < p->nvalues; i++)
		if (p->values[i].node >= p->nnodes || p->values[i].counter >= p->ncounters)
			abort();
	for (i = 0; i < p->nleaks; i++)
		if (p->leaks[i].node >= p->nnodes)
			abort();
	for (i = 0; i < p->nframes; i++)
		if (p->frames[i].object >= p->nobjects)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
	struct sp_igprof_read_opts o = {1, 1, NULL};
	struct sp_error err = SP_ERROR_INIT;

	if (sp_fmt_igprof_read_mem(p, "fuzz", data, size, &o, &err) == 0) {
		check(p);
		if (sp_fmt_igprof_read_mem(p, "fuzz", data, size, &o, &err) == 0)
			check(p);
	} else if (!err.msg[0]) {
		abort(); /* an error always says what it is */
	}
	sp_profile_free(p);
	return 0;
}
