/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the cli says on stderr besides its reports: one-line messages
 * ("symprof: ..."), which first erase a progress line, and the timing
 * marks of SYMPROF_TIMING.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

void sp_cli_error(const char *fmt, ...)
{
	va_list ap;

	sp_cli_progress_clear();
	fputs("symprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void sp_cli_mark(const char *phase)
{
	static int enabled = -1;
	static double last;
	static long last_faults;
	struct timespec ts;
	struct rusage ru;
	double now;

	if (enabled < 0)
		enabled = getenv("SYMPROF_TIMING") != NULL;
	if (!enabled)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	/* the calling thread's page faults (the line table's thread apart) */
	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		ru.ru_minflt = last_faults;
	if (phase)
		fprintf(stderr, "symprof: %-16s %8.3f ms %6ld faults\n", phase, now - last,
			ru.ru_minflt - last_faults);
	last = now;
	last_faults = ru.ru_minflt;
}
