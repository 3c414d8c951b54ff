/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for symbolize/lines.c and dwarf-funcs.c: known answers for
 * fixture binaries (expectations taken from binutils 2.40 addr2line), the
 * table's invariants, and corrupt line programs (errors, never crashes).
 * tests/helper/lines-vs-bfd compares every address with libbfd itself.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>
#include <demangle.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "addrindex.h"
#include "dwarf-dies.h"
#include "ivsweep.h"
#include "dwarf-funcs.h"
#include "internal.h"
#include "lines.h"
#include "suites.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/strtab.h"
#include "symprof/symbolize.h"

#define FIX(name) SP_FIXTURES_DIR "/symbolize/" name

/* A fixture read into memory, so that tests can damage it. */
struct image {
	char *data;
	size_t size;
	Elf *elf;
	Dwarf *dw;
	struct sp_strtab strs;
	struct sp_linetab *lines;
	struct sp_dwfuncs *funcs;
};

static int image_load(struct image *im, const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	memset(im, 0, sizeof(*im));
	sp_strtab_init(&im->strs);
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	im->data = malloc((size_t)n);
	im->size = (size_t)n;
	if (fread(im->data, 1, im->size, f) != im->size) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int image_open_dwarf(struct image *im)
{
	im->elf = elf_memory(im->data, im->size);
	im->dw = im->elf ? dwarf_begin_elf(im->elf, DWARF_C_READ, NULL) : NULL;
	return im->dw ? 0 : -1;
}

static void image_close(struct image *im)
{
	sp_dwfuncs_free(im->funcs);
	sp_linetab_free(im->lines);
	if (im->dw)
		dwarf_end(im->dw);
	if (im->elf)
		elf_end(im->elf);
	sp_strtab_release(&im->strs);
	free(im->data);
	memset(im, 0, sizeof(*im));
}

/* Loads a fixture and builds both tables; fails the test if it cannot. */
static int open_fixture(struct image *im, const char *path)
{
	struct sp_error err = SP_ERROR_INIT;

	if (image_load(im, path) < 0 || image_open_dwarf(im) < 0) {
		CU_FAIL("cannot open fixture");
		return -1;
	}
	im->lines = sp_linetab_new(im->dw, &im->strs, &err);
	CU_ASSERT_PTR_NOT_NULL(im->lines);
	if (!im->lines)
		return -1;
	im->funcs = sp_dwfuncs_new(im->dw, im->lines, &im->strs, &err);
	CU_ASSERT_PTR_NOT_NULL(im->funcs);
	return im->funcs ? 0 : -1;
}

/* Where .debug_line is in the file image, or -1. */
static long debug_line_offset(struct image *im, size_t *size)
{
	Elf *elf = elf_memory(im->data, im->size);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	long off = -1;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_line")) {
			off = (long)sh.sh_offset;
			*size = sh.sh_size;
		}
	}
	elf_end(elf);
	return off;
}

static void expect_line(const struct sp_linetab *t, uint64_t addr, const char *file, unsigned line)
{
	const struct sp_line *l = sp_linetab_find(t, addr);

	if (!file) {
		CU_ASSERT_PTR_NULL(l);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_STRING_EQUAL(l->file, file);
	CU_ASSERT_EQUAL(l->line, line);
	CU_ASSERT(l->addr <= addr);
}

/* ---- known answers ---- */

static void test_dwarf5_prefix_map(void)
{
	struct image im;
	const struct sp_line *l;

	if (open_fixture(&im, FIX("c-O1-prefixmap")) == 0) {
		/* comp_dir "." + directory 0 "." + "util.c", as bfd composes it */
		expect_line(im.lines, 0x124d, "././util.c", 13);
		expect_line(im.lines, 0x1149, "././main.c", 27);
		expect_line(im.lines, 0x1290, "././util.c", 10);
		expect_line(im.lines, 0x1296, "././util.c", 20);
		expect_line(im.lines, 0x1278, "././util.h", 16);
		l = sp_linetab_find(im.lines, 0x1278);
		CU_ASSERT(l && l->discriminator == 3);
		/* no DWARF (crt code), and crtstuff's line-0 answer */
		expect_line(im.lines, 0x1000, NULL, 0);
		expect_line(im.lines, 0x1060, NULL, 0);
		expect_line(im.lines, 0x1148, NULL, 0);
		expect_line(im.lines, 0x10000000, NULL, 0);
		expect_line(im.lines, 0, NULL, 0);
	}
	image_close(&im);
}

static void test_dwarf4_cxx(void)
{
	struct image im;

	if (open_fixture(&im, FIX("cxx-O2-dw4-nopie")) == 0) {
		/* DWARF 4: directory 0 is the unit's, so only comp_dir "." */
		expect_line(im.lines, 0x401040, "./unit_b.cc", 32);
		expect_line(im.lines, 0x401050, "./unit_b.cc", 33);
		expect_line(im.lines, 0x4011c0, "./shapes.hh", 23);
		expect_line(im.lines, 0x4013d0, "./unit_b.cc", 28);
		expect_line(im.lines, 0x401170, "./unit_a.cc", 6);
	}
	image_close(&im);
}

/* The rows describe consecutive ranges, and find() agrees with them. */
static void test_rows(void)
{
	struct image im;
	const struct sp_line *rows;
	size_t n, i, gaps = 0;

	if (open_fixture(&im, FIX("cxx-O0-dw5-pie")) == 0) {
		n = sp_linetab_rows(im.lines, &rows);
		CU_ASSERT(n > 100);
		CU_ASSERT(rows[n - 1].end_sequence);
		for (i = 0; i < n; i++) {
			const struct sp_line *l = sp_linetab_find(im.lines, rows[i].addr);
			int answers = !rows[i].end_sequence && rows[i].file && rows[i].line;

			if (i > 0)
				CU_ASSERT(rows[i].addr > rows[i - 1].addr);
			gaps += rows[i].end_sequence;
			CU_ASSERT(answers ? l == &rows[i] : l == NULL);
			if (i + 1 < n && rows[i + 1].addr > rows[i].addr + 1)
				CU_ASSERT(sp_linetab_find(im.lines, rows[i + 1].addr - 1) == l);
		}
		CU_ASSERT(gaps >= 1);
		CU_ASSERT_PTR_NULL(sp_linetab_warning(im.lines));
	}
	image_close(&im);
}

/*
 * A 7 KB function dropped by --gc-sections keeps a line sequence at 0,
 * which in this PIE covers all of .text: bfd sorts it first in its unit,
 * drops the unit's real sequences as nested in it, and answers from it
 * everywhere, even in crt code. So does the table.
 */
static void test_discarded_sequence(void)
{
	struct sp_inline_frame fr[4];
	struct image im;

	if (open_fixture(&im, FIX("c-O0-gc-big")) == 0) {
		expect_line(im.lines, 0x1050, "././gcbig.c", 19);
		expect_line(im.lines, 0x114e, "././gcbig.c", 19);
		expect_line(im.lines, 0x1183, "././gcbig.c", 19);
		CU_ASSERT_EQUAL_FATAL(sp_dwfuncs_find(im.funcs, 0x1050, fr, 4), 1);
		CU_ASSERT_STRING_EQUAL(fr[0].name, "never_called");
		CU_ASSERT_EQUAL_FATAL(sp_dwfuncs_find(im.funcs, 0x114e, fr, 4), 1);
		CU_ASSERT_STRING_EQUAL(fr[0].name, "main");
	}
	image_close(&im);
}

/*
 * -gz=zlib-gnu with DWARF 5: bfd looks for ".zdebug_rnglist", cannot read
 * the first unit's DW_AT_ranges and stops reading units: no lines at all.
 */
static void test_zdebug_rnglists(void)
{
	struct sp_inline_frame fr[4];
	const struct sp_line *rows;
	struct image im;

	if (open_fixture(&im, FIX("c-O2-dw5-zgnu")) == 0) {
		CU_ASSERT_PTR_NOT_NULL(sp_linetab_warning(im.lines));
		CU_ASSERT_EQUAL(sp_linetab_rows(im.lines, &rows), 0);
		expect_line(im.lines, 0x1149, NULL, 0);
		CU_ASSERT_EQUAL(sp_dwfuncs_find(im.funcs, 0x1149, fr, 4), 0);
	}
	image_close(&im);
	/* the units read, but bfd cannot read inlined functions' ranges */
	if (open_fixture(&im, FIX("cxx-O1-dw5-zgnu")) == 0) {
		CU_ASSERT_EQUAL(sp_linetab_rows(im.lines, &rows), 0);
		CU_ASSERT_EQUAL(sp_linetab_unit_state(im.lines, 0), SP_LINETAB_UNIT_FAILED);
		CU_ASSERT_EQUAL(sp_linetab_unit_state(im.lines, 1), SP_LINETAB_UNIT_FAILED);
	}
	image_close(&im);
	/* with DWARF 4 the .zdebug names are right and everything answers */
	if (open_fixture(&im, FIX("c-O2-dw4-zgnu")) == 0) {
		CU_ASSERT_PTR_NULL(sp_linetab_warning(im.lines));
		CU_ASSERT(sp_linetab_rows(im.lines, &rows) > 50);
	}
	image_close(&im);
}

/* ---- inline chains ---- */

static void expect_frame(const struct sp_inline_frame *f, const char *name, const char *file,
			 unsigned line)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->name);
	CU_ASSERT_STRING_EQUAL(f->name, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f->file);
	CU_ASSERT_STRING_EQUAL(f->file, file);
	CU_ASSERT_EQUAL(f->line, line);
}

