/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lengths of x86-64 instructions that are not calls, for the static call
 * graph's sweep (cg/static.c) to step over without capstone.
 *
 * Capstone formats every instruction it decodes, operands and all, even
 * without details: about 0.5 us an instruction, so that decoding a
 * 5,000-function program's text took longer than all of gprof -c. The
 * sweep only needs to know where each instruction ends and which ones
 * are branches. This decoder knows the lengths of the common encodings
 * (the one-byte map and most of the 0F map, legacy prefixes and REX) and
 * answers 0 for everything else: branches (unless jumps are not wanted
 * and the jump is a plain rel8/rel32), VEX, EVEX, x87, system
 * instructions, forms valid with only some prefixes or only some ModRM
 * shapes. Those are decoded by capstone as before, so where this decoder
 * answers, capstone would have answered the same length and a
 * non-branch; tests/unit/test-static.c checks that at every byte offset
 * of real programs' text.
 */
#include "static-internal.h"

/* What follows an opcode, per entry of a map. */
enum {
	OP_MODRM = 0x01, /* a ModRM byte (with SIB and displacement) */
	OP_IB = 0x02,	 /* an 8-bit immediate */
	OP_IW = 0x04,	 /* a 16-bit immediate */
	OP_IZ = 0x08,	 /* 16 bits with 0x66 (and no REX.W), else 32 */
	OP_IV = 0x10,	 /* 16, 32 or 64 bits (mov r, imm: B8-BF) */
	OP_GROUP = 0x20, /* valid for some ModRM forms: see group_form() */
	OP_SSE = 0x40,	 /* 0F map, ModRM: the prefixes it takes are checked */
	OP_NONE = 0x80,	 /* known, nothing follows; 0: decoded by capstone
			    (unknown, invalid, a branch, a prefix) */
};

/* the maps hold 16 opcodes a line */
// clang-format off
#define M OP_MODRM
#define N OP_NONE
#define G OP_GROUP
#define S OP_SSE

static const uint8_t one_byte[256] = {
	/* 00 */ M, M, M, M, OP_IB, OP_IZ, 0, 0, M, M, M, M, OP_IB, OP_IZ, 0, 0,
	/* 10 */ M, M, M, M, OP_IB, OP_IZ, 0, 0, M, M, M, M, OP_IB, OP_IZ, 0, 0,
	/* 20 */ M, M, M, M, OP_IB, OP_IZ, 0, 0, M, M, M, M, OP_IB, OP_IZ, 0, 0,
	/* 30 */ M, M, M, M, OP_IB, OP_IZ, 0, 0, M, M, M, M, OP_IB, OP_IZ, 0, 0,
	/* 40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 50 */ N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N,
	/* 60 */ 0, 0, 0, M, 0, 0, 0, 0, OP_IZ, M | OP_IZ, OP_IB, M | OP_IB, N, N, N, N,
	/* 70 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 80 */ M | OP_IB, M | OP_IZ, 0, M | OP_IB, M, M, M, M, M, M, M, M, 0, G, 0, G,
	/* 90 */ N, N, N, N, N, N, N, N, N, N, 0, 0, N, N, N, N,
	/* a0 */ 0, 0, 0, 0, N, N, N, N, OP_IB, OP_IZ, N, N, N, N, N, N,
	/* b0 */ OP_IB, OP_IB, OP_IB, OP_IB, OP_IB, OP_IB, OP_IB, OP_IB,
	/* b8 */ OP_IV, OP_IV, OP_IV, OP_IV, OP_IV, OP_IV, OP_IV, OP_IV,
	/* c0 */ M | OP_IB, M | OP_IB, OP_IW, N, 0, 0, G, G, OP_IW | OP_IB, N, OP_IW, N, N, OP_IB, 0,
	/* cf */ N,
	/* d0 */ M, M, M, M, 0, 0, 0, N, 0, 0, 0, 0, 0, 0, 0, 0,
	/* e0 */ 0, 0, 0, 0, OP_IB, OP_IB, OP_IB, OP_IB, 0, 0, 0, 0, N, N, N, N,
	/* f0 */ 0, 0, 0, 0, N, N, G, G, N, N, N, N, N, N, G, G,
};

