/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The DWARF tables of an ELF image (dwarf-tables.h): when they are built,
 * on which thread, and from what (the DWARF, the wanted units of it, or
 * the index cache).
 *
 * The line table takes as long as everything else gprof's report needs,
 * so it is built by a worker (core/worker.h) started as soon as the image
 * knows it will be asked; its first reader joins it. The worker opens a
 * libelf handle of its own: nothing of the image's is shared while it
 * runs. It also loads the index cache, when there is one, before it
 * reads any DWARF (the key is made on the calling thread). For runtime
 * symbolization it builds the functions too, and saves both to the index
 * cache. With SP_PREFETCH_FUNCS (gprof's line granularity) a second
 * worker reads the functions' DIEs meanwhile, with a handle, a Dwarf and
 * a string table of its own, taking each unit as the line worker decides
 * its fate (struct unit_feed: the one thing both touch, under its lock);
 * the first reader of the functions finishes them with the line table.
 *
 * Without workers each table is built on the calling thread when its
 * worker would have started (the functions when first asked for): the
 * same tables, so the same output.
 */
#include "dwarf-tables.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "dwarf-funcs.h"
#include "dwarf-vars.h"
#include "dwcache.h"
#include "elf-file.h"
#include "internal.h"
#include "lines.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/worker.h"

/* ---- the line worker's verdict on each unit, for the functions worker ---- */

struct unit_feed {
	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t cv;
	uint8_t *state;
	size_t n, alloc;
	int done;
};

static void feed_unit(void *ctx, uint32_t unit, int state)
{
	struct unit_feed *f = ctx;

	pthread_mutex_lock(&f->mu);
	if (unit == UINT32_MAX) {
		f->done = 1;
	} else if (unit == f->n) {
		SP_ALLOC_GROW(f->state, f->n + 1, f->alloc);
		f->state[f->n++] = (uint8_t)state;
	}
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

/* Waits until the line worker has decided unit's fate. */
static enum sp_linetab_unit_state fed_state(void *ctx, uint32_t unit)
{
	struct unit_feed *f = ctx;
	enum sp_linetab_unit_state st;

	pthread_mutex_lock(&f->mu);
	while (unit >= f->n && !f->done)
		pthread_cond_wait(&f->cv, &f->mu);
	st = unit < f->n ? (enum sp_linetab_unit_state)f->state[unit] : SP_LINETAB_UNIT_NONE;
	pthread_mutex_unlock(&f->mu);
	return st;
}

static void feed_free(struct unit_feed *f)
{
	if (!f)
		return;
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f->state);
	free(f);
}

/* ---- the DWARF ---- */

/* The copy t->partial made, opened from memory. */
static Elf *copy_elf(struct sp_dwtables *t)
{
	t->memelf = elf_memory((char *)t->partial.image, t->partial.size);
	return t->memelf;
}

/* elf's compressed debug sections inflated here rather than by libdw
 * (which cannot inflate zstd): the copy, or elf itself if none is made. */
static Elf *whole_copy(struct sp_dwtables *t, Elf *elf)
{
	return sp_partial_whole(&t->partial, elf) < 0 ? elf : copy_elf(t);
}

/* The DWARF of the file opened in t->dwf: all of it, or the wanted units. */
static Dwarf *open_dwarf(struct sp_dwtables *t, const char *path)
{
	Elf *elf = t->dwf.elf;

	if (t->nwant && sp_partial_prepare_with(&t->partial, elf, t->want, t->nwant, t->extra_cus,
						t->nextra_cus) == 0) {
		t->partial_on = 1;
		if (t->partial.image)
			elf = copy_elf(t);
	} else {
		elf = whole_copy(t, elf);
	}
	if (t->partial.problem) {
		/* told on the calling thread (sp_dwtables_lines) */
		struct sp_buf b = SP_BUF_INIT;

		sp_buf_addf(&b, "warning: '%s': %s", path, t->partial.problem);
		t->problem = sp_buf_detach(&b, NULL);
	}
	return elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
}

/* ---- the index cache (dwcache.c) ---- */

/* The key, from what cache_prepare() copied on the calling thread (the line
 * worker must not touch the image's libelf handles). */
static void cache_key(const struct sp_dwtables *t, struct sp_dwcache_key *k)
{
	k->build_id = t->cache_id;
	k->build_id_len = t->cache_id_len;
	k->dwarf_path = t->dwarf_path;
	k->for_profile = t->nwant != 0;
}

/* Saves the tables just built from the DWARF (on the line worker). */
static void cache_store(struct sp_dwtables *t)
{
	struct sp_dwcache_key k;

	/* a damaged file's tables are not kept: each run warns */
	if (!t->cache_dir || t->cache_off || !t->funcs || t->problem)
		return;
	cache_key(t, &k);
	sp_dwcache_store(t->cache_dir, &k, t->lines, t->funcs, t->partial_on ? &t->partial : NULL);
}

/* 1 if a partial index covers every wanted address. */
static int covers_wanted(const struct sp_dwtables *t, const struct sp_partial *p)
{
	size_t i;

	if (!t->nwant)
		return 0; /* the whole file is wanted */
	for (i = 0; i < t->nwant; i++)
		if (!sp_partial_covers(p, t->want[i]))
			return 0;
	return 1;
}

/*
 * The calling thread's part of a cache load: the key of the file whose
 * DWARF is at path (its real path and build-id, copied for the line
 * worker, which must not touch the image's libelf handles). 0, or -1 when
 * there is no cache to look in.
 */
static int cache_prepare(struct sp_dwtables *t, const char *path)
{
	struct sp_elf_info info;
	char *real;

	free(t->dwarf_path);
	t->dwarf_path = sp_xstrdup(path);
	if (!t->cache_dir || t->cache_off || t->query || t->feed)
		return -1;
	/* one key for the file whatever path reaches it */
	if ((real = realpath(path, NULL))) {
		free(t->dwarf_path);
		t->dwarf_path = real;
	}
	sp_elf_image_info(t->im, &info);
	free(t->cache_id);
	t->cache_id = NULL;
	t->cache_id_len = info.build_id_len;
	if (info.build_id) {
		t->cache_id = sp_xmalloc(info.build_id_len + 1);
		memcpy(t->cache_id, info.build_id, info.build_id_len);
	}
	return 0;
}

/*
 * The tables from the cache instead of the DWARF, after cache_prepare()
 * (on the line worker: it touches only t's copies and im->strs, which the
 * worker owns until joined): 0, or -1 (read the DWARF; a partial index
 * that does not cover the wanted addresses leaves its units to be read
 * with theirs, so the index grows). all_rows: every row will be read
 * (its blocks are checked as the index loads, see dwcache.h).
 */
static int cache_load(struct sp_dwtables *t, int all_rows)
{
	struct sp_dwcache_hit hit;
	struct sp_dwcache_key k;
	struct sp_partial units;

	cache_key(t, &k);
	/* a table about to be unpacked lets its file go: its strings are
	 * copied then, not adopted */
	if (sp_dwcache_load(
		    t->cache_dir, &k, &t->im->strs,
		    t->dense_lines ? 0 : SP_DWCACHE_ADOPT | (all_rows ? SP_DWCACHE_ALL_ROWS : 0),
		    &hit, &units) < 0)
		return -1;
	if (hit.partial && !covers_wanted(t, &units)) {
		free(t->extra_cus);
		t->extra_cus = sp_xreallocarray(NULL, units.ncus + 1, sizeof(*t->extra_cus));
		memcpy(t->extra_cus, units.cus, units.ncus * sizeof(*t->extra_cus));
		t->nextra_cus = units.ncus;
		sp_dwfuncs_free(hit.funcs);
		sp_linetab_free(hit.lines);
		sp_partial_release(&units);
		return -1;
	}
	t->lines = hit.lines;
	t->funcs = hit.funcs;
	t->funcs_tried = 1;
	t->cached = 1;
	if (t->dense_lines)
		sp_linetab_unpack(t->lines);
	t->partial = units;
	t->partial_on = hit.partial;
	return 0;
}

/* The DWARF itself, for what the cached tables do not hold (addr2line's
 * variables), read as open_dwarf() reads it (zstd inflated here); t->dw
 * stays NULL if it cannot be read. */
static void cache_open_dwarf(struct sp_dwtables *t)
{
	if (!t->cached || t->dw || t->partial_on || !t->dwarf_path)
		return;
	if (sp_elf_file_open(&t->dwf, t->dwarf_path) == 0) {
		Elf *elf;

		sp_partial_release(&t->partial); /* a whole index's: unused */
		elf = whole_copy(t, t->dwf.elf);
		t->dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	}
}

void sp_dwtables_set_cache(struct sp_dwtables *t, const char *dir)
{
	free(t->cache_dir);
	t->cache_dir = dir && *dir ? sp_xstrdup(dir) : NULL;
}

const char *sp_dwtables_cache_dir(const struct sp_dwtables *t)
{
	return t->cache_dir;
}

int sp_dwtables_from_cache(const struct sp_dwtables *t)
{
	return t->cached;
}

void sp_dwtables_uncache(struct sp_dwtables *t)
{
	if (!t->cached)
		return;
	t->cache_off = 1;
	t->partial_on = 1; /* so that read_all drops the tables */
	sp_dwtables_read_all(t);
	t->cached = 0;
}

/* ---- the workers ---- */

struct tables_job {
	struct sp_dwtables *t;
	char *path;
	int cache_first; /* load the index cache, read the DWARF if it misses */
};

static struct tables_job *new_job(struct sp_dwtables *t, const char *path)
{
	struct tables_job *job = sp_xmalloc(sizeof(*job));

	job->t = t;
	job->path = sp_xstrdup(path);
	job->cache_first = 0;
	return job;
}

static void job_free(struct tables_job *job)
{
	free(job->path);
	free(job);
}

/* The line worker: the line table, and the functions when wanted. */
static void build_lines(void *arg)
{
	struct tables_job *job = arg;
	struct sp_dwtables *t = job->t;
	struct sp_strtab *strs = &t->im->strs;

	if (job->cache_first && cache_load(t, 0) == 0) {
		job_free(job);
		return;
	}
	if (sp_elf_file_open(&t->dwf, job->path) == 0 && (t->dw = open_dwarf(t, job->path))) {
		if (t->partial_on)
			t->lines = sp_linetab_new_units(t->dw, strs, &t->partial.units, NULL);
		else if (t->feed)
			t->lines = sp_linetab_new_watched(t->dw, strs, feed_unit, t->feed, NULL);
		else if (t->query)
			t->lines = sp_linetab_new_query(t->dw, strs, t->query, t->nquery, NULL);
		else
			t->lines = sp_linetab_new_lenient(t->dw, strs, NULL);
		if (t->want_funcs && t->lines) {
			t->funcs_tried = 1;
			t->funcs = sp_dwfuncs_new(t->dw, t->lines, strs, NULL);
			cache_store(t);
		}
	}
	if (t->feed)
		feed_unit(t->feed, UINT32_MAX, 0); /* whatever happened above */
	job_free(job);
}

/* The functions worker: the functions' DIEs, unit by unit as fed. */
static void read_funcs(void *arg)
{
	struct tables_job *job = arg;
	struct sp_dwtables *t = job->t;

	if (sp_elf_file_open(&t->fnf, job->path) == 0 &&
	    (t->fdw = dwarf_begin_elf(t->fnf.elf, DWARF_C_READ, NULL)))
		t->funcs_read = sp_dwfuncs_read(t->fdw, fed_state, t->feed, &t->fstrs, NULL);
	job_free(job);
}

/* Starts the functions worker, before the line worker that feeds it.
 * Without a worker, nothing: sp_dwtables_funcs() reads the functions. */
static void funcs_start(struct sp_dwtables *t, const char *path)
{
	struct tables_job *job = new_job(t, path);

	t->feed = sp_xcalloc(1, sizeof(*t->feed));
	pthread_mutex_init(&t->feed->mu, NULL);
	pthread_cond_init(&t->feed->cv, NULL);
	if ((t->funcs_worker = sp_worker_start(read_funcs, job)))
		return;
	job_free(job);
	feed_free(t->feed);
	t->feed = NULL;
}

void sp_dwtables_start(struct sp_dwtables *t, unsigned what)
{
	const char *path;
	struct tables_job *job;
	int cache;

	if (t->started)
		return;
	t->started = 1;
	path = sp_elf_image_dwarf_path(t->im);
	if (!path)
		return;
	cache = (t->want_funcs || (what & SP_PREFETCH_FUNCS)) && cache_prepare(t, path) == 0;
	if (cache && (what & SP_PREFETCH_FUNCS)) {
		/* the functions worker starts only if the index misses; what
		 * the workers build then is saved at the release, when the
		 * report is out (saving is work the report need not wait for) */
		if (cache_load(t, 1) == 0) /* -l reads every row */
			return;
		cache = 0;
		t->store_at_release = 1;
	}
	if (what & SP_PREFETCH_FUNCS)
		funcs_start(t, path);
	job = new_job(t, path);
	/* the index, as the DWARF, is loaded by the line worker: a large
	 * one takes as long as reading the profile meanwhile */
	job->cache_first = cache;
	if (!(t->lines_worker = sp_worker_start(build_lines, job)))
		build_lines(job);
}

void sp_dwtables_start_for(struct sp_dwtables *t, const uint64_t *vaddrs, size_t n)
{
	if (t->started)
		return;
	t->want_funcs = 1;
	if (n) {
		t->want = sp_xreallocarray(NULL, n, sizeof(*t->want));
		memcpy(t->want, vaddrs, n * sizeof(*t->want));
		t->nwant = n;
	}
	sp_dwtables_start(t, SP_PREFETCH_LINES);
}

void sp_dwtables_start_query(struct sp_dwtables *t, uint64_t *query, size_t n)
{
	if (t->started) {
		free(query); /* too late: the full table is on its way */
		return;
	}
	t->query = query;
	t->nquery = n;
	sp_dwtables_start(t, SP_PREFETCH_LINES);
}

/* ---- the tables ---- */

struct sp_linetab *sp_dwtables_lines(struct sp_dwtables *t)
{
	sp_dwtables_start(t, SP_PREFETCH_LINES);
	sp_worker_join(t->lines_worker);
	t->lines_worker = NULL;
	if (t->problem && !t->problem_told) {
		t->problem_told = 1;
		sp_warn(t->im->search ? t->im->search->warn : NULL, "%s", t->problem);
	}
	return t->lines;
}

struct sp_linetab *sp_dwtables_lines_full(struct sp_dwtables *t)
{
	sp_dwtables_lines(t);
	if (!t->query)
		return t->lines;
	free(t->query);
	t->query = NULL;
	t->nquery = 0;
	if (!t->lines)
		return NULL;
	sp_linetab_free(t->lines);
	t->lines = sp_linetab_new_lenient(t->dw, &t->im->strs, NULL);
	return t->lines;
}

struct sp_dwfuncs *sp_dwtables_funcs(struct sp_dwtables *t)
{
	/* with a cache, the functions are built with the lines (and saved);
	 * asked without a prefetch (addr2line's sessions), the lookups will
	 * be many, so a cached line table is decoded whole as it loads, and
	 * its file let go */
	if (!t->started && t->cache_dir) {
		t->want_funcs = 1;
		t->dense_lines = 1;
	}
	sp_dwtables_lines_full(t);
	sp_worker_join(t->funcs_worker);
	t->funcs_worker = NULL;
	if (!t->funcs_tried && t->lines) {
		t->funcs_tried = 1;
		if (t->funcs_read) {
			/* read by the functions worker while the lines were decoded */
			t->funcs = t->funcs_read;
			t->funcs_read = NULL;
			sp_dwfuncs_finish(t->funcs, t->lines);
		} else {
			t->funcs = sp_dwfuncs_new(t->dw, t->lines, &t->im->strs, NULL);
		}
	}
	return t->funcs;
}

struct sp_dwvars *sp_dwtables_vars(struct sp_dwtables *t, Elf *elf)
{
	sp_dwtables_lines(t);
	if (!t->vars) {
		cache_open_dwarf(t);
		t->vars = sp_dwvars_new(elf, t->partial_on ? NULL : t->dw, &t->im->strs);
	}
	return t->vars;
}

int sp_dwtables_covers(struct sp_dwtables *t, uint64_t vaddr)
{
	sp_dwtables_lines(t);
	return !t->partial_on || sp_partial_covers(&t->partial, vaddr);
}

void sp_dwtables_read_all(struct sp_dwtables *t)
{
	sp_dwtables_lines(t);
	if (!t->partial_on)
		return;
	sp_dwfuncs_free(t->funcs);
	sp_dwvars_free(t->vars);
	sp_linetab_free(t->lines);
	dwarf_end(t->dw);
	if (t->memelf)
		elf_end(t->memelf);
	sp_elf_file_close(&t->dwf);
	sp_partial_release(&t->partial);
	t->funcs = NULL;
	t->vars = NULL;
	t->lines = NULL;
	t->dw = NULL;
	t->memelf = NULL;
	t->partial_on = 0;
	t->funcs_tried = 0;
	t->nwant = 0;
	t->started = 0;
	t->cached = 0;
}

/* ---- lifecycle ---- */

void sp_dwtables_init(struct sp_dwtables *t, struct sp_image *im)
{
	memset(t, 0, sizeof(*t));
	t->im = im;
	t->dwf.fd = -1;
	t->fnf.fd = -1;
	sp_strtab_init(&t->fstrs);
}

void sp_dwtables_release(struct sp_dwtables *t)
{
	sp_worker_join(t->lines_worker);
	sp_worker_join(t->funcs_worker);
	/* only whole tables: the functions were finished (asked for) */
	if (t->store_at_release && t->funcs && t->lines && !t->partial_on && !t->query)
		cache_store(t);
	sp_dwfuncs_free(t->funcs_read);
	if (t->fdw)
		dwarf_end(t->fdw);
	sp_elf_file_close(&t->fnf);
	sp_strtab_release(&t->fstrs);
	feed_free(t->feed);
	sp_dwfuncs_free(t->funcs);
	sp_dwvars_free(t->vars);
	sp_linetab_free(t->lines);
	if (t->dw)
		dwarf_end(t->dw);
	if (t->memelf)
		elf_end(t->memelf);
	sp_partial_release(&t->partial);
	free(t->want);
	free(t->query);
	free(t->cache_dir);
	free(t->dwarf_path);
	free(t->problem);
	free(t->cache_id);
	free(t->extra_cus);
	sp_elf_file_close(&t->dwf);
}
