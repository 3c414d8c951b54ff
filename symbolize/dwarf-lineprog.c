/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * DWARF line-number programs, decoded the way libbfd 2.40 decodes them.
 *
 * gprof takes file names and line numbers from bfd_find_nearest_line(), so
 * symprof must read .debug_line exactly as bfd's dwarf2.c does, including
 * where bfd departs from the DWARF standard or from libdw. This file reads
 * one unit's program; lines.c turns the rows into bfd's lookup table. It
 * is written from the DWARF 2-5 specifications and from observing bfd, not
 * from bfd's code.
 *
 * A program (DWARF 2-5, 32- or 64-bit format) is
 *
 *   unit_length       4 bytes, or 0xffffffff + 8 bytes (64-bit DWARF)
 *   version           2 bytes, 2..5
 *   address_size      1 byte   } DWARF 5 only
 *   seg_select_size   1 byte   } (must be 0)
 *   header_length     4 or 8 bytes (bfd ignores it: see below)
 *   min_inst_length   1 byte
 *   max_ops_per_insn  1 byte   (DWARF 4 and later)
 *   default_is_stmt, line_base (signed), line_range, opcode_base: 1 byte each
 *   standard_opcode_lengths[opcode_base - 1]
 *   DWARF 2-4: include_directories (strings, "" ends), file_names (string,
 *              uleb dir, uleb mtime, uleb length; "" ends)
 *   DWARF 5:   directory and file-name tables, each as
 *              format_count (1 byte), format_count x (uleb content type,
 *              uleb form), uleb count, count x entries in those forms
 *   opcodes until unit_length is used up
 *
 * What bfd does that matters for the answers:
 *
 *  - Names are composed by concat_filename(): a relative file name gets
 *    its directory, and a relative directory gets DW_AT_comp_dir of the
 *    unit, giving "comp_dir/dir/name". DWARF 5 indexes directories and
 *    files from 0, older versions from 1 (file 0 is "<unknown>"). Numbers
 *    outside the table give "<unknown>". libdw composes differently (it
 *    does not prefix a relative directory with comp_dir), which is why
 *    this reader exists.
 *  - Empty strings read from DW_FORM_string, strp and line_strp count as
 *    absent, so an empty directory is no directory and an empty file name
 *    becomes "<unknown>". A DWARF 5 path in DW_FORM_strp is read but never
 *    stored: bfd only keeps DW_FORM_string, line_strp and strx* paths.
 *  - The opcodes start right after the file table, not at header_length.
 *  - Reads past the end yield zeros (and stop the decoder at the end).
 *    Unknown extended opcodes, an unknown DWARF 5 content type, an unknown
 *    form or line_range 0 with a special opcode make bfd drop the whole
 *    unit; so do a bad version, a nonzero segment selector size and a
 *    header that does not fit.
 *  - DW_LNE_set_address reads an address of the unit's (.debug_info)
 *    address size. With max_ops_per_insn > 1, DW_LNS_advance_pc sets the
 *    address instead of adding to it (a bfd bug kept for fidelity).
 */
#include "dwarf-lineprog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>

#include "addrindex.h"
#include "dwarf-read.h"
#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/strtab.h"

/* HP extension that bfd skips by its length; missing from elfutils' dwarf.h. */
#define LNE_HP_SOURCE_FILE_CORRELATION 0x80

