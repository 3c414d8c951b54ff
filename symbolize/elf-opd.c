/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Dot symbols of 64-bit PowerPC ELFv1 images.
 *
 * In the ELFv1 ABI a function's symbol names its descriptor in .opd (a
 * data section: entry address, TOC pointer, environment, 8 bytes each),
 * not its code, and the linker keeps no symbol for the code. gprof gets
 * code symbols from bfd_get_synthetic_symtab(), which gprof 2.40's
 * core_init calls with the static symbols only (no dynamic symbols, so
 * no "@plt" or __glink_PLTresolve entries). For an executable or shared
 * object, ppc64_elf_get_synthetic_symtab (bfd/elf64-ppc.c) then:
 *
 *  1. takes the symbols that are not STT_FILE, STT_OBJECT, STT_COMMON
 *     or STT_TLS and sorts them: section symbols first (the one of .opd
 *     before the others), then symbols of .opd, then symbols of code
 *     sections, then the rest; within each, by address, global before
 *     not, function before not, strong before weak, then file order;
 *  2. drops a symbol whose address equals its predecessor's in that
 *     order (unless exactly one of them is an ifunc);
 *  3. for each remaining .opd symbol whose descriptor lies inside .opd,
 *     reads the 8-byte entry address and, unless a code symbol sits at
 *     that address, makes a copy of the symbol (same binding and type)
 *     named "." + name, placed in the last code section reached by
 *     walking the sections from the code section symbol below the entry
 *     (bfd's section list, stopping at a section that starts above the
 *     entry or is not allocated).
 *
 * The copies follow the file's symbols in gprof's table, so its class
 * filter sees them: a global ".main" is kept, while every static ".spin"
 * is dropped for the '.' that starts its name (gprof.md 4.1), and its
 * samples and calls go to the global before it. The names are laid out
 * one after the other as bfd does, which matters for that filter's walk
 * past a name's end (gprof-syms.c).
 *
 * NEEDSWORK: relocatable objects (bfd reads the .opd relocations
 * instead) get no dot symbols.
 */
#include "elf-opd.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

/* ---- the image's sections, in bfd's order ---- */

struct osec {
	uint64_t vma;
	char letter; /* class letter of a symbol in it */
	unsigned alloc : 1;
	unsigned code : 1; /* SEC_CODE | SEC_ALLOC, not thread-local */
};

struct osym {
	const char *name;
	uint64_t addr;	/* value + section vma */
	uint64_t value; /* section-relative */
	size_t order;	/* index in the symbol table */
	size_t sec;	/* index into the osec array, or (size_t)-1 */
	unsigned sec_sym : 1, in_opd : 1, in_code : 1;
	unsigned global : 1, local : 1, weak : 1, func : 1, ifunc : 1, unique : 1;
};

struct opd_ctx {
	struct osec *secs;
	size_t nsecs;
	size_t opd; /* osec index of .opd */
	struct osym *syms;
	size_t nsyms;
	size_t *map; /* ELF section index -> osec index or (size_t)-1 */
	size_t nmap;
};

/* Lists the sections of `symelf` as bfd has them and maps their ELF indexes. */
static void read_sections(Elf *symelf, struct opd_ctx *c, Elf_Scn *symscn)
{
	size_t shnum = 0, shstrndx = 0, alloc = 0, *map, i;
	GElf_Shdr symsh;
	Elf_Scn *scn = NULL;

	memset(&symsh, 0, sizeof(symsh));
	elf_getshdrnum(symelf, &shnum);
	elf_getshdrstrndx(symelf, &shstrndx);
	gelf_getshdr(symscn, &symsh);
	map = sp_xcalloc(shnum ? shnum : 1, sizeof(*map));
	for (i = 0; i < shnum; i++)
		map[i] = (size_t)-1;
	c->map = map;
	c->nmap = shnum;
	c->opd = (size_t)-1;
	while ((scn = elf_nextscn(symelf, scn))) {
		size_t ndx = elf_ndxscn(scn);
		const char *name;
		GElf_Shdr sh;
		struct osec *s;

		if (ndx >= shnum)
			continue;
		/* sections bfd keeps to itself: symbol tables and their names */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_SYMTAB ||
		    sh.sh_type == SHT_SYMTAB_SHNDX || ndx == shstrndx ||
		    (sh.sh_type == SHT_STRTAB && ndx == symsh.sh_link))
			continue;
		name = elf_strptr(symelf, shstrndx, sh.sh_name);
		if (!name)
			name = "";
		SP_ALLOC_GROW(c->secs, c->nsecs + 1, alloc);
		s = &c->secs[c->nsecs];
		s->vma = sh.sh_addr;
		s->letter = sp_elf_section_letter(name, &sh);
		s->alloc = !!(sh.sh_flags & SHF_ALLOC);
		s->code = (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR | SHF_TLS)) ==
			  (SHF_ALLOC | SHF_EXECINSTR);
		if (!strcmp(name, ".opd"))
			c->opd = c->nsecs;
		map[ndx] = c->nsecs++;
	}
}

/* ---- symbols ---- */

