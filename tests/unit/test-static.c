/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for the static call graph scanner (cg/static.c): known byte
 * sequences per architecture (backward calls, PLT stubs, tail jumps,
 * indirect calls, object-file relocations, data in code, resyncing at
 * symbols), decoded through sp_cg_static_scan().
 */
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include <capstone/capstone.h>

#include "suites.h"
#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"
#include "static-internal.h"

#define MAXEV 16

static struct sp_cg_call ev[MAXEV];
static int nev;

static void collect(void *ctx, const struct sp_cg_call *c)
{
	(void)ctx;
	if (nev < MAXEV)
		ev[nev++] = *c;
}

static struct sp_cg_static *new_scanner(const struct sp_code *code, int machine, int big_endian,
					int ptr_size, unsigned flags)
{
	struct sp_target t;
	struct sp_error err = SP_ERROR_INIT;
	struct sp_cg_static *s;

	memset(&t, 0, sizeof(t));
	t.machine = machine;
	t.ptr_size = ptr_size;
	t.big_endian = big_endian;
	t.sign_extend = machine == EM_MIPS;
	t.is_elf = 1;
	s = sp_cg_static_new(code, &t, flags, NULL, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}

/* Scans [lo, hi) with scanner s (freed); returns the number of events. */
static int scan_with(struct sp_cg_static *s, uint64_t lo, uint64_t hi)
{
	nev = 0;
	memset(ev, 0, sizeof(ev));
	sp_cg_static_scan(s, lo, hi, collect, NULL);
	sp_cg_static_free(s);
	return nev;
}

/* Scans [lo, hi) of `code` for `machine`; returns the number of events. */
static int scan(const struct sp_code *code, int machine, unsigned flags, uint64_t lo, uint64_t hi)
{
	int p32 = machine == EM_386 || machine == EM_ARM || machine == EM_PPC;

	return scan_with(new_scanner(code, machine, machine == EM_PPC, p32 ? 4 : 8, flags), lo, hi);
}

static struct sp_code one_section(struct sp_code_section *sec, const uint8_t *bytes, size_t n,
				  uint64_t vma)
{
	struct sp_code c;

	memset(sec, 0, sizeof(*sec));
	sec->name = ".text";
	sec->vma = vma;
	sec->size = n;
	sec->bytes = bytes;
	memset(&c, 0, sizeof(c));
	c.sections = sec;
	c.nsections = 1;
	return c;
}

/* ---- x86-64 ---- */

static void test_x86_backward_call(void)
{
	/* 0x1000: ret ... 0x1010: call 0x1000; call 0x1020 */
	static const uint8_t b[] = {0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
				    0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xe8, 0xeb,
				    0xff, 0xff, 0xff, 0xe8, 0x06, 0x00, 0x00, 0x00, 0x90,
				    0x90, 0x90, 0x90, 0x90, 0x90, 0xc3};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x1000);

	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_X86_64, 0, 0x1010, 0x1020), 2);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[0].site, 0x1010);
	CU_ASSERT_EQUAL(ev[0].target, 0x1000);
	CU_ASSERT_EQUAL(ev[1].target, 0x1020);
}

static void test_x86_plt_call(void)
{
	/* .text 0x1000: call 0x2010 (a .plt.sec stub) */
	static const uint8_t text[] = {0xe8, 0x0b, 0x10, 0x00, 0x00, 0xc3};
	/* .plt.sec 0x2010: endbr64; bnd jmp *0xfed(%rip) -> slot 0x3008 */
	static const uint8_t plt[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xed,
				      0x0f, 0x00, 0x00, 0x0f, 0x1f, 0x44, 0x00, 0x00};
	struct sp_code_section secs[2];
	struct sp_code_slot slot = {0x3008, "puts"};
	struct sp_code c;

	memset(secs, 0, sizeof(secs));
	secs[0].name = ".text";
	secs[0].vma = 0x1000;
	secs[0].size = sizeof(text);
	secs[0].bytes = text;
	secs[1].name = ".plt.sec";
	secs[1].vma = 0x2010;
	secs[1].size = sizeof(plt);
	secs[1].bytes = plt;
	secs[1].is_plt = 1;
	memset(&c, 0, sizeof(c));
	c.sections = secs;
	c.nsections = 2;
	c.slots = &slot;
	c.nslots = 1;
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_X86_64, 0, 0x1000, 0x1006), 1);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_IMPORT);
	CU_ASSERT_STRING_EQUAL(ev[0].name, "puts");
}

