/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Helper threads: the one way symprof runs work beside the thread that
 * asks for it. A worker is a function run on a thread of its own; the
 * code that starts it is its owner.
 *
 * The rule every worker follows (docs/architecture.md, "Threads"):
 *
 *  1. The owner starts the worker (sp_worker_start()) and joins it
 *     (sp_worker_join()). Nothing reads what the worker writes before the
 *     join, and nothing the worker reads is changed or freed before it:
 *     the owner's release function joins first.
 *  2. While it runs, the worker writes only what its owner handed it for
 *     that (its job, output arrays nobody else reads until the join) and
 *     reads only what nobody writes meanwhile. What both sides touch while
 *     it runs (a ring of buffers, a shared counter) goes through a lock,
 *     a condition or an atomic, and the struct that holds it says which.
 *  3. A worker outside cli/ never prints, exits or calls the cli: it keeps
 *     its error in a struct sp_error of its job, which the owner reads
 *     after the join and reports where the work would have failed without
 *     a thread. (cli/progress.c's worker is the cli's: it draws the
 *     progress line, under its lock.) Running out of memory is fatal on
 *     any thread (sp_oom()).
 *  4. Every worker is optional. sp_worker_start() returns NULL when it
 *     starts no thread (threads are off, or the system refused one), and
 *     the owner then does the work itself, in the same order the output
 *     needs it: a report is the same byte for byte with threads on and
 *     off (the goldens run both ways: the `threads-off` ctest label).
 *
 * Threads are on unless cli/ turns them off, once, before any worker
 * starts (SYMPROF_THREADS=0 in the environment, docs/manual.md): that one
 * switch is the only state here.
 */
#ifndef SYMPROF_WORKER_H
#define SYMPROF_WORKER_H

struct sp_worker;

/* What a worker runs: its job as the owner passed it. */
typedef void sp_worker_fn(void *job);

/*
 * Runs fn(job) on a new thread; returns the worker to join, or NULL when
 * no thread was started (threads off, or none could be created): the
 * caller then does the work itself.
 */
struct sp_worker *sp_worker_start(sp_worker_fn *fn, void *job);

/* Waits until the worker's function has returned, then frees the worker.
 * NULL: nothing to wait for. */
void sp_worker_join(struct sp_worker *w);

/* Turns helper threads on (the default) or off. Only cli/ calls it, before
 * any worker starts. */
void sp_workers_enable(int on);

/* Whether helper threads may start (for owners that choose how to cut
 * their work by it). */
int sp_workers_enabled(void);

#endif
