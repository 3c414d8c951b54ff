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

#include "stack-outputs.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GPERF);
	struct sp_error err = SP_ERROR_INIT;
	struct sp_symbolizer_opts o;
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
	sp_fuzz_stack_outputs(null, p, s, NULL);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	return 0;
}
