/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof: entry point. Expands @FILE arguments, parses the options and
 * runs the pipeline of the input format (cli/formats.c) or --addr2line.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "symprof/symbolize.h"
#include "symprof/worker.h"

/* The pipeline; a run that found an index cache file damaged after it
 * was loaded (a block of line rows answered as unknown) fails. */
static int run(struct sp_opts *o)
{
	int rc = o->addr2line ? sp_cmd_addr2line(o) : sp_cli_run(o);

	if (sp_image_cache_damage()) {
		sp_cli_error("%s", sp_image_cache_damage());
		sp_image_cache_damage_clear();
		rc = 1;
	}
	return rc;
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
 *
 * The heap's first HEAP_HUGE bytes are then asked for as transparent huge
 * pages: a fault maps 2 MiB instead of 4 KiB. A short run touches a few
 * thousand fresh pages, and where a fault costs microseconds (a virtual
 * machine's nested paging) that was a third to a half of it; the price is
 * up to a few MiB more resident memory (bench/README.md). The threads
 * share the one heap (M_ARENA_MAX) so that their blocks come from it too.
 * It is advice: a kernel with huge pages "never" ignores it, and
 * SYMPROF_HUGEPAGES=0 leaves the heap as glibc makes it.
 */
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD) && defined(M_ARENA_MAX) &&              \
	defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)
#define HAVE_HEAP_TUNING 1
#endif

#define HEAP_HUGE ((size_t)256 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

/* what became of the advice, for SYMPROF_TIMING */
static char heap_state[96] = "huge pages not asked (no mallopt or MADV_HUGEPAGE here)";

#ifdef HAVE_HEAP_TUNING
/* the heap's first block and the rest below its first huge page
 * boundary, kept to exit */
static void *volatile heap_first, *volatile heap_head;

static void heap_on_huge_pages(void)
{
	uintptr_t lo, hi, brk_end, first;

	mallopt(M_ARENA_MAX, 1);
	/* the heap's first block makes it grow by the pad: address space
	 * only. It must be small: glibc writes the size of the free rest
	 * after it, and a page touched there before the advice would keep
	 * its 2 MiB from being one huge page */
	mallopt(M_TOP_PAD, (int)HEAP_HUGE);
	heap_first = malloc(64);
	mallopt(M_TOP_PAD, 128 << 10); /* glibc's default */
	if (!heap_first) {
		snprintf(heap_state, sizeof(heap_state), "huge pages not asked (out of memory)");
		return;
	}
	first = (uintptr_t)heap_first;
	brk_end = (uintptr_t)sbrk(0);
	lo = (first + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	hi = brk_end & ~(HUGE_PAGE - 1);
	/* only a heap that brk grew by the pad just now (not a mapping:
	 * glibc's fallback, or a sanitizer's allocator) */
	if (first >= brk_end || brk_end - first > 2 * HEAP_HUGE ||
	    brk_end - first < HEAP_HUGE / 2 || hi <= lo) {
		snprintf(heap_state, sizeof(heap_state),
			 "huge pages not asked (the heap is not brk's, or not new)");
		return;
	}
	if (madvise((void *)lo, hi - lo, MADV_HUGEPAGE) == 0)
		snprintf(heap_state, sizeof(heap_state), "%zu MiB on huge pages",
			 (size_t)((hi - lo) >> 20));
	else
		snprintf(heap_state, sizeof(heap_state), "huge pages refused (%s)",
			 strerror(errno));
	/* below lo the heap is not a whole huge page: a block that takes
	 * most of it (address space, not memory) leaves the rest of the
	 * blocks to come from above */
	if (lo - first > 256)
		heap_head = malloc(lo - first - 128);
}
#endif

static void tune_malloc(void)
{
#ifdef HAVE_HEAP_TUNING
	const char *env = getenv("SYMPROF_HUGEPAGES");

	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	if (env && !strcmp(env, "0"))
		snprintf(heap_state, sizeof(heap_state), "huge pages off (SYMPROF_HUGEPAGES=0)");
	else
		heap_on_huge_pages();
#endif
	if (getenv("SYMPROF_TIMING"))
		fprintf(stderr, "symprof: heap: %s\n", heap_state);
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