static int corrupt(struct sp_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Fills err with the reason bfd would give up on the unit. */
static int corrupt(struct sp_error *err, const char *fmt, ...)
{
	char msg[SP_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sp_error_set(err, SP_E_CORRUPT, "%s", msg);
}

/* ---- forms in DWARF 5 entry formats ---- */

enum fv_kind { FV_NONE, FV_UINT, FV_STR };

struct fv {
	enum fv_kind kind;
	uint64_t u;
	const char *s;
};

/* A string at `off` of a section; NULL (bfd) if out of range or empty. */
static const char *sec_string(const struct sp_dwsec *sec, uint64_t off, int keep_empty)
{
	const char *s;

	if (!sec->data || (off != 0 && off >= sec->size) || (off == 0 && sec->size == 0))
		return NULL;
	s = (const char *)sec->data + off;
	if (!memchr(s, 0, sec->size - off))
		return NULL;
	return (*s || keep_empty) ? s : NULL;
}

static const char *strx_string(const struct sp_lineprog *lp, uint64_t idx)
{
	const struct sp_dwunit *u = lp->unit;
	const struct sp_dwsec *so = &lp->secs->str_offsets;
	uint64_t off, stroff;
	struct rd r;

	if (!u->str_offsets_base || !so->data || idx > UINT64_MAX / (uint64_t)u->offset_size)
		return NULL;
	off = idx * (uint64_t)u->offset_size + u->str_offsets_base;
	if (off < u->str_offsets_base || off > so->size ||
	    so->size - off < (uint64_t)u->offset_size)
		return NULL;
	r.p = so->data + off;
	r.end = so->data + so->size;
	r.be = lp->secs->big_endian;
	stroff = rd_uint(&r, u->offset_size);
	if (!lp->secs->str.data || stroff >= lp->secs->str.size)
		return NULL;
	return sec_string(&lp->secs->str, stroff, 1);
}

static int block_skip(struct rd *r, uint64_t len, struct fv *v)
{
	rd_skip(r, len);
	v->kind = FV_NONE;
	return 0;
}

/* The size of a fixed-size integer form, 0 for the other forms. */
static int fixed_size(const struct sp_dwunit *u, uint64_t form)
{
	switch (form) {
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_data1:
	case DW_FORM_addrx1:
	case DW_FORM_strx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_addrx2:
	case DW_FORM_strx2:
		return 2;
	case DW_FORM_ref4:
	case DW_FORM_data4:
	case DW_FORM_addrx4:
	case DW_FORM_strx4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
		return 8;
	case DW_FORM_addr:
		return u->addr_size;
	case DW_FORM_ref_addr:
		return u->version >= 3 ? u->offset_size : u->addr_size;
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_sec_offset:
		return u->offset_size;
	default:
		return 0;
	}
}

/* DW_FORM_strp, line_strp and GNU_strp_alt (whose file bfd would open). */
static void read_strp(const struct sp_lineprog *lp, struct rd *r, uint64_t form, struct fv *v)
{
	int osz = lp->unit->offset_size;

	v->kind = FV_STR;
	if (r->end - r->p < osz) {
		r->p = r->end;
		return;
	}
	v->u = rd_uint(r, osz);
	if (form == DW_FORM_strp)
		v->s = sec_string(&lp->secs->str, v->u, 0);
	else if (form == DW_FORM_line_strp)
		v->s = sec_string(&lp->secs->line_str, v->u, 0);
}

/* The forms that are not fixed-size integers. */
static int read_other(const struct sp_lineprog *lp, struct rd *r, uint64_t form, struct fv *v,
		      struct sp_error *err)
{
	switch (form) {
	case DW_FORM_flag_present:
		v->u = 1;
		return 0;
	case DW_FORM_block2:
		return block_skip(r, rd_uint(r, 2), v);
	case DW_FORM_block4:
		return block_skip(r, rd_uint(r, 4), v);
	case DW_FORM_block1:
		return block_skip(r, rd_uint(r, 1), v);
	case DW_FORM_block:
	case DW_FORM_exprloc:
		return block_skip(r, rd_leb(r, 0), v);
	case DW_FORM_data16:
		return block_skip(r, 16, v);
	case DW_FORM_addrx3:
	case DW_FORM_strx3:
		/* three single bytes, each read (or not) on its own */
		v->u = rd_uint(r, 1);
		v->u |= rd_uint(r, 1) << 8;
		v->u |= rd_uint(r, 1) << 16;
		if (r->be)
			v->u = ((v->u & 0xff) << 16) | (v->u & 0xff00) | (v->u >> 16);
		return 0;
	case DW_FORM_string:
		v->kind = FV_STR;
		v->s = rd_string(r);
		return 0;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_GNU_strp_alt:
		read_strp(lp, r, form, v);
		return 0;
	case DW_FORM_sdata:
		v->u = rd_leb(r, 1);
		return 0;
	case DW_FORM_rnglistx:
	case DW_FORM_loclistx:
	case DW_FORM_ref_udata:
	case DW_FORM_udata:
	case DW_FORM_addrx:
	case DW_FORM_strx:
		v->u = rd_leb(r, 0);
		return 0;
	case DW_FORM_implicit_const:
		v->u = 0;
		return 0;
	default:
		return corrupt(err, "unknown form %#x", (unsigned)form);
	}
}

/* Consumes one value of `form` like bfd's read_attribute_value(). */
static int form_read(const struct sp_lineprog *lp, struct rd *r, uint64_t form, struct fv *v,
		     struct sp_error *err)
{
	int n;

	if (r->p >= r->end && form != DW_FORM_flag_present)
		return corrupt(err, "entry attribute runs past the end of the header");
	if (form == DW_FORM_indirect) {
		form = rd_leb(r, 0);
		if (form == DW_FORM_implicit_const)
			rd_leb(r, 1);
		return form_read(lp, r, form, v, err);
	}
	v->kind = FV_UINT;
	v->u = 0;
	v->s = NULL;
	n = fixed_size(lp->unit, form);
	if (n)
		v->u = rd_uint(r, n);
	else if (read_other(lp, r, form, v, err) < 0)
		return -SP_E_CORRUPT;
	if (sp_dw_is_strx_form((unsigned)form)) {
		v->kind = FV_STR;
		v->s = strx_string(lp, v->u);
	}
	return 0;
}

/* ---- header ---- */

static void add_dir(struct sp_lineprog *lp, const char *dir)
{
	SP_ALLOC_GROW(lp->dirs, lp->ndirs + 1, lp->dirs_alloc);
	lp->dirs[lp->ndirs++] = dir;
}

static void add_file(struct sp_lineprog *lp, const char *name, uint32_t dir)
{
	SP_ALLOC_GROW(lp->files, lp->nfiles + 1, lp->files_alloc);
	lp->files[lp->nfiles].name = name;
	lp->files[lp->nfiles].dir = dir;
	lp->nfiles++;
}

/* One entry of a DWARF 5 directory or file table. */
static int read_entry(struct sp_lineprog *lp, struct rd *r, const uint8_t *fmt, unsigned nfmt,
		      int is_file, struct sp_error *err)
{
	struct rd f = {fmt, r->end, r->be};
	const char *name = NULL;
	uint32_t dir = 0;
	unsigned i;

	for (i = 0; i < nfmt; i++) {
		uint64_t type = rd_leb(&f, 0), form;
		int want_name = 0, want_dir = 0;
		struct fv v = {FV_NONE, 0, NULL};

		switch (type) {
		case DW_LNCT_path:
			want_name = 1;
			break;
		case DW_LNCT_directory_index:
			want_dir = 1;
			break;
		case DW_LNCT_timestamp:
		case DW_LNCT_size:
		case DW_LNCT_MD5:
			break;
		default:
			return corrupt(err, "unknown entry content type %llu",
				       (unsigned long long)type);
		}
		form = rd_leb(&f, 0);
		if (form_read(lp, r, form, &v, err) < 0)
			return -SP_E_CORRUPT;
		if (want_name && (form == DW_FORM_string || form == DW_FORM_line_strp ||
				  sp_dw_is_strx_form((unsigned)form)))
			name = v.s;
		if (want_dir &&
		    (form == DW_FORM_udata || form == DW_FORM_data1 || form == DW_FORM_data2 ||
		     form == DW_FORM_data4 || form == DW_FORM_data8))
			dir = (uint32_t)v.u;
	}
	if (is_file)
		add_file(lp, name, dir);
	else
		add_dir(lp, name);
	return 0;
}

static int read_v5_table(struct sp_lineprog *lp, struct rd *r, int is_file, struct sp_error *err)
{
	unsigned nfmt = (unsigned)rd_uint(r, 1), i;
	const uint8_t *fmt = r->p;
	uint64_t count, k;

	for (i = 0; i < nfmt; i++) {
		rd_leb(r, 0);
		rd_leb(r, 0);
	}
	count = rd_leb(r, 0);
	if (nfmt == 0 && count != 0)
		return corrupt(err, "entries have no format");
	if (count > (uint64_t)(r->end - r->p))
		return corrupt(err, "entry count %llu exceeds the header",
			       (unsigned long long)count);
	for (k = 0; k < count; k++)
		if (read_entry(lp, r, fmt, nfmt, is_file, err) < 0)
			return -SP_E_CORRUPT;
	return 0;
}

static void read_v2_tables(struct sp_lineprog *lp, struct rd *r)
{
	const char *s;

	while ((s = rd_string(r)))
		add_dir(lp, s);
	while ((s = rd_string(r))) {
		uint32_t dir = (uint32_t)rd_leb(r, 0);

		rd_leb(r, 0);
		rd_leb(r, 0);
		add_file(lp, s, dir);
	}
}

void sp_lineprog_init(struct sp_lineprog *lp)
{
	memset(lp, 0, sizeof(*lp));
}

void sp_lineprog_release(struct sp_lineprog *lp)
{
	free(lp->dirs);
	free(lp->files);
	free(lp->names);
	sp_lineprog_init(lp);
}

/* Everything up to the standard opcode lengths; r ends after them. */
static int read_fixed_header(struct sp_lineprog *lp, struct rd *r, struct sp_error *err)
{
	uint64_t len;
	int osz = 4;

	len = rd_uint(r, 4);
	if (len == 0xffffffff) {
		len = rd_uint(r, 8);
		osz = 8;
	} else if (len == 0 && lp->unit->addr_size == 8) {
		len = rd_uint(r, 4);
		osz = 8;
	}
	if (len > (uint64_t)(r->end - r->p))
		return corrupt(err, "unit length %#llx exceeds the section (%#lx bytes left)",
			       (unsigned long long)len, (unsigned long)(r->end - r->p));
	r->end = r->p + len;
	lp->version = (int)rd_uint(r, 2);
	if (lp->version < 2 || lp->version > 5)
		return corrupt(err, "unsupported version %d", lp->version);
	if (r->end - r->p <= osz + (lp->version >= 5 ? 8 : lp->version >= 4 ? 6 : 5))
		return corrupt(err, "header is truncated");
	if (lp->version >= 5) {
		unsigned seg;

		rd_uint(r, 1);
		seg = (unsigned)rd_uint(r, 1);
		if (seg != 0)
			return corrupt(err, "unsupported segment selector size %u", seg);
	}
	rd_uint(r, osz);
	lp->min_insn_len = (uint8_t)rd_uint(r, 1);
	lp->max_ops = lp->version >= 4 ? (uint8_t)rd_uint(r, 1) : 1;
	if (lp->max_ops == 0)
		return corrupt(err, "maximum operations per instruction is 0");
	lp->default_is_stmt = (uint8_t)rd_uint(r, 1);
	lp->line_base = (int8_t)rd_uint(r, 1);
	lp->line_range = (uint8_t)rd_uint(r, 1);
	lp->opcode_base = (uint8_t)rd_uint(r, 1);
	if ((long)(r->end - r->p) <= (long)lp->opcode_base - 1)
		return corrupt(err, "opcode lengths are truncated");
	lp->std_lengths = r->p;
	if (lp->opcode_base > 1)
		r->p += lp->opcode_base - 1;
	return 0;
}

int sp_lineprog_open(struct sp_lineprog *lp, const struct sp_dwsecs *secs,
		     const struct sp_dwunit *u, struct sp_strtab *strs, struct sp_error *err)
{
	const struct sp_dwsec *sec = &secs->line;
	struct rd r;
	size_t i;

	lp->secs = secs;
	lp->unit = u;
	lp->strs = strs;
	lp->ndirs = lp->nfiles = 0;
	lp->defines_files = 0;
	lp->want = NULL;
	lp->nwant = 0;
	lp->unknown = sp_strtab_intern(strs, "<unknown>");
	if (!u->has_stmt_list)
		return corrupt(err, "unit has no DW_AT_stmt_list");
	if (!sec->data)
		return corrupt(err, "no .debug_line section");
	if (u->line_offset != 0 && u->line_offset >= sec->size)
		return corrupt(err, "offset is past the end of .debug_line (%zu byte%s)",
			       SP_BYTES(sec->size));
	if (sec->size < 16)
		return corrupt(err, ".debug_line is too small (%zu byte%s)", SP_BYTES(sec->size));
	r.p = sec->data + u->line_offset;
	r.end = sec->data + sec->size;
	r.be = secs->big_endian;
	if (read_fixed_header(lp, &r, err) < 0)
		return -SP_E_CORRUPT;
	if (lp->version >= 5) {
		if (read_v5_table(lp, &r, 0, err) < 0 || read_v5_table(lp, &r, 1, err) < 0)
			return -SP_E_CORRUPT;
	} else {
		read_v2_tables(lp, &r);
	}
	lp->prog = r.p;
	lp->end = r.end;
	SP_ALLOC_GROW(lp->names, lp->nfiles, lp->names_alloc);
	for (i = 0; i < lp->names_alloc; i++)
		lp->names[i] = NULL;
	return 0;
}

/* ---- file names ---- */

static const char *compose(struct sp_lineprog *lp, size_t idx)
{
	const struct sp_lpfile *f = &lp->files[idx];
	const char *dir = NULL, *sub = NULL;
	struct sp_buf b = SP_BUF_INIT;
	const char *s;
	uint32_t d = f->dir;

	if (!f->name)
		return lp->unknown;
	if (f->name[0] == '/')
		return sp_strtab_intern(lp->strs, f->name);
	if (lp->version < 5)
		d--; /* directory 0 (the unit's directory) wraps past the table */
	if (d < lp->ndirs)
		sub = lp->dirs[d];
	if (!sub || sub[0] != '/')
		dir = lp->unit->comp_dir;
	if (!dir) {
		dir = sub;
		sub = NULL;
	}
	if (!dir)
		return *f->name ? sp_strtab_intern(lp->strs, f->name) : NULL;
	sp_buf_addstr(&b, dir);
	sp_buf_addch(&b, '/');
	if (sub) {
		sp_buf_addstr(&b, sub);
		sp_buf_addch(&b, '/');
	}
	sp_buf_addstr(&b, f->name);
	s = sp_strtab_intern_n(lp->strs, b.buf, b.len);
	sp_buf_release(&b);
	return s;
}

const char *sp_lineprog_filename(struct sp_lineprog *lp, uint64_t file)
{
	uint32_t idx = (uint32_t)file;

	if (lp->version < 5) {
		if (idx == 0)
			return lp->unknown;
		idx--;
	}
	if (idx >= lp->nfiles)
		return lp->unknown;
	if (idx >= lp->names_alloc) {
		size_t old = lp->names_alloc;

		SP_ALLOC_GROW(lp->names, lp->nfiles, lp->names_alloc);
		memset(lp->names + old, 0, (lp->names_alloc - old) * sizeof(*lp->names));
	}
	if (!lp->names[idx])
		lp->names[idx] = compose(lp, idx);
	return lp->names[idx];
}

/* ---- opcodes ---- */

/* Special opcodes, precomputed when the program is not VLIW. */
static void spec_tables(struct sp_lineprog *lp)
{
	unsigned op;

	lp->fast = lp->max_ops == 1 && lp->line_range != 0;
	if (!lp->fast)
		return;
	for (op = lp->opcode_base; op < 256; op++) {
		unsigned adj = op - lp->opcode_base;

		lp->spec_addr[op] = adj / lp->line_range * lp->min_insn_len;
		lp->spec_line[op] = (uint32_t)(int32_t)lp->line_base + adj % lp->line_range;
	}
}

/*
 * Rows go to the caller in batches, which spares a call per row (a unit
 * has tens of thousands): rows[0 .. n) are the rows not yet handed over,
 * and rows[n] is the decoder's state, so that a row is written by moving
 * on to the next slot (the state is copied there). The last row is held
 * back until the batch fills again or the program ends, so that the next
 * one may still replace it (sp_lineprog_want()).
 */
#define BATCH 128

struct batch {
	struct sp_lprow rows[BATCH];
	size_t n;
	sp_lprow_fn fn;
	void *ctx;
	int absorb;    /* the next row may replace rows[n - 1] ... */
	uint64_t gate; /* ... if it is not above this address */
};

/* Hands over all rows but the last one (every one if `all`). */
static int flush(struct batch *bt, int all)
{
	size_t n = all || !bt->n ? bt->n : bt->n - 1;
	int r = bt->fn && n ? bt->fn(bt->ctx, bt->rows, n) : 0;

	memmove(bt->rows, bt->rows + n, (bt->n - n + 1) * sizeof(*bt->rows));
	bt->n -= n;
	return r;
}

/* Writes the state (rows[n]) as a row. */
static int put(struct batch *bt)
{
	struct sp_lprow *st = &bt->rows[bt->n++];

	st[1] = st[0];
	st[1].discriminator = 0;
	return bt->n == BATCH - 1 ? flush(bt, 0) : 0;
}

/* A row that nothing replaces (a sequence's end, a VLIW row). */
static int emit(struct batch *bt)
{
	bt->absorb = 0;
	return put(bt);
}

/* The first wanted address at or above addr (UINT64_MAX if none). */
static uint64_t wanted_from(const struct sp_lineprog *lp, uint64_t addr)
{
	size_t i = sp_addr_bound(lp->want, lp->nwant, sizeof(*lp->want), addr, 0);

	return i < lp->nwant ? lp->want[i] : UINT64_MAX;
}

void sp_lineprog_want(struct sp_lineprog *lp, const uint64_t *want, size_t n)
{
	lp->want = want;
	lp->nwant = n;
}

/* Advances by `adv` operations (VLIW-aware, as bfd computes it). */
static void advance(const struct sp_lineprog *lp, struct sp_lprow *st, uint64_t adv)
{
	if (lp->max_ops == 1) {
		st->addr += adv * lp->min_insn_len;
	} else {
		st->addr += lp->min_insn_len * ((st->op_index + adv) / lp->max_ops);
		st->op_index = (uint8_t)((st->op_index + adv) % lp->max_ops);
	}
}

static int extended_op(struct sp_lineprog *lp, struct rd *r, struct sp_lprow *st, struct batch *bt,
		       struct sp_error *err)
{
	uint32_t len = (uint32_t)rd_leb(r, 0);
	unsigned op = (unsigned)rd_uint(r, 1);
	const char *name;
	uint32_t dir;

	switch (op) {
	case DW_LNE_end_sequence:
		st->end_sequence = 1;
		return emit(bt);
	case DW_LNE_set_address:
		st->addr = rd_uint(r, lp->unit->addr_size);
		st->op_index = 0;
		return 0;
	case DW_LNE_define_file:
		name = rd_string(r);
		dir = (uint32_t)rd_leb(r, 0);
		rd_leb(r, 0);
		rd_leb(r, 0);
		add_file(lp, name, dir);
		lp->defines_files = 1;
		return 0;
	case DW_LNE_set_discriminator:
		st->discriminator = (uint32_t)rd_leb(r, 0);
		return 0;
	case LNE_HP_SOURCE_FILE_CORRELATION:
		rd_skip(r, (uint32_t)(len - 1));
		return 0;
	default:
		return corrupt(err, "unknown extended opcode %u", op);
	}
}

/* A special opcode of a VLIW program, or one with line_range 0. */
static int special_op(struct sp_lineprog *lp, unsigned op, struct sp_lprow *st, struct batch *bt,
		      struct sp_error *err)
{
	unsigned adj = op - lp->opcode_base;

	if (lp->line_range == 0)
		return corrupt(err, "line_range is 0");
	advance(lp, st, adj / lp->line_range);
	st->line += (uint32_t)(int32_t)lp->line_base + adj % lp->line_range;
	return emit(bt);
}

/* A standard opcode (run_sequence() decodes the frequent ones itself). */
static int standard_op(struct sp_lineprog *lp, struct rd *r, unsigned op, struct sp_lprow *st,
		       struct batch *bt, struct sp_error *err)
{
	uint64_t adv;
	unsigned i;

	switch (op) {
	case 0: /* DW_LNS_extended_op */
		return extended_op(lp, r, st, bt, err);
	case DW_LNS_copy:
		return emit(bt);
	case DW_LNS_advance_line:
		st->line += (uint32_t)rd_leb(r, 1);
		return 0;
	case DW_LNS_set_column:
		st->column = (uint32_t)rd_leb(r, 0);
		return 0;
	case DW_LNS_negate_stmt:
		st->is_stmt = !st->is_stmt;
		return 0;
	case DW_LNS_advance_pc:
		adv = rd_leb(r, 0);
		if (lp->max_ops == 1) {
			st->addr += lp->min_insn_len * adv;
		} else {
			st->addr = (st->op_index + adv) / lp->max_ops * lp->min_insn_len;
			st->op_index = (uint8_t)((st->op_index + adv) % lp->max_ops);
		}
		return 0;
	case DW_LNS_set_file:
		st->file = sp_lineprog_filename(lp, rd_leb(r, 0));
		return 0;
	case DW_LNS_set_basic_block:
		return 0;
	case DW_LNS_const_add_pc:
		if (lp->line_range == 0)
			return corrupt(err, "line_range is 0");
		advance(lp, st, (255u - lp->opcode_base) / lp->line_range);
		return 0;
	case DW_LNS_fixed_advance_pc:
		st->addr += rd_uint(r, 2);
		st->op_index = 0;
		return 0;
	default:
		for (i = 0; i < lp->std_lengths[op - 1]; i++)
			rd_leb(r, 0);
		return 0;
	}
}

/* Whether row a is at or after row b, in (address, op_index) order. */
static inline int at_or_after(const struct sp_lprow *a, const struct sp_lprow *b)
{
	return a->addr > b->addr || (a->addr == b->addr && a->op_index >= b->op_index);
}

/*
 * One sequence: from the initial state to DW_LNE_end_sequence. The
 * opcodes that make most of a program (special opcodes, and the standard
 * ones gcc writes between them) are decoded here, with the cursor and the
 * batch in locals; the others go through standard_op() and special_op().
 *
 * The row of a special opcode or DW_LNS_copy replaces the row before it
 * when sp_lineprog_want() allows (`absorb` says the row before may go,
 * `gate` up to which address); otherwise it is appended, and may itself be
 * replaced if it is not the sequence's first and comes at or after the row
 * before it.
 */
static int run_sequence(struct sp_lineprog *lp, struct rd *r, struct batch *bt,
			struct sp_error *err)
{
	const unsigned base = lp->opcode_base, fast_base = lp->fast ? base : 256;
	/* the standard opcodes below inl_end are decoded inline (all five
	 * are standard when opcode_base says so), set_column first */
	const unsigned inl_end = base > DW_LNS_negate_stmt ? DW_LNS_negate_stmt + 1 : 0;
	const unsigned col_op = inl_end ? DW_LNS_set_column : 256;
	struct rd c = *r;
	struct sp_lprow *st = &bt->rows[bt->n];
	int ret, first = 1, absorb = bt->absorb;
	uint64_t gate = bt->gate;

	memset(st, 0, sizeof(*st));
	st->line = 1;
	st->is_stmt = lp->default_is_stmt;
	if (lp->nfiles)
		st->file = sp_lineprog_filename(lp, lp->version >= 5 ? 0 : 1);
	while (c.p < c.end) {
		unsigned op = *c.p++;

		if (op == col_op) {
			st->column = (uint32_t)rd_leb(&c, 0);
			continue;
		} else if (op >= fast_base) {
			st->addr += lp->spec_addr[op];
			st->line += lp->spec_line[op];
		} else if (op >= inl_end) {
			goto slow;
		} else if (op == DW_LNS_negate_stmt) {
			st->is_stmt = !st->is_stmt;
			continue;
		} else if (op == DW_LNS_advance_line) {
			st->line += (uint32_t)rd_leb(&c, 1);
			continue;
		} else if (op != DW_LNS_copy) {
			goto slow;
		}
		/* a special opcode or DW_LNS_copy: a row */
		if (absorb && st->addr <= gate && at_or_after(st, st - 1)) {
			st[-1] = st[0];
			st->discriminator = 0;
		} else {
			absorb = lp->want && !first && st > bt->rows && at_or_after(st, st - 1);
			if (absorb)
				gate = wanted_from(lp, st[-1].addr);
			st[1] = st[0];
			st[1].discriminator = 0;
			if (++st == &bt->rows[BATCH - 1]) {
				bt->n = BATCH - 1;
				if ((ret = flush(bt, 0)))
					return ret;
				st = &bt->rows[bt->n];
			}
		}
		first = 0;
		continue;
	slow:
		bt->n = (size_t)(st - bt->rows);
		bt->absorb = absorb;
		*r = c;
		if (op < base)
			ret = standard_op(lp, r, op, st, bt, err);
		else
			ret = special_op(lp, op, st, bt, err);
		if (ret)
			return ret;
		c = *r;
		absorb = bt->absorb;
		st = &bt->rows[bt->n];
		if (st->end_sequence)
			break;
	}
	*r = c;
	bt->n = (size_t)(st - bt->rows);
	bt->absorb = absorb;
	bt->gate = gate;
	return 0;
}

int sp_lineprog_run(struct sp_lineprog *lp, sp_lprow_fn row_fn, void *ctx, struct sp_error *err)
{
	struct rd r = {lp->prog, lp->end, lp->secs->big_endian};
	struct batch bt;
	int ret;

	bt.n = 0;
	bt.fn = row_fn;
	bt.ctx = ctx;
	bt.absorb = 0;
	bt.gate = 0;
	spec_tables(lp);
	while (r.p < r.end)
		if ((ret = run_sequence(lp, &r, &bt, err)))
			return ret;
	return flush(&bt, 1);
}
