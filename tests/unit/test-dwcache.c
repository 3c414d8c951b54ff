/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for symbolize/dwcache.c, the index cache: tables loaded from
 * it answer every address of a fixture as the tables built from its DWARF
 * do (line rows, inline chains, ELF symbols, units), and a cache file is
 * used only when it can be trusted: a missing, truncated, corrupt or
 * foreign one (other build-id, other DWARF file or modification time,
 * other build of symprof, other format) is a miss, never a crash, and
 * the next store replaces it. The golden tests run every gperftools,
 * IgProf and symbolizer case through a cache as well (cache/ in ctest).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include <elfutils/libdw.h>
#include <libelf.h>

#include "dwarf-funcs.h"
#include "dmcache.h"
#include "dwarf-partial.h"
#include "dwcache.h"
#include "lines.h"
#include "nmcache.h"
#include "suites.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/strtab.h"
#include "symprof/symbolize.h"
#include "symprof/worker.h"

#define FIX(name) SP_FIXTURES_DIR "/symbolize/" name

static const uint8_t fake_id[] = {0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04};

/* Tables built from a fixture's DWARF. */
struct built {
	int fd;
	Elf *elf;
	Dwarf *dw;
	struct sp_strtab strs;
	struct sp_linetab *lines;
	struct sp_dwfuncs *funcs;
};

static int build(struct built *b, const char *path)
{
	struct sp_error err = SP_ERROR_INIT;

	memset(b, 0, sizeof(*b));
	sp_strtab_init(&b->strs);
	elf_version(EV_CURRENT);
	b->fd = open(path, O_RDONLY);
	if (b->fd < 0 || !(b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL)) ||
	    !(b->dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL)))
		return -1;
	b->lines = sp_linetab_new_lenient(b->dw, &b->strs, &err);
	if (!b->lines)
		return -1;
	b->funcs = sp_dwfuncs_new(b->dw, b->lines, &b->strs, &err);
	return b->funcs ? 0 : -1;
}

static void unbuild(struct built *b)
{
	sp_dwfuncs_free(b->funcs);
	sp_linetab_free(b->lines);
	if (b->dw)
		dwarf_end(b->dw);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	sp_strtab_release(&b->strs);
}

static void add_s(struct sp_buf *o, const char *s)
{
	sp_buf_addstr(o, s ? s : "(null)");
	sp_buf_addch(o, '|');
}

/* Everything the tables say about addr, as text. */
static void describe(struct sp_buf *o, const struct sp_linetab *lines, struct sp_dwfuncs *funcs,
		     uint64_t addr)
{
	struct sp_inline_frame fr[16];
	const struct sp_line *l = sp_linetab_find_any(lines, addr);
	const char *file = NULL;
	size_t n = sp_dwfuncs_find(funcs, addr, fr, 16), i;

	sp_buf_addf(o, "%llx %zu|", (unsigned long long)addr, n);
	for (i = 0; i < n; i++) {
		int linkage, inlined;

		add_s(o, fr[i].name);
		add_s(o, fr[i].file);
		add_s(o, sp_dwfuncs_fn_name(funcs, fr[i].fn, &linkage, &inlined));
		sp_buf_addf(o, "%u %u %d %d|", fr[i].line, fr[i].fn, linkage, inlined);
	}
	if (l) {
		add_s(o, l->file);
		sp_buf_addf(o, "%llx %u %u %u %u|", (unsigned long long)l->addr, l->line, l->column,
			    l->discriminator, l->is_stmt);
	}
	add_s(o, sp_dwfuncs_symbol_file(funcs, addr, &file));
	add_s(o, file);
	sp_buf_addf(o, "%u %u\n", sp_linetab_unit_at(lines, addr),
		    sp_dwfuncs_outer_at(funcs, addr));
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/sp-dwcache-XXXXXX";
	char *d = mkdtemp(tmpl);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	return strdup(d);
}

