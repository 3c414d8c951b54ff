/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gmon.out reader: the GNU tagged format and the two BSD formats, as GNU
 * gprof 2.40 reads them (shared/reference/gprof.md section 3).
 *
 * Every integer is in the target's byte order and every address is as wide
 * as the target's pointers (both from the executable's ELF header), with no
 * padding anywhere.
 *
 * GNU format:
 *
 *   <header>   "gmon" <version:u32> <spare:12 bytes>         version 1 (or 0)
 *   <record>*  <tag:u8> <body>                               until EOF
 *
 *   tag 0  histogram      <low_pc:ptr> <high_pc:ptr> <nbins:u32> <rate:u32>
 *                         <dimen:15 bytes> <dimen_abbrev:1> <bin:u16>{nbins}
 *   tag 1  call-graph arc <from_pc:ptr> <self_pc:ptr> <count:u32>
 *   tag 2  basic blocks   <n:u32> (<addr:ptr> <count:ptr>){n}
 *                         (version 0: <n:u32> <string> then per block
 *                          <count:8> <addr:8> <string> <string> <line:4>, host order)
 *
 * BSD formats (no magic; recognised when the file does not start "gmon"):
 *
 *   <low_pc:ptr> <high_pc:ptr> <ncnt:u32> <header rest> <bin:u16>{nbins}
 *   (<from_pc:ptr> <self_pc:ptr> <count:ptr-sized>)*       until EOF
 *
 *   4.4BSD: <header rest> = <version:u32 = 0x00051879> <profrate:u32> <spare:12>
 *   old BSD: nothing (the rate comes from the system: gprof's hertz())
 *   ncnt = header size + 2 * nbins; the header is 40/28 bytes (4.4BSD, 64/32-bit)
 *   or 20/12 bytes (old BSD).
 *
 * Several files are summed into one profile with gprof's rules: the first
 * histogram sets the rate, the unit and the bin scale; a histogram with the
 * same address range adds to the existing one; a range that overlaps an
 * existing one without being equal is an error, as are a changed unit or
 * scale. Call-graph arcs with the same (from_pc, self_pc) are summed.
 */
#include "symprof/formats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "symprof/error.h"
#include "symprof/mfile.h"
#include "symprof/profile.h"

#define GMON_MAGIC "gmon"
#define GMON_HDR_SIZE 20
#define GMON_TAG_TIME_HIST 0
#define GMON_TAG_CG_ARC 1
#define GMON_TAG_BB_COUNT 2
#define BSD44_VERSION 0x00051879u
#define UNIT 2 /* bytes of text per histogram unit (HISTFRACTION) */

struct gmon_reader {
	struct sp_profile *p;
	struct sp_gmon_state *st;
	const char *name;
	const struct sp_gmon_read_opts *o;
	struct sp_cursor c;
	struct sp_input *in;
	struct sp_error *err;
	uint32_t *bin_idx, *bin_count; /* add_bins(): the bins that are not 0 */
	size_t bins_alloc, bin_count_alloc;
};

/* ---- primitive reads ---- */

/* An address as read from the file, as the target means it: 32-bit
 * targets that sign-extend (MIPS) get their 64-bit value. */
static inline uint64_t target_addr(const struct gmon_reader *r, uint64_t v)
{
	if (r->o->target.sign_extend && r->o->target.ptr_size == 4)
		v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	return v;
}

static int read_ptr(struct gmon_reader *r, uint64_t *v)
{
	if (sp_cursor_uint(&r->c, r->o->target.ptr_size, v) < 0)
		return -1;
	*v = target_addr(r, *v);
	return 0;
}

static int read_u32(struct gmon_reader *r, uint32_t *v)
{
	uint64_t x;

	if (sp_cursor_uint(&r->c, 4, &x) < 0)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int truncated(struct gmon_reader *r, const char *what, size_t off)
{
	return sp_error_set(r->err, SP_E_TRUNCATED,
			    "cannot read '%s': %s truncated at offset %#zx (file is %zu byte%s)",
			    r->name, what, off, SP_BYTES(r->c.end - r->c.base));
}

static int corrupt(struct gmon_reader *r, size_t off, const char *what)
{
	return sp_error_set(r->err, SP_E_CORRUPT, "cannot read '%s': %s at offset %#zx", r->name,
			    what, off);
}

/* ---- histograms ---- */

static double hist_scale_of(uint64_t low, uint64_t high, uint32_t nbins)
{
	if (!nbins)
		return 0;
	return (double)((high - low) / UNIT) / nbins;
}

/*
 * The first histogram of the whole run fixes hz, the unit and the scale;
 * later ones must match (gprof's read_histogram_header()).
 */
static int hist_header_check(struct gmon_reader *r, size_t off, uint32_t rate, const char *dimen,
			     char abbrev, double scale)
{
	struct sp_profile *p = r->p;

	if (!r->st->have_hist) {
		r->st->hz = rate;
		memcpy(p->hist_dimen, dimen, 15);
		p->hist_dimen[15] = '\0';
		p->hist_dimen_abbrev = abbrev;
		p->hist_rate = rate;
		r->st->hist_scale = scale;
		r->st->have_hist = 1;
		return 0;
	}
	if (strncmp(dimen, p->hist_dimen, 15))
		return sp_error_set(r->err, SP_E_INCOMPAT,
				    "cannot read '%s': histogram at offset %#zx measures '%.15s', "
				    "earlier histograms '%s'",
				    r->name, off, dimen, p->hist_dimen);
	if (abbrev != p->hist_dimen_abbrev)
		return sp_error_set(r->err, SP_E_INCOMPAT,
				    "cannot read '%s': histogram at offset %#zx has unit "
				    "abbreviation '%c', earlier histograms '%c'",
				    r->name, off, abbrev, p->hist_dimen_abbrev);
	if (fabs(r->st->hist_scale - scale) > 0.000001)
		return sp_error_set(r->err, SP_E_INCOMPAT,
				    "cannot read '%s': histogram at offset %#zx has a different "
				    "scale (%g bytes per bin, earlier %g)",
				    r->name, off, scale * UNIT, r->st->hist_scale * UNIT);
	return 0;
}

static int hist_overlaps(const struct sp_profile *p, uint64_t low, uint64_t high)
{
	size_t i;

	for (i = 0; i < p->nhists; i++) {
		const struct sp_hist *h = &p->hists[i];
		uint64_t lo = h->low_pc > low ? h->low_pc : low;
		uint64_t hi = h->high_pc < high ? h->high_pc : high;

		if (h->low_pc == low && h->high_pc == high)
			return 0;
		if (lo < hi)
			return 1;
	}
	return 0;
}

/* The bins of raw[from, to) that are not 0, noted for add_bins(). */
static size_t note_bins(struct gmon_reader *r, const uint8_t *raw, uint32_t from, uint32_t to,
			size_t n)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		uint32_t v = (uint32_t)sp_load_uint(raw + 2 * (size_t)i, 2, r->c.big_endian);

		if (!v)
			continue;
		SP_ALLOC_GROW(r->bin_idx, n + 1, r->bins_alloc);
		SP_ALLOC_GROW(r->bin_count, n + 1, r->bin_count_alloc);
		r->bin_idx[n] = i;
		r->bin_count[n++] = v;
	}
	return n;
}

