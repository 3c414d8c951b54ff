/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Symbolization: executables and libraries on disk (images), their symbol
 * tables, source lines and demangling. Only symbolize/ includes libelf,
 * libdw or bfd headers; nothing here exposes their types.
 *
 * An image is opened once and answers lazily: the symbol table, the DWARF
 * line table and the text bytes are loaded on first use and cached in the
 * image. Results are borrowed: valid until sp_image_free().
 */
#ifndef SYMPROF_SYMBOLIZE_H
#define SYMPROF_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/strtab.h"

struct sp_error;
struct sp_image;

/* What the executable says about the machine. */
struct sp_target {
	int ptr_size; /* 4 or 8 */
	int big_endian;
	int sign_extend; /* addresses sign-extend (MIPS) */
	int machine;	 /* ELF e_machine (for PE/COFF x86 its ELF number), 0 if unknown */
	int is_elf;
	int is_relocatable; /* ET_REL object file */
	char leading_char;  /* symbol prefix ('_' on some COFF targets), 0 if none */
};

/* A source file as the debug information names it (bfd's composition of
 * comp_dir, directory and file name). */
struct sp_srcfile {
	const char *name;
	uint32_t id; /* creation order, 0-based */
};

/* A symbol: one function (or, with -l, one source line) over the vaddr
 * range [addr, end_addr] (inclusive, like gprof). */
struct sp_symbol {
	uint64_t addr;
	uint64_t end_addr;
	uint64_t size;		       /* ELF st_size, 0 if unknown */
	const char *name;	       /* as in the symbol table (mangled) */
	const struct sp_srcfile *file; /* NULL without debug info */
	int line;
	uint32_t aux;		/* free for the user of the table */
	unsigned is_func : 1;	/* a function entry (not a line symbol) */
	unsigned is_static : 1; /* local binding ('t') */
	unsigned is_bb_head : 1;
	unsigned mapped : 1;	 /* renamed to its object file by -R */
	unsigned is_line : 1;	 /* a line symbol of -l */
	unsigned no_linkage : 1; /* name is no linkage name (built from DWARF, or an
				    address): nothing to demangle, JSON's "mangled" is null */
};

/*
 * A sorted symbol table, gprof style: sorted by address, duplicates at one
 * address collapsed (global over static, function over line, fewer leading
 * underscores), each symbol ending where the next begins. `syms[len]` is a
 * zeroed sentinel.
 */
struct sp_symtab {
	struct sp_symbol *syms;
	size_t len, syms_alloc;
	struct sp_srcfile **files; /* in creation order */
	size_t nfiles, files_alloc;
	uint32_t *file_slots; /* hash of files by interned name: id + 1, 0 empty */
	size_t nfile_slots;   /* a power of two, or 0 */
	uint64_t text_end;    /* last byte of .text, ends the last symbol */
	uint64_t *addrs;      /* syms[i].addr, contiguous, for lookups */
	uint32_t *buckets;    /* private: lookup index over addrs (symtab.c) */
	size_t nbuckets;
	unsigned bucket_shift;
	uint64_t *pending; /* addresses still waiting for a file (in order) */
	size_t npending, pending_alloc;
	struct sp_arena arena;
	struct sp_strtab strs;
};

/* ---- symbol tables ---- */

struct sp_symtab *sp_symtab_new(void);
void sp_symtab_free(struct sp_symtab *t);
/* The source file named `name`, created (in creation order) if absent. */
const struct sp_srcfile *sp_symtab_file(struct sp_symtab *t, const char *name);
/* Appends an unsorted symbol; call sp_symtab_finalize() after the last. */
struct sp_symbol *sp_symtab_add(struct sp_symtab *t);
/* Makes room for n more symbols at once: growing by realloc while adding
 * copies the table into fresh pages again and again. */
void sp_symtab_reserve(struct sp_symtab *t, size_t n);

/*
 * Sorts and dedups an array of symbols with gprof's symtab_finalize()
 * rules, setting end addresses (the last one ends at `text_end`). Works on
 * any array (symbol tables and symspec tables alike); *len shrinks.
 */
