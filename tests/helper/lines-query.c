/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lines-query: checks the query tables of symbolize/lines.c against the
 * full table.
 *
 * A test tool, not part of symprof. For each ELF file given, it builds the
 * full line table (sp_linetab_new_lenient) and a query table
 * (sp_linetab_new_query) for a set of addresses: every symbol's address
 * (what gprof asks for), the bytes around it and in its middle, the start
 * of every line row and the byte before it (sampled on large files), and a
 * few others. Every address must get the same answer from both tables:
 * both none, or the same interned file name and the same line. The query
 * table must also say it answers each asked address, and not others.
 *
 *   lines-query ELF...
 *
 * Exit status: 0 if all agreed, 1 on any difference, 2 on errors, 77 if a
 * file has no DWARF at all (nothing to compare).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include "lines.h"
#include "symprof/error.h"
#include "symprof/strtab.h"

#define MAX_PRINT 20
#define MAX_ROWS 100000 /* row starts asked about, at most */

struct addrs {
	uint64_t *v;
	size_t n, alloc;
};

static void add(struct addrs *a, uint64_t x)
{
	if (a->n == a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 1024;
		a->v = realloc(a->v, a->alloc * sizeof(*a->v));
		if (!a->v) {
			perror("lines-query");
			exit(2);
		}
	}
	a->v[a->n++] = x;
}

/* Every symbol's address, the bytes around it and its middle. */
static void add_symbols(struct addrs *a, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			GElf_Sym sym;

			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value)
				continue;
			add(a, sym.st_value);
			add(a, sym.st_value - 1);
			add(a, sym.st_value + 1);
			add(a, sym.st_value + sym.st_size / 2);
		}
	}
}

/* Row starts and the bytes before them: where answers change. */
static void add_rows(struct addrs *a, const struct sp_linetab *full)
{
	const struct sp_line *rows;
	size_t n = sp_linetab_rows(full, &rows), step = n / MAX_ROWS + 1, i;

	for (i = 0; i < n; i += step) {
		add(a, rows[i].addr);
		add(a, rows[i].addr - 1);
	}
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;

	return (x > y) - (x < y);
}

static int asked(const struct addrs *a, uint64_t x)
{
	return bsearch(&x, a->v, a->n, sizeof(*a->v), cmp_u64) != NULL;
}

/* Compares both tables at every asked address; the number of differences. */
static long compare(const char *path, const struct sp_linetab *full, const struct sp_linetab *q,
		    const struct addrs *a)
{
	long bad = 0, found = 0;
	size_t i;

	for (i = 0; i < a->n; i++) {
		uint64_t x = a->v[i];
		const struct sp_line *f = sp_linetab_find(full, x), *l;

		if (!sp_linetab_answers(q, x)) {
			if (bad++ < MAX_PRINT)
				printf("%s: %#llx: asked, but the query table does not answer\n",
				       path, (unsigned long long)x);
			continue;
		}
		l = sp_linetab_find(q, x);
		found += f != NULL;
		if ((!f && !l) || (f && l && f->file == l->file && f->line == l->line))
			continue;
		if (bad++ < MAX_PRINT)
			printf("%s: %#llx: full %s:%u, query %s:%u\n", path, (unsigned long long)x,
			       f ? f->file : "-", f ? f->line : 0, l ? l->file : "-",
			       l ? l->line : 0);
	}
	/* an address nobody asked about is not answered */
	for (i = 0; i < a->n; i++)
		if (!asked(a, a->v[i] + 2) && sp_linetab_answers(q, a->v[i] + 2)) {
			if (bad++ < MAX_PRINT)
				printf("%s: %#llx: not asked, but answered\n", path,
				       (unsigned long long)(a->v[i] + 2));
			break;
		}
	printf("%s: %zu addresses, %ld with a line, %ld differences\n", path, a->n, found, bad);
	return bad;
}

static int check_file(const char *path)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_strtab strs = SP_STRTAB_INIT;
	struct sp_linetab *full = NULL, *q = NULL;
	struct addrs a = {NULL, 0, 0};
	int fd = open(path, O_RDONLY), ret = 2;
	Elf *elf = NULL;
	Dwarf *dw = NULL;

	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL))) {
		fprintf(stderr, "lines-query: cannot read '%s': %s\n", path,
			fd < 0 ? strerror(errno) : elf_errmsg(-1));
		goto out;
	}
	if (!(dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL))) {
		printf("%s: no DWARF\n", path);
		ret = 77;
		goto out;
	}
	if (!(full = sp_linetab_new_lenient(dw, &strs, &err))) {
		fprintf(stderr, "lines-query: '%s': %s\n", path, err.msg);
		goto out;
	}
	add(&a, 0);
	add(&a, UINT64_MAX);
	add_symbols(&a, elf);
	add_rows(&a, full);
	/* the query table sorts and merges repeats itself: hand them over */
	if (!(q = sp_linetab_new_query(dw, &strs, a.v, a.n, &err))) {
		fprintf(stderr, "lines-query: '%s': %s\n", path, err.msg);
		goto out;
	}
	qsort(a.v, a.n, sizeof(*a.v), cmp_u64);
	ret = compare(path, full, q, &a) ? 1 : 0;
out:
	sp_linetab_free(q);
	sp_linetab_free(full);
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	sp_strtab_release(&strs);
	free(a.v);
	return ret;
}

int main(int argc, char **argv)
{
	int i, worst = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: lines-query ELF...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	for (i = 1; i < argc; i++) {
		int r = check_file(argv[i]);

		if (r == 2 || (r == 1 && worst != 2) || (r == 77 && !worst))
			worst = r;
	}
	return worst;
}
