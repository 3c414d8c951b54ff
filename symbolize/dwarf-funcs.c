/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Functions and inline chains: what addr2line -f -i prints for an address.
 *
 * addr2line asks libbfd for the nearest line (which also picks the
 * function) and then walks bfd_find_inliner_info() outwards. This file
 * computes the same answers for every address up front and keeps them as
 * one sorted array of ranges, each naming its innermost function; the
 * chain follows precomputed caller links. A lookup is a binary search and
 * a walk, without allocation.
 *
 * The rules, as observed in binutils 2.40 (dwarf2.c, elf.c) and checked
 * against libbfd by tests/helper/lines-vs-bfd.c:
 *
 *  1. Functions are the DW_TAG_subprogram, DW_TAG_entry_point and
 *     DW_TAG_inlined_subroutine DIEs of a unit, at any depth, but only of
 *     units whose line program bfd can decode (it reads the DIEs of a unit
 *     only then). An inlined subroutine's caller is the nearest enclosing
 *     function DIE; other functions have no caller.
 *  2. Attributes apply in the order of the DIE: DW_AT_linkage_name (or
 *     DW_AT_MIPS_linkage_name) sets the name; DW_AT_name sets it only if it
 *     is still unset. DW_AT_abstract_origin and DW_AT_specification read
 *     the same two attributes from the DIE they point to, following further
 *     DW_AT_specification links (not abstract origins) up to 100 deep. A
 *     name from DW_AT_name counts as a linkage name in C-like languages
 *     (C, Fortran 77, Pascal, Cobol, PL/I, UPC, assembler), which matters
 *     below. Empty strings count as absent.
 *  3. Ranges: DW_AT_ranges (.debug_ranges for DWARF 2-4, .debug_rnglists
 *     for DWARF 5, where bfd knows only the entry kinds without .debug_addr
 *     indexes, and ignores DW_FORM_rnglistx attributes: clang's inlined
 *     functions with several ranges have none for bfd) and
 *     low_pc/high_pc. A new range that starts where a listed one ends (or
 *     ends where one starts) extends it instead of being listed.
 *  4. At an address, the function is the one with the shortest listed
 *     range holding it; on a tie, the later DIE. bfd breaks ties by
 *     comparing allocation addresses, which follow DIE order.
 *  5. bfd takes the function from the unit that answered the line lookup,
 *     or from an earlier unit if that one has a function there.
 *  6. The innermost frame is named by the function's linkage name. A
 *     function whose name is not a linkage name (C++ "main", extern "C"
 *     functions) is named by the ELF symbol bfd finds at the address
 *     (the nearest function symbol at or below it in the same section),
 *     falling back to the DWARF name. Callers are named by their DWARF
 *     names.
 *  7. Inline frames exist only when the innermost function is an inlined
 *     subroutine; each frame gives the caller's name and the call site
 *     (DW_AT_call_file composed like the line table's names, and
 *     DW_AT_call_line), ending at the first function that is not inlined.
 *  8. bfd remembers names between lookups: once it named a function that
 *     has no linkage name by its ELF symbol, it marks the function named,
 *     keeping the symbol's name only when the symbol starts at the
 *     function's first range; later lookups then get the DWARF name.
 *     sp_dwfuncs_find() gives the answer of a fresh bfd (addr2line with one
 *     address); sp_dwfuncs_find_state() that of one process answering
 *     addresses in turn (addr2line reading many, as google-pprof runs it).
 *
 * A unit whose DIEs bfd fails to read (bad references, range
 * lists it cannot read) loses its functions; lines.c drops its lines too
 * where the cause is a range list.
 */
#include "dwarf-funcs.h"

#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>

#include "dwarf-dies.h"
#include "dwarf-lineprog.h"
#include "dwarf-read.h"
#include "ivsweep.h"
#include "lines.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/sort.h"
#include "symprof/strtab.h"

#define NONE UINT32_MAX

struct sp_dwfuncs {
	struct fbuild *pending; /* between sp_dwfuncs_read() and _finish() */
	struct sp_dwfn *fns;
	size_t nfns;
	uint64_t *seg_start; /* segments in address order... */
	uint32_t *seg_fn;    /* ...each with its innermost function or NONE */
	size_t nsegs;
	const struct sp_linetab *lines;
	struct sp_dwsymsec *secs;
	size_t nsecs;
	uint64_t *sym_addr;
	const char **sym_name;
	const char **sym_file;
	size_t nsyms;
	/* made by sp_dwfuncs_new_syms(): sym_name and sym_file point into the
	 * ELF file's string table until a lookup answers with them, when they
	 * are interned (sym_interned[i] set); a shared library's thousands of
	 * symbols cost no hashing for the few a profile hits */
	uint8_t *sym_interned;
	/* functions without a linkage name (C++ templates of local types,
	 * extern "C"): the DIE each takes its name from, by function */
	struct sp_dworigin *origins;
	size_t norigins;
	struct sp_dwnolink *nolink; /* ascending fn */
	size_t nnolink;
	struct sp_strtab *strs;
	struct sp_dwnames *names;   /* names.c's cache, on first use */
	struct sp_dwalias *aliases; /* the symbols bfd does not pick, by address */
	size_t naliases;
	int no_dies; /* made from parts (the index cache): origins have no DIE */
};

struct arange {
	uint64_t low, high;
};

struct fbuild {
	struct sp_dwfuncs *f;
	struct sp_strtab *strs;
	size_t fns_alloc;
	struct sp_iv *iv; /* the current unit's function ranges */
	size_t niv, iv_alloc;
	struct sp_iv *all; /* every unit's segments and line claims */
	size_t nall, all_alloc;
	struct arange *ar; /* the current DIE's ranges, bfd's list order */
	size_t nar, ar_alloc;
	Dwarf_Die *stack;
	uint32_t *encl;
	size_t stack_alloc;
	size_t segs_alloc;
	struct sp_lineprog lp;
	struct sp_dwsecs secs;
	const struct sp_dwunit *unit;
	uint32_t unit_index;
	uint64_t base_address;
	/* the function DIE being read */
	struct sp_dwfn *cur;
	uint64_t low, high;
	int high_rel;
	int failed;
	struct sp_error *err;
	uint64_t seg_end; /* end of the last segment written */
	/* what following an abstract origin from a nameless function gave,
	 * by the origin's DIE offset (inline instances share their origins) */
	struct origin_memo *memo;
	size_t nmemo, memo_used; /* nmemo: a power of two, or 0 */
	/* the line table's verdict on each unit (sp_dwfuncs_read()) */
	sp_dwfuncs_state_fn state;
	void *state_ctx;
	/* the DIE the current function's DW_AT_name came from */
	Dwarf_Die name_die;
	int name_die_set;
	struct sp_pairmap origin_index; /* (DIE offset, Dwarf) -> f->origins */
	size_t origins_alloc, nolink_alloc, aliases_alloc;
	struct sp_dwabbrevs abbrevs; /* the current unit's (walk_unit_fast()) */
	struct sp_dwform_unit fu;
};

struct origin_memo {
	uint64_t off; /* DIE offset + 1; 0: free slot */
	const char *name;
	int is_linkage;
	uint32_t origin; /* the name's DIE in f->origins, or NONE */
};

/* ---- attribute values as bfd reads them ---- */

static uint64_t load(const unsigned char *p, int n, int be)
{
	uint64_t v = 0;
	int i;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!be && n > 0 && n <= 8) {
		memcpy(&v, p, (size_t)n); /* the host's order is the file's */
		return v;
	}
#endif
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

static uint64_t uleb(const unsigned char *p)
{
	uint64_t v = 0;
	unsigned shift = 0;

	do {
		if (shift < 64)
			v |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
	} while (*p++ & 0x80);
	return v;
}

/*
 * The value bfd gives an integer-form attribute: the raw number, except
 * that addrx forms are looked up in .debug_addr. (DW_FORM_rnglistx is not
 * an integer form for bfd, so such ranges are never read.)
 */
