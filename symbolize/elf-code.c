/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The machine code of an ELF image, for the static call graph (-c): what a
 * scanner needs besides the bytes to tell which function an instruction
 * calls.
 *
 *  - sections: every allocated SHF_EXECINSTR section (.init, .plt,
 *    .plt.sec, .text, .fini, ...), its bytes mapped by libelf, the PLT
 *    ones flagged. An object file (ET_REL) lists only .text: all its
 *    sections start at address 0, and gprof's table addresses are .text's.
 *  - starts: the address of every symbol in a code section, so that
 *    decoding restarts at each one as objdump's does (gprof's table drops
 *    symbols such as `.isra.0' clones, whose code then belongs to the
 *    symbol before them).
 *  - marks: the ARM/AArch64 mapping symbols ($a ARM, $t Thumb, $x A64,
 *    $d data) and, for ARM, the Thumb bit of function symbols.
 *  - aliases: PowerPC64 ELFv2 local entry points (a function's address
 *    plus the offset its st_other encodes), where local calls land.
 *  - slots: GOT entries with the symbol a GLOB_DAT or JUMP_SLOT dynamic
 *    relocation writes there. A PLT stub jumps through one; so does a
 *    call compiled with -fno-plt. The scanner decodes the stub, finds the
 *    slot, and so the imported name.
 *  - relocs (ET_REL only): the PC-relative branch relocations of .text.
 *    In an object file a call to another function is `call 0' plus a
 *    relocation, so the bytes alone would point at the next instruction.
 *    Each becomes (place, target): target = S + A plus the distance from
 *    the relocated field to where the CPU counts from (x86: the end of the
 *    4-byte field; ARM: the instruction + 8; AArch64, PowerPC: the
 *    instruction). REL targets (i386, ARM) read the addend from the bytes.
 */
#include "internal.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/sort.h"

struct code_build {
	struct sp_code *c;
	Elf *elf;    /* the image */
	Elf *symelf; /* the file holding .symtab (the image or its debug file) */
	int machine;
	int is_rel;
	size_t text_ndx; /* ET_REL: index of .text */
	struct sp_code_section *secs;
	size_t nsecs, secs_alloc;
	uint64_t *starts;
	size_t nstarts, starts_alloc;
	struct sp_code_mark *marks;
	size_t nmarks, marks_alloc;
	struct sp_code_slot *slots;
	size_t nslots, slots_alloc;
	struct sp_code_reloc *relocs;
	size_t nrelocs, relocs_alloc;
	struct sp_code_alias *aliases;
	size_t naliases, aliases_alloc;
};

static const char *sec_name(Elf *elf, const GElf_Shdr *sh)
{
	size_t ndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &ndx) < 0)
		return "";
	n = elf_strptr(elf, ndx, sh->sh_name);
	return n ? n : "";
}

static int is_plt_name(const char *n)
{
	return !strcmp(n, ".plt") || !strcmp(n, ".plt.sec") || !strcmp(n, ".plt.got") ||
	       !strcmp(n, ".iplt") || !strcmp(n, ".plt.bnd");
}

static int is_code(const GElf_Shdr *sh)
{
	return (sh->sh_flags & SHF_EXECINSTR) && (sh->sh_flags & SHF_ALLOC);
}

/* ---- sections ---- */

static void add_sections(struct code_build *b)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(b->elf, scn))) {
		struct sp_code_section *s;
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !is_code(&sh))
			continue;
		name = sec_name(b->elf, &sh);
		if (b->is_rel && strcmp(name, ".text") != 0)
			continue;
		if (b->is_rel)
			b->text_ndx = elf_ndxscn(scn);
		SP_ALLOC_GROW(b->secs, b->nsecs + 1, b->secs_alloc);
		s = &b->secs[b->nsecs++];
		memset(s, 0, sizeof(*s));
		s->name = name;
		s->vma = sh.sh_addr;
		s->size = sh.sh_size;
		s->is_plt = is_plt_name(name);
		d = sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size >= sh.sh_size)
			s->bytes = d->d_buf;
	}
}