static void test_x86_tail_and_indirect(void)
{
	static const uint8_t b[] = {
		0xff, 0xd0,			    /* 0x1000 call *%rax */
		0xff, 0x15, 0x00, 0x10, 0x00, 0x00, /* 0x1002 call *0x1000(%rip) = [0x2008] */
		0xff, 0x15, 0x08, 0x10, 0x00, 0x00, /* 0x1008 call *0x1008(%rip) = [0x2016] */
		0x74, 0x04,			    /* 0x100e je 0x1014 */
		0xe9, 0xeb, 0xef, 0xff, 0xff,	    /* 0x1010 jmp 0x0 */
		0xc3};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x1000);
	struct sp_code_slot slot = {0x2008, "abort"};

	c.slots = &slot;
	c.nslots = 1;
	/* without --precise: calls only */
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_X86_64, 0, 0x1000, 0x1016), 3);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_INDIRECT);
	CU_ASSERT_EQUAL(ev[1].kind, SP_CG_CALL_IMPORT);
	CU_ASSERT_STRING_EQUAL(ev[1].name, "abort");
	CU_ASSERT_EQUAL(ev[2].kind, SP_CG_CALL_INDIRECT);
	/* with it: the conditional and the unconditional jump too */
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_X86_64, SP_CG_STATIC_TAIL, 0x1000, 0x1016), 5);
	CU_ASSERT_EQUAL(ev[3].kind, SP_CG_JUMP_DIRECT);
	CU_ASSERT_EQUAL(ev[3].target, 0x1014);
	CU_ASSERT(ev[3].conditional);
	CU_ASSERT_EQUAL(ev[4].kind, SP_CG_JUMP_DIRECT);
	CU_ASSERT_EQUAL(ev[4].target, 0x0);
	CU_ASSERT(!ev[4].conditional);
}

static void test_x86_resync_and_garbage(void)
{
	/* 0x1000: b8 (mov $imm32 would swallow the call) | 0x1001: call 0x1000
	 * then a byte that is no instruction in 64-bit mode, then call 0x1000 */
	static const uint8_t b[] = {0xb8, 0xe8, 0xfa, 0xff, 0xff, 0xff,
				    0x06, 0xe8, 0xf4, 0xff, 0xff, 0xff};
	static const uint64_t starts[] = {0x1000, 0x1001};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x1000);

	c.starts = starts;
	c.nstarts = 2;
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_X86_64, 0, 0x1000, 0x100c), 2);
	CU_ASSERT_EQUAL(ev[0].site, 0x1001);
	CU_ASSERT_EQUAL(ev[0].target, 0x1000);
	CU_ASSERT_EQUAL(ev[1].site, 0x1007);
	CU_ASSERT_EQUAL(ev[1].target, 0x1000);
	/* without the symbol at 0x1001 the call is an immediate of the mov */
	c.nstarts = 1;
	CU_ASSERT_EQUAL(scan(&c, EM_X86_64, 0, 0x1000, 0x100c), 1);
}

static void test_x86_object_relocs(void)
{
	/* call 0 (unrelocated) twice, then the next function at 0x100a */
	static const uint8_t b[] = {0xe8, 0x00, 0x00, 0x00, 0x00, 0xe8,
				    0x00, 0x00, 0x00, 0x00, 0xc3};
	struct sp_code_reloc r[2] = {{0x1001, 0x1040, "helper", 1, 0}, {0x1006, 0, "exit", 0, 0}};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x1000);

	c.relocs = r;
	c.nrelocs = 2;
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_X86_64, 0, 0x1000, 0x100a), 2);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[0].target, 0x1040);
	CU_ASSERT_EQUAL(ev[1].kind, SP_CG_CALL_IMPORT);
	CU_ASSERT_STRING_EQUAL(ev[1].name, "exit");
}

/* ---- i386 ---- */

