/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for recognising files (formats/registry.c and the readers'
 * probes): every profile of the fixtures is recognised by its own probe
 * and by no other one, also compressed (the head of a gzip or bzip2 file
 * is what it decompresses to); executables, text and BSD gmon.out files
 * by none; a corrupt compressed head gets the reader's message. pprof's
 * own gzipped protobuf (google/pprof's test data in ../shared/external,
 * read in place when it is there) is recognised as a pprof protobuf,
 * plain and compressed, and no other file is.
 */
#include <bzlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/mfile.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"

#define FIX(name) SP_FIXTURES_DIR "/" name
/* google/pprof's test data, beside the repository (not copied into it) */
#define PPROF_SAMPLE SP_FIXTURES_DIR "/../../shared/external/pprof/report_testdata_sample.cpu"

enum { GMON, GPERF, IGPROF, APROF, PPROF, NONE };

static const struct {
	const char *name;
	int (*probe)(const uint8_t *data, size_t size);
} probes[] = {
	{"gmon", sp_fmt_gmon_probe},	 {"gperftools", sp_fmt_gperf_probe},
	{"igprof", sp_fmt_igprof_probe}, {"aprof", sp_fmt_aprof_probe},
	{"pprof", sp_fmt_pprof_probe},
};

#define NPROBES (sizeof(probes) / sizeof(probes[0]))

/* The probe that recognises h (NONE), checking that no other one does. */
static int recognised_by(const struct sp_fmt_head *h, const char *path)
{
	int found = NONE;
	size_t i;

	for (i = 0; i < NPROBES; i++) {
		if (!probes[i].probe(h->data, h->size))
			continue;
		if (found != NONE) {
			fprintf(stderr, "%s: both %s and %s\n", path, probes[found].name,
				probes[i].name);
			CU_FAIL("two probes recognise one file");
		}
		found = (int)i;
	}
	return found;
}

static void expect_file(const char *path, int want, enum sp_fmt_compression z, int object)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_fmt_head h;
	int got;

	if (sp_fmt_head_read(&h, path, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		CU_FAIL("head not read");
		return;
	}
	got = recognised_by(&h, path);
	if (got != want)
		fprintf(stderr, "%s: recognised as %s, expected %s\n", path,
			got == NONE ? "nothing" : probes[got].name,
			want == NONE ? "nothing" : probes[want].name);
	CU_ASSERT_EQUAL(got, want);
	CU_ASSERT_EQUAL(h.compression, z);
	CU_ASSERT_EQUAL(sp_image_is_object(path), object);
}

static void test_fixtures(void)
{
	const char *recomp =
		FIX("igprof/profiles/recompressed/igprof.hotrec-nopie.8643.1795298548.626690");

	expect_file(FIX("gmon/prog/gmon.out.run1"), GMON, SP_FMT_PLAIN, 0);
	expect_file(FIX("gmon/bigendian/gmon-ppc.out"), GMON, SP_FMT_PLAIN, 0);
	expect_file(FIX("gperf/hot/hot_pie.prof"), GPERF, SP_FMT_PLAIN, 0);
	expect_file(FIX("gperf/cxx/cxx.prof"), GPERF, SP_FMT_PLAIN, 0);
	expect_file(FIX("igprof/profiles/perf/igprof.hotrec-pie.8629.1795298547.922226.gz"), IGPROF,
		    SP_FMT_GZIP, 0);
	expect_file(FIX("igprof/profiles/mem/igprof.leaky-pie.8671.1795298549.314875.gz"), IGPROF,
		    SP_FMT_GZIP, 0);
	expect_file(
		FIX("igprof/profiles/recompressed/igprof.leaky-nopie.8675.1795298549.345352.txt"),
		IGPROF, SP_FMT_PLAIN, 0);
	{
		char path[512];

		snprintf(path, sizeof(path), "%s.bz2", recomp);
		expect_file(path, IGPROF, SP_FMT_BZIP2, 0);
	}
	expect_file(FIX("aprof/versions/sortsz-v6.aprof"), APROF, SP_FMT_PLAIN, 0);
	expect_file(FIX("aprof/versions/sortsz-v1.aprof"), APROF, SP_FMT_PLAIN, 0);
	/* executables: no probe, but objects */
	expect_file(FIX("gmon/prog/prog"), NONE, SP_FMT_PLAIN, 1);
	expect_file(FIX("gmon/mingw/prog64.exe"), NONE, SP_FMT_PLAIN, 1);
	expect_file(FIX("gmon/bigendian/prog-ppc"), NONE, SP_FMT_PLAIN, 1);
	/* BSD gmon.out has no magic number; text is nothing */
	expect_file(FIX("gmon/mingw/gmon64.out"), NONE, SP_FMT_PLAIN, 0);
	expect_file(FIX("bad/gmon/t9013-bsd-short.gmon"), NONE, SP_FMT_PLAIN, 0);
	expect_file(FIX("gmon/prog/prog.c"), NONE, SP_FMT_PLAIN, 0);
	expect_file(FIX("gperf/README.md"), NONE, SP_FMT_PLAIN, 0);
	expect_file(FIX("gperf/hot/t2000-pprof-text.out"), NONE, SP_FMT_PLAIN, 0);
	expect_file(FIX("out/prog/t8000-dot.out"), NONE, SP_FMT_PLAIN, 0);
}

