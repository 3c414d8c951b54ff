/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for core/: arena, strtab, buf, sort, pairmap, profile, error, SP_BUG, worker. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/mfile.h"
#include "symprof/pbwire.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/strtab.h"
#include "symprof/worker.h"

static void test_arena(void)
{
	struct sp_arena a = SP_ARENA_INIT;
	char *big, *s;
	int i;

	for (i = 0; i < 10000; i++) {
		uint64_t *p = sp_arena_alloc(&a, 24);
		CU_ASSERT_EQUAL((uintptr_t)p % 16, 0);
		*p = (uint64_t)i;
	}
	big = sp_arena_alloc(&a, 1 << 20);
	memset(big, 1, 1 << 20);
	s = sp_arena_strdup(&a, "hello");
	CU_ASSERT_STRING_EQUAL(s, "hello");
	CU_ASSERT(a.total >= 10000 * 32 + (1 << 20));
	sp_arena_release(&a);
	CU_ASSERT_PTR_NULL(a.head);
}

static void test_strtab(void)
{
	struct sp_strtab t = SP_STRTAB_INIT;
	const char *a = sp_strtab_intern(&t, "main");
	const char *b;
	char name[32];
	int i;

	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		sp_strtab_intern(&t, name);
	}
	b = sp_strtab_intern_n(&t, "mainly", 4);
	CU_ASSERT_PTR_EQUAL(a, b);
	CU_ASSERT_PTR_NOT_NULL(sp_strtab_find(&t, "f4999", 5));
	CU_ASSERT_PTR_NULL(sp_strtab_find(&t, "f5000", 5));
	CU_ASSERT_EQUAL(t.count, 5001);
	/* every name still found after the table grew (slots keep half the
	 * hash, which must still place them) */
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		b = sp_strtab_find(&t, name, strlen(name));
		if (!b || strcmp(b, name) || sp_strtab_intern(&t, name) != b)
			break;
	}
	CU_ASSERT_EQUAL(i, 5000);
	CU_ASSERT_EQUAL(t.count, 5001);
	sp_strtab_release(&t);
}

static void count_release(void *ctx)
{
	(*(int *)ctx)++;
}

/* Adopted strings are the table's own: found, answered by interning, kept
 * where they are, and their holder released with the table. */
static void test_strtab_adopt(void)
{
	static const char block[] = "main\0f0\0";
	struct sp_strtab t = SP_STRTAB_INIT, u = SP_STRTAB_INIT;
	char name[32];
	int released = 0, i;

	CU_ASSERT_EQUAL_FATAL(sp_strtab_adopt_begin(&t, 3002), 0);
	sp_strtab_keep(&t, count_release, &released);
	sp_strtab_adopt(&t, block, 4, sp_strtab_hash(block, 4));
	sp_strtab_adopt(&t, block + 5, 2, sp_strtab_hash(block + 5, 2));
	CU_ASSERT_EQUAL(t.count, 2);
	CU_ASSERT_PTR_EQUAL(sp_strtab_intern(&t, "main"), block);
	CU_ASSERT_PTR_EQUAL(sp_strtab_find(&t, "f0", 2), block + 5);
	CU_ASSERT_PTR_EQUAL(sp_strtab_intern_hashed(&t, "f0", 2, sp_strtab_hash("f0", 2)),
			    block + 5);
	/* the table grows past what was reserved and still finds them */
	for (i = 1; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		sp_strtab_intern(&t, name);
	}
	CU_ASSERT_PTR_EQUAL(sp_strtab_intern(&t, "main"), block);
	CU_ASSERT_PTR_EQUAL(sp_strtab_intern(&t, "f0"), block + 5);
	CU_ASSERT_EQUAL(t.count, 5001);
	/* a table that holds strings adopts none */
	CU_ASSERT_EQUAL(sp_strtab_adopt_begin(&t, 1), -1);
	CU_ASSERT_EQUAL(released, 0);
	sp_strtab_release(&t);
	CU_ASSERT_EQUAL(released, 1);
	sp_strtab_intern(&u, "x");
	CU_ASSERT_EQUAL(sp_strtab_adopt_begin(&u, 1), -1);
	sp_strtab_release(&u);
}

