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

#include "suites.h"
#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/symbolize.h"

#define MAXEV 16

static struct sp_cg_call ev[MAXEV];
static int nev;

static void collect(void *ctx, const struct sp_cg_call *c)
{
	(void)ctx;
	if (nev < MAXEV)
		ev[nev++] = *c;
}

/* Scans [lo, hi) of `code` for `machine`; returns the number of events. */
static int scan(const struct sp_code *code, int machine, unsigned flags, uint64_t lo,
		uint64_t hi)
{
	struct sp_target t;
	struct sp_error err = SP_ERROR_INIT;
	struct sp_cg_static *s;

	memset(&t, 0, sizeof(t));
	t.machine = machine;
	t.ptr_size = machine == EM_386 || machine == EM_ARM || machine == EM_PPC ? 4 : 8;
	t.big_endian = machine == EM_PPC;
	t.is_elf = 1;
	s = sp_cg_static_new(code, &t, flags, NULL, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	nev = 0;
	memset(ev, 0, sizeof(ev));
	sp_cg_static_scan(s, lo, hi, collect, NULL);
	sp_cg_static_free(s);
	return nev;
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
	static const uint8_t plt[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25, 0xed, 0x0f,
				      0x00, 0x00, 0x0f, 0x1f, 0x44, 0x00, 0x00};
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
		0xff, 0xd0,                               /* 0x1000 call *%rax */
		0xff, 0x15, 0x00, 0x10, 0x00, 0x00,       /* 0x1002 call *0x1000(%rip) = [0x2008] */
		0xff, 0x15, 0x08, 0x10, 0x00, 0x00,       /* 0x1008 call *0x1008(%rip) = [0x2016] */
		0x74, 0x04,                               /* 0x100e je 0x1014 */
		0xe9, 0xeb, 0xef, 0xff, 0xff,             /* 0x1010 jmp 0x0 */
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
	static const uint8_t b[] = {0xb8, 0xe8, 0xfa, 0xff, 0xff, 0xff, 0x06,
				    0xe8, 0xf4, 0xff, 0xff, 0xff};
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
	static const uint8_t b[] = {0xe8, 0x00, 0x00, 0x00, 0x00, 0xe8, 0x00, 0x00,
				    0x00, 0x00, 0xc3};
	struct sp_code_reloc r[2] = {{0x1001, 0x1040, "helper", 1, 0},
				     {0x1006, 0, "exit", 0, 0}};
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
	static const uint8_t plt[] = {0xff, 0x25, 0x0c, 0xc0, 0x04, 0x08, 0x68, 0, 0, 0, 0,
				      0xe9, 0, 0, 0, 0, 0xff, 0xa3, 0x10, 0, 0, 0};
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
		0x00, 0xb1,             /* 0x2008 Thumb: cbz r0, 0x200c */
		0x00, 0xbf,             /* 0x200a nop */
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
	static const uint8_t b[] = {0x4b, 0xff, 0xff, 0xfd, 0x4e, 0x80, 0x04, 0x21,
				    0x48, 0x00, 0x00, 0x08};
	struct sp_code_section sec;
	struct sp_code c = one_section(&sec, b, sizeof(b), 0x3000);

	CU_ASSERT_EQUAL_FATAL(scan(&c, EM_PPC, SP_CG_STATIC_TAIL, 0x3000, 0x300c), 3);
	CU_ASSERT_EQUAL(ev[0].kind, SP_CG_CALL_DIRECT);
	CU_ASSERT_EQUAL(ev[0].target, 0x2ffc);
	CU_ASSERT_EQUAL(ev[1].kind, SP_CG_CALL_INDIRECT);
	CU_ASSERT_EQUAL(ev[2].kind, SP_CG_JUMP_DIRECT);
	CU_ASSERT_EQUAL(ev[2].target, 0x3010);
}

/* 32-bit MIPS code addresses are sign-extended, as the symbol table's */
static void test_mips_code_sign_extended(void)
{
	struct sp_image *im = sp_image_open(SP_FIXTURES_DIR "/gmon/bigendian/prog-mips-high", NULL);
	const struct sp_code *c;
	size_t i;
	int text = 0, high = 1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(im);
	c = sp_image_code(im, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (i = 0; i < c->nsections; i++) {
		if (!strcmp(c->sections[i].name, ".text") && c->sections[i].vma == 0xffffffff804006b0)
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
	    !CU_add_test(s, "MIPS code addresses sign-extend", test_mips_code_sign_extended) ||
	    !CU_add_test(s, "unsupported machine", test_unsupported))
		return -1;
	return 0;
}
