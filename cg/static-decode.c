/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Branch instructions and PLT stubs, per architecture, for the static call
 * graph (cg/static.c). Capstone gives direct branch targets as absolute
 * addresses on every architecture used here; what differs is where the
 * operand is and what counts as a call:
 *
 *   x86      call rel32 / call r/m; jmp and jcc rel; jmp/call [rip+d] or
 *            [abs] through a GOT slot. A PLT stub is [endbr] [bnd] jmp
 *            [rip+d] (x86-64), jmp [abs] or jmp [ebx+d] (i386, ebx = GOT).
 *   AArch64  bl / blr; b, b.cond, cbz/cbnz, tbz/tbnz. A PLT stub is
 *            [bti] adrp x16, PAGE; ldr x17, [x16, #off]; ...; br x17.
 *   ARM      bl / blx imm / blx reg; b, cbz/cbnz (Thumb). A PLT stub is
 *            add ip, pc, #a; add ip, ip, #b; ...; ldr pc, [ip, #c]!
 *            (immediates given as value and rotation).
 *   PowerPC  bl / bctrl; b. (Its calls to other objects go through
 *            linker stubs in .text, not a PLT section: not resolved.)
 *
 * In an object file the relocation of a branch, when there is one, says
 * where it goes; its bytes do not.
 */
#include "static-internal.h"

#include <elf.h>
#include <string.h>

/* ---- which instructions ---- */

static int x86_is_jcc(unsigned id)
{
	switch (id) {
	case X86_INS_JAE:
	case X86_INS_JA:
	case X86_INS_JBE:
	case X86_INS_JB:
	case X86_INS_JCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JRCXZ:
	case X86_INS_JE:
	case X86_INS_JGE:
	case X86_INS_JG:
	case X86_INS_JLE:
	case X86_INS_JL:
	case X86_INS_JNE:
	case X86_INS_JNO:
	case X86_INS_JNP:
	case X86_INS_JNS:
	case X86_INS_JO:
	case X86_INS_JP:
	case X86_INS_JS:
		return 1;
	default:
		return 0;
	}
}

int sp_cgs_is_branch(const struct sp_cg_static *s, unsigned id)
{
	switch (s->machine) {
	case EM_X86_64:
	case EM_386:
		return id == X86_INS_CALL ||
		       (s->want_jumps && (id == X86_INS_JMP || x86_is_jcc(id)));
	case EM_AARCH64:
		return id == ARM64_INS_BL || id == ARM64_INS_BLR ||
		       (s->want_jumps &&
			(id == ARM64_INS_B || id == ARM64_INS_CBZ || id == ARM64_INS_CBNZ ||
			 id == ARM64_INS_TBZ || id == ARM64_INS_TBNZ));
	case EM_ARM:
		return id == ARM_INS_BL || id == ARM_INS_BLX ||
		       (s->want_jumps &&
			(id == ARM_INS_B || id == ARM_INS_CBZ || id == ARM_INS_CBNZ));
	case EM_PPC:
	case EM_PPC64:
		return id == PPC_INS_BL || id == PPC_INS_BCTRL ||
		       (s->want_jumps && id == PPC_INS_B);
	default:
		return 0;
	}
}

/* ---- PLT stubs: the GOT slot they jump through ---- */

static int decode_at(struct cs_pair *p, const struct sp_code_section *sec, uint64_t addr)
{
	const uint8_t *b;
	size_t n;

	if (!sec || !sec->bytes || addr < sec->vma || addr - sec->vma >= sec->size)
		return 0;
	b = sec->bytes + (addr - sec->vma);
	n = (size_t)(sec->size - (addr - sec->vma));
	return cs_disasm_iter(p->full, &b, &n, &addr, p->di);
}

static int x86_stub_slot(const struct sp_cg_static *s, struct cs_pair *p,
			 const struct sp_code_section *sec, uint64_t addr, uint64_t *slot)
{
	int k;

	for (k = 0; k < 3 && decode_at(p, sec, addr); k++) {
		const cs_insn *in = p->di;
		const cs_x86_op *op = &in->detail->x86.operands[0];

		if (in->id == X86_INS_ENDBR64 || in->id == X86_INS_ENDBR32 ||
		    in->id == X86_INS_NOP) {
			addr += in->size;
			continue;
		}
		if (in->id != X86_INS_JMP || in->detail->x86.op_count != 1 ||
		    op->type != X86_OP_MEM || op->mem.index != X86_REG_INVALID)
			return 0;
		if (op->mem.base == X86_REG_RIP)
			*slot = in->address + in->size + (uint64_t)op->mem.disp;
		else if (op->mem.base == X86_REG_INVALID)
			*slot = (uint64_t)op->mem.disp & 0xffffffffu;
		else if (op->mem.base == X86_REG_EBX && s->machine == EM_386 && s->code->got)
			*slot = (s->code->got + (uint64_t)op->mem.disp) & 0xffffffffu;
		else
			return 0;
		return 1;
	}
	return 0;
}

static int arm64_stub_slot(struct cs_pair *p, const struct sp_code_section *sec, uint64_t addr,
			   uint64_t *slot)
{
	uint64_t page = 0;
	unsigned reg = ARM64_REG_INVALID;
	int k;

	for (k = 0; k < 4 && decode_at(p, sec, addr); k++, addr += 4) {
		const cs_insn *in = p->di;
		const cs_arm64 *d = &in->detail->arm64;

		if (in->id == ARM64_INS_HINT || in->id == ARM64_INS_NOP)
			continue;
		if (in->id == ARM64_INS_ADRP && d->op_count == 2 &&
		    d->operands[1].type == ARM64_OP_IMM) {
			reg = d->operands[0].reg;
			page = (uint64_t)d->operands[1].imm;
			continue;
		}
		if (in->id == ARM64_INS_LDR && reg != ARM64_REG_INVALID && d->op_count == 2 &&
		    d->operands[1].type == ARM64_OP_MEM && d->operands[1].mem.base == reg) {
			*slot = page + (uint64_t)(int64_t)d->operands[1].mem.disp;
			return 1;
		}
		return 0;
	}
	return 0;
}

/* An ARM immediate operand pair (value, rotation) or a single value. */
static uint32_t arm_imm(const cs_arm *d, int first)
{
	uint32_t v = (uint32_t)d->operands[first].imm;

	if (first + 1 < d->op_count && d->operands[first + 1].type == ARM_OP_IMM) {
		unsigned r = (unsigned)d->operands[first + 1].imm & 31;

		v = r ? (v >> r) | (v << (32 - r)) : v;
	}
	return v;
}

static int arm_stub_slot(struct cs_pair *p, const struct sp_code_section *sec, uint64_t addr,
			 uint64_t *slot)
{
	uint32_t ip = 0;
	int k, have_ip = 0;

	for (k = 0; k < 4 && decode_at(p, sec, addr); k++, addr += 4) {
		const cs_insn *in = p->di;
		const cs_arm *d = &in->detail->arm;

		if (in->id == ARM_INS_ADD && d->op_count >= 3 && d->operands[0].reg == ARM_REG_IP &&
		    d->operands[2].type == ARM_OP_IMM) {
			if (d->operands[1].reg == ARM_REG_PC)
				ip = (uint32_t)addr + 8;
			else if (d->operands[1].reg != ARM_REG_IP || !have_ip)
				return 0;
			ip += arm_imm(d, 2);
			have_ip = 1;
			continue;
		}
		if (in->id == ARM_INS_LDR && have_ip && d->op_count == 2 &&
		    d->operands[0].reg == ARM_REG_PC && d->operands[1].type == ARM_OP_MEM &&
		    d->operands[1].mem.base == ARM_REG_IP) {
			*slot = (uint32_t)(ip + (uint32_t)d->operands[1].mem.disp);
			return 1;
		}
		return 0;
	}
	return 0;
}

/* The imported name a PLT stub at `addr` jumps to, or NULL. */
static const char *stub_name(struct sp_cg_static *s, const struct sp_code_section *sec,
			     uint64_t addr)
{
	uint64_t slot;
	int ok;

	switch (s->machine) {
	case EM_X86_64:
	case EM_386:
		ok = x86_stub_slot(s, &s->cs[0], sec, addr, &slot);
		break;
	case EM_AARCH64:
		ok = arm64_stub_slot(&s->cs[0], sec, addr, &slot);
		break;
	case EM_ARM:
		ok = arm_stub_slot(&s->cs[0], sec, addr & ~(uint64_t)1, &slot);
		break;
	default:
		ok = 0;
	}
	return ok ? sp_cgs_slot_name(s->code, slot) : NULL;
}

/* ---- branches ---- */

/* A call or jump through memory: a GOT slot (an import) or not. */
static void via_memory(const struct sp_cg_static *s, struct sp_cg_call *c, int call, uint64_t slot)
{
	const char *name = sp_cgs_slot_name(s->code, slot);

	if (name) {
		c->kind = call ? SP_CG_CALL_IMPORT : SP_CG_JUMP_IMPORT;
		c->name = name;
	} else {
		c->kind = call ? SP_CG_CALL_INDIRECT : -1;
	}
}

/* Sets *mem for a branch through [rip+d] or [abs]; c->kind stays -1 for
 * such a jump that goes through no known GOT slot. */
static int x86_branch(const struct sp_cg_static *s, const cs_insn *in, struct sp_cg_call *c,
		      int *mem)
{
	const cs_x86 *d = &in->detail->x86;
	const cs_x86_op *op = &d->operands[0];
	int call = in->id == X86_INS_CALL;
	uint64_t mask = s->ptr_size == 4 ? 0xffffffffu : UINT64_MAX;

	if (d->op_count != 1)
		return 0;
	c->conditional = in->id != X86_INS_JMP && !call;
	if (op->type == X86_OP_IMM) {
		c->kind = call ? SP_CG_CALL_DIRECT : SP_CG_JUMP_DIRECT;
		c->target = (uint64_t)op->imm & mask;
	} else if (op->type == X86_OP_MEM && op->mem.index == X86_REG_INVALID &&
		   op->mem.segment == X86_REG_INVALID && op->mem.base == X86_REG_RIP) {
		via_memory(s, c, call, in->address + in->size + (uint64_t)op->mem.disp);
		*mem = 1;
	} else if (op->type == X86_OP_MEM && op->mem.index == X86_REG_INVALID &&
		   op->mem.segment == X86_REG_INVALID && op->mem.base == X86_REG_INVALID) {
		via_memory(s, c, call, (uint64_t)op->mem.disp & mask);
		*mem = 1;
	} else {
		c->kind = call ? SP_CG_CALL_INDIRECT : -1;
	}
	return c->kind >= 0 || *mem;
}

static int arm64_branch(const cs_insn *in, struct sp_cg_call *c)
{
	const cs_arm64 *d = &in->detail->arm64;
	const cs_arm64_op *last;

	if (in->id == ARM64_INS_BLR) {
		c->kind = SP_CG_CALL_INDIRECT;
		return 1;
	}
	if (d->op_count < 1)
		return 0;
	last = &d->operands[d->op_count - 1];
	if (last->type != ARM64_OP_IMM)
		return 0;
	c->target = (uint64_t)last->imm;
	c->kind = in->id == ARM64_INS_BL ? SP_CG_CALL_DIRECT : SP_CG_JUMP_DIRECT;
	c->conditional =
		in->id != ARM64_INS_BL &&
		(in->id != ARM64_INS_B || (d->cc != ARM64_CC_INVALID && d->cc != ARM64_CC_AL));
	return 1;
}

static int arm_branch(const cs_insn *in, struct sp_cg_call *c)
{
	const cs_arm *d = &in->detail->arm;
	const cs_arm_op *last;
	int call = in->id == ARM_INS_BL || in->id == ARM_INS_BLX;

	if (d->op_count < 1)
		return 0;
	last = &d->operands[d->op_count - 1];
	if (last->type != ARM_OP_IMM) {
		c->kind = call ? SP_CG_CALL_INDIRECT : -1;
		return c->kind >= 0;
	}
	c->target = (uint32_t)last->imm;
	c->kind = call ? SP_CG_CALL_DIRECT : SP_CG_JUMP_DIRECT;
	c->conditional =
		!call && (in->id != ARM_INS_B || (d->cc != ARM_CC_INVALID && d->cc != ARM_CC_AL));
	return 1;
}

static int ppc_branch(const cs_insn *in, struct sp_cg_call *c)
{
	const cs_ppc *d = &in->detail->ppc;

	if (in->id == PPC_INS_BCTRL) {
		c->kind = SP_CG_CALL_INDIRECT;
		return 1;
	}
	if (d->op_count != 1 || d->operands[0].type != PPC_OP_IMM)
		return 0;
	c->target = (uint64_t)d->operands[0].imm;
	c->kind = in->id == PPC_INS_BL ? SP_CG_CALL_DIRECT : SP_CG_JUMP_DIRECT;
	return 1;
}

static int classify(const struct sp_cg_static *s, const cs_insn *in, struct sp_cg_call *c, int *mem)
{
	switch (s->machine) {
	case EM_X86_64:
	case EM_386:
		return x86_branch(s, in, c, mem);
	case EM_AARCH64:
		return arm64_branch(in, c);
	case EM_ARM:
		return arm_branch(in, c);
	case EM_PPC:
	case EM_PPC64:
		return ppc_branch(in, c);
	default:
		return 0;
	}
}

/*
 * Object files: the relocation of the branch, if any, says where it goes:
 * a PC-relative one for a direct branch, a GOT one (x86 GOTPCREL, what
 * -fno-plt and -pg's mcount calls use) for a branch through memory.
 */
static void apply_reloc(const struct sp_cg_static *s, const cs_insn *in, struct sp_cg_call *c,
			int via_memory)
{
	const struct sp_code_reloc *r;
	int call;

	r = sp_cgs_reloc_in(s->code, in->address, in->address + in->size);
	if (!r || r->got != via_memory)
		return;
	call = c->kind == SP_CG_CALL_DIRECT || c->kind == SP_CG_CALL_IMPORT ||
	       c->kind == SP_CG_CALL_INDIRECT;
	if (r->resolved) {
		c->kind = call ? SP_CG_CALL_DIRECT : SP_CG_JUMP_DIRECT;
		c->target = r->target;
	} else {
		c->kind = call ? SP_CG_CALL_IMPORT : SP_CG_JUMP_IMPORT;
		c->name = r->name;
	}
}

/*
 * x86 relative branches without prefixes (call/jmp rel32, jmp rel8, jcc
 * rel8/rel32), most of them, need no second decoding: the target is the
 * end of the instruction plus its last 1 or 4 bytes, signed.
 */
static int x86_plain_branch(const struct sp_cg_static *s, const cs_insn *in, struct sp_cg_call *c)
{
	const uint8_t *b = in->bytes;
	int64_t rel;

	if ((in->size == 5 && (b[0] == 0xe8 || b[0] == 0xe9)) ||
	    (in->size == 6 && b[0] == 0x0f && (b[1] & 0xf0) == 0x80))
		rel = (int32_t)((uint32_t)b[in->size - 4] | (uint32_t)b[in->size - 3] << 8 |
				(uint32_t)b[in->size - 2] << 16 | (uint32_t)b[in->size - 1] << 24);
	else if (in->size == 2 && (b[0] == 0xeb || (b[0] & 0xf0) == 0x70))
		rel = (int8_t)b[1];
	else
		return 0;
	c->kind = b[0] == 0xe8 ? SP_CG_CALL_DIRECT : SP_CG_JUMP_DIRECT;
	c->conditional = b[0] == 0x0f || (b[0] & 0xf0) == 0x70;
	c->target = in->address + in->size + (uint64_t)rel;
	if (s->ptr_size == 4)
		c->target &= 0xffffffffu;
	return 1;
}

void sp_cgs_decode_branch(struct sweep *w, struct cs_pair *p, const uint8_t *at, size_t left,
			  uint64_t addr)
{
	struct sp_cg_static *s = w->s;
	struct sp_cg_call c;
	const struct sp_code_section *sec;
	const cs_insn *in = p->fi;
	int mem = 0;

	memset(&c, 0, sizeof(c));
	if ((s->machine != EM_X86_64 && s->machine != EM_386) || !x86_plain_branch(s, in, &c)) {
		if (!cs_disasm_iter(p->full, &at, &left, &addr, p->di))
			return;
		in = p->di;
		if (!classify(s, in, &c, &mem))
			return;
	}
	c.site = in->address;
	if (s->code->nrelocs)
		apply_reloc(s, in, &c, mem);
	if (c.kind < 0)
		return;
	if ((c.kind == SP_CG_CALL_DIRECT || c.kind == SP_CG_JUMP_DIRECT) &&
	    (sec = sp_cgs_section_of(s->code, c.target)) && sec->is_plt) {
		const char *name = stub_name(s, sec, c.target);

		if (name) {
			c.kind =
				c.kind == SP_CG_CALL_DIRECT ? SP_CG_CALL_IMPORT : SP_CG_JUMP_IMPORT;
			c.name = name;
		}
	}
	w->fn(w->ctx, &c);
}
