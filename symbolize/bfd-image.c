/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Images libelf cannot open (PE/COFF from MinGW, a.out, ...) through
 * libbfd, the library gprof itself uses: the symbols and their classes come
 * from bfd_canonicalize_symtab/bfd_get_symbol_info (plus synthetic PLT
 * symbols), lines from bfd_find_nearest_line, exactly as gprof gets them.
 * For PE images the long names are also located in the COFF string table
 * (coff-strtab.c), whose following strings gprof's static-name filter reads.
 */
#define PACKAGE "symprof"
#define PACKAGE_VERSION "0"
#include "internal.h"

#include <bfd.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/error.h"

struct bfd_image {
	bfd *abfd;
	asymbol **syms;
	long nsyms;
	long ncanon; /* symbols from the file; synthetic ones follow */
	asymbol *synth;
	asection *text;
	bfd_byte *text_bytes;
	struct sp_coff_strtab coff; /* PE images: gprof's view of long names */
};

static struct bfd_image *BI(struct sp_image *im)
{
	return im->priv;
}

static int load_syms(struct sp_image *im, struct sp_error *err)
{
	struct bfd_image *b = BI(im);
	long bytes, nsynth;

	if (b->syms)
		return 0;
	bytes = bfd_get_symtab_upper_bound(b->abfd);
	if (bytes < 0)
		return sp_error_set(err, SP_E_BFD, "cannot read symbols of '%s': %s", im->path,
				    bfd_errmsg(bfd_get_error()));
	b->syms = sp_xmalloc((size_t)bytes + sizeof(asymbol *));
	b->nsyms = bfd_canonicalize_symtab(b->abfd, b->syms);
	if (b->nsyms < 0)
		return sp_error_set(err, SP_E_BFD, "cannot read symbols of '%s': %s", im->path,
				    bfd_errmsg(bfd_get_error()));
	b->ncanon = b->nsyms;
	if (bfd_get_flavour(b->abfd) == bfd_target_coff_flavour &&
	    sp_coff_strtab_read(&b->coff, im->path) == 0 && b->coff.nsyms != (size_t)b->ncanon)
		sp_coff_strtab_release(&b->coff);
	nsynth = bfd_get_synthetic_symtab(b->abfd, b->nsyms, b->syms, 0, NULL, &b->synth);
	if (nsynth > 0) {
		long i;

		b->syms = sp_xreallocarray(b->syms, (size_t)(b->nsyms + nsynth + 1),
					   sizeof(asymbol *));
		for (i = 0; i < nsynth; i++)
			b->syms[b->nsyms + i] = &b->synth[i];
		b->nsyms += nsynth;
		b->syms[b->nsyms] = NULL;
	}
	return 0;
}

static int bfd_for_each_sym(struct sp_image *im, int (*fn)(void *, const struct raw_sym *),
			    void *ctx, struct sp_error *err)
{
	struct bfd_image *b = BI(im);
	long i;
	int ret;

	if ((ret = load_syms(im, err)) < 0)
		return ret;
	for (i = 0; i < b->nsyms; i++) {
		asymbol *s = b->syms[i];
		symbol_info info;
		struct raw_sym r;

		memset(&r, 0, sizeof(r));
		r.has_section = s->section != NULL;
		r.debugging = (s->flags & BSF_DEBUGGING) != 0;
		r.local = (s->flags & BSF_LOCAL) != 0;
		r.function = (s->flags & BSF_FUNCTION) != 0;
		r.name = s->name ? s->name : "";
		if (i < b->ncanon && s->name) {
			const char *in_table =
				sp_coff_strtab_name(&b->coff, (size_t)i, s->name, &r.name_limit);

			if (in_table)
				r.name = in_table;
		}
		if (r.has_section && !r.debugging) {
			bfd_get_symbol_info(b->abfd, s, &info);
			r.type = info.type;
		}
		r.addr = s->value + (s->section ? bfd_section_vma(s->section) : 0);
		if ((ret = fn(ctx, &r)) < 0)
			return ret;
	}
	return 0;
}

static int bfd_text(struct sp_image *im, uint64_t *vma, uint64_t *size, struct sp_error *err)
{
	struct bfd_image *b = BI(im);

	if (!b->text)
		return sp_error_set(err, SP_E_FORMAT, "cannot read '%s': no .text section",
				    im->path);
	*vma = bfd_section_vma(b->text);
	*size = bfd_section_size(b->text);
	return 0;
}

static const uint8_t *bfd_text_bytes(struct sp_image *im, struct sp_error *err)
{
	struct bfd_image *b = BI(im);

	if (!b->text) {
		sp_error_set(err, SP_E_FORMAT, "cannot read '%s': no .text section", im->path);
		return NULL;
	}
	if (!b->text_bytes && !bfd_malloc_and_get_section(b->abfd, b->text, &b->text_bytes)) {
		sp_error_set(err, SP_E_BFD, "cannot read the .text of '%s': %s", im->path,
			     bfd_errmsg(bfd_get_error()));
		return NULL;
	}
	return b->text_bytes;
}

static int bfd_src_line(struct sp_image *im, uint64_t vaddr, const char **file, int *line)
{
	struct bfd_image *b = BI(im);
	const char *fname = NULL, *func = NULL;
	unsigned int l = 0;

	if (!b->text || load_syms(im, NULL) < 0)
		return -1;
	if (!bfd_find_nearest_line(b->abfd, b->text, b->syms, vaddr - bfd_section_vma(b->text),
				   &fname, &func, &l) ||
	    !fname || !func || !l)
		return -1;
	*file = sp_strtab_intern(&im->strs, fname);
	*line = (int)l;
	return 0;
}

