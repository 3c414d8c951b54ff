/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for the two shapes of a stack profile: a gperftools profile
 * read as a list of stacks (sp_profile.stack_list) holds the same stacks
 * as the calling-context tree read from it, and report/pprof.c prints the
 * same report from either (the CLI asks for the list, so the goldens only
 * see that one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/annotate.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/strtab.h"
#include "symprof/symbolize.h"

#include "pprof.h"

#define HOT(name) SP_FIXTURES_DIR "/gperf/hot/" name

static struct sp_profile *read_gperf(const char *const *paths, size_t n, int list)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GPERF);
	size_t i;

	p->stack_list = list ? 1 : 0;
	for (i = 0; i < n; i++) {
		struct sp_error err = SP_ERROR_INIT;

		CU_ASSERT_FATAL(sp_fmt_gperf_read(p, paths[i], &err) == 0);
	}
	return p;
}

/* One line per stack: "count frame frame ..." (frames as addresses), in
 * the CCT's order or the list's; sorted by the caller. */
static size_t stack_lines(const struct sp_profile *p, char ***out)
{
	char **v = NULL;
	size_t n = 0, i, k;

	for (i = 0; i < p->nstacks; i++) {
		const struct sp_stack *s = &p->stacks[i];
		char *line = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&line, &len);

		fprintf(f, "%lld", (long long)s->count);
		for (k = 0; k < s->depth; k++)
			fprintf(f, " %llx",
				(unsigned long long)p->frames[p->stack_frames[s->first + k]].addr);
		fclose(f);
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = line;
	}
	for (i = 0; i < p->nvalues; i++) {
		char *line = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&line, &len);
		uint32_t node;

		fprintf(f, "%lld", (long long)p->values[i].count);
		for (node = p->values[i].node; node != 0; node = p->nodes[node].parent)
			fprintf(f, " %llx",
				(unsigned long long)p->frames[p->nodes[node].frame].addr);
		fclose(f);
		v = realloc(v, (n + 1) * sizeof(*v));
		v[n++] = line;
	}
	*out = v;
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Orders lines by their stack (what follows the count). */
static int cmp_stack(const void *a, const void *b)
{
	return strcmp(strchr(*(char *const *)a, ' '), strchr(*(char *const *)b, ' '));
}