void sp_symbols_finalize(struct sp_symbol *syms, size_t *len, uint64_t text_end);
void sp_symtab_finalize(struct sp_symtab *t);
/* The same for a table whose symbols are already in sp_symbol_cmp_addr() order. */
void sp_symtab_finalize_sorted(struct sp_symtab *t);
/*
 * Keeps the symbols i of a finalized table for which keep[i] is set, in
 * order, their ranges as they were (a symbol left out leaves a hole, not a
 * longer neighbour), and indexes the table again.
 */
void sp_symtab_compact(struct sp_symtab *t, const uint8_t *keep);
/* gprof's symbol order: by address, functions first, then globals first. */
int sp_symbol_cmp_addr(const struct sp_symbol *l, const struct sp_symbol *r);
/* gprof's sym_lookup(): the symbol whose range holds addr, else NULL. */
const struct sp_symbol *sp_symbols_lookup(const struct sp_symbol *syms, size_t len, uint64_t addr);
/* The same answer as sp_symbols_lookup() on the finalized table, faster. */
const struct sp_symbol *sp_symtab_lookup(const struct sp_symtab *t, uint64_t addr);
/* The index of the last symbol starting at or below addr, whatever its
 * end (SIZE_MAX if none): the symbol sp_symtab_lookup() checks addr against. */
size_t sp_symtab_floor(const struct sp_symtab *t, uint64_t addr);
/* The same, trying first the symbol at *hint (an index, updated): for
 * lookups that often fall in the symbol of the previous one. */
const struct sp_symbol *sp_symtab_lookup_near(const struct sp_symtab *t, uint64_t addr,
					      size_t *hint);
/*
 * For each symbol, the rank of its name in strcmp() order (equal names,
 * equal ranks), so that sorts can break ties by name without comparing
 * strings. A malloc'ed array of t->len entries.
 */
uint32_t *sp_symtab_name_ranks(const struct sp_symtab *t);
/*
 * The same with its temporaries in the caller's `scratch`, 8-aligned and
 * of at least sp_symtab_name_ranks_scratch(t) bytes (its contents are
 * lost): for a caller whose own temporaries can then reuse those pages.
 */
uint32_t *sp_symtab_name_ranks_in(const struct sp_symtab *t, void *scratch);
size_t sp_symtab_name_ranks_scratch(const struct sp_symtab *t);

/* The source file whose basename is `base`, most recently created first
 * (gprof's source_file_lookup_name()); NULL if none. */
const struct sp_srcfile *sp_symtab_file_by_basename(const struct sp_symtab *t, const char *base);

/* ---- where files are found (debuginfo.c, debuginfod.c) ---- */

struct sp_debuginfod;

/*
 * Where separate debug files, and the files of a profile's objects that
 * are not at their recorded paths, are looked for. The caller fills it
 * (cli/ reads the environment once); images and symbolizers borrow it, so
 * it must outlive them. A NULL search means the defaults: /usr/lib/debug,
 * no program search path, no debuginfod.
 */
struct sp_debug_search {
	const char *debug_root;		  /* NULL: /usr/lib/debug */
	const char *program_path;	  /* ':'-separated directories for a bare
					     program name (IgProf's argv[0]); NULL: none */
	struct sp_debuginfod *debuginfod; /* NULL: no debuginfod */
	/* problems in the debug information of a file found (a compressed
	 * section that cannot be inflated, left out), one message each;
	 * NULL: silent */
	const struct sp_warn_hook *warn;
};

/*
 * A debuginfod client: files by build-id from the servers of
 * DEBUGINFOD_URLS, through elfutils' libdebuginfod, which is loaded with
 * dlopen() at the first question (a machine without libdebuginfod.so.1
 * finds nothing there, with one warning). It downloads
 * into the client's cache ($DEBUGINFOD_CACHE_PATH) and remembers every
 * answer of the run, so each build-id is asked about once. The first
 * failure that is not "not found" (no connection, DEBUGINFOD_TIMEOUT
 * without an answer ...) ends the asking for the whole run. Problems are
 * told through `warn`, one message each; a download's progress through
 * `status` (a download starts: what; it ends: NULL) and `progress`
 * (bytes so far, total or 0). Callbacks may come from any thread that
 * opens images, one at a time.
 */