static int keep_type(int type)
{
	/* bfd's BSF_FILE, BSF_OBJECT (also STT_COMMON), BSF_THREAD_LOCAL and
	 * BSF_RELC/BSF_SRELC (STT_RELC 8, STT_SRELC 9) are trimmed */
	return type != STT_FILE && type != STT_OBJECT && type != STT_COMMON && type != STT_TLS &&
	       type != 8 && type != 9;
}

static void read_syms(Elf *symelf, Elf_Scn *symscn, struct opd_ctx *c)
{
	Elf_Data *d = elf_getdata(symscn, NULL), *xd = NULL, *strd;
	Elf_Scn *scn = NULL, *strscn;
	size_t i, n, alloc = 0;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize ||
	    !(strscn = elf_getscn(symelf, sh.sh_link)) || !(strd = elf_getdata(strscn, NULL)) ||
	    !strd->d_buf)
		return;
	while ((scn = elf_nextscn(symelf, scn))) {
		GElf_Shdr x;

		if (gelf_getshdr(scn, &x) && x.sh_type == SHT_SYMTAB_SHNDX &&
		    x.sh_link == elf_ndxscn(symscn))
			xd = elf_getdata(scn, NULL);
	}
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		int bind, type;
		Elf32_Word shndx;
		struct osym *o;
		GElf_Sym s;

		if (!gelf_getsymshndx(d, xd, (int)i, &s, &shndx))
			break;
		if (s.st_shndx != SHN_XINDEX)
			shndx = s.st_shndx;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (!keep_type(type) || s.st_name >= strd->d_size)
			continue;
		SP_ALLOC_GROW(c->syms, c->nsyms + 1, alloc);
		o = &c->syms[c->nsyms++];
		memset(o, 0, sizeof(*o));
		o->name = (const char *)strd->d_buf + s.st_name;
		o->addr = s.st_value;
		o->value = s.st_value;
		o->order = i;
		o->sec = (size_t)-1;
		if (shndx != SHN_UNDEF && shndx < c->nmap && c->map[shndx] != (size_t)-1) {
			const struct osec *sec = &c->secs[c->map[shndx]];

			o->sec = c->map[shndx];
			o->value = s.st_value - sec->vma;
			o->in_opd = o->sec == c->opd;
			o->in_code = sec->code;
		}
		o->sec_sym = type == STT_SECTION;
		o->func = type == STT_FUNC;
		o->ifunc = type == STT_GNU_IFUNC;
		o->local = bind == STB_LOCAL;
		o->global = bind == STB_GLOBAL && shndx != SHN_UNDEF && shndx != SHN_COMMON;
		o->weak = bind == STB_WEAK;
		o->unique = bind == STB_GNU_UNIQUE;
	}
}

/* compare_symbols() of elf64-ppc.c, for a linked image. */
static int cmp_syms(const void *va, const void *vb)
{
	const struct osym *a = va, *b = vb;

	if (a->sec_sym != b->sec_sym)
		return a->sec_sym ? -1 : 1;
	if (a->in_opd != b->in_opd)
		return a->in_opd ? -1 : 1;
	if (a->in_code != b->in_code)
		return a->in_code ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->global != b->global)
		return a->global ? -1 : 1;
	if (a->func != b->func)
		return a->func ? -1 : 1;
	if (a->weak != b->weak)
		return a->weak ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Drops each symbol at the address of the one before it in sort order. */
static void trim_dups(struct opd_ctx *c)
{
	size_t i, j;
	uint64_t prev_addr;
	int prev_ifunc;

	if (c->nsyms < 2)
		return;
	prev_addr = c->syms[0].addr;
	prev_ifunc = c->syms[0].ifunc;
	for (i = 1, j = 1; i < c->nsyms; i++) {
		struct osym cur = c->syms[i];

		if (cur.addr != prev_addr || cur.ifunc != prev_ifunc)
			c->syms[j++] = cur;
		prev_addr = cur.addr;
		prev_ifunc = cur.ifunc;
	}
	c->nsyms = j;
}

/* A code symbol at `addr` among syms[lo, hi) (sorted by address). */
static int sym_exists_at(const struct osym *syms, size_t lo, size_t hi, uint64_t addr)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr < addr)
			lo = mid + 1;
		else if (syms[mid].addr > addr)
			hi = mid;
		else
			return 1;
	}
	return 0;
}

/* The section bfd gives the dot symbol of an entry at `ent` (osec index),
 * or (size_t)-1 when no code section is reached. */
static size_t code_section(const struct opd_ctx *c, size_t codesec, size_t codesecend, uint64_t ent)
{
	size_t lo = codesec, hi = codesecend, start = 0, i, found = (size_t)-1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t vma = c->secs[c->syms[mid].sec].vma;

		if (vma < ent)
			lo = mid + 1;
		else if (vma > ent)
			hi = mid;
		else {
			start = c->syms[mid].sec;
			break;
		}
	}
	if (lo >= hi && lo > codesec)
		start = c->syms[lo - 1].sec;
	for (i = start; i < c->nsecs; i++) {
		if (c->secs[i].vma > ent || !c->secs[i].alloc)
			break;
		if (c->secs[i].code)
			found = i;
	}
	return found;
}