static void free_lines(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The lines of stack_lines() with equal stacks summed into one, sorted. */
static size_t summed_lines(char **v, size_t n)
{
	size_t i, w = 0;

	qsort(v, n, sizeof(*v), cmp_stack);
	for (i = 0; i < n; i++) {
		if (w && !strcmp(strchr(v[w - 1], ' '), strchr(v[i], ' '))) {
			char *sum = NULL;
			long long c = atoll(v[w - 1]) + atoll(v[i]);
			size_t len = 0;
			FILE *f = open_memstream(&sum, &len);

			fprintf(f, "%lld%s", c, strchr(v[i], ' '));
			fclose(f);
			free(v[w - 1]);
			free(v[i]);
			v[w - 1] = sum;
			continue;
		}
		v[w++] = v[i];
	}
	qsort(v, w, sizeof(*v), cmp_str);
	return w;
}

/*
 * The list and the tree's valued nodes of a profile hold the same stacks
 * with the same counts (a tree's node sums its stack's records, so does
 * the list); with records and distinct given, the tree has that many
 * values and the list that many stacks.
 */
static void expect_same_stacks(const char *path, size_t records, size_t distinct)
{
	struct sp_profile *tree = read_gperf(&path, 1, 0), *list = read_gperf(&path, 1, 1);
	char **a, **b;
	size_t na, nb, listed, i;

	CU_ASSERT(list->nstacks > 0);
	CU_ASSERT(list->nnodes == 0 && list->nvalues == 0);
	CU_ASSERT(tree->nstacks == 0 && tree->nnodes > 1);
	CU_ASSERT_EQUAL(list->nframes, tree->nframes);
	if (records)
		CU_ASSERT_EQUAL(tree->nvalues, records);
	if (distinct)
		CU_ASSERT_EQUAL(list->nstacks, distinct);
	na = stack_lines(tree, &a);
	na = summed_lines(a, na);
	listed = stack_lines(list, &b);
	nb = summed_lines(b, listed);
	CU_ASSERT_EQUAL(nb, listed); /* no stack twice */
	CU_ASSERT_EQUAL(na, nb);
	for (i = 0; i < na && i < nb; i++)
		CU_ASSERT_STRING_EQUAL(a[i], b[i]);
	free_lines(a, na);
	free_lines(b, nb);
	sp_profile_free(tree);
	sp_profile_free(list);
}

static void test_same_stacks(void)
{
	expect_same_stacks(HOT("hot_pie.prof"), 0, 0);
}

/* inline.prof repeats its 33 stacks in 429 records: the list holds each
 * once, its records' counts summed. */
static void test_repeated_stacks(void)
{
	expect_same_stacks(SP_FIXTURES_DIR "/gperf/inline/inline.prof", 429, 33);
	/* 30 stacks in 32 records: the table of stacks grows */
	expect_same_stacks(HOT("hot_pie_1khz.prof"), 32, 30);
}

static char *pprof_text(const char *exe, const char *const *paths, size_t n, int list,
			const struct sp_stack_report_opts *o)
{
	struct sp_profile *p = read_gperf(paths, n, list);
	struct sp_symbolizer_opts so;
	struct sp_symbolizer *s;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	memset(&so, 0, sizeof(so));
	so.exe = exe;
	s = sp_symbolizer_new(&so);
	sp_report_pprof(out, p, s, o);
	fclose(out);
	sp_symbolizer_free(s);
	sp_profile_free(p);
	return text;
}

static void check_pprof(const char *exe, const char *const *paths, size_t n)
{
	int mode;

	for (mode = 0; mode < 3; mode++) {
		struct sp_stack_report_opts o;
		char *tree, *list;

		memset(&o, 0, sizeof(o));
		o.demangle = 1;
		o.cum = mode == 1;
		o.lines = mode == 2;
		tree = pprof_text(exe, paths, n, 0, &o);
		list = pprof_text(exe, paths, n, 1, &o);
		CU_ASSERT_PTR_NOT_NULL(strstr(tree, "Total: "));
		CU_ASSERT_STRING_EQUAL(tree, list);
		free(tree);
		free(list);
	}
}

static void test_pprof_both_shapes(void)
{
	static const char *const two[] = {HOT("hot_pie.prof"), HOT("hot_pie_1khz.prof")};
	static const char *const onecaller[] = {HOT("hot_nopie_onecaller.prof")};

	check_pprof(HOT("hot_pie"), two, 2);
	/* every stack has the same second address: pprof's signal-frame path */
	check_pprof(HOT("hot_nopie"), onecaller, 1);
}

/* The lines a warning hook was handed. */
struct lines {
	char *v[16];
	size_t n;
};

static void keep_line(void *ctx, const char *msg)
{
	struct lines *l = ctx;

	if (l->n < sizeof(l->v) / sizeof(l->v[0]))
		l->v[l->n++] = strdup(msg);
}

static void lines_free(struct lines *l)
{
	while (l->n)
		free(l->v[--l->n]);
}

/* google-pprof's "Removing F from all stack traces." reaches the cli
 * through the hook, in order (the executable's own frames first), and
 * nothing is printed by the renderer itself. */
static void test_pprof_stderr_lines(void)
{
	static const char *const onecaller[] = {HOT("hot_nopie_onecaller.prof")};
	struct lines got = {{0}, 0};
	struct sp_warn_hook hook = {keep_line, &got};
	struct sp_stack_report_opts o;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.demangle = 1;
	o.stderr_lines = &hook;
	free(pprof_text(HOT("hot_nopie"), onecaller, 1, 0, &o));
	CU_ASSERT_FATAL(got.n >= 2);
	CU_ASSERT_STRING_EQUAL(got.v[0], "Removing middle from all stack traces.");
	CU_ASSERT_STRING_EQUAL(got.v[1], "Removing main from all stack traces.");
	for (i = 0; i < got.n; i++) {
		size_t len = strlen(got.v[i]);

		CU_ASSERT(!strncmp(got.v[i], "Removing ", 9));
		CU_ASSERT(len > 30 && !strcmp(got.v[i] + len - 23, " from all stack traces."));
	}
	lines_free(&got);
}

/* -A of a stack profile whose source is not found: the warning goes to
 * the hook, and the lines with samples are still listed. */
static void test_annotate_missing_source(void)
{
	static const char *const path[] = {HOT("hot_nopie.prof")};
	struct sp_profile *p = read_gperf(path, 1, 0);
	struct sp_symbolizer_opts so;
	struct sp_symbolizer *s;
	struct sp_annotate_samples_opts ao;
	struct lines got = {{0}, 0};
	struct sp_warn_hook hook = {keep_line, &got};
	static const char *const nowhere[] = {"/nonexistent-symprof-dir"};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	memset(&so, 0, sizeof(so));
	so.exe = HOT("hot_nopie");
	s = sp_symbolizer_new(&so);
	memset(&ao, 0, sizeof(ao));
	ao.dirs = nowhere;
	ao.ndirs = 1;
	ao.warn = &hook;
	sp_annotate_samples(out, p, s, &ao, 1);
	fclose(out);
	CU_ASSERT_FATAL(got.n >= 1);
	/* the name as DWARF gives it (compile directory "." and "./hot.c") */
	CU_ASSERT_STRING_EQUAL(got.v[0], "warning: cannot find source file '././hot.c'");
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "(source not found)"));
	free(text);
	lines_free(&got);
	sp_symbolizer_free(s);
	sp_profile_free(p);
}

