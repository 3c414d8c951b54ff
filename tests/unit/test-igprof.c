/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for the IgProf reader: the real dumps of fixtures/igprof
 * (sums checked against totals computed from the text independently),
 * the same text plain, gzip and bzip2, decimal dumps, threads merged onto
 * one tree, a line longer than the reader's window, and bad input (each
 * error names the line or the compressed offset).
 */
#include <bzlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/buf.h"
#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/profile.h"

#define DUMPS SP_FIXTURES_DIR "/igprof/profiles/"

struct sums {
	int64_t count, value, peak;
};

static struct sums sum_counter(const struct sp_profile *p, const char *name)
{
	uint32_t c = sp_profile_find_counter(p, name);
	struct sums s = {0, 0, 0};
	size_t i;

	CU_ASSERT_NOT_EQUAL(c, SP_NONE);
	for (i = 0; i < p->nvalues; i++) {
		if (p->values[i].counter != c)
			continue;
		s.count += p->values[i].count;
		s.value += p->values[i].value;
		if (p->values[i].peak > s.peak)
			s.peak = p->values[i].peak;
	}
	return s;
}

static struct sp_profile *read_file(const char *path, int keep_leaks)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
	struct sp_igprof_read_opts o = {keep_leaks, 0, NULL};
	struct sp_error err = SP_ERROR_INIT;

	if (sp_fmt_igprof_read(p, path, &o, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		CU_FAIL("read failed");
	}
	return p;
}

static int read_text(struct sp_profile *p, const char *text, size_t len, struct sp_error *err)
{
	struct sp_igprof_read_opts o = {1, 1, NULL};

	return sp_fmt_igprof_read_mem(p, "t.igprof", (const uint8_t *)text, len, &o, err);
}

/* ---- the real dumps ---- */

static void test_perf_dump(void)
{
	struct sp_profile *p =
		read_file(DUMPS "perf/igprof.hotrec-pie.8629.1795298547.922226.gz", 0);
	struct sums s = sum_counter(p, "PERF_TICKS");
	size_t i, anon = 0;

	/* zcat | grep -o 'V0[^ ]*' summed: 133 ticks, the largest peak 18 */
	CU_ASSERT_EQUAL(s.count, 133);
	CU_ASSERT_EQUAL(s.value, 133);
	CU_ASSERT_EQUAL(s.peak, 18);
	CU_ASSERT_EQUAL(p->nframes, 28); /* 28 FN definitions, one address each */
	CU_ASSERT_DOUBLE_EQUAL(p->igprof.tick, 0.005, 1e-12);
	CU_ASSERT_STRING_EQUAL(p->igprof.program, "/tmp/pp-corpus/igprof/bin/hotrec-pie");
	for (i = 0; i < p->nframes; i++)
		anon += p->frames[i].name == NULL;
	CU_ASSERT_EQUAL(anon, 27); /* only __libc_start_main is named */
	/* FN0=(F0=(.../hotrec-pie)+10a1 N=(@?0x55f48f2f00a1))+0 */
	CU_ASSERT_EQUAL(p->frames[0].addr, 0x10a1);
	CU_ASSERT_STRING_EQUAL(p->objects[p->frames[0].object].path,
			       "/tmp/pp-corpus/igprof/bin/hotrec-pie");
	/* FN1=(F1=(libc.so.6)+27305 N=(__libc_start_main))+85 */
	CU_ASSERT_EQUAL(p->frames[1].addr, 0x27305);
	CU_ASSERT_EQUAL(p->frames[1].symoff, 0x85);
	CU_ASSERT_STRING_EQUAL(p->frames[1].name, "__libc_start_main");
	sp_profile_free(p);
}