static void rm_rf(const char *dir)
{
	struct sp_buf b = SP_BUF_INIT;

	sp_buf_addf(&b, "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(b.buf), 0);
	sp_buf_release(&b);
}

/* The loaded tables answer every address as the built ones. */
static void test_same_answers(void)
{
	static const char *const fixtures[] = {FIX("c-O2-dw5-pie"),	   FIX("cxx-O2-dw4-nopie"),
					       FIX("clang-cxx-O2-dw5-fs"), FIX("c-O2-dw4-gz"),
					       FIX("c-O2-dw4-zgnu"),	   FIX("c-O0-gc-big")};
	char *dir = tmpdir();
	size_t k;

	for (k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		struct sp_dwcache_key key = {fake_id, sizeof(fake_id), fixtures[k], 0};
		struct sp_buf want = SP_BUF_INIT, got = SP_BUF_INIT;
		struct sp_strtab strs = SP_STRTAB_INIT;
		struct sp_dwcache_hit hit;
		struct sp_partial units;
		const struct sp_line *rows;
		struct built b;
		uint64_t lo, hi, a;
		size_t nrows;

		if (build(&b, fixtures[k]) < 0) {
			CU_FAIL("cannot read the fixture");
			unbuild(&b);
			continue;
		}
		sp_dwcache_store(dir, &key, b.lines, b.funcs, NULL);
		CU_ASSERT_EQUAL_FATAL(sp_dwcache_load(dir, &key, &strs, 1, &hit, &units), 0);
		CU_ASSERT_FALSE(hit.partial);
		nrows = sp_linetab_rows(b.lines, &rows);
		CU_ASSERT_FATAL(nrows > 2);
		lo = rows[0].addr > 256 ? rows[0].addr - 256 : 0;
		hi = rows[nrows - 1].addr + 256;
		for (a = lo; a < hi; a++) {
			describe(&want, b.lines, b.funcs, a);
			describe(&got, hit.lines, hit.funcs, a);
		}
		CU_ASSERT_STRING_EQUAL(want.buf, got.buf);
		CU_ASSERT_PTR_EQUAL(sp_linetab_warning(hit.lines) != NULL,
				    sp_linetab_warning(b.lines) != NULL);
		sp_buf_release(&want);
		sp_buf_release(&got);
		sp_dwfuncs_free(hit.funcs);
		sp_linetab_free(hit.lines);
		sp_strtab_release(&strs);
		unbuild(&b);
	}
	rm_rf(dir);
	free(dir);
}

/*
 * Every name a loaded table answers with is its string table's: interning
 * it again gives the same pointer (adopted from the file where the table
 * was empty, interned where it was not), whichever of the table and the
 * string table goes first.
 */
static int names_interned(struct sp_dwfuncs *funcs, struct sp_strtab *strs, size_t *n)
{
	struct sp_dwfuncs_parts p;
	size_t i;

	sp_dwfuncs_get_parts(funcs, &p);
	*n = p.nfns;
	for (i = 0; i < p.nfns; i++)
		if (p.fns[i].name && sp_strtab_intern(strs, p.fns[i].name) != p.fns[i].name)
			return 0;
	for (i = 0; i < p.nsyms; i++)
		if (p.sym_name[i] && sp_strtab_intern(strs, p.sym_name[i]) != p.sym_name[i])
			return 0;
	return 1;
}

static void test_adopted_strings(void)
{
	char *dir = tmpdir();
	struct sp_dwcache_key key = {fake_id, sizeof(fake_id), FIX("cxx-O2-dw4-nopie"), 0};
	struct built b;
	int round;

	CU_ASSERT_EQUAL_FATAL(build(&b, key.dwarf_path), 0);
	sp_dwcache_store(dir, &key, b.lines, b.funcs, NULL);
	for (round = 0; round < 4; round++) {
		struct sp_strtab strs = SP_STRTAB_INIT;
		struct sp_dwcache_hit hit;
		struct sp_partial units;
		const char *seeded = NULL;
		size_t nfns = 0;

		/* rounds 2, 3: the table already holds a name, so it copies */
		if (round >= 2)
			seeded = sp_strtab_intern(&strs, "main");
		CU_ASSERT_EQUAL_FATAL(sp_dwcache_load(dir, &key, &strs, 1, &hit, &units), 0);
		CU_ASSERT(names_interned(hit.funcs, &strs, &nfns));
		CU_ASSERT(nfns > 10);
		if (seeded)
			CU_ASSERT_PTR_EQUAL(sp_strtab_intern(&strs, "main"), seeded);
		/* odd rounds: the strings go before the tables that point into
		 * the same mapped file */
		if (round % 2)
			sp_strtab_release(&strs);
		sp_dwfuncs_free(hit.funcs);
		sp_linetab_free(hit.lines);
		sp_partial_release(&units);
		if (!(round % 2))
			sp_strtab_release(&strs);
	}
	unbuild(&b);
	rm_rf(dir);
	free(dir);
}

/* ---- what is not trusted ---- */

struct blob {
	uint8_t *data;
	size_t size;
};

static struct blob slurp(const char *path)
{
	struct blob b = {NULL, 0};
	FILE *f = fopen(path, "rb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	b.size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	b.data = malloc(b.size + 1);
	CU_ASSERT_EQUAL(fread(b.data, 1, b.size, f), b.size);
	fclose(f);
	return b;
}

static void spit(const char *path, const uint8_t *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, n, f), n);
	fclose(f);
}

/* sp_dwcache_load()'s answer, used as `how` says (SP_DWCACHE_ADOPT: the
 * rows decoded as lookups reach them; 0: a table about to be unpacked,
 * as for addr2line). */
static int loads_how(const char *dir, const struct sp_dwcache_key *key, unsigned how)
{
	struct sp_strtab strs = SP_STRTAB_INIT;
	struct sp_dwcache_hit hit;
	struct sp_partial units;
	int r = sp_dwcache_load(dir, key, &strs, how, &hit, &units);

	if (r == 0) {
		sp_dwfuncs_free(hit.funcs);
		sp_linetab_free(hit.lines);
		sp_partial_release(&units);
	}
	sp_strtab_release(&strs);
	return r;
}

static int loads(const char *dir, const struct sp_dwcache_key *key)
{
	return loads_how(dir, key, SP_DWCACHE_ADOPT);
}

static int loads_whole(const char *dir, const struct sp_dwcache_key *key)
{
	return loads_how(dir, key, 0);
}

/* The length of a cache file's checksummed part, which its checksum
 * follows: in an index or a symbol table, the line records and their
 * length then end the file; the other files end with the checksum. */
static size_t checked_len(const struct blob *b)
{
	uint64_t records_len;

	if (memcmp(b->data, "SPDWIDX\n", 8) && memcmp(b->data, "SPSYMTB\n", 8))
		return b->size - 8;
	memcpy(&records_len, b->data + b->size - 8, 8);
	return b->size - 16 - (size_t)records_len;
}

/* Writes the blob with byte i changed, and the checksum made right again
 * when `fix`: only the header's check can then refuse it. */
static void damage(const char *path, const struct blob *b, size_t i, int fix)
{
	uint8_t *d = malloc(b->size);
	size_t n = checked_len(b);
	uint64_t sum;

	memcpy(d, b->data, b->size);
	d[i] ^= 0x20;
	if (fix) {
		sum = sp_dwcache_checksum(d, n);
		memcpy(d + n, &sum, 8);
	}
	spit(path, d, b->size);
	free(d);
}

/* ---- the symbol cache (tables of files without DWARF) ---- */

/* What the table says at each symbol's address and around it, as text. */
static void describe_syms(struct sp_buf *o, const struct sp_dwfuncs *ref,
			  const struct sp_dwfuncs *f, struct sp_strtab *strs)
{
	const uint64_t *segs, *syms;
	size_t nsegs, nsyms, i;
	int d;

	sp_dwfuncs_change_points(ref, &segs, &nsegs, &syms, &nsyms);
	for (i = 0; i < nsyms; i++)
		for (d = -1; d <= 1; d++) {
			const char *file = NULL, *name;
			uint64_t at = 0;

			name = sp_dwfuncs_symbol_file(f, syms[i] + (uint64_t)d, &file);
			sp_dwfuncs_symbol_addr(f, syms[i] + (uint64_t)d, &at);
			add_s(o, name);
			add_s(o, file);
			sp_buf_addf(o, "%llx\n", (unsigned long long)at);
			/* answered names are the table's strings */
			if (strs && name && sp_strtab_intern(strs, name) != name)
				sp_buf_addstr(o, "NOT INTERNED\n");
		}
}

static struct sp_dwfuncs *syms_loaded(const char *dir, const struct sp_dwcache_key *key,
				      struct sp_strtab *strs)
{
	return sp_dwcache_load_syms(dir, key, strs);
}

