/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the stack-profile fuzz targets (gperftools, pprof) run on a profile
 * that parsed (stack-outputs.c). */
#ifndef SYMPROF_FUZZ_STACK_OUTPUTS_H
#define SYMPROF_FUZZ_STACK_OUTPUTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symprof/profile.h"

struct sp_error;
struct sp_symbolizer;

/* A reader of a profile in memory (sp_fmt_*_read_mem). */
typedef int (*sp_fuzz_read_fn)(struct sp_profile *p, const char *name, const uint8_t *data,
			       size_t size, struct sp_error *err);
/* More to write of a profile that parsed, or NULL. */
typedef void (*sp_fuzz_more_fn)(FILE *null, struct sp_profile *p, struct sp_symbolizer *s);

/* The exact call graph with gprof's renderers, folded stacks, google-pprof's
 * text (functions and lines) and callgrind of `counter` (NULL: "samples"),
 * written to `null`. */
void sp_fuzz_stack_outputs(FILE *null, struct sp_profile *p, struct sp_symbolizer *s,
			   const char *counter);

/* One fuzz input of a stack format: read as `kind` by `read`; a profile
 * with a counter is symbolized with SP_FUZZ_EXE (default
 * SP_FUZZ_DEFAULT_EXE) for its main object and written every way above,
 * counting its first counter when `first_counter` (else "samples"),
 * then by `more`. Always 0, as libFuzzer wants. */
int sp_fuzz_stack_input(const uint8_t *data, size_t size, enum sp_profile_kind kind,
			sp_fuzz_read_fn read, int first_counter, sp_fuzz_more_fn more);

#endif