static void test_i386(void)
{
	/* .text 0x8049000: call 0x8048ff0 (backward); call 0x8049100 and
	 * call 0x8049110 (PLT) */
	static const uint8_t text[] = {0xe8, 0xeb, 0xff, 0xff, 0xff, 0xe8, 0xf6, 0x00,
				       0x00, 0x00, 0xe8, 0x01, 0x01, 0x00, 0x00};
	/* .plt 0x8049100: jmp *0x804c00c; 0x8049110: jmp *0x10(%ebx) */
	static const uint8_t plt[] = {0xff, 0x25, 0x0c, 0xc0, 0x04, 0x08, 0x68, 0,    0, 0, 0,
				      0xe9, 0,	  0,	0,    0,    0xff, 0xa3, 0x10, 0, 0, 0};
	struct sp_code_section secs[2];
	struct sp_code_slot slots[2] = {{0x804c00c, "puts"}, {0x804c010, "exit"}};
	struct sp_code c;

	memset(secs, 0, sizeof(secs));
	secs[0].vma = 0x8049000;
	secs[0].size = sizeof(text);
	secs[0].bytes = text;
	secs[1].vma = 0x8049100;
	secs[1].size = sizeof(plt);
	secs[1].bytes = plt;
	secs[1].is_plt = 1;
	memset(&c, 0, sizeof(c));
	c.sections = secs;
	c.nsections = 2;
	c.slots = slots;
	c.nslots = 2;
	c.got = 0x804c000;
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_386, 0, 0x8049000, 0x804900f), 3);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[0].target, 0x8048ff0);
	CU_ASSERT_EQUAL(ev[1].kind, SP_CG_CALL_IMPORT);
	CU_ASSERT_STRING_EQUAL(ev[1].name, "puts");
	/* a PIC stub indexes the GOT from %ebx */
	CU_ASSERT_EQUAL(ev[2].kind, SP_CG_CALL_IMPORT);
	CU_ASSERT_STRING_EQUAL(ev[2].name, "exit");
}

/* ---- AArch64 ---- */

static void test_aarch64(void)
{
	static const uint8_t b[] = {
		0xff, 0xff, 0xff, 0x97, /* 0x1000 bl 0xffc */
		0x02, 0x00, 0x00, 0x14, /* 0x1004 b 0x100c */
		0x40, 0x00, 0x00, 0x54, /* 0x1008 b.eq 0x1010 */
		0x20, 0x00, 0x3f, 0xd6, /* 0x100c blr x1 */
		0xfc, 0xff, 0xff, 0x97, /* 0x1010 in $d: looks like bl 0x1000 */
		0xfb, 0xff, 0xff, 0x97, /* 0x1014 bl 0x1000, back in $x */
	};
	static const struct sp_code_mark marks[] = {{0x1010, SP_CODE_DATA},
						    {0x1014, SP_CODE_DEFAULT}};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x1000);

	c.marks = marks;
	c.nmarks = 2;
	/* b is always reported on AArch64: gprof's BL scan takes it */
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_AARCH64, 0, 0x1000, 0x1018), 5);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[0].target, 0xffc);
	CU_ASSERT_EQUAL(ev[1].kind, SP_CG_JUMP_DIRECT);
	CU_ASSERT_EQUAL(ev[1].target, 0x100c);
	CU_ASSERT(!ev[1].conditional);
	CU_ASSERT_EQUAL(ev[2].kind, SP_CG_JUMP_DIRECT);
	CU_ASSERT(ev[2].conditional);
	CU_ASSERT_EQUAL(ev[3].kind, SP_CG_CALL_INDIRECT);
	CU_ASSERT_EQUAL(ev[4].site, 0x1014);
	CU_ASSERT_EQUAL(ev[4].target, 0x1000);
}

static void test_aarch64_plt(void)
{
	static const uint8_t text[] = {0x40, 0x00, 0x00, 0x94}; /* 0x10000 bl 0x10100 */
	/* 0x10100: adrp x16, 0x21000; ldr x17, [x16, #8]; add x16, x16, #8; br x17 */
	static const uint8_t plt[] = {0x90, 0x00, 0x00, 0xb0, 0x11, 0x06, 0x40, 0xf9,
				      0x10, 0x22, 0x00, 0x91, 0x20, 0x02, 0x1f, 0xd6};
	struct sp_code_section secs[2];
	struct sp_code_slot slot = {0x21008, "malloc"};
	struct sp_code c;

	memset(secs, 0, sizeof(secs));
	secs[0].vma = 0x10000;
	secs[0].size = sizeof(text);
	secs[0].bytes = text;
	secs[1].vma = 0x10100;
	secs[1].size = sizeof(plt);
	secs[1].bytes = plt;
	secs[1].is_plt = 1;
	memset(&c, 0, sizeof(c));
	c.sections = secs;
	c.nsections = 2;
	c.slots = &slot;
	c.nslots = 1;
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_AARCH64, 0, 0x10000, 0x10004), 1);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_IMPORT);
	CU_ASSERT_STRING_EQUAL(ev[0].name, "malloc");
}

/* ---- ARM / Thumb, PowerPC ---- */