/*
 * The listing google-pprof's nm view is built from, with each name printed
 * on demand (sp_symfile_nm_name()), is `nm -n -C`'s line for line: a C++
 * program's .symtab, and libstdc++'s versioned .dynsym (nm -D). Returns
 * the number of lines compared, -1 if nm cannot run.
 */
static long nm_lines_agree(const char *path, const char *nm_opts)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_symbolizer *s = sp_symbolizer_new(NULL);
	struct sp_symfile *f = sp_symbolizer_open(s, path, &err);
	const struct sp_nm_line *l;
	char cmd[512], line[4096];
	size_t n, i = 0;
	long same = 0;
	FILE *nm;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = sp_symfile_nm(f, &l);
	snprintf(cmd, sizeof(cmd), "nm -n -C --defined-only %s '%s' 2>/dev/null", nm_opts, path);
	if (!(nm = popen(cmd, "r"))) {
		sp_symbolizer_free(s);
		return -1;
	}
	while (fgets(line, sizeof(line), nm)) {
		char *name = strchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		if (!name || !(name = strchr(name + 1, ' ')))
			continue;
		if (i < n && !strcmp(name + 1, sp_symfile_nm_name(f, &l[i])) &&
		    strtoull(line, NULL, 16) == l[i].addr)
			same++;
		i++;
	}
	if (pclose(nm) != 0)
		same = -1;
	else
		CU_ASSERT_EQUAL(i, n);
	sp_symbolizer_free(s);
	return same == (long)n ? same : same < 0 ? -1 : -2;
}

static void test_nm_names(void)
{
	static const char libstdcxx[] = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
	long r = nm_lines_agree(SP_FIXTURES_DIR "/gmon/cxx/cxx", "");

	if (r == -1)
		return; /* no nm */
	CU_ASSERT(r > 100);
	if (access(libstdcxx, R_OK) == 0)
		CU_ASSERT(nm_lines_agree(libstdcxx, "-D") > 1000);
}

/* google-pprof's ShortFunctionName, for the tests to compare with: of
 * each line, untagged and tagged with nm's "<addr>", each without and
 * with --no_strip_temp (four lines out per line in) */
static const char perl_short_name[] =
	"while (<STDIN>) { chomp; for my $t (0, 1) { for my $k (0, 1) {"
	" my $function = $_ . ($t ? \"<0000000000401a2f>\" : \"\");"
	" while ($function =~ s/\\([^()]*\\)(\\s*const)?//g) { }"
	" $function =~ s/<[0-9a-f]*>$//g;"
	" if (!$k) { while ($function =~ s/<[^<>]*>//g) { } }"
	" $function =~ s/^.*\\s+(\\w+::)/$1/; print \"$function\\n\"; } } }";

