/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An ELF file opened for libelf (elf-image.c): the image's own, its
 * separate debug file, or the handle a DWARF worker reads through
 * (dwarf-tables.c; libelf handles are not shared between threads).
 */
#ifndef SYMPROF_SYMBOLIZE_ELF_FILE_H
#define SYMPROF_SYMBOLIZE_ELF_FILE_H

#include <gelf.h>

struct sp_elf_file {
	int fd; /* -1: not open */
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
};

/* Opens path: 0, -1 if it cannot be opened (errno), 1 if it is not an ELF
 * file libelf can read (f->elf NULL, f->fd -1 both ways). */
int sp_elf_file_open(struct sp_elf_file *f, const char *path);
/* Closes f if open; it stays closed (fd -1). */
void sp_elf_file_close(struct sp_elf_file *f);

#endif