struct sp_debuginfod_opts {
	const char *urls; /* DEBUGINFOD_URLS, as the messages name the servers */
	long timeout;	  /* DEBUGINFOD_TIMEOUT in seconds, <= 0 for none */
	long retries;	  /* DEBUGINFOD_RETRY_LIMIT, as the client is to use it */
	void (*warn)(void *ctx, const char *msg);
	void (*status)(void *ctx, const char *what);
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};

struct sp_debuginfod *sp_debuginfod_new(const struct sp_debuginfod_opts *o);
/* Frees the client and its answers (the downloaded files stay cached). */
void sp_debuginfod_free(struct sp_debuginfod *d);

/* ---- images ---- */

/*
 * Opens an executable, shared library or object file. ELF goes through
 * libelf (with a separate debug file found by build-id or .gnu_debuglink
 * under the debug root, else from debuginfod: see `search`, which may be
 * NULL); anything else libbfd can read (PE/COFF ...) goes through libbfd.
 * NULL + err on failure.
 */
struct sp_image *sp_image_open(const char *path, const struct sp_debug_search *search,
			       struct sp_error *err);
/*
 * Whether `path` is a file sp_image_open() takes for an image: ELF (by its
 * magic bytes; it may still turn out broken) or an object file libbfd
 * recognises (PE/COFF, ...). 0 for anything else, and for a file that
 * cannot be read. Cheap for ELF; libbfd tries its targets otherwise.
 */
int sp_image_is_object(const char *path);
void sp_image_free(struct sp_image *im);
const struct sp_target *sp_image_target(const struct sp_image *im);
const char *sp_image_path(const struct sp_image *im);
/* The image's GNU build-id (its separate debug file's when it has none),
 * *len bytes; NULL and 0 if there is none or the image is not ELF.
 * Borrowed, valid until sp_image_free(). */
const uint8_t *sp_image_build_id(struct sp_image *im, size_t *len);

/* The text section (".text", or "$CODE$"): 0, or an error if missing. */
int sp_image_text(struct sp_image *im, uint64_t *vma, uint64_t *size, struct sp_error *err);
/*
 * The index cache's directory for this image's DWARF tables (NULL: none,
 * the default). A gprof-style table with line granularity then loads
 * its line table and functions from the index when it holds them, and
 * saves what it read from the DWARF when the image is freed. ELF images
 * only; call it before anything reads the image's DWARF.
 */
void sp_image_set_cache(struct sp_image *im, const char *dir);
/*
 * The first damage an index cache file showed after it was loaded (its
 * line rows are checked by blocks as lookups first reach them): one line
 * naming the file and the offset, or NULL. The file was removed (the next
 * run writes it again) and the rows of that block were answered as rows
 * without a line, so the caller must not trust this run's report: the
 * cli fails the run. Any thread; cleared by sp_image_cache_damage_clear().
 */
const char *sp_image_cache_damage(void);
void sp_image_cache_damage_clear(void);
/*
 * 1 if the image's symbols come from .dynsym alone (a stripped ELF file
 * without a debug file): its exported functions, so the code of the
 * others counts for the exported one before it.
 */
int sp_image_dynsym_only(struct sp_image *im);
/* The text section's bytes (for static call graphs); NULL + err on failure. */
const uint8_t *sp_image_text_bytes(struct sp_image *im, struct sp_error *err);

/* ---- machine code, for static call graphs (-c) ---- */

/* A section of the image that holds instructions. */
struct sp_code_section {
	const char *name;
	uint64_t vma, size;
	const uint8_t *bytes; /* size bytes; NULL if the file has none (NOBITS) */
	unsigned is_plt : 1;  /* import stubs: .plt, .plt.sec, .plt.got, .iplt */
};

