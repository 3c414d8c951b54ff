/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for pprof's protobuf format: what report/proto.c writes,
 * formats/pprof.c reads back (samples, counters, recorded inline chains,
 * mappings, period), and malformed messages are refused with the offset
 * of the field that is wrong.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/pbwire.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

#define HOT(name) SP_FIXTURES_DIR "/gperf/hot/" name

static int64_t counter_total(const struct sp_profile *p, uint32_t c)
{
	int64_t *v = sp_profile_node_values(p, c, SP_PICK_VALUE), t = 0;
	size_t i;

	for (i = 0; i < p->nnodes; i++)
		t += v[i];
	free(v);
	return t;
}

/* gperftools -> --format=proto -> the pprof reader: the same samples,
 * named by the recorded lines. */
static void test_round_trip(void)
{
	struct sp_profile *g = sp_profile_new(SP_PROFILE_GPERF), *p;
	struct sp_symbolizer_opts so;
	struct sp_symbolizer *s, *s2;
	struct sp_proto_opts po;
	struct sp_error err = SP_ERROR_INIT;
	char *buf = NULL;
	size_t len = 0, i, named = 0;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(sp_fmt_gperf_read(g, HOT("hot_pie.prof"), &err), 0);
	memset(&so, 0, sizeof(so));
	so.exe = HOT("hot_pie");
	s = sp_symbolizer_new(&so);
	memset(&po, 0, sizeof(po));
	po.values[0] =
		(struct sp_proto_value){"samples", "count", SP_PROTO_COUNTER, 0, SP_PICK_COUNT, 1};
	po.values[1] = (struct sp_proto_value){"cpu", "nanoseconds", SP_PROTO_COUNTER,
					       0,     SP_PICK_COUNT, (double)g->period_ns};
	po.nvalues = 2;
	po.default_value = 1;
	po.period_type = "cpu";
	po.period_unit = "nanoseconds";
	po.period = (int64_t)g->period_ns;
	po.demangle = 1;
	f = open_memstream(&buf, &len);
	sp_report_proto_stacks(f, g, s, &po);
	fclose(f);
	CU_ASSERT(len > 20 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b);

	p = sp_profile_new(SP_PROFILE_PPROF);
	CU_ASSERT_EQUAL_FATAL(sp_fmt_pprof_read_mem(p, "mem.pb.gz", (uint8_t *)buf, len, &err), 0);
	CU_ASSERT_EQUAL(p->ncounters, 2);
	CU_ASSERT_STRING_EQUAL(p->counters[0].name, "samples");
	CU_ASSERT_STRING_EQUAL(p->counters[1].unit, "nanoseconds");
	CU_ASSERT_EQUAL(p->pprof.default_counter, 1);
	CU_ASSERT_EQUAL(p->period_ns, g->period_ns);
	CU_ASSERT_EQUAL(counter_total(p, 0), 156);
	CU_ASSERT_EQUAL(counter_total(p, 1), 156 * (int64_t)g->period_ns);
	CU_ASSERT(p->nmaps >= 1 && p->objects[p->maps[0].object].is_main);
	CU_ASSERT(p->objects[p->maps[0].object].build_id_len == 20);
	s2 = sp_symbolizer_new(NULL);
	for (i = 0; i < p->nframes; i++) {
		const struct sp_symloc *l = sp_symbolizer_frame(s2, p, (uint32_t)i);

		if (!(p->frames[i].flags & SP_FRAME_LINES))
			continue;
		named++;
		CU_ASSERT(l->reason == SP_SYM_OK && l->nframes == p->frames[i].nlines);
	}
	CU_ASSERT(named > 10);
	sp_symbolizer_free(s2);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	sp_profile_free(g);
	free(buf);
}

/* ---- malformed messages ---- */

static void type(struct sp_buf *b, uint32_t t, uint32_t u)
{
	struct sp_buf m = SP_BUF_INIT;

	sp_pb_put_uint(&m, 1, t);
	sp_pb_put_uint(&m, 2, u);
	sp_pb_put_bytes(b, 1, m.buf, m.len);
	sp_buf_release(&m);
}

static void strings(struct sp_buf *b)
{
	sp_pb_put_bytes(b, 6, "", 0);
	sp_pb_put_bytes(b, 6, "samples", 7);
	sp_pb_put_bytes(b, 6, "count", 5);
	sp_pb_put_bytes(b, 6, "main", 4);
}

static void location(struct sp_buf *b, uint64_t id, uint64_t func)
{
	struct sp_buf m = SP_BUF_INIT, l = SP_BUF_INIT;

	sp_pb_put_uint(&m, 1, id);
	sp_pb_put_uint(&m, 3, 0x1000 + id);
	if (func) {
		sp_pb_put_uint(&l, 1, func);
		sp_pb_put_uint(&l, 2, 7);
		sp_pb_put_bytes(&m, 4, l.buf, l.len);
	}
	sp_pb_put_bytes(b, 4, m.buf, m.len);
	sp_buf_release(&m);
	sp_buf_release(&l);
}