static void test_arm_thumb(void)
{
	static const uint8_t b[] = {
		0xfe, 0xff, 0xff, 0xeb, /* 0x2000 ARM: bl 0x2000 */
		0xff, 0xf7, 0xfc, 0xff, /* 0x2004 Thumb: bl 0x2000 */
		0x00, 0xb1,		/* 0x2008 Thumb: cbz r0, 0x200c */
		0x00, 0xbf,		/* 0x200a nop */
	};
	static const struct sp_code_mark marks[] = {{0x2000, SP_CODE_ARM}, {0x2004, SP_CODE_THUMB}};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x2000);

	c.marks = marks;
	c.nmarks = 2;
	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_ARM, SP_CG_STATIC_TAIL, 0x2000, 0x200c), 3);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[0].target, 0x2000);
	CU_ASSERT_EQUAL(ev[1].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[1].site, 0x2004);
	CU_ASSERT_EQUAL(ev[1].target, 0x2000);
	CU_ASSERT_EQUAL(ev[2].kind, SP_CG_JUMP_DIRECT);
	CU_ASSERT(ev[2].conditional);
}

static void test_ppc(void)
{
	/* big-endian 32-bit: bl 0x2ffc; bctrl; b 0x3010 */
	static const uint8_t b[] = {0x4b, 0xff, 0xff, 0xfd, 0x4e, 0x80,
				    0x04, 0x21, 0x48, 0x00, 0x00, 0x08};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x3000);

	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_PPC, SP_CG_STATIC_TAIL, 0x3000, 0x300c), 3);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[0].target, 0x2ffc);
	CU_ASSERT_EQUAL(ev[1].kind, SP_CG_CALL_INDIRECT);
	CU_ASSERT_EQUAL(ev[2].kind, SP_CG_JUMP_DIRECT);
	CU_ASSERT_EQUAL(ev[2].target, 0x3010);
}

/* ---- MIPS: gprof's word rule ---- */

/* Words in the given byte order. */
static void put_words(uint8_t *b, const uint32_t *w, size_t n, int big_endian)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t v = w[i];

		if (big_endian) {
			b[4 * i] = (uint8_t)(v >> 24);
			b[4 * i + 1] = (uint8_t)(v >> 16);
			b[4 * i + 2] = (uint8_t)(v >> 8);
			b[4 * i + 3] = (uint8_t)v;
		} else {
			b[4 * i] = (uint8_t)v;
			b[4 * i + 1] = (uint8_t)(v >> 8);
			b[4 * i + 2] = (uint8_t)(v >> 16);
			b[4 * i + 3] = (uint8_t)(v >> 24);
		}
	}
}

static int scan_mips(const struct sp_code *c, int big_endian, unsigned flags, uint64_t lo,
		     uint64_t hi)
{
	return scan_with(new_scanner(c, EM_MIPS, big_endian, 4, flags), lo, hi);
}

/* Which words are calls, in both byte orders, with the target rule. */
static void test_mips_words(void)
{
	static const uint32_t w[] = {
		0x0c100010, /* 0x400000 jal 0x400040 */
		0x0320f809, /* 0x400004 jalr $ra, $t9 */
		0x03200009, /* 0x400008 jalr $zero, $t9: no link, not a call */
		0x0320fc09, /* 0x40000c jalr.hb-style hint bits: still a call */
		0x0800000f, /* 0x400010 j 0x3c: a jump (only with TAIL) */
		0x04110003, /* 0x400014 bal: gprof ignores it */
		0x74100010, /* 0x400018 jalx: ignored too */
		0x0c000000, /* 0x40001c jal 0: the field is taken as it is */
		0x03e0f809, /* 0x400020 jalr $ra, $ra */
		0x0000f808, /* 0x400024 funct 8 (jr) with rd = $ra: not a call */
	};
	uint8_t b[sizeof(w)];
	struct sp_code_section sec;
	struct sp_code c;
	int be;

	for (be = 0; be < 2; be++) {
		put_words(b, w, sizeof(w) / 4, be);
		c = one_section(&sec, b, sizeof(b), 0x400000);
		CU_ASSERT_EQUAL_FATAL(scan_mips(&c, be, 0, 0x400000, 0x400028), 5);
		CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
		CU_ASSERT_EQUAL(ev[0].site, 0x400000);
		CU_ASSERT_EQUAL(ev[0].target, 0x400040);
		CU_ASSERT_EQUAL(ev[1].kind, SP_CG_CALL_INDIRECT);
		CU_ASSERT_EQUAL(ev[1].site, 0x400004);
		CU_ASSERT_EQUAL(ev[2].kind, SP_CG_CALL_INDIRECT);
		CU_ASSERT_EQUAL(ev[2].site, 0x40000c);
		CU_ASSERT_EQUAL(ev[3].kind, SP_CG_CALL_DIRECT);
		CU_ASSERT_EQUAL(ev[3].target, 0);
		CU_ASSERT_EQUAL(ev[4].site, 0x400020);
		/* with TAIL, `j` is a jump to its target */
		CU_ASSERT_EQUAL_FATAL(scan_mips(&c, be, SP_CG_STATIC_TAIL, 0x400000, 0x400028), 6);
		CU_ASSERT_EQUAL(ev[3].kind, SP_CG_JUMP_DIRECT);
		CU_ASSERT_EQUAL(ev[3].target, 0x3c);
		CU_ASSERT(!ev[3].conditional);
		/* the other byte order reads other words: only the swapped `j`
		 * (0x0f000008) is a jal then */
		CU_ASSERT_EQUAL_FATAL(scan_mips(&c, !be, 0, 0x400000, 0x400028), 1);
		CU_ASSERT_EQUAL(ev[0].site, 0x400010);
		CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	}
}

