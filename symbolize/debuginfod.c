/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * debuginfod: executables and debug files by build-id from the servers
 * named in DEBUGINFOD_URLS, through elfutils' client library.
 *
 * The library is loaded with dlopen("libdebuginfod.so.1") at the first
 * question, as elfutils' own libdwfl loads it, not linked: it brings in
 * libcurl and 31 more libraries (TLS, Kerberos, LDAP, HTTP/2 ...) whose
 * loading and initializers would take `symprof --version` from 1.7 to
 * 23.7 ms at every start (bench/README.md), and Debian ships no static
 * libdebuginfod for symprof's static build. Loaded on demand, it costs
 * nothing to a run whose files are all here, or without DEBUGINFOD_URLS;
 * the run that needs it pays that once. A machine without it still runs
 * symprof (one warning if DEBUGINFOD_URLS asks for it).
 *
 * The client reads its own configuration from the environment
 * (DEBUGINFOD_URLS, _CACHE_PATH, _TIMEOUT, _RETRY_LIMIT, _MAXSIZE, ...)
 * and caches what it downloads, and its "not found" answers, on disk.
 * Here every answer is also remembered for the run, so a build-id costs
 * one question whatever the number of addresses and files that need it.
 * A server that fails in another way than "not found" (refused, reset,
 * no answer within DEBUGINFOD_TIMEOUT) ends the questions for the run:
 * a dead server costs one timeout, not one per file. The client bounds a
 * stalled transfer by DEBUGINFOD_TIMEOUT itself (libcurl's low-speed
 * limit), but not a connection that never opens (libcurl's own default,
 * 300 s): the progress callback gives up on a query that has received
 * nothing after DEBUGINFOD_TIMEOUT per attempt plus 2 s, so that the
 * client's own timeout comes first wherever it applies.
 */
#include "internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/debuginfod.h>

#include "symprof/buf.h"

/* The functions used, with the types the library's header gives them. */
struct client_fns {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_get_url) *get_url;
};

/* One question of the run and its answer. */
struct answer {
	uint8_t *build_id;
	size_t build_id_len;
	enum sp_debuginfod_kind kind;
	int found;  /* 1: path, 0: the servers do not have it */
	int told;   /* a warning said so already */
	char *path; /* in the client's cache */
	char *name; /* what the asker called the file, for messages */
};

enum ask_result {
	ASK_FOUND,
	ASK_MISSING, /* the servers answered: not there */
	ASK_TOO_BIG, /* larger than DEBUGINFOD_MAXSIZE (said) */
	ASK_OFF,     /* no question asked: no library, or a server failed */
};

enum client_state {
	CLIENT_UNLOADED = 0,
	CLIENT_READY,
	CLIENT_OFF,
};

struct sp_debuginfod {
	struct sp_debuginfod_opts o;
	pthread_mutex_t lock;
	enum client_state state;
	void *lib;
	debuginfod_client *client;
	struct client_fns fn;
	struct answer *answers;
	size_t nanswers, answers_alloc;
	/* the query under way */
	double deadline; /* monotonic seconds, 0: none */
	int gave_up;	 /* the progress callback stopped it */
	int downloading; /* a server sends the file */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void warn(struct sp_debuginfod *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct sp_debuginfod *d, const char *fmt, ...)
{
	struct sp_buf b = SP_BUF_INIT;
	va_list ap;

	if (!d->o.warn)
		return;
	va_start(ap, fmt);
	sp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	d->o.warn(d->o.ctx, b.buf);
	sp_buf_release(&b);
}

static void status(struct sp_debuginfod *d, const char *what)
{
	if (d->o.status)
		d->o.status(d->o.ctx, what);
}

static void hex(struct sp_buf *b, const uint8_t *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sp_buf_addf(b, "%02x", id[i]);
}

/* ---- lifecycle ---- */

struct sp_debuginfod *sp_debuginfod_new(const struct sp_debuginfod_opts *o)
{
	struct sp_debuginfod *d = sp_xcalloc(1, sizeof(*d));

	if (o)
		d->o = *o;
	d->o.urls = sp_xstrdup(d->o.urls ? d->o.urls : "");
	pthread_mutex_init(&d->lock, NULL);
	return d;
}

void sp_debuginfod_free(struct sp_debuginfod *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nanswers; i++) {
		free(d->answers[i].build_id);
		free(d->answers[i].path);
		free(d->answers[i].name);
	}
	free(d->answers);
	if (d->client)
		d->fn.end(d->client);
	/* the library stays loaded: libcurl keeps global state until exit */
	pthread_mutex_destroy(&d->lock);
	free((char *)d->o.urls);
	free(d);
}