/*
 * Adds nbins u16 counters (the caller checked they are there). Most are 0:
 * 32 at a time (a cache line) are passed over with a few loads, and only
 * the others reach the histogram, which keeps just those.
 */
static void add_bins(struct gmon_reader *r, struct sp_hist *h, uint32_t nbins)
{
	const uint8_t *p = r->c.p;
	uint32_t i;
	size_t n = 0;

	h->bins_off = h->nrecords++ ? 0 : sp_cursor_off(&r->c);

	for (i = 0; nbins - i >= 32; i += 32) {
		const uint8_t *q = p + 2 * (size_t)i;
		uint64_t w0, w1, w2, w3, w4, w5, w6, w7;

		memcpy(&w0, q, 8);
		memcpy(&w1, q + 8, 8);
		memcpy(&w2, q + 16, 8);
		memcpy(&w3, q + 24, 8);
		memcpy(&w4, q + 32, 8);
		memcpy(&w5, q + 40, 8);
		memcpy(&w6, q + 48, 8);
		memcpy(&w7, q + 56, 8);
		if (w0 | w1 | w2 | w3 | w4 | w5 | w6 | w7)
			n = note_bins(r, p, i, i + 32, n);
	}
	n = note_bins(r, p, i, nbins, n);
	sp_profile_hist_add(h, r->bin_idx, r->bin_count, n);
	r->c.p += 2 * (size_t)nbins;
}