static int cmp_sec(const void *a, const void *b, void *ctx)
{
	const struct sp_code_section *l = a, *r = b;

	(void)ctx;
	return (l->vma > r->vma) - (l->vma < r->vma);
}

/* ---- symbols: starts and mapping symbols ---- */

static void add_mark(struct code_build *b, uint64_t addr, int mode)
{
	SP_ALLOC_GROW(b->marks, b->nmarks + 1, b->marks_alloc);
	b->marks[b->nmarks].addr = addr;
	b->marks[b->nmarks].mode = mode;
	b->nmarks++;
}

/* $a, $t, $x, $d, optionally followed by ".anything". */
static int mapping_mode(const char *n)
{
	if (n[0] != '$' || !n[1] || (n[2] && n[2] != '.'))
		return -1;
	switch (n[1]) {
	case 'a':
		return SP_CODE_ARM;
	case 't':
		return SP_CODE_THUMB;
	case 'x':
		return SP_CODE_DEFAULT;
	case 'd':
		return SP_CODE_DATA;
	default:
		return -1;
	}
}

/* PPC64_LOCAL_ENTRY_OFFSET of binutils' elf/ppc64.h. */
static unsigned ppc64_local_entry(unsigned char other)
{
	unsigned v = (other >> 5) & 7;

	return v >= 2 && v <= 6 ? (1u << v) >> 2 << 2 : 0;
}

static void add_alias(struct code_build *b, uint64_t addr, uint64_t entry)
{
	SP_ALLOC_GROW(b->aliases, b->naliases + 1, b->aliases_alloc);
	b->aliases[b->naliases].addr = addr;
	b->aliases[b->naliases].entry = entry;
	b->naliases++;
}

static void one_symbol(struct code_build *b, const GElf_Sym *s, Elf32_Word shndx, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info), mode;
	uint64_t addr = s->st_value;
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (type == STT_SECTION || type == STT_FILE || shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return;
	if (b->is_rel && shndx != b->text_ndx)
		return;
	if (!(scn = elf_getscn(b->symelf, shndx)) || !gelf_getshdr(scn, &sh) || !is_code(&sh))
		return;
	if (b->is_rel)
		addr += sh.sh_addr;
	mode = (b->machine == EM_ARM || b->machine == EM_AARCH64) ? mapping_mode(name) : -1;
	if (mode >= 0) {
		add_mark(b, addr, mode);
	} else if (b->machine == EM_ARM && type == STT_FUNC) {
		add_mark(b, addr & ~(uint64_t)1, (addr & 1) ? SP_CODE_THUMB : SP_CODE_ARM);
		addr &= ~(uint64_t)1;
	}
	if (b->machine == EM_PPC64 && type == STT_FUNC && ppc64_local_entry(s->st_other))
		add_alias(b, addr + ppc64_local_entry(s->st_other), addr);
	SP_ALLOC_GROW(b->starts, b->nstarts + 1, b->starts_alloc);
	b->starts[b->nstarts++] = addr;
}

