/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: the image backends (libelf, libbfd) behind one
 * ops table, and the raw symbols they hand to the gprof table builder.
 */
#ifndef SYMPROF_SYMBOLIZE_INTERNAL_H
#define SYMPROF_SYMBOLIZE_INTERNAL_H

#include "symprof/symbolize.h"

struct sp_error;

/* A symbol as the file lists it, with the class letter `nm` would print. */
struct raw_sym {
	const char *name;
	/* end of the string table `name` points into, or NULL: gprof's name
	 * filter reads past the end of some names into the next string of
	 * the table (see gprof-syms.c), so the backend says where that ends */
	const char *name_limit;
	uint64_t addr; /* value + section vma (gprof's address) */
	uint64_t size;
	size_t count_hint; /* symbols the walk reports at most, 0 unknown */
	char type;	   /* nm class letter: T t W ... */
	unsigned has_section : 1;
	unsigned local : 1;	/* BSF_LOCAL */
	unsigned function : 1;	/* BSF_FUNCTION */
	unsigned debugging : 1; /* BSF_DEBUGGING */
};

struct image_ops {
	const char *name;
	/* Calls fn for every symbol in file order; 0 or -error. */
	int (*for_each_sym)(struct sp_image *im, int (*fn)(void *ctx, const struct raw_sym *s),
			    void *ctx, struct sp_error *err);
	int (*text)(struct sp_image *im, uint64_t *vma, uint64_t *size, struct sp_error *err);
	const uint8_t *(*text_bytes)(struct sp_image *im, struct sp_error *err);
	int (*src_line)(struct sp_image *im, uint64_t vaddr, const char **file, int *line);
	/* What bfd_find_nearest_line says in [lo, hi): fn is called with each
	 * address where (file, line, function) may change, ascending; file,
	 * line or func are NULL/0 where there is no answer. */
	int (*for_each_line)(struct sp_image *im, uint64_t lo, uint64_t hi,
			     int (*fn)(void *ctx, uint64_t addr, const char *file, int line,
				       const char *func),
			     void *ctx, struct sp_error *err);
	/* optional: start loading in the background what src_line
	 * (SP_PREFETCH_LINES) and for_each_line (SP_PREFETCH_FUNCS) need */
	void (*prefetch)(struct sp_image *im, unsigned what);
	/* optional: prefetch(SP_PREFETCH_LINES) for a caller whose src_line
	 * questions will be these n addresses (any order); others are still
	 * answered, later. Nothing if the loading has already started. */
	void (*prefetch_query)(struct sp_image *im, const uint64_t *vaddrs, size_t n);
	/* 1 if vaddr lies in a section that holds code */
	int (*in_code)(struct sp_image *im, uint64_t vaddr);
	/* fills the code description (NULL: the text section alone) */
	int (*code)(struct sp_image *im, struct sp_code *c, struct sp_error *err);
	/* optional: the value of the defined symbol `name` of the image's own
	 * symbol table, 0; -1 if it has none */
	int (*symbol_value)(struct sp_image *im, const char *name, uint64_t *value);
	/* true when the backend's symbols come with function-type flags */
	int has_func_syms;
	void (*free)(struct sp_image *im);
};

enum {
	SP_PREFETCH_LINES = 1 << 0,
	SP_PREFETCH_FUNCS = 1 << 1,
};

struct sp_image {
	const struct image_ops *ops;
	char *path;
	struct sp_target target;
	struct sp_strtab strs;		      /* names handed out by src_line */
	void *priv;			      /* backend state */
	struct sp_code *code;		      /* sp_image_code(), loaded on first use */
	const struct sp_debug_search *search; /* borrowed, NULL: defaults */
};

extern const struct image_ops sp_elf_image_ops;

/* The COFF string table of a PE image as libbfd holds it (coff-strtab.c):
 * strs is 4 zero bytes, the strings, a NUL; name_off[i] is where the name
 * of bfd's i-th canonical symbol starts in strs (0: a short name, which
 * bfd keeps elsewhere). */