static int read_hist_rec(struct gmon_reader *r)
{
	size_t off = sp_cursor_off(&r->c) - 1;
	uint64_t low, high;
	uint32_t nbins, rate;
	char dimen[16], abbrev;
	struct sp_hist *h;
	int ret;

	if (read_ptr(r, &low) < 0 || read_ptr(r, &high) < 0 || read_u32(r, &nbins) < 0 ||
	    read_u32(r, &rate) < 0 || sp_cursor_bytes(&r->c, dimen, 15) < 0 ||
	    sp_cursor_bytes(&r->c, &abbrev, 1) < 0)
		return truncated(r, "histogram record header", off);
	dimen[15] = '\0';
	if (low > high)
		return corrupt(r, off, "histogram record with low_pc above high_pc");
	if (!nbins)
		return corrupt(r, off, "histogram record with no bins");
	/* every sample would count as 1/0 seconds (gprof prints inf and nan) */
	if (!rate)
		return corrupt(r, off, "histogram record with a rate of 0 samples a second");
	if (sp_cursor_left(&r->c) / 2 < nbins)
		return sp_error_set(
			r->err, SP_E_TRUNCATED,
			"cannot read '%s': histogram at offset %#zx has %u bins but only "
			"%zu byte%s follow%s",
			r->name, off, nbins, SP_BYTES(sp_cursor_left(&r->c)),
			sp_cursor_left(&r->c) == 1 ? "s" : "");
	ret = hist_header_check(r, off, rate, dimen, abbrev, hist_scale_of(low, high, nbins));
	if (ret < 0)
		return ret;
	if (hist_overlaps(r->p, low, high))
		return sp_error_set(r->err, SP_E_INCOMPAT,
				    "cannot read '%s': histogram at offset %#zx [%#llx, %#llx) "
				    "overlaps an earlier histogram",
				    r->name, off, (unsigned long long)low,
				    (unsigned long long)high);
	h = sp_profile_findnew_hist(r->p, low, high, nbins);
	if (h->nbins != nbins)
		return corrupt(r, off, "histogram with the range of an earlier one but other bins");
	if (r->o->debug)
		fprintf(r->o->debug, "[hist_read_rec] n_lowpc 0x%llx n_highpc 0x%llx ncnt %u\n",
			(unsigned long long)low, (unsigned long long)high, nbins);
	add_bins(r, h, nbins);
	r->in->nhist++;
	r->st->input_flags |= SP_GMON_INPUT_HISTOGRAM;
	return 0;
}

/* ---- arcs and basic blocks ---- */

/* An address of `ptr` bytes; the usual 8 as a single load. */
static inline uint64_t load_ptr(const uint8_t *p, size_t ptr, int be)
{
	return ptr == 8 ? sp_load_uint(p, 8, be) : sp_load_uint(p, (int)ptr, be);
}

/*
 * An arc record and the arc records right after it (29,000 in a row are
 * usual), appended a batch at a time as they are: the reader's caller sums
 * equal pairs at the end of the file.
 */
static int read_arc_recs(struct gmon_reader *r)
{
	size_t ptr = (size_t)r->o->target.ptr_size, len = 2 * ptr + 4, n = 0, nrecs = 0;
	int be = r->c.big_endian, ret = 0;
	struct sp_pcarc batch[256];

	for (;;) {
		struct sp_pcarc *a = &batch[n];
		const uint8_t *p = r->c.p;

		if (sp_cursor_left(&r->c) < len) {
			ret = truncated(r, "call-graph record", sp_cursor_off(&r->c) - 1);
			break;
		}
		a->from_pc = target_addr(r, load_ptr(p, ptr, be));
		a->self_pc = target_addr(r, load_ptr(p + ptr, ptr, be));
		a->count = (uint32_t)sp_load_uint(p + 2 * ptr, 4, be);
		r->c.p += len;
		nrecs++;
		if (r->o->debug)
			fprintf(r->o->debug,
				"[cg_read_rec] frompc 0x%llx selfpc 0x%llx count %llu\n",
				(unsigned long long)a->from_pc, (unsigned long long)a->self_pc,
				(unsigned long long)a->count);
		if (++n == sizeof(batch) / sizeof(batch[0])) {
			sp_profile_append_pcarcs(r->p, batch, n);
			n = 0;
		}
		if (!sp_cursor_left(&r->c) || *r->c.p != GMON_TAG_CG_ARC)
			break;
		r->c.p++;
	}
	sp_profile_append_pcarcs(r->p, batch, n);
	r->in->narcs += (uint32_t)nrecs;
	if (nrecs)
		r->st->input_flags |= SP_GMON_INPUT_CALL_GRAPH;
	return ret;
}