static void test_short_names(void)
{
	/* what google-pprof's Perl made of each */
	static const char *const cases[][2] = {
		{"main", "main"},
		{"foo(int) const", "foo"},
		{"a(b(c)d)e", "ae"},
		{"x<y<z>>::f(int (*)(char))  const", "x::f"},
		{"void ns::f<int>(std::vector<int, std::allocator<int> > const&)", "ns::f"},
		{"(anonymous namespace)::g()", "::g"},
		{"operator()<3f>", "operator"},
		{"h(<)>", "h>"},
		{"<<>>", ""},
		{"((())) const const", " const"},
		{"f(  const", "f(  const"},
		{"unsigned long std::foo<0ul>::bar() const<abc123>", "std::foo::bar"},
		{"std::map<int, std::pair<a, b> >::find(int const&) const", "std::map::find"},
		{"void (anonymous namespace)::Visit<(anonymous namespace)::Node>(Node*)",
		 "void ::Visit"},
		/* nm's tagged routines: C names lose the tag only */
		{"main<0000000000401136>", "main"},
		{"<0000000000401136>", ""},
		{"f.cold<00000000004010a0>", "f.cold"},
		{"g<ab><00000000004010a0>", "g"},
		{"h<x><0000000000401000>", "h"},
		{"k()<0000000000401000>", "k"},
		{"m<00000000004010A0>", "m"},
		{"n<>", "n"},
		{"n0f>", "n0f>"},
	};
	static const char *const pieces[] = {"(",     ")",  "<",  ">",	"a",
					     "b",     " ",  ":",  "c_", " const",
					     "const", "\t", "0f", "::", "<00000000004010af>"};
	char in_path[] = "/tmp/symprof-short-XXXXXX", line[256], *words[2000];
	struct sp_buf cmd = SP_BUF_INIT;
	struct sp_strtab strs;
	unsigned long seed = 7;
	size_t i, k, n = 2000, same = 0;
	FILE *in, *perl;
	int fd;

	sp_strtab_init(&strs);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CU_ASSERT_STRING_EQUAL(sp_pprof_short_name(&strs, cases[i][0]), cases[i][1]);
	/* --no_strip_temp: nm's tag goes, a template argument of hex digits
	 * stays; addr2line's untagged name loses it as pprof's does */
	CU_ASSERT_STRING_EQUAL(sp_pprof_short_name_tagged(&strs, "spin<1>", 1), "spin<1>");
	CU_ASSERT_STRING_EQUAL(sp_pprof_short_name_tagged(&strs, "sort::<f64>", 1), "sort::<f64>");
	CU_ASSERT_STRING_EQUAL(sp_pprof_short_name_tagged(&strs, "spin<1>", 0), "spin");
	CU_ASSERT_STRING_EQUAL(sp_pprof_short_name_opt(&strs, "spin<1>", 1), "spin");

	/* and random strings of the characters it looks at, against Perl
	 * itself when there is one */
	fd = mkstemp(in_path);
	CU_ASSERT_FATAL(fd >= 0);
	in = fdopen(fd, "w");
	for (i = 0; i < n; i++) {
		struct sp_buf b = SP_BUF_INIT;

		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		for (k = (seed >> 33) % 31; k > 0; k--) {
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			sp_buf_addstr(&b,
				      pieces[(seed >> 33) % (sizeof(pieces) / sizeof(*pieces))]);
		}
		fprintf(in, "%s\n", b.buf ? b.buf : "");
		words[i] = sp_buf_detach(&b, NULL);
		/* pprof-names.c shortens the untagged name of a routine nm
		 * tagged: the same as the tagged name, with or without
		 * template arguments */
		sp_buf_addf(&b, "%s<0000000000401a2f>", words[i] ? words[i] : "");
		for (k = 0; k < 2; k++)
			CU_ASSERT_STRING_EQUAL(sp_pprof_short_name_opt(&strs, b.buf, (int)k),
					       sp_pprof_short_name_tagged(
						       &strs, words[i] ? words[i] : "", (int)k));
		sp_buf_release(&b);
	}
	fclose(in);
	sp_buf_addf(&cmd, "perl -e '%s' < %s", perl_short_name, in_path);
	if (access("/usr/bin/perl", X_OK) == 0) {
		perl = popen(cmd.buf, "r");
		CU_ASSERT_FATAL(perl != NULL);
		for (i = 0; i < 4 * n && fgets(line, sizeof(line), perl); i++) {
			const char *w = words[i / 4] ? words[i / 4] : "";
			int keep = (int)(i % 2);

			line[strcspn(line, "\n")] = '\0';
			same += !strcmp(line, i % 4 >= 2
						      ? sp_pprof_short_name_tagged(&strs, w, keep)
						      : sp_pprof_short_name_opt(&strs, w, keep));
		}
		CU_ASSERT_EQUAL(pclose(perl), 0);
		CU_ASSERT_EQUAL(same, 4 * n);
	}
	sp_buf_release(&cmd);
	unlink(in_path);
	for (i = 0; i < n; i++)
		free(words[i]);
	sp_strtab_release(&strs);
}

