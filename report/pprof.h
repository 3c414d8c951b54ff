/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to report/: google-pprof's names for the addresses of a CPU
 * profile (pprof-names.c), used by its text report (pprof.c), and its
 * view of each file through nm (pprof-nmview.c), which the names and the
 * profile.proto writer (proto.c) ask.
 */
#ifndef SYMPROF_REPORT_PPROF_H
#define SYMPROF_REPORT_PPROF_H

#include <stdint.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/hashmap.h"
#include "symprof/strtab.h"

struct sp_symbolizer;
struct sp_symfile;
struct sp_symloc;

/*
 * google-pprof's view of files through `nm -n --demangle` (pprof-nmview.c),
 * each file's built on first use from sp_symfile_nm(). Names returned are
 * borrowed, valid until the release and sp_symbolizer_free().
 */
struct sp_pprof_nmfile;
struct sp_pprof_nmview {
	struct sp_pairmap index; /* file -> files[] */
	struct sp_pprof_nmfile *files;
	size_t nfiles, files_alloc;
	size_t last;	       /* files[] index of the file asked last */
	struct sp_strtab strs; /* the "name<addr>" names */
	struct sp_buf buf;
};

void sp_pprof_nmview_init(struct sp_pprof_nmview *v);
void sp_pprof_nmview_release(struct sp_pprof_nmview *v);
/* The routine whose range [start, next symbol's address) holds vaddr, as
 * pprof names it ("name<addr>", or the t/T symbol's name at that address),
 * and, if `plain` is not NULL, that name without its tag; 0 if vaddr lies
 * at or above the last symbol (below the first, the first routine
 * answers, as in pprof). */
int sp_pprof_nmview_routine(struct sp_pprof_nmview *v, struct sp_symfile *f, uint64_t vaddr,
			    const char **name, const char **plain, uint64_t *start);
/* 1 if the view has any routine (pprof then names every address). */
int sp_pprof_nmview_has_routines(struct sp_pprof_nmview *v, struct sp_symfile *f);
/* 1 if a routine starts with a symbol "_fini": pprof then asks addr2line
 * for inline chains (it uses _fini as a separator). */
int sp_pprof_nmview_has_fini(struct sp_pprof_nmview *v, struct sp_symfile *f);

/* One entry of pprof's symbol list: ShortFunctionName (interned in the
 * names' strs, so that equal names are equal pointers), the full name
 * (demangled, possibly with nm's "<addr>" tag) and, if the names were
 * asked for lines, "file:line" as file and line ("??" for no file; file
 * NULL: an empty "file:line"), fl numbering the distinct pairs from 1
 * (0 without lines). */
struct sp_pprof_sym {
	const char *func, *full;
	const char *file;
	uint32_t line, fl;
};

/* What pprof knows about one address ($symbols->{pc}). */
struct sp_pprof_addr {
	uint64_t pc;			 /* leaf as recorded, others minus 1 */
	const struct sp_pprof_sym *syms; /* outermost first */
	uint32_t nsyms;
	unsigned known : 1; /* 0: pprof has no entry for it */
};

struct sp_pprof_memo {
	const void *k1;
	uint64_t k2;
	const char *v;
};

struct sp_pprof_names {
	struct sp_symbolizer *sym;
	int addr_width;	    /* hex digits: 16, or 8 for 32-bit */
	int lines;	    /* fill sp_pprof_sym.file, line, fl */
	int keep_templates; /* --no_strip_temp: short names keep <...> */
	struct sp_strtab strs;
	struct sp_arena arena;
	struct sp_pprof_nmview nm;
	/* memos: full name -> short name, (file, line) -> its number */
	struct sp_pairmap short_index, fl_index;
	struct sp_pprof_memo *shorts, *fls;
	size_t nshorts, shorts_alloc, nfls, fls_alloc;
};

void sp_pprof_names_init(struct sp_pprof_names *n, struct sp_symbolizer *s, int addr_width,
			 int lines);
void sp_pprof_names_release(struct sp_pprof_names *n);
/* Fills a->syms / a->known for a->pc from the symbolizer's answer. */
void sp_pprof_names_resolve(struct sp_pprof_names *n, struct sp_pprof_addr *a,
			    const struct sp_symloc *loc);

/* What pprof's nm pass says of an address of a file. It needs the file's
 * ELF symbols only, so it can be asked while the file's DWARF (or its
 * index) is still loading. */
struct sp_pprof_nm {
	const char *full, *func; /* the routine's names; NULL: none */
	int inl;		 /* the listing has _fini: inline chains */
};

void sp_pprof_names_nm(struct sp_pprof_names *n, struct sp_symfile *f, uint64_t vaddr, uint64_t pc,
		       struct sp_pprof_nm *out);
/* sp_pprof_names_resolve() for a found address (loc->file set, as
 * sp_symfile_lookup_session() answers) with nm from sp_pprof_names_nm()
 * of the same file and address. */
void sp_pprof_names_resolve_nm(struct sp_pprof_names *n, struct sp_pprof_addr *a,
			       const struct sp_symloc *loc, const struct sp_pprof_nm *nm);
/* pprof's key for an address: its hex digits, zero-padded, no 0x. */
const char *sp_pprof_names_hex(struct sp_pprof_names *n, uint64_t pc);
/* ShortFunctionName(): arguments, the address tag, template arguments and
 * a leading return type removed; interned in strs. */
const char *sp_pprof_short_name(struct sp_strtab *strs, const char *full);
/* The same, keeping template arguments when keep_templates
 * (google-pprof --no_strip_temp). */
const char *sp_pprof_short_name_opt(struct sp_strtab *strs, const char *full, int keep_templates);
/* ShortFunctionName of untagged + "<addr>", as pprof shortens the names
 * MapSymbolsWithNM tags: only that tag goes, so "spin<1>" stays "spin<1>"
 * when keep_templates. */
const char *sp_pprof_short_name_tagged(struct sp_strtab *strs, const char *untagged,
				       int keep_templates);

#endif
