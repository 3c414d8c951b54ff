/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * DWARF sections, units and range lists as libbfd 2.40 sees them.
 *
 * bfd finds a debug section by its name, .debug_X, or else by the
 * compressed name in its own table (which spells the one for
 * .debug_rnglists ".zdebug_rnglist"). It reads the units of .debug_info in
 * order, but not .debug_types, and stops for good at a unit whose own
 * DW_AT_ranges it cannot read. Range lists it reads itself: DWARF 2-4
 * .debug_ranges pairs with base selectors, and of DWARF 5 .debug_rnglists
 * only the entry kinds that need no .debug_addr index; DW_FORM_rnglistx is
 * not an integer form for it, so such ranges are ignored. A unit where a
 * function's ranges cannot be read is dropped whole, lines included.
 * lines.c and dwarf-funcs.c follow these rules through this file.
 */
#include "dwarf-units.h"

#include <string.h>

#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>

#include "dwarf-read.h"
#include "symprof/error.h"

/* ---- sections ---- */

/*
 * The slot for a section, NULL if unused. Like bfd, accept .debug_X, or
 * in a second pass the .zdebug name from bfd's table, which has
 * ".zdebug_rnglist" (sic) for .debug_rnglists.
 */
static struct sp_dwsec *sec_slot(struct sp_dwsecs *s, const char *name, int compressed)
{
	static const struct {
		const char *name, *zname;
		size_t off;
	} names[] = {
		{".debug_line", ".zdebug_line", offsetof(struct sp_dwsecs, line)},
		{".debug_line_str", ".zdebug_line_str", offsetof(struct sp_dwsecs, line_str)},
		{".debug_str", ".zdebug_str", offsetof(struct sp_dwsecs, str)},
		{".debug_str_offsets", ".zdebug_str_offsets",
		 offsetof(struct sp_dwsecs, str_offsets)},
		{".debug_ranges", ".zdebug_ranges", offsetof(struct sp_dwsecs, ranges)},
		{".debug_rnglists", ".zdebug_rnglist", offsetof(struct sp_dwsecs, rnglists)},
		{".debug_abbrev", ".zdebug_abbrev", offsetof(struct sp_dwsecs, abbrev)},
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, compressed ? names[i].zname : names[i].name))
			return (struct sp_dwsec *)((char *)s + names[i].off);
	return NULL;
}

/*
 * Section data, decompressed. libdw has usually decompressed the sections
 * it reads already (in place, in the same Elf), which clears
 * SHF_COMPRESSED; a .zdebug section still starts with "ZLIB" if not.
 */
static int sec_read(Elf_Scn *scn, const char *name, struct sp_dwsec *sec, struct sp_error *err)
{
	GElf_Shdr shdr;
	Elf_Data *d;

	if (!gelf_getshdr(scn, &shdr))
		return sp_error_set(err, SP_E_LIBELF, "cannot read section header: %s",
				    elf_errmsg(-1));
	sec->data = NULL;
	sec->size = 0;
	if (shdr.sh_type == SHT_NOBITS)
		return 0;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return sp_error_set(err, SP_E_LIBELF, "cannot decompress section '%s': %s", name,
				    elf_errmsg(-1));
	d = elf_getdata(scn, NULL);
	if (d && !(shdr.sh_flags & SHF_COMPRESSED) && !strncmp(name, ".zdebug", 7) &&
	    d->d_size >= 4 && d->d_buf && !memcmp(d->d_buf, "ZLIB", 4)) {
		if (elf_compress_gnu(scn, 0, 0) < 0)
			return sp_error_set(err, SP_E_LIBELF, "cannot decompress section '%s': %s",
					    name, elf_errmsg(-1));
		d = elf_getdata(scn, NULL);
	}
	if (!d)
		return sp_error_set(err, SP_E_LIBELF, "cannot read section '%s': %s", name,
				    elf_errmsg(-1));
	sec->data = d->d_buf ? d->d_buf : (const uint8_t *)"";
	sec->size = d->d_buf ? d->d_size : 0;
	return 0;
}

/* Does an abbreviation give a function DIE a DW_AT_ranges bfd reads? */
static int abbrev_has_fn_ranges(const struct sp_dwsecs *s)
{
	struct rd r = {s->abbrev.data, s->abbrev.data + s->abbrev.size, s->big_endian};

	while (r.p && r.p < r.end) {
		uint64_t tag, name, form;
		int fn;

		if (rd_leb(&r, 0) == 0) /* end of a unit's table */
			continue;
		tag = rd_leb(&r, 0);
		fn = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_entry_point;
		rd_uint(&r, 1);
		do {
			name = rd_leb(&r, 0);
			form = rd_leb(&r, 0);
			if (form == DW_FORM_implicit_const)
				rd_leb(&r, 1);
			if (fn && name == DW_AT_ranges && sp_dw_is_int_form((unsigned)form))
				return 1;
		} while ((name || form) && r.p < r.end);
	}
	return 0;
}

