/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gmon.sum writer (gprof's -s): the summed profile in the GNU format (or a
 * BSD format with -O), readable by gprof and by symprof. See gmon.c for the
 * grammar.
 *
 * Differences from gprof, all so that `gprof prog gmon.sum` reports what
 * `gprof prog a.out b.out` reports:
 *  - the 12 spare header bytes are zero (gprof leaks stack bytes there);
 *  - arcs keep their call-site and callee addresses (gprof rewrites them to
 *    line-symbol and function-entry addresses, losing call sites);
 *  - a summed bin above 65535 or an arc count above 2^32-1 is written as
 *    several records that gprof adds back together, instead of wrapping.
 */
#include "symprof/formats.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "symprof/error.h"
#include "symprof/mfile.h"
#include "symprof/profile.h"

struct gmon_writer {
	FILE *f;
	const struct sp_gmon_write_opts *o;
	int failed;
};

static void put(struct gmon_writer *w, const void *data, size_t n)
{
	if (!w->failed && fwrite(data, 1, n, w->f) != n)
		w->failed = 1;
}

static void put_uint(struct gmon_writer *w, int n, uint64_t v)
{
	uint8_t b[8];

	sp_store_uint(b, n, v, w->o->target.big_endian);
	put(w, b, (size_t)n);
}

static void put_ptr(struct gmon_writer *w, uint64_t v)
{
	put_uint(w, w->o->target.ptr_size, v);
}

static uint32_t max_bin(const struct sp_hist *h)
{
	uint32_t m = 0;
	size_t k;

	for (k = 0; k < h->nnonzero; k++)
		if (h->counts[k] > m)
			m = h->counts[k];
	return m;
}

/* Bin i's count, for i = 0, 1, ... in turn (*k walks the list). */
static uint32_t next_bin(const struct sp_hist *h, uint32_t i, size_t *k)
{
	if (*k < h->nnonzero && h->nonzero[*k] == i)
		return h->counts[(*k)++];
	return 0;
}

static void write_gnu_hists(struct gmon_writer *w, const struct sp_profile *p)
{
	size_t r;

	for (r = 0; r < p->nhists; r++) {
		const struct sp_hist *h = &p->hists[r];
		uint32_t pass, npasses = max_bin(h) / 65535 + (max_bin(h) % 65535 != 0);
		char dimen[15];

		if (!npasses)
			npasses = 1;
		memset(dimen, 0, sizeof(dimen));
		memcpy(dimen, p->hist_dimen, strnlen(p->hist_dimen, 15));
		for (pass = 0; pass < npasses; pass++) {
			uint32_t i;
			size_t k = 0;

			put_uint(w, 1, 0);
			put_ptr(w, h->low_pc);
			put_ptr(w, h->high_pc);
			put_uint(w, 4, h->nbins);
			put_uint(w, 4, (uint64_t)w->o->hz);
			put(w, dimen, 15);
			put(w, &p->hist_dimen_abbrev, 1);
			for (i = 0; i < h->nbins; i++) {
				uint64_t done = (uint64_t)pass * 65535, v = 0;
				uint32_t b = next_bin(h, i, &k);

				if (b > done)
					v = b - done > 65535 ? 65535 : b - done;
				put_uint(w, 2, v);
			}
		}
	}
}

static void write_gnu_arcs(struct gmon_writer *w, const struct sp_profile *p)
{
	size_t i;

	for (i = 0; i < p->npcarcs; i++) {
		uint64_t left = p->pcarcs[i].count;

		do {
			uint64_t c = left > UINT32_MAX ? UINT32_MAX : left;

			put_uint(w, 1, 1);
			put_ptr(w, p->pcarcs[i].from_pc);
			put_ptr(w, p->pcarcs[i].self_pc);
			put_uint(w, 4, c);
			left -= c;
		} while (left);
	}
}

static void write_gnu_bbs(struct gmon_writer *w, const struct sp_profile *p)
{
	size_t i;

	put_uint(w, 1, 2);
	put_uint(w, 4, p->nbbs);
	for (i = 0; i < p->nbbs; i++) {
		put_ptr(w, p->bbs[i].addr);
		put_ptr(w, p->bbs[i].count);
	}
}

static int write_bsd(struct gmon_writer *w, const struct sp_profile *p, const char *path,
		     struct sp_error *err)
{
	int ptr64 = w->o->target.ptr_size == 8;
	int bsd44 = w->o->format == SP_GMON_BSD44 || w->o->hz != sp_gmon_system_hz();
	size_t hdrsize = bsd44 ? (ptr64 ? 40 : 28) : (ptr64 ? 20 : 12);
	const struct sp_hist *h;
	uint32_t i;
	size_t a, k;

	if (p->nhists != 1)
		return sp_error_set(err, SP_E_UNSUPPORTED,
				    "cannot write '%s': the BSD format holds one histogram, the "
				    "profile has %zu",
				    path, p->nhists);
	h = &p->hists[0];
	if (max_bin(h) > 65535)
		return sp_error_set(err, SP_E_UNSUPPORTED,
				    "cannot write '%s': a summed bin exceeds 65535, which the BSD "
				    "format cannot hold",
				    path);
	put_ptr(w, h->low_pc);
	put_ptr(w, h->high_pc);
	put_uint(w, 4, (uint64_t)h->nbins * 2 + hdrsize);
	if (bsd44) {
		uint8_t pad[12] = {0};

		put_uint(w, 4, 0x00051879);
		put_uint(w, 4, (uint64_t)w->o->hz);
		put(w, pad, sizeof(pad));
	}
	for (i = 0, k = 0; i < h->nbins; i++)
		put_uint(w, 2, next_bin(h, i, &k));
	for (a = 0; a < p->npcarcs; a++) {
		put_ptr(w, p->pcarcs[a].from_pc);
		put_ptr(w, p->pcarcs[a].self_pc);
		put_uint(w, w->o->target.ptr_size, p->pcarcs[a].count);
	}
	return 0;
}

int sp_fmt_gmon_write(const struct sp_profile *p, const struct sp_gmon_state *st, const char *path,
		      const struct sp_gmon_write_opts *o, struct sp_error *err)
{
	struct gmon_writer w;
	int ret = 0;

	w.o = o;
	w.failed = 0;
	w.f = fopen(path, "wb");
	if (!w.f)
		return sp_error_errno(err, SP_E_IO, "cannot write '%s'", path);
	if (o->format == SP_GMON_BSD || o->format == SP_GMON_BSD44) {
		ret = write_bsd(&w, p, path, err);
	} else {
		uint8_t spare[12] = {0};

		put(&w, "gmon", 4);
		put_uint(&w, 4, 1);
		put(&w, spare, sizeof(spare));
		if (st->input_flags & SP_GMON_INPUT_HISTOGRAM)
			write_gnu_hists(&w, p);
		if (st->input_flags & SP_GMON_INPUT_CALL_GRAPH)
			write_gnu_arcs(&w, p);
		if (st->input_flags & SP_GMON_INPUT_BB_COUNTS)
			write_gnu_bbs(&w, p);
	}
	if (fclose(w.f) != 0)
		w.failed = 1;
	if (ret == 0 && w.failed)
		ret = sp_error_errno(err, SP_E_IO, "cannot write '%s'", path);
	return ret;
}
