/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for report/flame.c: flame graphs from a calling-context tree
 * built here (exact: every stack once, inline chains expanded, frames that
 * name nothing skipped), from a call graph (gprof's proportional estimate:
 * totals preserved, cycles as one frame), and the folded text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/cg.h"
#include "symprof/flame.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

static struct sp_symtab *funcs(const char *const *names, size_t n)
{
	struct sp_symtab *t = sp_symtab_new();
	size_t i;

	for (i = 0; i < n; i++) {
		struct sp_symbol *s = sp_symtab_add(t);
		s->name = sp_strtab_intern(&t->strs, names[i]);
		s->is_func = 1;
	}
	return t;
}

/* The node reached from the root by a ';'-separated path, or SP_FLAME_NONE. */
static uint32_t lookup(const struct sp_flame *f, const char *path)
{
	char buf[256], *save = NULL, *tok;
	uint32_t n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		uint32_t c;

		for (c = f->nodes[n].first_child; c != SP_FLAME_NONE; c = f->nodes[c].next_sibling)
			if (!strcmp(f->nodes[c].name, tok))
				break;
		if (c == SP_FLAME_NONE)
			return SP_FLAME_NONE;
		n = c;
	}
	return n;
}

static char *folded(struct sp_flame *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	sp_flame_write_folded(f, out);
	fclose(out);
	return text;
}

/*
 * Frames: 0 main, 1 a, 2 b (inlined into c: expands to "c;b"), 3 an
 * unknown frame (expands to nothing). Stacks, leaf first:
 *   b a main = 5, b b a main = 3 (recursion), b main = 2, main = 1,
 *   a ? main = 4 (the unknown frame is skipped: main;a).
 */
static void test_from_cct(void)
{
	static const char *const names[] = {"main", "a", "b", "c"};
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GPERF);
	struct sp_symtab *t = funcs(names, 4);
	uint32_t first[5] = {0, 1, 2, 4, 4}, fn[4] = {0, 1, 3, 2};
	uint32_t s1[] = {2, 1, 0}, s2[] = {2, 2, 1, 0}, s3[] = {2, 0}, s4[] = {0}, s5[] = {1, 3, 0};
	struct sp_counter c = {"samples", "seconds", 0.01, SP_COUNTER_SUM};
	struct sp_cg_stack_opts o;
	struct sp_flame *f;
	struct sp_cg *cg;
	char *text;
	int i;

	for (i = 0; i < 4; i++) {
		struct sp_frame fr;
		memset(&fr, 0, sizeof(fr));
		fr.addr = (uint64_t)i;
		sp_profile_add_frame(p, &fr);
	}
	sp_profile_add_counter(p, &c);
	sp_profile_add_value(p, sp_profile_cct_insert_leaf_first(p, s1, 3), 0, 5, 5, 0);
	sp_profile_add_value(p, sp_profile_cct_insert_leaf_first(p, s2, 4), 0, 3, 3, 0);
	sp_profile_add_value(p, sp_profile_cct_insert_leaf_first(p, s3, 2), 0, 2, 2, 0);
	sp_profile_add_value(p, sp_profile_cct_insert_leaf_first(p, s4, 1), 0, 1, 1, 0);
	sp_profile_add_value(p, sp_profile_cct_insert_leaf_first(p, s5, 3), 0, 4, 4, 0);
	memset(&o, 0, sizeof(o));
	o.frame_first = first;
	o.frame_funcs = fn;
	o.funcs = t;
	o.hz = 100;
	o.counts_known = 1;

	f = sp_flame_from_cct(p, &o, NULL, "test");
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[0].value, 15, 1e-12);
	CU_ASSERT_STRING_EQUAL(f->unit, "samples");
	CU_ASSERT_STRING_EQUAL(f->dimen, "seconds");
	CU_ASSERT_DOUBLE_EQUAL(f->unit_scale, 0.01, 1e-12);
	CU_ASSERT_FALSE(f->estimated);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main")].value, 15, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main")].self, 1, 1e-12);
	/* a;? merges with a: 5 + 3 + 4 */
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;a")].value, 12, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;a")].self, 4, 1e-12);
	/* the inline chain of frame 2 is c then b */
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;a;c;b")].value, 8, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;a;c;b;c;b")].self, 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;c;b")].self, 2, 1e-12);
	CU_ASSERT_EQUAL(f->max_depth, 6);

	text = folded(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "main 1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "main;a 4\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "main;a;c;b 5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "main;a;c;b;c;b 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "main;c;b 2\n"));
	free(text);

	/* the flame graph and the exact call graph agree on the total */
	cg = sp_cg_from_cct(p, &o, NULL);
	CU_ASSERT_DOUBLE_EQUAL(cg->total_time, f->nodes[0].value, 1e-12);
	sp_cg_free(cg);
	sp_flame_free(f);

	/* names given by the caller; the event count as the value */
	{
		static const char *const shown[] = {"MAIN", "A", "B", "C"};

		o.field = SP_VALUE_COUNT;
		f = sp_flame_from_cct(p, &o, shown, "test");
		CU_ASSERT_NOT_EQUAL(lookup(f, "MAIN;A;C;B"), SP_FLAME_NONE);
		CU_ASSERT_STRING_EQUAL(f->unit, "events");
		CU_ASSERT_DOUBLE_EQUAL(f->nodes[0].value, 15, 1e-12);
		sp_flame_free(f);
	}
	sp_symtab_free(t);
	sp_profile_free(p);
}