static int skip_string(struct gmon_reader *r)
{
	const uint8_t *nul = memchr(r->c.p, 0, sp_cursor_left(&r->c));

	if (!nul)
		return -1;
	r->c.p = nul + 1;
	return 0;
}

static int read_bb_v0(struct gmon_reader *r, uint32_t nblocks, size_t off)
{
	uint32_t b;

	if (skip_string(r) < 0)
		return truncated(r, "basic-block record", off);
	for (b = 0; b < nblocks; b++) {
		uint8_t raw[8];
		uint64_t count, addr;

		/* version 0 files were written in host order with host sizes */
		if (sp_cursor_bytes(&r->c, raw, 8) < 0)
			return truncated(r, "basic-block record", off);
		memcpy(&count, raw, 8);
		if (sp_cursor_bytes(&r->c, raw, 8) < 0)
			return truncated(r, "basic-block record", off);
		memcpy(&addr, raw, 8);
		if (skip_string(r) < 0 || skip_string(r) < 0 || sp_cursor_skip(&r->c, 4) < 0)
			return truncated(r, "basic-block record", off);
		sp_profile_add_bbcount(r->p, addr, count);
	}
	return 0;
}

static int read_bb_rec(struct gmon_reader *r, int version)
{
	size_t off = sp_cursor_off(&r->c) - 1;
	uint32_t nblocks, b;

	if (read_u32(r, &nblocks) < 0)
		return truncated(r, "basic-block record", off);
	if (version == 0) {
		if (read_bb_v0(r, nblocks, off) < 0)
			return -SP_E_TRUNCATED;
	} else {
		size_t each = 2 * (size_t)r->o->target.ptr_size;

		if (sp_cursor_left(&r->c) / each < nblocks)
			return sp_error_set(
				r->err, SP_E_TRUNCATED,
				"cannot read '%s': basic-block record at offset %#zx has "
				"%u blocks but only %zu byte%s follow%s",
				r->name, off, nblocks, SP_BYTES(sp_cursor_left(&r->c)),
				sp_cursor_left(&r->c) == 1 ? "s" : "");
		for (b = 0; b < nblocks; b++) {
			uint64_t addr, count;

			read_ptr(r, &addr);
			read_ptr(r, &count);
			sp_profile_add_bbcount(r->p, addr, count);
		}
	}
	r->in->nbbs++;
	r->st->input_flags |= SP_GMON_INPUT_BB_COUNTS;
	return 0;
}

static int read_gnu(struct gmon_reader *r)
{
	uint32_t version;
	int ret = 0;

	r->in->format = "gmon";
	sp_cursor_skip(&r->c, 4);
	read_u32(r, &version);
	if (version != 1 && version != 0)
		return sp_error_set(r->err, SP_E_UNSUPPORTED,
				    "cannot read '%s': unsupported gmon version %u at offset 0x4",
				    r->name, version);
	r->in->version = (int)version;
	r->st->file_version = (int)version;
	sp_cursor_skip(&r->c, 12);
	/* room for as many arc records as the file could hold: the array is
	 * then never copied, and what the records do not fill is never touched */
	sp_profile_reserve_pcarcs(r->p,
				  sp_cursor_left(&r->c) / (2 * (size_t)r->o->target.ptr_size + 5));
	while (ret == 0 && sp_cursor_left(&r->c) > 0) {
		uint8_t tag = *r->c.p++;

		switch (tag) {
		case GMON_TAG_TIME_HIST:
			ret = read_hist_rec(r);
			break;
		case GMON_TAG_CG_ARC:
			ret = read_arc_recs(r);
			break;
		case GMON_TAG_BB_COUNT:
			ret = read_bb_rec(r, (int)version);
			break;
		default:
			return sp_error_set(r->err, SP_E_CORRUPT,
					    "cannot read '%s': bad record tag %u at offset %#zx "
					    "(file corrupted?)",
					    r->name, tag, sp_cursor_off(&r->c) - 1);
		}
	}
	return ret;
}

