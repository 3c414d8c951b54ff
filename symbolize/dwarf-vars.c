/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The file and line addr2line prints for an address in data: libbfd's
 * variable table (binutils 2.40 dwarf2.c), asked only where bfd asks it.
 *
 *  1. The address lies in an allocated section that holds no code, and a
 *     symbol of addr2line's table (.symtab, else .dynsym; not a section
 *     symbol) has exactly that address in that section: the first global
 *     one in table order, else the last local one.
 *  2. The variables are the DW_TAG_variable and DW_TAG_member DIEs of every
 *     unit whose line program bfd decodes, at any depth. A variable is not
 *     on the stack when it is DW_AT_external or its DW_AT_location starts
 *     with DW_OP_addr; the location gives its address only when it is that
 *     one operation. DW_AT_specification reads DW_AT_name (if still
 *     unset), DW_AT_linkage_name, DW_AT_decl_file and DW_AT_decl_line from
 *     the DIE it names (and on through its specifications); the
 *     variable's own attributes apply in order after it.
 *  3. The answer is the first unit's (in file order) last variable, in DIE
 *     order, that is not on the stack, has that address, a file and a
 *     name, and whose name is part of the symbol's (strstr: "table" names
 *     the symbol "table.0"): its DW_AT_decl_file and DW_AT_decl_line.
 *
 * The table is built the first time an address in data is asked: it walks
 * every DIE, which no profile needs.
 */
#include "dwarf-vars.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf-funcs.h"
#include "dwarf-lineprog.h"
#include "dwarf-units.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/sort.h"
#include "symprof/strtab.h"

#define MAX_SPEC 100 /* bfd's recursion limit */

struct var {
	uint64_t addr;
	const char *name, *file;
	uint32_t line, unit;
	size_t order; /* DIE order in the unit */
};

/* A symbol of addr2line's table in a data section. */
struct dsym {
	uint64_t addr;
	size_t shndx, index;
	const char *name;
	int global;
};

/* An allocated section, in header order. */
struct dsec {
	uint64_t lo, hi;
	size_t shndx;
	int code;
};

struct sp_dwvars {
	struct var *vars; /* by address, then unit, then DIE order (last first) */
	size_t nvars;
	struct dsym *syms; /* by address, then table order */
	size_t nsyms;
	struct dsec *secs;
	size_t nsecs;
};

/* ---- symbols ---- */

static int dsym_cmp(const void *pa, const void *pb)
{
	const struct dsym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

static void load_sections(struct sp_dwvars *v, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t alloc = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		SP_ALLOC_GROW(v->secs, v->nsecs + 1, alloc);
		v->secs[v->nsecs].lo = sh.sh_addr;
		v->secs[v->nsecs].hi = sh.sh_addr + sh.sh_size;
		v->secs[v->nsecs].shndx = elf_ndxscn(scn);
		v->secs[v->nsecs++].code = (sh.sh_flags & SHF_EXECINSTR) != 0;
	}
}

static void load_symbols(struct sp_dwvars *v, Elf *elf, struct sp_strtab *strs)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_symtab(elf, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t i, n, alloc = 0;

	if (!d)
		return;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) == STT_SECTION ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE ||
		    !(name = elf_strptr(elf, sh.sh_link, s.st_name)))
			continue;
		SP_ALLOC_GROW(v->syms, v->nsyms + 1, alloc);
		v->syms[v->nsyms].addr = s.st_value;
		v->syms[v->nsyms].shndx = s.st_shndx;
		v->syms[v->nsyms].index = i;
		v->syms[v->nsyms].name = sp_strtab_intern(strs, name);
		v->syms[v->nsyms++].global = GELF_ST_BIND(s.st_info) == STB_GLOBAL;
	}
	if (v->nsyms > 1)
		qsort(v->syms, v->nsyms, sizeof(*v->syms), dsym_cmp);
}

/* Rule 1: the symbol bfd looks the variable up with, or NULL. */
static const char *data_symbol(const struct sp_dwvars *v, uint64_t addr)
{
	const struct dsec *sec = NULL;
	const char *local = NULL;
	size_t i, lo;

	for (i = 0; i < v->nsecs && !sec; i++)
		if (addr >= v->secs[i].lo && addr < v->secs[i].hi)
			sec = &v->secs[i];
	if (!sec || sec->code)
		return NULL;
	lo = sp_lower_bound_u64(v->syms, v->nsyms, sizeof(*v->syms), addr);
	for (; lo < v->nsyms && v->syms[lo].addr == addr; lo++) {
		if (v->syms[lo].shndx != sec->shndx)
			continue;
		if (v->syms[lo].global)
			return v->syms[lo].name;
		local = v->syms[lo].name;
	}
	return local;
}