static int attr_uint(const struct fbuild *b, Dwarf_Attribute *a, uint64_t *v)
{
	const struct sp_dwunit *u = b->unit;
	const unsigned char *p = a->valp;
	int be = b->secs.big_endian;
	Dwarf_Addr addr;
	Dwarf_Sword sv;

	switch (a->form) {
	case DW_FORM_addr:
		if (u->addr_size == 4 || u->addr_size == 8) {
			/* what dwarf_formaddr() reads (it relocates nothing) */
			*v = load(p, u->addr_size, be);
			return 0;
		}
		/* fall through */
	case DW_FORM_addrx:
	case DW_FORM_addrx1:
	case DW_FORM_addrx2:
	case DW_FORM_addrx3:
	case DW_FORM_addrx4:
		if (dwarf_formaddr(a, &addr) != 0)
			return -1;
		*v = addr;
		return 0;
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(a, &sv) != 0)
			return -1;
		*v = (uint64_t)sv;
		return 0;
	case DW_FORM_flag_present:
		*v = 1;
		return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
		*v = load(p, 1, be);
		return 0;
	case DW_FORM_data2:
	case DW_FORM_ref2:
		*v = load(p, 2, be);
		return 0;
	case DW_FORM_data4:
	case DW_FORM_ref4:
		*v = load(p, 4, be);
		return 0;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
		*v = load(p, 8, be);
		return 0;
	case DW_FORM_ref_addr:
		*v = load(p, u->version >= 3 ? u->offset_size : u->addr_size, be);
		return 0;
	case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt:
		*v = load(p, u->offset_size, be);
		return 0;
	case DW_FORM_udata:
	case DW_FORM_ref_udata:
		*v = uleb(p);
		return 0;
	default:
		return -1;
	}
}

/* A string attribute as bfd reads it: NULL if empty (except strx forms). */
static const char *attr_string(struct fbuild *b, Dwarf_Attribute *a)
{
	const char *s = dwarf_formstring(a);

	if (!s || (!*s && !sp_dw_is_strx_form(a->form)))
		return NULL;
	return sp_strtab_intern(b->strs, s);
}

/* bfd's mangle_style() == 0: names in these languages are linkage names. */
static int plain_names(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_PLI:
	case DW_LANG_C99:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
	case 0x8765: /* DW_LANG_Upc, the old vendor code */
	case 0x8004: /* DW_LANG_HP_Basic91 */
	case 0x8006: /* DW_LANG_HP_IMacro */
	case 0x8007: /* DW_LANG_HP_Assembler */
		return 1;
	default:
		return 0;
	}
}

static int die_lang(const struct fbuild *b, Dwarf_Die *die)
{
	Dwarf_Die cudie;
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (die->cu == b->unit->die.cu)
		return b->unit->lang;
	if (!dwarf_diecu(die, &cudie, NULL, NULL) || !dwarf_attr(&cudie, DW_AT_language, &a) ||
	    dwarf_formudata(&a, &w) != 0)
		return 0;
	return (int)w;
}

static int fail(struct fbuild *b, const char *what, Dwarf_Die *die)
{
	if (!b->failed)
		sp_error_set(b->err, SP_E_CORRUPT, "DIE at %#llx: %s",
			     (unsigned long long)dwarf_dieoffset(die), what);
	b->failed = 1;
	return DWARF_CB_ABORT;
}

/* ---- rule 3: ranges ---- */

static void arange_add(struct fbuild *b, uint64_t low, uint64_t high)
{
	size_t i;

	if (low == high)
		return;
	if (b->nar == 0 || b->ar[0].high == 0) {
		SP_ALLOC_GROW(b->ar, 1, b->ar_alloc);
		b->ar[0].low = low;
		b->ar[0].high = high;
		if (b->nar == 0)
			b->nar = 1;
		return;
	}
	for (i = 0; i < b->nar; i++) {
		if (low == b->ar[i].high) {
			b->ar[i].high = high;
			return;
		}
		if (high == b->ar[i].low) {
			b->ar[i].low = low;
			return;
		}
	}
	/* bfd links a new range right after the first one */
	SP_ALLOC_GROW(b->ar, b->nar + 1, b->ar_alloc);
	memmove(b->ar + 2, b->ar + 1, (b->nar - 1) * sizeof(*b->ar));
	b->ar[1].low = low;
	b->ar[1].high = high;
	b->nar++;
}

static void add_range(void *ctx, uint64_t low, uint64_t high)
{
	arange_add(ctx, low, high);
}

/* ---- rule 2: names ---- */

static int follow(struct fbuild *b, Dwarf_Attribute *a, int depth, Dwarf_Die *from);

struct absctx {
	struct fbuild *b;
	Dwarf_Die *die;
	int depth, lang;
};

static int abstract_attr(Dwarf_Attribute *a, void *arg)
{
	struct absctx *c = arg;
	struct sp_dwfn *f = c->b->cur;

	switch (a->code) {
	case DW_AT_name:
		if (!f->name && sp_dw_is_str_form(a->form)) {
			f->name = attr_string(c->b, a);
			if (plain_names(c->lang))
				f->is_linkage = 1;
			c->b->name_die = *c->die;
			c->b->name_die_set = 1;
		}
		break;
	case DW_AT_specification:
		if (sp_dw_is_int_form(a->form) && follow(c->b, a, c->depth + 1, c->die) < 0)
			return DWARF_CB_ABORT;
		break;
	case DW_AT_linkage_name:
	case DW_AT_MIPS_linkage_name:
		if (sp_dw_is_str_form(a->form)) {
			f->name = attr_string(c->b, a);
			f->is_linkage = 1;
		}
		break;
	default:
		break;
	}
	return DWARF_CB_OK;
}

/* The memo slot of DIE offset `off` (free or holding it); grows the table. */
static struct origin_memo *memo_slot(struct fbuild *b, Dwarf_Off off)
{
	uint64_t key = (uint64_t)off + 1;
	size_t i, mask;

	if (2 * (b->memo_used + 1) > b->nmemo) {
		struct origin_memo *old = b->memo;
		size_t n = b->nmemo;

		b->nmemo = n ? 2 * n : 1024;
		b->memo = sp_xcalloc(b->nmemo, sizeof(*b->memo));
		for (i = 0; i < n; i++)
			if (old[i].off)
				*memo_slot(b, old[i].off - 1) = old[i];
		free(old);
	}
	mask = b->nmemo - 1;
	for (i = (size_t)(key * UINT64_C(0x9e3779b97f4a7c15) >> 20) & mask;
	     b->memo[i].off && b->memo[i].off != key; i = (i + 1) & mask)
		;
	return &b->memo[i];
}

/* The origin of a function named by DW_AT_name `die`, entered once. */
static void origin_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_dwfuncs *f = ctx;
	Dwarf_Die die = f->origins[i].die;

	*k1 = dwarf_dieoffset(&die);
	*k2 = (uint64_t)(uintptr_t)dwarf_cu_getdwarf(die.cu);
}

static uint32_t origin_findnew(struct fbuild *b, Dwarf_Die *die)
{
	struct sp_dwfuncs *f = b->f;
	uint32_t i = sp_pairmap_put(&b->origin_index, dwarf_dieoffset(die),
				    (uint64_t)(uintptr_t)dwarf_cu_getdwarf(die->cu),
				    (uint32_t)f->norigins);

	if (i == f->norigins) {
		SP_ALLOC_GROW(f->origins, f->norigins + 1, b->origins_alloc);
		memset(&f->origins[i], 0, sizeof(f->origins[i]));
		f->origins[i].die = *die;
		f->norigins++;
	}
	return i;
}

