/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The static call graph (-c) on MIPS: gprof's word rule, not capstone.
 *
 * gprof 2.40 (mips.c) does not decode MIPS code. For each symbol it reads
 * every 4-byte word of its range, in the image's byte order, from its copy
 * of .text, and looks at two bit patterns only:
 *
 *   (w & 0xfc000000) == 0x0c000000   `jal`: the target is the top four bits
 *                                    of the word's own address with the
 *                                    26-bit field shifted left by 2; it is
 *                                    an arc (count 0) if the target lies in
 *                                    a histogram and a symbol starts there
 *   (w & 0xfc00f83f) == 0x0000f809   `jalr $ra, rs` (any rs, rt and hint):
 *                                    an arc to "<indirect child>", a pseudo
 *                                    node that stands for every callee
 *                                    reached through a register
 *
 * gprof's output is defined by that rule, whatever the words are, so
 * symprof applies the rule itself rather than decoding with capstone. A
 * decoder would differ exactly where it matters: it reports `bal`,
 * `bgezal`, `jalx` and R6's `balc`/`jialc` as calls (gprof ignores them)
 * and `jalr` with any link register, it must be told the ISA level and
 * where MIPS16/microMIPS code is, and it starts at aligned addresses while
 * gprof steps from the symbol's own address (odd for MIPS16/microMIPS
 * functions) through code and data (jump tables, literals) alike. Two masks per word reproduce
 * gprof's arcs exactly, in one pass. What gprof reads outside .text (for .init, .fini or
 * .MIPS.stubs it indexes past its copy of .text into heap memory) symprof does not read at all:
 * those words match nothing, which is what the heap gives gprof in practice (the .MIPS.stubs bytes
 * themselves hold `jalr $t9` words that gprof never sees).
 *
 * The rule is the same for 32- and 64-bit MIPS and both byte orders. The
 * histogram test (cg/static.c) compares only the low 32 bits of the
 * target, as gprof's does; --precise compares all of it and also takes
 * `j` to another function's entry as a tail call.
 */
#include "static-internal.h"

#include <elf.h>
#include <string.h>

int sp_cgs_mips_word(uint32_t w, uint64_t pc, uint64_t *dest)
{
	if ((w & 0xfc000000u) == 0x0c000000u || (w & 0xfc000000u) == 0x08000000u) {
		*dest = (pc & ~(uint64_t)0xfffffff) | ((uint64_t)(w & 0x03ffffffu) << 2);
		return (w & 0xfc000000u) == 0x0c000000u ? SP_CGS_MIPS_JAL : SP_CGS_MIPS_J;
	}
	if ((w & 0xfc00f83fu) == 0x0000f809u)
		return SP_CGS_MIPS_JALR;
	return SP_CGS_MIPS_OTHER;
}

static uint32_t read_word(const uint8_t *b, int big_endian)
{
	if (big_endian)
		return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

/* The whole words of .text among lo, lo + 4, lo + 8, ... below hi. */
static int words_in_text(const struct sp_code_section *t, uint64_t *lo, uint64_t *hi)
{
	uint64_t end;

	if (!t || !t->bytes || t->size < 4 || *hi <= *lo)
		return 0;
	end = t->vma + t->size - 3; /* a word must start below this */
	if (*lo < t->vma) {
		uint64_t skip = (t->vma - *lo + 3) & ~(uint64_t)3;

		if (skip >= *hi - *lo)
			return 0;
		*lo += skip;
	}
	if (*hi > end)
		*hi = end;
	return *lo < *hi;
}

void sp_cgs_mips_sweep(struct sp_cg_static *s, uint64_t lo, uint64_t hi, sp_cg_call_fn fn,
		       void *ctx)
{
	const struct sp_code_section *t = s->text;
	uint64_t pc;

	if (!words_in_text(t, &lo, &hi))
		return;
	for (pc = lo; pc < hi && pc >= lo; pc += 4) {
		uint32_t w = read_word(t->bytes + (pc - t->vma), s->big_endian);
		struct sp_cg_call c;
		int kind = sp_cgs_mips_word(w, pc, &c.target);

		if (kind == SP_CGS_MIPS_OTHER || (kind == SP_CGS_MIPS_J && !s->want_jumps))
			continue;
		c.kind = kind == SP_CGS_MIPS_JAL    ? SP_CG_CALL_DIRECT
			 : kind == SP_CGS_MIPS_JALR ? SP_CG_CALL_INDIRECT
						    : SP_CG_JUMP_DIRECT;
		if (kind == SP_CGS_MIPS_JALR)
			c.target = 0;
		c.site = pc;
		c.name = NULL;
		c.conditional = 0;
		fn(ctx, &c);
	}
}

const struct sp_code_section *sp_cgs_mips_text(const struct sp_code *c)
{
	size_t i;

	for (i = 0; i < c->nsections; i++)
		if (c->sections[i].name && !strcmp(c->sections[i].name, ".text"))
			return &c->sections[i];
	return NULL;
}