/*
 * The executable given stands for the main program whatever the recorded
 * path; when that path still holds another program (another build-id),
 * one warning says the names may be wrong. The real profile of hot_pie,
 * its main object's recorded path pointed at each case's file.
 */
static size_t main_elsewhere_warnings(const char *recorded, struct lines *got)
{
	static const char *const path[] = {HOT("hot_pie.prof")};
	struct sp_profile *p = read_gperf(path, 1, 0);
	struct sp_symbolizer_opts so;
	struct sp_symbolizer *s;
	enum sp_sym_reason why;
	char *abs = realpath(recorded, NULL);
	size_t i, main = SIZE_MAX;

	CU_ASSERT_PTR_NOT_NULL_FATAL(abs);
	for (i = 0; i < p->nobjects; i++)
		if (p->objects[i].is_main)
			main = i;
	CU_ASSERT_FATAL(main != SIZE_MAX);
	p->objects[main].path = abs;
	memset(&so, 0, sizeof(so));
	so.exe = HOT("hot_pie");
	so.warn = keep_line;
	so.warn_ctx = got;
	s = sp_symbolizer_new(&so);
	/* said when a frame of it is placed, not when it is opened */
	CU_ASSERT_PTR_NOT_NULL(sp_symbolizer_object(s, p, (uint32_t)main, &why));
	CU_ASSERT_EQUAL(got->n, 0);
	for (i = 0; i < p->nframes; i++) {
		struct sp_symfile *f;
		uint64_t vaddr;

		if (p->frames[i].map != SP_NONE && p->maps[p->frames[i].map].object == main)
			CU_ASSERT_EQUAL(sp_symbolizer_place(s, p, (uint32_t)i, &f, &vaddr),
					SP_SYM_OK);
	}
	sp_symbolizer_free(s);
	sp_profile_free(p);
	free(abs);
	return got->n;
}

static void test_main_elsewhere(void)
{
	struct lines got = {{0}, 0};
	char copy[256], cmd[1024];

	/* another program at the recorded path */
	CU_ASSERT_EQUAL_FATAL(main_elsewhere_warnings(SP_FIXTURES_DIR "/gperf/cxx/cxx", &got), 1);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(got.v[0], "which the profile recorded and which is another "
				 "program (build-id bea3a686a5cee06027aa86dfe1e2d87a0f637a6d)"));
	lines_free(&got);
	/* the executable itself, and a copy of it (the same build-id) */
	CU_ASSERT_EQUAL(main_elsewhere_warnings(HOT("hot_pie"), &got), 0);
	lines_free(&got);
	snprintf(copy, sizeof(copy), "/tmp/symprof-unit-%ld-hot_pie", (long)getpid());
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", HOT("hot_pie"), copy);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	CU_ASSERT_EQUAL(main_elsewhere_warnings(copy, &got), 0);
	lines_free(&got);
	unlink(copy);
}

int sp_test_register_pprof(void)
{
	CU_pSuite s = CU_add_suite("pprof", NULL, NULL);

	if (!s || !CU_add_test(s, "a profile's stacks as a list and as a tree", test_same_stacks) ||
	    !CU_add_test(s, "a file's repeated stacks listed once", test_repeated_stacks) ||
	    !CU_add_test(s, "nm's listing, names printed on demand", test_nm_names) ||
	    !CU_add_test(s, "ShortFunctionName, as google-pprof's Perl", test_short_names) ||
	    !CU_add_test(s, "google-pprof's report from either shape", test_pprof_both_shapes) ||
	    !CU_add_test(s, "google-pprof's stderr lines through a hook",
			 test_pprof_stderr_lines) ||
	    !CU_add_test(s, "-A: a missing source file through a hook",
			 test_annotate_missing_source) ||
	    !CU_add_test(s, "the executable given for another program's path", test_main_elsewhere))
		return -1;
	return 0;
}