/* ---- the client ---- */

/*
 * The library's debuginfod_get_user_data(), for the progress callback to
 * find its sp_debuginfod from the client handle it is given. The library
 * is loaded once per process, so this is the one process-wide variable:
 * set before the first client exists, never changed after.
 */
static __typeof__(debuginfod_get_user_data) *get_user_data_fn;

/* Says how far a download is, and gives up on a query that has received
 * nothing by its deadline (the library then answers "not found"). */
static int on_progress(debuginfod_client *c, long a, long b)
{
	struct sp_debuginfod *d = get_user_data_fn(c);

	if (!d)
		return 0;
	/* until a server sends the file, the library has no URL to give and
	 * `a` counts its polls */
	if (d->fn.get_url(c)) {
		d->downloading = 1;
		if (d->o.progress)
			d->o.progress(d->o.ctx, a > 0 ? (uint64_t)a : 0, b > 0 ? (uint64_t)b : 0);
		return 0;
	}
	if (d->deadline > 0 && !d->downloading && now() > d->deadline) {
		d->gave_up = 1;
		return 1;
	}
	return 0;
}

#define LOAD(d, name)                                                                              \
	((d)->fn.name = (__typeof__((d)->fn.name))dlsym((d)->lib, "debuginfod_" #name))

/* Loads the library and makes the client, once: 1 if there is one. */
static int load(struct sp_debuginfod *d)
{
	const char *why;

	if (d->state != CLIENT_UNLOADED)
		return d->state == CLIENT_READY;
	d->state = CLIENT_OFF;
	if (!(d->lib = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY | RTLD_LOCAL))) {
		why = dlerror();
		goto fail;
	}
	if (!LOAD(d, begin) || !LOAD(d, end) || !LOAD(d, find_executable) ||
	    !LOAD(d, find_debuginfo) || !LOAD(d, set_progressfn) || !LOAD(d, set_user_data) ||
	    !LOAD(d, get_user_data) || !LOAD(d, get_url)) {
		why = "a function is missing from it";
		goto fail;
	}
	get_user_data_fn = d->fn.get_user_data;
	if (!(d->client = d->fn.begin())) {
		why = strerror(errno);
		goto fail;
	}
	d->fn.set_user_data(d->client, d);
	d->fn.set_progressfn(d->client, on_progress);
	d->state = CLIENT_READY;
	return 1;
fail:
	warn(d,
	     "DEBUGINFOD_URLS is set, but %s cannot be used (%s): files are only looked for "
	     "locally (install libdebuginfod1, or pass --no-debuginfod)",
	     DEBUGINFOD_SONAME, why);
	return 0;
}

static const char *kind_name(enum sp_debuginfod_kind kind)
{
	return kind == SP_DEBUGINFOD_EXECUTABLE ? "the executable" : "the debug info";
}

/* The server failed (rc < 0, not "not found"): said once, no more
 * questions in this run. */
static void server_failed(struct sp_debuginfod *d, int rc, const struct sp_buf *id)
{
	d->state = CLIENT_OFF;
	if (d->gave_up || rc == -ETIME)
		warn(d,
		     "debuginfod: no answer from '%s' within %ld s (DEBUGINFOD_TIMEOUT) for "
		     "build-id %s; no more questions to debuginfod in this run",
		     d->o.urls, d->o.timeout, id->buf);
	else
		warn(d,
		     "debuginfod: cannot get build-id %s from '%s': %s; no more questions to "
		     "debuginfod in this run",
		     id->buf, d->o.urls, strerror(-rc));
}

static struct answer *find_answer(struct sp_debuginfod *d, enum sp_debuginfod_kind kind,
				  const uint8_t *id, size_t n)
{
	size_t i;

	for (i = 0; i < d->nanswers; i++)
		if (d->answers[i].kind == kind && d->answers[i].build_id_len == n &&
		    !memcmp(d->answers[i].build_id, id, n))
			return &d->answers[i];
	return NULL;
}

static struct answer *add_answer(struct sp_debuginfod *d, enum sp_debuginfod_kind kind,
				 const uint8_t *id, size_t n)
{
	struct answer *a;

	SP_ALLOC_GROW(d->answers, d->nanswers + 1, d->answers_alloc);
	a = &d->answers[d->nanswers++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->build_id = sp_xmalloc(n);
	memcpy(a->build_id, id, n);
	a->build_id_len = n;
	return a;
}

/* One question to the servers (lock held); *path malloc'ed when found. */
static enum ask_result query(struct sp_debuginfod *d, enum sp_debuginfod_kind kind,
			     const uint8_t *id, size_t n, const char *name, char **path)
{
	struct sp_buf what = SP_BUF_INIT, hexid = SP_BUF_INIT;
	char *found = NULL;
	int rc;

	hex(&hexid, id, n);
	sp_buf_addf(&what, "asking debuginfod for %s of ", kind_name(kind));
	if (name && *name)
		sp_buf_addf(&what, "'%s'", name);
	else
		sp_buf_addf(&what, "build-id %s", hexid.buf);
	status(d, what.buf);
	d->gave_up = d->downloading = 0;
	d->deadline = d->o.timeout > 0
			      ? now() + (double)(d->o.timeout + 2) * (double)(d->o.retries + 1)
			      : 0;
	rc = (kind == SP_DEBUGINFOD_EXECUTABLE ? d->fn.find_executable : d->fn.find_debuginfo)(
		d->client, id, (int)n, &found);
	status(d, NULL);
	sp_buf_release(&what);
	if (rc >= 0) {
		close(rc);
		*path = found;
		sp_buf_release(&hexid);
		return found ? ASK_FOUND : ASK_MISSING;
	}
	free(found);
	if (rc == -EFBIG) {
		warn(d, "debuginfod: %s with build-id %s is larger than DEBUGINFOD_MAXSIZE",
		     kind_name(kind), hexid.buf);
		sp_buf_release(&hexid);
		return ASK_TOO_BIG;
	}
	if (rc == -ENOENT && !d->gave_up) {
		sp_buf_release(&hexid);
		return ASK_MISSING;
	}
	server_failed(d, rc, &hexid);
	sp_buf_release(&hexid);
	return ASK_OFF;
}

/* The answer to a question, asked once per run; NULL when there is none
 * (no library, a server that failed). Valid until the next question. */
static struct answer *ask(struct sp_debuginfod *d, enum sp_debuginfod_kind kind, const uint8_t *id,
			  size_t n, const char *name)
{
	struct answer *a;
	enum ask_result r;
	char *found = NULL;

	if (!id || !n || n > 64)
		return NULL;
	if ((a = find_answer(d, kind, id, n)))
		return a;
	if (!load(d))
		return NULL;
	r = query(d, kind, id, n, name, &found);
	if (r == ASK_OFF)
		return NULL;
	a = add_answer(d, kind, id, n);
	a->found = r == ASK_FOUND;
	a->told = r == ASK_TOO_BIG;
	a->path = found;
	a->name = sp_xstrdup(name ? name : "");
	return a;
}

/* Says once that the servers do not have `what`. A file that came from
 * debuginfod is named as its asker named it, not by its cache path. */
static void say_missing(struct sp_debuginfod *d, struct answer *a, const char *what,
			const char *name)
{
	struct answer *exe = find_answer(d, SP_DEBUGINFOD_EXECUTABLE, a->build_id, a->build_id_len);
	struct sp_buf hexid = SP_BUF_INIT;

	if (a->told)
		return;
	a->told = 1;
	if (exe && exe->found && name && !strcmp(name, exe->path))
		name = exe->name;
	hex(&hexid, a->build_id, a->build_id_len);
	if (name && *name)
		warn(d, "debuginfod has no %s for '%s' (build-id %s)", what, name, hexid.buf);
	else
		warn(d, "debuginfod has no %s for build-id %s", what, hexid.buf);
	sp_buf_release(&hexid);
}

char *sp_debuginfod_find(struct sp_debuginfod *d, enum sp_debuginfod_kind kind,
			 const uint8_t *build_id, size_t build_id_len, const char *name)
{
	struct answer *a;
	char *path = NULL;

	if (!d)
		return NULL;
	pthread_mutex_lock(&d->lock);
	if ((a = ask(d, kind, build_id, build_id_len, name)) && a->found)
		path = sp_xstrdup(a->path);
	else if (a)
		say_missing(d, a, kind == SP_DEBUGINFOD_EXECUTABLE ? "executable" : "debug info",
			    name);
	pthread_mutex_unlock(&d->lock);
	return path;
}

char *sp_debuginfod_find_file(struct sp_debuginfod *d, const uint8_t *build_id, size_t build_id_len,
			      const char *name)
{
	struct answer *a;
	char *path = NULL;

	if (!d)
		return NULL;
	pthread_mutex_lock(&d->lock);
	a = ask(d, SP_DEBUGINFOD_EXECUTABLE, build_id, build_id_len, name);
	if (a && !a->found)
		a = ask(d, SP_DEBUGINFOD_DEBUGINFO, build_id, build_id_len, name);
	if (a && a->found)
		path = sp_xstrdup(a->path);
	else if (a)
		say_missing(d, a, "executable and no debug info", name);
	pthread_mutex_unlock(&d->lock);
	return path;
}