static void test_symbol_cache(void)
{
	char *dir = tmpdir();
	struct sp_buf copy_path = SP_BUF_INIT, want = SP_BUF_INIT, got = SP_BUF_INIT;
	struct sp_strtab strs0 = SP_STRTAB_INIT;
	struct sp_dwcache_key key = {fake_id, sizeof(fake_id), NULL, 0};
	struct sp_dwfuncs *ref, *f;
	struct sp_dwfuncs_parts parts;
	struct blob good;
	struct stat st;
	struct timespec times[2];
	char *path;
	Elf *elf;
	int fd, round;
	size_t i;

	/* a copy of a C++ fixture, whose mtime can be changed */
	good = slurp(FIX("cxx-O2-dw4-nopie"));
	sp_buf_addf(&copy_path, "%s/prog", dir);
	spit(copy_path.buf, good.data, good.size);
	free(good.data);
	key.dwarf_path = copy_path.buf;
	elf_version(EV_CURRENT);
	fd = open(key.dwarf_path, O_RDONLY);
	CU_ASSERT_FATAL(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(elf);
	ref = sp_dwfuncs_new_syms(elf, &strs0);
	sp_dwfuncs_get_parts(ref, &parts);
	CU_ASSERT_FATAL(parts.nsyms > 10);
	describe_syms(&want, ref, ref, NULL);

	CU_ASSERT_PTR_NULL(syms_loaded(dir, &key, &strs0)); /* missing */
	sp_dwcache_store_syms(dir, &key, ref);
	for (round = 0; round < 2; round++) {
		struct sp_strtab strs = SP_STRTAB_INIT;

		f = syms_loaded(dir, &key, &strs);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		sp_buf_reset(&got);
		describe_syms(&got, ref, f, &strs);
		CU_ASSERT_STRING_EQUAL(want.buf, got.buf);
		for (i = 0; i < parts.naliases; i++)
			if (parts.aliases[i].name)
				CU_ASSERT(sp_dwfuncs_has_alias(f, parts.aliases[i].addr,
							       parts.aliases[i].name));
		/* the names stay in the mapped file, held by strs: release
		 * either first */
		if (round)
			sp_strtab_release(&strs);
		sp_dwfuncs_free(f);
		if (!round)
			sp_strtab_release(&strs);
	}

	/* damaged, truncated, or the file touched since: not trusted */
	path = sp_dwcache_file_path(dir, fake_id, sizeof(fake_id), ".sym");
	good = slurp(path);
	for (i = 0; i < good.size; i += good.size / 61 + 1) {
		struct sp_strtab strs = SP_STRTAB_INIT;

		damage(path, &good, i, 0);
		f = syms_loaded(dir, &key, &strs);
		CU_ASSERT_PTR_NULL(f);
		sp_dwfuncs_free(f);
		spit(path, good.data, i);
		f = syms_loaded(dir, &key, &strs);
		CU_ASSERT_PTR_NULL(f);
		sp_dwfuncs_free(f);
		sp_strtab_release(&strs);
	}
	spit(path, good.data, good.size);
	CU_ASSERT_EQUAL(stat(key.dwarf_path, &st), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	times[1].tv_sec -= 10;
	CU_ASSERT_EQUAL(utimensat(AT_FDCWD, key.dwarf_path, times, 0), 0);
	CU_ASSERT_PTR_NULL(syms_loaded(dir, &key, &strs0));

	free(good.data);
	free(path);
	sp_dwfuncs_free(ref);
	elf_end(elf);
	close(fd);
	sp_strtab_release(&strs0);
	sp_buf_release(&want);
	sp_buf_release(&got);
	sp_buf_release(&copy_path);
	rm_rf(dir);
	free(dir);
}

static void test_untrusted(void)
{
	char *dir = tmpdir();
	struct sp_dwcache_key key = {fake_id, sizeof(fake_id), FIX("c-O2-dw5-pie"), 0};
	uint8_t other_id[sizeof(fake_id)];
	struct sp_dwcache_key other = key;
	struct built b;
	struct blob good;
	char *path, *other_path, *profile_path;
	size_t i, self_at;
	struct stat st;
	struct timespec times[2];
	struct sp_buf copy_path = SP_BUF_INIT;
	const char *copy;
	const uint8_t *at;

	CU_ASSERT_EQUAL_FATAL(build(&b, key.dwarf_path), 0);
	good = slurp(key.dwarf_path);
	sp_buf_addf(&copy_path, "%s/copy", dir);
	copy = copy_path.buf;
	spit(copy, good.data, good.size);
	free(good.data);
	path = sp_dwcache_path(dir, &key);
	CU_ASSERT_EQUAL(loads(dir, &key), -1); /* missing */
	sp_dwcache_store(dir, &key, b.lines, b.funcs, NULL);
	CU_ASSERT_EQUAL(loads(dir, &key), 0); /* hit */
	good = slurp(path);

	/* a flipped byte anywhere, a truncated file, an empty one, garbage
	 * (a line record's: the load of a table about to be unpacked checks
	 * them all; see test_damaged_rows() for the others) */
	for (i = 0; i < good.size; i += good.size / 97 + 1) {
		damage(path, &good, i, 0);
		if (i < checked_len(&good) + 8 || i >= good.size - 8)
			CU_ASSERT_EQUAL(loads(dir, &key), -1);
		CU_ASSERT_EQUAL(loads_whole(dir, &key), -1);
	}
	CU_ASSERT_PTR_NULL(sp_image_cache_damage());
	for (i = 0; i < good.size; i += good.size / 31 + 1) {
		spit(path, good.data, i);
		CU_ASSERT_EQUAL(loads(dir, &key), -1);
	}
	spit(path, (const uint8_t *)"not an index", 12);
	CU_ASSERT_EQUAL(loads(dir, &key), -1);
	/* a string without its NUL, or of another length, with a right
	 * checksum: the strings are adopted as they are, so each is checked */
	at = memmem(good.data, good.size, "main", 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	damage(path, &good, (size_t)(at - good.data) + 4, 1);
	CU_ASSERT_EQUAL(loads(dir, &key), -1);
	damage(path, &good, (size_t)(at - good.data) - 8, 1);
	CU_ASSERT_EQUAL(loads(dir, &key), -1);

	/* the header's checks, with a right checksum: format (byte 8),
	 * symprof's build ("symprof 0.1.0 ...", at 20), the build-id */
	damage(path, &good, 8, 1);
	CU_ASSERT_EQUAL(loads(dir, &key), -1);
	self_at = 8 + 4 + 4 + 4;
	CU_ASSERT_EQUAL(memcmp(good.data + self_at, "symprof ", 8), 0);
	damage(path, &good, self_at + 8, 1);
	CU_ASSERT_EQUAL(loads(dir, &key), -1);
	spit(path, good.data, good.size);
	CU_ASSERT_EQUAL(loads(dir, &key), 0);
	memcpy(other_id, fake_id, sizeof(other_id));
	other_id[sizeof(other_id) - 1] ^= 1;
	other.build_id = other_id;
	other_path = sp_dwcache_path(dir, &other);
	spit(other_path, good.data, good.size); /* right name, wrong contents */
	CU_ASSERT_EQUAL(loads(dir, &other), -1);
	/* the same build-id with another DWARF file */
	other = key;
	other.dwarf_path = FIX("cxx-O2-dw4-nopie");
	CU_ASSERT_EQUAL(loads(dir, &other), -1);

	/* the DWARF file (a copy) touched since: a miss, then stored anew */
	other = key;
	other.dwarf_path = copy;
	sp_dwcache_store(dir, &other, b.lines, b.funcs, NULL);
	CU_ASSERT_EQUAL(loads(dir, &other), 0);
	CU_ASSERT_EQUAL(stat(copy, &st), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	times[1].tv_sec -= 10;
	CU_ASSERT_EQUAL(utimensat(AT_FDCWD, copy, times, 0), 0);
	CU_ASSERT_EQUAL(loads(dir, &other), -1);
	sp_dwcache_store(dir, &other, b.lines, b.funcs, NULL);
	CU_ASSERT_EQUAL(loads(dir, &other), 0);
	/* a store replaces a damaged file */
	damage(path, &good, good.size / 2, 0);
	CU_ASSERT_EQUAL(loads(dir, &key), -1);
	sp_dwcache_store(dir, &key, b.lines, b.funcs, NULL);
	CU_ASSERT_EQUAL(loads(dir, &key), 0);
	/* the index of a reading for a profile's addresses is another file:
	 * neither kind of run loads the other's */
	other = key;
	other.for_profile = 1;
	profile_path = sp_dwcache_path(dir, &other);
	CU_ASSERT_PTR_NOT_NULL_FATAL(profile_path);
	CU_ASSERT_STRING_NOT_EQUAL(profile_path, path);
	CU_ASSERT(strstr(profile_path, ".p.idx") != NULL);
	CU_ASSERT_EQUAL(loads(dir, &other), -1); /* the other kind's is there */
	sp_dwcache_store(dir, &other, b.lines, b.funcs, NULL);
	CU_ASSERT_EQUAL(loads(dir, &other), 0);
	CU_ASSERT_EQUAL(loads(dir, &key), 0);
	CU_ASSERT_EQUAL(unlink(path), 0);
	CU_ASSERT_EQUAL(loads(dir, &key), -1); /* the profile kind's is still there */
	CU_ASSERT_EQUAL(loads(dir, &other), 0);
	sp_dwcache_store(dir, &key, b.lines, b.funcs, NULL);
	free(profile_path);
	/* no build-id: nothing is cached */
	other = key;
	other.build_id = NULL;
	other.build_id_len = 0;
	CU_ASSERT_PTR_NULL(sp_dwcache_path(dir, &other));
	CU_ASSERT_EQUAL(loads(dir, &other), -1);

	free(good.data);
	free(path);
	free(other_path);
	sp_buf_release(&copy_path);
	unbuild(&b);
	rm_rf(dir);
	free(dir);
}

/* A partial index keeps its units and aranges. */
static void test_partial_units(void)
{
	char *dir = tmpdir();
	struct sp_dwcache_key key = {fake_id, sizeof(fake_id), FIX("c-O2-dw5-pie"), 0};
	struct sp_strtab strs = SP_STRTAB_INIT;
	struct sp_partial_arange *ar = malloc(2 * sizeof(*ar));
	uint64_t *cus = malloc(sizeof(*cus)), *die_off = malloc(sizeof(*die_off));
	uint64_t(*stubs)[2] = malloc(sizeof(*stubs));
	struct sp_dwcache_hit hit;
	struct sp_partial p, got;
	struct built b;

	CU_ASSERT_EQUAL_FATAL(build(&b, key.dwarf_path), 0);
	ar[0].lo = 0x1100;
	ar[0].hi = 0x1180;
	ar[0].cu = 0;
	ar[1].lo = 0x1200;
	ar[1].hi = 0x1280;
	ar[1].cu = 0x40;
	cus[0] = 0;
	die_off[0] = 12;
	stubs[0][0] = 0x1000;
	stubs[0][1] = 0x1020;
	sp_partial_restore(&p, ar, 2, cus, die_off, 1, stubs, 1);
	sp_dwcache_store(dir, &key, b.lines, b.funcs, &p);
	CU_ASSERT_EQUAL_FATAL(sp_dwcache_load(dir, &key, &strs, 1, &hit, &got), 0);
	CU_ASSERT_TRUE(hit.partial);
	CU_ASSERT_EQUAL(got.nar, 2);
	CU_ASSERT_EQUAL(got.ncus, 1);
	CU_ASSERT_EQUAL(got.units.n, 1);
	CU_ASSERT_EQUAL(got.units.die_off[0], 12);
	CU_ASSERT_TRUE(sp_partial_covers(&got, 0x1140));
	CU_ASSERT_FALSE(sp_partial_covers(&got, 0x1240)); /* unit 0x40 not read */
	CU_ASSERT_FALSE(sp_partial_covers(&got, 0x1190)); /* no unit */
	CU_ASSERT_TRUE(sp_partial_covers(&got, 0x1010));  /* a stub: no unit holds it */
	CU_ASSERT_EQUAL(got.nstubs, 1);
	sp_dwfuncs_free(hit.funcs);
	sp_linetab_free(hit.lines);
	sp_partial_release(&got);
	sp_partial_release(&p);
	sp_strtab_release(&strs);
	unbuild(&b);
	rm_rf(dir);
	free(dir);
}

/* ---- a loaded table's rows, decoded as they are asked ---- */

struct probe {
	const struct sp_linetab *lines;
	const uint64_t *addrs;
	size_t n;
	struct sp_buf out;
};

/* What the line table says at each address, as text. */
static void probe_lines(void *arg)
{
	struct probe *p = arg;
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct sp_line *l = sp_linetab_find_any(p->lines, p->addrs[i]);
		const struct sp_line *f = sp_linetab_find(p->lines, p->addrs[i]);

		if (l)
			sp_buf_addf(&p->out, "%s %llx %u %u %u %u %u|", l->file ? l->file : "-",
				    (unsigned long long)l->addr, l->line, l->column,
				    l->discriminator, l->is_stmt, l->end_sequence);
		sp_buf_addf(&p->out, "%s %u\n", f && f->file ? f->file : "-", f ? f->line : 0);
	}
}

/*
 * Random addresses, asked of a loaded table by two threads at once (the
 * rows are decoded on first use and published to both), give the built
 * table's answers; so do its rows, all asked at once afterwards, and the
 * table stored again from the loaded one, loaded and unpacked.
 */
/* Row l of a loaded table answers as row w of the built one. */
static int same_row(const struct sp_line *l, const struct sp_line *w)
{
	if (!l || !w)
		return l == w;
	return l->addr == w->addr && l->line == w->line && l->column == w->column &&
	       l->discriminator == w->discriminator && l->is_stmt == w->is_stmt &&
	       !strcmp(l->file ? l->file : "-", w->file ? w->file : "-");
}

/* A loaded table with a damaged block: storing it into dir writes
 * nothing; then it is freed. */
static void not_stored(const char *dir, const struct sp_dwcache_key *key,
		       struct sp_dwcache_hit *hit, struct sp_partial *units, struct sp_strtab *strs)
{
	char *path = sp_dwcache_path(dir, key);
	struct stat st;

	sp_dwcache_store(dir, key, hit->lines, hit->funcs, NULL);
	CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
	free(path);
	sp_dwfuncs_free(hit->funcs);
	sp_linetab_free(hit->lines);
	sp_partial_release(units);
	sp_strtab_release(strs);
}

/*
 * A block of line records damaged after the index was written, which a
 * load does not read: the rows of the other blocks answer as they should
 * and report nothing (while lookups decode rows one at a time: fewer
 * than an eighth of them); a lookup that reaches the block answers "no
 * line", reports the damage once (the file and the offset) and removes
 * the file; the table decoded whole has the block's rows without a line
 * and the others right; a table with such a block, decoded or unpacked,
 * is never stored again;
 * a load for a table about to be unpacked refuses the file instead,
 * without a report.
 */
static void test_damaged_rows(void)
{
	char *dir = tmpdir(), *dir2 = tmpdir();
	struct sp_dwcache_key key = {fake_id, sizeof(fake_id), FIX("cxx-O2-dw4-nopie"), 0};
	const struct sp_line *rows, *loaded;
	size_t nrows, nblocks, k, i, records_at, blocks[3], step;
	char *path;
	struct built b;
	struct blob good;
	struct stat st;

	CU_ASSERT_EQUAL_FATAL(build(&b, key.dwarf_path), 0);
	sp_dwcache_store(dir, &key, b.lines, b.funcs, NULL);
	path = sp_dwcache_path(dir, &key);
	good = slurp(path);
	nrows = sp_linetab_rows(b.lines, &rows);
	nblocks = sp_line_nblocks(nrows);
	CU_ASSERT_FATAL(nblocks >= 3);
	records_at = checked_len(&good) + 8;
	CU_ASSERT_EQUAL_FATAL(good.size - 8 - records_at, nrows * SP_LINE_PAYLOAD_SIZE);
	step = nrows / (nrows / 8 - 2) + 1;
	blocks[0] = 0;
	blocks[1] = nblocks / 2;
	blocks[2] = nblocks - 1;
	for (k = 0; k < 3; k++) {
		size_t first = blocks[k] * sp_line_block_rows(nrows),
		       last = first + sp_line_block_rows(nrows) - 1;
		struct sp_strtab strs = SP_STRTAB_INIT;
		struct sp_dwcache_hit hit;
		struct sp_partial units;
		size_t wrong = 0, asked = 0, inside = nrows;
		const char *msg;

		if (last >= nrows)
			last = nrows - 1;
		/* the line of the block's last row */
		damage(path, &good, records_at + last * SP_LINE_PAYLOAD_SIZE + 4, 0);
		CU_ASSERT_EQUAL(loads_whole(dir, &key), -1);
		CU_ASSERT_PTR_NULL(sp_image_cache_damage());
		CU_ASSERT_EQUAL(stat(path, &st), 0);
		CU_ASSERT_EQUAL_FATAL(sp_dwcache_load(dir, &key, &strs, 1, &hit, &units), 0);
		/* addresses outside the block's: as built, nothing reported */
		for (i = 0; i < nrows; i++)
			if (rows[i].addr > rows[first].addr && rows[i].addr < rows[last].addr &&
			    rows[i].line && !rows[i].end_sequence)
				inside = i;
		for (i = 0; i < nrows; i += step) {
			if (rows[i].addr >= rows[first].addr && rows[i].addr <= rows[last].addr)
				continue;
			asked++;
			wrong += !same_row(sp_linetab_find_any(hit.lines, rows[i].addr),
					   sp_linetab_find_any(b.lines, rows[i].addr));
		}
		CU_ASSERT(asked >= 8);
		CU_ASSERT_EQUAL(wrong, 0);
		CU_ASSERT_PTR_NULL(sp_image_cache_damage());
		CU_ASSERT_EQUAL(stat(path, &st), 0);
		/* an address inside it: no line, the damage reported */
		CU_ASSERT_FATAL(inside < nrows);
		CU_ASSERT_PTR_NOT_NULL(sp_linetab_find_any(b.lines, rows[inside].addr));
		CU_ASSERT_PTR_NULL(sp_linetab_find_any(hit.lines, rows[inside].addr));
		msg = sp_image_cache_damage();
		CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
		CU_ASSERT(strstr(msg, path) == msg);
		CU_ASSERT(strstr(msg, "offset") != NULL);
		CU_ASSERT_NOT_EQUAL(stat(path, &st), 0); /* removed */
		sp_image_cache_damage_clear();
		/* decoded whole: the block's rows without a line, the rest right */
		CU_ASSERT_EQUAL(sp_linetab_rows(hit.lines, &loaded), nrows);
		for (i = 0, wrong = 0; i < nrows; i++)
			if (i >= first && i <= last)
				wrong += loaded[i].addr != rows[i].addr || loaded[i].line ||
					 loaded[i].file || !loaded[i].end_sequence;
			else
				wrong += !same_row(&loaded[i], &rows[i]) ||
					 loaded[i].end_sequence != rows[i].end_sequence;
		CU_ASSERT_EQUAL(wrong, 0);
		CU_ASSERT_PTR_NULL(sp_image_cache_damage()); /* reported once */
		not_stored(dir2, &key, &hit, &units, &strs);
		/* loaded as above, then unpacked: reported, and not stored either */
		damage(path, &good, records_at + last * SP_LINE_PAYLOAD_SIZE + 4, 0);
		sp_strtab_init(&strs);
		CU_ASSERT_EQUAL_FATAL(
			sp_dwcache_load(dir, &key, &strs, SP_DWCACHE_ADOPT, &hit, &units), 0);
		sp_linetab_unpack(hit.lines);
		CU_ASSERT_PTR_NOT_NULL(sp_image_cache_damage());
		sp_image_cache_damage_clear();
		not_stored(dir2, &key, &hit, &units, &strs);
	}
	spit(path, good.data, good.size);
	CU_ASSERT_EQUAL(loads(dir, &key), 0);
	free(good.data);
	free(path);
	unbuild(&b);
	rm_rf(dir);
	rm_rf(dir2);
	free(dir);
	free(dir2);
}

static void test_rows_on_demand(void)
{
	char *dir = tmpdir(), *dir2 = tmpdir();
	struct sp_dwcache_key key = {fake_id, sizeof(fake_id), FIX("cxx-O2-dw4-nopie"), 0};
	struct sp_strtab strs = SP_STRTAB_INIT, strs2 = SP_STRTAB_INIT;
	struct probe want, got[2], again;
	struct sp_dwcache_hit hit, hit2;
	struct sp_partial units, units2;
	const struct sp_line *rows, *loaded;
	struct sp_worker *w;
	unsigned long seed = 15;
	uint64_t *addrs, lo, hi;
	size_t nrows, i, n = 20000;
	struct built b;

	CU_ASSERT_EQUAL_FATAL(build(&b, key.dwarf_path), 0);
	sp_dwcache_store(dir, &key, b.lines, b.funcs, NULL);
	CU_ASSERT_EQUAL_FATAL(sp_dwcache_load(dir, &key, &strs, 1, &hit, &units), 0);
	nrows = sp_linetab_rows(b.lines, &rows);
	CU_ASSERT_FATAL(nrows > 100);
	lo = rows[0].addr;
	hi = rows[nrows - 1].addr + 16;
	addrs = malloc(n * sizeof(*addrs));
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		addrs[i] = lo + (seed >> 20) % (hi - lo);
	}
	memset(&want, 0, sizeof(want));
	want.lines = b.lines;
	want.addrs = addrs;
	want.n = n;
	want.out = (struct sp_buf)SP_BUF_INIT;
	probe_lines(&want);
	for (i = 0; i < 2; i++) {
		got[i] = want;
		got[i].lines = hit.lines;
		got[i].out = (struct sp_buf)SP_BUF_INIT;
	}
	again = got[0];
	w = sp_worker_start(probe_lines, &got[1]);
	probe_lines(&got[0]);
	sp_worker_join(w);
	if (!w)
		probe_lines(&got[1]);
	CU_ASSERT_STRING_EQUAL(got[0].out.buf, want.out.buf);
	CU_ASSERT_STRING_EQUAL(got[1].out.buf, want.out.buf);

	/* every row at once, then the same questions again */
	CU_ASSERT_EQUAL(sp_linetab_rows(hit.lines, &loaded), nrows);
	for (i = 0; i < nrows; i++)
		if (loaded[i].addr != rows[i].addr || loaded[i].line != rows[i].line ||
		    strcmp(loaded[i].file ? loaded[i].file : "-",
			   rows[i].file ? rows[i].file : "-"))
			break;
	CU_ASSERT_EQUAL(i, nrows);
	probe_lines(&again);
	CU_ASSERT_STRING_EQUAL(again.out.buf, want.out.buf);

	/* stored from the loaded table, loaded again and unpacked at once (as
	 * for addr2line): the same answers */
	sp_dwcache_store(dir2, &key, hit.lines, hit.funcs, NULL);
	CU_ASSERT_EQUAL_FATAL(sp_dwcache_load(dir2, &key, &strs2, 1, &hit2, &units2), 0);
	sp_linetab_unpack(hit2.lines);
	sp_buf_release(&again.out);
	again.lines = hit2.lines;
	again.out = (struct sp_buf)SP_BUF_INIT;
	probe_lines(&again);
	CU_ASSERT_STRING_EQUAL(again.out.buf, want.out.buf);

	for (i = 0; i < 2; i++)
		sp_buf_release(&got[i].out);
	sp_buf_release(&want.out);
	sp_buf_release(&again.out);
	free(addrs);
	sp_dwfuncs_free(hit2.funcs);
	sp_linetab_free(hit2.lines);
	sp_dwfuncs_free(hit.funcs);
	sp_linetab_free(hit.lines);
	sp_strtab_release(&strs2);
	sp_strtab_release(&strs);
	unbuild(&b);
	rm_rf(dir);
	rm_rf(dir2);
	free(dir);
	free(dir2);
}

/* The checksum sees a flipped bit anywhere, and a word moved within its
 * lane or to another lane, whatever the length (the tail past the last
 * 64 bytes included). */
static void test_checksum(void)
{
	static const size_t lens[] = {0, 1, 63, 64, 65, 1000, 4099};
	uint8_t *d = malloc(4099), tmp[4];
	uint64_t x = 0x2545f4914f6cdd1dULL, sum;
	size_t i, k, bit, dist;
	int same = 0, moved = 0;

	for (i = 0; i < 4099; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		d[i] = (uint8_t)x;
	}
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t n = lens[k];

		sum = sp_dwcache_checksum(d, n);
		CU_ASSERT_EQUAL(sp_dwcache_checksum(d, n), sum);
		CU_ASSERT_NOT_EQUAL(sp_dwcache_checksum(d, n + 1 <= 4099 ? n + 1 : n - 1), sum);
		for (i = 0; i < n; i += n / 37 + 1) {
			for (bit = 0; bit < 8; bit++) {
				d[i] ^= (uint8_t)(1u << bit);
				same += sp_dwcache_checksum(d, n) == sum;
				d[i] ^= (uint8_t)(1u << bit);
			}
		}
		/* swapped words: next lane, same lane a row on, far away */
		for (i = 0; i + 4 <= n; i += n / 29 + 4) {
			const size_t dists[] = {4, 64, 1024};

			for (dist = 0; dist < 3; dist++) {
				size_t j = i + dists[dist];

				if (j + 4 > n || !memcmp(d + i, d + j, 4))
					continue;
				memcpy(tmp, d + i, 4);
				memcpy(d + i, d + j, 4);
				memcpy(d + j, tmp, 4);
				same += sp_dwcache_checksum(d, n) == sum;
				memcpy(d + j, d + i, 4);
				memcpy(d + i, tmp, 4);
				moved++;
			}
		}
		CU_ASSERT_EQUAL(sp_dwcache_checksum(d, n), sum);
	}
	CU_ASSERT_EQUAL(same, 0);
	CU_ASSERT(moved > 100);
	free(d);
}

/* ---- the demangling memo (dmcache.c) ---- */

/* How many of the n names memo_name() makes the memo in dir knows, each
 * with the right answer (-1 if one is wrong). */
static long memo_knows(const char *dir, const uint8_t *id, size_t idlen, size_t n)
{
	struct sp_dmcache *c = sp_dmcache_open(dir, id, idlen);
	struct sp_buf raw = SP_BUF_INIT, want = SP_BUF_INIT;
	long known = 0;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (i = 0; i < n; i++) {
		const char *out = "unset", *again = "unset";
		uint32_t out_hash = 1;

		sp_buf_reset(&raw);
		sp_buf_addf(&raw, "_Z%zuname%zu", i, i);
		sp_buf_reset(&want);
		sp_buf_addf(&want, "name%zu()", i);
		if (!sp_dmcache_get(c, raw.buf, &out))
			continue;
		if (i % 7 == 0 ? out != NULL : !out || strcmp(out, want.buf)) {
			known = -1;
			break;
		}
		/* asked with the name's hash: the same answer, with its own
		 * hash (which the symbolizer interns it with) */
		if (!sp_dmcache_get_hashed(c, raw.buf, sp_strtab_hash(raw.buf, raw.len), &again,
					   &out_hash) ||
		    again != out || (out && out_hash != sp_strtab_hash(out, strlen(out)))) {
			known = -1;
			break;
		}
		known++;
	}
	CU_ASSERT_EQUAL(sp_dmcache_get(c, "_Zunknown", &(const char *){NULL}), 0);
	sp_dmcache_close(c);
	sp_buf_release(&raw);
	sp_buf_release(&want);
	return known;
}

/* Adds names [from, to) to the memo in dir (every seventh does not
 * demangle) and saves it. */
static void memo_add(const char *dir, const uint8_t *id, size_t idlen, size_t from, size_t to)
{
	struct sp_dmcache *c = sp_dmcache_open(dir, id, idlen);
	struct sp_strtab strs = SP_STRTAB_INIT;
	struct sp_buf b = SP_BUF_INIT;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (i = from; i < to; i++) {
		const char *raw, *out = NULL;

		sp_buf_reset(&b);
		sp_buf_addf(&b, "_Z%zuname%zu", i, i);
		raw = sp_strtab_intern(&strs, b.buf);
		if (i % 7) {
			sp_buf_reset(&b);
			sp_buf_addf(&b, "name%zu()", i);
			out = sp_strtab_intern(&strs, b.buf);
		}
		sp_dmcache_add(c, raw, out);
	}
	sp_dmcache_close(c);
	sp_strtab_release(&strs);
	sp_buf_release(&b);
}

static void put32(struct blob *b, size_t at, uint32_t v)
{
	uint64_t sum;

	memcpy(b->data + at, &v, 4);
	sum = sp_dwcache_checksum(b->data, b->size - 8);
	memcpy(b->data + b->size - 8, &sum, 8);
}

static void test_demangle_memo(void)
{
	char *dir = tmpdir(), *path = sp_dmcache_path(dir, fake_id, sizeof(fake_id));
	uint8_t other_id[sizeof(fake_id)];
	char *other_path;
	const char *self = sp_dwcache_self_id();
	size_t i, slots_at, nslots = 0, entries_at, empty, full;
	struct blob good, bad;

	CU_ASSERT_PTR_NULL(sp_dmcache_open(NULL, fake_id, sizeof(fake_id)));
	CU_ASSERT_PTR_NULL(sp_dmcache_open(dir, NULL, 0));
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0); /* missing */
	memo_add(dir, fake_id, sizeof(fake_id), 0, 60);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 60);
	/* a later run adds to what was saved */
	memo_add(dir, fake_id, sizeof(fake_id), 60, 100);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 200), 100);
	good = slurp(path);

	/* another build-id's memo is not this one's */
	memcpy(other_id, fake_id, sizeof(other_id));
	other_id[sizeof(other_id) - 1] ^= 1;
	other_path = sp_dmcache_path(dir, other_id, sizeof(other_id));
	spit(other_path, good.data, good.size);
	CU_ASSERT_EQUAL(memo_knows(dir, other_id, sizeof(other_id), 100), 0);

	/* flipped bytes, truncated files, garbage: nothing known, no crash */
	for (i = 0; i < good.size; i += good.size / 89 + 1) {
		damage(path, &good, i, 0);
		CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);
	}
	for (i = 0; i < good.size; i += good.size / 29 + 1) {
		spit(path, good.data, i);
		CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);
	}
	/* the header's checks with a right checksum: the format, the build
	 * of symprof */
	damage(path, &good, 8, 1);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);
	damage(path, &good, 8 + 4 + 4 + 4 + 8, 1);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);

	/* forged tables whose checksum is right: a slot past the entries,
	 * every slot used (a probe would never end), an offset past the
	 * strings; each is refused */
	slots_at = 8 + 4 + 4 + 4 + strlen(self) + 4 + 4 + sizeof(fake_id) + 8 + 8;
	memcpy(&nslots, good.data + slots_at - 8, 8);
	CU_ASSERT_EQUAL_FATAL(nslots, 256);
	entries_at = slots_at + 4 * nslots;
	empty = full = nslots;
	for (i = 0; i < nslots; i++) {
		uint32_t e;

		memcpy(&e, good.data + slots_at + 4 * i, 4);
		if (!e && empty == nslots)
			empty = i;
		if (e && full == nslots)
			full = i;
	}
	CU_ASSERT_FATAL(empty < nslots && full < nslots);
	bad.size = good.size;
	bad.data = malloc(good.size);
	memcpy(bad.data, good.data, good.size);
	put32(&bad, slots_at + 4 * full, 101);
	spit(path, bad.data, bad.size);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);
	memcpy(bad.data, good.data, good.size);
	for (i = 0; i < nslots; i++)
		put32(&bad, slots_at + 4 * i, 1);
	spit(path, bad.data, bad.size);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);
	memcpy(bad.data, good.data, good.size);
	put32(&bad, entries_at + 4, (uint32_t)good.size);
	spit(path, bad.data, bad.size);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);
	memcpy(bad.data, good.data, good.size);
	put32(&bad, entries_at + 12 + 8, (uint32_t)good.size);
	spit(path, bad.data, bad.size);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 0);
	/* the unchanged copy is still good, and a save replaces a bad file */
	spit(path, bad.data, bad.size);
	memo_add(dir, fake_id, sizeof(fake_id), 0, 10);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 10);
	spit(path, good.data, good.size);
	CU_ASSERT_EQUAL(memo_knows(dir, fake_id, sizeof(fake_id), 100), 100);

	free(bad.data);
	free(good.data);
	free(other_path);
	free(path);
	rm_rf(dir);
	free(dir);
}