static int bfd_in_code(struct sp_image *im, uint64_t vaddr)
{
	asection *sec;

	for (sec = BI(im)->abfd->sections; sec; sec = sec->next)
		if ((sec->flags & SEC_CODE) && vaddr >= bfd_section_vma(sec) &&
		    vaddr - bfd_section_vma(sec) < bfd_section_size(sec))
			return 1;
	return 0;
}

/* gprof's own walk: every address, one by one (min_insn_size 1). */
static int bfd_for_each_line(struct sp_image *im, uint64_t lo, uint64_t hi,
			     int (*fn)(void *, uint64_t, const char *, int, const char *),
			     void *ctx, struct sp_error *err)
{
	struct bfd_image *b = BI(im);
	uint64_t a;
	int ret = 0;

	if (!b->text || load_syms(im, err) < 0)
		return 0;
	for (a = lo; a < hi && ret == 0; a++) {
		const char *fname = NULL, *func = NULL;
		unsigned int l = 0;

		if (!bfd_find_nearest_line(b->abfd, b->text, b->syms, a - bfd_section_vma(b->text),
					   &fname, &func, &l))
			fname = func = NULL, l = 0;
		ret = fn(ctx, a, fname ? sp_strtab_intern(&im->strs, fname) : NULL, (int)l,
			 func ? sp_strtab_intern(&im->strs, func) : NULL);
	}
	return ret;
}

static void bfd_image_free(struct sp_image *im)
{
	struct bfd_image *b = BI(im);

	free(b->syms);
	free(b->synth);
	free(b->text_bytes);
	sp_coff_strtab_release(&b->coff);
	bfd_close(b->abfd);
	free(b);
}

static int has_func_syms(bfd *abfd)
{
	switch (bfd_get_flavour(abfd)) {
	case bfd_target_coff_flavour:
	case bfd_target_ecoff_flavour:
	case bfd_target_xcoff_flavour:
	case bfd_target_elf_flavour:
	case bfd_target_som_flavour:
		return 1;
	default:
		return 0;
	}
}

static const struct image_ops bfd_ops_coff = {
	.name = "bfd",
	.for_each_sym = bfd_for_each_sym,
	.text = bfd_text,
	.text_bytes = bfd_text_bytes,
	.src_line = bfd_src_line,
	.for_each_line = bfd_for_each_line,
	.in_code = bfd_in_code,
	.has_func_syms = 1,
	.free = bfd_image_free,
};

static const struct image_ops bfd_ops_plain = {
	.name = "bfd",
	.for_each_sym = bfd_for_each_sym,
	.text = bfd_text,
	.text_bytes = bfd_text_bytes,
	.src_line = bfd_src_line,
	.for_each_line = bfd_for_each_line,
	.in_code = bfd_in_code,
	.has_func_syms = 0,
	.free = bfd_image_free,
};

static void init_once(void)
{
	static int initialized;

	if (!initialized) {
		bfd_init();
		initialized = 1;
	}
}

int sp_bfd_is_object(const char *path)
{
	bfd *abfd;
	int yes;

	init_once();
	if (!(abfd = bfd_openr(path, NULL)))
		return 0;
	yes = bfd_check_format(abfd, bfd_object);
	bfd_close(abfd);
	return yes;
}

int sp_bfd_image_open(struct sp_image *im, struct sp_error *err)
{
	struct bfd_image *b;
	bfd *abfd;
	int bits;

	init_once();
	abfd = bfd_openr(im->path, NULL);
	if (!abfd)
		return sp_error_set(err, SP_E_OPEN, "cannot open '%s': %s", im->path,
				    bfd_errmsg(bfd_get_error()));
	abfd->flags |= BFD_DECOMPRESS;
	if (!bfd_check_format(abfd, bfd_object)) {
		bfd_close(abfd);
		return 1;
	}
	b = sp_xcalloc(1, sizeof(*b));
	b->abfd = abfd;
	b->text = bfd_get_section_by_name(abfd, ".text");
	if (!b->text)
		b->text = bfd_get_section_by_name(abfd, "$CODE$");
	im->priv = b;
	im->ops = has_func_syms(abfd) ? &bfd_ops_coff : &bfd_ops_plain;
	bits = bfd_get_arch_size(abfd);
	if (bits < 0)
		bits = (int)bfd_arch_bits_per_address(abfd);
	im->target.ptr_size = bits == 64 ? 8 : 4;
	im->target.big_endian = bfd_big_endian(abfd);
	im->target.sign_extend = bfd_get_sign_extend_vma(abfd) > 0;
	im->target.leading_char = bfd_get_symbol_leading_char(abfd);
	im->target.is_elf = 0;
	/* the ELF number of the architecture, for -c on PE/COFF x86 */
	if (bfd_get_arch(abfd) == bfd_arch_i386)
		im->target.machine = bits == 64 ? 62 /* EM_X86_64 */ : 3 /* EM_386 */;
	else
		im->target.machine = 0;
	im->target.is_relocatable = !(abfd->flags & (EXEC_P | DYNAMIC));
	return 0;
}