/* bfd's find_abstract_instance(): names from the DIE that `a` refers to. */
static int follow(struct fbuild *b, Dwarf_Attribute *a, int depth, Dwarf_Die *from)
{
	Dwarf_Die target;
	struct origin_memo *memo;
	struct absctx c;
	uint64_t ref;

	if (depth == 100)
		return fail(b, "abstract instance recursion detected", from), -1;
	if (a->form == DW_FORM_ref_addr && attr_uint(b, a, &ref) == 0 && ref == 0)
		return 0;
	if (a->form == DW_FORM_ref_sig8 || !dwarf_formref_die(a, &target))
		return fail(b, "invalid abstract instance DIE ref", from), -1;
	/* from a function with no name yet, the outcome depends only on the
	 * target: remember it (at depth 0, so the recursion limit is the same) */
	memo = depth == 0 && !b->cur->name ? memo_slot(b, dwarf_dieoffset(&target)) : NULL;
	if (memo && memo->off) {
		b->cur->name = memo->name;
		if (memo->is_linkage)
			b->cur->is_linkage = 1;
		if (memo->origin != NONE) {
			b->name_die = b->f->origins[memo->origin].die;
			b->name_die_set = 1;
		}
		return 0;
	}
	c.b = b;
	c.die = &target;
	c.depth = depth;
	c.lang = die_lang(b, &target);
	if (dwarf_getattrs(&target, abstract_attr, &c, 0) == -1)
		return fail(b, "cannot read abstract instance DIE", from), -1;
	if (b->failed)
		return -1;
	if (memo) {
		memo->off = (uint64_t)dwarf_dieoffset(&target) + 1;
		memo->name = b->cur->name;
		memo->is_linkage = b->cur->is_linkage;
		memo->origin = b->cur->name && !b->cur->is_linkage && b->name_die_set
				       ? origin_findnew(b, &b->name_die)
				       : NONE;
		b->memo_used++;
	}
	return 0;
}

struct fnctx {
	struct fbuild *b;
	Dwarf_Die *die;
};

static int fn_attr(Dwarf_Attribute *a, void *arg)
{
	struct fnctx *c = arg;
	struct fbuild *b = c->b;
	struct sp_dwfn *f = b->cur;
	uint64_t v;

	if (sp_dw_is_int_form(a->form)) {
		if (attr_uint(b, a, &v) < 0)
			return DWARF_CB_OK;
		switch (a->code) {
		case DW_AT_call_file:
			f->call_file = sp_lineprog_filename(&b->lp, v);
			break;
		case DW_AT_call_line:
			f->call_line = (uint32_t)v;
			break;
		case DW_AT_abstract_origin:
		case DW_AT_specification:
			if (follow(b, a, 0, c->die) < 0)
				return DWARF_CB_ABORT;
			break;
		case DW_AT_low_pc:
			b->low = v;
			break;
		case DW_AT_high_pc:
			b->high = v;
			b->high_rel = a->form != DW_FORM_addr;
			break;
		case DW_AT_ranges:
			if (sp_dw_rangelist(&b->secs, b->unit, b->base_address, v, add_range, b) <
			    0)
				return fail(b, "cannot read range list", c->die);
			break;
		default:
			break;
		}
	} else if (sp_dw_is_str_form(a->form)) {
		if (a->code == DW_AT_name && !f->name) {
			f->name = attr_string(b, a);
			if (plain_names(b->unit->lang))
				f->is_linkage = 1;
			b->name_die = *c->die;
			b->name_die_set = 1;
		} else if (a->code == DW_AT_linkage_name || a->code == DW_AT_MIPS_linkage_name) {
			f->name = attr_string(b, a);
			f->is_linkage = 1;
		}
	}
	return DWARF_CB_OK;
}

/* Starts the entry of a function DIE of tag `tag`; its attributes follow. */
static void fn_begin(struct fbuild *b, int tag, uint32_t encl, uint32_t *idx)
{
	struct sp_dwfuncs *f = b->f;

	*idx = (uint32_t)f->nfns;
	SP_ALLOC_GROW(f->fns, f->nfns + 1, b->fns_alloc);
	b->cur = &f->fns[f->nfns++];
	memset(b->cur, 0, sizeof(*b->cur));
	b->cur->unit = b->unit_index;
	b->cur->inlined = tag == DW_TAG_inlined_subroutine;
	b->cur->caller = b->cur->inlined ? encl : NONE;
	b->low = b->high = 0;
	b->high_rel = 0;
	b->nar = 0;
	b->name_die_set = 0;
}

/* Ends function idx after its attributes: queues its ranges for the
 * unit's sweep. -1 if bfd gives up on the unit. */
static int fn_end(struct fbuild *b, uint32_t idx)
{
	struct sp_dwfuncs *f = b->f;
	size_t i;

	if (b->failed)
		return -1;
	if (b->cur->name && !b->cur->is_linkage && b->name_die_set) {
		SP_ALLOC_GROW(f->nolink, f->nnolink + 1, b->nolink_alloc);
		f->nolink[f->nnolink].fn = idx;
		f->nolink[f->nnolink++].origin = origin_findnew(b, &b->name_die);
	}
	if (b->high_rel)
		b->high += b->low;
	if (b->high != 0)
		arange_add(b, b->low, b->high);
	b->cur->low = b->nar ? b->ar[0].low : 0;
	for (i = 0; i < b->nar; i++) {
		struct sp_iv *iv;

		if (b->ar[i].low >= b->ar[i].high)
			continue;
		SP_ALLOC_GROW(b->iv, b->niv + 1, b->iv_alloc);
		iv = &b->iv[b->niv++];
		iv->start = b->ar[i].low;
		iv->end = b->ar[i].high;
		iv->key1 = b->ar[i].high - b->ar[i].low;
		iv->key2 = UINT64_MAX - idx; /* later DIEs win ties */
		iv->id = idx;
	}
	return 0;
}

/* Reads one function DIE through libdw. */
static int read_fn(struct fbuild *b, Dwarf_Die *die, int tag, uint32_t encl, uint32_t *idx)
{
	struct fnctx c = {b, die};

	fn_begin(b, tag, encl, idx);
	if (dwarf_getattrs(die, fn_attr, &c, 0) == -1)
		fail(b, "cannot read attributes", die);
	return fn_end(b, *idx);
}

/*
 * read_fn() with the attributes decoded here, in the DIE's order as
 * dwarf_getattrs() gives them: *p is after the DIE's abbreviation code
 * and is left after its attributes. -2 for a value this cannot size
 * (the unit is then read through libdw).
 */
static int read_fn_fast(struct fbuild *b, Dwarf_Die *die, const struct sp_dwabbrev *ab,
			const uint8_t **p, const uint8_t *end, uint32_t encl, uint32_t *idx)
{
	const struct sp_dwabbrev_attr *at = b->abbrevs.attrs + ab->first;
	struct fnctx c = {b, die};
	uint32_t i;

	fn_begin(b, (int)ab->tag, encl, idx);
	for (i = 0; i < ab->n; i++) {
		Dwarf_Attribute a;

		a.code = at[i].name;
		a.form = at[i].form;
		a.valp = (unsigned char *)(uintptr_t)(at[i].implicit ? at[i].implicit : *p);
		a.cu = die->cu;
		if (sp_dwattr_skip(p, end, &at[i], &b->fu) < 0)
			return -2;
		if (fn_attr(&a, &c) != DWARF_CB_OK)
			return -1; /* fail() was called */
	}
	return fn_end(b, *idx);
}

/* ---- rules 1 and 4: walking a unit ---- */

static void grow_stack(struct fbuild *b, size_t depth)
{
	if (depth < b->stack_alloc)
		return;
	b->stack_alloc = 2 * depth + 16;
	b->stack = sp_xreallocarray(b->stack, b->stack_alloc, sizeof(*b->stack));
	b->encl = sp_xreallocarray(b->encl, b->stack_alloc, sizeof(*b->encl));
}

static int is_fn_tag(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_entry_point ||
	       tag == DW_TAG_inlined_subroutine;
}