static void test_inline_chain_c(void)
{
	struct sp_inline_frame fr[8];
	struct image im;

	if (open_fixture(&im, FIX("c-O1-prefixmap")) == 0) {
		/* addr2line -f -i: mix, inlined by step, inlined by checksum */
		CU_ASSERT_EQUAL_FATAL(sp_dwfuncs_find(im.funcs, 0x1278, fr, 8), 3);
		expect_frame(&fr[0], "mix", "././util.h", 16);
		expect_frame(&fr[1], "step", "././util.c", 5);
		expect_frame(&fr[2], "checksum", "././util.c", 14);
		CU_ASSERT_EQUAL(sp_dwfuncs_find(im.funcs, 0x1278, fr, 2), 2);
		CU_ASSERT_EQUAL(sp_dwfuncs_find(im.funcs, 0x1278, fr, 0), 0);
		CU_ASSERT_EQUAL_FATAL(sp_dwfuncs_find(im.funcs, 0x1290, fr, 8), 1);
		expect_frame(&fr[0], "checksum", "././util.c", 10);
		/* crt code: no DWARF function, bfd names the ELF symbol */
		CU_ASSERT_EQUAL(sp_dwfuncs_find(im.funcs, 0x1060, fr, 8), 0);
		CU_ASSERT_STRING_EQUAL(sp_dwfuncs_symbol(im.funcs, 0x1060), "_start");
		CU_ASSERT_STRING_EQUAL(sp_dwfuncs_symbol(im.funcs, 0x1070), "_start");
		CU_ASSERT_PTR_NULL(sp_dwfuncs_symbol(im.funcs, 0x10000000));
	}
	image_close(&im);
}

static int same_frames(const struct sp_inline_frame *a, size_t na, const struct sp_inline_frame *b,
		       size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (a[i].name != b[i].name || a[i].file != b[i].file || a[i].line != b[i].line)
			return 0;
	return 1;
}

/* One address through the cursor and without it: the same answers. */
static int cursor_agrees(const struct image *im, uint64_t a, struct sp_dwfuncs_cursor *c)
{
	struct sp_inline_frame f1[4], f2[4];
	size_t n1 = sp_dwfuncs_find(im->funcs, a, f1, 4),
	       n2 = sp_dwfuncs_find_at(im->funcs, a, f2, 4, c);

	return same_frames(f1, n1, f2, n2) &&
	       sp_dwfuncs_symbol(im->funcs, a) == sp_dwfuncs_symbol_at(im->funcs, a, c) &&
	       sp_linetab_find_any(im->lines, a) ==
		       sp_linetab_find_any_at(im->lines, a, &c->lines) &&
	       sp_linetab_unit_at(im->lines, a) == sp_linetab_unit_at_from(im->lines, a, &c->lines);
}

/* Cursor lookups give the plain lookups' answers in any address order:
 * ascending (the -l walk), descending, and jumping around. */