/* How the bytes from a mark on are to be decoded (ARM and AArch64). */
enum sp_code_mode {
	SP_CODE_DEFAULT = 0, /* the machine's instructions ($x on AArch64) */
	SP_CODE_ARM,	     /* $a, or an ARM function symbol */
	SP_CODE_THUMB,	     /* $t, or a Thumb function symbol (odd value) */
	SP_CODE_DATA,	     /* $d: a literal pool, not instructions */
};

struct sp_code_mark {
	uint64_t addr;
	int mode; /* enum sp_code_mode, up to the next mark */
};

/* A memory slot (GOT entry) a dynamic relocation (GLOB_DAT, JUMP_SLOT)
 * fills with the address of the named symbol: PLT stubs and -fno-plt
 * calls jump through these. */
struct sp_code_slot {
	uint64_t addr;
	const char *name;
};

/* A branch relocation of an object file (ET_REL): the branch instruction
 * whose relocated field lies at `place` goes to `target` when the symbol
 * is defined in the scanned text (`resolved`), else to the external
 * symbol `name`. With `got`, the field is the address of the symbol's GOT
 * slot (x86 GOTPCREL): a call or jump through that memory goes there. */
struct sp_code_reloc {
	uint64_t place;
	uint64_t target;
	const char *name;
	unsigned resolved : 1;
	unsigned got : 1;
};

/* A second entry point of a function: PowerPC64 ELFv2 functions are called
 * at their local entry, `entry' plus the offset st_other encodes. */
struct sp_code_alias {
	uint64_t addr;
	uint64_t entry;
};

/*
 * What a code scanner needs to know about an image, every array sorted by
 * address. `starts` are the addresses of every symbol in a code section,
 * including the ones gprof's table drops: like objdump, a scanner restarts
 * decoding there. For an object file only .text is listed (its sections
 * all start at address 0) and `relocs` holds its branch relocations.
 */
struct sp_code {
	const struct sp_code_section *sections;
	size_t nsections;
	const uint64_t *starts;
	size_t nstarts;
	const struct sp_code_mark *marks;
	size_t nmarks;
	const struct sp_code_slot *slots;
	size_t nslots;
	const struct sp_code_reloc *relocs;
	size_t nrelocs;
	const struct sp_code_alias *aliases;
	size_t naliases;
	uint64_t got; /* .got.plt (else .got): i386 PIC stubs index from it */
};

/*
 * The image's code, loaded once (section bytes are mapped, not copied).
 * Borrowed, valid until sp_image_free(). Images that are not ELF list
 * their text section only. NULL + err on failure.
 */
const struct sp_code *sp_image_code(struct sp_image *im, struct sp_error *err);

/* What to keep when building gprof's function symbol table. */
struct sp_gprof_symopts {
	unsigned no_static : 1;		   /* -a */
	unsigned ignore_non_functions : 1; /* -D */
	unsigned line_granularity : 1;	   /* -l: add one symbol per source line */
	const char *external_symtab;	   /* -S FILE (nm format), or NULL */
	const struct sp_function_map *map; /* -R mapping, or NULL */
	void *debug;			   /* FILE * for -d 128 output, or NULL */
	unsigned defer_files : 1;	   /* leave file/line to sp_image_symtab_files() */
	unsigned no_prefetch : 1;	   /* with defer_files: the files will most likely not
					      be asked for, so do not start reading the line
					      table in the background (it is read on demand) */
	unsigned files_only : 1;	   /* with defer_files: the symbols' files and lines
					      are all the image will be asked about, so it
					      may read the line table for them alone */
	unsigned statics_only : 1;	   /* with files_only: only the files of static
					      functions will most likely be asked for (the
					      index names those alone): the line table is
					      read for their addresses (others still answer,
					      later; sp_image_symtab_static_files()) */
	unsigned keep_clones : 1;	   /* --precise: keep .constprop/.isra/.part/.cold ... */
	unsigned use_sizes : 1;		   /* --precise: a symbol ends at addr + st_size */
};

/* One line of a -R map file: function -> object file. */
struct sp_function_map_entry {
	const char *file_name;
	const char *function_name;
	unsigned is_first : 1;
};

