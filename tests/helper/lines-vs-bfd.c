/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lines-vs-bfd: checks symbolize/lines.c and dwarf-funcs.c against libbfd.
 *
 * A test tool, not part of symprof. For each ELF file given, it asks both
 * libbfd (bfd_find_nearest_line, as gprof does) and sp_linetab_find() for
 * the file and line of every address of .text, one byte at a time, and
 * prints every difference. bfd's "no file" and "line 0" count as no answer,
 * as they do for gprof. Then, for a sample of addresses, it compares the
 * inline chains with what `addr2line -f -i` prints: bfd_find_nearest_line
 * then bfd_find_inliner_info until it fails, each address on a freshly
 * opened bfd (bfd caches names between lookups, addr2line with a single
 * address does not).
 *
 *   lines-vs-bfd [-v] [-l] [-s SAMPLES] [-t] ELF...
 *
 * -s sets the number of sampled addresses for inline chains (default 300,
 * 0 = none, -1 = every address); -t prints timings (table build, lookups
 * per second); -v prints every compared chain; -l walks the DIEs through
 * libdw (sp_dwfuncs_set_libdw_walk()). Exit status: 0 if all
 * agreed, 1 on any mismatch, 2 on errors.
 */
#define PACKAGE "symprof-tests"
#define PACKAGE_VERSION "0"
#include <bfd.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "dwarf-funcs.h"
#include "dwarf-partial.h"
#include "lines.h"
#include "symprof/error.h"
#include "symprof/strtab.h"

#define MAX_PRINT 40
#define MAX_FRAMES 64

struct opts {
	long samples;
	int timing, verbose;
};

struct bfdfile {
	bfd *abfd;
	asymbol **syms;
	asection *text;
};

struct ours {
	int fd;
	Elf *elf, *memelf; /* memelf: inflated here, as symprof reads the file */
	struct sp_partial whole;
	Dwarf *dw;
	struct sp_strtab strs;
	struct sp_linetab *lines;
	struct sp_dwfuncs *funcs;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The symbols addr2line uses: the static table, else the dynamic one. */
static asymbol **slurp_symtab(bfd *abfd)
{
	long storage, count;
	int dynamic = 0;
	asymbol **syms;

	if (!(bfd_get_file_flags(abfd) & HAS_SYMS))
		return NULL;
	storage = bfd_get_symtab_upper_bound(abfd);
	if (storage == 0) {
		storage = bfd_get_dynamic_symtab_upper_bound(abfd);
		dynamic = 1;
	}
	if (storage < 0)
		return NULL;
	syms = malloc((size_t)storage);
	count = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, syms)
			: bfd_canonicalize_symtab(abfd, syms);
	if (count == 0 && !dynamic && (storage = bfd_get_dynamic_symtab_upper_bound(abfd)) > 0) {
		free(syms);
		syms = malloc((size_t)storage);
		count = bfd_canonicalize_dynamic_symtab(abfd, syms);
	}
	if (count <= 0) {
		free(syms);
		return NULL;
	}
	return syms;
}

static int bfd_open_file(struct bfdfile *b, const char *path)
{
	memset(b, 0, sizeof(*b));
	b->abfd = bfd_openr(path, NULL);
	if (b->abfd)
		b->abfd->flags |= BFD_DECOMPRESS; /* as gprof and addr2line do */
	if (!b->abfd || !bfd_check_format(b->abfd, bfd_object)) {
		fprintf(stderr, "lines-vs-bfd: cannot open '%s' with bfd: %s\n", path,
			bfd_errmsg(bfd_get_error()));
		if (b->abfd)
			bfd_close(b->abfd);
		return -1;
	}
	b->syms = slurp_symtab(b->abfd);
	b->text = bfd_get_section_by_name(b->abfd, ".text");
	return 0;
}

static void bfd_close_file(struct bfdfile *b)
{
	free(b->syms);
	if (b->abfd)
		bfd_close(b->abfd);
}

