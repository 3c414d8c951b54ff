/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A file the runtime-address symbolizer opened (symbolize.h's struct
 * sp_symfile): symbolizer.c finds it and says which of its vaddrs a frame
 * is; symfile.c answers what is at a vaddr (addr2line -f -i).
 */
#ifndef SYMPROF_SYMBOLIZE_SYMFILE_H
#define SYMPROF_SYMBOLIZE_SYMFILE_H

#include "dwarf-funcs.h"
#include "internal.h"
#include "symprof/hashmap.h"
#include "symprof/symbolize.h"

#define MAX_INLINE 256

struct sp_symfile {
	struct sp_symbolizer *s; /* the owner (its demangling cache) */
	struct sp_arena *arena;	 /* the owner's: answers live there */
	struct sp_strtab *strs;	 /* the owner's: names built here */
	char *path;
	struct sp_image *im;
	struct sp_elf_info info;
	struct sp_dwfuncs *funcs; /* on first lookup */
	const struct sp_linetab *lines;
	int loaded;
	struct sp_pairmap index; /* vaddr -> locs[] */
	struct sp_symloc **locs;
	size_t nlocs, locs_alloc;
	struct sp_nm_line *nm; /* nm -n's listing, on first use */
	const void *nm_map;    /* the cached listing it points into, or NULL */
	size_t nm_map_size;
	const char **nm_names; /* per line: the printed name, once asked */
	size_t nnm;
	int nm_loaded;
	struct sp_dwfuncs_state session; /* one addr2line process's memory */
	unsigned funcs_gen, session_gen; /* funcs loaded; those the session is for */
	int session_ready;
	/* symbols by name, the first of the table's order: raw [0] and
	 * demangled [1], each built when first asked (addr2line's "name") */
	struct sp_symnames *byname[2];
	struct sp_dmcache *dm; /* the saved demangling memo, once asked */
	int dm_opened;
	struct sp_symloc scratch; /* the last session answer */
	struct sp_sym_frame scratch_frames[MAX_INLINE];
};

/* The cache directory of the symbolizer that owns f, or NULL. */
const char *sp_symbolizer_cache_dir(const struct sp_symbolizer *s);

/* The file at path, read through im (taken: freed with the file). */
struct sp_symfile *sp_symfile_new(struct sp_symbolizer *s, struct sp_arena *arena,
				  struct sp_strtab *strs, const char *path, struct sp_image *im);
void sp_symfile_free(struct sp_symfile *f);

#endif