static void function(struct sp_buf *b, uint64_t id, uint64_t name)
{
	struct sp_buf m = SP_BUF_INIT;

	sp_pb_put_uint(&m, 1, id);
	sp_pb_put_uint(&m, 2, name);
	sp_pb_put_bytes(b, 5, m.buf, m.len);
	sp_buf_release(&m);
}

static void sample(struct sp_buf *b, const uint64_t *ids, size_t n, const uint64_t *vals,
		   size_t nvals)
{
	struct sp_buf m = SP_BUF_INIT;

	sp_pb_put_packed(&m, 1, ids, n);
	sp_pb_put_packed(&m, 2, vals, nvals);
	sp_pb_put_bytes(b, 2, m.buf, m.len);
	sp_buf_release(&m);
}

/* A good profile: sample type samples/count, main at location 1. */
static void good(struct sp_buf *b)
{
	static const uint64_t ids[] = {1}, vals[] = {5};

	type(b, 1, 2);
	location(b, 1, 1);
	function(b, 1, 3);
	sample(b, ids, 1, vals, 1);
	strings(b);
}

/* Reads b: the return code, and the message in *msg. */
static int read_buf(const struct sp_buf *b, char *msg, size_t size)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_PPROF);
	struct sp_error err = SP_ERROR_INIT;
	int rc = sp_fmt_pprof_read_mem(p, "x.pb", (const uint8_t *)b->buf, b->len, &err);

	snprintf(msg, size, "%s", rc ? err.msg : "");
	sp_profile_free(p);
	return rc;
}

static void expect(const struct sp_buf *b, const char *want)
{
	char msg[SP_ERROR_MSG_MAX];
	int rc = read_buf(b, msg, sizeof(msg));

	CU_ASSERT(rc < 0);
	if (strcmp(msg, want))
		fprintf(stderr, "\n  got  %s\n  want %s\n", msg, want);
	CU_ASSERT_STRING_EQUAL(msg, want);
}

static void test_malformed(void)
{
	static const uint64_t one[] = {1}, nine[] = {9}, big[] = {(uint64_t)INT64_MAX},
			      two[] = {1, 2};
	struct sp_buf b = SP_BUF_INIT;
	char msg[SP_ERROR_MSG_MAX];

	good(&b);
	CU_ASSERT_EQUAL(read_buf(&b, msg, sizeof(msg)), 0);

	/* a length past the end: the last string ("main", its key at 0x33)
	 * claims 100 bytes; the fields added below start at 0x39 */
	b.buf[b.len - 5] = 100;
	expect(&b, "cannot read 'x.pb': not a pprof profile: a field runs past the end of its "
		   "message at offset 0x33");

	sp_buf_reset(&b);
	good(&b);
	sample(&b, nine, 1, one, 1); /* location 9 is not there */
	expect(&b, "cannot read 'x.pb': a sample names a location that is not in the profile at "
		   "offset 0x39");

	sp_buf_reset(&b);
	good(&b);
	location(&b, 2, 4); /* function 4 is not there */
	expect(&b, "cannot read 'x.pb': a line names a function that is not in the profile at "
		   "offset 0x40");

	sp_buf_reset(&b);
	good(&b);
	function(&b, 2, 40); /* name: string 40 of 4 */
	location(&b, 2, 2);
	expect(&b, "cannot read 'x.pb': string index 40 past the table of 4 strings at offset "
		   "0x39");

	sp_buf_reset(&b);
	good(&b);
	location(&b, 1, 1); /* id 1 twice */
	expect(&b, "cannot read 'x.pb': two locations have the same id at offset 0x39");

	sp_buf_reset(&b);
	good(&b);
	sample(&b, one, 1, two, 2); /* two values, one sample type */
	expect(&b, "cannot read 'x.pb': a sample has 2 values for 1 sample types at offset 0x39");

	sp_buf_reset(&b);
	good(&b);
	sample(&b, one, 1, big, 1); /* 5 + 2^63 - 1 */
	expect(&b, "cannot read 'x.pb': sample values add up past 2^63 at offset 0x39");

	sp_buf_reset(&b);
	good(&b);
	sp_pb_put_uint(&b, 4, 1); /* a location as a varint */
	expect(&b, "cannot read 'x.pb': field 4 of a Profile has wire type 0 at offset 0x39");

	sp_buf_reset(&b);
	type(&b, 1, 2);
	sp_pb_put_bytes(&b, 6, "x", 1);
	expect(&b, "cannot read 'x.pb': not a pprof profile: the string table does not start "
		   "with \"\" at offset 0x8");

	sp_buf_reset(&b);
	sp_buf_add(&b, "\x0b\x0c", 2); /* a group */
	expect(&b, "cannot read 'x.pb': not a pprof profile: a field has an invalid wire type at "
		   "offset 0");
	sp_buf_release(&b);
}

int sp_test_register_proto(void)
{
	CU_pSuite s = CU_add_suite("proto", NULL, NULL);

	if (!s || !CU_add_test(s, "gperftools -> proto -> pprof reader", test_round_trip) ||
	    !CU_add_test(s, "malformed messages name the offset", test_malformed))
		return -1;
	return 0;
}