static void add_symbols(struct code_build *b)
{
	Elf_Scn *scn = NULL, *symscn = NULL, *xscn = NULL;
	Elf_Data *d, *xd = NULL;
	GElf_Shdr sh;
	size_t i, n;

	while ((scn = elf_nextscn(b->symelf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && !symscn)
			symscn = scn;
	if (!symscn)
		while ((scn = elf_nextscn(b->symelf, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && !symscn)
				symscn = scn;
	if (!symscn)
		return;
	for (scn = NULL; (scn = elf_nextscn(b->symelf, scn));)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == elf_ndxscn(symscn))
			xscn = scn;
	if (xscn)
		xd = elf_getdata(xscn, NULL);
	if (!gelf_getshdr(symscn, &sh) || !sh.sh_entsize || !(d = elf_getdata(symscn, NULL)))
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		Elf32_Word shndx;
		const char *name;

		if (!gelf_getsymshndx(d, xd, (int)i, &s, &shndx))
			break;
		if (s.st_shndx != SHN_XINDEX)
			shndx = s.st_shndx;
		name = elf_strptr(b->symelf, sh.sh_link, s.st_name);
		one_symbol(b, &s, shndx, name ? name : "");
	}
}

static int cmp_u64(const void *a, const void *b, void *ctx)
{
	uint64_t l = *(const uint64_t *)a, r = *(const uint64_t *)b;

	(void)ctx;
	return (l > r) - (l < r);
}

/* By address, stably: at one address the scanner takes the last mark (a
 * mapping symbol and a function's Thumb bit agree in practice). */
static int cmp_mark(const void *a, const void *b, void *ctx)
{
	const struct sp_code_mark *l = a, *r = b;

	(void)ctx;
	return (l->addr > r->addr) - (l->addr < r->addr);
}

static int cmp_alias(const void *a, const void *b, void *ctx)
{
	const struct sp_code_alias *l = a, *r = b;

	(void)ctx;
	return (l->addr > r->addr) - (l->addr < r->addr);
}

static void dedup_starts(struct code_build *b)
{
	size_t i, n = 0;

	sp_sort(b->starts, b->nstarts, sizeof(*b->starts), cmp_u64, NULL);
	for (i = 0; i < b->nstarts; i++)
		if (!n || b->starts[n - 1] != b->starts[i])
			b->starts[n++] = b->starts[i];
	b->nstarts = n;
	sp_sort(b->marks, b->nmarks, sizeof(*b->marks), cmp_mark, NULL);
	sp_sort(b->aliases, b->naliases, sizeof(*b->aliases), cmp_alias, NULL);
}

/* ---- dynamic relocations: GOT slots ---- */

static int is_slot_reloc(int machine, unsigned type)
{
	switch (machine) {
	case EM_X86_64:
		return type == R_X86_64_GLOB_DAT || type == R_X86_64_JUMP_SLOT;
	case EM_386:
		return type == R_386_GLOB_DAT || type == R_386_JMP_SLOT;
	case EM_AARCH64:
		return type == R_AARCH64_GLOB_DAT || type == R_AARCH64_JUMP_SLOT;
	case EM_ARM:
		return type == R_ARM_GLOB_DAT || type == R_ARM_JUMP_SLOT;
	case EM_PPC:
		return type == R_PPC_GLOB_DAT || type == R_PPC_JMP_SLOT;
	case EM_PPC64:
		return type == R_PPC64_GLOB_DAT || type == R_PPC64_JMP_SLOT;
	default:
		return 0;
	}
}

/* One relocation entry of section `sh`, either kind: offset, type, symbol
 * index and addend (0 for REL). Returns 0 past the end. */
static int get_reloc(Elf_Data *d, const GElf_Shdr *sh, size_t i, GElf_Rela *out)
{
	if (sh->sh_type == SHT_RELA)
		return gelf_getrela(d, (int)i, out) != NULL;
	else {
		GElf_Rel r;

		if (!gelf_getrel(d, (int)i, &r))
			return 0;
		out->r_offset = r.r_offset;
		out->r_info = r.r_info;
		out->r_addend = 0;
		return 1;
	}
}

static const char *reloc_sym(Elf *elf, const GElf_Shdr *rsh, size_t symi, GElf_Sym *sym)
{
	Elf_Scn *symscn = elf_getscn(elf, rsh->sh_link);
	GElf_Shdr ssh;
	Elf_Data *sd;
	const char *n;

	if (!symi || !symscn || !gelf_getshdr(symscn, &ssh) || !(sd = elf_getdata(symscn, NULL)) ||
	    !gelf_getsym(sd, (int)symi, sym))
		return NULL;
	n = elf_strptr(elf, ssh.sh_link, sym->st_name);
	return n;
}

static void add_slots(struct code_build *b)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Rela r;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    !(sh.sh_flags & SHF_ALLOC) || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; get_reloc(d, &sh, i, &r); i++) {
			GElf_Sym sym;
			const char *name;

			if (!is_slot_reloc(b->machine, (unsigned)GELF_R_TYPE(r.r_info)))
				continue;
			name = reloc_sym(b->elf, &sh, GELF_R_SYM(r.r_info), &sym);
			if (!name || !*name)
				continue;
			SP_ALLOC_GROW(b->slots, b->nslots + 1, b->slots_alloc);
			b->slots[b->nslots].addr = r.r_offset;
			b->slots[b->nslots].name = name;
			b->nslots++;
		}
	}
}