struct sp_coff_strtab {
	char *strs;
	size_t len;
	uint32_t *name_off;
	size_t nsyms;
};

/* Reads the table of the PE image at `path`: 0, or -1 (not a PE image,
 * truncated, unreadable) with *t empty. */
int sp_coff_strtab_read(struct sp_coff_strtab *t, const char *path);
void sp_coff_strtab_release(struct sp_coff_strtab *t);
/* Symbol i's name inside the table if it is `name` there (and then *limit
 * = the end of the table), else NULL. Borrowed from t. */
const char *sp_coff_strtab_name(const struct sp_coff_strtab *t, size_t i, const char *name,
				const char **limit);

/* Backend constructors: 0, -error, or 1 if the file is not theirs. */
int sp_elf_image_open(struct sp_image *im, struct sp_error *err);
int sp_bfd_image_open(struct sp_image *im, struct sp_error *err);
/* Whether libbfd opens `path` as an object file (sp_image_is_object()). */
int sp_bfd_is_object(const char *path);

/* elf-code.c: the code description of an ELF image whose symbols are in
 * `symelf` (the image itself or its separate debug file). */
struct Elf;
int sp_elf_code_load(struct sp_image *im, struct Elf *elf, struct Elf *symelf, struct sp_code *c,
		     struct sp_error *err);
/* Frees the arrays of a code description filled by a backend. */
void sp_code_release(struct sp_code *c);

/* ---- ELF facts for runtime symbolization (elf-image.c) ---- */

/* A PT_LOAD segment. */
struct sp_elf_load {
	uint64_t vaddr, offset, filesz, memsz, align;
	uint32_t flags; /* PF_X, PF_W, PF_R */
};

struct sp_elf_info {
	int e_type;		 /* ET_EXEC, ET_DYN ... */
	const uint8_t *build_id; /* NULL if none (the debug file's otherwise) */
	size_t build_id_len;
	const struct sp_elf_load *loads;
	size_t nloads;
};

struct sp_dwfuncs;
struct sp_linetab;

/* 1 if the image is ELF (these functions apply). */
int sp_image_is_elf(const struct sp_image *im);
/* Program headers and build-id (borrowed from the image). */
void sp_elf_image_info(struct sp_image *im, struct sp_elf_info *out);
/* The file the image's DWARF comes from: its own, else its separate debug
 * file (opened here); NULL if neither has DWARF. Borrowed from the image. */
const char *sp_elf_image_dwarf_path(struct sp_image *im);
/* Starts reading the DWARF line table in the background (dwarf-tables.c). */
void sp_elf_image_start(struct sp_image *im);
/*
 * Starts reading the line table and the functions in the background for
 * these addresses: a large file may then be read partially (only the
 * units holding them, dwarf-partial.c). No effect once reading started.
 */
void sp_elf_image_start_for(struct sp_image *im, const uint64_t *vaddrs, size_t n);
/* 1 if vaddr's answers are complete (always, unless read partially). */
int sp_elf_image_covers(struct sp_image *im, uint64_t vaddr);
/* Drops a partial reading: the next use reads the whole file. */
void sp_elf_image_read_all(struct sp_image *im);
/*
 * What addr2line reads: functions and inline chains from DWARF (the file's
 * own or its debug file's) with *lines the line table; without DWARF, the
 * ELF symbols only (symtab, else dynsym) and *lines NULL. Never NULL.
 */
struct sp_dwfuncs *sp_elf_image_funcs(struct sp_image *im, const struct sp_linetab **lines);
/* 1 if vaddr lies in an allocated section (addr2line's first check). */
int sp_elf_image_in_alloc(struct sp_image *im, uint64_t vaddr);
/* 1 and the file and line addr2line prints for vaddr in data (a variable
 * DWARF describes, found as libbfd finds it: see dwarf-vars.c), else 0. */
int sp_elf_image_data_line(struct sp_image *im, uint64_t vaddr, const char **file, uint32_t *line);

/*
 * The index cache (dwcache.c) for the tables of this image, in directory
 * dir (NULL: none): loaded instead of reading the DWARF when it holds
 * them, saved after reading it. Call before anything is read.
 */