static uint64_t get64(const unsigned char *p, int big_endian)
{
	uint64_t v = 0;
	int k;

	for (k = 0; k < 8; k++)
		v |= (uint64_t)p[big_endian ? k : 7 - k] << (56 - 8 * k);
	return v;
}

static char synth_letter(const struct opd_ctx *c, const struct osym *o, size_t sec)
{
	char l;

	if (o->ifunc)
		return 'i';
	if (o->weak)
		return 'W';
	if (o->unique)
		return 'u';
	if (!o->global && !o->local)
		return '?';
	l = sec != (size_t)-1 ? c->secs[sec].letter : c->secs[c->opd].letter;
	return o->global && l >= 'a' && l <= 'z' ? (char)(l - 'a' + 'A') : l;
}

/* ---- API ---- */

int sp_elf_has_opd(Elf *elf)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_PPC64 || (eh.e_flags & 3) >= 2 ||
	    eh.e_type == ET_REL || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".opd"))
			return 1;
	}
	return 0;
}

/* The contents of the image's own .opd (NULL if it has none or no bytes). */
static const unsigned char *opd_bytes(Elf *elf, size_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".opd"))
			continue;
		if (sh.sh_type == SHT_NOBITS || !(d = elf_rawdata(scn, NULL)) || !d->d_buf)
			return NULL;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

static int emit(struct opd_ctx *c, const unsigned char *opd, size_t opd_size, int big_endian,
		int (*fn)(void *, const struct raw_sym *), void *ctx)
{
	size_t i = 0, codesec, codesecend, secend, opdend, end, total = 0;
	size_t *secof;
	char *names, *p;
	uint64_t *ent;
	int ret = 0;

	if (c->nsyms && c->syms[0].in_opd)
		i++;
	codesec = i;
	while (i < c->nsyms && c->syms[i].in_code && c->syms[i].sec_sym)
		i++;
	codesecend = i;
	while (i < c->nsyms && c->syms[i].sec_sym)
		i++;
	secend = i;
	while (i < c->nsyms && c->syms[i].in_opd)
		i++;
	opdend = i;
	while (i < c->nsyms && c->syms[i].in_code)
		i++;
	end = i;

	ent = sp_xcalloc(opdend - secend + 1, sizeof(*ent));
	secof = sp_xcalloc(opdend - secend + 1, sizeof(*secof));
	for (i = secend; i < opdend; i++) {
		const struct osym *o = &c->syms[i];

		secof[i - secend] = (size_t)-2; /* no dot symbol */
		if (opd_size < 8 || o->value > opd_size - 8)
			continue;
		ent[i - secend] = get64(opd + o->value, big_endian);
		if (sym_exists_at(c->syms, opdend, end, ent[i - secend]))
			continue;
		secof[i - secend] = code_section(c, codesec, codesecend, ent[i - secend]);
		total += strlen(o->name) + 2;
	}
	/* all names first: the class filter may read past one into the next */
	names = p = sp_xmalloc(total + 1);
	for (i = secend; i < opdend; i++) {
		size_t len = strlen(c->syms[i].name);

		if (secof[i - secend] == (size_t)-2)
			continue;
		*p = '.';
		memcpy(p + 1, c->syms[i].name, len + 1);
		p += len + 2;
	}
	for (i = secend, p = names; i < opdend && ret >= 0; i++) {
		const struct osym *o = &c->syms[i];
		struct raw_sym r;

		if (secof[i - secend] == (size_t)-2)
			continue;
		memset(&r, 0, sizeof(r));
		r.name = p;
		r.name_limit = names + total;
		r.addr = ent[i - secend];
		r.type = synth_letter(c, o, secof[i - secend]);
		r.has_section = 1;
		r.local = o->local;
		r.function = o->func;
		p += strlen(p) + 1;
		ret = fn(ctx, &r);
	}
	free(names);
	free(secof);
	free(ent);
	return ret < 0 ? ret : 0;
}

int sp_elf_opd_syms(Elf *elf, Elf *symelf, Elf_Scn *symscn,
		    int (*fn)(void *ctx, const struct raw_sym *s), void *ctx)
{
	struct opd_ctx c;
	const unsigned char *opd;
	size_t opd_size = 0;
	GElf_Ehdr eh;
	int ret = 0;

	if (!sp_elf_has_opd(elf) || !(opd = opd_bytes(elf, &opd_size)) || !gelf_getehdr(elf, &eh))
		return 0;
	memset(&c, 0, sizeof(c));
	read_sections(symelf, &c, symscn);
	if (c.opd != (size_t)-1) {
		read_syms(symelf, symscn, &c);
		qsort(c.syms, c.nsyms, sizeof(*c.syms), cmp_syms);
		trim_dups(&c);
		ret = emit(&c, opd, opd_size, eh.e_ident[EI_DATA] == ELFDATA2MSB, fn, ctx);
	}
	free(c.map);
	free(c.syms);
	free(c.secs);
	return ret;
}
