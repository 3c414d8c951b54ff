/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the cli says on stderr besides its reports: one-line messages
 * ("symprof: ..."), which first erase a progress line, the library's
 * warnings (struct sp_warn_hook) printed the same way, the lines an
 * emulated tool writes on stderr itself, and the timing marks of
 * SYMPROF_TIMING.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "symprof/error.h"

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

static void print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	sp_cli_error("%s", msg);
}

const struct sp_warn_hook *sp_cli_warn_hook(void)
{
	static const struct sp_warn_hook hook = {print_warning, NULL};

	return &hook;
}

static void print_line(void *ctx, const char *msg)
{
	(void)ctx;
	sp_cli_progress_clear();
	fprintf(stderr, "%s\n", msg);
}

const struct sp_warn_hook *sp_cli_echo_hook(void)
{
	static const struct sp_warn_hook hook = {print_line, NULL};

	return &hook;
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