static int ours_open(struct ours *o, const char *path, const struct opts *op)
{
	struct sp_error err = SP_ERROR_INIT;
	double t0, t1, t2;

	memset(o, 0, sizeof(*o));
	sp_strtab_init(&o->strs);
	o->fd = open(path, O_RDONLY);
	elf_version(EV_CURRENT);
	if (o->fd >= 0 && (o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL)) &&
	    sp_partial_whole(&o->whole, o->elf) == 0)
		o->memelf = elf_memory((char *)o->whole.image, o->whole.size);
	if (o->fd < 0 ||
	    !(o->dw = dwarf_begin_elf(o->memelf ? o->memelf : o->elf, DWARF_C_READ, NULL))) {
		fprintf(stderr, "lines-vs-bfd: cannot read DWARF of '%s': %s\n", path,
			o->fd < 0 ? strerror(errno) : dwarf_errmsg(-1));
		return -1;
	}
	t0 = now();
	o->lines = sp_linetab_new_lenient(o->dw, &o->strs, &err);
	t1 = now();
	if (o->lines)
		o->funcs = sp_dwfuncs_new(o->dw, o->lines, &o->strs, &err);
	t2 = now();
	if (!o->lines || !o->funcs) {
		fprintf(stderr, "lines-vs-bfd: '%s': %s\n", path, err.msg);
		return -1;
	}
	if (sp_linetab_warning(o->lines))
		printf("%s: warning: %s\n", path, sp_linetab_warning(o->lines));
	if (op->timing) {
		const struct sp_line *rows;

		printf("%s: first build: line table (%zu rows) %.2f ms, functions %.2f ms\n", path,
		       sp_linetab_rows(o->lines, &rows), (t1 - t0) * 1e3, (t2 - t1) * 1e3);
	}
	return 0;
}

/* Best of several builds, on fresh Dwarf handles and string tables. */
static void time_builds(const char *path, int fd)
{
	double best_l = 1e9, best_f = 1e9;
	int rep;

	for (rep = 0; rep < 7; rep++) {
		struct sp_error err = SP_ERROR_INIT;
		struct sp_strtab strs = SP_STRTAB_INIT;
		Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
		struct sp_linetab *t;
		struct sp_dwfuncs *f;
		double t0, t1, t2;

		t0 = now();
		t = sp_linetab_new_lenient(dw, &strs, &err);
		t1 = now();
		f = t ? sp_dwfuncs_new(dw, t, &strs, &err) : NULL;
		t2 = now();
		best_l = t1 - t0 < best_l ? t1 - t0 : best_l;
		best_f = t2 - t1 < best_f ? t2 - t1 : best_f;
		sp_dwfuncs_free(f);
		sp_linetab_free(t);
		sp_strtab_release(&strs);
		dwarf_end(dw);
	}
	printf("%s: best of 7 builds: line table %.2f ms, functions %.2f ms\n", path, best_l * 1e3,
	       best_f * 1e3);
}

static void ours_close(struct ours *o)
{
	sp_dwfuncs_free(o->funcs);
	sp_linetab_free(o->lines);
	if (o->dw)
		dwarf_end(o->dw);
	if (o->memelf)
		elf_end(o->memelf);
	if (o->elf)
		elf_end(o->elf);
	sp_partial_release(&o->whole);
	if (o->fd >= 0)
		close(o->fd);
	sp_strtab_release(&o->strs);
}

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

/* ---- line table: every address of .text ---- */

static long compare_lines(const char *path, struct bfdfile *b, struct ours *o)
{
	bfd_vma vma = bfd_section_vma(b->text), size = bfd_section_size(b->text), off;
	long bad = 0, answered = 0;

	for (off = 0; off < size; off++) {
		const char *file = NULL, *func = NULL;
		unsigned line = 0;
		const struct sp_line *l = sp_linetab_find(o->lines, vma + off);
		int found =
			bfd_find_nearest_line(b->abfd, b->text, b->syms, off, &file, &func, &line);

		if (!found || !file || !line)
			file = NULL, line = 0;
		answered += file != NULL;
		if ((!file && !l) || (file && l && !strcmp(file, l->file) && line == l->line))
			continue;
		if (bad++ < MAX_PRINT)
			printf("%s: %#llx: bfd %s:%u, symprof %s:%u\n", path,
			       (unsigned long long)(vma + off), str_or(file, "??"), line,
			       l ? l->file : "??", l ? l->line : 0);
	}
	printf("%s: lines: %llu addresses, %ld with a line, %ld mismatches\n", path,
	       (unsigned long long)size, answered, bad);
	return bad;
}

