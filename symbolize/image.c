/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Images: one opened executable or library, behind the backend ops of
 * internal.h. ELF goes to libelf/libdw; anything else libbfd recognises
 * (PE/COFF from MinGW, ...) goes to libbfd.
 */
#include "internal.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symprof/error.h"

struct sp_image *sp_image_open(const char *path, const struct sp_debug_search *search,
			       struct sp_error *err)
{
	struct sp_image *im = sp_xcalloc(1, sizeof(*im));
	struct stat st;
	int r;

	im->path = sp_xstrdup(path);
	im->search = search;
	sp_strtab_init(&im->strs);
	if (stat(path, &st) < 0) {
		sp_error_errno(err, SP_E_OPEN, "cannot open '%s'", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		sp_error_set(err, SP_E_OPEN, "cannot open '%s': not a regular file", path);
		goto fail;
	}
	r = sp_elf_image_open(im, err);
	if (r == 1)
		r = sp_bfd_image_open(im, err);
	if (r == 1)
		sp_error_set(err, SP_E_FORMAT, "cannot read '%s': not in executable format", path);
	if (r != 0)
		goto fail;
	return im;
fail:
	sp_strtab_release(&im->strs);
	free(im->path);
	free(im);
	return NULL;
}

int sp_image_is_object(const char *path)
{
	unsigned char magic[SELFMAG];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(magic, 1, sizeof(magic), f);
	fclose(f);
	if (n == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG))
		return 1;
	return sp_bfd_is_object(path);
}

void sp_image_free(struct sp_image *im)
{
	if (!im)
		return;
	if (im->code) {
		sp_code_release(im->code);
		free(im->code);
	}
	if (im->ops)
		im->ops->free(im);
	sp_strtab_release(&im->strs);
	free(im->path);
	free(im);
}

const struct sp_target *sp_image_target(const struct sp_image *im)
{
	return &im->target;
}

const char *sp_image_path(const struct sp_image *im)
{
	return im->path;
}

const uint8_t *sp_image_build_id(struct sp_image *im, size_t *len)
{
	struct sp_elf_info info;

	*len = 0;
	if (!sp_image_is_elf(im))
		return NULL;
	sp_elf_image_info(im, &info);
	*len = info.build_id ? info.build_id_len : 0;
	return info.build_id;
}

int sp_image_dynsym_only(struct sp_image *im)
{
	return sp_image_is_elf(im) && sp_elf_image_dynsym_only(im);
}

void sp_image_set_cache(struct sp_image *im, const char *dir)
{
	if (sp_image_is_elf(im))
		sp_elf_image_set_cache(im, dir);
}

int sp_image_text(struct sp_image *im, uint64_t *vma, uint64_t *size, struct sp_error *err)
{
	return im->ops->text(im, vma, size, err);
}

const uint8_t *sp_image_text_bytes(struct sp_image *im, struct sp_error *err)
{
	return im->ops->text_bytes(im, err);
}

int sp_image_src_line(struct sp_image *im, uint64_t vaddr, const char **file, int *line)
{
	return im->ops->src_line(im, vaddr, file, line);
}

int sp_image_in_code(struct sp_image *im, uint64_t vaddr)
{
	return im->ops->in_code(im, vaddr);
}

int sp_image_symbol_value(struct sp_image *im, const char *name, uint64_t *value)
{
	return im->ops->symbol_value ? im->ops->symbol_value(im, name, value) : -1;
}

/* Without a backend of its own: the text section alone. */
static int text_only_code(struct sp_image *im, struct sp_code *c, struct sp_error *err)
{
	struct sp_code_section *s = sp_xcalloc(1, sizeof(*s));
	int r = im->ops->text(im, &s->vma, &s->size, err);

	if (r < 0 || !(s->bytes = im->ops->text_bytes(im, err))) {
		free(s);
		return r < 0 ? r : -SP_E_FORMAT;
	}
	s->name = ".text";
	c->sections = s;
	c->nsections = 1;
	return 0;
}

const struct sp_code *sp_image_code(struct sp_image *im, struct sp_error *err)
{
	struct sp_code *c;
	int r;

	if (im->code)
		return im->code;
	c = sp_xcalloc(1, sizeof(*c));
	r = im->ops->code ? im->ops->code(im, c, err) : text_only_code(im, c, err);
	if (r < 0) {
		sp_code_release(c);
		free(c);
		return NULL;
	}
	im->code = c;
	return c;
}