struct sp_function_map {
	struct sp_function_map_entry *entries; /* sorted by function name */
	size_t len;
	struct sp_arena arena;
};

/* Reads a `nm -A` style map file (-R). NULL + err on failure. */
struct sp_function_map *sp_function_map_read(const char *path, struct sp_error *err);
void sp_function_map_free(struct sp_function_map *m);

/*
 * Builds the symbol table gprof builds for this image: the same symbols
 * (its class rules, the static flag, the symbols it drops), the same
 * addresses and, from DWARF, the same file and line per symbol.
 * Debugging output (-d 128) goes to `debug` when not NULL.
 */
struct sp_symtab *sp_image_gprof_symtab(struct sp_image *im, const struct sp_gprof_symopts *o,
					struct sp_error *err);

/*
 * With -l (line_granularity), the source line of every change point of
 * .text is looked up on two threads from this many points on (when
 * threads are on), in halves: 16384 unless changed. The output is the
 * same either way. Only cli/ calls it, once, before any image opens
 * (SYMPROF_LINES_SPLIT; the tests set 1 to take the split on small
 * fixtures); 0: never split.
 */
void sp_image_set_lines_split(size_t points);

/*
 * Gives the symbols of a table built with defer_files their source file
 * and line, creating the source files in gprof's order. Until then the
 * line table loads in the background while the caller reads the profile.
 * Does nothing for a table whose files are already known.
 */
void sp_image_symtab_files(struct sp_image *im, struct sp_symtab *t);

/*
 * The same for the static functions only, the files gprof's index prints
 * (without -l): the other symbols and the table's list of files stay
 * unset. For a table built with statics_only, when no report asks more.
 */
void sp_image_symtab_static_files(struct sp_image *im, struct sp_symtab *t);

/*
 * For each symbol, the index of the function it is a GCC clone of
 * ("f.isra.0", "f.constprop.1", "f.part.0", "f.cold" ... of "f": the
 * symbol of that name in the same file if there is one, else any), or
 * SIZE_MAX. When f itself is gone (inlined into its clones), the first
 * clone stands for it: it is renamed "f" and the others map to it.
 * A malloc'ed array of t->len entries.
 */
size_t *sp_symtab_clone_origins(struct sp_symtab *t);
/* 1 if name ends in GCC clone suffixes; *base_len is the origin's length. */
int sp_is_clone_name(const char *name, size_t *base_len);

/* gprof's -S: a symbol table from an `nm` listing ("addr type name"). */
struct sp_symtab *sp_symtab_from_nm(const char *path, uint64_t text_end, struct sp_error *err);

/* 1 if vaddr lies in a section of the image that holds code. */
int sp_image_in_code(struct sp_image *im, uint64_t vaddr);

/* The value of the defined symbol `name` in the image's own symbol table
 * (ELF: .symtab, not .dynsym; linker-defined symbols such as "etext"
 * included): 0, or -1 if it has none there or the backend cannot say. */
int sp_image_symbol_value(struct sp_image *im, const char *name, uint64_t *value);

/* The file and line the debug information gives for vaddr, gprof style
 * (bfd_find_nearest_line): 0 on success, -1 if there is none. */
int sp_image_src_line(struct sp_image *im, uint64_t vaddr, const char **file, int *line);

/* ---- runtime addresses (symbolizer.c, maps.c) ---- */

/*
 * The symbolizer turns the runtime addresses of a stack profile into
 * functions, source lines and inline chains. It finds the file of each
 * mapped object, opens it once (with its separate debug file), computes
 * the load bias of each mapping from the file's PT_LOAD segments, and
 * answers each distinct address once, like `addr2line -f -i` (libbfd's
 * rules, see dwarf-funcs.c and lines.c).
 *
 * Files are searched in this order: the executable given on the command
 * line for the profile's main object (whatever path the profile recorded);
 * the recorded path rewritten by the first matching --path-map; the
 * recorded path; a bare program name in the search's program path; by
 * the recorded build-id under the debug root: .build-id/xx/yyyy, then
 * .build-id/xx/yyyy.debug; by build-id from debuginfod: the executable,
 * then the debug file. Debug information comes from the file or from its
 * separate debug file (sp_image_open()). A file whose build-id differs
 * from the recorded one, or whose segments do not fit the mapping, is not
 * used.
 *
 * Results are borrowed: valid until sp_symbolizer_free().
 */

