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
	uint64_t addr;            /* value + section vma (gprof's address) */
	uint64_t size;
	char type;                /* nm class letter: T t W ... */
	unsigned has_section : 1;
	unsigned local : 1;       /* BSF_LOCAL */
	unsigned function : 1;    /* BSF_FUNCTION */
	unsigned debugging : 1;   /* BSF_DEBUGGING */
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
	/* 1 if vaddr lies in a section that holds code */
	int (*in_code)(struct sp_image *im, uint64_t vaddr);
	/* fills the code description (NULL: the text section alone) */
	int (*code)(struct sp_image *im, struct sp_code *c, struct sp_error *err);
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
	struct sp_strtab strs;   /* names handed out by src_line */
	void *priv;              /* backend state */
	struct sp_code *code;    /* sp_image_code(), loaded on first use */
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

/* elf-code.c: the code description of an ELF image whose symbols are in
 * `symelf` (the image itself or its separate debug file). */
struct Elf;
int sp_elf_code_load(struct sp_image *im, struct Elf *elf, struct Elf *symelf, struct sp_code *c,
		     struct sp_error *err);
/* Frees the arrays of a code description filled by a backend. */
void sp_code_release(struct sp_code *c);

/* Separate debug files: the path of the debug file for an ELF file with
 * this build-id and/or debuglink (name + crc), or NULL (malloc'ed). */
char *sp_debuginfo_find(const char *path, const uint8_t *build_id, size_t build_id_len,
			const char *debuglink, uint32_t debuglink_crc);

#endif