/* The target keeps the top four bits of the word's own address. */
static void test_mips_target_region(void)
{
	static const uint32_t w[] = {0x0c000004, 0x0c000004};
	uint8_t b[sizeof(w)];
	struct sp_code_section sec;
	struct sp_code c;

	put_words(b, w, 2, 1);
	c = one_section(&sec, b, sizeof(b), 0x1ffffffc);
	CU_ASSERT_EQUAL_FATAL(scan_mips(&c, 1, 0, 0x1ffffffc, 0x20000004), 2);
	CU_ASSERT_EQUAL(ev[0].target, 0x10000010);
	CU_ASSERT_EQUAL(ev[1].target, 0x20000010);
	/* 64-bit and sign-extended addresses keep their upper bits too */
	c = one_section(&sec, b, sizeof(b), 0x12ffffffc);
	CU_ASSERT_EQUAL_FATAL(scan_mips(&c, 1, 0, 0x12ffffffc, 0x130000004), 2);
	CU_ASSERT_EQUAL(ev[0].target, 0x120000010);
	CU_ASSERT_EQUAL(ev[1].target, 0x130000010);
	c = one_section(&sec, b, sizeof(b), 0xffffffff8ffffffc);
	CU_ASSERT_EQUAL_FATAL(scan_mips(&c, 1, 0, 0xffffffff8ffffffc, 0xffffffff90000004), 2);
	CU_ASSERT_EQUAL(ev[0].target, 0xffffffff80000010);
	CU_ASSERT_EQUAL(ev[1].target, 0xffffffff90000010);
}

/* Whole words of .text only, stepping 4 from the first address however
 * it is aligned; nothing from other sections. */
static void test_mips_text_only(void)
{
	static const uint32_t tw[] = {0x0320f809, 0x0320f809};
	static const uint32_t sw[] = {0x0320f809, 0x0320f809};
	uint8_t tb[8], sb[8];
	struct sp_code_section secs[2];
	struct sp_code c;

	put_words(tb, tw, 2, 1);
	put_words(sb, sw, 2, 1);
	memset(secs, 0, sizeof(secs));
	secs[0].name = ".text";
	secs[0].vma = 0x1000;
	secs[0].size = 7; /* the second word is cut */
	secs[0].bytes = tb;
	secs[1].name = ".MIPS.stubs";
	secs[1].vma = 0x1010;
	secs[1].size = sizeof(sb);
	secs[1].bytes = sb;
	memset(&c, 0, sizeof(c));
	c.sections = secs;
	c.nsections = 2;
	CU_ASSERT_EQUAL(scan_mips(&c, 1, 0, 0x1000, 0x1018), 1);
	CU_ASSERT_EQUAL(scan_mips(&c, 1, 0, 0x1010, 0x1018), 0);
	/* from before .text: the words in step with lo */
	CU_ASSERT_EQUAL(scan_mips(&c, 1, 0, 0xff8, 0x1008), 1);
	CU_ASSERT_EQUAL(scan_mips(&c, 1, 0, 0xffa, 0x1008), 0);
	/* from an odd address: words straddling two instructions */
	secs[0].size = 8;
	CU_ASSERT_EQUAL(scan_mips(&c, 1, 0, 0x1001, 0x1008), 0);
	CU_ASSERT_EQUAL(scan_mips(&c, 1, 0, 0x1000, 0x1001), 1);
}

/*
 * The hook: jal arcs only to a symbol's entry inside the histogram (by the
 * target's low 32 bits, unless SP_CG_STATIC_WIDE), jalr arcs to the
 * pseudo node, the scanned range clipped to the histogram.
 *   base + 0x00 f: jal g; jalr $ra, $t9; jal g + 4
 *   base + 0x10 g: jalr $ra, $t9
 *   base + 0x20 h: (outside the histograms) jalr $ra, $t9
 *   base + 0x28 k: (in the second histogram, but the last symbol, which
 *                  gprof does not scan) jalr $ra, $t9
 */