struct sp_profile;
struct sp_map;
struct sp_symbolizer;
struct sp_symfile;

/* --path-map=FROM=TO: a recorded path starting with the directory (or
 * file) FROM is looked up under TO instead. */
struct sp_path_map {
	const char *from, *to;
};

struct sp_symbolizer_opts {
	const char *exe; /* stands for the profile's main object, or NULL */
	const struct sp_path_map *path_maps;
	size_t npath_maps;
	const struct sp_debug_search *search; /* NULL: the defaults */
	/* called once per problem (file missing, build-id mismatch ...) with a
	 * message such as "cannot find 'x': ..."; NULL: silent */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	/* the index cache's directory (symbolize/dwcache.c), NULL: none */
	const char *cache_dir;
	/* google-pprof's --lib_prefix: a library recorded as /a/b/l.so is
	 * looked for first as PREFIX/a/b/l.so, PREFIX/b/l.so, PREFIX/l.so, for
	 * each prefix in turn (pprof's FindLibrary) */
	const char *const *lib_prefixes;
	size_t nlib_prefixes;
};

/* Why an address has no function. */
enum sp_sym_reason {
	SP_SYM_OK = 0,
	SP_SYM_UNMAPPED,  /* in no executable mapping of the profile */
	SP_SYM_NO_FILE,	  /* the mapping's file was not found (or is [vdso] ...) */
	SP_SYM_BAD_FILE,  /* found, but not an ELF file */
	SP_SYM_BUILD_ID,  /* found, but with another build-id than recorded */
	SP_SYM_MISMATCH,  /* found, but no segment of it fits the mapping */
	SP_SYM_NO_SYMBOL, /* no symbol and no debug information covers it */
	SP_SYM_RECORDED,  /* sp_symbolizer_place(): the profile recorded the frame's
			     inline chain (SP_FRAME_LINES), which sp_symbolizer_frame()
			     answers with; there is nothing to look up */
};

/*
 * One function of an inline chain, as `addr2line -f -i` prints it, and
 * the name symprof's reports give that function (docs/formats.md,
 * "Function names"): `func` differs from addr2line's `name` where libbfd
 * names a frame by another function's symbol or by a bare DW_AT_name.
 */
struct sp_sym_frame {
	const char *name;	   /* addr2line's raw (mangled) name; NULL prints "??" */
	const char *file;	   /* NULL prints "??" */
	uint32_t line;		   /* 0 prints "?" */
	uint32_t discriminator;	   /* printed after the line when not 0 */
	const char *func;	   /* the naming rule's raw name (sp_symbolizer_frame()
				      only); NULL if nothing names the function */
	unsigned func_linkage : 1; /* func is a linkage name (demangle it to
				      print it); else a name built from DWARF */
};

struct sp_symloc {
	enum sp_sym_reason reason;
	struct sp_symfile *file;	   /* the file that answered, NULL if none */
	uint64_t vaddr;			   /* the address looked up in it */
	uint32_t nframes;		   /* 0: addr2line prints "??" and "??:0" */
	const struct sp_sym_frame *frames; /* innermost first */
};

struct sp_symbolizer *sp_symbolizer_new(const struct sp_symbolizer_opts *o);
void sp_symbolizer_free(struct sp_symbolizer *s);

/*
 * The file for object `obj` of profile p, found and opened once; NULL (and
 * *why, if not NULL) when there is none. A symbolizer serves one profile:
 * every call must pass the same p.
 */
struct sp_symfile *sp_symbolizer_object(struct sp_symbolizer *s, const struct sp_profile *p,
					uint32_t obj, enum sp_sym_reason *why);