static void test_cursor_lookups(void)
{
	static const char *const fixtures[] = {FIX("c-O1-prefixmap"), FIX("cxx-O2-dw4-nopie"),
					       FIX("clang-cxx-O2-dw5-fs")};
	size_t k;

	for (k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		const struct sp_line *rows;
		struct sp_dwfuncs_cursor c;
		struct image im;
		uint64_t lo, hi, a, x = 12345;
		size_t nrows, bad = 0, i;

		if (open_fixture(&im, fixtures[k]) < 0) {
			image_close(&im);
			continue;
		}
		nrows = sp_linetab_rows(im.lines, &rows);
		CU_ASSERT_FATAL(nrows > 2);
		lo = rows[0].addr > 64 ? rows[0].addr - 64 : 0;
		hi = rows[nrows - 1].addr + 64;
		memset(&c, 0, sizeof(c));
		for (a = lo; a < hi; a++)
			bad += !cursor_agrees(&im, a, &c);
		for (a = hi; a-- > lo;)
			bad += !cursor_agrees(&im, a, &c);
		for (i = 0; i < 20000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			bad += !cursor_agrees(&im, lo + (x >> 33) % (hi - lo), &c);
		}
		CU_ASSERT_EQUAL(bad, 0);
		image_close(&im);
	}
}

static void test_inline_chain_cxx(void)
{
	struct sp_inline_frame fr[8];
	struct image im;

	if (open_fixture(&im, FIX("cxx-O2-dw4-nopie")) == 0) {
		/*
		 * The lambda has no linkage name, so bfd names frame 0 by the
		 * ELF symbol; its caller keeps its DWARF name.
		 */
		CU_ASSERT_EQUAL_FATAL(sp_dwfuncs_find(im.funcs, 0x401200, fr, 8), 3);
		expect_frame(&fr[0], "_Z6unit_ai", "./unit_a.cc", 9);
		expect_frame(&fr[1],
			     "sort<unit_a(int)::<lambda(const geo::Vec<int>&, const "
			     "geo::Vec<int>&)> >",
			     "./shapes.hh", 24);
		expect_frame(&fr[2], "_Z6unit_ai", "./unit_a.cc", 8);
		/* C++ main and extern "C" have no linkage name either */
		CU_ASSERT_EQUAL_FATAL(sp_dwfuncs_find(im.funcs, 0x401050, fr, 8), 1);
		expect_frame(&fr[0], "main", "./unit_b.cc", 33);
		CU_ASSERT_EQUAL_FATAL(sp_dwfuncs_find(im.funcs, 0x4013d0, fr, 8), 1);
		expect_frame(&fr[0], "plain_c_entry", "./unit_b.cc", 28);
	}
	image_close(&im);
}

/* ---- corrupt input ---- */

static void store32(char *p, uint32_t v)
{
	memcpy(p, &v, 4); /* the fixtures are little-endian */
}

static void test_truncated_header(void)
{
	struct sp_error err = SP_ERROR_INIT;
	struct image im;
	size_t size;
	long off;

	CU_ASSERT_EQUAL_FATAL(image_load(&im, FIX("c-O0-dw4-nopie")), 0);
	off = debug_line_offset(&im, &size);
	CU_ASSERT_FATAL(off > 0 && size > 64);
	/* the first unit claims 10 bytes: too few for its header */
	store32(im.data + off, 10);
	CU_ASSERT_EQUAL_FATAL(image_open_dwarf(&im), 0);
	im.lines = sp_linetab_new(im.dw, &im.strs, &err);
	CU_ASSERT_PTR_NULL(im.lines);
	CU_ASSERT_EQUAL(err.code, SP_E_CORRUPT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "header is truncated"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ".debug_line offset 0"));
	/* lenient: bfd ignores that unit and still answers for the others */
	im.lines = sp_linetab_new_lenient(im.dw, &im.strs, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(im.lines);
	CU_ASSERT_PTR_NOT_NULL(sp_linetab_warning(im.lines));
	expect_line(im.lines, 0x401136, NULL, 0); /* main.c's clamp, first unit */
	CU_ASSERT_PTR_NOT_NULL(sp_linetab_find(im.lines, 0x401340)); /* util.c */
	image_close(&im);
}

