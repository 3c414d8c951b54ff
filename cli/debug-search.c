/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where files are found beyond their own paths (struct sp_debug_search,
 * symbolize.h): the configuration symbolize/ takes from cli/, read from
 * the environment once, here.
 *
 *   SYMPROF_DEBUG_ROOT   the debug root instead of /usr/lib/debug (tests)
 *   PATH                 where a bare program name is looked for (IgProf)
 *   DEBUGINFOD_URLS      servers to ask by build-id when a file or its debug
 *                        info is not here; --no-debuginfod turns them off
 *   DEBUGINFOD_TIMEOUT   seconds a server has to start answering (90)
 *   DEBUGINFOD_RETRY_LIMIT  how often libdebuginfod retries a failed query:
 *                        0 unless set, so that a dead server costs one
 *                        DEBUGINFOD_TIMEOUT (libdebuginfod's default, 2,
 *                        makes it three)
 *
 * The client's other variables (DEBUGINFOD_CACHE_PATH, _MAXSIZE,
 * _MAXTIME, _VERBOSE ...) are read by libdebuginfod itself. Its messages
 * are warnings; a download shows on the progress line.
 */
#include "cli.h"

#include <stdlib.h>

#include "symprof/progress.h"

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	sp_cli_error("warning: %s", msg);
}

static void status_cb(void *ctx, const char *what)
{
	(void)ctx;
	sp_cli_progress_detail(what);
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	sp_progress_update(sp_cli_progress_hook(), done, total);
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : dflt;
}

void sp_cli_debug_search_init(struct sp_opts *o)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct sp_debuginfod_opts dopts = {0};

	o->search.debug_root = getenv("SYMPROF_DEBUG_ROOT");
	o->search.program_path = getenv("PATH");
	o->search.debuginfod = NULL;
	o->search.warn = sp_cli_warn_hook();
	if (o->no_debuginfod || !urls || !*urls)
		return;
	if (!getenv("DEBUGINFOD_RETRY_LIMIT"))
		setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
	dopts.urls = urls;
	dopts.timeout = env_long("DEBUGINFOD_TIMEOUT", 90);
	dopts.retries = env_long("DEBUGINFOD_RETRY_LIMIT", 0);
	if (dopts.retries < 0)
		dopts.retries = 0;
	dopts.warn = warn_cb;
	dopts.status = status_cb;
	dopts.progress = progress_cb;
	o->search.debuginfod = sp_debuginfod_new(&dopts);
}

void sp_cli_debug_search_release(struct sp_opts *o)
{
	sp_debuginfod_free(o->search.debuginfod);
	o->search.debuginfod = NULL;
}