static void test_buf(void)
{
	struct sp_buf b = SP_BUF_INIT;
	char *s;
	size_t len;

	CU_ASSERT_STRING_EQUAL(b.buf, "");
	sp_buf_addstr(&b, "abc");
	sp_buf_addf(&b, "%05d|%s", 42, "x");
	sp_buf_addchars(&b, '-', 3);
	CU_ASSERT_STRING_EQUAL(b.buf, "abc00042|x---");
	sp_buf_setlen(&b, 2);
	CU_ASSERT_STRING_EQUAL(b.buf, "ab");
	s = sp_buf_detach(&b, &len);
	CU_ASSERT_EQUAL(len, 2);
	CU_ASSERT_STRING_EQUAL(b.buf, "");
	free(s);
	sp_buf_release(&b);
}

struct kv {
	int key, seq;
};

static int cmp_kv(const void *a, const void *b, void *ctx)
{
	const struct kv *x = a, *y = b;
	(void)ctx;
	return (x->key > y->key) - (x->key < y->key);
}

static void test_sort_stable(void)
{
	struct kv v[1000];
	int i, ok = 1;

	srand(7);
	for (i = 0; i < 1000; i++) {
		v[i].key = rand() % 17;
		v[i].seq = i;
	}
	sp_sort(v, 1000, sizeof(v[0]), cmp_kv, NULL);
	for (i = 1; i < 1000; i++)
		if (v[i - 1].key > v[i].key ||
		    (v[i - 1].key == v[i].key && v[i - 1].seq > v[i].seq))
			ok = 0;
	CU_ASSERT(ok);
}

static uint64_t pm_keys[3000][2];

static void pm_key(const void *ctx, uint32_t v, uint64_t *k1, uint64_t *k2)
{
	(void)ctx;
	*k1 = pm_keys[v][0];
	*k2 = pm_keys[v][1];
}

/* Every element size path (4, 8, generic, indirect) against a simple
 * stable insertion sort, with many equal keys. */
struct wide {
	int key, seq;
	char pad[40];
};

static int cmp_wide(const void *a, const void *b, void *ctx)
{
	const struct wide *x = a, *y = b;
	(void)ctx;
	return (x->key > y->key) - (x->key < y->key);
}

static int cmp_u32(const void *a, const void *b, void *ctx)
{
	uint32_t x = *(const uint32_t *)a >> 16, y = *(const uint32_t *)b >> 16;
	(void)ctx;
	return (x > y) - (x < y);
}

static void test_sort_sizes(void)
{
	static struct wide w[777], ref[777];
	static uint32_t u[999], uref[999];
	int i, j, ok = 1;

	srand(11);
	for (i = 0; i < 777; i++) {
		w[i].key = rand() % 23;
		w[i].seq = i;
		memset(w[i].pad, i & 0x7f, sizeof(w[i].pad));
	}
	memcpy(ref, w, sizeof(w));
	for (i = 1; i < 777; i++) {
		struct wide x = ref[i];
		for (j = i; j > 0 && ref[j - 1].key > x.key; j--)
			ref[j] = ref[j - 1];
		ref[j] = x;
	}
	sp_sort(w, 777, sizeof(w[0]), cmp_wide, NULL);
	for (i = 0; i < 777; i++)
		if (w[i].key != ref[i].key || w[i].seq != ref[i].seq ||
		    w[i].pad[5] != (ref[i].seq & 0x7f))
			ok = 0;
	CU_ASSERT(ok);
	for (i = 0; i < 999; i++)
		u[i] = (uint32_t)(rand() % 13) << 16 | (uint32_t)i;
	memcpy(uref, u, sizeof(u));
	for (i = 1; i < 999; i++) {
		uint32_t x = uref[i];
		for (j = i; j > 0 && (uref[j - 1] >> 16) > (x >> 16); j--)
			uref[j] = uref[j - 1];
		uref[j] = x;
	}
	sp_sort(u, 999, sizeof(u[0]), cmp_u32, NULL);
	CU_ASSERT(!memcmp(u, uref, sizeof(u)));
}

static int cmp_rk(const void *a, const void *b, void *ctx)
{
	const struct sp_keyed *x = a, *y = b;
	(void)ctx;
	return (x->key > y->key) - (x->key < y->key);
}

/* The radix sort equals the stable merge sort: keys with constant bytes
 * (no pass), bytes that vary, and many equal keys (stability). */