static void test_mem_dump(void)
{
	struct sp_profile *p = read_file(DUMPS "mem/igprof.leaky-pie.8671.1795298549.314875.gz", 1);
	struct sums live = sum_counter(p, "MEM_LIVE"), total = sum_counter(p, "MEM_TOTAL");
	uint64_t bytes = 0;
	size_t i;

	CU_ASSERT_EQUAL(live.count, 2005);
	CU_ASSERT_EQUAL(live.value, 2629568);
	CU_ASSERT_EQUAL(total.count, 17376);
	CU_ASSERT_EQUAL(total.value, 55612853);
	CU_ASSERT_EQUAL(p->counters[sp_profile_find_counter(p, "MEM_MAX")].kind, SP_COUNTER_MAX);
	CU_ASSERT_EQUAL(p->nleaks, 2005);
	CU_ASSERT_EQUAL(p->igprof.nleaks, 2005);
	for (i = 0; i < p->nleaks; i++)
		bytes += p->leaks[i].size;
	CU_ASSERT_EQUAL(bytes, 2629568);
	CU_ASSERT_EQUAL(p->igprof.leak_bytes, 2629568);
	sp_profile_free(p);

	/* without keep_leaks: counted, not kept */
	p = read_file(DUMPS "mem/igprof.leaky-pie.8671.1795298549.314875.gz", 0);
	CU_ASSERT_EQUAL(p->nleaks, 0);
	CU_ASSERT_EQUAL(p->igprof.nleaks, 2005);
	sp_profile_free(p);
}

/* Two dumps read into one profile: every value doubles, the tree stays. */
static void test_merge_dumps(void)
{
	const char *f = DUMPS "perf/igprof.hotrec-nopie.8643.1795298548.626690.gz";
	struct sp_profile *p = read_file(f, 0);
	struct sp_igprof_read_opts o = {0, 0, NULL};
	struct sp_error err = SP_ERROR_INIT;
	size_t nodes = p->nnodes, frames = p->nframes;

	CU_ASSERT_EQUAL(sum_counter(p, "PERF_TICKS").value, 137);
	CU_ASSERT_EQUAL(sp_fmt_igprof_read(p, f, &o, &err), 0);
	CU_ASSERT_EQUAL(sum_counter(p, "PERF_TICKS").value, 274);
	CU_ASSERT_EQUAL(p->nnodes, nodes);
	CU_ASSERT_EQUAL(p->nframes, frames);
	CU_ASSERT_EQUAL(p->igprof.ndumps, 2);
	sp_profile_free(p);
}

/* ---- hand-written text ---- */

static const char small_hex[] =
	"P=(HEX ID=1f N=(/bin/prog) T=0.010000)\n"
	"C1 FN0=(F0=(/bin/prog)+10 N=(main))+4\n"
	"C2 FN1=(F1=(/lib/libc.so.6)+2000 N=(@?0x7f0000002000))+0 "
	"V0=(MEM_LIVE):(2,30,20);LK=(0xabc,10);LK=(0xdef,20)\n"
	"C2 FN2=(F0+a0 N=(@?0x4000a0))+0 V0:(1,-5,a) V1=(MEM_TOTAL):(1,ff,ff)\n"
	"C1 FN0+4\n"
	"C2 FN1+0 V0:(1,1,1);LK=(0x1,1)\n";

static void check_small(struct sp_profile *p)
{
	struct sums s = sum_counter(p, "MEM_LIVE");

	CU_ASSERT_EQUAL(s.count, 4);
	CU_ASSERT_EQUAL(s.value, 0x30 - 5 + 1);
	CU_ASSERT_EQUAL(s.peak, 0x20);
	CU_ASSERT_EQUAL(sum_counter(p, "MEM_TOTAL").value, 0xff);
	/* root + main + two children; the second tree falls onto the first */
	CU_ASSERT_EQUAL(p->nnodes, 4);
	CU_ASSERT_EQUAL(p->nframes, 3);
	CU_ASSERT_EQUAL(p->nleaks, 3);
	CU_ASSERT_EQUAL(p->frames[0].addr, 0x10);
	CU_ASSERT_EQUAL(p->frames[0].symoff, 4);
	CU_ASSERT_EQUAL(p->frames[2].addr, 0xa0);
	CU_ASSERT_PTR_NULL(p->frames[2].name);
}

