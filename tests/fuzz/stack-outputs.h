/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the stack-profile fuzz targets (gperftools, pprof) run on a profile
 * that parsed (stack-outputs.c). */
#ifndef SYMPROF_FUZZ_STACK_OUTPUTS_H
#define SYMPROF_FUZZ_STACK_OUTPUTS_H

#include <stdio.h>

struct sp_profile;
struct sp_symbolizer;

/* The exact call graph with gprof's renderers, folded stacks, google-pprof's
 * text (functions and lines) and callgrind of `counter` (NULL: "samples"),
 * written to `null`. */
void sp_fuzz_stack_outputs(FILE *null, struct sp_profile *p, struct sp_symbolizer *s,
			   const char *counter);

#endif