/* DIEs whose children are never functions: call sites (a quarter of the
 * DIEs of optimised code are their parameters) and data. Not walking into
 * them changes no answer; libdw then skips them with DW_AT_sibling. */
static int no_fn_children(int tag)
{
	switch (tag) {
	case DW_TAG_call_site:
	case DW_TAG_GNU_call_site:
	case DW_TAG_formal_parameter:
	case DW_TAG_variable:
	case DW_TAG_enumeration_type:
	case DW_TAG_array_type:
	case DW_TAG_subroutine_type:
		return 1;
	default:
		return 0;
	}
}

/* The end of the unit of `die` in memory, or NULL if libdw cannot say. */
static const unsigned char *unit_end(Dwarf_Die *die)
{
	Dwarf *dw = die->cu ? dwarf_cu_getdwarf(die->cu) : NULL;
	Dwarf_Off off = dwarf_dieoffset(die), next;

	if (!dw ||
	    dwarf_next_unit(dw, off - dwarf_cuoffset(die), &next, NULL, NULL, NULL, NULL, NULL,
			    NULL, NULL) != 0 ||
	    next < off)
		return NULL;
	return (const unsigned char *)die->addr + (next - off);
}

/*
 * After the last of the DIEs at `*depth` (`null`: the null entry that ends
 * their list, as dwarf_siblingof() gives it): the next DIE of the walk, at
 * the depth it is found, read on from there. Asking libdw for the sibling
 * of the parent instead would walk all the parent's children again (it
 * only jumps with DW_AT_sibling): a subprogram's DIEs would be read once
 * per level of nesting. Returns 0 when the unit ends.
 */
static int next_up(struct fbuild *b, size_t *depth, const unsigned char *null,
		   const unsigned char *end)
{
	while (null && end && null<end && * depth> 0) {
		Dwarf_Die *up = &b->stack[--*depth];

		if (++null < end && *null != 0) {
			struct Dwarf_CU *cu = up->cu;

			memset(up, 0, sizeof(*up));
			up->addr = (void *)null;
			up->cu = cu;
			return 1;
		}
	}
	return 0;
}

/* Depth-first over the unit's DIEs; encl[d] is the function around depth d. */
static int walk_unit(struct fbuild *b)
{
	Dwarf_Die cudie = b->unit->die;
	const unsigned char *end = unit_end(&cudie);
	size_t depth = 0;

	grow_stack(b, 1);
	if (dwarf_child(&cudie, &b->stack[0]) != 0)
		return 0;
	b->encl[0] = NONE;
	for (;;) {
		Dwarf_Die *die = &b->stack[depth], next;
		int tag = dwarf_tag(die), r;
		uint32_t self = NONE;

		if (is_fn_tag(tag) && read_fn(b, die, tag, b->encl[depth], &self) < 0)
			return -1;
		if (!no_fn_children(tag) && dwarf_haschildren(die)) {
			grow_stack(b, depth + 2);
			die = &b->stack[depth];
			if (dwarf_child(die, &b->stack[depth + 1]) == 0) {
				b->encl[depth + 1] = self != NONE ? self : b->encl[depth];
				depth++;
				continue;
			}
		}
		next.addr = NULL;
		r = dwarf_siblingof(&b->stack[depth], &next);
		if (r < 0)
			return fail(b, "cannot read sibling", &b->stack[depth]), -1;
		if (r == 0)
			b->stack[depth] = next;
		else if (!next_up(b, &depth, next.addr, end))
			return 0;
	}
}

static int libdw_walk; /* sp_dwfuncs_set_libdw_walk() */

void sp_dwfuncs_set_libdw_walk(int on)
{
	libdw_walk = on;
}

/* Steps *p over the attributes of abbreviation ab; -1 if it cannot. */
static int skip_attrs(const struct fbuild *b, const struct sp_dwabbrev *ab, const uint8_t **p,
		      const uint8_t *end)
{
	const struct sp_dwabbrev_attr *at = b->abbrevs.attrs + ab->first;
	uint32_t i;

	if (ab->fixed >= 0) {
		if ((uint64_t)ab->fixed > (uint64_t)(end - *p))
			return -1;
		*p += ab->fixed;
		return 0;
	}
	for (i = 0; i < ab->n; i++)
		if (sp_dwattr_skip(p, end, &at[i], &b->fu) < 0)
			return -1;
	return 0;
}

/*
 * walk_unit() over the unit's bytes, with its abbreviation table read
 * once (dwarf-dies.h): the same function DIEs in the same order, the
 * children of no_fn_children() DIEs stepped over. 0 at the unit's end,
 * -1 when bfd gives up on the unit, -2 when something is not understood
 * here (an unknown or indirect form, a sparse table): the caller then
 * walks the unit through libdw.
 */
static int walk_unit_fast(struct fbuild *b)
{
	Dwarf_Die cudie = b->unit->die, first;
	Dwarf *dw = cudie.cu ? dwarf_cu_getdwarf(cudie.cu) : NULL;
	Dwarf_Off off = dwarf_dieoffset(&cudie), next, abbrev_off;
	const uint8_t *p, *end;
	size_t depth = 0, skip_from = SIZE_MAX; /* children of a no_fn DIE */

	if (!dw || libdw_walk ||
	    dwarf_next_unit(dw, off - dwarf_cuoffset(&cudie), &next, NULL, NULL, &abbrev_off, NULL,
			    NULL, NULL, NULL) != 0 ||
	    next < off)
		return -2;
	b->fu.version = b->unit->version;
	b->fu.addr_size = b->unit->addr_size;
	b->fu.offset_size = b->unit->offset_size;
	b->fu.big_endian = b->secs.big_endian;
	if (sp_dwabbrevs_read(&b->abbrevs, b->secs.abbrev.data, b->secs.abbrev.size, abbrev_off,
			      &b->fu) < 0)
		return -2;
	if (dwarf_child(&cudie, &first) != 0)
		return 0;
	p = first.addr;
	end = (const uint8_t *)cudie.addr + (next - off);
	grow_stack(b, 1);
	b->encl[0] = NONE;
	while (p < end) {
		const uint8_t *at = p;
		const struct sp_dwabbrev *ab;
		uint32_t self = NONE;
		uint64_t code;

		if (*p < 0x80) {
			code = *p++;
		} else {
			struct rd r = {p, end, 0};

			code = rd_leb(&r, 0);
			if (r.p[-1] & 0x80)
				return -2; /* cut at the unit's end: libdw says what */
			p = r.p;
		}
		if (code == 0) {
			if (depth == 0)
				return 0;
			if (--depth < skip_from)
				skip_from = SIZE_MAX;
			continue;
		}
		ab = sp_dwabbrevs_find(&b->abbrevs, code);
		if (!ab)
			return -2;
		if (skip_from == SIZE_MAX && is_fn_tag((int)ab->tag)) {
			Dwarf_Die die;
			int r;

			memset(&die, 0, sizeof(die));
			die.addr = (void *)(uintptr_t)at;
			die.cu = cudie.cu;
			r = read_fn_fast(b, &die, ab, &p, end, b->encl[depth], &self);
			if (r < 0)
				return r;
		} else if (skip_attrs(b, ab, &p, end) < 0) {
			return -2;
		}
		if (ab->children) {
			grow_stack(b, depth + 2);
			b->encl[depth + 1] = self != NONE ? self : b->encl[depth];
			depth++;
			if (skip_from == SIZE_MAX && no_fn_children((int)ab->tag))
				skip_from = depth;
		}
	}
	return 0;
}

static void unit_seg_out(void *ctx, uint64_t start, uint64_t end, const struct sp_iv *w)
{
	struct fbuild *b = ctx;
	struct sp_iv *last = b->nall ? &b->all[b->nall - 1] : NULL;

	if (last && last->key1 == b->unit_index && last->id == w->id && last->end == start) {
		last->end = end;
		return;
	}
	SP_ALLOC_GROW(b->all, b->nall + 1, b->all_alloc);
	last = &b->all[b->nall++];
	last->start = start;
	last->end = end;
	last->key1 = b->unit_index;
	last->key2 = 0;
	last->id = w->id;
}