static void test_radix_sort(void)
{
	static struct sp_keyed v[3000], tmp[3000], ref[3000];
	const struct sp_keyed *out;
	uint64_t x = 99;
	int i, ok = 1;

	for (i = 0; i < 3000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		/* bytes 7 and 2 constant; 200 distinct keys in all */
		v[i].key = UINT64_C(0x4200000000000000) | ((x >> 40) % 200) << 24 | 0xab0000 |
			   ((x >> 50) % 2) << 40;
		v[i].idx = (uint32_t)i;
	}
	memcpy(ref, v, sizeof(v));
	sp_sort(ref, 3000, sizeof(ref[0]), cmp_rk, NULL);
	out = sp_sort_keyed(v, 3000, tmp);
	for (i = 0; i < 3000; i++)
		if (out[i].key != ref[i].key || out[i].idx != ref[i].idx)
			ok = 0;
	CU_ASSERT(ok);
	CU_ASSERT_PTR_EQUAL(sp_sort_keyed(v, 1, tmp), v);
}

static int cmp_named(const void *a, const void *b, void *ctx)
{
	const struct sp_named *x = a, *y = b;

	(void)ctx;
	return strcmp(x->name, y->name);
}

/* The name sort equals a stable merge sort by strcmp(): names sharing
 * prefixes of 7, 8, 9 and 16 bytes, equal names (stability), bytes above
 * 0x7f, the empty name, short lists and long ones (radix passes). */
static void test_sort_names(void)
{
	static const char *const pieces[] = {
		"",	   "a",	       "ns::",	    "ns::Klass", "ns::Klass::", "\xc3\xa9",
		"zzzzzzz", "zzzzzzzz", "zzzzzzzzz", "_Z3fooIiE", "0",		"A"};
	static struct sp_named v[2000], tmp[2000], ref[2000];
	static char names[2000][64];
	size_t sizes[] = {0, 1, 7, 255, 256, 2000}, k, i;
	uint64_t x = 7;

	for (i = 0; i < 2000; i++) {
		size_t j, parts;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		names[i][0] = '\0';
		for (parts = (x >> 60) % 5, j = 0; j < parts; j++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			strcat(names[i], pieces[(x >> 33) % (sizeof(pieces) / sizeof(*pieces))]);
		}
	}
	for (k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		size_t n = sizes[k];
		int ok = 1;

		for (i = 0; i < n; i++) {
			v[i].name = names[i];
			v[i].idx = (uint32_t)i;
		}
		memcpy(ref, v, n * sizeof(*v));
		sp_sort(ref, n, sizeof(*ref), cmp_named, NULL);
		sp_sort_names(v, n, tmp);
		for (i = 0; i < n; i++)
			if (v[i].idx != ref[i].idx)
				ok = 0;
		CU_ASSERT(ok);
	}
}

static void test_pairmap(void)
{
	struct sp_pairmap m;
	uint32_t i;

	sp_pairmap_init(&m, pm_key, NULL);
	for (i = 0; i < 3000; i++) {
		pm_keys[i][0] = i;
		pm_keys[i][1] = (uint64_t)i * 7;
		CU_ASSERT_EQUAL(sp_pairmap_put(&m, i, (uint64_t)i * 7, i), i);
	}
	CU_ASSERT_EQUAL(sp_pairmap_put(&m, 5, 35, 99), 5);
	CU_ASSERT_EQUAL(sp_pairmap_get(&m, 2999, 2999 * 7), 2999);
	CU_ASSERT_EQUAL(sp_pairmap_get(&m, 1, 1), UINT32_MAX);
	sp_pairmap_release(&m);
}