static void test_bad_length_and_version(void)
{
	struct sp_error err = SP_ERROR_INIT;
	struct image im;
	size_t size;
	long off;

	CU_ASSERT_EQUAL_FATAL(image_load(&im, FIX("c-O2-dw5-pie")), 0);
	off = debug_line_offset(&im, &size);
	CU_ASSERT_FATAL(off > 0);
	store32(im.data + off, 0x7fffffff);
	CU_ASSERT_EQUAL_FATAL(image_open_dwarf(&im), 0);
	CU_ASSERT_PTR_NULL(sp_linetab_new(im.dw, &im.strs, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exceeds the section"));
	image_close(&im);

	CU_ASSERT_EQUAL_FATAL(image_load(&im, FIX("c-O2-dw5-pie")), 0);
	im.data[off + 4] = 9; /* version */
	CU_ASSERT_EQUAL_FATAL(image_open_dwarf(&im), 0);
	CU_ASSERT_PTR_NULL(sp_linetab_new(im.dw, &im.strs, &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unsupported version 9"));
	image_close(&im);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * A query table (sp_linetab_new_query) for addresses around the start of
 * every row of the full table and every `step` bytes of [lo, hi) must give
 * the full table's answers; returns the number of addresses that differ.
 */
static size_t query_differences(struct image *im, uint64_t lo, uint64_t hi, uint64_t step,
				int every_unit)
{
	struct sp_error err = SP_ERROR_INIT;
	const struct sp_line *rows;
	size_t nrows = sp_linetab_rows(im->lines, &rows), n = 0, i, bad = 0;
	uint64_t *addrs = malloc((3 * nrows + (hi - lo) / step + 2) * sizeof(*addrs)), a;
	struct sp_linetab *q;

	for (i = 0; i < nrows; i++) {
		addrs[n++] = rows[i].addr;
		addrs[n++] = rows[i].addr - 1;
		addrs[n++] = rows[i].addr + 1;
	}
	for (a = lo; a < hi; a += step)
		addrs[n++] = a;
	q = every_unit ? sp_linetab_new_query_every_unit(im->dw, &im->strs, addrs, n, &err)
		       : sp_linetab_new_query(im->dw, &im->strs, addrs, n, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	for (i = 0; i < n; i++) {
		const struct sp_line *f = sp_linetab_find(im->lines, addrs[i]), *l;

		CU_ASSERT_FATAL(sp_linetab_answers(q, addrs[i]));
		l = sp_linetab_find(q, addrs[i]);
		bad += !((!f && !l) || (f && l && f->file == l->file && f->line == l->line));
	}
	CU_ASSERT(!sp_linetab_answers(q, hi + 7));
	sp_linetab_free(q);
	free(addrs);
	return bad;
}

static void test_query_tables(void)
{
	static const char *const fixtures[] = {FIX("c-O1-prefixmap"),	   FIX("cxx-O2-dw4-nopie"),
					       FIX("clang-cxx-O2-dw5-fs"), FIX("cxx-O0-dw5-pie"),
					       FIX("c-O0-gc-big"),	   FIX("c-O2-dw4-mips")};
	size_t k;

	for (k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		struct image im;

		if (open_fixture(&im, fixtures[k]) == 0)
			CU_ASSERT_EQUAL(query_differences(&im, 0x400000, 0x404000, 1, 0), 0);
		image_close(&im);
	}
}

/*
 * A query table reads no unit whose ranges hold none of the asked
 * addresses (bfd does not consult it), unless told to read every unit.
 */
static void test_query_skips_units(void)
{
	static const uint64_t outside[] = {0x10, 0x7fff0000};
	struct sp_error err = SP_ERROR_INIT;
	struct sp_linetab *q, *all;
	struct image im;
	uint32_t u;

	if (open_fixture(&im, FIX("c-O1-prefixmap")) < 0) {
		CU_FAIL("cannot load fixture");
		image_close(&im);
		return;
	}
	q = sp_linetab_new_query(im.dw, &im.strs, outside, 2, &err);
	all = sp_linetab_new_query_every_unit(im.dw, &im.strs, outside, 2, &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(all);
	CU_ASSERT(sp_linetab_answers(q, 0x10));
	CU_ASSERT_PTR_NULL(sp_linetab_find(q, 0x10));
	CU_ASSERT_PTR_NULL(sp_linetab_find(q, 0x7fff0000));
	for (u = 0; u < 2; u++) { /* the fixture's two units */
		CU_ASSERT_EQUAL(sp_linetab_unit_state(q, u), SP_LINETAB_UNIT_NONE);
		CU_ASSERT_NOT_EQUAL(sp_linetab_unit_state(all, u), SP_LINETAB_UNIT_NONE);
	}
	sp_linetab_free(q);
	sp_linetab_free(all);
	image_close(&im);
}

/*
 * An image told which addresses src_line will be asked about builds a
 * query table; a question about any other address must still get the
 * full table's answer (the image builds the full table then).
 */
static void test_image_query_fallback(void)
{
	static const uint64_t asked[] = {0x1149, 0x124d, 0x1296};
	struct sp_error err = SP_ERROR_INIT;
	struct sp_image *q = sp_image_open(FIX("c-O1-prefixmap"), NULL, &err);
	struct sp_image *full = sp_image_open(FIX("c-O1-prefixmap"), NULL, &err);
	uint64_t a;
	int same = 1, answered = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q->ops->prefetch_query);
	q->ops->prefetch_query(q, asked, sizeof(asked) / sizeof(asked[0]));
	/* the asked addresses first (the query table), then all the others */
	for (a = 0; a < 3; a++) {
		const char *f1 = NULL, *f2 = NULL;
		int l1 = 0, l2 = 0, r1 = sp_image_src_line(q, asked[a], &f1, &l1),
		    r2 = sp_image_src_line(full, asked[a], &f2, &l2);

		same &= r1 == r2 && (r1 < 0 || (!strcmp(f1, f2) && l1 == l2));
		answered += r1 == 0;
	}
	for (a = 0xff0; a < 0x1400; a++) {
		const char *f1 = NULL, *f2 = NULL;
		int l1 = 0, l2 = 0, r1 = sp_image_src_line(q, a, &f1, &l1),
		    r2 = sp_image_src_line(full, a, &f2, &l2);

		same &= r1 == r2 && (r1 < 0 || (!strcmp(f1, f2) && l1 == l2));
		answered += r1 == 0;
	}
	CU_ASSERT(same);
	CU_ASSERT(answered > 100);
	sp_image_free(q);
	sp_image_free(full);
}

/*
 * Random damage to .debug_line: any outcome but a crash (run under ASan).
 * Whatever the line programs turned into (rows out of order, sequences
 * overlapping or ending below their start), a query table agrees with the
 * full table.
 */
static void test_fuzz_line_programs(void)
{
	static const char *const fixtures[] = {FIX("c-O2-dw5-pie"), FIX("cxx-O2-dw4-nopie"),
					       FIX("cxx-O0-dw5-pie")};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int iter, ok = 0, failed = 0;

	for (iter = 0; iter < 600; iter++) {
		struct sp_error err = SP_ERROR_INIT;
		struct sp_inline_frame fr[16];
		struct image im;
		size_t size, k, flips;
		uint64_t a;
		long off;

		if (image_load(&im, fixtures[iter % 3]) < 0) {
			CU_FAIL("cannot load fixture");
			image_close(&im);
			return;
		}
		off = debug_line_offset(&im, &size);
		flips = 1 + rnd(&x) % 8;
		for (k = 0; k < flips && off > 0; k++)
			im.data[off + (long)(rnd(&x) % size)] = (char)rnd(&x);
		if (image_open_dwarf(&im) == 0) {
			struct sp_linetab *strict = sp_linetab_new(im.dw, &im.strs, &err);

			failed += !strict;
			sp_linetab_free(strict);
			im.lines = sp_linetab_new_lenient(im.dw, &im.strs, &err);
			if (im.lines)
				im.funcs = sp_dwfuncs_new(im.dw, im.lines, &im.strs, &err);
			if (im.lines)
				CU_ASSERT_EQUAL(query_differences(&im, 0x400000, 0x402000, 5, 1),
						0);
			if (im.lines) /* skipping units by their ranges: answers, no crash */
				(void)query_differences(&im, 0x400000, 0x402000, 5, 0);
			for (a = 0; im.funcs && a < 0x2000; a += 3) {
				sp_linetab_find(im.lines, 0x400000 + a);
				sp_linetab_find(im.lines, a);
				sp_dwfuncs_find(im.funcs, 0x400000 + a, fr, 16);
				sp_dwfuncs_find(im.funcs, a, fr, 16);
			}
			ok += im.funcs != NULL;
		}
		image_close(&im);
	}
	CU_ASSERT(ok > 500);
	CU_ASSERT(failed > 50); /* the damage was noticed often */
}

/* sp_demangle() skips cplus_demangle() for names that cannot be mangled in
 * the current style: it must agree with cplus_demangle() on every name, in
 * every style, including the ones that look nearly mangled. */
static void test_demangle_shortcut(void)
{
	static const char *const names[] = {
		"main",
		"_Z3fooi",
		"_ZN3foo3barEv",
		"_GLOBAL__sub_I_main",
		"_GLOBAL__D_x",
		"_RNvCs1234_7mycrate4main",
		"_ZN4core3fmt5write17h0123456789abcdefE",
		"_ZN4core3fmt5write17h0123456789abcdefE.llvm.1234",
		"_ZN4test4$LT$u8$GT$3foo17h0123456789abcdefE",
		"_ZN3foo17hxxxxxxxxxxxxxxxxE",
		"_ZN3foo17habcdefabcdefabcdE3barEv",
		"_ZNK3foo3barEv",
		"_ZZ4mainE1x",
		"_ZSt16__introsort_loopIN9__gnu_cxx17__normal_iteratorIPdSt6vectorIdSaIdEEEElNS0_5_"
		"_"
		"ops15_Iter_less_iterEEvT_S9_T0_T1_",
		"_Z3barIiEvT_",
		"_Z1f17hNotRustAtAll1234",
		"_D3foo3barFZv",
		"Z3fooi",
		"ZN3fooE",
		"RNvC5crate4main",
		"GLOBAL__sub_I_x",
		"pack__proc",
		"_ada_main",
		"__gmon_start__",
		"_start",
		"foo.cold",
		"_Z3foov.cold",
		"_Z1fv@@VER_1",
		"x",
		"",
	};
	static const char *const styles[] = {"auto", "gnu-v3", "rust", "dlang", "java", "gnat"};
	size_t i, j;

	for (j = 0; j < sizeof(styles) / sizeof(styles[0]); j++) {
		CU_ASSERT_EQUAL_FATAL(sp_demangle_set_style(styles[j]), 0);
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			char *want = strchr(names[i], '@')
					     ? NULL
					     : cplus_demangle(names[i], DMGL_ANSI | DMGL_PARAMS);
			char *got = sp_demangle(names[i], 0);

			if (!strchr(names[i], '@')) {
				CU_ASSERT_EQUAL(got == NULL, want == NULL);
				if (got && want)
					CU_ASSERT_STRING_EQUAL(got, want);
			}
			free(want);
			free(got);
		}
	}
	CU_ASSERT_EQUAL(sp_demangle_set_style("auto"), 0);
	{
		char *d = sp_demangle("_Z3fooi", 0);

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_STRING_EQUAL(d, "foo(int)");
		free(d);
	}
}

/* A demangling batch gives sp_demangle()'s answer for every name, whether
 * the other thread or the asking one demangled it; a batch never asked is
 * freed while its thread may still run. */
static void test_demangle_batch(void)
{
	enum { N = 3000 };
	static const char *const kinds[] = {
		"_Z3fooi", "main", "_ZN3foo3barEv", "_GLOBAL__sub_I_main", "_Z1fv.cold", "_Zbad",
	};
	const char **names = malloc(N * sizeof(*names));
	struct sp_demangle_batch *b;
	size_t i, bad = 0, demangled = 0;

	CU_ASSERT_EQUAL_FATAL(sp_demangle_set_style("auto"), 0);
	for (i = 0; i < N; i++)
		names[i] = kinds[i % (sizeof(kinds) / sizeof(kinds[0]))];
	b = sp_demangle_batch_start(names, N, 0);
	CU_ASSERT_EQUAL(sp_demangle_batch_len(b), N);
	for (i = N; i-- > 0;) {
		const char *got = sp_demangle_batch_get(b, i);
		char *want = sp_demangle(names[i], 0);

		if ((got == NULL) != (want == NULL) || (got && strcmp(got, want)))
			bad++;
		demangled += got != NULL;
		free(want);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(demangled, N / 2);
	CU_ASSERT_PTR_NULL(sp_demangle_batch_get(b, N));
	sp_demangle_batch_free(b);
	sp_demangle_batch_free(sp_demangle_batch_start(names, N, 0));
	sp_demangle_batch_free(sp_demangle_batch_start(names, 1, 0));
	free(names);
}

/* ---- many session lookups at once ---- */

static void append_loc(struct sp_buf *b, const struct sp_symloc *loc)
{
	uint32_t i;

	sp_buf_addf(b, "%llx %u:", (unsigned long long)loc->vaddr, loc->nframes);
	for (i = 0; i < loc->nframes; i++) {
		const struct sp_sym_frame *f = &loc->frames[i];

		sp_buf_addf(b, " %s %s:%u/%u", f->name ? f->name : "-", f->file ? f->file : "-",
			    f->line, f->discriminator);
	}
	sp_buf_addch(b, '\n');
}

static void collect_many(void *ctx, size_t i, const struct sp_symloc *loc)
{
	(void)i;
	append_loc(ctx, loc);
}

/*
 * sp_symfile_lookup_session_many() answers as the lookups one at a time
 * do, in an order with repeats and jumps, also where the session's
 * memory of names (rule 8) changes answers: C++ main and extern "C"
 * functions, and a lambda without linkage name, in the GCC fixture. Two
 * batches in a row continue one session.
 */
static void test_session_many(void)
{
	static const char *const fixtures[] = {FIX("cxx-O2-dw4-nopie"), FIX("clang-cxx-O2-dw5-fs"),
					       FIX("c-O2-dw5-pie")};
	static const uint64_t text[] = {0x401000, 0x1000, 0x1000}; /* and 4 KiB on */
	size_t k;

	for (k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		struct sp_symbolizer *s = sp_symbolizer_new(NULL);
		struct sp_error err = SP_ERROR_INIT;
		struct sp_symfile *f = sp_symbolizer_open(s, fixtures[k], &err);
		struct sp_buf one = SP_BUF_INIT, many = SP_BUF_INIT, fresh = SP_BUF_INIT;
		uint64_t addrs[3000], x = 42 + k;
		size_t i, n = sizeof(addrs) / sizeof(addrs[0]);

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		for (i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			/* around the functions of the fixtures, and repeats */
			addrs[i] = i % 7 == 3 ? addrs[i / 2] : text[k] + (x >> 33) % 0x1000;
		}
		for (i = 0; i < n; i++) {
			append_loc(&one, sp_symfile_lookup_session(f, addrs[i]));
			append_loc(&fresh, sp_symfile_lookup(f, addrs[i]));
		}
		sp_symfile_session_reset(f);
		sp_symfile_lookup_session_many(f, addrs, n / 3, collect_many, &many);
		sp_symfile_lookup_session_many(f, addrs + n / 3, n - n / 3, collect_many, &many);
		CU_ASSERT_STRING_EQUAL(one.buf, many.buf);
		/* the GCC C++ fixture is one where the session's memory shows */
		if (k == 0)
			CU_ASSERT(strcmp(one.buf, fresh.buf) != 0);
		sp_buf_release(&one);
		sp_buf_release(&many);
		sp_buf_release(&fresh);
		sp_symbolizer_free(s);
	}
}

/* loc without what sp_symfile_lookup_session_names() may leave out when
 * frame 0 has a name: that frame's file and line, the discriminators. */
static void append_loc_names(struct sp_buf *b, const struct sp_symloc *loc)
{
	uint32_t i;
	int named = loc->nframes && loc->frames[0].name;

	sp_buf_addf(b, "%llx %u:", (unsigned long long)loc->vaddr, loc->nframes);
	for (i = 0; i < loc->nframes; i++) {
		const struct sp_sym_frame *f = &loc->frames[i];
		int drop = i == 0 && named;

		sp_buf_addf(b, " %s %s:%u/%u", f->name ? f->name : "-",
			    f->file && !drop ? f->file : "-", drop ? 0 : f->line,
			    named ? 0 : f->discriminator);
	}
	sp_buf_addch(b, '\n');
}

/*
 * Names-only session lookups: the same chains, names and session memory
 * as full ones, and no line where the full ones have the line table's
 * (but for a frame 0 without a name), on two symbolizers fed the same
 * addresses (the GCC fixture's session memory changes names on the way).
 */
static void test_session_names(void)
{
	static const char *const fixtures[] = {FIX("cxx-O2-dw4-nopie"), FIX("clang-cxx-O2-dw5-fs"),
					       FIX("c-O2-dw5-pie")};
	static const uint64_t text[] = {0x401000, 0x1000, 0x1000};
	size_t k;

	for (k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		struct sp_symbolizer *s1 = sp_symbolizer_new(NULL), *s2 = sp_symbolizer_new(NULL);
		struct sp_error err = SP_ERROR_INIT;
		struct sp_symfile *full = sp_symbolizer_open(s1, fixtures[k], &err);
		struct sp_symfile *names = sp_symbolizer_open(s2, fixtures[k], &err);
		struct sp_buf want = SP_BUF_INIT, got = SP_BUF_INIT;
		uint64_t x = 7 + k, a;
		size_t i, lines = 0, skipped = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(full);
		CU_ASSERT_PTR_NOT_NULL_FATAL(names);
		for (i = 0; i < 4000; i++) {
			const struct sp_symloc *loc;

			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			a = text[k] + (i < 2000 ? i * 2 : (x >> 33) % 0x1000);
			loc = sp_symfile_lookup_session(full, a);
			lines += loc->nframes && loc->frames[0].line;
			append_loc_names(&want, loc);
			loc = sp_symfile_lookup_session_names(names, a);
			/* no line from the line table */
			skipped += loc->nframes && loc->frames[0].name && !loc->frames[0].line;
			append_loc_names(&got, loc);
		}
		CU_ASSERT(lines > 0);
		CU_ASSERT(skipped >= lines);
		CU_ASSERT_STRING_EQUAL(want.buf, got.buf);
		sp_buf_release(&want);
		sp_buf_release(&got);
		sp_symbolizer_free(s1);
		sp_symbolizer_free(s2);
	}
}

/* An entry of the arrays the address index is tested on. */
struct keyed {
	uint64_t addr;
	uint32_t pad;
};

/* The index's answer for addr, and a binary search's. */
static void check_index_at(const struct sp_addr_index *x, const struct keyed *a, size_t n,
			   uint64_t addr, int *bad)
{
	size_t j = sp_addr_bound(a, n, sizeof(*a), addr, 1); /* first above addr */

	if (sp_addr_index_find(x, addr) != (j ? j - 1 : n))
		(*bad)++;
}

/* Built in one pass after the array or entry by entry while it is filled,
 * the index answers as a binary search does, at and around every key. */
static void test_addr_index(void)
{
	static const size_t sizes[] = {1, 2, 3, 17, 1000, 40000};
	uint64_t seed = 12345;
	size_t si, i, n;
	int shape, bad = 0;

	for (shape = 0; shape < 4; shape++)
		for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			struct sp_addr_index whole, filled;
			struct keyed *a;
			uint64_t addr = 0x400000;

			n = sizes[si];
			a = calloc(n, sizeof(*a));
			for (i = 0; i < n; i++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				switch (shape) {
				case 0: /* dense, with repeated addresses */
					addr += (seed >> 60) % 3;
					break;
				case 1: /* sparse */
					addr += (seed >> 40) % 5000;
					break;
				case 2: /* two clusters far apart */
					addr += i == n / 2 ? (uint64_t)1 << 44
							   : (seed >> 60) % 16 + 1;
					break;
				default: /* all at one address */
					break;
				}
				a[i].addr = addr;
			}
			sp_addr_index_build(&whole, a, n, sizeof(*a));
			sp_addr_index_begin(&filled, a, n, sizeof(*a), a[0].addr, a[n - 1].addr);
			for (i = 0; i < n; i++)
				sp_addr_index_add(&filled, i, a[i].addr);
			sp_addr_index_end(&filled);
			check_index_at(&whole, a, n, 0, &bad);
			check_index_at(&filled, a, n, UINT64_MAX, &bad);
			for (i = 0; i < n; i++) {
				check_index_at(&whole, a, n, a[i].addr - 1, &bad);
				check_index_at(&whole, a, n, a[i].addr, &bad);
				check_index_at(&whole, a, n, a[i].addr + 1, &bad);
				check_index_at(&filled, a, n, a[i].addr - 1, &bad);
				check_index_at(&filled, a, n, a[i].addr, &bad);
				check_index_at(&filled, a, n, a[i].addr + 1, &bad);
			}
			CU_ASSERT_EQUAL(filled.nbuckets, whole.nbuckets);
			CU_ASSERT_EQUAL(memcmp(filled.bucket, whole.bucket,
					       whole.nbuckets * sizeof(*whole.bucket)),
					0);
			sp_addr_index_release(&whole);
			sp_addr_index_release(&filled);
			free(a);
		}
	CU_ASSERT_EQUAL(bad, 0);
}

/* sp_elf_image_in_alloc() answers as bfd's section walk does: inside an
 * allocated section, never in a gap between two, below the first or past
 * the last, nor in a section that is not allocated. */
static void test_in_alloc(void)
{
	static const char *const fixtures[] = {FIX("c-O2-dw5-pie"), FIX("cxx-O2-dw4-nopie")};
	size_t k;

	for (k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		struct sp_image *im = sp_image_open(fixtures[k], NULL, NULL);
		int fd = open(fixtures[k], O_RDONLY);
		Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
		Elf_Scn *scn = NULL;
		uint64_t probes[256];
		size_t n = 0, i, wrong = 0, inside = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(im);
		CU_ASSERT_PTR_NOT_NULL_FATAL(elf);
		/* every section's edges, and the addresses just past them */
		while ((scn = elf_nextscn(elf, scn)) && n + 4 <= 256) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) || !sh.sh_addr)
				continue;
			probes[n++] = sh.sh_addr - 1;
			probes[n++] = sh.sh_addr;
			probes[n++] = sh.sh_addr + sh.sh_size - 1;
			probes[n++] = sh.sh_addr + sh.sh_size;
		}
		for (i = 0; i < n; i++) {
			int want = 0;

			scn = NULL;
			while ((scn = elf_nextscn(elf, scn))) {
				GElf_Shdr sh;

				if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
				    sh.sh_size && probes[i] >= sh.sh_addr &&
				    probes[i] < sh.sh_addr + sh.sh_size)
					want = 1;
			}
			inside += want;
			wrong += sp_elf_image_in_alloc(im, probes[i]) != want;
		}
		CU_ASSERT_EQUAL(wrong, 0);
		CU_ASSERT(inside > 0 && inside < n);
		CU_ASSERT_EQUAL(sp_elf_image_in_alloc(im, 0), 0);
		CU_ASSERT_EQUAL(sp_elf_image_in_alloc(im, UINT64_MAX), 0);
		elf_end(elf);
		close(fd);
		sp_image_free(im);
	}
}

/* The symbolizer's demangling memo: a name met at two pointers (an ELF
 * symbol's, the DWARF's) gives one answer (demangled once: callgrind
 * shows it, not this test), a name that does not demangle answers each
 * pointer with itself, as before the memo looked names up by content. */
static void test_demangle_memo(void)
{
	struct sp_symbolizer *s = sp_symbolizer_new(NULL);
	char a[] = "_ZN3foo3barEi", b[] = "_ZN3foo3barEi", c[] = "_nope", d[] = "_nope";
	const char *da, *db, *m = "main";

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	da = sp_symbolizer_demangle(s, a);
	db = sp_symbolizer_demangle(s, b);
	CU_ASSERT_STRING_EQUAL(da, "foo::bar(int)");
	CU_ASSERT_PTR_EQUAL(da, db);
	CU_ASSERT_PTR_EQUAL(sp_symbolizer_demangle(s, a), da);
	CU_ASSERT_PTR_EQUAL(sp_symbolizer_demangle(s, c), c);
	CU_ASSERT_PTR_EQUAL(sp_symbolizer_demangle(s, d), d);
	CU_ASSERT_PTR_EQUAL(sp_symbolizer_demangle(s, c), c);
	CU_ASSERT_PTR_EQUAL(sp_symbolizer_demangle(s, m), m);
	sp_symbolizer_free(s);
}

/* dwarf-dies.c: the sizes of attribute values, and abbreviation tables. */
static void test_dwarf_forms(void)
{
	static const struct {
		unsigned form;
		uint8_t bytes[8];
		size_t avail; /* bytes before the end */
		size_t len;   /* the value's size */
		int ok;	      /* 0: refused */
	} cases[] = {
		{0x0b /* data1 */, {7}, 4, 1, 1},
		{0x05 /* data2 */, {1, 2}, 4, 2, 1},
		{0x06 /* data4 */, {1, 2, 3, 4}, 4, 4, 1},
		{0x06 /* data4, cut */, {1, 2, 3}, 3, 0, 0},
		{0x07 /* data8 */, {0}, 8, 8, 1},
		{0x1e /* data16 */, {0}, 16, 16, 1},
		{0x01 /* addr, 8 */, {0}, 8, 8, 1},
		{0x10 /* ref_addr, v4: offset size */, {0}, 8, 4, 1},
		{0x0e /* strp */, {0}, 8, 4, 1},
		{0x17 /* sec_offset */, {0}, 8, 4, 1},
		{0x19 /* flag_present */, {0}, 4, 0, 1},
		{0x21 /* implicit_const */, {0}, 4, 0, 1},
		{0x0f /* udata */, {0x80, 0x80, 0x01, 9}, 4, 3, 1},
		{0x0d /* sdata */, {0x7f, 9}, 4, 1, 1},
		{0x08 /* string */, {'a', 'b', 0, 9}, 4, 3, 1},
		{0x0a /* block1 */, {2, 9, 9, 9}, 4, 3, 1},
		{0x0a /* block1, cut */, {5, 9, 9, 9}, 4, 0, 0},
		{0x18 /* exprloc */, {3, 1, 2, 3, 9}, 5, 4, 1},
		{0x18 /* exprloc, 128 bytes */, {0x80, 0x01, 9}, 8, 0, 0},
		{0x08 /* string, unterminated */, {'a', 'b', 'c', 'd'}, 4, 0, 0},
		{0x0f /* udata, unterminated */, {0x80, 0x80, 0x80, 0x80}, 4, 0, 0},
		{0x16 /* indirect */, {0x0b, 1}, 4, 0, 0},
		{0x03 /* block2 */, {1, 0, 9}, 4, 3, 1},
		{0x04 /* block4 */, {2, 0, 0, 0, 9, 9}, 8, 6, 1},
		{0x04 /* block4, cut */, {2, 0, 0, 0, 9}, 5, 0, 0},
		{0x7777 /* unknown */, {0}, 4, 0, 0},
	};
	struct sp_dwform_unit fu = {4, 8, 4, 0}, v2 = {2, 8, 4, 0};
	uint8_t buf[16];
	const uint8_t *p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, cases[i].bytes, sizeof(cases[i].bytes));
		p = buf;
		CU_ASSERT_EQUAL(sp_dwform_skip(&p, buf + cases[i].avail, cases[i].form, &fu),
				cases[i].ok ? 0 : -1);
		CU_ASSERT_EQUAL((size_t)(p - buf), cases[i].len);
	}
	/* DWARF 2's ref_addr has the size of an address */
	p = buf;
	CU_ASSERT_EQUAL(sp_dwform_skip(&p, buf + 16, 0x10, &v2), 0);
	CU_ASSERT_EQUAL(p - buf, 8);
	/* a big-endian block2's length */
	memset(buf, 0, sizeof(buf));
	buf[1] = 3;
	p = buf;
	fu.big_endian = 1;
	CU_ASSERT_EQUAL(sp_dwform_skip(&p, buf + 16, 0x03, &fu), 0);
	CU_ASSERT_EQUAL(p - buf, 5);
}