static void test_plain_gzip_bzip2(void)
{
	size_t len = sizeof(small_hex) - 1;
	unsigned char gz[1024];
	char bz[1024];
	unsigned bzlen = sizeof(bz);
	z_stream zs;
	struct sp_error err = SP_ERROR_INIT;
	struct sp_profile *p;

	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT_EQUAL(read_text(p, small_hex, len, &err), 0);
	check_small(p);
	sp_profile_free(p);

	memset(&zs, 0, sizeof(zs));
	CU_ASSERT_EQUAL(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)small_hex;
	zs.avail_in = (uInt)len;
	zs.next_out = gz;
	zs.avail_out = sizeof(gz);
	CU_ASSERT_EQUAL(deflate(&zs, Z_FINISH), Z_STREAM_END);
	deflateEnd(&zs);
	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT_EQUAL(read_text(p, (char *)gz, sizeof(gz) - zs.avail_out, &err), 0);
	check_small(p);
	sp_profile_free(p);

	/* cut in the middle: truncated, with the offset */
	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT_EQUAL(read_text(p, (char *)gz, (sizeof(gz) - zs.avail_out) / 2, &err),
			-SP_E_TRUNCATED);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gzip data truncated at offset"));
	sp_profile_free(p);
	/* a flipped byte in the deflate data */
	gz[20] ^= 0x55;
	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT(read_text(p, (char *)gz, sizeof(gz) - zs.avail_out, &err) < 0);
	sp_profile_free(p);

	CU_ASSERT_EQUAL(
		BZ2_bzBuffToBuffCompress(bz, &bzlen, (char *)small_hex, (unsigned)len, 9, 0, 0),
		BZ_OK);
	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT_EQUAL(read_text(p, bz, bzlen, &err), 0);
	check_small(p);
	sp_profile_free(p);
	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT_EQUAL(read_text(p, bz, bzlen - 5, &err), -SP_E_TRUNCATED);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bzip2 data truncated"));
	sp_profile_free(p);
}

/* The old decimal form of the documentation (no HEX). */
static void test_decimal(void)
{
	static const char text[] =
		"P=(ID=32365 N=(ls) T=0.010000)\n"
		"C1 FN0=(F0=(/lib/tls/libc.so.6)+87962 N=(__libc_start_main))+218\n"
		"C2 FN1=(F1=(ls)+8661 N=(strcoll))+2753\n"
		"C3 FN2=(F0+171435 N=(@?0x13adab))+0 V0=(PERF_TICKS):(1,1,1)\n"
		"C3 FN3=(F1+17715 N=(@?(nil)))+0 V0:(12,34,5)\n";
	struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
	struct sp_error err = SP_ERROR_INIT;

	CU_ASSERT_EQUAL(read_text(p, text, sizeof(text) - 1, &err), 0);
	CU_ASSERT_EQUAL(sum_counter(p, "PERF_TICKS").value, 35);
	CU_ASSERT_EQUAL(sum_counter(p, "PERF_TICKS").count, 13);
	CU_ASSERT_EQUAL(p->frames[0].addr, 87962);
	CU_ASSERT_EQUAL(p->frames[2].addr, 171435);
	CU_ASSERT_PTR_NULL(p->frames[3].name);
	CU_ASSERT_DOUBLE_EQUAL(p->counters[0].unit_per_count, 0.01, 1e-12);
	sp_profile_free(p);
}

/* A node with more LK entries than the reader's window holds. */
static void test_long_line(void)
{
	static const char head[] =
		"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0 V0=(MEM_LIVE):(1,1,1)";
	size_t n = 150000, i, len = 0;
	char *text = malloc(sizeof(head) + n * 40 + 64);
	struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
	struct sp_error err = SP_ERROR_INIT;

	len += (size_t)sprintf(text, "%s", head);
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, ";LK=(0x%016zx,%zx)", i * 64 + 0x10000000,
				       i % 7 + 1);
	len += (size_t)sprintf(text + len, "\nC1 FN0+0 V0:(2,2,2)\n");
	CU_ASSERT(len > (3u << 20));
	CU_ASSERT_EQUAL(read_text(p, text, len, &err), 0);
	CU_ASSERT_EQUAL(p->nleaks, n);
	CU_ASSERT_EQUAL(p->leaks[n - 1].addr, (n - 1) * 64 + 0x10000000);
	CU_ASSERT_EQUAL(sum_counter(p, "MEM_LIVE").count, 3);
	sp_profile_free(p);
	/* the same, cut in the middle of an entry */
	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT(read_text(p, text, len / 2, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(err.msg, "t.igprof:2: the file ends in the middle of a line"));
	sp_profile_free(p);
	free(text);
}