static const uint8_t two_byte[256] = {
	/* 00 */ 0, 0, M, M, 0, N, N, N, N, N, 0, N, 0, 0, 0, 0,
	/* 10 */ S, S, 0, 0, S, S, 0, 0, G, 0, 0, 0, 0, 0, 0, G,
	/* 20 */ 0, 0, 0, 0, 0, 0, 0, 0, S, S, S, 0, S, S, S, S,
	/* 30 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 40 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 50 */ 0, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
	/* 60 */ S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
	/* 70 */ S | OP_IB, 0, 0, 0, S, S, S, N, 0, 0, 0, 0, 0, 0, S, S,
	/* 80 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 90 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* a0 */ N, N, N, M, M | OP_IB, M, 0, 0, N, N, 0, M, M | OP_IB, M, 0, M,
	/* b0 */ M, M, 0, M, 0, 0, M, M, M, 0, G, M, M, M, M, M,
	/* c0 */ M, M, S | OP_IB, 0, S | OP_IB, 0, S | OP_IB, 0, N, N, N, N, N, N, N, N,
	/* d0 */ 0, S, S, S, S, S, 0, 0, S, S, S, S, S, S, S, S,
	/* e0 */ S, S, S, S, S, S, 0, 0, S, S, S, S, S, S, S, S,
	/* f0 */ 0, S, S, S, S, S, S, 0, S, S, S, S, S, S, S, 0,
};

#undef M
#undef N
#undef G
#undef S
// clang-format on

/* One bit per opcode of the 0F map: 256 bits as four words. */
struct opset {
	uint64_t w[4];
};

static int in_set(const struct opset *s, unsigned op)
{
	return (int)((s->w[op >> 6] >> (op & 63)) & 1);
}

/*
 * The OP_SSE opcodes valid with each mandatory prefix, and F3's two
 * others (popcnt, tzcnt, lzcnt: BC and BD are plain without it):
 * none, 0x66, 0xF3, 0xF2.
 */
#define BIT(op) ((uint64_t)1 << ((op)&63))
#define R(lo, hi) ((((uint64_t)2 << ((hi)&63)) - 1) & ~(BIT(lo) - 1))
static const struct opset sse_ok[4] = {
	/* none */
	{{BIT(0x10) | BIT(0x11) | BIT(0x14) | BIT(0x15) | R(0x28, 0x2a) | R(0x2c, 0x2f),
	  R(0x51, 0x5f) | R(0x60, 0x6b) | BIT(0x6e) | BIT(0x6f) | BIT(0x70) | R(0x74, 0x76) |
		  BIT(0x7e) | BIT(0x7f),
	  0,
	  BIT(0xc2) | BIT(0xc4) | BIT(0xc6) | R(0xd1, 0xd5) | R(0xd8, 0xdf) | R(0xe0, 0xe5) |
		  R(0xe8, 0xef) | R(0xf1, 0xf6) | R(0xf8, 0xfe)}},
	/* 0x66 */
	{{BIT(0x10) | BIT(0x11) | BIT(0x14) | BIT(0x15) | R(0x28, 0x2a) | R(0x2c, 0x2f),
	  BIT(0x51) | R(0x54, 0x5f) | R(0x60, 0x6f) | BIT(0x70) | R(0x74, 0x76) | BIT(0x7e) |
		  BIT(0x7f),
	  0,
	  BIT(0xc2) | BIT(0xc4) | BIT(0xc6) | R(0xd1, 0xd5) | R(0xd8, 0xdf) | R(0xe0, 0xe5) |
		  R(0xe8, 0xef) | R(0xf1, 0xf6) | R(0xf8, 0xfe)}},
	/* 0xF3 */
	{{BIT(0x10) | BIT(0x11) | BIT(0x2a) | BIT(0x2c) | BIT(0x2d),
	  R(0x51, 0x53) | R(0x58, 0x5f) | BIT(0x6f) | BIT(0x70) | BIT(0x7e) | BIT(0x7f),
	  BIT(0xb8) | BIT(0xbc) | BIT(0xbd), BIT(0xc2)}},
	/* 0xF2 */
	{{BIT(0x10) | BIT(0x11) | BIT(0x2a) | BIT(0x2c) | BIT(0x2d),
	  BIT(0x51) | R(0x58, 0x5a) | R(0x5c, 0x5f) | BIT(0x70), 0, BIT(0xc2)}},
};
#undef BIT
#undef R