static uint64_t unit_base(const struct sp_dwunit *u)
{
	Dwarf_Die die = u->die;
	Dwarf_Attribute a;
	Dwarf_Addr addr;

	if (dwarf_tag(&die) != DW_TAG_compile_unit || !dwarf_attr(&die, DW_AT_low_pc, &a) ||
	    !sp_dw_is_int_form(a.form) || dwarf_formaddr(&a, &addr) != 0)
		return 0;
	return addr;
}

/* Drops the functions from index nfns on (the current unit's). */
static void forget_functions(struct fbuild *b, size_t nfns)
{
	b->f->nfns = nfns;
	while (b->f->nnolink && b->f->nolink[b->f->nnolink - 1].fn >= nfns)
		b->f->nnolink--;
}

/*
 * Reads the functions of unit u, whose line program (the one of lpunit)
 * the line table decoded; a program with DW_LNE_define_file is run again
 * for the file numbers it adds.
 */
static void read_unit(struct fbuild *b, const struct sp_dwunit *u, const struct sp_dwunit *lpunit,
		      int run)
{
	struct sp_error uerr = SP_ERROR_INIT;
	size_t nfns = b->f->nfns;
	int r;

	if (sp_lineprog_open(&b->lp, &b->secs, lpunit, b->strs, &uerr) < 0 ||
	    (run && sp_lineprog_run(&b->lp, NULL, NULL, &uerr)))
		return;
	b->unit = u;
	b->base_address = unit_base(u);
	b->niv = 0;
	b->failed = 0;
	b->err = &uerr;
	r = walk_unit_fast(b);
	if (r == -2) {
		/* start the unit again through libdw */
		forget_functions(b, nfns);
		b->niv = 0;
		b->failed = 0;
		r = walk_unit(b);
	}
	if (r < 0) {
		/* bfd gives up on the unit: forget its functions */
		forget_functions(b, nfns);
		return;
	}
	sp_iv_sort(b->iv, b->niv);
	sp_iv_sweep(b->iv, b->niv, unit_seg_out, b);
}

static int read_units(struct fbuild *b, Dwarf *dw, struct sp_error *err)
{
	struct sp_dwunit u, first0;
	enum sp_linetab_unit_state state;
	Dwarf_CU *cu = NULL;
	int r, first0_runs = 0;

	for (b->unit_index = 0; (r = sp_dwunit_next(dw, &cu, &u, err)) > 0; b->unit_index++) {
		if (!sp_dwunit_bfd_reads(&b->secs, &u))
			return 0; /* bfd stops reading units there */
		state = b->state(b->state_ctx, b->unit_index);
		switch (state) {
		case SP_LINETAB_UNIT_OK:
		case SP_LINETAB_UNIT_DEFINES:
			if (u.line_offset == 0) {
				first0 = u;
				first0_runs = state == SP_LINETAB_UNIT_DEFINES;
			}
			read_unit(b, &u, &u, state == SP_LINETAB_UNIT_DEFINES);
			break;
		case SP_LINETAB_UNIT_SHARED:
			/* bfd shares the table at offset 0, read with the first unit */
			read_unit(b, &u, &first0, first0_runs);
			break;
		default:
			break;
		}
	}
	return r;
}

/* ---- rule 5: one table for all units ---- */

/* The line table claims, for each unit, the addresses it answers. */
static void add_line_claims(struct fbuild *b)
{
	const struct sp_linetab_run *runs;
	size_t n = sp_linetab_unit_runs(b->f->lines, &runs), i;

	SP_ALLOC_GROW(b->all, b->nall + n, b->all_alloc);
	for (i = 0; i < n; i++) {
		struct sp_iv *iv = &b->all[b->nall++];

		iv->start = runs[i].start;
		iv->end = runs[i].end;
		iv->key1 = runs[i].unit;
		iv->key2 = 1;
		iv->id = NONE;
	}
}

static void push_seg(struct fbuild *b, uint64_t start, uint32_t fn)
{
	struct sp_dwfuncs *f = b->f;

	if (f->nsegs && f->seg_fn[f->nsegs - 1] == fn)
		return;
	if (f->nsegs == b->segs_alloc) {
		b->segs_alloc = b->segs_alloc ? 2 * b->segs_alloc : 256;
		f->seg_start = sp_xreallocarray(f->seg_start, b->segs_alloc, sizeof(*f->seg_start));
		f->seg_fn = sp_xreallocarray(f->seg_fn, b->segs_alloc, sizeof(*f->seg_fn));
	}
	f->seg_start[f->nsegs] = start;
	f->seg_fn[f->nsegs++] = fn;
}

static void final_out(void *ctx, uint64_t start, uint64_t end, const struct sp_iv *w)
{
	struct fbuild *b = ctx;

	if (b->f->nsegs && start > b->seg_end)
		push_seg(b, b->seg_end, NONE);
	push_seg(b, start, w->key2 ? NONE : (uint32_t)w->id);
	b->seg_end = end;
}

static void build_segments(struct fbuild *b)
{
	add_line_claims(b);
	sp_iv_sort(b->all, b->nall);
	sp_iv_sweep(b->all, b->nall, final_out, b);
	if (b->f->nsegs)
		push_seg(b, b->seg_end, NONE);
}

/* ---- rule 6: ELF symbols ---- */

struct symc {
	uint64_t addr, size;
	size_t order;
	const char *name;
	const char *file; /* the STT_FILE bfd names with it, or NULL */
	size_t sec;
};

/* by section, address, larger size first, then symbol table order (a
 * total order: any sort gives the same result) */
static int symc_less(const struct symc *a, const struct symc *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec;
	if (a->addr != b->addr)
		return a->addr < b->addr;
	if (a->size != b->size)
		return a->size > b->size;
	return a->order < b->order;
}

SP_DEFINE_STABLE_SORT(sort_symcs, struct symc, symc_less)

/* bfd's maybe_function_sym(): could this symbol name code? */
static int is_code_sym(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (type == STT_SECTION || type == STT_FILE || type == STT_OBJECT || type == STT_TLS ||
	    type == 8 /* STT_RELC */ || type == 9 /* STT_SRELC */)
		return 0;
	/* annobin's hidden local notype markers */
	return !(s->st_size == 0 && GELF_ST_BIND(s->st_info) == STB_LOCAL && type == STT_NOTYPE &&
		 GELF_ST_VISIBILITY(s->st_other) == STV_HIDDEN);
}

Elf_Scn *sp_elf_symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || !sh->sh_entsize)
			continue;
		if (sh->sh_type == SHT_SYMTAB && sh->sh_size / sh->sh_entsize > 1)
			return scn;
		if (sh->sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = *sh;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

/* The allocated sections, in header order, and a map from section index. */
static uint32_t *load_sections(struct sp_dwfuncs *f, Elf *elf, size_t *nscn)
{
	Elf_Scn *scn = NULL;
	uint32_t *map;
	size_t i;

	if (elf_getshdrnum(elf, nscn) < 0)
		return NULL;
	map = sp_xreallocarray(NULL, *nscn ? *nscn : 1, sizeof(*map));
	for (i = 0; i < *nscn; i++)
		map[i] = NONE;
	f->secs = sp_xreallocarray(NULL, *nscn ? *nscn : 1, sizeof(*f->secs));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		map[elf_ndxscn(scn)] = (uint32_t)f->nsecs;
		f->secs[f->nsecs].lo = sh.sh_addr;
		f->secs[f->nsecs].hi = sh.sh_addr + sh.sh_size;
		f->secs[f->nsecs].first = f->secs[f->nsecs].n = 0;
		f->nsecs++;
	}
	return map;
}

