/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof: entry point. Expands @FILE arguments, parses the options and
 * runs the pipeline of the input format (cli/formats.c) or --addr2line.
 */
#include <malloc.h>
#include <stdlib.h>

#include "cli.h"
#include "symprof/worker.h"

static int run(struct sp_opts *o)
{
	return o->addr2line ? sp_cmd_addr2line(o) : sp_cli_run(o);
}

/*
 * symprof runs once and exits. glibc gives each block from 128 KiB up a
 * mapping of its own and unmaps it when freed: a system call, a flush of
 * the other cores' TLBs, and fresh pages (zeroed by the kernel, a fault
 * each) for the next large block. Up to 32 MiB (glibc's own ceiling for
 * that threshold) they come from the heap here, which is never trimmed:
 * freeing is bookkeeping, freed blocks are reused as they are, and the
 * pages go back at exit. 3-7% off a -b run, 6% off -b -l; the same peak
 * memory (bench/README.md).
 */
static void tune_malloc(void)
{
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

int main(int argc, char **argv)
{
	struct sp_opts o;
	int rc, i;

	tune_malloc();
	sp_cli_expand_argv(&argc, &argv);
	rc = sp_cli_parse(&o, argc, argv);
	sp_workers_enable(!o.no_threads);
	rc = rc == 0 ? run(&o) : 0;
	sp_cli_opts_release(&o);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return rc;
}
