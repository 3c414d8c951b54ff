/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to cg/static.c and cg/static-decode.c: the scanner's state and
 * the per-architecture decoding of branch instructions and PLT stubs.
 */
#ifndef SYMPROF_CG_STATIC_INTERNAL_H
#define SYMPROF_CG_STATIC_INTERNAL_H

#include <capstone/capstone.h>

#include "symprof/cg.h"
#include "symprof/symbolize.h"

struct cs_pair {
	csh fast, full; /* without and with operand details */
	cs_insn *fi, *di;
	int open;
};

struct sp_cg_static {
	const struct sp_code *code;
	int machine, ptr_size, big_endian;
	unsigned flags;
	int want_jumps;	 /* decode jumps: --precise, or AArch64's `b` */
	int relocatable; /* an object file: every section at address 0 */
	FILE *debug;
	struct cs_pair cs[2]; /* [0]: the machine's (ARM mode on ARM), [1]: Thumb */
	/* global symbols of the table by name, for imported names */
	const struct sp_symtab *names_of;
	uint32_t *by_name;
	size_t nby_name;
	/* MIPS (gprof's word rule, static-mips.c) */
	const struct sp_code_section *text; /* .text: the only bytes gprof reads */
	uint64_t *hist; /* histogram ranges [lo, hi) as pairs (sp_cg_static_set_hist) */
	size_t nhist;
};

struct sweep {
	struct sp_cg_static *s;
	const struct sp_code_section *sec;
	sp_cg_call_fn fn;
	void *ctx;
};

/* Lookups in the code description (binary searches). */
const struct sp_code_section *sp_cgs_section_of(const struct sp_code *c, uint64_t addr);
const char *sp_cgs_slot_name(const struct sp_code *c, uint64_t addr);
/* The first relocation whose place lies in [lo, hi), or NULL. */
const struct sp_code_reloc *sp_cgs_reloc_in(const struct sp_code *c, uint64_t lo, uint64_t hi);

/* Whether instruction `id` (decoded without details) is a branch the
 * scanner reports. */
int sp_cgs_is_branch(const struct sp_cg_static *s, unsigned id);
/*
 * The length of the x86-64 instruction at p (n bytes there) when it is a
 * common encoding that is no call, nor a jump when want_jumps
 * (static-x86len.c); 0 when capstone must decode it.
 */
unsigned sp_cgs_x86_64_skip(const uint8_t *p, size_t n, int want_jumps);
/* Decodes the branch at `at` (`left` bytes available, address `addr`)
 * with details and reports it to the sweep's callback. */
void sp_cgs_decode_branch(struct sweep *w, struct cs_pair *p, const uint8_t *at, size_t left,
			  uint64_t addr);

/* ---- MIPS (static-mips.c) ---- */

enum sp_cgs_mips_kind {
	SP_CGS_MIPS_OTHER = 0,
	SP_CGS_MIPS_JAL,  /* *dest set */
	SP_CGS_MIPS_JALR, /* jalr $ra, rs */
	SP_CGS_MIPS_J,	  /* *dest set */
};

/* What gprof's MIPS scan (plus `j`) takes the word w at pc for. */
int sp_cgs_mips_word(uint32_t w, uint64_t pc, uint64_t *dest);
/* Reports the jal, jalr $ra (and with want_jumps, j) words among lo,
 * lo + 4, ... below hi that lie wholly in .text. */
void sp_cgs_mips_sweep(struct sp_cg_static *s, uint64_t lo, uint64_t hi, sp_cg_call_fn fn,
		       void *ctx);
/* The section named .text, or NULL. */
const struct sp_code_section *sp_cgs_mips_text(const struct sp_code *c);

#endif