static struct symc *collect_syms(Elf *elf, const uint32_t *map, size_t nscn, size_t *n)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sp_elf_symtab(elf, &sh);
	Elf_Data *data, *xdata = NULL;
	struct symc *v = NULL;
	size_t alloc = 0, count, i;
	Elf_Scn *x = NULL;
	const char *file = NULL;
	int state = 0; /* 0 nothing seen, 1 a symbol seen, 2 a file after a symbol */

	*n = 0;
	if (!scn || !(data = elf_getdata(scn, NULL)))
		return NULL;
	while ((x = elf_nextscn(elf, x))) {
		GElf_Shdr xs;

		if (gelf_getshdr(x, &xs) && xs.sh_type == SHT_SYMTAB_SHNDX &&
		    xs.sh_link == elf_ndxscn(scn))
			xdata = elf_getdata(x, NULL);
	}
	count = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < count; i++) {
		GElf_Sym s;
		Elf32_Word xndx;
		size_t shndx;

		if (!gelf_getsymshndx(data, xdata, (int)i, &s, &xndx))
			continue;
		/* _bfd_elf_find_function's file name: the last STT_FILE before
		 * the symbol, for a global one only while no file symbol has
		 * followed an other symbol */
		if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
			file = elf_strptr(elf, sh.sh_link, s.st_name);
			if (state == 1)
				state = 2;
			continue;
		}
		if (!state)
			state = 1;
		shndx = s.st_shndx == SHN_XINDEX ? xndx : s.st_shndx;
		if (shndx == SHN_UNDEF ||
		    (s.st_shndx >= SHN_LORESERVE && s.st_shndx != SHN_XINDEX) || shndx >= nscn ||
		    map[shndx] == NONE || !is_code_sym(&s))
			continue;
		SP_ALLOC_GROW(v, *n + 1, alloc);
		v[*n].addr = s.st_value;
		v[*n].size = s.st_size ? s.st_size : 1;
		v[*n].order = i;
		v[*n].name = elf_strptr(elf, sh.sh_link, s.st_name);
		v[*n].file = GELF_ST_BIND(s.st_info) == STB_LOCAL || state != 2 ? file : NULL;
		v[*n].sec = map[shndx];
		(*n)++;
	}
	return v;
}

static int alias_less(const struct sp_dwalias *a, const struct sp_dwalias *b)
{
	return a->addr < b->addr;
}

/* stable: aliases at one address keep their symbol order */
SP_DEFINE_STABLE_SORT(sort_aliases, struct sp_dwalias, alias_less)

/*
 * v sorted by symc_less(), in a new array (v is freed). In symbol table
 * order already, v is sorted by size (larger first) and then by address
 * and section with two stable radix sorts of (key, index) pairs, when
 * sections and addresses fit one 64-bit key; else by merge sort.
 */
static struct symc *sort_syms(struct symc *v, size_t n)
{
	struct sp_keyed *k, *out;
	struct symc *sorted;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].sec >= (1u << 16) || v[i].addr >> 48)
			break;
	if (i < n || n > UINT32_MAX) {
		sorted = sp_xreallocarray(NULL, n, sizeof(*sorted));
		sort_symcs(v, n, sorted);
		free(sorted);
		return v;
	}
	k = sp_xreallocarray(NULL, 2 * n, sizeof(*k));
	for (i = 0; i < n; i++) {
		k[i].key = ~v[i].size;
		k[i].idx = (uint32_t)i;
	}
	out = sp_sort_keyed(k, n, k + n);
	for (i = 0; i < n; i++)
		out[i].key = (uint64_t)v[out[i].idx].sec << 48 | v[out[i].idx].addr;
	out = sp_sort_keyed(out, n, out == k ? k + n : k);
	sorted = sp_xreallocarray(NULL, n, sizeof(*sorted));
	for (i = 0; i < n; i++)
		sorted[i] = v[out[i].idx];
	free(k);
	free(v);
	return sorted;
}

/* load_symbols() with lazy 0: the names interned as they are read (the
 * DWARF's ELF may be an in-memory copy that goes before the table does);
 * with lazy 1 (the image's own ELF, open as long as the table) they stay
 * pointers into its string table until asked (symbol_file_at()). */
static void load_symbols(struct fbuild *b, Elf *elf, int lazy)
{
	struct sp_dwfuncs *f = b->f;
	size_t nscn, n, i;
	uint32_t *map = elf ? load_sections(f, elf, &nscn) : NULL;
	struct symc *v;

	if (!map)
		return;
	v = collect_syms(elf, map, nscn, &n);
	if (n > 1)
		v = sort_syms(v, n);
	f->sym_addr = sp_xreallocarray(NULL, n ? n : 1, sizeof(*f->sym_addr));
	f->sym_name = sp_xreallocarray(NULL, n ? n : 1, sizeof(*f->sym_name));
	f->sym_file = sp_xreallocarray(NULL, n ? n : 1, sizeof(*f->sym_file));
	for (i = 0; i < n; i++) {
		struct sp_dwsymsec *sec = &f->secs[v[i].sec];

		/* bfd measures a symbol from its section's start: one below it
		 * (__bss_start before an aligned .bss) is never the nearest */
		if (v[i].addr < sec->lo)
			continue;
		/* per address, bfd keeps the largest, then the first symbol;
		 * the others are aliases (ascending by address too) */
		if (i > 0 && v[i].sec == v[i - 1].sec && v[i].addr == v[i - 1].addr) {
			SP_ALLOC_GROW(f->aliases, f->naliases + 1, b->aliases_alloc);
			f->aliases[f->naliases].addr = v[i].addr;
			/* only compared (sp_dwfuncs_has_alias()), never answered */
			f->aliases[f->naliases++].name =
				v[i].name && !lazy ? sp_strtab_intern(b->strs, v[i].name)
						   : v[i].name;
			continue;
		}
		if (!sec->n)
			sec->first = f->nsyms;
		sec->n++;
		f->sym_addr[f->nsyms] = v[i].addr;
		if (lazy) {
			f->sym_file[f->nsyms] = v[i].file;
			f->sym_name[f->nsyms++] = v[i].name;
			continue;
		}
		f->sym_file[f->nsyms] = v[i].file ? sp_strtab_intern(b->strs, v[i].file) : NULL;
		f->sym_name[f->nsyms++] = v[i].name ? sp_strtab_intern(b->strs, v[i].name) : NULL;
	}
	if (lazy)
		f->sym_interned = sp_xcalloc(f->nsyms ? f->nsyms : 1, 1);
	if (f->naliases > 1) {
		struct sp_dwalias *tmp = sp_xreallocarray(NULL, f->naliases, sizeof(*tmp));

		sort_aliases(f->aliases, f->naliases, tmp);
		free(tmp);
	}
	free(v);
	free(map);
}

/* ---- API ---- */

/* Each origin learns the address of an out-of-line instance, if any. */
static void link_outlines(struct sp_dwfuncs *f)
{
	size_t i;

	for (i = 0; i < f->nnolink; i++) {
		const struct sp_dwfn *fn = &f->fns[f->nolink[i].fn];
		struct sp_dworigin *o = &f->origins[f->nolink[i].origin];

		if (!fn->inlined && fn->low && !o->outline)
			o->outline = fn->low;
	}
}

static void fbuild_release(struct fbuild *b)
{
	sp_pairmap_release(&b->origin_index);
	free(b->memo);
	free(b->iv);
	free(b->all);
	free(b->ar);
	free(b->stack);
	free(b->encl);
	sp_dwabbrevs_release(&b->abbrevs);
	sp_lineprog_release(&b->lp);
}

static enum sp_linetab_unit_state table_state(void *ctx, uint32_t unit)
{
	return sp_linetab_unit_state(ctx, unit);
}

struct sp_dwfuncs *sp_dwfuncs_read(Dwarf *dw, sp_dwfuncs_state_fn state, void *state_ctx,
				   struct sp_strtab *strs, struct sp_error *err)
{
	struct sp_dwfuncs *f = sp_xcalloc(1, sizeof(*f));
	struct fbuild *b = sp_xcalloc(1, sizeof(*b));