/* Lookups per second, over random and over ascending addresses of .text. */
static void time_lookups(const char *path, struct bfdfile *b, struct ours *o)
{
	bfd_vma vma = bfd_section_vma(b->text), size = bfd_section_size(b->text);
	size_t n = 1u << 20, i, pass;
	uint64_t *addrs = malloc(n * sizeof(*addrs)), x = 88172645463325252ull;
	unsigned long sum = 0;

	for (pass = 0; pass < 2; pass++) {
		const char *order = pass ? "ascending" : "random";
		double t0, t1, t2, best_l = 1e9, best_f = 1e9;
		int rep;

		for (i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			addrs[i] = vma + (pass ? i * size / n : x % size);
		}
		for (rep = 0; rep < 5; rep++) {
			t0 = now();
			for (i = 0; i < n; i++) {
				const struct sp_line *l = sp_linetab_find(o->lines, addrs[i]);

				sum += l ? l->line : 0;
			}
			t1 = now();
			for (i = 0; i < n; i++) {
				struct sp_inline_frame fr[MAX_FRAMES];

				sum += sp_dwfuncs_find(o->funcs, addrs[i], fr, MAX_FRAMES);
			}
			t2 = now();
			best_l = t1 - t0 < best_l ? t1 - t0 : best_l;
			best_f = t2 - t1 < best_f ? t2 - t1 : best_f;
		}
		printf("%s: %s addresses: %.1f M line lookups/s, %.1f M inline-chain lookups/s\n",
		       path, order, (double)n / best_l * 1e-6, (double)n / best_f * 1e-6);
	}
	printf("%s: (checksum %lu)\n", path, sum);
	free(addrs);
}

/* ---- inline chains: a sample of addresses, each on a fresh bfd ---- */

struct chain {
	const char *name[MAX_FRAMES], *file[MAX_FRAMES];
	unsigned line[MAX_FRAMES];
	size_t n;
};

/* What addr2line -f -i prints for one address, as a chain of frames. */
static int bfd_chain(const char *path, bfd_vma addr, struct chain *c)
{
	struct bfdfile b;
	const char *file = NULL, *func = NULL;
	unsigned line = 0;

	c->n = 0;
	if (bfd_open_file(&b, path) < 0)
		return -1;
	if (bfd_find_nearest_line(b.abfd, b.text, b.syms, addr - bfd_section_vma(b.text), &file,
				  &func, &line)) {
		do {
			c->name[c->n] = func ? strdup(func) : NULL;
			c->file[c->n] = file ? strdup(file) : NULL;
			c->line[c->n++] = line;
		} while (c->n < MAX_FRAMES && bfd_find_inliner_info(b.abfd, &file, &func, &line));
	}
	bfd_close_file(&b);
	return 0;
}

static void chain_free(struct chain *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free((char *)c->name[i]);
		free((char *)c->file[i]);
	}
}

static int streq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void print_chain(const char *who, const struct chain *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		printf("    %s %s%s at %s:%u\n", who, i ? "(inlined by) " : "",
		       str_or(c->name[i], "??"), str_or(c->file[i], "??"), c->line[i]);
	if (!c->n)
		printf("    %s (nothing)\n", who);
}

/*
 * Our chain for addr: frames from sp_dwfuncs_find(), or with no DWARF
 * function, what bfd falls back to: the ELF symbol and the line table.
 */
