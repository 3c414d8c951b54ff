/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: the synthetic "dot" symbols libbfd makes for the
 * function descriptors of 64-bit PowerPC ELFv1 images (elf-opd.c), and
 * the section class letter they share with elf-image.c.
 */
#ifndef SYMPROF_SYMBOLIZE_ELF_OPD_H
#define SYMPROF_SYMBOLIZE_ELF_OPD_H

#include <gelf.h>

#include "internal.h"

/* The class letter bfd gives a symbol of the section `name`/`sh`
 * (decode_section_type over the flags bfd derives from the header). */
char sp_elf_section_letter(const char *name, const GElf_Shdr *sh);

/* 1 if `elf` is a 64-bit PowerPC image with function descriptors (ELFv1)
 * that has an .opd section, whose descriptors then name the code. */
int sp_elf_has_opd(Elf *elf);

/*
 * Calls fn for each synthetic symbol bfd_get_synthetic_symtab() gives the
 * image when asked with its static symbols only, as gprof asks: ".name"
 * at the entry address of every descriptor symbol of .opd that no code
 * symbol already marks. `symelf`/`symscn` hold the symbol table (the
 * image's own or its debug file's); the descriptors are read from the
 * .opd of `elf`. Returns 0 or fn's negative result.
 */
int sp_elf_opd_syms(Elf *elf, Elf *symelf, Elf_Scn *symscn,
		    int (*fn)(void *ctx, const struct raw_sym *s), void *ctx);

#endif