/* ---- variables ---- */

struct vbuild {
	struct sp_dwvars *v;
	size_t alloc;
	struct sp_strtab *strs;
	struct sp_lineprog lp;
	const struct sp_dwunit *unit;
	uint32_t unit_index;
	size_t order;
	/* the variable being read */
	const char *name, *file;
	uint32_t line;
	uint64_t addr;
	int stack;
};

static const char *attr_str(struct vbuild *b, Dwarf_Attribute *a)
{
	const char *s;

	if (!sp_dw_is_str_form(a->form) || !(s = dwarf_formstring(a)))
		return NULL;
	return sp_strtab_intern(b->strs, s);
}

/* The number bfd reads from an integer-form attribute (flags included). */
static int attr_int(Dwarf_Attribute *a, Dwarf_Word *w)
{
	bool flag;

	if (!sp_dw_is_int_form(a->form))
		return 0;
	if (a->form == DW_FORM_flag || a->form == DW_FORM_flag_present) {
		if (dwarf_formflag(a, &flag) != 0)
			return 0;
		*w = flag;
		return 1;
	}
	return dwarf_formudata(a, w) == 0;
}

struct specctx {
	struct vbuild *b;
	int depth, same_unit;
};

static int spec_attr(Dwarf_Attribute *a, void *arg);

/* bfd's find_abstract_instance() for a variable's DW_AT_specification. */
static void follow_spec(struct vbuild *b, Dwarf_Attribute *a, int depth)
{
	struct specctx c = {b, depth, 0};
	Dwarf_Die target;

	if (depth >= MAX_SPEC || !dwarf_formref_die(a, &target))
		return;
	c.same_unit = target.cu == b->unit->die.cu;
	dwarf_getattrs(&target, spec_attr, &c, 0);
}

static int spec_attr(Dwarf_Attribute *a, void *arg)
{
	struct specctx *c = arg;
	struct vbuild *b = c->b;
	Dwarf_Word w;
	const char *s;

	switch (a->code) {
	case DW_AT_name:
		if (!b->name && (s = attr_str(b, a)))
			b->name = s;
		break;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
		if ((s = attr_str(b, a)))
			b->name = s;
		break;
	case DW_AT_specification:
		if (sp_dw_is_int_form(a->form))
			follow_spec(b, a, c->depth + 1);
		break;
	case DW_AT_decl_file:
		/* the file number of another unit's table: not composed here */
		if (attr_int(a, &w))
			b->file = c->same_unit ? sp_lineprog_filename(&b->lp, w) : NULL;
		break;
	case DW_AT_decl_line:
		if (attr_int(a, &w))
			b->line = (uint32_t)w;
		break;
	default:
		break;
	}
	return DWARF_CB_OK;
}

static void read_location(struct vbuild *b, Dwarf_Attribute *a)
{
	Dwarf_Block blk;
	uint64_t v = 0;
	int i, n = b->unit->addr_size;

	if (a->form != DW_FORM_block && a->form != DW_FORM_block1 && a->form != DW_FORM_block2 &&
	    a->form != DW_FORM_block4 && a->form != DW_FORM_exprloc)
		return;
	if (dwarf_formblock(a, &blk) != 0 || !blk.length || blk.data[0] != DW_OP_addr)
		return;
	b->stack = 0;
	if (blk.length != (Dwarf_Word)n + 1)
		return;
	for (i = 0; i < n; i++) {
		int k = b->lp.secs->big_endian ? i : n - 1 - i;

		v = v << 8 | blk.data[1 + k];
	}
	b->addr = v;
}

static int var_attr(Dwarf_Attribute *a, void *arg)
{
	struct vbuild *b = arg;
	Dwarf_Word w;
	const char *s;

	switch (a->code) {
	case DW_AT_specification:
		if (sp_dw_is_int_form(a->form))
			follow_spec(b, a, 0);
		break;
	case DW_AT_name:
		if ((s = attr_str(b, a)))
			b->name = s;
		break;
	case DW_AT_decl_file:
		if (attr_int(a, &w))
			b->file = sp_lineprog_filename(&b->lp, w);
		break;
	case DW_AT_decl_line:
		if (attr_int(a, &w))
			b->line = (uint32_t)w;
		break;
	case DW_AT_external:
		if (attr_int(a, &w) && w)
			b->stack = 0;
		break;
	case DW_AT_location:
		read_location(b, a);
		break;
	default:
		break;
	}
	return DWARF_CB_OK;
}

