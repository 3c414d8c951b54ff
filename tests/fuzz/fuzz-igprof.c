/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target: the input read as an IgProf dump (plain, gzip or bzip2,
 * recognised by its first bytes), keeping its leaks, and read a second
 * time into the same profile (merging); the model's invariants are checked
 * on what was read. If it parses, for every counter: igprof-analyse's
 * tree (with and without filters), its report, the leak report, and the
 * exact call graph (frames unnamed: no symbolizer) to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/profile.h"
#include "symprof/report.h"

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

static void reports(const struct sp_profile *p, uint32_t counter, unsigned filters, FILE *out)
{
	struct sp_frame_funcs ff, tff;
	struct sp_igtree_opts to = {counter, SP_VALUE_VALUE, filters, 0};
	struct sp_igprof_report_opts io;
	struct sp_cg_stack_opts co;
	struct sp_profile *t;
	struct sp_cg *cg;

	sp_frame_funcs_build_flags(&ff, p, NULL,
				   SP_FF_OUTERMOST | SP_FF_IGPROF_NAMES | SP_FF_MERGE_CLONES);
	t = sp_igtree_build(p, &ff, &to);
	memset(&io, 0, sizeof(io));
	io.counter = p->counters[counter].name;
	io.seconds_per_tick = filters ? 0.01 : 0;
	io.is_max = p->counters[counter].kind == SP_COUNTER_MAX;
	io.with_calls = 1;
	io.addresses = 1;
	sp_report_igprof(out, t, &io);
	sp_report_leaks(out, t, &io);
	sp_frame_funcs_build(&tff, t, NULL, 0);
	memset(&co, 0, sizeof(co));
	co.frame_first = tff.first;
	co.frame_funcs = tff.list;
	co.funcs = tff.funcs;
	co.hz = 1;
	co.dimen = "bytes";
	co.counts_known = 1;
	cg = sp_cg_from_cct(t, &co, NULL);
	sp_cg_free(cg);
	sp_profile_free(t);
	/* the frame tree (-l, -A, callgrind): p's frames, the same filters */
	to.by_frame = 1;
	t = sp_igtree_build(p, &ff, &to);
	co.frame_first = ff.first;
	co.frame_funcs = ff.list;
	co.funcs = ff.funcs;
	cg = sp_cg_from_cct(t, &co, NULL);
	sp_cg_free(cg);
	sp_frame_funcs_release(&tff);
	sp_frame_funcs_release(&ff);
	sp_profile_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
	struct sp_igprof_read_opts o = {1, 1, NULL};
	struct sp_error err = SP_ERROR_INIT;

	if (sp_fmt_igprof_read_mem(p, "fuzz", data, size, &o, &err) == 0) {
		FILE *out = fopen("/dev/null", "w");
		uint32_t c;

		check(p);
		if (sp_fmt_igprof_read_mem(p, "fuzz", data, size, &o, &err) == 0)
			check(p);
		for (c = 0; out && c < p->ncounters; c++) {
			reports(p, c, SP_IGF_IGPROF | SP_IGF_MALLOC | SP_IGF_POOL, out);
			reports(p, c, 0, out);
		}
		if (out)
			fclose(out);
	} else if (!err.msg[0]) {
		abort(); /* an error always says what it is */
	}
	sp_profile_free(p);
	return 0;
}
