/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target: a pprof protobuf (gzipped or not) read, then -- if it
 * parses -- symbolized (frames the profile named by their recorded
 * lines, the others with the files its mappings name and SP_FUZZ_EXE,
 * default the hot_pie fixture, for the main one) and printed the ways a
 * stack profile is: the exact call graph with gprof's renderers, folded
 * stacks, google-pprof's text, callgrind, and --format=proto again.
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

static void proto(FILE *null, struct sp_profile *p, struct sp_symbolizer *s)
{
	struct sp_proto_opts po;
	size_t i;

	memset(&po, 0, sizeof(po));
	for (i = 0; i < p->ncounters && i < SP_PROTO_MAX_VALUES; i++)
		po.values[po.nvalues++] = (struct sp_proto_value){
			p->counters[i].name, p->counters[i].unit, SP_PROTO_COUNTER,
			(uint32_t)i,	     SP_PICK_VALUE,	  1};
	po.default_value = -1;
	po.demangle = 1;
	sp_report_proto_stacks(null, p, s, &po);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct sp_profile *p = sp_profile_new(SP_PROFILE_PPROF);
	struct sp_error err = SP_ERROR_INIT;
	struct sp_symbolizer_opts o;
	struct sp_symbolizer *s;
	const char *exe = getenv("SP_FUZZ_EXE");

	if (!null)
		null = fopen("/dev/null", "w");
	if (sp_fmt_pprof_read_mem(p, "fuzz", data, size, &err) < 0 || !p->ncounters) {
		sp_profile_free(p);
		return 0;
	}
	memset(&o, 0, sizeof(o));
	o.exe = exe ? exe : SP_FUZZ_DEFAULT_EXE;
	s = sp_symbolizer_new(&o);
	sp_fuzz_stack_outputs(null, p, s, p->counters[0].name);
	proto(null, p, s);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	return 0;
}