static void test_add_stack(void)
{
	static const char *const s1[] = {"main", "x;y", "z"}, *const s2[] = {"main", "x;y"};
	struct sp_flame *f = sp_flame_new("t", "bytes");
	char *text;

	sp_flame_add_stack(f, s1, 3, 2.5);
	sp_flame_add_stack(f, s2, 2, 1);
	sp_flame_add_stack(f, s1, 3, 0.5);
	sp_flame_finish(f);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[0].value, 4, 1e-12);
	CU_ASSERT_EQUAL(f->len, 4);
	text = folded(f);
	/* ';' inside a name cannot separate frames */
	CU_ASSERT_STRING_EQUAL(text, "main;x:y 1\nmain;x:y;z 3\n");
	free(text);
	sp_flame_free(f);
}

/*
 * A call graph by hand: main -> a (3 calls), main -> b (1), a -> c (1),
 * b -> c (3); self times main 1, a 2, b 0, c 8. c's 8 split 2 : 6 between
 * a and b, so main;a = 4, main;a;c = 2, main;b = 6, main;b;c = 6.
 */
static void test_from_cg(void)
{
	static const char *const names[] = {"main", "a", "b", "c"};
	struct sp_symtab *t = funcs(names, 4);
	struct sp_cg *cg = sp_cg_new();
	struct sp_report_opts ro;
	struct sp_report r;
	struct sp_flame *f;
	double self[4] = {1, 2, 0, 8};
	size_t i;

	cg->symtab = t;
	cg->nsyms = cg->nnodes = 4;
	cg->nodes = calloc(5, sizeof(*cg->nodes));
	for (i = 0; i < 4; i++) {
		cg->nodes[i].sym = &t->syms[i];
		cg->nodes[i].parents = cg->nodes[i].children = SP_CG_NONE;
		cg->nodes[i].cyc_head = (uint32_t)i;
		cg->nodes[i].cyc_next = SP_CG_NONE;
		cg->nodes[i].time = self[i];
		cg->total_time += self[i];
	}
	cg->hz = 100;
	snprintf(cg->dimen, sizeof(cg->dimen), "seconds");
	sp_cg_arc_add(cg, 0, 1, 3);
	sp_cg_arc_add(cg, 0, 2, 1);
	sp_cg_arc_add(cg, 1, 3, 1);
	sp_cg_arc_add(cg, 2, 3, 3);
	memset(&ro, 0, sizeof(ro));
	sp_report_init(&r, stdout, cg, &ro);
	f = sp_flame_from_cg(&r, "hand");
	CU_ASSERT_TRUE(f->estimated);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[0].value, 11, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main")].self, 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;a")].value, 4, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;a;c")].value, 2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;b")].value, 6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "main;b;c")].self, 6, 1e-12);
	sp_flame_free(f);

	/* samples outside every function stay in the total */
	cg->total_time += 1;
	f = sp_flame_from_cg(&r, "hand");
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[0].value, 12, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(f->nodes[lookup(f, "[unknown]")].self, 1, 1e-12);
	sp_flame_free(f);
	sp_report_release(&r);
	sp_cg_free(cg);
	sp_symtab_free(t);
}

/* Names with markup, quotes, control bytes and bytes that are not UTF-8
 * still make a well-formed SVG (checked by hand here; the golden tests
 * parse real ones with an XML parser). */
static void test_svg_escaping(void)
{
	static const char *const s1[] = {"main", "op<<(a&b, \"c\")",
					 "bad\xff\xfe\x01"
					 "end"};
	static const char *const s2[] = {"main", "caf\xc3\xa9", "x\xe2\x82"};
	struct sp_flame *f = sp_flame_new("t<&>", "samples");
	char *text = NULL;
	size_t len = 0, i;
	FILE *out = open_memstream(&text, &len);

	sp_flame_add_stack(f, s1, 3, 5);
	sp_flame_add_stack(f, s2, 3, 5);
	sp_flame_write_svg(f, out, NULL);
	fclose(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "op&lt;&lt;(a&amp;b, &quot;c&quot;)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "bad\xef\xbf\xbd\xef\xbf\xbd"
					    "end"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "caf\xc3\xa9"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "Flame graph: t&lt;&amp;&gt;"));
	CU_ASSERT_PTR_NULL(strstr(text, "\xe2\x82\""));
	for (i = 0; i < len; i++)
		if ((unsigned char)text[i] == 0xff || (unsigned char)text[i] == 0x01)
			break;
	CU_ASSERT_EQUAL(i, len);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "data-total=\"10\""));
	free(text);
	sp_flame_free(f);
}

int sp_test_register_flame(void)
{
	CU_pSuite s = CU_add_suite("flame", NULL, NULL);

	if (!s || !CU_add_test(s, "flame graph of a calling-context tree", test_from_cct) ||
	    !CU_add_test(s, "stacks added by name, folded text", test_add_stack) ||
	    !CU_add_test(s, "gprof's estimate from a call graph", test_from_cg) ||
	    !CU_add_test(s, "SVG of awkward names", test_svg_escaping))
		return -1;
	return 0;
}