static struct sp_cg *mips_graph(uint64_t base, unsigned flags, int ptr_size)
{
	uint32_t w[11] = {0x0c000004 | (uint32_t)((base & 0xfffffff) >> 2),
			  0x0320f809,
			  0x0c000005 | (uint32_t)((base & 0xfffffff) >> 2),
			  0,
			  0x0320f809,
			  0,
			  0,
			  0,
			  0x0320f809,
			  0,
			  0x0320f809};
	static const unsigned at[] = {0, 0x10, 0x20, 0x28};
	static uint8_t b[44];
	static struct sp_code_section sec;
	static struct sp_code c;
	const char *names[] = {"f", "g", "h", "k"};
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	struct sp_symtab *t = sp_symtab_new();
	struct sp_symspecs *specs = sp_symspecs_new();
	struct sp_cg_static *s;
	struct sp_cg_gmon_opts o;
	struct sp_cg *cg;
	int i;

	put_words(b, w, 11, 0);
	c = one_section(&sec, b, sizeof(b), base);
	for (i = 0; i < 4; i++) {
		struct sp_symbol *sym = sp_symtab_add(t);

		sym->name = sp_strtab_intern(&t->strs, names[i]);
		sym->addr = base + at[i];
		sym->is_func = 1;
	}
	t->text_end = base + 0x2b;
	sp_symtab_finalize(t);
	sp_symspecs_resolve(specs, t, NULL);
	sp_profile_findnew_hist(p, base, base + 0x20, 16);
	sp_profile_findnew_hist(p, base + 0x28, base + 0x30, 4);
	sp_profile_add_pcarc(p, base + 4, base + 0x10, 2);
	s = new_scanner(&c, EM_MIPS, 0, ptr_size, flags);
	sp_cg_static_set_hist(s, p);
	memset(&o, 0, sizeof(o));
	o.specs = specs;
	o.hz = 100;
	o.have_arcs = 1;
	o.find_calls = sp_cg_static_find_calls;
	o.find_calls_ctx = s;
	cg = sp_cg_from_gmon(p, t, &o, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cg);
	sp_cg_static_free(s);
	sp_symspecs_free(specs);
	sp_profile_free(p);
	/* the graph keeps pointing at t: freed by mips_graph_free() */
	return cg;
}

static void mips_graph_free(struct sp_cg *cg)
{
	struct sp_symtab *t = (struct sp_symtab *)cg->symtab;

	sp_cg_free(cg);
	sp_symtab_free(t);
}

static void test_mips_hook(void)
{
	static const uint64_t bases[] = {0x400000, 0xffffffff80400000, 0x120000000};
	size_t k;

	for (k = 0; k < 3; k++) {
		int low = bases[k] < 0x80000000;
		unsigned wide;

		for (wide = 0; wide < 2; wide++) {
			struct sp_cg *cg = mips_graph(bases[k], wide ? SP_CG_STATIC_WIDE : 0,
						      bases[k] == 0x120000000 ? 8 : 4);
			uint32_t ps = (uint32_t)cg->nnodes, a;

			CU_ASSERT_EQUAL_FATAL(cg->npseudo, 1);
			CU_ASSERT_STRING_EQUAL(cg->nodes[ps].sym->name, SP_CG_INDIRECT_CHILD);
			CU_ASSERT(cg->nodes[ps].pseudo);
			/* f and g call through a register; h and k are not scanned */
			CU_ASSERT_NOT_EQUAL(sp_cg_arc_find(cg, 0, ps), SP_CG_NONE);
			CU_ASSERT_NOT_EQUAL(sp_cg_arc_find(cg, 1, ps), SP_CG_NONE);
			CU_ASSERT_EQUAL(sp_cg_arc_find(cg, 2, ps), SP_CG_NONE);
			CU_ASSERT_EQUAL(sp_cg_arc_find(cg, 3, ps), SP_CG_NONE);
			a = sp_cg_arc_find(cg, 0, ps);
			CU_ASSERT_EQUAL(cg->arcs[a].count, 0);
			CU_ASSERT(cg->arcs[a].flags & SP_CG_ARC_STATIC);
			/* f -> g: the gmon arc; static only where the target passes */
			a = sp_cg_arc_find(cg, 0, 1);
			CU_ASSERT_NOT_EQUAL_FATAL(a, SP_CG_NONE);
			CU_ASSERT_EQUAL(cg->arcs[a].count, 2);
			CU_ASSERT_EQUAL(!!(cg->arcs[a].flags & SP_CG_ARC_STATIC), low || wide);
			CU_ASSERT_EQUAL(cg->nodes[0].indirect_calls, 1);
			mips_graph_free(cg);
		}
	}
}