/* ---- BSD formats ---- */

long sp_gmon_system_hz(void)
{
	struct itimerval tim;
	long tck;

	/* the probe gprof's hertz() makes: a 1us interval reads back rounded */
	memset(&tim, 0, sizeof(tim));
	tim.it_interval.tv_usec = 1;
	if (setitimer(ITIMER_REAL, &tim, NULL) == 0 && setitimer(ITIMER_REAL, NULL, &tim) == 0 &&
	    tim.it_interval.tv_usec >= 2)
		return 1000000 / tim.it_interval.tv_usec;
	tck = sysconf(_SC_CLK_TCK);
	return tck > 0 ? tck : 0;
}

static int bsd_header(struct gmon_reader *r, uint64_t *low, uint64_t *high, uint32_t *ncnt,
		      size_t *hdrsize)
{
	int ptr64 = r->o->target.ptr_size == 8;
	uint32_t version, profrate;

	if (read_ptr(r, low) < 0 || read_ptr(r, high) < 0 || read_u32(r, ncnt) < 0 ||
	    read_u32(r, &version) < 0)
		return sp_error_set(
			r->err, SP_E_TRUNCATED,
			"cannot read '%s': file too short to be a gmon file (%zu byte%s)", r->name,
			SP_BYTES(r->c.end - r->c.base));
	if (version == BSD44_VERSION) {
		if (read_u32(r, &profrate) < 0)
			return truncated(r, "4.4BSD header", 0);
		if (!profrate)
			return corrupt(r, 0, "4.4BSD header with a rate of 0 samples a second");
		if (!r->st->have_hist)
			r->st->hz = profrate;
		else if (r->st->hz != (long)profrate)
			return sp_error_set(
				r->err, SP_E_INCOMPAT,
				"cannot read '%s': profiling rate %u Hz is incompatible "
				"with the first gmon file (%ld Hz)",
				r->name, profrate, r->st->hz);
		*hdrsize = ptr64 ? 8 + 8 + 4 + 4 + 4 + 12 : 4 + 4 + 4 + 4 + 4 + 12;
		r->in->format = "4.4bsd";
	} else {
		if (r->o->format == SP_GMON_BSD44)
			return sp_error_set(r->err, SP_E_FORMAT,
					    "cannot read '%s': not a 4.4BSD gmon file (bad version "
					    "%#x at offset %#x)",
					    r->name, version, ptr64 ? 0x14 : 0xc);
		*hdrsize = ptr64 ? 8 + 8 + 4 : 4 + 4 + 4;
		r->in->format = "bsd";
	}
	return 0;
}

static int bsd_hist(struct gmon_reader *r, uint64_t low, uint64_t high, uint32_t nbins)
{
	struct sp_profile *p = r->p;
	struct sp_hist *h;

	if (p->nhists && (low != p->hists[0].low_pc || high != p->hists[0].high_pc ||
			  nbins != p->hists[0].nbins))
		return sp_error_set(r->err, SP_E_INCOMPAT,
				    "cannot read '%s': histogram [%#llx, %#llx) with %u bins is "
				    "incompatible with the first gmon file",
				    r->name, (unsigned long long)low, (unsigned long long)high,
				    nbins);
	if (!p->nhists) {
		r->st->hist_scale = hist_scale_of(low, high, nbins);
		r->st->have_hist = 1;
	}
	h = sp_profile_findnew_hist(p, low, high, nbins);
	add_bins(r, h, nbins);
	if (nbins)
		r->in->nhist++;
	return 0;
}