/* Does .debug_rnglists hold entry kinds bfd 2.40 cannot read? */
static int rnglists_has_unknown(const struct sp_dwsecs *s)
{
	struct rd r = {s->rnglists.data, s->rnglists.data + s->rnglists.size, s->big_endian};

	while (r.p && r.p < r.end) {
		uint64_t len = rd_uint(&r, 4), count;
		const uint8_t *end;
		int osz = 4, as;

		if (len == 0xffffffff) {
			len = rd_uint(&r, 8);
			osz = 8;
		}
		if (len > (uint64_t)(r.end - r.p))
			return 1;
		end = r.p + len;
		rd_uint(&r, 2);
		as = (int)rd_uint(&r, 1);
		rd_uint(&r, 1);
		count = rd_uint(&r, 4);
		rd_skip(&r, count * (uint64_t)osz);
		while (r.p < end) {
			switch (*r.p++) {
			case DW_RLE_end_of_list:
				break;
			case DW_RLE_offset_pair:
				rd_leb(&r, 0);
				rd_leb(&r, 0);
				break;
			case DW_RLE_base_address:
				rd_skip(&r, (uint64_t)as);
				break;
			case DW_RLE_start_end:
				rd_skip(&r, 2 * (uint64_t)as);
				break;
			case DW_RLE_start_length:
				rd_skip(&r, (uint64_t)as);
				rd_leb(&r, 0);
				break;
			default:
				return 1;
			}
		}
		r.p = end;
	}
	return 0;
}

/* Where bfd could fail to read a function's ranges (and drop its unit). */
static void ranges_failures(struct sp_dwsecs *s)
{
	if (!abbrev_has_fn_ranges(s))
		return;
	s->ranges_may_fail[0] = !s->ranges.data;
	s->ranges_may_fail[1] = !s->rnglists.data || rnglists_has_unknown(s);
}

int sp_dwsecs_load(Dwarf *dw, struct sp_dwsecs *s, struct sp_error *err)
{
	Elf *elf = dwarf_getelf(dw);
	GElf_Ehdr eh;
	size_t shstrndx;
	int pass;

	memset(s, 0, sizeof(*s));
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return sp_error_set(err, SP_E_LIBELF, "cannot read ELF header: %s", elf_errmsg(-1));
	s->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	for (pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr shdr;
			const char *name;
			struct sp_dwsec *slot;

			if (!gelf_getshdr(scn, &shdr))
				continue;
			name = elf_strptr(elf, shstrndx, shdr.sh_name);
			slot = name ? sec_slot(s, name, pass) : NULL;
			/* the first section of a name, as bfd_get_section_by_name */
			if (!slot || slot->data)
				continue;
			if (sec_read(scn, name, slot, err) < 0)
				return -SP_E_LIBELF;
		}
	}
	ranges_failures(s);
	return 0;
}

/* ---- units ---- */

/* bfd's DW_AT_comp_dir: empty means none, and "host.:/dir" means "/dir". */
static const char *unit_comp_dir(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s, *colon;

	if (!dwarf_attr(die, DW_AT_comp_dir, &a) || !sp_dw_is_str_form(dwarf_whatform(&a)))
		return NULL;
	s = dwarf_formstring(&a);
	if (!s || (!*s && !sp_dw_is_strx_form(dwarf_whatform(&a))))
		return NULL;
	colon = strchr(s, ':');
	if (colon && colon != s && colon[-1] == '.' && colon[1] == '/')
		s = colon + 1;
	return s;
}

static int unit_udata(Dwarf_Die *die, unsigned name, uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w) != 0)
		return 0;
	*v = w;
	return 1;
}

int sp_dwunit_next(Dwarf *dw, Dwarf_CU **cu, struct sp_dwunit *u, struct sp_error *err)
{
	for (;;) {
		Dwarf_CU *next;
		Dwarf_Half version;
		uint8_t unit_type, addr_size, offset_size;
		Dwarf_Die subdie;
		uint64_t v;
		int r;

		memset(u, 0, sizeof(*u));
		r = dwarf_get_units(dw, *cu, &next, &version, &unit_type, &u->die, &subdie);
		if (r > 0)
			return 0;
		if (r < 0)
			return sp_error_set(err, SP_E_LIBDW, "cannot read DWARF unit: %s",
					    dwarf_errmsg(-1));
		*cu = next;
		/* DWARF 4 type units live in .debug_types, which bfd does not read. */
		if (version < 5 && unit_type == DW_UT_type)
			continue;
		if (dwarf_cu_info(next, NULL, NULL, NULL, NULL, NULL, &addr_size, &offset_size))
			return sp_error_set(err, SP_E_LIBDW, "cannot read DWARF unit: %s",
					    dwarf_errmsg(-1));
		u->die_off = dwarf_dieoffset(&u->die);
		u->version = version;
		u->addr_size = addr_size;
		u->offset_size = offset_size;
		u->has_stmt_list = unit_udata(&u->die, DW_AT_stmt_list, &u->line_offset);
		u->comp_dir = unit_comp_dir(&u->die);
		if (unit_udata(&u->die, DW_AT_str_offsets_base, &v))
			u->str_offsets_base = v;
		if (unit_udata(&u->die, DW_AT_language, &v))
			u->lang = (int)v;
		return 1;
	}
}

