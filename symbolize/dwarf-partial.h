/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: reading only the DWARF units that hold a set of
 * addresses (see dwarf-partial.c).
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_PARTIAL_H
#define SYMPROF_SYMBOLIZE_DWARF_PARTIAL_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "lines.h"

/* A range of .debug_aranges and the unit (its header's offset) it is in. */
struct sp_partial_arange {
	uint64_t lo, hi, cu;
};

struct sp_partial {
	uint8_t *image; /* an in-memory copy for libdw, or NULL: use the file */
	size_t size;
	struct sp_unit_set units; /* the units to read (for sp_linetab_new_units) */
	/* private */
	struct sp_partial_arange *ar; /* .debug_aranges, sorted by start */
	size_t nar;
	uint64_t *cus; /* the units' header offsets, sorted */
	uint64_t *die_off;
	size_t ncus;
	/* linker-made stubs ([lo, hi): .plt, .plt.got, .plt.sec, .iplt): no
	 * unit holds them, so no unit is needed for their addresses */
	uint64_t (*stubs)[2];
	size_t nstubs;
	/* sp_partial_whole(): the first debug section it could not inflate
	 * and left out, as a message ("section .debug_line: ..."), or NULL */
	char *problem;
};

/*
 * Decides whether reading some units of `elf` (the file holding the DWARF)
 * is enough for the addresses, and prepares it: 0 and p filled, or -1
 * (read the whole file) with p empty. The addresses need not be sorted.
 */
int sp_partial_prepare(struct sp_partial *p, Elf *elf, const uint64_t *addrs, size_t n);

/* The same, reading also the units whose headers are at cus[0..ncus)
 * (those of an earlier reading, see dwcache.c). */
int sp_partial_prepare_with(struct sp_partial *p, Elf *elf, const uint64_t *addrs, size_t n,
			    const uint64_t *cus, size_t ncus);

/* A partial reading's description without its copy of the file (a cached
 * one): takes the arrays (malloc'ed, ar sorted by lo, cus sorted). */
void sp_partial_restore(struct sp_partial *p, struct sp_partial_arange *ar, size_t nar,
			uint64_t *cus, uint64_t *die_off, size_t ncus, uint64_t (*stubs)[2],
			size_t nstubs);

/*
 * For a whole reading of a file with compressed debug sections: p->image
 * becomes a copy of it with every compressed section inflated (libdeflate,
 * twice zlib's speed, where libdw would use zlib). 0, or -1 (let libdw read
 * the file) with p empty.
 */
int sp_partial_whole(struct sp_partial *p, Elf *elf);

/* 1 if every unit holding addr was read (its answers are the full ones):
 * also for an address in a stub, which no unit holds. */
int sp_partial_covers(const struct sp_partial *p, uint64_t addr);

void sp_partial_release(struct sp_partial *p);

#endif
