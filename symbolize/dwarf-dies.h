/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: a unit's abbreviation table, read once, for walks
 * that visit every DIE of a unit. libdw finds a DIE's abbreviation in a
 * hash table under a lock and sizes each attribute through its generic
 * form table, for every DIE it steps over; with the table here a DIE
 * whose attributes all have fixed sizes is skipped in one addition.
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_DIES_H
#define SYMPROF_SYMBOLIZE_DWARF_DIES_H

#include <stddef.h>
#include <stdint.h>

/* What the sizes of forms depend on. */
struct sp_dwform_unit {
	int version, addr_size, offset_size;
	int big_endian; /* the byte order of block2 and block4 lengths */
};

struct sp_dwabbrev_attr {
	uint32_t name, form;
	int size;		 /* the value's size, or -1 when it has none fixed */
	const uint8_t *implicit; /* DW_FORM_implicit_const: its SLEB128 */
};

struct sp_dwabbrev {
	uint32_t tag;
	int children;
	int64_t fixed;	   /* the attributes' size when every form has one, else -1 */
	uint32_t first, n; /* attrs[first, first + n) */
};

struct sp_dwabbrevs {
	struct sp_dwabbrev *v; /* by code - 1 (codes are dense in practice) */
	uint8_t *have;	       /* have[code - 1]: the code is defined */
	size_t n, alloc;
	struct sp_dwabbrev_attr *attrs;
	size_t nattrs, attrs_alloc;
	/* the table held: its offset and the unit it was sized for */
	uint64_t off;
	struct sp_dwform_unit fu;
	int loaded;
};

/*
 * Reads the table at `off` of .debug_abbrev (data, size) for a unit of
 * the shape fu; keeps the one held when it is the same. Returns 0, or -1
 * when the table is cut, a code is sparse (above 65536 or four times the
 * number of entries) or repeats: the caller then reads the unit through
 * libdw.
 */
int sp_dwabbrevs_read(struct sp_dwabbrevs *t, const uint8_t *data, size_t size, uint64_t off,
		      const struct sp_dwform_unit *fu);

static inline const struct sp_dwabbrev *sp_dwabbrevs_find(const struct sp_dwabbrevs *t,
							  uint64_t code)
{
	return code && code <= t->n && t->have[code - 1] ? &t->v[code - 1] : NULL;
}

/*
 * Steps *p over one value of `form`; -1 (*p unchanged) for a form it does
 * not know (DW_FORM_indirect included) or a value that runs past end.
 * The forms of DWARF 2-5 and the GNU extensions libdw knows.
 */
int sp_dwform_skip(const uint8_t **p, const uint8_t *end, unsigned form,
		   const struct sp_dwform_unit *fu);

/* sp_dwform_skip() for an attribute of the table. */
static inline int sp_dwattr_skip(const uint8_t **p, const uint8_t *end,
				 const struct sp_dwabbrev_attr *at, const struct sp_dwform_unit *fu)
{
	if (at->size >= 0) {
		if ((size_t)at->size > (size_t)(end - *p))
			return -1;
		*p += at->size;
		return 0;
	}
	return sp_dwform_skip(p, end, at->form, fu);
}

void sp_dwabbrevs_release(struct sp_dwabbrevs *t);

#endif