/* gzip (level 9) or bzip2 of data, malloc'ed. */
static uint8_t *compress_as(enum sp_fmt_compression z, const uint8_t *data, size_t size,
			    size_t *out)
{
	size_t cap = size + size / 10 + 1024;
	uint8_t *buf = malloc(cap);
	unsigned blen = (unsigned)cap;
	z_stream zs;

	if (z == SP_FMT_BZIP2) {
		CU_ASSERT_EQUAL(BZ2_bzBuffToBuffCompress((char *)buf, &blen, (char *)data,
							 (unsigned)size, 9, 0, 0),
				BZ_OK);
		*out = blen;
		return buf;
	}
	memset(&zs, 0, sizeof(zs));
	CU_ASSERT_EQUAL(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)size;
	zs.next_out = buf;
	zs.avail_out = (uInt)cap;
	CU_ASSERT_EQUAL(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out = cap - zs.avail_out;
	deflateEnd(&zs);
	return buf;
}

/* The head of data compressed each way is data's first bytes. */
static void expect_heads(const uint8_t *data, size_t size, int want)
{
	static const enum sp_fmt_compression kinds[] = {SP_FMT_PLAIN, SP_FMT_GZIP, SP_FMT_BZIP2};
	size_t k, n = size < SP_FMT_HEAD_SIZE ? size : SP_FMT_HEAD_SIZE;

	for (k = 0; k < 3; k++) {
		struct sp_error err = SP_ERROR_INIT;
		struct sp_fmt_head h;
		size_t zsize = size;
		uint8_t *z = kinds[k] ? compress_as(kinds[k], data, size, &zsize) : NULL;

		CU_ASSERT_EQUAL_FATAL(sp_fmt_head_of_mem(&h, "mem", z ? z : data, zsize, &err), 0);
		CU_ASSERT_EQUAL(h.compression, kinds[k]);
		CU_ASSERT_EQUAL(h.size, n);
		CU_ASSERT(!memcmp(h.data, data, n));
		CU_ASSERT_EQUAL(recognised_by(&h, "mem"), want);
		free(z);
	}
}

static void test_heads(void)
{
	struct sp_mfile f;

	CU_ASSERT_EQUAL_FATAL(sp_mfile_open(&f, FIX("aprof/versions/sortsz-v6.aprof"), NULL), 0);
	expect_heads(f.data, f.size, APROF);
	expect_heads(f.data, 100, APROF); /* smaller than a head */
	sp_mfile_close(&f);
	CU_ASSERT_EQUAL_FATAL(sp_mfile_open(&f, FIX("gperf/hot/hot_pie.prof"), NULL), 0);
	expect_heads(f.data, f.size, GPERF);
	sp_mfile_close(&f);
}

/* A corrupt head gets the reader's own message; a truncated file whose
 * head is there is recognised (its reader says it is cut short). */
static void test_head_errors(void)
{
	const char *corrupt = FIX("bad/igprof/t9302-corrupt.igprof.gz");
	struct sp_igprof_read_opts ro = {0, 1, NULL};
	struct sp_error err = SP_ERROR_INIT, rerr = SP_ERROR_INIT;
	struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
	struct sp_fmt_head h;
	static const uint8_t gzip_header_only[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

	CU_ASSERT(sp_fmt_head_read(&h, corrupt, &err) < 0);
	CU_ASSERT(sp_fmt_igprof_read(p, corrupt, &ro, &rerr) < 0);
	CU_ASSERT_STRING_EQUAL(err.msg, rerr.msg);
	sp_profile_free(p);
	CU_ASSERT_EQUAL(sp_fmt_head_read(&h, FIX("bad/igprof/t9301-truncated.igprof.gz"), &err), 0);
	CU_ASSERT_EQUAL(recognised_by(&h, "t9301"), IGPROF);
	CU_ASSERT_EQUAL(
		sp_fmt_head_of_mem(&h, "cut", gzip_header_only, sizeof(gzip_header_only), &err),
		-SP_E_TRUNCATED);
	CU_ASSERT_STRING_EQUAL(err.msg, "'cut': gzip data truncated at offset 10");
	CU_ASSERT_EQUAL(sp_fmt_head_read(&h, FIX("no-such-file"), &err), -SP_E_OPEN);
}

/* google/pprof's sample.cpu, gzipped and plain; every prefix that holds
 * a complete field is still one. Skipped without ../shared. */
static void test_pprof(void)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_fmt_head h;
	size_t n;
	FILE *f = fopen(PPROF_SAMPLE, "rb");

	if (!f) {
		fprintf(stderr, "\n  (no %s: pprof protobuf not checked) ", PPROF_SAMPLE);
		return;
	}
	fclose(f);
	expect_file(PPROF_SAMPLE, PPROF, SP_FMT_GZIP, 0);
	CU_ASSERT_EQUAL_FATAL(sp_fmt_head_read(&h, PPROF_SAMPLE, &err), 0);
	CU_ASSERT_EQUAL(h.size, 3843); /* the whole protobuf, smaller than a head */
	expect_heads(h.data, h.size, PPROF);
	for (n = 16; n <= h.size; n++)
		CU_ASSERT_EQUAL(sp_fmt_pprof_probe(h.data, n), 1);
	/* its first field is a Mapping of 14 bytes: not complete before */
	CU_ASSERT_EQUAL(sp_fmt_pprof_probe(h.data, 15), 0);
	h.data[0] = 0x38; /* field 7, varint: not a message */
	CU_ASSERT_EQUAL(sp_fmt_pprof_probe(h.data, h.size), 0);
}

/* Bytes from a fixed linear congruential sequence: the pprof probe, the
 * one without a magic number, takes none of them. */
static void test_noise(void)
{
	uint8_t buf[SP_FMT_HEAD_SIZE];
	uint32_t x = 12345;
	size_t i, k, taken = 0;

	for (k = 0; k < 20000; k++) {
		for (i = 0; i < sizeof(buf); i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
		}
		taken += sp_fmt_pprof_probe(buf, sizeof(buf)) != 0;
	}
	CU_ASSERT_EQUAL(taken, 0);
}

int sp_test_register_formats(void)
{
	CU_pSuite s = CU_add_suite("formats", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "probes: every fixture, one format", test_fixtures) ||
	    !CU_add_test(s, "heads: plain, gzip, bzip2", test_heads) ||
	    !CU_add_test(s, "heads: corrupt and truncated", test_head_errors) ||
	    !CU_add_test(s, "pprof protobuf", test_pprof) ||
	    !CU_add_test(s, "probes: noise", test_noise))
		return -1;
	return 0;
}