static void test_errors(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"", "the file is empty"},
		{"hello\n", "t.igprof:1: not an IgProf dump"},
		{"P=(HEX ID=1 N=(p) T=x)\n", "t.igprof:1: malformed header: bad period 'x'"},
		{"P=(HEX ID=1 N=(p)\n", "t.igprof:1: malformed header"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC2 FN0=(F0=(p)+1 N=(f))+0\n",
		 "t.igprof:2: depth 2 after depth 0"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC0 FN0=(F0=(p)+1 N=(f))+0\n", "t.igprof:2: depth 0"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN3+0\n",
		 "t.igprof:2: symbol FN3 referenced before definition"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F2+1 N=(f))+0\n",
		 "t.igprof:2: file F2 referenced before definition"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0 V1:(1,1,1)\n",
		 "t.igprof:2: counter V1 referenced before definition"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0 V0=(X):(1,1)\n",
		 "t.igprof:2: malformed values of counter V0"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0\nC1 FN0=(F0+1 N=(f))+0\n",
		 "t.igprof:3: symbol FN0 defined twice"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0 junk\n",
		 "t.igprof:2: unexpected text after the node: ' junk'"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0;LK=(12,3)\n",
		 "t.igprof:2: malformed leak entry"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0 "
		 "V0=(X):(1,11111111111111111,1)\n",
		 "t.igprof:2: malformed values of counter V0"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FNfffffff=(F0=(p)+1 N=(f))+0\n",
		 "t.igprof:2: symbol id 268435455 is too large"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f)+0\n",
		 "t.igprof:2: malformed symbol definition FN0"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nE1 FN0=(F0=(p)+1 N=(f))+0\n",
		 "t.igprof:2: malformed line"},
		{"\x1f\x8b\x08\x00garbage", "gzip data"},
		{"P=(HEX ID=1 N=(p) T=0.0)\nC1 FN0=(F0=(p)+1 N=(f))+0",
		 "t.igprof:2: the file ends in"},
		{"BZh9garbage", "corrupt bzip2 data"},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
		struct sp_error err = SP_ERROR_INIT;
		int rc = read_text(p, cases[i].text, strlen(cases[i].text), &err);

		CU_ASSERT(rc < 0);
		if (!strstr(err.msg, cases[i].msg)) {
			fprintf(stderr, "\ncase %zu: got '%s', want '%s'\n", i, err.msg,
				cases[i].msg);
			CU_FAIL("wrong message");
		}
		sp_profile_free(p);
	}
}

