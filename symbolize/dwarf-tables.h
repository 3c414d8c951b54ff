/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The DWARF tables of an ELF image (dwarf-tables.c): the line table, the
 * functions and inline chains, addr2line's variables, built from the
 * DWARF of the image's file or its debug file, or loaded from the index
 * cache. elf-image.c owns one per image and asks it for the tables; this
 * file decides when they are built and on which thread.
 *
 * The line table (and with it the functions, for runtime symbolization)
 * is built by a worker (core/worker.h) started as soon as the image knows
 * it will need them; with SP_PREFETCH_FUNCS a second worker reads the
 * functions' DIEs while the first decides each unit's fate. Each worker
 * opens a libelf handle of its own, writes only the fields marked "the
 * line worker's" or "the functions worker's" below, and is joined before
 * anything reads them. Without workers (SYMPROF_THREADS=0, or no thread
 * to be had) the same tables are built on the calling thread, when they
 * would have been started.
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_TABLES_H
#define SYMPROF_SYMBOLIZE_DWARF_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf-partial.h"
#include "elf-file.h"
#include "symprof/strtab.h"

struct sp_image;
struct sp_worker;
struct unit_feed;
typedef struct Dwarf Dwarf;

struct sp_dwtables {
	struct sp_image *im; /* its file names and names go to im->strs */
	int started;	     /* the builders were started (or found nothing) */
	/* the line worker's, until sp_dwtables_lines() joined it */
	struct sp_worker *lines_worker;
	struct sp_elf_file dwf; /* the file the DWARF comes from */
	Dwarf *dw;
	Elf *memelf; /* the partial in-memory copy, if any */
	struct sp_linetab *lines;
	struct sp_dwfuncs *funcs; /* functions and inline chains */
	int funcs_tried;
	struct sp_partial partial;
	int partial_on;
	/* the functions worker's (SP_PREFETCH_FUNCS), until it is joined:
	 * its DIEs read with a handle, a Dwarf and a string table of its own
	 * as the line worker decides each unit's fate (feed, under its lock) */
	struct unit_feed *feed;
	struct sp_worker *funcs_worker;
	struct sp_elf_file fnf;
	Dwarf *fdw;
	struct sp_strtab fstrs;
	struct sp_dwfuncs *funcs_read;
	/* set before the start: the addresses wanted (a large file may then
	 * be read partially, see dwarf-partial.c), whether the functions are
	 * built with the lines, and the only addresses the line table will
	 * be asked about (a query table, replaced by the full one if asked
	 * anything else) */
	uint64_t *want;
	size_t nwant;
	int want_funcs;
	uint64_t *query;
	size_t nquery;
	struct sp_dwvars *vars; /* addr2line's variables, on first use */
	/* the index cache (dwcache.c): its directory (NULL: off), whether
	 * the tables came from it (no DWARF open then), the units of a
	 * partial index that did not cover the profile (read again too) */
	char *cache_dir;
	char *dwarf_path;
	uint8_t *cache_id; /* the build-id, copied for the line worker */
	size_t cache_id_len;
	int cached, cache_off;
	/* the two workers' tables (SP_PREFETCH_FUNCS, the index missed) are
	 * saved when released, after the report */
	int store_at_release;
	int dense_lines; /* decode a cached line table whole (many lookups) */
	uint64_t *extra_cus;
	size_t nextra_cus;
	/* a debug section left out (sp_partial.problem), as a warning told
	 * once, on the calling thread, when the lines are first asked for */
	char *problem;
	int problem_told;
};

void sp_dwtables_init(struct sp_dwtables *t, struct sp_image *im);
/* Joins the workers, then frees everything. */
void sp_dwtables_release(struct sp_dwtables *t);

/* Starts building the tables (SP_PREFETCH_LINES, | SP_PREFETCH_FUNCS for
 * the functions worker too), once: later calls do nothing. */
void sp_dwtables_start(struct sp_dwtables *t, unsigned what);
/* The same for runtime symbolization: the functions are built with the
 * lines, only for these vaddrs when that reads fewer units (n 0: all). */
void sp_dwtables_start_for(struct sp_dwtables *t, const uint64_t *vaddrs, size_t n);
/* The same with a query table for exactly these vaddrs (taken, freed
 * here); frees them and does nothing if the tables were started. */
void sp_dwtables_start_query(struct sp_dwtables *t, uint64_t *query, size_t n);

/* The line table, started and waited for; NULL if there is none. It may
 * be a query table (sp_linetab_ask() says when to ask the full one). */
struct sp_linetab *sp_dwtables_lines(struct sp_dwtables *t);
/* The full line table, built now on the calling thread if what was built
 * is a query table (file names stay valid: both intern in im->strs). */
struct sp_linetab *sp_dwtables_lines_full(struct sp_dwtables *t);
/* The functions and inline chains with the full line table (t->lines);
 * NULL without DWARF. */
struct sp_dwfuncs *sp_dwtables_funcs(struct sp_dwtables *t);
/* addr2line's variables, with `elf` the image's own file. */
struct sp_dwvars *sp_dwtables_vars(struct sp_dwtables *t, Elf *elf);

/* 1 if vaddr's answers are complete (always, unless read partially). */
int sp_dwtables_covers(struct sp_dwtables *t, uint64_t vaddr);
/* Drops a partial reading: the next use reads the whole file. */
void sp_dwtables_read_all(struct sp_dwtables *t);

/* The index cache, as sp_elf_image_set_cache() and the next two say. */
void sp_dwtables_set_cache(struct sp_dwtables *t, const char *dir);
int sp_dwtables_from_cache(const struct sp_dwtables *t);
void sp_dwtables_uncache(struct sp_dwtables *t);
/* The cache directory given (NULL: none), for the image's other caches. */
const char *sp_dwtables_cache_dir(const struct sp_dwtables *t);

#endif
