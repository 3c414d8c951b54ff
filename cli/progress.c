/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Progress on stderr: when stderr is a terminal and a step of the run
 * (opening the executable, reading its symbols, reading a large profile,
 * loading DWARF line tables, building the graph, writing a report) takes
 * more than half a second, one line says what is happening and how far
 * the run is:
 *
 *   symprof: [3/6] reading gmon.out (2 of 4 files, 41.2 MB) 1.3 s
 *
 * rewritten in place (carriage return, erase to the end of the line) and
 * erased when the run ends or an error is printed, so nothing is left on
 * the screen and nothing reaches a file: with stderr not a terminal, or
 * --quiet, there is no progress at all. A worker redraws the line every
 * 100 ms, so a step that is one long library call still shows its time
 * (with SYMPROF_THREADS=0 there is no worker, and no progress but with a
 * delay of 0). SYMPROF_PROGRESS_MS sets the delay (tests use 0: every
 * step is shown at once, no worker needed). Library code that takes a
 * struct sp_progress_hook (progress.h) adds a percentage to the current
 * step: pass sp_cli_progress_hook(). A wait inside a step (a download
 * from debuginfod) adds a detail to it, timed on its own:
 *
 *   symprof: [2/4] symbolizing 812 addresses: asking debuginfod for the debug info of 'x' 2.3 s
 *
 * The active progress is file-local state so that sp_cli_error() can erase
 * the line first; cli/ is the only layer with such state.
 */
#include "cli.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symprof/progress.h"
#include "symprof/worker.h"

struct sp_cli_progress {
	struct sp_worker *redraw; /* run(), sharing the fields below under lock */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	char what[160];
	char detail[200];     /* sp_cli_progress_detail(), "" if none */
	uint64_t done, total; /* within the step, from library hooks */
	int step, nsteps;
	double step_start, detail_start;
	double delay; /* seconds before a step is shown */
	int shown;    /* a line is on the screen */
	int stop;
};

static struct sp_cli_progress *active;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Draws the line (lock held): once the step is older than the delay, or
 * at once with force. */
static void draw(struct sp_cli_progress *p, int force)
{
	double t = now() - (p->detail[0] ? p->detail_start : p->step_start);

	if ((!p->what[0] && !p->detail[0]) || (!force && t < p->delay))
		return;
	if (p->what[0])
		fprintf(stderr, "\rsymprof: [%d/%d] %s%s%s", p->step, p->nsteps, p->what,
			p->detail[0] ? ": " : "", p->detail);
	else /* a wait before the first step */
		fprintf(stderr, "\rsymprof: %s", p->detail);
	if (p->total)
		fprintf(stderr, " %d%%", (int)(100.0 * (double)p->done / (double)p->total));
	if (t >= 0.05)
		fprintf(stderr, " %.1f s", t);
	fputs("\033[K", stderr);
	fflush(stderr);
	p->shown = 1;
}

/* Erases the line (lock held). */
static void erase(struct sp_cli_progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = 0;
}

static void run(void *job)
{
	struct sp_cli_progress *p = job;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
		if (!p->stop)
			draw(p, 0);
	}
	pthread_mutex_unlock(&p->lock);
}

void sp_cli_progress_start(struct sp_opts *o, int nsteps)
{
	struct sp_cli_progress *p;
	const char *ms = getenv("SYMPROF_PROGRESS_MS");

	if (o->quiet || active || !isatty(STDERR_FILENO))
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->nsteps = nsteps;
	p->delay = ms ? atof(ms) / 1000.0 : 0.5;
	/* the worker draws a step once it is older than the delay: without
	 * one (threads off, or none could start), no progress */
	if (p->delay > 0 && !(p->redraw = sp_worker_start(run, p))) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return;
	}
	active = p;
}

void sp_cli_progress(const char *fmt, ...)
{
	struct sp_cli_progress *p = active;
	va_list ap;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof(p->what), fmt, ap);
	va_end(ap);
	if (p->step < p->nsteps)
		p->step++;
	p->detail[0] = '\0';
	p->done = p->total = 0;
	p->step_start = now();
	/* a line on the screen is replaced at once */
	if (p->shown || p->delay <= 0)
		draw(p, 1);
	pthread_mutex_unlock(&p->lock);
}

void sp_cli_progress_reading(const char *path, size_t i, size_t n)
{
	struct stat st;
	char size[32] = "";

	if (!active)
		return;
	if (stat(path, &st) == 0)
		snprintf(size, sizeof(size), st.st_size >= 1000000 ? "%.1f MB" : "%.1f kB",
			 (double)st.st_size / (st.st_size >= 1000000 ? 1e6 : 1e3));
	if (n > 1)
		sp_cli_progress("reading %s (%zu of %zu files%s%s)", path, i + 1, n,
				size[0] ? ", " : "", size);
	else
		sp_cli_progress("reading %s%s%s%s", path, size[0] ? " (" : "", size,
				size[0] ? ")" : "");
}

static void hook_update(void *ctx, uint64_t done, uint64_t total)
{
	struct sp_cli_progress *p = active;

	(void)ctx;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->done = done;
	p->total = total;
	pthread_mutex_unlock(&p->lock);
}

void sp_cli_progress_detail(const char *detail)
{
	struct sp_cli_progress *p = active;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	snprintf(p->detail, sizeof(p->detail), "%s", detail ? detail : "");
	p->done = p->total = 0;
	p->detail_start = now();
	/* shown at once where a step would be: the line is replaced, and the
	 * step's own line comes back after the wait */
	if (p->shown || p->delay <= 0) {
		erase(p);
		draw(p, 1);
	}
	pthread_mutex_unlock(&p->lock);
}

const struct sp_progress_hook *sp_cli_progress_hook(void)
{
	static const struct sp_progress_hook hook = {hook_update, NULL};

	return active ? &hook : NULL;
}

void sp_cli_progress_clear(void)
{
	struct sp_cli_progress *p = active;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	erase(p);
	p->step_start = now();
	pthread_mutex_unlock(&p->lock);
}

void sp_cli_progress_stop(void)
{
	struct sp_cli_progress *p = active;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	erase(p);
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	sp_worker_join(p->redraw);
	active = NULL;
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
