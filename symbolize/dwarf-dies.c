/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A unit's abbreviation table and the sizes of attribute values
 * (DWARF 2-5 and the GNU extensions libdw reads), for walks over every
 * DIE of a unit (dwarf-funcs.c). Anything it does not know is left to
 * libdw by the caller.
 */
#include "dwarf-dies.h"

#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "dwarf-read.h"
#include "symprof/alloc.h"

#define MAX_CODE 65536

enum { SIZE_VARIABLE = -1, SIZE_UNKNOWN = -2 };

/* The size of a value of `form`, SIZE_VARIABLE or SIZE_UNKNOWN. */
static int form_size(unsigned form, const struct sp_dwform_unit *fu)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return fu->addr_size;
	case DW_FORM_ref_addr:
		return fu->version == 2 ? fu->addr_size : fu->offset_size;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_strp_sup:
	case DW_FORM_sec_offset:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return fu->offset_size;
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
	case DW_FORM_exprloc:
	case DW_FORM_string:
	case DW_FORM_sdata:
	case DW_FORM_udata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		return SIZE_VARIABLE;
	default:
		return SIZE_UNKNOWN;
	}
}

/* A ULEB128 that must end before `end`; -1 if it does not. */
static int leb_end(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *q = *p;

	while (q < end)
		if (!(*q++ & 0x80)) {
			*p = q;
			return 0;
		}
	return -1;
}

static int skip_n(const uint8_t **p, const uint8_t *end, uint64_t n)
{
	if (n > (uint64_t)(end - *p))
		return -1;
	*p += n;
	return 0;
}

int sp_dwform_skip(const uint8_t **p, const uint8_t *end, unsigned form,
		   const struct sp_dwform_unit *fu)
{
	int size = form_size(form, fu);
	struct rd r;
	uint64_t len;
	const uint8_t *nul;

	if (size >= 0)
		return skip_n(p, end, (uint64_t)size);
	if (size == SIZE_UNKNOWN || *p >= end)
		return -1;
	r.p = *p;
	r.end = end;
	r.be = 0;
	switch (form) {
	case DW_FORM_string:
		nul = memchr(*p, 0, (size_t)(end - *p));
		if (!nul)
			return -1;
		*p = nul + 1;
		return 0;
	case DW_FORM_block1:
		len = **p;
		return skip_n(p, end, len + 1);
	case DW_FORM_block2:
	case DW_FORM_block4:
		r.be = fu->big_endian;
		len = rd_uint(&r, form == DW_FORM_block2 ? 2 : 4);
		if (r.p == end && len)
			return -1;
		if (skip_n(&r.p, end, len) < 0)
			return -1;
		*p = r.p;
		return 0;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		if (leb_end(&r.p, end) < 0)
			return -1;
		r.p = *p;
		len = rd_leb(&r, 0);
		if (skip_n(&r.p, end, len) < 0)
			return -1;
		*p = r.p;
		return 0;
	default:
		return leb_end(p, end);
	}
}

/* The next ULEB128 of the table, -1 if the table is cut there. */
static int table_leb(struct rd *r, uint64_t *v)
{
	const uint8_t *q = r->p;

	if (leb_end(&q, r->end) < 0)
		return -1;
	*v = rd_leb(r, 0);
	return 0;
}

static int parse(struct sp_dwabbrevs *t, const uint8_t *data, size_t size, uint64_t off,
		 const struct sp_dwform_unit *fu)
{
	struct rd r;
	uint64_t code, tag, name, form;
	size_t defined = 0;

	if (!data || off >= size)
		return -1;
	r.p = data + off;
	r.end = data + size;
	r.be = 0;
	for (;;) {
		struct sp_dwabbrev *a;

		if (table_leb(&r, &code) < 0)
			return -1;
		if (code == 0)
			break;
		if (code > MAX_CODE || table_leb(&r, &tag) < 0 || r.p >= r.end)
			return -1;
		if (code > t->n) {
			size_t had = t->alloc;

			SP_ALLOC_GROW(t->v, code, t->alloc);
			if (t->alloc != had) {
				t->have = sp_xreallocarray(t->have, t->alloc, 1);
				memset(t->have + had, 0, t->alloc - had);
			}
			t->n = code;
		}
		if (t->have[code - 1])
			return -1;
		t->have[code - 1] = 1;
		defined++;
		a = &t->v[code - 1];
		a->tag = (uint32_t)tag;
		a->children = *r.p++ != 0;
		a->fixed = 0;
		a->first = (uint32_t)t->nattrs;
		a->n = 0;
		for (;;) {
			struct sp_dwabbrev_attr *at;
			int fs;

			if (table_leb(&r, &name) < 0 || table_leb(&r, &form) < 0)
				return -1;
			if (name == 0 && form == 0)
				break;
			if (form > UINT32_MAX || name > UINT32_MAX)
				return -1;
			SP_ALLOC_GROW(t->attrs, t->nattrs + 1, t->attrs_alloc);
			at = &t->attrs[t->nattrs++];
			at->name = (uint32_t)name;
			at->form = (uint32_t)form;
			at->implicit = NULL;
			if (form == DW_FORM_implicit_const) {
				at->implicit = r.p;
				if (leb_end(&r.p, r.end) < 0)
					return -1;
			}
			a->n++;
			fs = form_size((unsigned)form, fu);
			at->size = fs >= 0 ? fs : -1;
			if (fs < 0 || a->fixed < 0)
				a->fixed = -1;
			else
				a->fixed += fs;
		}
	}
	/* dense codes only: a sparse table would cost more than it saves */
	return t->n > 4 * defined + 64 ? -1 : 0;
}

int sp_dwabbrevs_read(struct sp_dwabbrevs *t, const uint8_t *data, size_t size, uint64_t off,
		      const struct sp_dwform_unit *fu)
{
	if (t->loaded && t->off == off && !memcmp(&t->fu, fu, sizeof(*fu)))
		return 0;
	t->loaded = 0;
	if (t->n)
		memset(t->have, 0, t->n);
	t->n = 0;
	t->nattrs = 0;
	if (parse(t, data, size, off, fu) < 0) {
		/* nothing is found in a table that failed */
		if (t->n)
			memset(t->have, 0, t->n);
		t->n = 0;
		return -1;
	}
	t->off = off;
	t->fu = *fu;
	t->loaded = 1;
	return 0;
}

void sp_dwabbrevs_release(struct sp_dwabbrevs *t)
{
	free(t->v);
	free(t->have);
	free(t->attrs);
	memset(t, 0, sizeof(*t));
}