/*
 * Symbolizes frame `frame` of p: its mapping, the file, the bias, minus 1
 * for a return address, then the lookup. The answer is computed once per
 * frame and once per (file, address). A frame whose inline chain the
 * profile recorded (SP_FRAME_LINES, pprof) is answered with that chain
 * (its `file` is then NULL: no file was read).
 */
const struct sp_symloc *sp_symbolizer_frame(struct sp_symbolizer *s, const struct sp_profile *p,
					    uint32_t frame);

/*
 * Where frame `frame` of p is, without looking it up: its file and the
 * vaddr to look up there (SP_SYM_OK), or why there is none. For callers
 * that look the address up their own way (a session).
 */
enum sp_sym_reason sp_symbolizer_place(struct sp_symbolizer *s, const struct sp_profile *p,
				       uint32_t frame, struct sp_symfile **file, uint64_t *vaddr);

/*
 * Reading ahead, so that the DWARF of every file loads in the background
 * while the caller does other work: preload() opens the executable given
 * in the options and starts reading it; prefetch() does the same for every
 * file p's frames point into, each limited to the units holding those
 * frames when that is a small part of a large file (libc's debug file for
 * a few frames). Both are optional; lookups of other addresses still get
 * complete answers (the file is then read whole).
 */
void sp_symbolizer_preload(struct sp_symbolizer *s);
void sp_symbolizer_prefetch(struct sp_symbolizer *s, const struct sp_profile *p);

/* Opens a file by path (addr2line's -e); NULL + err on failure. */
struct sp_symfile *sp_symbolizer_open(struct sp_symbolizer *s, const char *path,
				      struct sp_error *err);

/* addr2line -f -i for a virtual address of the file, as a fresh addr2line
 * answers it (cached). */
const struct sp_symloc *sp_symfile_lookup(struct sp_symfile *f, uint64_t vaddr);

/*
 * The same as one addr2line process answers vaddr after the addresses it
 * was asked since the last sp_symfile_session_reset(): libbfd remembers
 * names between lookups, so a function without a linkage name may be
 * named by its ELF symbol the first time and by its DWARF name later (see
 * symbolize/dwarf-funcs.c, rule 8). Not cached; valid until the next call.
 */
const struct sp_symloc *sp_symfile_lookup_session(struct sp_symfile *f, uint64_t vaddr);
/* The same for a caller that needs the names alone: where the innermost
 * frame has a name, the line table is not searched, so its line is 0 (its
 * file NULL, or its ELF symbol's) and the discriminators are 0; the names,
 * the chain, the inlined frames' call sites and the session are the same. */
const struct sp_symloc *sp_symfile_lookup_session_names(struct sp_symfile *f, uint64_t vaddr);
void sp_symfile_session_reset(struct sp_symfile *f);

/*
 * sp_symfile_lookup_session() for n addresses in turn, faster: fn(ctx, i,
 * loc) is called for each in order with the same answer (loc valid during
 * the call). The session goes on from where it was and stays there.
 */
void sp_symfile_lookup_session_many(struct sp_symfile *f, const uint64_t *vaddrs, size_t n,
				    void (*fn)(void *ctx, size_t i, const struct sp_symloc *loc),
				    void *ctx);

/* The address of the symbol `name` (raw, else demangled) of the file's
 * symbol table: 0, or -1 if there is none. */
int sp_symfile_find_symbol(struct sp_symfile *f, const char *name, uint64_t *addr);

/* The path of the file read. */
const char *sp_symfile_path(const struct sp_symfile *f);
/* Its machine (word size: the width addr2line -a prints addresses in). */
const struct sp_target *sp_symfile_target(const struct sp_symfile *f);
/* Its GNU build-id as sp_image_build_id() gives it (NULL and 0: none);
 * borrowed, valid until sp_symbolizer_free(). */
const uint8_t *sp_symfile_build_id(const struct sp_symfile *f, size_t *len);

/* A line of `nm -n --demangle` for the file (of `nm -D -n --demangle`
 * when it has no .symtab): what google-pprof reads (report/pprof-nmview.c). */
