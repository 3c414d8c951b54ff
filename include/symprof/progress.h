/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * How far a long piece of library work is, told without printing: library
 * code (a reader going through a large dump, a symbolizer loading DWARF)
 * takes an optional hook and calls sp_progress_update() now and then
 * (every few megabytes or a few thousand records: each call may take a
 * lock); cli/ shows it as a percentage on the progress line when stderr is
 * a terminal (sp_cli_progress_hook()). A NULL hook costs nothing.
 */
#ifndef SYMPROF_PROGRESS_H
#define SYMPROF_PROGRESS_H

#include <stdint.h>

struct sp_progress_hook {
	void (*update)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};

/* Reports `done` units of `total` (bytes, records ...; total 0: unknown). */
static inline void sp_progress_update(const struct sp_progress_hook *h, uint64_t done,
				      uint64_t total)
{
	if (h && h->update)
		h->update(h->ctx, done, total);
}

#endif