static void our_chain(struct ours *o, uint64_t addr, struct chain *c)
{
	struct sp_inline_frame fr[MAX_FRAMES];
	size_t i;

	c->n = sp_dwfuncs_find(o->funcs, addr, fr, MAX_FRAMES);
	for (i = 0; i < c->n; i++) {
		c->name[i] = fr[i].name;
		c->file[i] = fr[i].file;
		c->line[i] = fr[i].line;
	}
	if (!c->n) {
		const struct sp_line *l = sp_linetab_find_any(o->lines, addr);

		c->name[0] = sp_dwfuncs_symbol(o->funcs, addr);
		c->file[0] = l ? l->file : NULL;
		c->line[0] = l ? l->line : 0;
		c->n = c->name[0] || l;
	}
}

/*
 * Frame 0's file may come from an STT_FILE symbol when DWARF has none, and
 * then its line is 0: gprof ignores such answers, so compare the file of
 * frame 0 only when bfd gives a line.
 */
static int chains_equal(const struct chain *a, const struct chain *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		if (!streq(a->name[i], b->name[i]) || a->line[i] != b->line[i])
			return 0;
		if ((i > 0 || a->line[i]) && !streq(a->file[i], b->file[i]))
			return 0;
	}
	return 1;
}

static long compare_chains(const char *path, struct bfdfile *b, struct ours *o, long samples,
			   int verbose)
{
	bfd_vma vma = bfd_section_vma(b->text), size = bfd_section_size(b->text);
	long bad = 0, k, n = samples < 0 || (bfd_vma)samples > size ? (long)size : samples;
	long inlined = 0;

	for (k = 0; k < n; k++) {
		uint64_t addr = vma + (n == (long)size ? (bfd_vma)k : (bfd_vma)k * 7919 % size);
		struct chain want, got;

		if (bfd_chain(path, addr, &want) < 0)
			return bad + 1;
		our_chain(o, addr, &got);
		inlined += want.n > 1;
		if (!chains_equal(&want, &got) || verbose) {
			int same = chains_equal(&want, &got);

			if (!same)
				bad++;
			if (!same || verbose) {
				printf("%s: %#llx: inline chain %s\n", path,
				       (unsigned long long)addr, same ? "ok" : "differs");
				print_chain("bfd    ", &want);
				print_chain("symprof", &got);
			}
		}
		chain_free(&want);
	}
	printf("%s: inline chains: %ld addresses, %ld inlined, %ld mismatches\n", path, n, inlined,
	       bad);
	return bad;
}

static int check_file(const char *path, const struct opts *op)
{
	struct bfdfile b;
	struct ours o;
	long bad = 0;

	if (bfd_open_file(&b, path) < 0)
		return 2;
	if (!b.text) {
		fprintf(stderr, "lines-vs-bfd: '%s' has no .text\n", path);
		bfd_close_file(&b);
		return 2;
	}
	if (ours_open(&o, path, op) < 0) {
		ours_close(&o);
		bfd_close_file(&b);
		return 2;
	}
	bad += compare_lines(path, &b, &o);
	if (op->samples)
		bad += compare_chains(path, &b, &o, op->samples, op->verbose);
	if (op->timing) {
		time_builds(path, o.fd);
		time_lookups(path, &b, &o);
	}
	ours_close(&o);
	bfd_close_file(&b);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct opts op = {300, 0, 0};
	int i, status = 0;

	bfd_init();
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-t"))
			op.timing = 1;
		else if (!strcmp(argv[i], "-v"))
			op.verbose = 1;
		else if (!strcmp(argv[i], "-l"))
			sp_dwfuncs_set_libdw_walk(1);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			op.samples = strtol(argv[++i], NULL, 10);
		else
			break;
	}
	if (i == argc) {
		fprintf(stderr, "usage: lines-vs-bfd [-v] [-t] [-l] [-s SAMPLES] ELF...\n");
		return 2;
	}
	for (; i < argc; i++) {
		int r = check_file(argv[i], &op);

		if (r > status)
			status = r;
	}
	return status;
}