static void test_profile_sums(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	uint32_t st[3] = {30, 20, 10}, st2[2] = {21, 10}, n1, n2, n3;

	sp_profile_add_pcarc(p, 0x10, 0x20, 5);
	sp_profile_add_pcarc(p, 0x11, 0x20, 1);
	sp_profile_add_pcarc(p, 0x10, 0x20, 7);
	CU_ASSERT_EQUAL(p->npcarcs, 2);
	CU_ASSERT_EQUAL(p->pcarcs[0].count, 12);
	sp_profile_add_bbcount(p, 0x40, 3);
	sp_profile_add_bbcount(p, 0x40, 4);
	CU_ASSERT_EQUAL(p->nbbs, 1);
	CU_ASSERT_EQUAL(p->bbs[0].count, 7);
	CU_ASSERT_PTR_EQUAL(sp_profile_findnew_hist(p, 0, 100, 25),
			    sp_profile_findnew_hist(p, 0, 100, 25));
	n1 = sp_profile_cct_insert_leaf_first(p, st, 3);
	n2 = sp_profile_cct_insert_leaf_first(p, st, 3);
	n3 = sp_profile_cct_insert_leaf_first(p, st2, 2);
	CU_ASSERT_EQUAL(n1, n2);
	CU_ASSERT_NOT_EQUAL(n1, n3);
	CU_ASSERT_EQUAL(p->nodes[n1].depth, 3);
	CU_ASSERT_EQUAL(p->nodes[p->nodes[n3].parent].frame, 10);
	CU_ASSERT_EQUAL(p->nnodes, 5); /* root, 10, 20, 30, 21 */
	sp_profile_free(p);
}

/* Appends records and sums them as a reader does at the end of a file. */
static void append(struct sp_profile *p, const uint64_t (*r)[3], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct sp_pcarc a;

		a.from_pc = r[i][0];
		a.self_pc = r[i][1];
		a.count = r[i][2];
		sp_profile_append_pcarcs(p, &a, 1);
	}
	sp_profile_sum_pcarcs(p);
}

static int has_arcs(const struct sp_profile *p, const uint64_t (*r)[3], size_t n)
{
	size_t i;

	if (p->npcarcs != n)
		return 0;
	for (i = 0; i < n; i++)
		if (p->pcarcs[i].from_pc != r[i][0] || p->pcarcs[i].self_pc != r[i][1] ||
		    p->pcarcs[i].count != r[i][2])
			return 0;
	return 1;
}

/* Equal (from, self) pairs are summed onto their first record, and the
 * records that stay keep their order: in glibc's order (by call site)
 * with a repeat inside a call site's run, in no order at all, across
 * files, and with a call site of more callees than the one-pass check
 * takes. */
static void test_pcarc_sums(void)
{
	static const uint64_t by_site[][3] = {
		{0x10, 0x100, 1}, {0x20, 0x300, 2}, {0x20, 0x200, 3},
		{0x20, 0x300, 4}, {0x30, 0x100, 5},
	};
	static const uint64_t by_site_sum[][3] = {
		{0x10, 0x100, 1},
		{0x20, 0x300, 6},
		{0x20, 0x200, 3},
		{0x30, 0x100, 5},
	};
	static const uint64_t shuffled[][3] = {
		{0x30, 0x100, 1}, {0x10, 0x100, 2}, {0x30, 0x100, 3},
		{0x20, 0x200, 4}, {0x10, 0x100, 5},
	};
	static const uint64_t shuffled_sum[][3] = {
		{0x30, 0x100, 4},
		{0x10, 0x100, 7},
		{0x20, 0x200, 4},
	};
	static const uint64_t again[][3] = {{0x20, 0x200, 10}, {0x40, 0x100, 1}};
	static const uint64_t again_sum[][3] = {
		{0x30, 0x100, 4},
		{0x10, 0x100, 7},
		{0x20, 0x200, 14},
		{0x40, 0x100, 1},
	};
	static uint64_t wide[100][3], wide_sum[99][3];
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	size_t i;

	append(p, by_site, 5);
	CU_ASSERT(has_arcs(p, by_site_sum, 4));
	sp_profile_free(p);
	p = sp_profile_new(SP_PROFILE_GMON);
	append(p, shuffled, 5);
	CU_ASSERT(has_arcs(p, shuffled_sum, 3));
	append(p, again, 2);
	CU_ASSERT(has_arcs(p, again_sum, 4));
	sp_profile_free(p);
	/* one call site, 99 callees, the last one twice */
	for (i = 0; i < 100; i++) {
		wide[i][0] = 0x50;
		wide[i][1] = i < 99 ? 0x1000 - 8 * i : 0x1000 - 8 * 98;
		wide[i][2] = i + 1;
		if (i < 99)
			memcpy(wide_sum[i], wide[i], sizeof(wide[i]));
	}
	wide_sum[98][2] += 100;
	p = sp_profile_new(SP_PROFILE_GMON);
	append(p, (const uint64_t(*)[3])wide, 99);
	CU_ASSERT(has_arcs(p, (const uint64_t(*)[3])wide_sum, 99) == 0); /* not summed yet */
	append(p, (const uint64_t(*)[3])wide + 99, 1);
	CU_ASSERT(has_arcs(p, (const uint64_t(*)[3])wide_sum, 99));
	sp_profile_free(p);
}