void sp_elf_image_set_cache(struct sp_image *im, const char *dir);
/* 1 if the symbols come from .dynsym: no .symtab, in the file or its
 * debug file. */
int sp_elf_image_dynsym_only(struct sp_image *im);
/* 1 if the tables in use came from the cache (they have no DIEs). */
int sp_elf_image_from_cache(struct sp_image *im);
/* Drops tables that came from the cache: the next use reads the DWARF. */
void sp_elf_image_uncache(struct sp_image *im);

/* A symbol as `nm -n` (or, with no .symtab, `nm -D -n`) lists it. */
struct sp_nm_sym {
	const char *name;    /* raw name */
	const char *version; /* "" or the version nm appends */
	uint64_t addr;
	size_t index;	     /* in its table, for stable sorting */
	char type;	     /* nm's class letter */
	unsigned hidden : 1; /* "@" rather than "@@" */
};

/* Calls fn for the defined symbols nm lists for the image's own file: its
 * .symtab, or when that lists nothing, its .dynsym. Returns how many. */
int sp_elf_image_nm(struct sp_image *im, int (*fn)(void *ctx, const struct sp_nm_sym *s),
		    void *ctx);

/*
 * maps.c: the load bias of mapping m (vaddr = abs - bias) for a file with
 * these PT_LOAD segments: Go pprof's start - offset + seg.offset -
 * seg.vaddr, with seg the segment the mapping's file offset points at
 * (executable ones first). The mapping's length must fit the segment's
 * page-rounded file size (4, 16 or 64 KiB pages). 0, or -1 if none fits.
 */
struct sp_map;
int sp_map_bias(const struct sp_map *m, const struct sp_elf_load *loads, size_t nloads,
		uint64_t *bias);
/* maps.c: the vaddr of `off`, an offset from the object's load base
 * (IgProf's frames), for a file with these PT_LOAD segments; 0, or -1 if
 * it has none. */
int sp_map_base_offset_to_vaddr(uint64_t off, const struct sp_elf_load *loads, size_t nloads,
				uint64_t *vaddr);

/* ---- where files are found (debuginfo.c, debuginfod.c) ---- */

/* The debug root of a search (NULL: the defaults): /usr/lib/debug unless
 * the search names another. */
const char *sp_debug_root(const struct sp_debug_search *search);

/* ROOT/.build-id/xx/yyyy + suffix for a build-id of at least 2 bytes,
 * else NULL (malloc'ed; whether the file exists is not checked). */
char *sp_build_id_path(const char *root, const uint8_t *build_id, size_t build_id_len,
		       const char *suffix);

/*
 * Separate debug files: the path of the debug file for the ELF file at
 * `path` with this build-id and/or debuglink (name + crc), found locally
 * (see debuginfo.c) or, failing that, by build-id from the search's
 * debuginfod; NULL if none (malloc'ed).
 */
char *sp_debuginfo_find(const char *path, const uint8_t *build_id, size_t build_id_len,
			const char *debuglink, uint32_t debuglink_crc,
			const struct sp_debug_search *search);

enum sp_debuginfod_kind {
	SP_DEBUGINFOD_EXECUTABLE,
	SP_DEBUGINFOD_DEBUGINFO,
};

/*
 * The file of this kind with this build-id from debuginfod: its path in
 * the client's cache (malloc'ed), or NULL. `name` names the file the
 * profile or the caller knows it by, for messages. The answer is asked
 * for once per build-id and kind, and remembered; NULL d: NULL.
 * Thread-safe (one question at a time).
 */
char *sp_debuginfod_find(struct sp_debuginfod *d, enum sp_debuginfod_kind kind,
			 const uint8_t *build_id, size_t build_id_len, const char *name);

/* The executable with this build-id, else its debug file (which a
 * symbolizer can read in its place); one warning if there is neither. */
char *sp_debuginfod_find_file(struct sp_debuginfod *d, const uint8_t *build_id, size_t build_id_len,
			      const char *name);

#endif