	b->f = f;
	b->strs = strs;
	b->state = state;
	b->state_ctx = state_ctx;
	f->strs = strs;
	sp_pairmap_init(&b->origin_index, origin_key, f);
	sp_lineprog_init(&b->lp);
	if (sp_dwsecs_load(dw, &b->secs, err) < 0 || read_units(b, dw, err) < 0) {
		fbuild_release(b);
		free(b);
		sp_dwfuncs_free(f);
		return NULL;
	}
	link_outlines(f);
	load_symbols(b, dwarf_getelf(dw), 0);
	f->pending = b;
	return f;
}

void sp_dwfuncs_finish(struct sp_dwfuncs *f, const struct sp_linetab *lines)
{
	struct fbuild *b = f->pending;

	if (!b)
		return;
	f->lines = lines;
	build_segments(b);
	fbuild_release(b);
	free(b);
	f->pending = NULL;
}

struct sp_dwfuncs *sp_dwfuncs_new(Dwarf *dw, const struct sp_linetab *lines, struct sp_strtab *strs,
				  struct sp_error *err)
{
	struct sp_dwfuncs *f = sp_dwfuncs_read(dw, table_state, (void *)lines, strs, err);

	if (f)
		sp_dwfuncs_finish(f, lines);
	return f;
}

struct sp_dwfuncs *sp_dwfuncs_new_syms(Elf *elf, struct sp_strtab *strs)
{
	struct sp_dwfuncs *f = sp_xcalloc(1, sizeof(*f));
	struct fbuild b;

	memset(&b, 0, sizeof(b));
	b.f = f;
	b.strs = strs;
	f->strs = strs;
	load_symbols(&b, elf, 1);
	return f;
}

void sp_dwfuncs_get_parts(const struct sp_dwfuncs *f, struct sp_dwfuncs_parts *p)
{
	p->fns = f->fns;
	p->nfns = f->nfns;
	p->seg_start = f->seg_start;
	p->seg_fn = f->seg_fn;
	p->nsegs = f->nsegs;
	p->secs = f->secs;
	p->nsecs = f->nsecs;
	p->sym_addr = f->sym_addr;
	p->sym_name = f->sym_name;
	p->sym_file = f->sym_file;
	p->nsyms = f->nsyms;
	p->origins = f->origins;
	p->norigins = f->norigins;
	p->nolink = f->nolink;
	p->nnolink = f->nnolink;
	p->aliases = f->aliases;
	p->naliases = f->naliases;
}

struct sp_dwfuncs *sp_dwfuncs_adopt_parts(struct sp_dwfuncs_parts *p,
					  const struct sp_linetab *lines, struct sp_strtab *strs)
{
	struct sp_dwfuncs *f = sp_xcalloc(1, sizeof(*f));

	f->fns = p->fns;
	f->nfns = p->nfns;
	f->seg_start = p->seg_start;
	f->seg_fn = p->seg_fn;
	f->nsegs = p->nsegs;
	f->secs = p->secs;
	f->nsecs = p->nsecs;
	f->sym_addr = p->sym_addr;
	f->sym_name = p->sym_name;
	f->sym_file = p->sym_file;
	f->nsyms = p->nsyms;
	f->origins = p->origins;
	f->norigins = p->norigins;
	f->nolink = p->nolink;
	f->nnolink = p->nnolink;
	f->aliases = p->aliases;
	f->naliases = p->naliases;
	f->lines = lines;
	f->strs = strs;
	f->no_dies = 1;
	memset(p, 0, sizeof(*p));
	return f;
}

struct sp_dwfuncs *sp_dwfuncs_adopt_syms(struct sp_dwfuncs_parts *p, struct sp_strtab *strs)
{
	struct sp_dwfuncs *f = sp_dwfuncs_adopt_parts(p, NULL, strs);

	f->no_dies = 0; /* as sp_dwfuncs_new_syms()'s: no function to name */
	f->sym_interned = sp_xcalloc(f->nsyms ? f->nsyms : 1, 1);
	return f;
}

void sp_dwfuncs_parts_release(struct sp_dwfuncs_parts *p)
{
	free(p->fns);
	free(p->seg_start);
	free(p->seg_fn);
	free(p->secs);
	free(p->sym_addr);
	free(p->sym_name);
	free(p->sym_file);
	free(p->origins);
	free(p->nolink);
	free(p->aliases);
	memset(p, 0, sizeof(*p));
}

int sp_dwfuncs_needs_dies(struct sp_dwfuncs *f, uint32_t fn)
{
	const struct sp_dworigin *o;

	return f->no_dies && fn < f->nfns && !f->fns[fn].is_linkage &&
	       (o = sp_dwfuncs_origin(f, fn)) && !o->name;
}

void sp_dwfuncs_free(struct sp_dwfuncs *f)
{
	struct sp_dwfuncs_parts parts;

	if (!f)
		return;
	if (f->pending) {
		fbuild_release(f->pending);
		free(f->pending);
	}
	sp_dwfuncs_get_parts(f, &parts);
	sp_dwfuncs_parts_release(&parts);
	free(f->sym_interned);
	sp_dwnames_free(f->names);
	free(f);
}

/* Index of the last element of v[0..n) at or below x, or n if none. */
static size_t last_at_or_below(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : n;
}

/* last_at_or_below() starting from *hint (an index into v): a few steps
 * forward when x is at or just past the last answer, a search otherwise. */
static size_t last_at_or_below_hint(const uint64_t *v, size_t n, uint64_t x, size_t *hint)
{
	size_t i = *hint, k;

	if (i < n && v[i] <= x) {
		for (k = 0; k < 8 && i + 1 < n && v[i + 1] <= x; k++)
			i++;
		if (i + 1 == n || v[i + 1] > x) {
			*hint = i;
			return i;
		}
	}
	i = last_at_or_below(v, n, x);
	if (i < n)
		*hint = i;
	return i;
}

/* The symbol bfd's _bfd_elf_find_function finds at addr, its address and
 * (file not NULL) the file it names with it. */
static const char *symbol_file_at(const struct sp_dwfuncs *f, uint64_t addr,
				  struct sp_dwfuncs_cursor *c, uint64_t *sym_addr,
				  const char **file)
{
	size_t i, k, hint;
	const struct sp_dwsymsec *sec;

	for (i = 0; i < f->nsecs; i++)
		if (addr >= f->secs[i].lo && addr < f->secs[i].hi)
			break;
	if (i == f->nsecs || !f->secs[i].n)
		return NULL;
	sec = &f->secs[i];
	/* the cursor holds an index into sym_addr; in this section's terms */
	hint = c->sym >= sec->first && c->sym < sec->first + sec->n ? c->sym - sec->first : sec->n;
	k = last_at_or_below_hint(f->sym_addr + sec->first, sec->n, addr, &hint);
	if (hint < sec->n)
		c->sym = sec->first + hint;
	if (k == sec->n)
		return NULL;
	k += sec->first;
	if (f->sym_interned && !f->sym_interned[k]) {
		/* the table's arrays are not const: a lookup interns once */
		if (f->sym_name[k])
			f->sym_name[k] = sp_strtab_intern(f->strs, f->sym_name[k]);
		if (f->sym_file[k])
			f->sym_file[k] = sp_strtab_intern(f->strs, f->sym_file[k]);
		f->sym_interned[k] = 1;
	}
	*sym_addr = f->sym_addr[k];
	if (file)
		*file = f->sym_file[k];
	return f->sym_name[k];
}

const char *sp_dwfuncs_symbol_at(const struct sp_dwfuncs *f, uint64_t addr,
				 struct sp_dwfuncs_cursor *c)
{
	uint64_t a;

	return symbol_file_at(f, addr, c, &a, NULL);
}

