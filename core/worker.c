/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Helper threads (worker.h): a pthread per worker, started and joined
 * here only, so that one switch turns them all off.
 */
#include "symprof/worker.h"

#include <pthread.h>
#include <stdlib.h>

#include "symprof/alloc.h"

struct sp_worker {
	pthread_t thread;
	sp_worker_fn *fn;
	void *job;
};

/* Written by cli/ before any worker starts, read-only afterwards (thread
 * creation orders the write before every worker's reads). */
static int enabled = 1;

static void *trampoline(void *arg)
{
	struct sp_worker *w = arg;

	w->fn(w->job);
	return NULL;
}

struct sp_worker *sp_worker_start(sp_worker_fn *fn, void *job)
{
	struct sp_worker *w;

	if (!enabled)
		return NULL;
	w = sp_xmalloc(sizeof(*w));
	w->fn = fn;
	w->job = job;
	if (pthread_create(&w->thread, NULL, trampoline, w) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

void sp_worker_join(struct sp_worker *w)
{
	if (!w)
		return;
	pthread_join(w->thread, NULL);
	free(w);
}

void sp_workers_enable(int on)
{
	enabled = on != 0;
}

int sp_workers_enabled(void)
{
	return enabled;
}