static void test_dwarf_abbrevs(void)
{
	/* at 0: code 1 subprogram, children, (name strp) (low_pc addr)
	 * (high_pc data8); code 2 variable, no children, (name string)
	 * (const_value implicit_const -5) ; end. At 20: code 1 twice. */
	static const uint8_t table[] = {
		1, 0x2e, 1, 0x03, 0x0e, 0x11, 0x01, 0x12, 0x07, 0, 0,
		2, 0x34, 0, 0x03, 0x08, 0x1c, 0x21, 0x7b, 0,	0, 0,
		1, 0x2e, 0, 0,	  0,	1,    0x34, 0,	  0,	0, 0,
	};
	struct sp_dwabbrevs t;
	struct sp_dwform_unit fu = {5, 8, 4, 0};
	const struct sp_dwabbrev *a;

	memset(&t, 0, sizeof(t));
	CU_ASSERT_EQUAL(sp_dwabbrevs_read(&t, table, sizeof(table), 0, &fu), 0);
	a = sp_dwabbrevs_find(&t, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->tag, 0x2e);
	CU_ASSERT_EQUAL(a->children, 1);
	CU_ASSERT_EQUAL(a->n, 3);
	CU_ASSERT_EQUAL(a->fixed, 4 + 8 + 8);
	a = sp_dwabbrevs_find(&t, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->tag, 0x34);
	CU_ASSERT_EQUAL(a->children, 0);
	CU_ASSERT_EQUAL(a->fixed, -1);
	CU_ASSERT_EQUAL(t.attrs[a->first + 1].form, 0x21);
	CU_ASSERT_PTR_EQUAL(t.attrs[a->first + 1].implicit, table + 18);
	CU_ASSERT_PTR_NULL(sp_dwabbrevs_find(&t, 0));
	CU_ASSERT_PTR_NULL(sp_dwabbrevs_find(&t, 3));
	/* a repeated code, a cut table, an offset past the end */
	CU_ASSERT_EQUAL(sp_dwabbrevs_read(&t, table, sizeof(table), 22, &fu), -1);
	CU_ASSERT_PTR_NULL(sp_dwabbrevs_find(&t, 1));
	CU_ASSERT_EQUAL(sp_dwabbrevs_read(&t, table, 6, 0, &fu), -1);
	CU_ASSERT_EQUAL(sp_dwabbrevs_read(&t, table, sizeof(table), sizeof(table), &fu), -1);
	/* read again after a failure: the same answers */
	CU_ASSERT_EQUAL(sp_dwabbrevs_read(&t, table, sizeof(table), 0, &fu), 0);
	CU_ASSERT_PTR_NOT_NULL(sp_dwabbrevs_find(&t, 2));
	sp_dwabbrevs_release(&t);
	/* a sparse code */
	{
		static const uint8_t sparse[] = {0xff, 0xff, 0x03, 0x2e, 0, 0, 0, 0};

		memset(&t, 0, sizeof(t));
		CU_ASSERT_EQUAL(sp_dwabbrevs_read(&t, sparse, sizeof(sparse), 0, &fu), -1);
		sp_dwabbrevs_release(&t);
	}
}