/* The bytes of a ModRM operand from p (the ModRM byte on): 0 if past end. */
static unsigned modrm_length(const uint8_t *p, const uint8_t *end)
{
	unsigned mod, rm, len = 1;

	if (p >= end)
		return 0;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (p + 1 >= end)
			return 0;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4; /* rip-relative */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

/* The operands of a group opcode (OP_GROUP) whose ModRM byte is m: what
 * the forms capstone decodes as non-branches take, or 0. */
static unsigned group_form(int two, unsigned op, unsigned m)
{
	unsigned mod = m >> 6, reg = (m >> 3) & 7;

	if (two) {
		switch (op) {
		case 0x18: /* prefetch */
			return reg <= 3 && mod != 3 ? OP_MODRM : 0;
		case 0x1f: /* nop m */
			return reg == 0 && mod != 3 ? OP_MODRM : 0;
		case 0xba: /* bt, bts, btr, btc imm8 */
			return reg >= 4 ? OP_MODRM | OP_IB : 0;
		default:
			return 0;
		}
	}
	switch (op) {
	case 0x8d: /* lea: memory only */
		return mod != 3 ? OP_MODRM : 0;
	case 0x8f: /* pop r/m */
	case 0xfe: /* inc, dec */
		return reg == 0 || (op == 0xfe && reg == 1) ? OP_MODRM : 0;
	case 0xc6: /* mov r/m, imm */
		return reg == 0 ? OP_MODRM | OP_IB : 0;
	case 0xc7:
		return reg == 0 ? OP_MODRM | OP_IZ : 0;
	case 0xf6: /* test imm, not, neg, mul, imul, div, idiv */
		return reg == 0 ? OP_MODRM | OP_IB : reg >= 2 ? OP_MODRM : 0;
	case 0xf7:
		return reg == 0 ? OP_MODRM | OP_IZ : reg >= 2 ? OP_MODRM : 0;
	case 0xff: /* inc, dec, push; 2-5 are calls and jumps */
		return reg == 0 || reg == 1 || reg == 6 ? OP_MODRM : 0;
	default:
		return 0;
	}
}

/* A plain jump's length (jmp or jcc, rel8 or rel32) at p, else 0. */
static unsigned plain_jump(const uint8_t *p, const uint8_t *end)
{
	unsigned len = 0;

	if (p[0] == 0xeb || (p[0] & 0xf0) == 0x70)
		len = 2;
	else if (p[0] == 0xe9)
		len = 5;
	else if (p[0] == 0x0f && p + 1 < end && (p[1] & 0xf0) == 0x80)
		len = 6;
	return (size_t)(end - p) >= len ? len : 0;
}

unsigned sp_cgs_x86_64_skip(const uint8_t *p, size_t n, int want_jumps)
{
	const uint8_t *at = p, *end = p + (n < 15 ? n : 15);
	unsigned opsize16 = 0, rep = 0, rex = 0, rex_w = 0, last = 0, op, kind, m, len;
	int two = 0, nprefixes = 0;

	/* legacy prefixes (not lock), then at most one REX */
	for (; at < end; last = *at++, nprefixes++) {
		if (*at == 0x66)
			opsize16 = 1;
		else if (*at == 0xf2 || *at == 0xf3)
			rep = rep && rep != *at ? 1 : *at; /* 1: both */
		else if (*at != 0x67 && *at != 0x2e && *at != 0x3e && *at != 0x26 && *at != 0x36 &&
			 *at != 0x64 && *at != 0x65)
			break;
	}
	if (at < end && (*at & 0xf0) == 0x40) {
		rex = 1;
		rex_w = (*at >> 3) & 1;
		at++;
		if (at < end && (*at & 0xf0) == 0x40)
			return 0; /* REX after REX: capstone's rules */
	}
	if (at >= end)
		return 0;
	if (!nprefixes && !want_jumps && at == p && (len = plain_jump(p, end)))
		return len;
	op = *at++;
	if (op == 0x0f) {
		if (at >= end)
			return 0;
		two = 1;
		op = *at++;
		kind = two_byte[op];
	} else {
		kind = one_byte[op];
	}
	if (!kind)
		return 0;
	if (rep == 1 || (rep && opsize16 && two))
		return 0;
	/* capstone takes 66, F2 or F3 for an opcode's mandatory prefix only
	 * right before it (and its REX) */
	if (two && (rep || opsize16) && last != (rep ? rep : 0x66))
		return 0;
	if (kind & OP_SSE) {
		if (!in_set(&sse_ok[rep == 0xf3 ? 2 : rep == 0xf2 ? 3 : opsize16], op))
			return 0;
		kind = (kind & ~(unsigned)OP_SSE) | OP_MODRM;
	} else if (rep) {
		/* F3 0F B8/BC/BD; rep string instructions, pause, rep ret */
		if (two ? rep != 0xf3 || !in_set(&sse_ok[2], op)
			: !((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
			    (op >= 0x6c && op <= 0x6f) || op == 0x90 || op == 0xc3))
			return 0;
	} else if (two && op == 0xb8) {
		return 0; /* jmpe without F3 */
	}
	/* ret, retf, enter: capstone reads a longer immediate after REX.W */
	if (!two && rex && (op == 0xc2 || op == 0xca || op == 0xc8))
		return 0;
	if (kind & OP_GROUP) {
		if (at >= end || !(kind = group_form(two, op, *at)))
			return 0;
	}
	if (kind & OP_MODRM) {
		if (!(m = modrm_length(at, end)))
			return 0;
		at += m;
	}
	if (kind & OP_IB)
		at += 1;
	if (kind & OP_IW)
		at += 2;
	if (kind & OP_IZ)
		at += opsize16 && !rex_w ? 2 : 4;
	if (kind & OP_IV)
		at += rex_w ? 8 : opsize16 ? 2 : 4;
	return at <= end ? (unsigned)(at - p) : 0;
}