/* A histogram keeps the bins that are not 0, in order, with their sums. */
static void test_hist_nonzero(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	struct sp_hist *h = sp_profile_findnew_hist(p, 0, 400, 100);
	const uint32_t idx1[] = {3, 50, 97}, cnt1[] = {1, 0, 2};
	const uint32_t idx2[] = {0, 3, 60, 99}, cnt2[] = {5, 1, 1, 7};
	const uint32_t bins[] = {0, 3, 60, 97, 99}, sums[] = {5, 2, 1, 2, 7};
	size_t k;

	sp_profile_hist_add(h, idx1, cnt1, 3);
	CU_ASSERT_EQUAL_FATAL(h->nnonzero, 2);
	CU_ASSERT(h->nonzero[0] == 3 && h->nonzero[1] == 97);
	sp_profile_hist_add(h, idx2, cnt2, 4);
	CU_ASSERT_EQUAL_FATAL(h->nnonzero, 5);
	for (k = 0; k < 5; k++)
		CU_ASSERT(h->nonzero[k] == bins[k] && h->counts[k] == sums[k]);
	CU_ASSERT(sp_hist_find(h, 0) == 0 && sp_hist_find(h, 4) == 2 && sp_hist_find(h, 97) == 3 &&
		  sp_hist_find(h, 100) == 5);
	sp_profile_free(p);
}

static void test_error(void)
{
	struct sp_error err = SP_ERROR_INIT;
	int r = sp_error_set(&err, SP_E_TRUNCATED,
			     "cannot read '%s': histogram truncated at offset %#x", "gmon.out",
			     0x14);

	CU_ASSERT_EQUAL(r, -SP_E_TRUNCATED);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "cannot read 'gmon.out': histogram truncated at offset 0x14");
	CU_ASSERT_STRING_EQUAL(sp_error_str(SP_E_TRUNCATED), "file is truncated");
}

static void test_cursor(void)
{
	const uint8_t data[] = {1, 2, 3, 4, 5};
	struct sp_cursor c;
	uint64_t v;

	sp_cursor_init(&c, data, sizeof(data), 0);
	CU_ASSERT_EQUAL(sp_cursor_uint(&c, 4, &v), 0);
	CU_ASSERT_EQUAL(v, 0x04030201);
	CU_ASSERT_EQUAL(sp_cursor_uint(&c, 2, &v), -1);
	CU_ASSERT_EQUAL(sp_cursor_off(&c), 4);
	sp_cursor_init(&c, data, sizeof(data), 1);
	CU_ASSERT_EQUAL(sp_cursor_uint(&c, 2, &v), 0);
	CU_ASSERT_EQUAL(v, 0x0102);
}

/* The protobuf wire format: what is written reads back, and every kind
 * of malformed field is refused where it starts. */