struct sp_nm_line {
	uint64_t addr;
	const char *raw;     /* the name in the symbol table */
	const char *version; /* "" or the version nm appends: @VERSION when
			      * hidden, else @@VERSION */
	char type;	     /* nm's class letter */
	unsigned hidden : 1;
};
/* The file's defined symbols in nm -n's order (address, then name, then
 * table order); returns how many. Read on first use; borrowed, valid
 * until sp_symbolizer_free(). */
size_t sp_symfile_nm(struct sp_symfile *f, const struct sp_nm_line **lines);
/*
 * The name nm prints for line l of f's listing: demangled, then @VERSION
 * or @@VERSION. Made when first asked, since demangling a C++ program's
 * whole listing costs more than the rest of its report; valid until
 * sp_symbolizer_free(). Demangled and versioned names are interned (equal
 * ones are one pointer); a name printed as it is keeps l->raw's pointer.
 */
const char *sp_symfile_nm_name(struct sp_symfile *f, const struct sp_nm_line *l);
/* 1 if nm prints exactly `name` (a plain name like "_fini") for line l:
 * only a line with that raw name and no version is printed to check. */
int sp_symfile_nm_is(struct sp_symfile *f, const struct sp_nm_line *l, const char *name);
/* 1 if nm prints an empty name for line l (only a line with an empty raw
 * name and no version can have one). */
int sp_symfile_nm_is_empty(struct sp_symfile *f, const struct sp_nm_line *l);

/* 1 if `name` can be a linkage name as it is (a C or a mangled name: no
 * blank, parenthesis, '<' or "::"), 0 if it is a demangled or built one. */
int sp_name_is_linkage(const char *name);

/* Demangles a raw name once (addr2line -C), or returns it as it is. */
const char *sp_symbolizer_demangle(struct sp_symbolizer *s, const char *raw);
/* The same for a name of file f (its symbols' or its DWARF's; NULL: of no
 * file): with a cache directory, what an earlier run demangled for f is
 * read from f's memo there, and what this run demangles is added to it
 * (saved when f is freed). */
const char *sp_symbolizer_demangle_in(struct sp_symbolizer *s, struct sp_symfile *f,
				      const char *raw);

/* ---- mappings (maps.c): runtime address <-> ELF virtual address ---- */

/* With `bias` the load bias of a mapping (what the symbolizer computes from
 * the file's PT_LOAD segments): vaddr = abs - bias. */
uint64_t sp_map_abs_to_vaddr(uint64_t abs, uint64_t bias);
uint64_t sp_map_vaddr_to_abs(uint64_t vaddr, uint64_t bias);
/* The address frame fr is looked up at: a return address one byte back,
 * inside the call (addr2line's and pprof's rule for callers). */
struct sp_frame;
uint64_t sp_map_frame_abs(const struct sp_frame *fr);

/* ---- demangling ---- */

/* Selects the demangling style by name (gprof's --demangle=STYLE); -1 if
 * the name is unknown. */
int sp_demangle_set_style(const char *style);
/* Demangled form of `name` (DMGL_ANSI | DMGL_PARAMS, as gprof), skipping
 * `leading_char`; a malloc'ed string, or NULL if it is not mangled. */
char *sp_demangle(const char *name, char leading_char);

/*
 * Demangling ahead of time, on another thread: a C++ program's names cost
 * the demangler a few thousand instructions each, as much as the rest of a
 * report. sp_demangle_batch_start() begins demangling names[0..n) (the
 * strings are borrowed and must outlive the batch; the array is copied);
 * the first sp_demangle_batch_get() demangles what is left on the calling
 * thread too, then waits for the other, and returns sp_demangle()'s answer
 * for names[i] (borrowed until sp_demangle_batch_free(); NULL: not
 * mangled). Without a thread, everything is done at that first get.
 */
struct sp_demangle_batch;
struct sp_demangle_batch *sp_demangle_batch_start(const char *const *names, size_t n,
						  char leading_char);
const char *sp_demangle_batch_get(struct sp_demangle_batch *b, size_t i);
size_t sp_demangle_batch_len(const struct sp_demangle_batch *b);
void sp_demangle_batch_free(struct sp_demangle_batch *b);

#endif