static int cmp_slot(const void *a, const void *b, void *ctx)
{
	const struct sp_code_slot *l = a, *r = b;

	(void)ctx;
	return (l->addr > r->addr) - (l->addr < r->addr);
}

/* ---- object files: branch relocations of .text ---- */

static int64_t sext(uint64_t v, int bits)
{
	uint64_t m = (uint64_t)1 << (bits - 1);

	v &= (m << 1) - 1;
	return (int64_t)((v ^ m) - m);
}

static uint32_t read32(const struct sp_code_section *text, uint64_t off, int big_endian)
{
	const uint8_t *p = text->bytes + off;

	if (big_endian)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/*
 * The branch target of relocation r (type `type`, symbol value S): 0, 1
 * if the field holds the address of S's GOT slot (the target is S), -1 if
 * it is not a relocation a branch uses.
 */
static int branch_target(const struct code_build *b, const struct sp_code_section *text,
			 unsigned type, uint64_t S, const GElf_Rela *r, int big_endian,
			 uint64_t *target)
{
	uint64_t off = r->r_offset;
	int have4 = text->bytes && off + 4 <= text->size;

	switch (b->machine) {
	case EM_X86_64:
		if (type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX ||
		    type == R_X86_64_REX_GOTPCRELX) {
			*target = S;
			return 1;
		}
		if (type != R_X86_64_PC32 && type != R_X86_64_PLT32)
			return -1;
		*target = S + (uint64_t)r->r_addend + 4;
		return 0;
	case EM_386:
		if ((type != R_386_PC32 && type != R_386_PLT32) || !have4)
			return -1;
		*target = S + (uint64_t)(int64_t)(int32_t)read32(text, off, 0) + 4;
		return 0;
	case EM_AARCH64:
		if (type != R_AARCH64_CALL26 && type != R_AARCH64_JUMP26)
			return -1;
		*target = S + (uint64_t)r->r_addend;
		return 0;
	case EM_ARM:
		if ((type != R_ARM_CALL && type != R_ARM_JUMP24 && type != R_ARM_PC24) || !have4)
			return -1;
		*target = (S & ~(uint64_t)1) +
			  (uint64_t)(sext(read32(text, off, big_endian) & 0xffffff, 24) * 4) + 8;
		return 0;
	case EM_PPC:
	case EM_PPC64:
		if (type != R_PPC_REL24 && !(b->machine == EM_PPC && type == R_PPC_PLTREL24))
			return -1;
		*target = S + (uint64_t)r->r_addend;
		return 0;
	default:
		return -1;
	}
}

static void add_text_relocs(struct code_build *b, const struct sp_code_section *text,
			    int big_endian)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Rela r;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    sh.sh_info != b->text_ndx || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; get_reloc(d, &sh, i, &r); i++) {
			struct sp_code_reloc *cr;
			GElf_Sym sym;
			const char *name = reloc_sym(b->elf, &sh, GELF_R_SYM(r.r_info), &sym);
			uint64_t target;
			int kind;

			if (!name)
				continue;
			kind = branch_target(b, text, (unsigned)GELF_R_TYPE(r.r_info), sym.st_value,
					     &r, big_endian, &target);
			if (kind < 0)
				continue;
			SP_ALLOC_GROW(b->relocs, b->nrelocs + 1, b->relocs_alloc);
			cr = &b->relocs[b->nrelocs++];
			cr->place = r.r_offset + text->vma;
			cr->target = target + text->vma;
			cr->name = name;
			cr->resolved = sym.st_shndx == b->text_ndx;
			cr->got = kind == 1;
		}
	}
}