/* ---- the nm listing cache (nmcache.c) ---- */

/* 1 if the listing in dir for key loads and equals lines[0 .. n), 0 if
 * it does not load, -1 if it loads wrong. */
static int nm_loads(const char *dir, const struct sp_nmcache_key *key,
		    const struct sp_nm_line *lines, size_t n)
{
	struct sp_nmcache_hit hit;
	int same = 1;
	size_t i;

	if (sp_nmcache_load(dir, key, &hit) < 0)
		return 0;
	if (hit.n != n)
		same = -1;
	for (i = 0; same == 1 && i < n; i++)
		if (hit.lines[i].addr != lines[i].addr || strcmp(hit.lines[i].raw, lines[i].raw) ||
		    strcmp(hit.lines[i].version, lines[i].version) ||
		    hit.lines[i].type != lines[i].type || hit.lines[i].hidden != lines[i].hidden)
			same = -1;
	free(hit.lines);
	munmap((void *)hit.map, hit.map_size);
	return same;
}

static void test_nm_listing(void)
{
	char *dir = tmpdir(), *path, *copy;
	struct sp_buf b = SP_BUF_INIT;
	struct sp_nm_line lines[40];
	struct sp_nmcache_key key = {fake_id, sizeof(fake_id), NULL}, other;
	struct sp_strtab strs = SP_STRTAB_INIT;
	const char *self = sp_dwcache_self_id();
	size_t i, lines_at;
	uint64_t addr;
	struct blob good, bad;
	struct timespec times[2];
	struct stat st;

	/* the listing of a copy of a fixture (its path, size and mtime) */
	sp_buf_addf(&b, "%s/prog", dir);
	copy = sp_buf_detach(&b, NULL);
	good = slurp(FIX("c-O2-dw5-pie"));
	spit(copy, good.data, good.size);
	free(good.data);
	key.path = copy;
	for (i = 0; i < 40; i++) {
		sp_buf_reset(&b);
		sp_buf_addf(&b, "sym%zu", i);
		lines[i].addr = 0x1000 + 16 * (i / 2);
		lines[i].raw = sp_strtab_intern(&strs, b.buf);
		lines[i].version = i % 5 == 0 ? "GLIBC_2.2.5" : "";
		lines[i].type = i % 3 ? 'T' : 't';
		lines[i].hidden = i % 7 == 0;
	}
	path = sp_nmcache_path(dir, &key);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0); /* missing */
	sp_nmcache_store(dir, &key, lines, 40);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 1);
	good = slurp(path);

	/* flipped bytes, truncated files: refused, no crash */
	for (i = 0; i < good.size; i += good.size / 89 + 1) {
		damage(path, &good, i, 0);
		CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	}
	for (i = 0; i < good.size; i += good.size / 29 + 1) {
		spit(path, good.data, i);
		CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	}
	/* the header, with a right checksum: the format, symprof's build */
	damage(path, &good, 8, 1);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	damage(path, &good, 8 + 4 + 4 + 4 + 8, 1);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	/* forged lines whose checksum is right: a string offset past the
	 * strings, a version offset past them, lines out of address order */
	lines_at = 8 + 4 + 4 + 4 + strlen(self) + 4 + sizeof(fake_id) + 4 + strlen(copy) + 8 * 4;
	memcpy(&addr, good.data + lines_at + 18 * 39, 8);
	CU_ASSERT_EQUAL_FATAL(addr, lines[39].addr);
	bad.size = good.size;
	bad.data = malloc(good.size);
	memcpy(bad.data, good.data, good.size);
	put32(&bad, lines_at + 18 * 3 + 8, (uint32_t)good.size);
	spit(path, bad.data, bad.size);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	memcpy(bad.data, good.data, good.size);
	put32(&bad, lines_at + 18 * 5 + 12, (uint32_t)good.size);
	spit(path, bad.data, bad.size);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	memcpy(bad.data, good.data, good.size);
	put32(&bad, lines_at + 18 * 10, 0x10);
	spit(path, bad.data, bad.size);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	spit(path, good.data, good.size);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 1);

	/* another file of the same build-id (a stripped copy), the file
	 * touched since, another build-id: refused; a store replaces it */
	other = key;
	other.path = FIX("c-O2-dw5-pie");
	CU_ASSERT_EQUAL(nm_loads(dir, &other, lines, 40), 0);
	CU_ASSERT_EQUAL(stat(copy, &st), 0);
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	times[1].tv_sec -= 10;
	CU_ASSERT_EQUAL(utimensat(AT_FDCWD, copy, times, 0), 0);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 0);
	sp_nmcache_store(dir, &key, lines, 40);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 40), 1);
	other = key;
	other.build_id_len--;
	CU_ASSERT_EQUAL(nm_loads(dir, &other, lines, 40), 0);
	/* an empty listing */
	sp_nmcache_store(dir, &key, lines, 0);
	CU_ASSERT_EQUAL(nm_loads(dir, &key, lines, 0), 1);

	free(bad.data);
	free(good.data);
	free(path);
	free(copy);
	sp_buf_release(&b);
	sp_strtab_release(&strs);
	rm_rf(dir);
	free(dir);
}

int sp_test_register_dwcache(void)
{
	CU_pSuite s = CU_add_suite("dwcache", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "the checksum sees flipped bits and moved words", test_checksum) ||
	    !CU_add_test(s, "loaded tables answer as built ones", test_same_answers) ||
	    !CU_add_test(s, "names adopted or interned, released in any order",
			 test_adopted_strings) ||
	    !CU_add_test(s, "missing, stale, corrupt or foreign files", test_untrusted) ||
	    !CU_add_test(s, "symbol tables: loaded as built, refused when stale or bad",
			 test_symbol_cache) ||
	    !CU_add_test(s, "partial indexes keep their units", test_partial_units) ||
	    !CU_add_test(s, "a loaded table's rows, decoded on demand by two threads",
			 test_rows_on_demand) ||
	    !CU_add_test(s, "a block of line records damaged after the load", test_damaged_rows) ||
	    !CU_add_test(s, "the demangling memo: saved, added to, refused when bad",
			 test_demangle_memo) ||
	    !CU_add_test(s, "nm listings: loaded as stored, refused when bad or stale",
			 test_nm_listing))
		return -1;
	return 0;
}
