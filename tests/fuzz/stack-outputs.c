/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The outputs of a stack profile, for the fuzz targets (stack-outputs.h). */
#include "stack-outputs.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

static void graph(FILE *null, struct sp_profile *p, struct sp_symbolizer *s, const char *counter)
{
	struct sp_frame_funcs ff;
	struct sp_cg_stack_opts co;
	struct sp_report_opts ro;
	struct sp_report r;
	struct sp_stack_report_opts so;
	struct sp_cg *cg;

	sp_frame_funcs_build(&ff, p, s, 0);
	memset(&co, 0, sizeof(co));
	co.counter = 0;
	co.field = SP_VALUE_COUNT;
	co.frame_first = ff.first;
	co.frame_funcs = ff.list;
	co.funcs = ff.funcs;
	co.hz = 100;
	cg = sp_cg_from_cct(p, &co, NULL);
	if (cg) {
		memset(&ro, 0, sizeof(ro));
		ro.demangle = 1;
		ro.ignore_zeros = 1;
		ro.width = 80;
		sp_report_init(&r, null, cg, &ro);
		sp_report_flat(&r);
		sp_report_graph(&r);
		sp_report_index(&r);
		sp_report_release(&r);
	}
	memset(&so, 0, sizeof(so));
	so.demangle = 1;
	so.counter = counter;
	sp_report_folded(null, p, &ff, &so);
	sp_cg_free(cg);
	sp_frame_funcs_release(&ff);
}

void sp_fuzz_stack_outputs(FILE *null, struct sp_profile *p, struct sp_symbolizer *s,
			   const char *counter)
{
	struct sp_stack_report_opts so;

	graph(null, p, s, counter);
	memset(&so, 0, sizeof(so));
	so.demangle = 1;
	so.counter = counter;
	sp_report_pprof(null, p, s, &so);
	so.lines = 1;
	sp_report_pprof(null, p, s, &so);
	sp_report_callgrind(null, p, s, &so);
}

int sp_fuzz_stack_input(const uint8_t *data, size_t size, enum sp_profile_kind kind,
			sp_fuzz_read_fn read, int first_counter, sp_fuzz_more_fn more)
{
	static FILE *null;
	struct sp_profile *p = sp_profile_new(kind);
	struct sp_error err = SP_ERROR_INIT;
	struct sp_symbolizer_opts o;
	struct sp_symbolizer *s;
	const char *exe = getenv("SP_FUZZ_EXE");

	if (!null)
		null = fopen("/dev/null", "w");
	if (read(p, "fuzz", data, size, &err) < 0 || !p->ncounters) {
		sp_profile_free(p);
		return 0;
	}
	memset(&o, 0, sizeof(o));
	o.exe = exe ? exe : SP_FUZZ_DEFAULT_EXE;
	s = sp_symbolizer_new(&o);
	sp_fuzz_stack_outputs(null, p, s, first_counter ? p->counters[0].name : NULL);
	if (more)
		more(null, p, s);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	return 0;
}