/* 32-bit MIPS code addresses are sign-extended, as the symbol table's */
static void test_mips_code_sign_extended(void)
{
	struct sp_image *im =
		sp_image_open(SP_FIXTURES_DIR "/gmon/bigendian/prog-mips-high", NULL, NULL);
	const struct sp_code *c;
	size_t i;
	int text = 0, high = 1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(im);
	c = sp_image_code(im, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (i = 0; i < c->nsections; i++) {
		if (!strcmp(c->sections[i].name, ".text") &&
		    c->sections[i].vma == 0xffffffff804006b0)
			text = 1;
		if (c->sections[i].vma < 0xffffffff80000000)
			high = 0;
	}
	for (i = 0; i < c->nstarts; i++)
		if (c->starts[i] < 0xffffffff80000000)
			high = 0;
	CU_ASSERT(text);
	CU_ASSERT(high);
	CU_ASSERT(c->nstarts > 0);
	sp_image_free(im);
}

/* ---- x86-64 lengths without capstone (static-x86len.c) ---- */

struct x86_check {
	csh cs;
	cs_insn *in;
	/* the sweep's own rule for what is a branch, without and with jumps */
	struct sp_cg_static rules[2];
	size_t asked, answered, wrong;
};

static void x86_check_open(struct x86_check *k)
{
	memset(k, 0, sizeof(*k));
	CU_ASSERT_EQUAL_FATAL(cs_open(CS_ARCH_X86, CS_MODE_64, &k->cs), CS_ERR_OK);
	k->in = cs_malloc(k->cs);
	k->rules[0].machine = k->rules[1].machine = EM_X86_64;
	k->rules[1].want_jumps = 1;
}

/*
 * Asks sp_cgs_x86_64_skip() about the n bytes at b, and capstone when it
 * answers (or `always`): the same length, and no call (nor jump, if
 * wanted). Returns capstone's length (0: it fails there, or was not
 * asked).
 */
static unsigned x86_check_at(struct x86_check *k, const uint8_t *b, size_t n, int want_jumps,
			     int always)
{
	unsigned len = sp_cgs_x86_64_skip(b, n, want_jumps);
	const uint8_t *p = b;
	size_t left = n;
	uint64_t addr = 0x1000;
	int ok = (len || always) && cs_disasm_iter(k->cs, &p, &left, &addr, k->in);

	k->asked++;
	if (len) {
		k->answered++;
		if (!ok || k->in->size != len || sp_cgs_is_branch(&k->rules[want_jumps], k->in->id))
			k->wrong++;
	}
	return ok ? k->in->size : 0;
}

/* The text of a fixture: each instruction of a linear sweep, then (the
 * first `every` bytes) each byte offset, misaligned garbage included. */
static void x86_check_file(struct x86_check *k, const char *path, size_t every, size_t *swept,
			   size_t *answered)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_image *im = sp_image_open(path, NULL, &err);
	const struct sp_code *c;
	size_t i, off;

	CU_ASSERT_PTR_NOT_NULL_FATAL(im);
	c = sp_image_code(im, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (i = 0; i < c->nsections; i++) {
		const struct sp_code_section *sec = &c->sections[i];
		size_t before;
		unsigned len;

		if (!sec->bytes || strcmp(sec->name, ".text"))
			continue;
		for (off = 0; off < sec->size;) {
			before = k->answered;
			len = x86_check_at(k, sec->bytes + off, sec->size - off, 0, 1);
			(*swept)++;
			*answered += k->answered - before;
			x86_check_at(k, sec->bytes + off, sec->size - off, 1, 0);
			off += len ? len : 1;
		}
		for (off = 0; off < sec->size && off < every; off++)
			x86_check_at(k, sec->bytes + off, sec->size - off, off & 1, 0);
	}
	sp_image_free(im);
}

static void test_x86_lengths_programs(void)
{
	static const char *const files[] = {
		SP_FIXTURES_DIR "/gperf/cxx/cxx",
		SP_FIXTURES_DIR "/igprof/bin/leaky-pie",
		SP_FIXTURES_DIR "/gmon/shapes/giant4k",
	};
	struct x86_check k;
	size_t i, swept = 0, answered = 0;

	x86_check_open(&k);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		x86_check_file(&k, files[i], i < 2 ? 200000 : 0, &swept, &answered);
	CU_ASSERT_EQUAL(k.wrong, 0);
	/* what it is for: most of a program's instructions need no capstone */
	CU_ASSERT(swept > 100000);
	CU_ASSERT(answered * 10 > swept * 8);
	cs_free(k.in, 1);
	cs_close(&k.cs);
}

/* Every opcode of both maps with every ModRM byte, behind prefixes that
 * change what capstone decodes (mandatory prefixes, operand size, REX.W,
 * prefixes in the wrong place), whole or cut short. */
static void test_x86_lengths_encodings(void)
{
	static const uint8_t prefixes[][3] = {
		{0},
		{1, 0x66},
		{1, 0xf3},
		{1, 0xf2},
		{2, 0x66, 0x2e},
		{2, 0x2e, 0x66},
		{2, 0xf3, 0x66},
		{2, 0xf2, 0xf3},
		{1, 0x67},
		{2, 0x66, 0x66},
	};
	static const int rexes[] = {-1, 0x48, 0x41};
	static const uint8_t tail[] = {0x25, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde};
	struct x86_check k;
	size_t pi, ri, cut;
	unsigned two, op, m;

	x86_check_open(&k);
	for (pi = 0; pi < sizeof(prefixes) / sizeof(prefixes[0]); pi++)
		for (ri = 0; ri < sizeof(rexes) / sizeof(rexes[0]); ri++)
			for (two = 0; two < 2; two++)
				for (op = 0; op < 256; op++)
					for (m = 0; m < 256; m++) {
						uint8_t b[24];
						size_t n = prefixes[pi][0];

						memcpy(b, prefixes[pi] + 1, n);
						if (rexes[ri] >= 0)
							b[n++] = (uint8_t)rexes[ri];
						if (two)
							b[n++] = 0x0f;
						b[n++] = (uint8_t)op;
						b[n++] = (uint8_t)m;
						memcpy(b + n, tail, sizeof(tail));
						n += sizeof(tail);
						cut = (op + m) % 7 ? n : n - (op + m) % 5 - 3;
						x86_check_at(&k, b, cut, (int)(m & 1), 0);
					}
	CU_ASSERT_EQUAL(k.wrong, 0);
	CU_ASSERT(k.answered * 4 > k.asked);
	cs_free(k.in, 1);
	cs_close(&k.cs);
}

static void test_unsupported(void)
{
	struct sp_code c;
	struct sp_target t;
	struct sp_error err = SP_ERROR_INIT;

	memset(&c, 0, sizeof(c));
	memset(&t, 0, sizeof(t));
	t.machine = EM_RISCV;
	CU_ASSERT_PTR_NULL(sp_cg_static_new(&c, &t, 0, NULL, &err));
	CU_ASSERT_EQUAL(err.code, SP_E_UNSUPPORTED);
	CU_ASSERT_STRING_EQUAL(err.msg, "-c not supported on architecture riscv");
}

int sp_test_register_static(void)
{
	CU_pSuite s = CU_add_suite("static", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "x86-64 backward call", test_x86_backward_call) ||
	    !CU_add_test(s, "x86-64 PLT call", test_x86_plt_call) ||
	    !CU_add_test(s, "x86-64 tail jumps, indirect calls", test_x86_tail_and_indirect) ||
	    !CU_add_test(s, "x86-64 resync, bad bytes", test_x86_resync_and_garbage) ||
	    !CU_add_test(s, "x86-64 object relocations", test_x86_object_relocs) ||
	    !CU_add_test(s, "i386 calls and PLT", test_i386) ||
	    !CU_add_test(s, "AArch64 branches, $d", test_aarch64) ||
	    !CU_add_test(s, "AArch64 PLT", test_aarch64_plt) ||
	    !CU_add_test(s, "ARM and Thumb", test_arm_thumb) ||
	    !CU_add_test(s, "PowerPC", test_ppc) ||
	    !CU_add_test(s, "MIPS words", test_mips_words) ||
	    !CU_add_test(s, "MIPS jal target region", test_mips_target_region) ||
	    !CU_add_test(s, "MIPS .text words only", test_mips_text_only) ||
	    !CU_add_test(s, "MIPS arcs, histogram, <indirect child>", test_mips_hook) ||
	    !CU_add_test(s, "MIPS code addresses sign-extend", test_mips_code_sign_extended) ||
	    !CU_add_test(s, "x86-64 lengths: programs", test_x86_lengths_programs) ||
	    !CU_add_test(s, "x86-64 lengths: every encoding", test_x86_lengths_encodings) ||
	    !CU_add_test(s, "unsupported machine", test_unsupported))
		return -1;
	return 0;
}
