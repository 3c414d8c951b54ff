/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The static call graph (-c): arcs found by decoding the machine code.
 *
 * gprof 2.40 (i386.c) looks for the byte 0xE8 at every address of a
 * function and reads the next four bytes as an *unsigned* displacement, so
 * on x86-64 it misses every backward call; it also misses calls through
 * the PLT and tail calls, and can take a 0xE8 inside another instruction
 * for a call (gprof.md 4.6). On AArch64 it takes every B or BL word whose
 * target is a function entry. symprof decodes instructions with capstone
 * instead:
 *
 *   for each symbol of the table (the hook runs where gprof calls
 *   find_call), the bytes [addr, next symbol) are decoded linearly, in
 *   the code section that holds addr and in the later ones the range
 *   reaches (gprof's range ignores sections; import stubs are skipped),
 *   restarting at every symbol the file has (gprof's table drops some)
 *   and, on ARM/AArch64, following the mapping symbols ($a $t $x,
 *   skipping $d literal pools);
 *
 *   a call whose target is the entry of a symbol of the table is an arc
 *   of count 0; a call into a PLT stub is resolved by decoding the stub
 *   down to the GOT slot it jumps through, whose dynamic relocation names
 *   the imported function (as is a call through a GOT slot, -fno-plt);
 *   that name is an arc when the table has a global function of that
 *   name (a shared library calling its own exported functions). In an
 *   object file, the relocation of the call gives its target;
 *
 *   with --precise, a jump (conditional or not) to another function's
 *   entry is a tail call and becomes an arc marked SP_CG_ARC_TAIL; calls
 *   through registers or memory are counted per function.
 *
 * MIPS is the exception (static-mips.c): there gprof's word rule is kept
 * exactly, its `jalr` arcs going to the pseudo node "<indirect child>",
 * its scan clipped to the histogram and its targets checked against it.
 *
 * Speed: one pass over the bytes. On x86-64 most instructions are only
 * measured (static-x86len.c: the common encodings that are not calls, 85%
 * of a compiled program's); every other instruction is decoded once by a
 * capstone handle without operand details (capstone's fastest mode, which
 * still formats each instruction's text); only branches are decoded a
 * second time, by a second handle with details (x86 relative branches
 * without prefixes not even that: their target is in their bytes).
 * Both use one cs_insn allocated up front (cs_disasm_iter), so nothing is
 * allocated per instruction.
 */
#include "symprof/cg.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"
#include "internal.h"
#include "static-internal.h"

/* ---- capstone handles ---- */

static int pair_open(struct cs_pair *p, cs_arch arch, cs_mode mode)
{
	if (cs_open(arch, mode, &p->fast) != CS_ERR_OK)
		return -1;
	if (cs_open(arch, mode, &p->full) != CS_ERR_OK) {
		cs_close(&p->fast);
		return -1;
	}
	cs_option(p->full, CS_OPT_DETAIL, CS_OPT_ON);
	p->fi = cs_malloc(p->fast);
	p->di = cs_malloc(p->full);
	if (!p->fi || !p->di)
		sp_oom(sizeof(cs_insn));
	p->open = 1;
	return 0;
}

static void pair_close(struct cs_pair *p)
{
	if (!p->open)
		return;
	cs_free(p->fi, 1);
	cs_free(p->di, 1);
	cs_close(&p->fast);
	cs_close(&p->full);
	p->open = 0;
}

static const char *machine_name(int m)
{
	switch (m) {
	case EM_RISCV:
		return "riscv";
	case EM_MIPS:
		return "mips";
	case EM_SPARC:
	case EM_SPARCV9:
		return "sparc";
	case EM_S390:
		return "s390";
	case EM_ALPHA:
		return "alpha";
	case EM_LOONGARCH:
		return "loongarch";
	case 0:
		return "unknown";
	default:
		return NULL;
	}
}

static int open_handles(struct sp_cg_static *s, const struct sp_target *t)
{
	cs_mode endian = t->big_endian ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN;

	switch (t->machine) {
	case EM_X86_64:
		return pair_open(&s->cs[0], CS_ARCH_X86, CS_MODE_64);
	case EM_386:
		return pair_open(&s->cs[0], CS_ARCH_X86, CS_MODE_32);
	case EM_AARCH64:
		return pair_open(&s->cs[0], CS_ARCH_ARM64, CS_MODE_ARM | endian);
	case EM_ARM:
		if (pair_open(&s->cs[0], CS_ARCH_ARM, CS_MODE_ARM | endian) < 0)
			return -1;
		return pair_open(&s->cs[1], CS_ARCH_ARM, CS_MODE_THUMB | endian);
	case EM_PPC64:
		return pair_open(&s->cs[0], CS_ARCH_PPC, CS_MODE_64 | endian);
	case EM_PPC:
		return pair_open(&s->cs[0], CS_ARCH_PPC, CS_MODE_32 | endian);
	case EM_MIPS:
		/* gprof's word rule, no decoder (static-mips.c) */
		s->text = sp_cgs_mips_text(s->code);
		return 0;
	default:
		return -1;
	}
}

struct sp_cg_static *sp_cg_static_new(const struct sp_code *code, const struct sp_target *t,
				      unsigned flags, FILE *debug, struct sp_error *err)
{
	struct sp_cg_static *s = sp_xcalloc(1, sizeof(*s));

	s->code = code;
	s->machine = t->machine;
	s->ptr_size = t->ptr_size;
	s->big_endian = t->big_endian;
	s->flags = flags & (SP_CG_STATIC_TAIL | SP_CG_STATIC_WIDE);
	s->want_jumps = (flags & SP_CG_STATIC_TAIL) || t->machine == EM_AARCH64;
	s->relocatable = t->is_relocatable;
	s->debug = debug;
	if (open_handles(s, t) < 0) {
		const char *name = machine_name(t->machine);
		char num[32];

		if (!name) {
			snprintf(num, sizeof(num), "with ELF machine %d", t->machine);
			name = num;
		}
		sp_cg_static_free(s);
		sp_error_set(err, SP_E_UNSUPPORTED, "-c not supported on architecture %s", name);
		return NULL;
	}
	return s;
}

void sp_cg_static_free(struct sp_cg_static *s)
{
	if (!s)
		return;
	pair_close(&s->cs[0]);
	pair_close(&s->cs[1]);
	free(s->by_name);
	free(s->hist);
	free(s);
}

void sp_cg_static_set_hist(struct sp_cg_static *s, const struct sp_profile *p)
{
	size_t i;

	free(s->hist);
	s->hist = sp_xmalloc((2 * p->nhists + 1) * sizeof(*s->hist));
	for (i = 0; i < p->nhists; i++) {
		s->hist[2 * i] = p->hists[i].low_pc;
		s->hist[2 * i + 1] = p->hists[i].high_pc;
	}
	s->nhist = p->nhists;
}

/* ---- lookups in the code description ---- */

const struct sp_code_section *sp_cgs_section_of(const struct sp_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nsections;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sp_code_section *sec = &c->sections[mid];

		if (addr < sec->vma)
			hi = mid;
		else if (addr - sec->vma >= sec->size)
			lo = mid + 1;
		else
			return sec;
	}
	return NULL;
}

const char *sp_cgs_slot_name(const struct sp_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nslots;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->slots[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nslots && c->slots[lo].addr == addr ? c->slots[lo].name : NULL;
}

/* The first relocation whose place lies in [lo, hi), or NULL. */
const struct sp_code_reloc *sp_cgs_reloc_in(const struct sp_code *c, uint64_t lo, uint64_t hi)
{
	size_t l = 0, h = c->nrelocs;

	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (c->relocs[mid].place < lo)
			l = mid + 1;
		else
			h = mid;
	}
	return l < c->nrelocs && c->relocs[l].place < hi ? &c->relocs[l] : NULL;
}

/* Index of the first element of the sorted `starts` above addr. */
static size_t first_start_above(const struct sp_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nstarts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->starts[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first mark above addr; the mark before it rules addr. */
static size_t first_mark_above(const struct sp_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nmarks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->marks[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- the sweep ---- */

/* Decodes [a, b), all of it in one mode. */
static void sweep_segment(struct sweep *w, uint64_t a, uint64_t b, int mode)
{
	struct sp_cg_static *s = w->s;
	struct cs_pair *p = &s->cs[mode == SP_CODE_THUMB && s->cs[1].open];
	const uint8_t *bytes = w->sec->bytes + (a - w->sec->vma);
	size_t size = (size_t)(b - a);
	uint64_t addr = a;
	unsigned step = s->machine == EM_X86_64 || s->machine == EM_386 ? 1
			: mode == SP_CODE_THUMB				? 2
									: 4;
	int x86_64 = s->machine == EM_X86_64;

	while (size > 0) {
		const uint8_t *at = bytes;
		size_t left = size;
		uint64_t here = addr;
		unsigned len;

		/* most instructions need no capstone: their length is enough */
		if (x86_64 && (len = sp_cgs_x86_64_skip(bytes, size, s->want_jumps))) {
			bytes += len;
			size -= len;
			addr += len;
			continue;
		}
		if (!cs_disasm_iter(p->fast, &bytes, &size, &addr, p->fi)) {
			if (size <= step)
				break;
			bytes += step;
			size -= step;
			addr += step;
			continue;
		}
		if (sp_cgs_is_branch(s, p->fi->id))
			sp_cgs_decode_branch(w, p, at, left, here);
	}
}

static int mode_at(const struct sp_cg_static *s, size_t mark_above)
{
	if (mark_above == 0)
		return s->machine == EM_ARM ? SP_CODE_ARM : SP_CODE_DEFAULT;
	return s->code->marks[mark_above - 1].mode;
}

/* Decodes [lo, hi) of section sec, restarting at every symbol and mark. */
static void scan_section(struct sp_cg_static *s, const struct sp_code_section *sec, uint64_t lo,
			 uint64_t hi, sp_cg_call_fn fn, void *ctx)
{
	const struct sp_code *c = s->code;
	struct sweep w = {s, sec, fn, ctx};
	size_t si, mi;
	uint64_t a;

	if (!sec->bytes || hi <= lo)
		return;
	if (hi - sec->vma > sec->size)
		hi = sec->vma + sec->size;
	si = first_start_above(c, lo);
	mi = first_mark_above(c, lo);
	for (a = lo; a < hi;) {
		uint64_t b = hi;
		int mode = mode_at(s, mi);

		if (si < c->nstarts && c->starts[si] < b)
			b = c->starts[si];
		if (mi < c->nmarks && c->marks[mi].addr < b)
			b = c->marks[mi].addr;
		if (mode != SP_CODE_DATA)
			sweep_segment(&w, a, b, mode);
		a = b;
		while (si < c->nstarts && c->starts[si] <= a)
			si++;
		while (mi < c->nmarks && c->marks[mi].addr <= a)
			mi++;
	}
}

void sp_cg_static_scan(struct sp_cg_static *s, uint64_t lo, uint64_t hi, sp_cg_call_fn fn,
		       void *ctx)
{
	const struct sp_code *c = s->code;
	const struct sp_code_section *sec = sp_cgs_section_of(c, lo);
	size_t k;

	if (s->machine == EM_MIPS) {
		sp_cgs_mips_sweep(s, lo, hi, fn, ctx);
		return;
	}
	if (!sec || hi <= lo)
		return;
	scan_section(s, sec, lo, hi, fn, ctx);
	if (s->relocatable)
		return; /* every section at 0: the symbol's own only */
	/*
	 * gprof's range runs to the next symbol of its table whatever the
	 * section: code at the start of a later section, before its first
	 * symbol of the table (cold parts at the start of .text, after
	 * _init), is the symbol's too. Import stubs are nobody's.
	 */
	for (k = (size_t)(sec - c->sections) + 1; k < c->nsections && c->sections[k].vma < hi; k++)
		if (!c->sections[k].is_plt)
			scan_section(s, &c->sections[k], c->sections[k].vma, hi, fn, ctx);
}

/* ---- the hook: calls become arcs ---- */

struct hook {
	struct sp_cg_static *s;
	struct sp_cg *cg;
	uint32_t node;
};

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct sp_symtab *t = ctx;

	return strcmp(t->syms[*(const uint32_t *)a].name, t->syms[*(const uint32_t *)b].name);
}

/* The global symbol called `name`, or SP_CG_NONE. */
static uint32_t node_by_name(struct sp_cg_static *s, const struct sp_symtab *t, const char *name)
{
	size_t lo, hi, i;

	if (s->names_of != t) {
		free(s->by_name);
		s->by_name = sp_xmalloc((t->len + 1) * sizeof(*s->by_name));
		s->nby_name = 0;
		for (i = 0; i < t->len; i++)
			if (!t->syms[i].is_static && t->syms[i].name && !t->syms[i].mapped)
				s->by_name[s->nby_name++] = (uint32_t)i;
		sp_sort(s->by_name, s->nby_name, sizeof(*s->by_name), cmp_name, (void *)t);
		s->names_of = t;
	}
	for (lo = 0, hi = s->nby_name; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->syms[s->by_name[mid]].name, name);

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nby_name && !strcmp(t->syms[s->by_name[lo]].name, name))
		return s->by_name[lo];
	return SP_CG_NONE;
}

/* The function `addr' is a second entry point of (PowerPC64), or addr. */
static uint64_t entry_of(const struct sp_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->naliases;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->aliases[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->naliases && c->aliases[lo].addr == addr ? c->aliases[lo].entry : addr;
}

/* The node whose symbol starts exactly at addr (or at the function addr
 * is a local entry of), or SP_CG_NONE. */
static uint32_t node_at(const struct sp_cg_static *s, const struct sp_cg *cg, uint64_t addr)
{
	const struct sp_symbol *sym = sp_symtab_lookup(cg->symtab, addr);

	if ((!sym || sym->addr != addr) && s->code->naliases) {
		addr = entry_of(s->code, addr);
		sym = sp_symtab_lookup(cg->symtab, addr);
	}
	if (!sym || sym->addr != addr)
		return SP_CG_NONE;
	return (uint32_t)(sym - cg->symtab->syms);
}

static void add_arc(struct hook *h, const struct sp_cg_call *c, uint32_t child, uint32_t flag)
{
	uint32_t a, parent = sp_cg_origin(h->cg, h->node); /* --precise: the origin's */

	if (child == SP_CG_NONE)
		return;
	child = sp_cg_origin(h->cg, child);
	/* a jump into one's own clone (foo to foo.cold) is no tail call */
	if (flag == SP_CG_ARC_TAIL && child == parent)
		return;
	if (h->s->debug)
		fprintf(h->s->debug, "[find_call] 0x%llx: %s to 0x%llx (%s)\n",
			(unsigned long long)c->site, flag == SP_CG_ARC_TAIL ? "jump" : "call",
			(unsigned long long)h->cg->symtab->syms[child].addr,
			h->cg->symtab->syms[child].name);
	a = sp_cg_arc_add(h->cg, parent, child, 0);
	h->cg->arcs[a].flags |= flag;
}

/* ---- MIPS: gprof's histogram tests and its "<indirect child>" ---- */

/*
 * gprof's hist_check_address(): whether a jal target lies in a histogram.
 * It takes the address as a 32-bit unsigned, so only the low 32 bits
 * are compared: nothing above 4 GiB (64-bit programs) or, sign-extended,
 * from 0x80000000 up passes. SP_CG_STATIC_WIDE compares all of it.
 */
static int in_hist(const struct sp_cg_static *s, uint64_t addr)
{
	size_t i;

	if (!(s->flags & SP_CG_STATIC_WIDE))
		addr = (uint32_t)addr;
	for (i = 0; i < s->nhist; i++)
		if (s->hist[2 * i] <= addr && addr < s->hist[2 * i + 1])
			return 1;
	return 0;
}

/* gprof's hist_clip_symbol_address(): [lo, hi) narrowed to the histogram
 * it overlaps, empty if none (gprof exits when several do; the first is
 * taken here). */
static void clip_to_hist(const struct sp_cg_static *s, uint64_t *lo, uint64_t *hi)
{
	size_t i;

	for (i = 0; i < s->nhist; i++) {
		uint64_t l = s->hist[2 * i] > *lo ? s->hist[2 * i] : *lo;
		uint64_t h = s->hist[2 * i + 1] < *hi ? s->hist[2 * i + 1] : *hi;

		if (l < h) {
			*lo = l;
			*hi = h;
			return;
		}
	}
	*hi = *lo;
}

/* A jal: an arc if its target is in a histogram and a symbol starts there. */
static void mips_jal(struct hook *h, const struct sp_cg_call *c)
{
	FILE *dbg = h->s->debug;
	const struct sp_symbol *sym = NULL;

	if (in_hist(h->s, c->target))
		sym = sp_symtab_lookup(h->cg->symtab, c->target);
	if (dbg) {
		fprintf(dbg, "[find_call] 0x%llx: jal", (unsigned long long)c->site);
		if (sym)
			fprintf(dbg, " 0x%llx\t; name=%s, addr=0x%llx",
				(unsigned long long)c->target, sym->name,
				(unsigned long long)sym->addr);
		fputs(sym && sym->addr == c->target ? "\n" : "\tbut it's a botch\n", dbg);
	}
	if (sym && sym->addr == c->target) {
		uint32_t a =
			sp_cg_arc_add(h->cg, h->node, (uint32_t)(sym - h->cg->symtab->syms), 0);

		h->cg->arcs[a].flags |= SP_CG_ARC_STATIC;
	}
}

/* A jalr $ra: an arc to the pseudo node that stands for all such callees. */
static void mips_jalr(struct hook *h, const struct sp_cg_call *c)
{
	uint32_t a;

	if (h->s->debug)
		fprintf(h->s->debug, "[find_call] 0x%llx: jalr\n", (unsigned long long)c->site);
	a = sp_cg_arc_add(h->cg, h->node, sp_cg_pseudo_findnew(h->cg, SP_CG_INDIRECT_CHILD), 0);
	h->cg->arcs[a].flags |= SP_CG_ARC_STATIC;
}

static void on_call(void *ctx, const struct sp_cg_call *c)
{
	struct hook *h = ctx;
	const struct sp_symtab *t = h->cg->symtab;
	uint32_t child;

	switch (c->kind) {
	case SP_CG_CALL_DIRECT:
		if (h->s->machine == EM_MIPS)
			mips_jal(h, c);
		else
			add_arc(h, c, node_at(h->s, h->cg, c->target), SP_CG_ARC_STATIC);
		break;
	case SP_CG_CALL_IMPORT:
		add_arc(h, c, node_by_name(h->s, t, c->name), SP_CG_ARC_STATIC);
		break;
	case SP_CG_CALL_INDIRECT:
		h->cg->nodes[h->node].indirect_calls++;
		if (h->s->machine == EM_MIPS)
			mips_jalr(h, c);
		break;
	case SP_CG_JUMP_DIRECT:
	case SP_CG_JUMP_IMPORT:
		/* AArch64 without --precise: what gprof's scan takes, B to an entry */
		if (!(h->s->flags & SP_CG_STATIC_TAIL) && c->conditional)
			break;
		child = c->kind == SP_CG_JUMP_DIRECT ? node_at(h->s, h->cg, c->target)
						     : node_by_name(h->s, t, c->name);
		if (child != h->node)
			add_arc(h, c, child, SP_CG_ARC_TAIL);
		break;
	}
}

void sp_cg_static_find_calls(struct sp_cg *cg, uint32_t node, uint64_t lo, uint64_t hi, void *ctx)
{
	struct hook h = {ctx, cg, node};
	const struct sp_symbol *sym = cg->nodes[node].sym;

	cg->static_flags |= SP_CG_STATIC_ON | h.s->flags;
	/*
	 * The last symbol: gprof scans up to (parent + 1)->addr, one entry
	 * past its table. When symtab_finalize() dropped duplicates (on MIPS
	 * `_ftext` always shares its address with the first function) that
	 * entry is a stale copy at or below the last address, so nothing is
	 * scanned; MIPS, where the scan is gprof's, does the same. Elsewhere
	 * the scan runs to the end of the symbol.
	 */
	if (hi <= lo)
		hi = h.s->machine == EM_MIPS ? lo : sym->end_addr + 1;
	if (h.s->machine == EM_MIPS)
		clip_to_hist(h.s, &lo, &hi);
	if (h.s->debug)
		fprintf(h.s->debug, "[find_call] %s: 0x%llx to 0x%llx\n", sym->name,
			(unsigned long long)lo, (unsigned long long)hi);
	sp_cg_static_scan(h.s, lo, hi, on_call, &h);
}
