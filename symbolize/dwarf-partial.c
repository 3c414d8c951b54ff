/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading a few units of a large DWARF file: when a profile samples a
 * handful of addresses of a big library (libc's libc6-dbg file is 9 MB of
 * DWARF, compressed), reading every unit costs a hundred times what the
 * answers need.
 *
 * .debug_aranges says which unit covers which addresses. When every
 * wanted address is covered and the units they need are few (at most a
 * quarter of the file's), only those units are read:
 *
 *  - the line table and the functions are built from those units alone
 *    (sp_linetab_new_units(); dwarf-funcs.c follows the line table's
 *    units). Every unit covering a wanted address is among them, so each
 *    wanted address gets the full table's answer;
 *  - when the debug sections are compressed (SHF_COMPRESSED, zlib), an
 *    in-memory copy of the file is made for libdw in which the sections it
 *    reads are decompressed here, .debug_info only up to the end of the
 *    last wanted unit, .debug_line up to the end of the last wanted
 *    unit's line program (found through the units' DW_AT_stmt_list and
 *    checked against the chain of program headers; whole otherwise),
 *    and the sections nothing reads (location lists,
 *    call frames, macros) are emptied: libdw would otherwise decompress
 *    every debug section when the file is opened.
 *
 * An address in a PLT section (.plt, .plt.got, .plt.sec, .iplt) needs no
 * unit: the linker makes those stubs, no compilation unit describes them.
 *
 * Anything unusual (no .debug_aranges, another uncovered address, legacy
 * .zdebug sections, a DWZ alternate file, another byte order or class
 * than the host's 64-bit one for the copy) means the whole file is read
 * as before.
 *
 * The whole file with compressed sections is copied too (sp_partial_whole),
 * every section inflated here: faster than libdw's zlib, and zstd
 * (ld --compress-debug-sections=zstd), which libelf 0.188 cannot inflate.
 * A section that cannot be inflated (corrupt, shorter or longer than its
 * header says, an unknown kind) is left out of the copy, as libelf and
 * libbfd leave it out, and named in sp_partial.problem for a warning; but
 * a zstd stream that ends early is kept as far as it goes, as libbfd
 * keeps it.
 */
#include "dwarf-partial.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef SYMPROF_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef SYMPROF_HAVE_ZSTD
#include <zstd.h>
#endif

#include "dwarf-dies.h"
#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/inflate.h"
#include "symprof/sort.h"

#define MAX_SHARE 4 /* read partially when wanted units <= all units / MAX_SHARE */

struct sect {
	Elf_Scn *scn;
	GElf_Shdr sh;
	const char *name;
	const uint8_t *raw; /* the section's bytes in the file */
	size_t filesize;    /* the whole file's */
};

/* ---- decompression ---- */

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2 /* glibc 2.36's elf.h predates it */
#endif

/* The compressed stream of an SHF_COMPRESSED section, its full size and
 * its ELFCOMPRESS_* type; -1 for a header that does not fit. */
static int chdr(const struct sect *s, int elfclass, const uint8_t **z, size_t *zlen, uint64_t *size,
		uint32_t *type)
{
	if (elfclass == ELFCLASS64) {
		Elf64_Chdr h;

		if (s->sh.sh_size < sizeof(h))
			return -1;
		memcpy(&h, s->raw, sizeof(h));
		*type = h.ch_type;
		*size = h.ch_size;
		*z = s->raw + sizeof(h);
		*zlen = s->sh.sh_size - sizeof(h);
		return 0;
	}
	return -1;
}

/* What inflate_section() returns when it produced nothing usable. */
#define INFLATE_BAD ((size_t)-1)     /* a corrupt stream */
#define INFLATE_SHORT ((size_t)-2)   /* it ended before the header's size */
#define INFLATE_UNKNOWN ((size_t)-3) /* a kind this build cannot read */
#define INFLATE_HUGE ((size_t)-4)    /* a size over ten times the file's */
#define INFLATE_FAILED(n) ((n) >= INFLATE_HUGE)
/* for inflate_problem(): a whole zstd section that ended early, kept as
 * far as it goes (libbfd reads such a one; libelf cannot read zstd) */
#define INFLATE_EARLY ((size_t)-5)

/* The end of what to produce: want's target, never past the size. */
static size_t room_end(size_t target, size_t size)
{
	return target < size ? target : size;
}

/*
 * The fast inflater's part of inflate_section(): the bytes produced,
 * INFLATE_SHORT, or INFLATE_BAD if it is not built in or fails (zlib then
 * inflates the section again, and says what is wrong).
 */
static size_t inflate_fast(const uint8_t *z, size_t zlen, uint8_t *out, size_t size,
			   size_t (*want)(void *ctx, const uint8_t *buf, size_t have), void *ctx)
{
	struct sp_inflate *x = sp_inflate_new(SP_INFLATE_ZLIB);
	size_t done = 0, target = want ? want(ctx, out, 0) : size;
	int r = 0;

	if (!x)
		return INFLATE_BAD;
	while (r == 0 && done < room_end(target, size)) {
		size_t room = room_end(target, size) - done;
		uint8_t *o = out + done;

		r = sp_inflate_step(x, &z, &zlen, &o, &room);
		if (r == 0 && (size_t)(o - out) == done && !zlen)
			r = -1; /* no progress and no input left: truncated */
		done = (size_t)(o - out);
		if (want && done >= target)
			target = want(ctx, out, done);
	}
	sp_inflate_free(x);
	if (r < 0)
		return INFLATE_BAD;
	return done < room_end(target, size) ? INFLATE_SHORT : done;
}

#ifdef SYMPROF_HAVE_ZSTD
/* inflate_section() for ELFCOMPRESS_ZSTD (ld --compress-debug-sections=zstd,
 * which libelf 0.188 cannot read): the same contract. */
static size_t unzstd(const uint8_t *z, size_t zlen, uint8_t *out, size_t size,
		     size_t (*want)(void *ctx, const uint8_t *buf, size_t have), void *ctx,
		     int *early)
{
	ZSTD_DCtx *d;
	ZSTD_inBuffer in = {z, zlen, 0};
	ZSTD_outBuffer o = {out, 0, 0};
	size_t target, r = 1;

	if (!want) {
		r = ZSTD_decompress(out, size, z, zlen);
		if (ZSTD_isError(r))
			return INFLATE_BAD;
		if (r < size && !early)
			return INFLATE_SHORT;
		if (r < size)
			*early = 1;
		return r;
	}
	if (!(d = ZSTD_createDCtx()))
		return INFLATE_BAD;
	target = want(ctx, out, 0);
	while (o.pos < room_end(target, size)) {
		size_t before = o.pos, used = in.pos;

		o.size = room_end(target, size);
		r = ZSTD_decompressStream(d, &o, &in);
		if (ZSTD_isError(r) || (o.pos == before && in.pos == used))
			break; /* corrupt, or nothing left to read: short */
		if (o.pos >= target)
			target = want(ctx, out, o.pos);
	}
	ZSTD_freeDCtx(d);
	if (ZSTD_isError(r))
		return INFLATE_BAD;
	return o.pos < room_end(target, size) ? INFLATE_SHORT : o.pos;
}
#endif

/*
 * Inflates the section into out (size bytes), stopping once `want(ctx,
 * produced)` says enough has been produced (NULL: everything). Returns the
 * number of bytes produced, or one of the INFLATE_ codes: a corrupt
 * stream, one that ends before what was asked for (the size, or want's
 * target), a kind not built in (zstd without libzstd) or unknown. With
 * early (whole sections only), a zstd stream that ends before the size is
 * returned as far as it goes, and *early set.
 */
static size_t inflate_section(const struct sect *s, int elfclass, uint8_t **out,
			      size_t (*want)(void *ctx, const uint8_t *buf, size_t have), void *ctx,
			      int *early)
{
	const uint8_t *z;
	size_t zlen, target, got;
	uint64_t size;
	uint32_t type;
	z_stream st;
	int r = Z_OK;

	if (chdr(s, elfclass, &z, &zlen, &size, &type) < 0 || size > ((size_t)1 << 40))
		return INFLATE_BAD;
	if (type != ELFCOMPRESS_ZLIB && type != ELFCOMPRESS_ZSTD)
		return INFLATE_UNKNOWN;
	/* libbfd's bound (bfd_section_size_insane): no buffer of a size the
	 * header made up, and the same sections left out */
	if (size / 10 > s->filesize)
		return INFLATE_HUGE;
	*out = sp_xmalloc(size ? size : 1);
	if (type == ELFCOMPRESS_ZSTD) {
#ifdef SYMPROF_HAVE_ZSTD
		return unzstd(z, zlen, *out, size, want, ctx, early);
#else
		(void)early;
		return INFLATE_UNKNOWN;
#endif
	}
#ifdef SYMPROF_HAVE_LIBDEFLATE
	if (!want) {
		/* a whole section: libdeflate is twice as fast as zlib */
		struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
		enum libdeflate_result lr = LIBDEFLATE_BAD_DATA;

		got = 0;
		if (d)
			lr = libdeflate_zlib_decompress(d, z, zlen, *out, size, &got);
		libdeflate_free_decompressor(d);
		if (lr != LIBDEFLATE_SUCCESS)
			return INFLATE_BAD;
		return got < size ? INFLATE_SHORT : got;
	}
#endif
	/* a part: ISA-L when built in, as fast as libdeflate and it can stop */
	if ((got = inflate_fast(z, zlen, *out, size, want, ctx)) != INFLATE_BAD)
		return got;
	memset(&st, 0, sizeof(st));
	if (inflateInit(&st) != Z_OK)
		return INFLATE_BAD;
	st.next_in = (Bytef *)z;
	st.avail_in = (uInt)zlen;
	st.next_out = *out;
	target = want ? want(ctx, *out, 0) : size;
	while (r == Z_OK && st.total_out < room_end(target, size)) {
		size_t chunk = room_end(target, size) - st.total_out;

		st.avail_out = (uInt)(chunk > (1u << 30) ? (1u << 30) : chunk);
		r = inflate(&st, Z_SYNC_FLUSH);
		if (want && st.total_out >= target)
			target = want(ctx, *out, st.total_out);
	}
	inflateEnd(&st);
	if (r != Z_OK && r != Z_STREAM_END)
		return INFLATE_BAD;
	return st.total_out < room_end(target, size) ? INFLATE_SHORT : (size_t)st.total_out;
}

/* What went wrong, for a message: "" if nothing did. */
static const char *inflate_problem(size_t n)
{
	if (n == INFLATE_SHORT)
		return "its compressed data ends before the size its header gives; it is "
		       "left out, as addr2line and gprof leave it";
	if (n == INFLATE_EARLY)
		return "its compressed data ends before the size its header gives; it is "
		       "read as far as it goes, as addr2line and gprof read it";
	if (n == INFLATE_UNKNOWN)
#ifdef SYMPROF_HAVE_ZSTD
		return "it is compressed in a way symprof cannot read; it is left out";
#else
		return "it is compressed in a way symprof cannot read (zstd needs a "
		       "build with libzstd); it is left out";
#endif
	if (n == INFLATE_BAD)
		return "its compressed data is corrupt; it is left out, as addr2line and gprof "
		       "leave it";
	if (n == INFLATE_HUGE)
		return "its header gives a size over ten times the file's; it is left out, as "
		       "addr2line and gprof leave it";
	return "";
}

/* ---- .debug_aranges ---- */

static uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Parses little-endian .debug_aranges; -1 if it is malformed. */
static int parse_aranges(const uint8_t *d, size_t size, struct sp_partial_arange **out, size_t *n)
{
	size_t off = 0, alloc = 0;

	*n = 0;
	while (off + 4 <= size) {
		uint64_t len = get(d + off, 4), cu;
		size_t hdr = 4, end, p;
		int offsz = 4, asz;

		if (len == 0xffffffff) {
			if (off + 12 > size)
				return -1;
			len = get(d + off + 4, 8);
			hdr = 12;
			offsz = 8;
		}
		if (len > size - off - hdr || len < 2 + (size_t)offsz + 2)
			return -1;
		end = off + hdr + (size_t)len;
		p = off + hdr + 2;
		cu = get(d + p, offsz);
		p += (size_t)offsz;
		asz = d[p];
		if (d[p + 1] != 0 || (asz != 4 && asz != 8))
			return -1;
		p += 2;
		p = off + (((p - off) + 2 * (size_t)asz - 1) / (2 * (size_t)asz)) * 2 * (size_t)asz;
		for (; p + 2 * (size_t)asz <= end; p += 2 * (size_t)asz) {
			uint64_t lo = get(d + p, asz), l = get(d + p + asz, asz);

			if (!lo && !l)
				break;
			SP_ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[*n].lo = lo;
			(*out)[(*n)++].hi = lo + l;
			(*out)[*n - 1].cu = cu;
		}
		off = end;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b, void *ctx)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	(void)ctx;
	return (x > y) - (x < y);
}

static size_t uniq(uint64_t *v, size_t n)
{
	size_t i, k = 0;

	sp_sort(v, n, sizeof(*v), cmp_u64, NULL);
	for (i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int cmp_arange(const void *a, const void *b, void *ctx)
{
	const struct sp_partial_arange *x = a, *y = b;

	(void)ctx;
	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The units covering addr (appended to cus); 0 if none covers it. */
static int covering(const struct sp_partial_arange *ar, size_t nar, uint64_t addr, uint64_t **cus,
		    size_t *ncus, size_t *alloc)
{
	size_t lo = 0, hi = nar, i;
	int found = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ar[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges are short and rarely overlap: look back a little */
	for (i = lo; i > 0 && lo - i < 64; i--) {
		if (addr < ar[i - 1].hi) {
			SP_ALLOC_GROW(*cus, *ncus + 1, *alloc);
			(*cus)[(*ncus)++] = ar[i - 1].cu;
			found = 1;
		}
	}
	return found;
}

/* 1 if addr lies in a stub section (a PLT: the linker makes it, no
 * compilation unit describes it). */
static int in_stub(const struct sp_partial *p, uint64_t addr)
{
	size_t i;

	for (i = 0; i < p->nstubs; i++)
		if (addr >= p->stubs[i][0] && addr < p->stubs[i][1])
			return 1;
	return 0;
}

/* The units covering the addresses, and the `extra` ones (sorted,
 * distinct); -1 if an address has none, or if more than `limit` units are
 * needed. */
static int units_for(const struct sp_partial *p, const struct sp_partial_arange *ar, size_t nar,
		     const uint64_t *addrs, size_t n, const uint64_t *extra, size_t nextra,
		     size_t limit, uint64_t **cus, size_t *ncus)
{
	size_t i, alloc = 0;

	*cus = NULL;
	*ncus = 0;
	SP_ALLOC_GROW(*cus, nextra + 1, alloc);
	for (i = 0; i < nextra; i++)
		(*cus)[(*ncus)++] = extra[i];
	for (i = 0; i < n; i++) {
		if (!covering(ar, nar, addrs[i], cus, ncus, &alloc) && !in_stub(p, addrs[i]))
			return -1;
		if (*ncus > 4 * limit + 64) {
			*ncus = uniq(*cus, *ncus);
			if (*ncus > limit)
				return -1;
		}
	}
	*ncus = uniq(*cus, *ncus);
	return *ncus > limit ? -1 : 0;
}

static size_t count_units(const struct sp_partial_arange *ar, size_t nar)
{
	uint64_t *v = sp_xmalloc((nar + 1) * sizeof(*v));
	size_t i, n;

	for (i = 0; i < nar; i++)
		v[i] = ar[i].cu;
	n = uniq(v, nar);
	free(v);
	return n;
}

/* ---- the units' DIE offsets, and how much of .debug_info they need ---- */

/* Header size and total size of the unit at off; 0 if it does not fit. */
static size_t unit_header(const uint8_t *d, size_t have, uint64_t off, size_t *total)
{
	uint64_t len;
	size_t hdr, lenbytes = 4;
	int offsz = 4, version;

	if (off + 12 > have)
		return 0;
	len = get(d + off, 4);
	if (len == 0xffffffff) {
		if (off + 24 > have)
			return 0;
		len = get(d + off + 4, 8);
		lenbytes = 12;
		offsz = 8;
	}
	version = (int)get(d + off + lenbytes, 2);
	if (version >= 5) {
		int type = d[off + lenbytes + 2];

		hdr = lenbytes + 2 + 1 + 1 + (size_t)offsz;
		if (type == DW_UT_skeleton || type == DW_UT_split_compile)
			hdr += 8;
		else if (type == DW_UT_type || type == DW_UT_split_type)
			hdr += 8 + (size_t)offsz;
	} else {
		hdr = lenbytes + 2 + (size_t)offsz + 1;
	}
	*total = lenbytes + (size_t)len;
	return hdr;
}

struct info_want {
	const uint64_t *cus;
	size_t n;
};

/* How much of .debug_info to inflate: up to the end of the last unit. */
static size_t info_target(void *ctx, const uint8_t *buf, size_t have)
{
	const struct info_want *w = ctx;
	uint64_t last = w->cus[w->n - 1];
	size_t total;

	if (!unit_header(buf, have, last, &total))
		return (size_t)last + 24;
	return (size_t)last + total;
}

/* ---- the in-memory copy ---- */

static int section_kept(const char *name)
{
	static const char *const kept[] = {
		".debug_info",	   ".debug_abbrev",   ".debug_line",
		".debug_str",	   ".debug_line_str", ".debug_ranges",
		".debug_rnglists", ".debug_addr",     ".debug_str_offsets",
	};
	size_t i;

	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (!strcmp(name, kept[i]))
			return 1;
	return 0;
}

/* Appends n bytes (data, or zeros if NULL) aligned to `align`; returns
 * their offset. */
static size_t append(struct sp_partial *p, size_t *alloc, const void *data, size_t n, size_t align)
{
	size_t off;

	if (align < 8)
		align = 8;
	off = (p->size + align - 1) & ~(align - 1);
	if (off + n > *alloc) {
		*alloc = (off + n) * 2;
		p->image = sp_xrealloc(p->image, *alloc);
	}
	memset(p->image + p->size, 0, off - p->size);
	if (data)
		memcpy(p->image + off, data, n);
	else
		memset(p->image + off, 0, n);
	p->size = off + n;
	return off;
}

/* The end of the abbreviation table at off, or 0 if [0, have) cuts it. */
static size_t abbrev_end(const uint8_t *d, size_t have, size_t off)
{
	size_t p = off;

#define ULEB(v)                                                                                    \
	do {                                                                                       \
		int sh_ = 0;                                                                       \
		(v) = 0;                                                                           \
		do {                                                                               \
			if (p >= have)                                                             \
				return 0;                                                          \
			(v) |= (uint64_t)(d[p] & 0x7f) << (sh_ < 63 ? sh_ : 63);                   \
			sh_ += 7;                                                                  \
		} while (d[p++] & 0x80);                                                           \
	} while (0)
	for (;;) {
		uint64_t code, tag, name, form, skip;

		ULEB(code);
		if (!code)
			return p;
		ULEB(tag);
		if (++p > have)
			return 0;
		for (;;) {
			ULEB(name);
			ULEB(form);
			if (form == DW_FORM_implicit_const)
				ULEB(skip);
			if (!name && !form)
				break;
		}
		(void)tag;
		(void)skip;
	}
#undef ULEB
}

struct abbrev_want {
	size_t last; /* the highest table offset wanted */
};

static size_t abbrev_target(void *ctx, const uint8_t *buf, size_t have)
{
	const struct abbrev_want *w = ctx;
	size_t end = abbrev_end(buf, have, w->last);

	return end ? end : (have > w->last ? have : w->last) + 65536;
}

/* The highest abbreviation table offset of the wanted units. */
static size_t last_abbrev(const uint8_t *info, size_t size, const uint64_t *cus, size_t n)
{
	size_t i, last = 0, total;

	for (i = 0; i < n; i++) {
		uint64_t off = cus[i];
		int big = unit_header(info, size, off, &total) && get(info + off, 4) == 0xffffffff;
		size_t lenbytes = big ? 12 : 4, offsz = big ? 8 : 4, pos;
		uint64_t a;

		if (!unit_header(info, size, off, &total))
			continue;
		pos = off + lenbytes + 2 + (get(info + off + lenbytes, 2) >= 5 ? 2 : 0);
		a = get(info + pos, (int)offsz);
		if (a > last)
			last = (size_t)a;
	}
	return last;
}

/* ---- .debug_line: up to the wanted units' programs ---- */

/* A little-endian reader over [p, end) that fails softly. */
struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	v = get(r->p, (int)n);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	int sh = 0;

	do {
		if (r->bad || r->p >= r->end) {
			r->bad = 1;
			return 0;
		}
		v |= (uint64_t)(*r->p & 0x7f) << (sh < 63 ? sh : 63);
		sh += 7;
	} while (*r->p++ & 0x80);
	return v;
}

static void rd_skip(struct rd *r, uint64_t n)
{
	if (r->bad || (uint64_t)(r->end - r->p) < n)
		r->bad = 1;
	else
		r->p += n;
}

/* Skips an attribute value of `form`; 0 if the form is not a plain one. */
static int skip_form(struct rd *r, uint64_t form, int addr_size, int offsz, int version)
{
	struct sp_dwform_unit fu = {version, addr_size, offsz, 0};

	if (form > UINT32_MAX)
		return 0;
	if (!r->bad && sp_dwform_skip(&r->p, r->end, (unsigned)form, &fu) < 0)
		r->bad = 1;
	return 1;
}

/* The next (name, form) of an abbreviation; 0 at its end or when bad. */
static int attr_spec(struct rd *a, uint64_t *name, uint64_t *form)
{
	*name = rd_uleb(a);
	*form = rd_uleb(a);
	if (*form == DW_FORM_implicit_const)
		rd_uleb(a);
	return !a->bad && (*name || *form);
}

/*
 * The DW_AT_stmt_list of the unit whose header is at info + off, read
 * with the abbreviations; 0 and *stmt set, or -1 if anything is unusual
 * (the caller then inflates all of .debug_line).
 */
static int unit_stmt_list(const uint8_t *info, size_t info_len, uint64_t off, const uint8_t *abbrev,
			  size_t abbrev_len, uint64_t *stmt)
{
	struct rd d = {info + off, info + info_len, off > info_len}, a;
	uint64_t len, aoff, code, acode, name, form;
	int offsz = 4, version, addr_size;

	len = rd_fixed(&d, 4);
	if (len == 0xffffffff) {
		len = rd_fixed(&d, 8);
		offsz = 8;
	}
	version = (int)rd_fixed(&d, 2);
	if (version >= 5) {
		if (rd_fixed(&d, 1) != DW_UT_compile)
			return -1;
		addr_size = (int)rd_fixed(&d, 1);
		aoff = rd_fixed(&d, (size_t)offsz);
	} else {
		aoff = rd_fixed(&d, (size_t)offsz);
		addr_size = (int)rd_fixed(&d, 1);
	}
	code = rd_uleb(&d);
	if (d.bad || version < 2 || version > 5 || !code || aoff >= abbrev_len)
		return -1;
	a.p = abbrev + aoff;
	a.end = abbrev + abbrev_len;
	a.bad = 0;
	/* the abbreviation of the unit's DIE */
	while ((acode = rd_uleb(&a)) != code) {
		if (a.bad || !acode)
			return -1;
		rd_uleb(&a);
		rd_skip(&a, 1);
		while (attr_spec(&a, &name, &form))
			;
		if (a.bad)
			return -1;
	}
	rd_uleb(&a);
	rd_skip(&a, 1);
	while (attr_spec(&a, &name, &form)) {
		if (name == DW_AT_stmt_list) {
			if (form == DW_FORM_data4 || (form == DW_FORM_sec_offset && offsz == 4))
				*stmt = rd_fixed(&d, 4);
			else if (form == DW_FORM_data8 || form == DW_FORM_sec_offset)
				*stmt = rd_fixed(&d, 8);
			else
				return -1;
			return d.bad ? -1 : 0;
		}
		if (!skip_form(&d, form, addr_size, offsz, version) || d.bad)
			return -1;
	}
	return -1;
}

/*
 * Inflating .debug_line up to the end of the wanted units' programs: the
 * units' offsets, sorted, and how far the walk of the programs' chain of
 * headers (each says its length) has gone. A wanted offset that is not on
 * the chain means all of the section.
 */
struct line_want {
	uint64_t *offs;
	size_t n, next; /* next: the first wanted offset not reached yet */
	uint64_t off;	/* the chain's current unit */
};

static size_t line_target(void *ctx, const uint8_t *buf, size_t have)
{
	struct line_want *w = ctx;

	while (w->next < w->n) {
		uint64_t len, end;
		size_t hdr = 4;

		if (w->off > w->offs[w->next])
			return SIZE_MAX;
		if (have < w->off + 12)
			return (size_t)w->off + 65536;
		len = get(buf + w->off, 4);
		if (len == 0xffffffff) {
			len = get(buf + w->off + 4, 8);
			hdr = 12;
		} else if (len >= 0xfffffff0) {
			return SIZE_MAX;
		}
		if (len > SIZE_MAX / 2 || w->off > SIZE_MAX / 2)
			return SIZE_MAX;
		end = w->off + hdr + len;
		if (w->off == w->offs[w->next]) {
			w->next++;
			if (w->next == w->n)
				return (size_t)end;
		}
		w->off = end;
	}
	return 0;
}

/* The wanted units' line program offsets, sorted and distinct; 0 if some
 * cannot be read (then all of .debug_line is inflated). */
static size_t line_offsets(const struct sp_partial *p, const uint8_t *info, size_t info_len,
			   const uint8_t *abbrev, size_t abbrev_len, uint64_t **out)
{
	uint64_t *v = sp_xmalloc((p->ncus + 1) * sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < p->ncus; i++) {
		if (unit_stmt_list(info, info_len, p->cus[i], abbrev, abbrev_len, &v[i]) < 0) {
			free(v);
			return 0;
		}
	}
	sp_sort(v, p->ncus, sizeof(*v), cmp_u64, NULL);
	for (i = 0; i < p->ncus; i++)
		if (!n || v[i] != v[n - 1])
			v[n++] = v[i];
	*out = v;
	return n;
}

/* What the copy's sections come from. */
struct image_src {
	const uint8_t *raw; /* the file */
	size_t rawsize;
	const uint8_t *info; /* .debug_info, inflated up to the last wanted unit */
	size_t info_len, abbrev_last;
	size_t abbrev_off, abbrev_len; /* .debug_abbrev in the copy, once there */
	int have_abbrev;
	int whole; /* every compressed section inflated whole (sp_partial_whole) */
};

/* Inflates a kept section: .debug_abbrev and .debug_line only as far as
 * the wanted units need (when that can be told), the others whole. */
static size_t inflate_kept(struct sp_partial *p, const struct sect *s, const char *name,
			   const struct image_src *src, uint8_t **data)
{
	struct abbrev_want aw = {src->abbrev_last};
	struct line_want lw;
	size_t n;

	if (!strcmp(name, ".debug_abbrev"))
		return inflate_section(s, ELFCLASS64, data, abbrev_target, &aw, NULL);
	memset(&lw, 0, sizeof(lw));
	if (strcmp(name, ".debug_line") || !src->have_abbrev ||
	    !(lw.n = line_offsets(p, src->info, src->info_len, p->image + src->abbrev_off,
				  src->abbrev_len, &lw.offs)))
		return inflate_section(s, ELFCLASS64, data, NULL, NULL, NULL);
	n = inflate_section(s, ELFCLASS64, data, line_target, &lw, NULL);
	free(lw.offs);
	return n;
}

/* Notes the first section that could not be inflated (for a warning). */
static void damaged(struct sp_partial *p, const char *name, size_t why)
{
	struct sp_buf b = SP_BUF_INIT;

	if (p->problem)
		return;
	sp_buf_addf(&b, "section %s: %s", name, inflate_problem(why));
	p->problem = sp_buf_detach(&b, NULL);
}

/* A section's name in the section names (shstr, size bytes); NULL for
 * one libelf cannot read either: past them, or without its NUL. */
static const char *section_name(const char *shstr, size_t size, uint32_t at)
{
	return at < size && memchr(shstr + at, 0, size - at) ? shstr + at : NULL;
}

/* One section of the copy: its bytes (inflated, emptied or as they are).
 * A compressed one without a readable name is emptied: libdw skips a
 * section it cannot name. */
static int copy_section(struct sp_partial *p, size_t *alloc, Elf64_Shdr *sh, const char *name,
			struct image_src *src)
{
	struct sect s;
	uint8_t *data = NULL;
	int early = 0;
	size_t n = 0;

	if (sh->sh_type == SHT_NOBITS || !sh->sh_size) {
		sh->sh_offset = p->size;
		return 0;
	}
	if (!(sh->sh_flags & SHF_COMPRESSED)) {
		sh->sh_offset =
			append(p, alloc, src->raw + sh->sh_offset, sh->sh_size, sh->sh_addralign);
		return 0;
	}
	if (!name) {
		sh->sh_offset = p->size;
	} else if (src->whole) {
		memset(&s, 0, sizeof(s));
		s.sh.sh_size = sh->sh_size;
		s.raw = src->raw + sh->sh_offset;
		s.filesize = src->rawsize;
		n = inflate_section(&s, ELFCLASS64, &data, NULL, NULL, &early);
		if (early) {
			damaged(p, name, INFLATE_EARLY);
		} else if (INFLATE_FAILED(n)) {
			/* libelf and libbfd drop such a section: the anchors
			 * read the file without it, and so does libdw here */
			damaged(p, name, n);
			n = 0;
		}
		sh->sh_offset = append(p, alloc, data, n, 8);
		free(data);
	} else if (!strcmp(name, ".debug_info")) {
		sh->sh_offset = append(p, alloc, src->info, src->info_len, 8);
		n = src->info_len;
	} else if (section_kept(name)) {
		memset(&s, 0, sizeof(s));
		s.sh.sh_size = sh->sh_size;
		s.raw = src->raw + sh->sh_offset;
		s.filesize = src->rawsize;
		n = inflate_kept(p, &s, name, src, &data);
		if (INFLATE_FAILED(n)) {
			free(data);
			return -1;
		}
		sh->sh_offset = append(p, alloc, data, n, 8);
		free(data);
		if (!strcmp(name, ".debug_abbrev")) {
			src->abbrev_off = sh->sh_offset;
			src->abbrev_len = n;
			src->have_abbrev = 1;
		}
	} else {
		sh->sh_offset = p->size;
	}
	sh->sh_size = n;
	sh->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
	sh->sh_addralign = 1;
	return 0;
}

/*
 * A compact copy of the file for libdw: the ELF and program headers, every
 * section in turn (the kept debug sections inflated, .debug_info,
 * .debug_abbrev and .debug_line only as far as the wanted units need, the
 * other compressed ones emptied), then the section headers.
 */
static int build_image(struct sp_partial *p, Elf *elf, const uint8_t *info, size_t info_len,
		       size_t abbrev_last, int whole)
{
	size_t rawsize, alloc, k;
	const uint8_t *raw = (const uint8_t *)elf_rawfile(elf, &rawsize);
	struct image_src src;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	const char *shstr;
	size_t shstr_size;

	if (!raw || rawsize < sizeof(eh))
		return -1;
	memcpy(&eh, raw, sizeof(eh));
	if (!eh.e_shnum || eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > rawsize ||
	    (size_t)eh.e_shnum * sizeof(*sh) > rawsize - eh.e_shoff || eh.e_phoff > rawsize ||
	    (size_t)eh.e_phnum * eh.e_phentsize > rawsize - eh.e_phoff)
		return -1;
	sh = sp_xmalloc(eh.e_shnum * sizeof(*sh));
	memcpy(sh, raw + eh.e_shoff, eh.e_shnum * sizeof(*sh));
	if (sh[eh.e_shstrndx].sh_offset > rawsize ||
	    sh[eh.e_shstrndx].sh_size > rawsize - sh[eh.e_shstrndx].sh_offset) {
		free(sh);
		return -1;
	}
	shstr = (const char *)raw + sh[eh.e_shstrndx].sh_offset;
	shstr_size = sh[eh.e_shstrndx].sh_size;
	memset(&src, 0, sizeof(src));
	src.raw = raw;
	src.rawsize = rawsize;
	src.info = info;
	src.info_len = info_len;
	src.abbrev_last = abbrev_last;
	src.whole = whole;
	alloc = (whole ? rawsize * 4 : rawsize / 4) + info_len + 4096;
	p->image = sp_xmalloc(alloc);
	p->size = 0;
	append(p, &alloc, &eh, sizeof(eh), 8);
	eh.e_phoff = eh.e_phnum ? append(p, &alloc, raw + eh.e_phoff,
					 (size_t)eh.e_phnum * eh.e_phentsize, 8)
				: 0;
	for (k = 1; k < eh.e_shnum; k++) {
		if (sh[k].sh_type != SHT_NOBITS &&
		    (sh[k].sh_offset > rawsize || sh[k].sh_size > rawsize - sh[k].sh_offset)) {
			free(sh);
			return -1;
		}
		if (copy_section(p, &alloc, &sh[k], section_name(shstr, shstr_size, sh[k].sh_name),
				 &src) < 0) {
			free(sh);
			return -1;
		}
	}
	eh.e_shoff = append(p, &alloc, sh, eh.e_shnum * sizeof(*sh), 8);
	memcpy(p->image, &eh, sizeof(eh));
	free(sh);
	return 0;
}

/* ---- API ---- */

static struct sect *sections(Elf *elf, size_t *n, int *unusual)
{
	size_t shstrndx, alloc = 0, rawsize;
	const uint8_t *raw = (const uint8_t *)elf_rawfile(elf, &rawsize);
	struct sect *v = NULL;
	Elf_Scn *scn = NULL;

	*n = 0;
	*unusual = !raw || elf_getshdrstrndx(elf, &shstrndx) < 0;
	while (!*unusual && (scn = elf_nextscn(elf, scn))) {
		struct sect s;

		memset(&s, 0, sizeof(s));
		s.scn = scn;
		s.filesize = rawsize;
		if (!gelf_getshdr(scn, &s.sh) ||
		    !(s.name = elf_strptr(elf, shstrndx, s.sh.sh_name)))
			continue;
		if (!strncmp(s.name, ".zdebug", 7) || !strcmp(s.name, ".gnu_debugaltlink"))
			*unusual = 1;
		if (s.sh.sh_type != SHT_NOBITS && s.sh.sh_offset <= rawsize &&
		    s.sh.sh_size <= rawsize - s.sh.sh_offset)
			s.raw = raw + s.sh.sh_offset;
		else if (!strncmp(s.name, ".debug", 6))
			continue;
		SP_ALLOC_GROW(v, *n + 1, alloc);
		v[(*n)++] = s;
	}
	return v;
}

static const struct sect *find(const struct sect *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static int host_layout(Elf *elf)
{
	GElf_Ehdr eh;
	const uint16_t one = 1;

	return gelf_getehdr(elf, &eh) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh.e_ident[EI_DATA] == (*(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB) &&
	       eh.e_shentsize == sizeof(Elf64_Shdr);
}

/* Reads .debug_aranges into p (sorted); -1 if it is missing or bad. */
static int load_aranges(struct sp_partial *p, Elf *elf, const struct sect *ar)
{
	uint8_t *buf = NULL;
	const uint8_t *d;
	size_t size;
	GElf_Ehdr eh;

	if (!ar || !ar->raw || !gelf_getehdr(elf, &eh))
		return -1;
	if (ar->sh.sh_flags & SHF_COMPRESSED) {
		size = inflate_section(ar, eh.e_ident[EI_CLASS], &buf, NULL, NULL, NULL);
		if (INFLATE_FAILED(size)) {
			free(buf);
			return -1;
		}
		d = buf;
	} else {
		d = ar->raw;
		size = ar->sh.sh_size;
	}
	if (parse_aranges(d, size, &p->ar, &p->nar) < 0 || !p->nar) {
		free(buf);
		return -1;
	}
	free(buf);
	sp_sort(p->ar, p->nar, sizeof(*p->ar), cmp_arange, NULL);
	return 0;
}

/* The DIE offsets of the wanted units, from .debug_info (as read). */
static int die_offsets(struct sp_partial *p, const uint8_t *info, size_t size)
{
	size_t i, total;

	p->die_off = sp_xmalloc((p->ncus + 1) * sizeof(*p->die_off));
	for (i = 0; i < p->ncus; i++) {
		size_t hdr = unit_header(info, size, p->cus[i], &total);

		if (!hdr || p->cus[i] + total > size)
			return -1;
		p->die_off[i] = p->cus[i] + hdr;
	}
	return 0;
}

static void find_stubs(struct sp_partial *p, const struct sect *secs, size_t nsecs)
{
	static const char *const names[] = {".plt", ".plt.got", ".plt.sec", ".iplt"};
	size_t i, k, alloc = 0;

	for (i = 0; i < nsecs; i++)
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
			if (strcmp(secs[i].name, names[k]) || !secs[i].sh.sh_size ||
			    !(secs[i].sh.sh_flags & SHF_EXECINSTR))
				continue;
			SP_ALLOC_GROW(p->stubs, p->nstubs + 1, alloc);
			p->stubs[p->nstubs][0] = secs[i].sh.sh_addr;
			p->stubs[p->nstubs++][1] = secs[i].sh.sh_addr + secs[i].sh.sh_size;
		}
}

static int prepare(struct sp_partial *p, Elf *elf, const uint64_t *addrs, size_t n,
		   const uint64_t *extra, size_t nextra)
{
	struct info_want w;
	struct sect *secs;
	const struct sect *info;
	size_t nsecs, i, limit;
	int unusual, compressed = 0, r = -1;

	secs = sections(elf, &nsecs, &unusual);
	find_stubs(p, secs, nsecs);
	info = find(secs, nsecs, ".debug_info");
	if (unusual || !info || !info->raw ||
	    load_aranges(p, elf, find(secs, nsecs, ".debug_aranges")))
		goto out;
	limit = count_units(p->ar, p->nar) / MAX_SHARE;
	if (!limit ||
	    units_for(p, p->ar, p->nar, addrs, n, extra, nextra, limit, &p->cus, &p->ncus) < 0 ||
	    !p->ncus)
		goto out;
	for (i = 0; i < nsecs; i++)
		compressed |= !strncmp(secs[i].name, ".debug", 6) &&
			      (secs[i].sh.sh_flags & SHF_COMPRESSED);
	w.cus = p->cus;
	w.n = p->ncus;
	if (!compressed) {
		r = die_offsets(p, info->raw, info->sh.sh_size);
	} else if (host_layout(elf) && (info->sh.sh_flags & SHF_COMPRESSED)) {
		uint8_t *buf = NULL;
		size_t len = inflate_section(info, ELFCLASS64, &buf, info_target, &w, NULL);

		if (!INFLATE_FAILED(len) && die_offsets(p, buf, len) == 0 &&
		    build_image(p, elf, buf, len, last_abbrev(buf, len, p->cus, p->ncus), 0) == 0)
			r = 0;
		free(buf);
	}
out:
	free(secs);
	return r;
}

int sp_partial_prepare_with(struct sp_partial *p, Elf *elf, const uint64_t *addrs, size_t n,
			    const uint64_t *cus, size_t ncus)
{
	memset(p, 0, sizeof(*p));
	if (!n || prepare(p, elf, addrs, n, cus, ncus) < 0) {
		sp_partial_release(p);
		return -1;
	}
	p->units.die_off = p->die_off;
	p->units.n = p->ncus;
	return 0;
}

int sp_partial_prepare(struct sp_partial *p, Elf *elf, const uint64_t *addrs, size_t n)
{
	return sp_partial_prepare_with(p, elf, addrs, n, NULL, 0);
}

void sp_partial_restore(struct sp_partial *p, struct sp_partial_arange *ar, size_t nar,
			uint64_t *cus, uint64_t *die_off, size_t ncus, uint64_t (*stubs)[2],
			size_t nstubs)
{
	memset(p, 0, sizeof(*p));
	p->ar = ar;
	p->nar = nar;
	p->cus = cus;
	p->die_off = die_off;
	p->ncus = ncus;
	p->units.die_off = die_off;
	p->units.n = ncus;
	p->stubs = stubs;
	p->nstubs = nstubs;
}

/* A file read as it is (libdw inflates its sections) whose compressed
 * sections libelf cannot inflate: they are noted, by the first one (p was
 * just released: nothing is noted yet). */
static void foreign_kinds(struct sp_partial *p, const struct sect *secs, size_t nsecs)
{
	struct sp_buf b = SP_BUF_INIT;
	const char *first = NULL;
	size_t i, n = 0, zstd = 0;

	for (i = 0; i < nsecs; i++) {
		GElf_Chdr ch;

		if (strncmp(secs[i].name, ".debug", 6) || !(secs[i].sh.sh_flags & SHF_COMPRESSED) ||
		    !gelf_getchdr(secs[i].scn, &ch) || ch.ch_type == ELFCOMPRESS_ZLIB)
			continue;
		first = first ? first : secs[i].name;
		n++;
		zstd += ch.ch_type == ELFCOMPRESS_ZSTD;
	}
	if (!n)
		return;
	sp_buf_addf(&b, "section %s", first);
	if (n > 1)
		sp_buf_addf(&b, " and %zu more", n - 1);
	if (zstd == n)
		sp_buf_addstr(&b, ": zstd-compressed, which symprof inflates only in 64-bit files "
				  "of this machine's byte order (libelf cannot); left out");
	else
		sp_buf_addf(&b, ": %s", inflate_problem(INFLATE_UNKNOWN));
	p->problem = sp_buf_detach(&b, NULL);
}

int sp_partial_whole(struct sp_partial *p, Elf *elf)
{
	struct sect *secs;
	size_t nsecs, i;
	int unusual, compressed = 0, r = -1;

	memset(p, 0, sizeof(*p));
	secs = sections(elf, &nsecs, &unusual);
	for (i = 0; i < nsecs; i++)
		compressed |= !strncmp(secs[i].name, ".debug", 6) &&
			      (secs[i].sh.sh_flags & SHF_COMPRESSED);
	if (!unusual && compressed && host_layout(elf))
		r = build_image(p, elf, NULL, 0, 0, 1);
	if (r < 0)
		sp_partial_release(p);
	if (r < 0 && compressed)
		foreign_kinds(p, secs, nsecs);
	free(secs);
	return r;
}

int sp_partial_covers(const struct sp_partial *p, uint64_t addr)
{
	uint64_t *cus = NULL;
	size_t n = 0, alloc = 0, i, lo;
	int ok;

	if (!covering(p->ar, p->nar, addr, &cus, &n, &alloc)) {
		free(cus);
		return in_stub(p, addr);
	}
	for (ok = 1, i = 0; i < n && ok; i++) {
		size_t hi = p->ncus;

		for (lo = 0; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->cus[mid] < cus[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		ok = lo < p->ncus && p->cus[lo] == cus[i];
	}
	free(cus);
	return ok;
}

void sp_partial_release(struct sp_partial *p)
{
	free(p->image);
	free(p->ar);
	free(p->stubs);
	free(p->cus);
	free(p->die_off);
	free(p->problem);
	memset(p, 0, sizeof(*p));
}
