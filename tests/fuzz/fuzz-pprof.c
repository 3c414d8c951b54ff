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
#include <string.h>

#include "stack-outputs.h"
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
	return sp_fuzz_stack_input(data, size, SP_PROFILE_PPROF, sp_fmt_pprof_read_mem, 1, proto);
}