static int read_bsd(struct gmon_reader *r)
{
	uint64_t low = 0, high = 0;
	uint32_t ncnt = 0, nbins;
	size_t hdrsize = 0;
	int ret, n = r->o->target.ptr_size;

	sp_cursor_init(&r->c, r->c.base, (size_t)(r->c.end - r->c.base), r->c.big_endian);
	ret = bsd_header(r, &low, &high, &ncnt, &hdrsize);
	if (ret < 0)
		return ret;
	if (ncnt < hdrsize || low > high)
		return sp_error_set(r->err, SP_E_FORMAT,
				    "cannot read '%s': does not appear to be in gmon.out format "
				    "(header at offset 0: low_pc %#llx, high_pc %#llx, ncnt %u)",
				    r->name, (unsigned long long)low, (unsigned long long)high,
				    ncnt);
	nbins = (ncnt - (uint32_t)hdrsize) / UNIT;
	r->c.p = r->c.base;
	if (sp_cursor_skip(&r->c, hdrsize) < 0)
		return truncated(r, "BSD header", 0);
	if (sp_cursor_left(&r->c) / UNIT < nbins)
		return sp_error_set(r->err, SP_E_TRUNCATED,
				    "cannot read '%s': histogram of %u bins truncated at offset "
				    "%#zx (%zu bins present)",
				    r->name, nbins, (size_t)(r->c.end - r->c.base),
				    sp_cursor_left(&r->c) / UNIT);
	ret = bsd_hist(r, low, high, nbins);
	if (ret < 0)
		return ret;
	sp_profile_reserve_pcarcs(r->p, sp_cursor_left(&r->c) / (3 * (size_t)n));
	while (sp_cursor_left(&r->c) >= (size_t)(3 * n)) {
		struct sp_pcarc a;

		read_ptr(r, &a.from_pc);
		read_ptr(r, &a.self_pc);
		sp_cursor_uint(&r->c, n, &a.count);
		if (r->o->debug)
			fprintf(r->o->debug,
				"[gmon_out_read] frompc 0x%llx selfpc 0x%llx count %llu\n",
				(unsigned long long)a.from_pc, (unsigned long long)a.self_pc,
				(unsigned long long)a.count);
		sp_profile_append_pcarcs(r->p, &a, 1);
		r->in->narcs++;
	}
	if (sp_cursor_left(&r->c))
		r->p->diag[SP_DIAG_TRAILING_BYTES]++;
	if (!r->st->hz) {
		r->st->hz = r->o->bsd_hz ? r->o->bsd_hz : sp_gmon_system_hz();
		if (!r->st->hz) {
			r->st->hz = 1;
			r->p->diag[SP_DIAG_TIME_IN_TICKS]++;
		}
	}
	r->st->input_flags = SP_GMON_INPUT_HISTOGRAM | SP_GMON_INPUT_CALL_GRAPH;
	r->st->file_version = 0;
	return 0;
}

/* ---- entry points ---- */

int sp_fmt_gmon_probe(const uint8_t *data, size_t size)
{
	return size >= 4 && !memcmp(data, GMON_MAGIC, 4);
}

int sp_fmt_gmon_read_mem(struct sp_profile *p, struct sp_gmon_state *st, const char *name,
			 const uint8_t *data, size_t size, const struct sp_gmon_read_opts *o,
			 struct sp_error *err)
{
	struct gmon_reader r;
	int magic, ret;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.st = st;
	r.name = name;
	r.o = o;
	r.err = err;
	sp_cursor_init(&r.c, data, size, o->target.big_endian);
	if (o->format == SP_GMON_PROF)
		return sp_error_set(err, SP_E_UNSUPPORTED,
				    "cannot read '%s': file format 'prof' is not supported", name);
	if (size < GMON_HDR_SIZE)
		return sp_error_set(
			err, SP_E_TRUNCATED,
			"cannot read '%s': file too short to be a gmon file (%zu byte%s)", name,
			SP_BYTES(size));
	r.in = sp_profile_add_input(p, name, NULL);
	magic = sp_fmt_gmon_probe(data, size);
	if (o->format == SP_GMON_MAGIC && !magic)
		return sp_error_set(err, SP_E_FORMAT,
				    "cannot read '%s': bad magic cookie at offset 0 (not a GNU "
				    "gmon file)",
				    name);
	/* unlike gprof, -O bsd/-O 4 still read a GNU file as GNU (conversion) */
	ret = magic ? read_gnu(&r) : read_bsd(&r);
	/* equal arcs are summed once per file, even one that failed half-way */
	sp_profile_sum_pcarcs(p);
	free(r.bin_idx);
	free(r.bin_count);
	return ret;
}

int sp_fmt_gmon_read(struct sp_profile *p, struct sp_gmon_state *st, const char *path,
		     const struct sp_gmon_read_opts *o, struct sp_error *err)
{
	struct sp_mfile f;
	int ret = sp_mfile_open(&f, path, err);

	if (ret < 0)
		return ret;
	ret = sp_fmt_gmon_read_mem(p, st, path, f.data, f.size, o, err);
	sp_mfile_close(&f);
	return ret;
}