static void test_pbwire(void)
{
	static const uint64_t packed[] = {0, 1, 127, 128, UINT64_MAX};
	struct sp_buf b = SP_BUF_INIT;
	struct sp_pb_reader r, sub;
	struct sp_pb_field f;
	const uint8_t *p, *end;
	uint64_t v;
	size_t i;

	sp_pb_put_varint(&b, 300);
	CU_ASSERT_EQUAL(b.len, 2);
	CU_ASSERT_EQUAL((uint8_t)b.buf[0], 0xac);
	CU_ASSERT_EQUAL((uint8_t)b.buf[1], 0x02);
	sp_buf_reset(&b);
	sp_pb_put_uint(&b, 1, UINT64_MAX); /* 10 bytes of value */
	sp_pb_put_uint_nz(&b, 2, 0);	   /* left out */
	sp_pb_put_bytes(&b, 3, "abc", 3);
	sp_pb_put_packed(&b, 4, packed, 5);
	sp_pb_put_packed(&b, 5, packed, 0); /* left out */
	CU_ASSERT_EQUAL(b.len, 1 + 10 + 1 + 1 + 3 + 1 + 1 + (1 + 1 + 1 + 2 + 10));
	sp_pb_reader_init(&r, (const uint8_t *)b.buf, b.len);
	CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_OK);
	CU_ASSERT(f.field == 1 && f.wire == SP_PB_VARINT && f.num == UINT64_MAX);
	CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_OK);
	CU_ASSERT(f.field == 3 && f.wire == SP_PB_LEN && f.len == 3 && !memcmp(f.data, "abc", 3));
	CU_ASSERT_EQUAL(f.offset, 11);
	CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_OK);
	CU_ASSERT(f.field == 4 && f.len == 15);
	sp_pb_reader_sub(&sub, &r, &f);
	CU_ASSERT_EQUAL(sp_pb_offset(&sub), 18);
	p = f.data;
	end = f.data + f.len;
	for (i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(sp_pb_read_varint(&p, end, &v), SP_PB_OK);
		CU_ASSERT_EQUAL(v, packed[i]);
	}
	CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_END);

	/* a length past the end, a cut varint, 11-byte varint, groups, field 0 */
	{
		static const uint8_t len_past[] = {0x1a, 0x05, 'a'};
		static const uint8_t cut[] = {0x08, 0x80};
		static const uint8_t longv[] = {0x08, 0x80, 0x80, 0x80, 0x80, 0x80,
						0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
		static const uint8_t group[] = {0x0b, 0x0c};
		static const uint8_t zero[] = {0x00, 0x01};
		static const uint8_t fixed[] = {0x09, 1, 2, 3};

		sp_pb_reader_init(&r, len_past, sizeof(len_past));
		CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_TRUNCATED);
		CU_ASSERT_EQUAL(sp_pb_offset(&r), 0);
		sp_pb_reader_init(&r, cut, sizeof(cut));
		CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_TRUNCATED);
		sp_pb_reader_init(&r, longv, sizeof(longv));
		CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_BAD_VARINT);
		sp_pb_reader_init(&r, group, sizeof(group));
		CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_BAD_WIRE);
		sp_pb_reader_init(&r, zero, sizeof(zero));
		CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_BAD_FIELD);
		sp_pb_reader_init(&r, fixed, sizeof(fixed));
		CU_ASSERT_EQUAL(sp_pb_next(&r, &f), SP_PB_TRUNCATED);
	}
	sp_buf_release(&b);
}

/* Per-node sums of a tree root -> a -> b, root -> c, with two values at
 * b: added or maxed, at the node and over its subtree; other counters and
 * fields apart. */
static void test_node_sums(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GPERF);
	uint32_t root = sp_profile_cct_root(p), a = sp_profile_cct_child(p, root, 0),
		 b = sp_profile_cct_child(p, a, 1), c = sp_profile_cct_child(p, root, 2);
	int64_t self[4], sub[4], *v;

	sp_profile_add_value(p, b, 0, 1, 5, 9);
	sp_profile_add_value(p, b, 0, 2, 7, 9);
	sp_profile_add_value(p, a, 0, 1, 3, 3);
	sp_profile_add_value(p, c, 0, 4, 6, 6);
	sp_profile_add_value(p, c, 1, 100, 100, 100);
	CU_ASSERT_EQUAL_FATAL(p->nnodes, 4);
	sp_profile_node_sums(p, 0, SP_PICK_VALUE, 0, self, sub);
	CU_ASSERT(self[root] == 0 && self[a] == 3 && self[b] == 12 && self[c] == 6);
	CU_ASSERT(sub[root] == 21 && sub[a] == 15 && sub[b] == 12 && sub[c] == 6);
	sp_profile_node_sums(p, 0, SP_PICK_VALUE, SP_SUM_MAX, self, sub);
	CU_ASSERT(self[b] == 7 && sub[a] == 7 && sub[root] == 7);
	sp_profile_node_sums(p, 0, SP_PICK_COUNT, 0, self, NULL);
	CU_ASSERT(self[b] == 3 && self[c] == 4);
	v = sp_profile_node_values(p, 1, SP_PICK_PEAK);
	CU_ASSERT(v[c] == 100 && v[b] == 0);
	free(v);
	sp_profile_free(p);
}

