/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The COFF string table of a PE image, laid out as libbfd holds it, and the
 * place of every symbol name in it.
 *
 * gprof's filter for static names (gprof-syms.c) reads past the end of a
 * name that ends in ".digits" into the next string of the symbol string
 * table. For a PE image that table is bfd's copy of the COFF string table:
 * long names (more than 8 bytes) point into it, short names are copied out
 * of the symbol entries into bfd's arena. So whether "scaled.constprop.0"
 * is kept depends on the string stored after it ("norm.isra.0" drops it).
 * The ELF backend passes the end of .strtab for this; here the table is
 * read from the file again, into a buffer of our own with bfd's layout, so
 * that the walk sees the same bytes and stays inside our buffer.
 *
 * Layout (PE/COFF, little-endian; pe-format "COFF File Header"):
 *
 *   file offset 0x3c     u32  e_lfanew: offset of "PE\0\0"
 *   e_lfanew + 4         COFF header: u16 Machine, u16 NumberOfSections,
 *                        u32 TimeDateStamp, u32 PointerToSymbolTable,
 *                        u32 NumberOfSymbols, u16 SizeOfOptionalHeader,
 *                        u16 Characteristics
 *   PointerToSymbolTable NumberOfSymbols entries of 18 bytes:
 *                        8 name bytes (or u32 0 + u32 string table offset),
 *                        u32 Value, u16 SectionNumber, u16 Type,
 *                        u8 StorageClass, u8 NumberOfAuxSymbols (the aux
 *                        entries follow, 18 bytes each, and are no symbols)
 *   then                 the string table: u32 size (counting these 4
 *                        bytes), NUL-terminated strings
 *
 * bfd reads the table into size + 1 bytes, zeroes the 4 size bytes and
 * puts a NUL after the end (coffgen.c, _bfd_coff_read_string_table); its
 * canonical symbols are the non-aux entries in file order.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/mfile.h"

#define SYMESZ 18

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)sp_load_uint(p, 4, 0);
}

/* Offset of the COFF header of a PE image, or 0 if `f` is none. */
static uint64_t pe_coff_header(const struct sp_mfile *f)
{
	uint64_t pe;

	if (f->size < 0x40 || f->data[0] != 'M' || f->data[1] != 'Z')
		return 0;
	pe = le32(f->data + 0x3c);
	if (pe + 4 + 20 > f->size || memcmp(f->data + pe, "PE\0\0", 4) != 0)
		return 0;
	return pe + 4;
}

static int read_table(struct sp_coff_strtab *t, const struct sp_mfile *f)
{
	uint64_t hdr = pe_coff_header(f), symoff, nsyms, stroff, strsize, i;

	if (!hdr)
		return -1;
	symoff = le32(f->data + hdr + 8);
	nsyms = le32(f->data + hdr + 12);
	stroff = symoff + nsyms * SYMESZ;
	if (!symoff || !nsyms || stroff + 4 > f->size)
		return -1;
	strsize = le32(f->data + stroff);
	if (strsize < 4)
		strsize = 4;
	if (stroff + strsize > f->size)
		return -1;
	t->len = (size_t)strsize + 1;
	t->strs = sp_xcalloc(1, t->len);
	memcpy(t->strs + 4, f->data + stroff + 4, (size_t)strsize - 4);
	t->name_off = sp_xmalloc((size_t)nsyms * sizeof(*t->name_off));
	for (i = 0; i < nsyms; i += 1 + (uint64_t)f->data[symoff + i * SYMESZ + 17]) {
		const uint8_t *e = f->data + symoff + i * SYMESZ;
		uint32_t off = le32(e + 4);

		/* short names and offsets outside the strings: not in the table */
		t->name_off[t->nsyms++] = le32(e) == 0 && off >= 4 && off < strsize ? off : 0;
	}
	return 0;
}

int sp_coff_strtab_read(struct sp_coff_strtab *t, const char *path)
{
	struct sp_mfile f;
	int ret;

	memset(t, 0, sizeof(*t));
	if (sp_mfile_open(&f, path, NULL) < 0)
		return -1;
	ret = read_table(t, &f);
	sp_mfile_close(&f);
	if (ret < 0)
		sp_coff_strtab_release(t);
	return ret;
}

void sp_coff_strtab_release(struct sp_coff_strtab *t)
{
	free(t->strs);
	free(t->name_off);
	memset(t, 0, sizeof(*t));
}

const char *sp_coff_strtab_name(const struct sp_coff_strtab *t, size_t i, const char *name,
				const char **limit)
{
	const char *s;

	if (i >= t->nsyms || !t->name_off[i])
		return NULL;
	/* strs ends in a NUL, so s is a string; it must be bfd's very name */
	s = t->strs + t->name_off[i];
	if (strcmp(s, name) != 0)
		return NULL;
	*limit = t->strs + t->len;
	return s;
}
