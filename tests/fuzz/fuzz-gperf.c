/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target: a gperftools CPU profile read, then -- if it parses --
 * symbolized with the files its memory map names (whatever they are) and
 * the executable SP_FUZZ_EXE (default: the hot_nopie fixture) standing for
 * its main object, and printed in every stack-profile format: the exact
 * call graph with gprof's renderers, google-pprof's text (functions and
 * lines), folded stacks and callgrind.
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
#include "symprof/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void graph(FILE *null, struct sp_profile *p, struct sp_symbolizer *s)
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
	memset(&ro, 0, sizeof(ro));
	ro.demangle = 1;
	ro.ignore_zeros = 1;
	ro.width = 80;
	sp_report_init(&r, null, cg, &ro);
	sp_report_flat(&r);
	sp_report_graph(&r);
	sp_report_index(&r);
	sp_report_release(&r);
	memset(&so, 0, sizeof(so));
	so.demangle = 1;
	sp_report_folded(null, p, &ff, &so);
	sp_cg_free(cg);
	sp_frame_funcs_release(&ff);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GPERF);
	struct sp_error err = SP_ERROR_INIT;
	struct sp_symbolizer_opts o;
	struct sp_stack_report_opts so;
	struct sp_symbolizer *s;
	const char *exe = getenv("SP_FUZZ_EXE");

	if (!null)
		null = fopen("/dev/null", "w");
	if (sp_fmt_gperf_read_mem(p, "fuzz", data, size, &err) < 0 || !p->ncounters) {
		sp_profile_free(p);
		return 0;
	}
	memset(&o, 0, sizeof(o));
	o.exe = exe ? exe : SP_FUZZ_DEFAULT_EXE;
	s = sp_symbolizer_new(&o);
	graph(null, p, s);
	memset(&so, 0, sizeof(so));
	so.demangle = 1;
	sp_report_pprof(null, p, s, &so);
	so.lines = 1;
	sp_report_pprof(null, p, s, &so);
	sp_report_callgrind(null, p, s, &so);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	return 0;
}