/* --merge-clones: the origin of GCC's clone names. */
static void test_clone_names(void)
{
	static const struct {
		const char *name;
		size_t len;
	} cases[] = {
		{"fib", 3},
		{"fib.constprop.0", 3},
		{"fib.isra.0", 3},
		{"fib.part.1", 3},
		{"fib.cold", 3},
		{"fib.constprop.0.isra.0", 3},
		{"_ZN6corpus10build_listEi.part.0", 24},
		{"fib.lto_priv.0", 14}, /* not a clone */
		{"fib.coldness", 12},	/* not the .cold suffix */
		{".part", 0},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CU_ASSERT_EQUAL(sp_clone_origin_len(cases[i].name), cases[i].len);
	CU_ASSERT(sp_igtree_is_igprof_object("/tmp/igprof-inst/lib/libigprof.so"));
	CU_ASSERT(sp_igtree_is_igprof_object("libIgProf.so"));
	CU_ASSERT(!sp_igtree_is_igprof_object("/lib/x86_64-linux-gnu/libc.so.6"));
	CU_ASSERT(!sp_igtree_is_igprof_object(
		"/very/long/path/to/libigprof.so/inside/something/else"));
}

/*
 * igprof-analyse's tree on a hand-made dump: an IgProf frame dropped with
 * its own value and its callee moved up, malloc folded into its caller
 * (for MEM_*) with what it calls dropped, equal paths added up and MAX
 * folds maxed.
 */
static void test_igtree_filters(void)
{
	static const char text[] =
		"P=(HEX ID=1 N=(/bin/p) T=0.0)\n"
		"C1 FN0=(F0=(/bin/p)+10 N=(main))+0\n"
		"C2 FN1=(F1=(/lib/libc.so.6)+20 N=(malloc))+0 V0=(MEM_MAX):(1,5,0)\n"
		"C3 FN2=(F2=(/x/libigprof.so)+30 N=(hook))+0 V0:(1,100,0)\n"
		"C2 FN3=(F1+24 N=(malloc))+0 V0:(1,7,0)\n"
		"C2 FN4=(F2+40 N=(inner))+0 V0:(1,1000,0)\n"
		"C3 FN5=(F0+50 N=(work))+0 V0:(2,3,0)\n";
	struct sp_profile *p = sp_profile_new(SP_PROFILE_IGPROF);
	struct sp_error err = SP_ERROR_INIT;
	struct sp_frame_funcs ff;
	struct sp_igtree_opts o = {0, SP_VALUE_VALUE, SP_IGF_IGPROF | SP_IGF_MALLOC, 0};
	struct sp_profile *t;
	int64_t main_v = -1, work_v = -1;
	size_t i;

	CU_ASSERT_EQUAL(read_text(p, text, sizeof(text) - 1, &err), 0);
	sp_frame_funcs_build(&ff, p, NULL, 0);
	t = sp_igtree_build(p, &ff, &o);
	/* root, main, work: malloc folded, the IgProf frame gone */
	CU_ASSERT_EQUAL(t->nnodes, 3);
	for (i = 0; i < t->nvalues; i++) {
		const char *n = t->frames[t->nodes[t->values[i].node].frame].name;

		if (!strcmp(n, "main"))
			main_v = t->values[i].value;
		if (!strcmp(n, "work"))
			work_v = t->values[i].value;
	}
	/* the two malloc call sites are one node of 5 + 7 = 12, folded with
	 * max (MEM_MAX) into main; hook's own 100 and inner's 1000 are gone */
	CU_ASSERT_EQUAL(main_v, 12);
	CU_ASSERT_EQUAL(work_v, 3);
	sp_profile_free(t);
	o.filters = 0;
	t = sp_igtree_build(p, &ff, &o);
	CU_ASSERT_EQUAL(t->nnodes, 6); /* root main malloc hook inner work */
	sp_profile_free(t);
	sp_frame_funcs_release(&ff);
	sp_profile_free(p);
}

/* ---- gzip through the fast inflater ---- */

/* A dump of n identical trees (several MB of text, so several chunks). */
static char *big_text(size_t n, size_t *len)
{
	struct sp_buf b = SP_BUF_INIT;
	size_t i;

	sp_buf_addstr(&b, "P=(HEX ID=1 N=(/bin/prog) T=0.010000)\n"
			  "C1 FN0=(F0=(/bin/prog)+10 N=(main))+4\n"
			  "C2 FN1=(F0+20 N=(work))+0 V0=(MEM_LIVE):(1,2,2)\n");
	for (i = 0; i < n; i++)
		sp_buf_addstr(&b, "C1 FN0+4\nC2 FN1+0 V0:(1,2,2);LK=(0xabcdef,2);LK=(0x1234,2)\n");
	return sp_buf_detach(&b, len);
}

static size_t gzip_member(const char *text, size_t len, unsigned char *out, size_t room)
{
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	CU_ASSERT_EQUAL(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)text;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)room;
	CU_ASSERT_EQUAL(deflate(&zs, Z_FINISH), Z_STREAM_END);
	deflateEnd(&zs);
	return room - zs.avail_out;
}

