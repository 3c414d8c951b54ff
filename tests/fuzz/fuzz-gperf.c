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

#include "stack-outputs.h"
#include "symprof/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_fuzz_stack_input(data, size, SP_PROFILE_GPERF, sp_fmt_gperf_read_mem, 0, NULL);
}