/* SP_BUG() names the file and line, then aborts (in a child). */
static void test_bug(void)
{
	int fds[2], status = 0;
	char msg[512] = "";
	size_t len;
	ssize_t n;
	pid_t pid;

	CU_ASSERT_FATAL(pipe(fds) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		signal(SIGABRT, SIG_DFL);
		SP_BUG("broken %d", 42);
	}
	close(fds[1]);
	for (len = 0; len < sizeof(msg) - 1; len += (size_t)n)
		if ((n = read(fds[0], msg + len, sizeof(msg) - 1 - len)) <= 0)
			break;
	close(fds[0]);
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	CU_ASSERT(!strncmp(msg, "symprof: BUG: ", 14));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "test-core.c:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, ": broken 42\n"));
}

static void add_one(void *job)
{
	(*(int *)job)++;
}

/* A worker runs its job once, by the join; with threads off none starts
 * (the owner does the work) and joining NULL is nothing. */
static void test_worker(void)
{
	int n = 0;
	struct sp_worker *w = sp_worker_start(add_one, &n);

	CU_ASSERT_PTR_NOT_NULL(w);
	sp_worker_join(w);
	CU_ASSERT_EQUAL(n, 1);
	sp_workers_enable(0);
	CU_ASSERT_FALSE(sp_workers_enabled());
	CU_ASSERT_PTR_NULL(sp_worker_start(add_one, &n));
	sp_worker_join(NULL);
	CU_ASSERT_EQUAL(n, 1);
	sp_workers_enable(1);
	CU_ASSERT_TRUE(sp_workers_enabled());
}

/* Minor page faults of this process so far. */
static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* Minor faults taken while writing a byte in each page of p. */
static long faults_writing(unsigned char *p, size_t size)
{
	long before = minor_faults();
	size_t i;

	for (i = 0; i < size; i += 4096)
		p[i] = (unsigned char)(i >> 12);
	return minor_faults() - before;
}

/* A prefaulted block is written without a fault per page: far fewer
 * faults than the same block written cold (a sanitizer's shadow memory
 * faults in both). */
static void test_prefault(void)
{
	size_t size = (size_t)8 << 20, i;
	unsigned char *p =
		mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *cold =
		mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char small[100];
	long cold_faults;

	CU_ASSERT_EQUAL(sp_prefault(small, sizeof(small)), -1); /* too small to bother */
	CU_ASSERT_FATAL(p != MAP_FAILED && cold != MAP_FAILED);
	cold_faults = faults_writing(cold, size);
	CU_ASSERT(cold_faults >= 1024); /* 2,048 pages, unless the kernel maps huge ones */
	if (sp_prefault(p, size) == 0) {
		CU_ASSERT(faults_writing(p, size) < cold_faults / 4);
	} else {
		faults_writing(p, size);
	}
	for (i = 0; i < size; i += 4096)
		if (p[i] != (unsigned char)(i >> 12))
			break;
	CU_ASSERT_EQUAL(i, size);
	munmap(p, size);
	munmap(cold, size);
}

int sp_test_register_core(void)
{
	CU_pSuite s = CU_add_suite("core", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "arena", test_arena) || !CU_add_test(s, "strtab", test_strtab) ||
	    !CU_add_test(s, "strtab: adopted strings", test_strtab_adopt) ||
	    !CU_add_test(s, "buf", test_buf) ||
	    !CU_add_test(s, "sort is stable", test_sort_stable) ||
	    !CU_add_test(s, "sort: every element size", test_sort_sizes) ||
	    !CU_add_test(s, "radix sort", test_radix_sort) ||
	    !CU_add_test(s, "names sorted as by strcmp", test_sort_names) ||
	    !CU_add_test(s, "pairmap", test_pairmap) ||
	    !CU_add_test(s, "profile sums repeats", test_profile_sums) ||
	    !CU_add_test(s, "pc arcs summed in first-occurrence order", test_pcarc_sums) ||
	    !CU_add_test(s, "histogram keeps the bins that are not 0", test_hist_nonzero) ||
	    !CU_add_test(s, "error", test_error) || !CU_add_test(s, "cursor", test_cursor) ||
	    !CU_add_test(s, "prefaulted blocks", test_prefault) ||
	    !CU_add_test(s, "protobuf wire format", test_pbwire))
		return -1;
	if (!CU_add_test(s, "worker: started, joined, or off", test_worker) ||
	    !CU_add_test(s, "SP_BUG names the place and aborts", test_bug) ||
	    !CU_add_test(s, "node sums: self, subtree, maxima", test_node_sums))
		return -1;
	return 0;
}