/* zlib's own message for the first error in a gzip file (several members). */
static const char *zlib_message(const unsigned char *gz, size_t n)
{
	static char msg[128];
	unsigned char out[65536];
	z_stream zs;
	int r = Z_OK;

	memset(&zs, 0, sizeof(zs));
	inflateInit2(&zs, 15 + 16);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)n;
	while (zs.avail_in && (r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR)) {
		if (r == Z_STREAM_END)
			inflateReset(&zs);
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		r = inflate(&zs, Z_NO_FLUSH);
	}
	snprintf(msg, sizeof(msg), "%s", zs.msg ? zs.msg : "");
	inflateEnd(&zs);
	return msg;
}

static int read_path(struct sp_profile *p, const char *path, struct sp_error *err)
{
	struct sp_igprof_read_opts o = {1, 1, NULL};

	return sp_fmt_igprof_read(p, path, &o, err);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, n, f), n);
	fclose(f);
}

/*
 * Two gzip members of a dump of several chunks, from memory and from a
 * file (decoded on the reader's thread): the same profile as the plain
 * text. Then a byte flipped in the second member: the error zlib gives,
 * although the fast inflater (when built in) had decoded the first.
 */
static void test_gzip_members(void)
{
	size_t len, half, cap, n1, n2;
	char *text = big_text(60000, &len);
	unsigned char *gz;
	char path[] = "/tmp/sp-test-gz-XXXXXX";
	int fd = mkstemp(path);
	struct sp_error err = SP_ERROR_INIT;
	struct sp_profile *want = sp_profile_new(SP_PROFILE_IGPROF), *p;
	int pass;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	half = strchr(text + len / 2, '\n') + 1 - text;
	cap = len + 4096;
	gz = sp_xmalloc(cap);
	n1 = gzip_member(text, half, gz, cap);
	n2 = gzip_member(text + half, len - half, gz + n1, cap - n1);
	CU_ASSERT_EQUAL(read_text(want, text, len, &err), 0);
	for (pass = 0; pass < 2; pass++) {
		p = sp_profile_new(SP_PROFILE_IGPROF);
		if (pass == 0) {
			CU_ASSERT_EQUAL(read_text(p, (char *)gz, n1 + n2, &err), 0);
		} else {
			write_file(path, gz, n1 + n2);
			CU_ASSERT_EQUAL(read_path(p, path, &err), 0);
		}
		CU_ASSERT_EQUAL(sum_counter(p, "MEM_LIVE").value,
				sum_counter(want, "MEM_LIVE").value);
		CU_ASSERT_EQUAL(sum_counter(p, "MEM_LIVE").count, 60001);
		CU_ASSERT_EQUAL(p->nleaks, want->nleaks);
		sp_profile_free(p);
	}
	gz[n1 + n2 / 2] ^= 0x55;
	write_file(path, gz, n1 + n2);
	p = sp_profile_new(SP_PROFILE_IGPROF);
	CU_ASSERT(read_path(p, path, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "gzip data"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, zlib_message(gz, n1 + n2)));
	sp_profile_free(p);
	remove(path);
	sp_profile_free(want);
	free(gz);
	free(text);
}

int sp_test_register_igprof(void)
{
	CU_pSuite s = CU_add_suite("igprof", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "read: perf dump", test_perf_dump) ||
	    !CU_add_test(s, "read: mem dump, leaks", test_mem_dump) ||
	    !CU_add_test(s, "read: two dumps merged", test_merge_dumps) ||
	    !CU_add_test(s, "read: plain, gzip, bzip2", test_plain_gzip_bzip2) ||
	    !CU_add_test(s, "read: gzip members, fast inflater", test_gzip_members) ||
	    !CU_add_test(s, "read: decimal dumps", test_decimal) ||
	    !CU_add_test(s, "read: a line longer than the window", test_long_line) ||
	    !CU_add_test(s, "read: errors", test_errors) ||
	    !CU_add_test(s, "clone names, IgProf objects", test_clone_names) ||
	    !CU_add_test(s, "igprof-analyse's tree and filters", test_igtree_filters))
		return -1;
	return 0;
}