/* ivsweep.c: the radix sort gives the merge sort's order (stable, ties
 * by key1, key2, id), runs of equal starts short and long included. */
static void test_iv_sort_radix(void)
{
	static const size_t sizes[] = {0, 1, 7, 255, 256, 257, 1000, 5000};
	unsigned seed = 12345;
	size_t t, i;

	for (t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
		size_t n = sizes[t];
		struct sp_iv *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1, sizeof(*b));

		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			/* few distinct starts (long runs), a long run at 0x1000 */
			a[i].start =
				i % 97 == 0 ? 0x1000 : 0x1000 + ((seed >> 8) % (n / 8 + 2)) * 16;
			a[i].end = a[i].start + 1 + (seed >> 20) % 64;
			a[i].key1 = (seed >> 4) % 3;
			a[i].key2 = (seed >> 12) % 2;
			a[i].id = (seed >> 16) % 4; /* equal ids: only stability orders them */
		}
		memcpy(b, a, n * sizeof(*a));
		sp_iv_sort(a, n);
		sp_iv_sort_merge(b, n);
		CU_ASSERT_EQUAL(memcmp(a, b, n * sizeof(*a)), 0);
		free(a);
		free(b);
	}
}

int sp_test_register_lines(void)
{
	CU_pSuite s = CU_add_suite("lines", NULL, NULL);

	if (!s)
		return -1;
	elf_version(EV_CURRENT);
	if (!CU_add_test(s, "address index: built whole or as filled", test_addr_index) ||
	    !CU_add_test(s, "DWARF 5 with -fdebug-prefix-map", test_dwarf5_prefix_map) ||
	    !CU_add_test(s, "DWARF 4 C++", test_dwarf4_cxx) ||
	    !CU_add_test(s, "rows and find agree", test_rows) ||
	    !CU_add_test(s, "discarded sequence at 0", test_discarded_sequence) ||
	    !CU_add_test(s, ".zdebug_rnglists", test_zdebug_rnglists) ||
	    !CU_add_test(s, "inline chain (C)", test_inline_chain_c) ||
	    !CU_add_test(s, "inline chain (C++ names)", test_inline_chain_cxx) ||
	    !CU_add_test(s, "cursor lookups agree in any order", test_cursor_lookups) ||
	    !CU_add_test(s, "many session lookups agree with single ones", test_session_many) ||
	    !CU_add_test(s, "names-only session lookups", test_session_names) ||
	    !CU_add_test(s, "query tables agree with the full table", test_query_tables) ||
	    !CU_add_test(s, "query tables skip units outside their ranges",
			 test_query_skips_units) ||
	    !CU_add_test(s, "an image's query table falls back", test_image_query_fallback) ||
	    !CU_add_test(s, "truncated .debug_line header", test_truncated_header) ||
	    !CU_add_test(s, "bad unit length and version", test_bad_length_and_version) ||
	    !CU_add_test(s, "damaged line programs", test_fuzz_line_programs) ||
	    !CU_add_test(s, "demangling skips names that cannot be mangled",
			 test_demangle_shortcut) ||
	    !CU_add_test(s, "demangling batches agree with sp_demangle", test_demangle_batch) ||
	    !CU_add_test(s, "allocated sections, their gaps and their edges", test_in_alloc) ||
	    !CU_add_test(s, "the demangling memo answers by name, and by pointer",
			 test_demangle_memo) ||
	    !CU_add_test(s, "DWARF forms: the sizes of values", test_dwarf_forms) ||
	    !CU_add_test(s, "DWARF abbreviation tables", test_dwarf_abbrevs) ||
	    !CU_add_test(s, "interval sort: radix as merge", test_iv_sort_radix))
		return -1;
	return 0;
}