static int cmp_reloc(const void *a, const void *b, void *ctx)
{
	const struct sp_code_reloc *l = a, *r = b;

	(void)ctx;
	return (l->place > r->place) - (l->place < r->place);
}

/* ---- the whole ---- */

static uint64_t sext32(uint64_t a)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)a;
}

/* 32-bit MIPS: bfd, and so gprof's symbol table, sign-extends addresses
 * (elf-image.c); the code's must agree. Sign extension keeps the order. */
static void sign_extend(struct code_build *b, struct sp_code *c)
{
	size_t i;

	for (i = 0; i < b->nsecs; i++)
		b->secs[i].vma = sext32(b->secs[i].vma);
	for (i = 0; i < b->nstarts; i++)
		b->starts[i] = sext32(b->starts[i]);
	for (i = 0; i < b->nmarks; i++)
		b->marks[i].addr = sext32(b->marks[i].addr);
	for (i = 0; i < b->nslots; i++)
		b->slots[i].addr = sext32(b->slots[i].addr);
	for (i = 0; i < b->nrelocs; i++) {
		b->relocs[i].place = sext32(b->relocs[i].place);
		b->relocs[i].target = sext32(b->relocs[i].target);
	}
	for (i = 0; i < b->naliases; i++) {
		b->aliases[i].addr = sext32(b->aliases[i].addr);
		b->aliases[i].entry = sext32(b->aliases[i].entry);
	}
	c->got = sext32(c->got);
}

static uint64_t got_address(Elf *elf)
{
	Elf_Scn *scn = NULL;
	uint64_t got = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = sec_name(elf, &sh);
		if (!strcmp(n, ".got.plt"))
			return sh.sh_addr;
		if (!strcmp(n, ".got"))
			got = sh.sh_addr;
	}
	return got;
}

int sp_elf_code_load(struct sp_image *im, Elf *elf, Elf *symelf, struct sp_code *c,
		     struct sp_error *err)
{
	struct code_build b;

	(void)err;
	memset(&b, 0, sizeof(b));
	b.c = c;
	b.elf = elf;
	b.symelf = symelf ? symelf : elf;
	b.machine = im->target.machine;
	b.is_rel = im->target.is_relocatable;
	add_sections(&b);
	sp_sort(b.secs, b.nsecs, sizeof(*b.secs), cmp_sec, NULL);
	if (!b.is_rel || b.text_ndx)
		add_symbols(&b);
	dedup_starts(&b);
	if (b.is_rel) {
		if (b.nsecs)
			add_text_relocs(&b, &b.secs[0], im->target.big_endian);
		sp_sort(b.relocs, b.nrelocs, sizeof(*b.relocs), cmp_reloc, NULL);
	} else {
		add_slots(&b);
		sp_sort(b.slots, b.nslots, sizeof(*b.slots), cmp_slot, NULL);
		c->got = got_address(elf);
	}
	if (im->target.sign_extend && im->target.ptr_size == 4)
		sign_extend(&b, c);
	c->sections = b.secs;
	c->nsections = b.nsecs;
	c->starts = b.starts;
	c->nstarts = b.nstarts;
	c->marks = b.marks;
	c->nmarks = b.nmarks;
	c->slots = b.slots;
	c->nslots = b.nslots;
	c->relocs = b.relocs;
	c->nrelocs = b.nrelocs;
	c->aliases = b.aliases;
	c->naliases = b.naliases;
	return 0;
}

void sp_code_release(struct sp_code *c)
{
	if (!c)
		return;
	free((void *)c->sections);
	free((void *)c->starts);
	free((void *)c->marks);
	free((void *)c->slots);
	free((void *)c->relocs);
	free((void *)c->aliases);
	memset(c, 0, sizeof(*c));
}