static void read_var(struct vbuild *b, Dwarf_Die *die)
{
	struct var *x;

	b->name = b->file = NULL;
	b->line = 0;
	b->addr = 0;
	b->stack = 1;
	b->order++;
	dwarf_getattrs(die, var_attr, b, 0);
	if (b->stack || !b->name || !b->file || !b->addr)
		return;
	SP_ALLOC_GROW(b->v->vars, b->v->nvars + 1, b->alloc);
	x = &b->v->vars[b->v->nvars++];
	x->addr = b->addr;
	x->name = b->name;
	x->file = b->file;
	x->line = b->line;
	x->unit = b->unit_index;
	x->order = b->order;
}

/* Every DIE of the unit, depth first. */
static void walk_unit(struct vbuild *b)
{
	Dwarf_Die *stack = NULL, cudie = b->unit->die, next;
	size_t depth = 0, alloc = 0;

	SP_ALLOC_GROW(stack, 1, alloc);
	if (dwarf_child(&cudie, &stack[0]) != 0)
		goto done;
	for (;;) {
		int tag = dwarf_tag(&stack[depth]);

		if (tag == DW_TAG_variable || tag == DW_TAG_member)
			read_var(b, &stack[depth]);
		if (dwarf_haschildren(&stack[depth]) && dwarf_child(&stack[depth], &next) == 0) {
			SP_ALLOC_GROW(stack, depth + 2, alloc);
			stack[++depth] = next;
			continue;
		}
		for (;;) {
			int r = dwarf_siblingof(&stack[depth], &next);

			if (r == 0 && dwarf_dieoffset(&next) > dwarf_dieoffset(&stack[depth])) {
				stack[depth] = next;
				break;
			}
			if (r == 0)
				goto done; /* a sibling before its DIE: corrupt */
			if (r < 0 || depth == 0)
				goto done;
			depth--;
		}
	}
done:
	free(stack);
}

static int var_cmp(const void *pa, const void *pb)
{
	const struct var *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->unit != b->unit)
		return a->unit < b->unit ? -1 : 1;
	return (a->order < b->order) - (a->order > b->order);
}

static void load_vars(struct sp_dwvars *v, Dwarf *dw, struct sp_strtab *strs)
{
	struct sp_error err = SP_ERROR_INIT;
	struct vbuild b;
	struct sp_dwsecs secs;
	struct sp_dwunit u;
	Dwarf_CU *cu = NULL;

	memset(&b, 0, sizeof(b));
	b.v = v;
	b.strs = strs;
	sp_lineprog_init(&b.lp);
	if (sp_dwsecs_load(dw, &secs, &err) < 0) {
		sp_lineprog_release(&b.lp);
		return;
	}
	for (; sp_dwunit_next(dw, &cu, &u, &err) > 0; b.unit_index++) {
		struct sp_error uerr = SP_ERROR_INIT;

		if (!sp_dwunit_bfd_reads(&secs, &u))
			break;
		if (!u.has_stmt_list || sp_lineprog_open(&b.lp, &secs, &u, strs, &uerr) < 0)
			continue;
		b.unit = &u;
		b.order = 0;
		walk_unit(&b);
	}
	sp_lineprog_release(&b.lp);
	if (v->nvars > 1)
		qsort(v->vars, v->nvars, sizeof(*v->vars), var_cmp);
}

/* ---- API ---- */

struct sp_dwvars *sp_dwvars_new(Elf *elf, Dwarf *dw, struct sp_strtab *strs)
{
	struct sp_dwvars *v = sp_xcalloc(1, sizeof(*v));

	if (elf) {
		load_sections(v, elf);
		load_symbols(v, elf, strs);
	}
	if (dw && v->nsyms)
		load_vars(v, dw, strs);
	return v;
}

void sp_dwvars_free(struct sp_dwvars *v)
{
	if (!v)
		return;
	free(v->vars);
	free(v->syms);
	free(v->secs);
	free(v);
}

int sp_dwvars_find(const struct sp_dwvars *v, uint64_t addr, const char **file, uint32_t *line)
{
	const char *sym = data_symbol(v, addr);
	size_t lo;

	if (!sym)
		return 0;
	lo = sp_lower_bound_u64(v->vars, v->nvars, sizeof(*v->vars), addr);
	for (; lo < v->nvars && v->vars[lo].addr == addr; lo++)
		if (strstr(sym, v->vars[lo].name)) {
			*file = v->vars[lo].file;
			*line = v->vars[lo].line;
			return 1;
		}
	return 0;
}