const char *sp_dwfuncs_symbol(const struct sp_dwfuncs *f, uint64_t addr)
{
	struct sp_dwfuncs_cursor c;

	memset(&c, 0, sizeof(c));
	return sp_dwfuncs_symbol_at(f, addr, &c);
}

const char *sp_dwfuncs_symbol_file(const struct sp_dwfuncs *f, uint64_t addr, const char **file)
{
	struct sp_dwfuncs_cursor c;
	uint64_t a;

	memset(&c, 0, sizeof(c));
	*file = NULL;
	return symbol_file_at(f, addr, &c, &a, file);
}

/*
 * Rule 8: the name of the innermost function. A fresh bfd names a function
 * that has no linkage name by the ELF symbol at the address; bfd then
 * marks the function as named, keeping the symbol's name only when the
 * symbol starts where the function's first range does, so that later
 * lookups in the same process get the function's DWARF name otherwise.
 */
static const char *innermost_name(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st,
				  uint32_t id, uint64_t addr, struct sp_dwfuncs_cursor *c)
{
	const struct sp_dwfn *fn = &f->fns[id];
	const char *sym;
	uint64_t sym_addr = 0;

	if (st && st->named[id])
		return st->name[id];
	if (fn->is_linkage)
		return fn->name;
	sym = symbol_file_at(f, addr, c, &sym_addr, NULL);
	if (st) {
		st->named[id] = 1;
		st->name[id] = sym && sym_addr == fn->low ? sym : fn->name;
	}
	return sym ? sym : fn->name;
}

static const char *caller_name(const struct sp_dwfuncs *f, const struct sp_dwfuncs_state *st,
			       uint32_t id)
{
	return st && st->named[id] ? st->name[id] : f->fns[id].name;
}

/* The chain at addr; frame 0's line from the line table when with_row. */
static size_t find(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st, uint64_t addr,
		   struct sp_inline_frame *frames, size_t max, struct sp_dwfuncs_cursor *c,
		   int with_row)
{
	size_t i = last_at_or_below_hint(f->seg_start, f->nsegs, addr, &c->seg), n = 1;
	const struct sp_line *row = NULL;
	const struct sp_dwfn *fn;
	uint32_t id;

	if (i == f->nsegs || f->seg_fn[i] == NONE || max == 0)
		return 0;
	id = f->seg_fn[i];
	fn = &f->fns[id];
	if (with_row)
		row = sp_linetab_find_any_at(f->lines, addr, &c->lines);
	/* bfd reads the line from the unit it took the function from */
	if (row && sp_linetab_unit_at_from(f->lines, addr, &c->lines) != fn->unit)
		row = NULL;
	frames[0].name = innermost_name(f, st, id, addr, c);
	frames[0].file = row ? row->file : NULL;
	frames[0].line = row ? row->line : 0;
	frames[0].fn = id;
	for (; fn->inlined && fn->caller != NONE && n < max; n++) {
		frames[n].name = caller_name(f, st, fn->caller);
		frames[n].file = fn->call_file;
		frames[n].line = fn->call_line;
		frames[n].fn = fn->caller;
		fn = &f->fns[fn->caller];
	}
	return n;
}

size_t sp_dwfuncs_find_at(const struct sp_dwfuncs *f, uint64_t addr, struct sp_inline_frame *frames,
			  size_t max, struct sp_dwfuncs_cursor *c)
{
	return find(f, NULL, addr, frames, max, c, 1);
}

size_t sp_dwfuncs_find(const struct sp_dwfuncs *f, uint64_t addr, struct sp_inline_frame *frames,
		       size_t max)
{
	struct sp_dwfuncs_cursor c;

	memset(&c, 0, sizeof(c));
	return sp_dwfuncs_find_at(f, addr, frames, max, &c);
}

void sp_dwfuncs_state_init(struct sp_dwfuncs_state *st, const struct sp_dwfuncs *f)
{
	st->named = sp_xcalloc(f->nfns + 1, 1);
	st->name = sp_xcalloc(f->nfns + 1, sizeof(*st->name));
	memset(&st->cursor, 0, sizeof(st->cursor));
}

void sp_dwfuncs_state_release(struct sp_dwfuncs_state *st)
{
	free(st->named);
	free(st->name);
	st->named = NULL;
	st->name = NULL;
}

size_t sp_dwfuncs_find_state(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st, uint64_t addr,
			     struct sp_inline_frame *frames, size_t max)
{
	return find(f, st, addr, frames, max, &st->cursor, 1);
}

size_t sp_dwfuncs_find_state_names(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st,
				   uint64_t addr, struct sp_inline_frame *frames, size_t max)
{
	return find(f, st, addr, frames, max, &st->cursor, 0);
}

void sp_dwfuncs_state_apply(const struct sp_dwfuncs *f, struct sp_dwfuncs_state *st, uint64_t addr,
			    struct sp_inline_frame *frames, size_t n)
{
	struct sp_dwfuncs_cursor c;
	size_t i;

	if (!n)
		return;
	memset(&c, 0, sizeof(c));
	/* innermost_name() with st, knowing the fresh answer */
	if (st->named[frames[0].fn])
		frames[0].name = st->name[frames[0].fn];
	else if (!f->fns[frames[0].fn].is_linkage)
		innermost_name(f, st, frames[0].fn, addr, &c);
	for (i = 1; i < n; i++)
		frames[i].name = caller_name(f, st, frames[i].fn);
}

void sp_dwfuncs_change_points(const struct sp_dwfuncs *f, const uint64_t **segs, size_t *nsegs,
			      const uint64_t **syms, size_t *nsyms)
{
	*segs = f->seg_start;
	*nsegs = f->nsegs;
	*syms = f->sym_addr;
	*nsyms = f->nsyms;
}

/* ---- what the naming rule (names.c) asks ---- */

const char *sp_dwfuncs_fn_name(const struct sp_dwfuncs *f, uint32_t fn, int *is_linkage,
			       int *inlined)
{
	const struct sp_dwfn *x = &f->fns[fn];

	*is_linkage = x->is_linkage;
	*inlined = x->inlined;
	return x->name;
}

struct sp_dworigin *sp_dwfuncs_origin(struct sp_dwfuncs *f, uint32_t fn)
{
	size_t lo = sp_lower_bound_u64(f->nolink, f->nnolink, sizeof(*f->nolink), fn);

	return lo < f->nnolink && f->nolink[lo].fn == fn ? &f->origins[f->nolink[lo].origin] : NULL;
}

uint32_t sp_dwfuncs_outer_at(const struct sp_dwfuncs *f, uint64_t addr)
{
	size_t i = last_at_or_below(f->seg_start, f->nsegs, addr);
	uint32_t id;

	if (i == f->nsegs || (id = f->seg_fn[i]) == NONE)
		return NONE;
	while (f->fns[id].inlined && f->fns[id].caller != NONE)
		id = f->fns[id].caller;
	return id;
}

const char *sp_dwfuncs_symbol_addr(const struct sp_dwfuncs *f, uint64_t addr, uint64_t *sym_addr)
{
	struct sp_dwfuncs_cursor c;

	memset(&c, 0, sizeof(c));
	return symbol_file_at(f, addr, &c, sym_addr, NULL);
}

struct sp_strtab *sp_dwfuncs_strs(const struct sp_dwfuncs *f)
{
	return f->strs;
}

struct sp_dwnames **sp_dwfuncs_names(struct sp_dwfuncs *f)
{
	return &f->names;
}

int sp_dwfuncs_has_alias(const struct sp_dwfuncs *f, uint64_t addr, const char *name)
{
	size_t lo = sp_lower_bound_u64(f->aliases, f->naliases, sizeof(*f->aliases), addr);

	for (; lo < f->naliases && f->aliases[lo].addr == addr; lo++)
		if (f->aliases[lo].name && !strcmp(f->aliases[lo].name, name))
			return 1;
	return 0;
}