/* ---- range lists ---- */

/* DWARF 2-4 .debug_ranges: (begin, end) pairs, base selectors, (0, 0). */
static int read_ranges(const struct sp_dwsecs *s, const struct sp_dwunit *u, uint64_t base,
		       uint64_t off, sp_dw_range_fn add, void *ctx)
{
	struct rd r;
	int as = u->addr_size;

	if (!s->ranges.data || off > s->ranges.size)
		return -1;
	r.p = s->ranges.data + off;
	r.end = s->ranges.data + s->ranges.size;
	r.be = s->big_endian;
	for (;;) {
		uint64_t low, high;

		if (r.end - r.p < 2 * as)
			return -1;
		low = rd_uint(&r, as);
		high = rd_uint(&r, as);
		if (low == 0 && high == 0)
			return 0;
		/* bfd compares with -1UL: only 64-bit selectors are recognised */
		if (low == UINT64_MAX && high != UINT64_MAX)
			base = high;
		else
			add(ctx, base + low, base + high);
	}
}

/* DWARF 5 .debug_rnglists, the entry kinds bfd 2.40 knows. */
static int read_rnglists(const struct sp_dwsecs *s, const struct sp_dwunit *u, uint64_t base,
			 uint64_t off, sp_dw_range_fn add, void *ctx)
{
	struct rd r;
	int as = u->addr_size;

	if (!s->rnglists.data || off >= s->rnglists.size)
		return -1;
	r.p = s->rnglists.data + off;
	r.end = s->rnglists.data + s->rnglists.size;
	r.be = s->big_endian;
	for (;;) {
		uint64_t low, high;

		if (r.p >= r.end)
			return -1;
		switch (*r.p++) {
		case DW_RLE_end_of_list:
			return 0;
		case DW_RLE_base_address:
			if (r.end - r.p < as)
				return -1;
			base = rd_uint(&r, as);
			continue;
		case DW_RLE_start_length:
			if (r.end - r.p < as)
				return -1;
			low = rd_uint(&r, as);
			high = low + rd_leb(&r, 0);
			break;
		case DW_RLE_offset_pair:
			low = base + rd_leb(&r, 0);
			high = base + rd_leb(&r, 0);
			break;
		case DW_RLE_start_end:
			if (r.end - r.p < 2 * as)
				return -1;
			low = rd_uint(&r, as);
			high = rd_uint(&r, as);
			break;
		default:
			return -1;
		}
		add(ctx, low, high);
	}
}

int sp_dw_rangelist(const struct sp_dwsecs *s, const struct sp_dwunit *u, uint64_t base,
		    uint64_t off, sp_dw_range_fn add, void *ctx)
{
	return u->version <= 4 ? read_ranges(s, u, base, off, add, ctx)
			       : read_rnglists(s, u, base, off, add, ctx);
}

static void ignore_range(void *ctx, uint64_t low, uint64_t high)
{
}

int sp_dwunit_bfd_reads(const struct sp_dwsecs *s, const struct sp_dwunit *u)
{
	Dwarf_Die die = u->die;
	Dwarf_Attribute a;
	Dwarf_Word off;

	/* rnglistx is not an integer form for bfd: it ignores those */
	if (!dwarf_attr(&die, DW_AT_ranges, &a) || !sp_dw_is_int_form(dwarf_whatform(&a)) ||
	    dwarf_formudata(&a, &off) != 0)
		return 1;
	return sp_dw_rangelist(s, u, 0, off, ignore_range, NULL) == 0;
}

/* A function DIE whose DW_AT_ranges bfd cannot read? */
static int fn_ranges_bad(const struct sp_dwsecs *s, const struct sp_dwunit *u, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	Dwarf_Attribute a;
	Dwarf_Word off;

	if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
	    tag != DW_TAG_entry_point)
		return 0;
	if (!dwarf_attr(die, DW_AT_ranges, &a) || !sp_dw_is_int_form(dwarf_whatform(&a)))
		return 0;
	return dwarf_formudata(&a, &off) != 0 ||
	       sp_dw_rangelist(s, u, 0, off, ignore_range, NULL) < 0;
}

int sp_dwunit_functions_ok(const struct sp_dwsecs *s, const struct sp_dwunit *u)
{
	Dwarf_Die stack[64], cudie = u->die, next;
	int depth = 0;

	if (!s->ranges_may_fail[u->version >= 5] || dwarf_child(&cudie, &stack[0]) != 0)
		return 1;
	for (;;) {
		if (fn_ranges_bad(s, u, &stack[depth]))
			return 0;
		if (depth + 1 < 64 && dwarf_haschildren(&stack[depth]) &&
		    dwarf_child(&stack[depth], &stack[depth + 1]) == 0) {
			depth++;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &next) != 0)
			if (depth-- == 0)
				return 1;
		stack[depth] = next;
	}
}
