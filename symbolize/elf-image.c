/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ELF images through libelf (symbols) and libdw (lines).
 *
 * Symbols come from .symtab; when the file is stripped, from the .symtab of
 * its separate debug file (build-id or .gnu_debuglink, see debuginfo.c);
 * failing that, from .dynsym. Each symbol is given the class letter libbfd
 * would give it (bfd_decode_symclass over the section flags bfd derives
 * from sh_type/sh_flags), so that the gprof table builder sees exactly what
 * gprof sees through libbfd.
 *
 * The DWARF tables (lines, functions, variables) come from the file
 * itself or its debug file (sp_elf_image_dwarf_path()); dwarf-tables.c
 * decides when and on which thread they are built, and this file asks it.
 */
#include "internal.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "dwarf-funcs.h"
#include "dwarf-tables.h"
#include "dwarf-vars.h"
#include "dwcache.h"
#include "elf-file.h"
#include "elf-opd.h"
#include "lines.h"
#include "symprof/sort.h"
#include "symprof/worker.h"
#include "symprof/error.h"

struct elf_image {
	struct sp_elf_file main;
	struct sp_elf_file dbg; /* separate debug file, fd -1 if none */
	char *dbg_path;
	int dbg_tried;
	struct sp_dwtables tables; /* DWARF tables: lines, functions (dwarf-tables.c) */
	int text_found;
	uint64_t text_vma, text_size;
	Elf_Scn *text_scn;
	uint64_t (*code)[2]; /* executable sections [lo, hi), found once */
	size_t ncode;
	int code_found;
	int sext32;		     /* 32-bit MIPS: bfd sign-extends addresses */
	struct sp_dwfuncs *symfuncs; /* ELF symbols only (no DWARF), on demand */
	int symfuncs_tried;
	struct sp_elf_load *loads; /* PT_LOAD segments, read once */
	size_t nloads;
	int loads_read;
	uint64_t (*alloc)[2]; /* allocated sections [lo, hi), found once */
	size_t nalloc;
	size_t alloc_big; /* the largest of them */
	int alloc_found;
};

static struct elf_image *EI(struct sp_image *im)
{
	return im->priv;
}

/*
 * Addresses. bfd sign-extends the 32-bit addresses of MIPS images
 * (symbol values, section addresses, DWARF addresses), so gprof sees
 * 0x80400000 as 0xffffffff80400000 and prints it so; the gmon reader
 * does the same to the profile's pcs. libelf and libdw give them
 * zero-extended: what this backend hands out goes through to_target(),
 * what it is asked about through from_target().
 */
static uint64_t to_target(const struct elf_image *e, uint64_t a)
{
	return e->sext32 ? (uint64_t)(int64_t)(int32_t)(uint32_t)a : a;
}

static uint64_t from_target(const struct elf_image *e, uint64_t a)
{
	return e->sext32 ? a & 0xffffffffu : a;
}

/* ---- files and sections ---- */

int sp_elf_file_open(struct sp_elf_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -1;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &f->ehdr) ||
	    elf_getshdrstrndx(f->elf, &f->shstrndx) < 0) {
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		f->fd = -1;
		f->elf = NULL;
		return 1;
	}
	return 0;
}

void sp_elf_file_close(struct sp_elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

static const char *scn_name(const struct sp_elf_file *f, const GElf_Shdr *sh)
{
	const char *n = elf_strptr(f->elf, f->shstrndx, sh->sh_name);

	return n ? n : "";
}

static Elf_Scn *find_scn(const struct sp_elf_file *f, const char *name, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && !strcmp(scn_name(f, &sh), name)) {
			if (out)
				*out = sh;
			return scn;
		}
	}
	return NULL;
}

static Elf_Scn *find_scn_type(const struct sp_elf_file *f, Elf64_Word type)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

/* ---- debug files ---- */

static void build_id(const struct sp_elf_file *f, const uint8_t **id, size_t *len)
{
	Elf_Scn *scn = NULL;

	*id = NULL;
	*len = 0;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + noff, "GNU", 4)) {
				*id = (const uint8_t *)d->d_buf + doff;
				*len = nh.n_descsz;
				return;
			}
		}
	}
}

static void debuglink(const struct sp_elf_file *f, const char **name, uint32_t *crc)
{
	Elf_Scn *scn = find_scn(f, ".gnu_debuglink", NULL);
	Elf_Data *d;
	size_t n;

	*name = NULL;
	*crc = 0;
	if (!scn || !(d = elf_getdata(scn, NULL)) || !d->d_size || !d->d_buf)
		return;
	n = strnlen(d->d_buf, d->d_size);
	if (n == d->d_size)
		return;
	*name = d->d_buf;
	n = (n + 4) & ~(size_t)3;
	if (n + 4 <= d->d_size)
		memcpy(crc, (const char *)d->d_buf + n, 4);
}

/* The separate debug file, opened once; NULL if there is none. */
static struct sp_elf_file *debug_file(struct sp_image *im)
{
	struct elf_image *e = EI(im);
	const uint8_t *id;
	const char *link;
	size_t idlen;
	uint32_t crc;
	char *path;

	if (e->dbg_tried)
		return e->dbg.elf ? &e->dbg : NULL;
	e->dbg_tried = 1;
	build_id(&e->main, &id, &idlen);
	debuglink(&e->main, &link, &crc);
	path = sp_debuginfo_find(im->path, id, idlen, link, crc, im->search);
	if (path && sp_elf_file_open(&e->dbg, path) != 0) {
		e->dbg.elf = NULL;
		free(path);
		path = NULL;
	}
	e->dbg_path = path;
	return e->dbg.elf ? &e->dbg : NULL;
}

/* ---- symbols ---- */

/* bfd's section flags, as _bfd_elf_make_section_from_shdr derives them. */
enum {
	SEC_HAS_CONTENTS = 1,
	SEC_ALLOC = 2,
	SEC_LOAD = 4,
	SEC_READONLY = 8,
	SEC_CODE = 16,
	SEC_DATA = 32,
	SEC_DEBUGGING = 64,
};

static int bfd_sec_flags(const char *name, const GElf_Shdr *sh)
{
	int fl = 0;

	if (sh->sh_type != SHT_NOBITS)
		fl |= SEC_HAS_CONTENTS;
	if (sh->sh_flags & SHF_ALLOC) {
		fl |= SEC_ALLOC;
		if (sh->sh_type != SHT_NOBITS)
			fl |= SEC_LOAD;
	}
	if (!(sh->sh_flags & SHF_WRITE))
		fl |= SEC_READONLY;
	if (sh->sh_flags & SHF_EXECINSTR)
		fl |= SEC_CODE;
	else if (fl & SEC_LOAD)
		fl |= SEC_DATA;
	if (!(fl & SEC_ALLOC) && name[0] == '.' &&
	    (!strncmp(name, ".debug", 6) || !strncmp(name, ".gnu.debuglto_.debug_", 21) ||
	     !strncmp(name, ".gnu.linkonce.wi.", 17) || !strncmp(name, ".zdebug", 7) ||
	     !strncmp(name, ".line", 5) || !strncmp(name, ".stab", 5) ||
	     !strcmp(name, ".gdb_index")))
		fl |= SEC_DEBUGGING;
	return fl;
}

/* bfd's decode_section_type(). */
static char section_letter(int fl)
{
	if (fl & SEC_CODE)
		return 't';
	if (fl & SEC_DATA)
		return (fl & SEC_READONLY) ? 'r' : 'd';
	if (!(fl & SEC_HAS_CONTENTS))
		return 'b';
	if (fl & SEC_DEBUGGING)
		return 'N';
	if (fl & SEC_READONLY)
		return 'n';
	return '?';
}

char sp_elf_section_letter(const char *name, const GElf_Shdr *sh)
{
	return section_letter(bfd_sec_flags(name, sh));
}

/* A section's letter and address, found once per section index. */
struct sec_letters {
	size_t n;
	char *letter; /* 0: not found yet */
	uint64_t *vma;
};

static void sec_letters_init(struct sec_letters *m, const struct sp_elf_file *f)
{
	memset(m, 0, sizeof(*m));
	if (elf_getshdrnum(f->elf, &m->n) != 0)
		m->n = 0;
	m->letter = sp_xcalloc(m->n + 1, 1);
	m->vma = sp_xcalloc(m->n + 1, sizeof(*m->vma));
}

static void sec_letters_release(struct sec_letters *m)
{
	free(m->letter);
	free(m->vma);
}

/* The lower-case letter of section shndx ('a' if it cannot be read), and
 * its address. */
static char sec_letter(struct sec_letters *m, const struct sp_elf_file *f, Elf32_Word shndx,
		       uint64_t *vma)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	char c = 'a';

	if (shndx < m->n && m->letter[shndx]) {
		*vma = m->vma[shndx];
		return m->letter[shndx];
	}
	*vma = 0;
	if (shndx != SHN_ABS && (scn = elf_getscn(f->elf, shndx)) && gelf_getshdr(scn, &sh)) {
		c = section_letter(bfd_sec_flags(scn_name(f, &sh), &sh));
		*vma = sh.sh_addr;
	}
	if (shndx < m->n) {
		m->letter[shndx] = c;
		m->vma[shndx] = *vma;
	}
	return c;
}

/* The class letter bfd_decode_symclass() gives an ELF symbol. */
static char sym_letter(const struct sp_elf_file *f, struct sec_letters *m, const GElf_Sym *s,
		       Elf32_Word shndx, struct raw_sym *r, uint64_t *vma)
{
	int bind = GELF_ST_BIND(s->st_info), type = GELF_ST_TYPE(s->st_info);
	int global = bind == STB_GLOBAL && shndx != SHN_UNDEF && shndx != SHN_COMMON;
	char c;

	*vma = 0;
	r->local = bind == STB_LOCAL;
	r->function = type == STT_FUNC;
	r->debugging = type == STT_SECTION || type == STT_FILE;
	if (shndx == SHN_COMMON)
		return 'C';
	if (shndx == SHN_UNDEF)
		return bind == STB_WEAK ? (type == STT_OBJECT ? 'v' : 'w') : 'U';
	if (type == STT_GNU_IFUNC)
		return 'i';
	if (bind == STB_WEAK)
		return (type == STT_OBJECT || type == STT_COMMON) ? 'V' : 'W';
	if (bind == STB_GNU_UNIQUE)
		return 'u';
	if (!global && bind != STB_LOCAL)
		return '?';
	c = sec_letter(m, f, shndx, vma);
	return global ? (char)(c - 'a' + 'A') : c;
}

static int walk_symtab(struct sp_image *im, const struct sp_elf_file *f, Elf_Scn *symscn,
		       int (*fn)(void *, const struct raw_sym *), void *ctx, struct sp_error *err)
{
	Elf_Data *d = elf_getdata(symscn, NULL), *xd = NULL, *strd;
	struct sec_letters letters;
	GElf_Shdr sh;
	Elf_Scn *strscn, *scn = NULL;
	size_t i, n;
	int ret = 0;

	if (!d || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize ||
	    !(strscn = elf_getscn(f->elf, sh.sh_link)) || !(strd = elf_getdata(strscn, NULL)))
		return sp_error_set(err, SP_E_LIBELF, "cannot read symbols of '%s': %s", im->path,
				    elf_errmsg(-1));
	/* a string table without bytes (SHT_NOBITS in a damaged file) */
	if (!strd->d_buf && strd->d_size)
		return sp_error_set(err, SP_E_CORRUPT,
				    "cannot read symbols of '%s': their string table has no data",
				    im->path);
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr x;
		if (gelf_getshdr(scn, &x) && x.sh_type == SHT_SYMTAB_SHNDX &&
		    x.sh_link == elf_ndxscn(symscn))
			xd = elf_getdata(scn, NULL);
	}
	n = sh.sh_size / sh.sh_entsize;
	sec_letters_init(&letters, f);
	for (i = 1; i < n; i++) {
		struct raw_sym r;
		GElf_Sym s;
		Elf32_Word shndx;
		uint64_t vma;

		if (!gelf_getsymshndx(d, xd, (int)i, &s, &shndx))
			break;
		if (s.st_shndx != SHN_XINDEX)
			shndx = s.st_shndx;
		if (s.st_name >= strd->d_size)
			continue;
		memset(&r, 0, sizeof(r));
		r.name = (const char *)strd->d_buf + s.st_name;
		r.name_limit = (const char *)strd->d_buf + strd->d_size;
		r.type = sym_letter(f, &letters, &s, shndx, &r, &vma);
		r.has_section = 1;
		r.addr = to_target(EI(im), s.st_value + (f->ehdr.e_type == ET_REL ? vma : 0));
		/* libbfd (so gprof) drops the Thumb bit of ARM function symbols */
		if (f->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(s.st_info) == STT_FUNC)
			r.addr &= ~(uint64_t)1;
		r.size = s.st_size;
		r.count_hint = n - 1;
		if ((ret = fn(ctx, &r)) < 0)
			break;
	}
	sec_letters_release(&letters);
	return ret < 0 ? ret : 0;
}

static int elf_for_each_sym(struct sp_image *im, int (*fn)(void *, const struct raw_sym *),
			    void *ctx, struct sp_error *err)
{
	struct elf_image *e = EI(im);
	const struct sp_elf_file *f = &e->main;
	struct sp_elf_file *dbg;
	Elf_Scn *s;
	int ret;

	if ((s = find_scn_type(f, SHT_SYMTAB)) ||
	    ((dbg = debug_file(im)) && (s = find_scn_type(f = dbg, SHT_SYMTAB)))) {
		ret = walk_symtab(im, f, s, fn, ctx, err);
		/* bfd's synthetic symbols follow (gprof asks for them; only
		 * PowerPC64 ELFv1 images get any from static symbols) */
		if (ret == 0)
			ret = sp_elf_opd_syms(e->main.elf, f->elf, s, fn, ctx);
		return ret;
	}
	if ((s = find_scn_type(&e->main, SHT_DYNSYM)))
		return walk_symtab(im, &e->main, s, fn, ctx, err);
	return sp_error_set(err, SP_E_NOSYMS, "cannot read '%s': file has no symbols", im->path);
}

int sp_elf_image_dynsym_only(struct sp_image *im)
{
	struct elf_image *e = EI(im);
	struct sp_elf_file *dbg;

	return !find_scn_type(&e->main, SHT_SYMTAB) &&
	       !((dbg = debug_file(im)) && find_scn_type(dbg, SHT_SYMTAB)) &&
	       find_scn_type(&e->main, SHT_DYNSYM);
}

/* The symbol `name` of the file's .symtab (elf_getdata() gives the
 * entries in the host's layout): the string is compared only for the
 * symbols whose name starts with its first byte. */
static int elf_symbol_value(struct sp_image *im, const char *name, uint64_t *value)
{
	const struct sp_elf_file *f = &EI(im)->main;
	Elf_Scn *scn = find_scn_type(f, SHT_SYMTAB), *strscn;
	int is64 = gelf_getclass(f->elf) == ELFCLASS64;
	size_t i, n, esize = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	Elf_Data *d, *strd;
	GElf_Shdr sh;

	if (!scn || !(d = elf_getdata(scn, NULL)) || !gelf_getshdr(scn, &sh) ||
	    !(strscn = elf_getscn(f->elf, sh.sh_link)) || !(strd = elf_getdata(strscn, NULL)) ||
	    !d->d_buf || !strd->d_buf)
		return -1; /* (a hostile file's string table may have no bytes) */
	n = d->d_size / esize;
	for (i = 1; i < n; i++) {
		const char *str;
		uint64_t st_value;
		uint32_t st_name;
		uint16_t shndx;

		if (is64) {
			const Elf64_Sym *sy = (const Elf64_Sym *)d->d_buf + i;

			st_name = sy->st_name;
			st_value = sy->st_value;
			shndx = sy->st_shndx;
		} else {
			const Elf32_Sym *sy = (const Elf32_Sym *)d->d_buf + i;

			st_name = sy->st_name;
			st_value = sy->st_value;
			shndx = sy->st_shndx;
		}
		if (st_name >= strd->d_size || shndx == SHN_UNDEF)
			continue;
		str = (const char *)strd->d_buf + st_name;
		if (str[0] != name[0] || !memchr(str, 0, strd->d_size - st_name) ||
		    strcmp(str, name))
			continue;
		*value = to_target(EI(im), st_value);
		return 0;
	}
	return -1;
}

/* ---- text ---- */

static int elf_text(struct sp_image *im, uint64_t *vma, uint64_t *size, struct sp_error *err)
{
	struct elf_image *e = EI(im);

	if (!e->text_found) {
		GElf_Shdr sh;

		e->text_scn = find_scn(&e->main, ".text", &sh);
		if (!e->text_scn)
			e->text_scn = find_scn(&e->main, "$CODE$", &sh);
		if (!e->text_scn)
			return sp_error_set(err, SP_E_FORMAT, "cannot read '%s': no .text section",
					    im->path);
		e->text_vma = sh.sh_addr;
		e->text_size = sh.sh_size;
		e->text_found = 1;
	}
	*vma = to_target(e, e->text_vma);
	*size = e->text_size;
	return 0;
}

static const uint8_t *elf_text_bytes(struct sp_image *im, struct sp_error *err)
{
	struct elf_image *e = EI(im);
	uint64_t vma = 0, size = 0;
	Elf_Data *d;

	if (elf_text(im, &vma, &size, err) < 0)
		return NULL;
	d = elf_getdata(e->text_scn, NULL);
	if (!d || d->d_size < size || !d->d_buf) {
		sp_error_set(err, SP_E_LIBELF, "cannot read the .text of '%s'", im->path);
		return NULL;
	}
	return d->d_buf;
}

/* ---- lines ---- */

static int has_dwarf(const struct sp_elf_file *f)
{
	return find_scn(f, ".debug_info", NULL) || find_scn(f, ".zdebug_info", NULL);
}

const char *sp_elf_image_dwarf_path(struct sp_image *im)
{
	struct elf_image *e = EI(im);

	if (has_dwarf(&e->main))
		return im->path;
	if (debug_file(im))
		return e->dbg_path;
	return NULL;
}

static void elf_prefetch(struct sp_image *im, unsigned what)
{
	sp_dwtables_start(&EI(im)->tables, what);
}

static void elf_prefetch_query(struct sp_image *im, const uint64_t *vaddrs, size_t n)
{
	struct elf_image *e = EI(im);
	uint64_t *query;
	size_t i;

	if (e->tables.started)
		return; /* too late: the full table is on its way */
	query = sp_xreallocarray(NULL, n ? n : 1, sizeof(*query));
	for (i = 0; i < n; i++)
		query[i] = from_target(e, vaddrs[i]);
	sp_dwtables_start_query(&e->tables, query, n);
}

static int elf_src_line(struct sp_image *im, uint64_t vaddr, const char **file, int *line)
{
	struct elf_image *e = EI(im);
	const struct sp_line *l;

	const struct sp_linetab *lines = sp_dwtables_lines(&e->tables);

	vaddr = from_target(e, vaddr);
	if (!lines)
		return -1;
	if (sp_linetab_ask(lines, vaddr, &l) < 0) {
		if (!(lines = sp_dwtables_lines_full(&e->tables)))
			return -1;
		l = sp_linetab_find(lines, vaddr);
	}
	if (!l || !l->file || !l->line)
		return -1;
	*file = l->file;
	*line = (int)l->line;
	return 0;
}

static int elf_in_code(struct sp_image *im, uint64_t vaddr)
{
	struct elf_image *e = EI(im);
	size_t i, alloc = 0;

	if (!e->code_found) {
		Elf_Scn *scn = NULL;

		e->code_found = 1;
		while ((scn = elf_nextscn(e->main.elf, scn))) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
			    !(sh.sh_flags & SHF_ALLOC))
				continue;
			SP_ALLOC_GROW(e->code, e->ncode + 1, alloc);
			e->code[e->ncode][0] = sh.sh_addr;
			e->code[e->ncode][1] = sh.sh_addr + sh.sh_size;
			e->ncode++;
		}
	}
	vaddr = from_target(e, vaddr);
	for (i = 0; i < e->ncode; i++)
		if (vaddr >= e->code[i][0] && vaddr < e->code[i][1])
			return 1;
	return 0;
}

static int cmp_u64(const void *a, const void *b, void *ctx)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	(void)ctx;
	return (x > y) - (x < y);
}

/* The addresses of v[0..n) in (lo, hi), ascending, appended to out;
 * returns the new length. */
static size_t take_sorted(uint64_t *out, size_t k, const uint64_t *v, size_t n, size_t stride,
			  uint64_t lo, uint64_t hi)
{
	size_t i, first = k;
	int sorted = 1;

	for (i = 0; i < n; i++) {
		uint64_t a = *(const uint64_t *)((const char *)v + i * stride);

		if (a > lo && a < hi) {
			if (k > first && out[k - 1] > a)
				sorted = 0;
			out[k++] = a;
		}
	}
	if (!sorted)
		sp_sort(out + first, k - first, sizeof(*out), cmp_u64, NULL);
	return k;
}

/* Every address in [lo, hi) where a line row, a function segment or an
 * ELF symbol starts, plus lo itself, ascending and distinct: a merge of
 * the three lists, each (nearly always) ascending already. */
static uint64_t *change_points(struct sp_image *im, uint64_t lo, uint64_t hi, size_t *n)
{
	struct sp_dwtables *t = &EI(im)->tables;
	struct sp_dwfuncs *f = sp_dwtables_funcs(t);
	const struct sp_line *rows = NULL;
	const uint64_t *segs = NULL, *syms = NULL;
	size_t nrows = t->lines ? sp_linetab_rows(t->lines, &rows) : 0, nsegs = 0, nsyms = 0;
	size_t a, b, c, na, nb, nc, k = 0;
	uint64_t *tmp, *v;

	if (f)
		sp_dwfuncs_change_points(f, &segs, &nsegs, &syms, &nsyms);
	tmp = sp_xreallocarray(NULL, nrows + nsegs + nsyms + 1, sizeof(*tmp));
	na = take_sorted(tmp, 0, rows ? &rows[0].addr : NULL, nrows, sizeof(*rows), lo, hi);
	nb = take_sorted(tmp, na, segs, nsegs, sizeof(*segs), lo, hi);
	nc = take_sorted(tmp, nb, syms, nsyms, sizeof(*syms), lo, hi);
	v = sp_xreallocarray(NULL, nc + 1, sizeof(*v));
	v[k++] = lo;
	for (a = 0, b = na, c = nb; a < na || b < nb || c < nc;) {
		uint64_t x = UINT64_MAX;

		if (a < na && tmp[a] < x)
			x = tmp[a];
		if (b < nb && tmp[b] < x)
			x = tmp[b];
		if (c < nc && tmp[c] < x)
			x = tmp[c];
		if (a < na && tmp[a] == x)
			a++;
		if (b < nb && tmp[b] == x)
			b++;
		if (c < nc && tmp[c] == x)
			c++;
		if (v[k - 1] != x)
			v[k++] = x;
	}
	free(tmp);
	*n = k;
	return v;
}

/* bfd_find_nearest_line's (file, line, function) at addr; `c` speeds up
 * lookups at ascending addresses. */
static void nearest(struct sp_image *im, uint64_t addr, const char **file, int *line,
		    const char **func, struct sp_dwfuncs_cursor *c)
{
	const struct sp_dwtables *t = &EI(im)->tables;
	struct sp_inline_frame fr;
	const struct sp_line *l;

	*file = NULL;
	*line = 0;
	*func = NULL;
	if (t->funcs && sp_dwfuncs_find_at(t->funcs, addr, &fr, 1, c)) {
		*file = fr.file;
		*line = (int)fr.line;
		*func = fr.name;
		return;
	}
	l = sp_linetab_find_any_at(t->lines, addr, &c->lines);
	if (l && l->file && l->line) {
		*file = l->file;
		*line = (int)l->line;
	}
	if (t->funcs)
		*func = sp_dwfuncs_symbol_at(t->funcs, addr, c);
}

struct nearest_answer {
	const char *file, *func;
	int line;
};

/* nearest()'s answers for a run of change points, on a worker */
struct nearest_job {
	struct sp_image *im;
	const uint64_t *points;
	size_t n;
	struct nearest_answer *out; /* n answers, read after the join */
};

static void nearest_run(void *arg)
{
	struct nearest_job *job = arg;
	struct sp_dwfuncs_cursor c;
	size_t i;

	memset(&c, 0, sizeof(c));
	for (i = 0; i < job->n; i++) {
		struct nearest_answer *a = &job->out[i];

		nearest(job->im, job->points[i], &a->file, &a->line, &a->func, &c);
	}
}

/* From this many change points on (-l on a program of a few thousand
 * functions), a worker names the second half while this thread names the
 * first and hands its answers on; the callback still sees every point in
 * order on this thread. */
static size_t lines_split = 16384;

void sp_image_set_lines_split(size_t points)
{
	lines_split = points;
}

static int elf_for_each_line(struct sp_image *im, uint64_t lo, uint64_t hi,
			     int (*fn)(void *, uint64_t, const char *, int, const char *),
			     void *ctx, struct sp_error *err)
{
	struct elf_image *e = EI(im);
	struct sp_dwfuncs_cursor c;
	struct nearest_job job;
	struct sp_worker *worker = NULL;
	uint64_t *points;
	size_t i, n, mid;
	int ret = 0;

	(void)err;
	sp_dwtables_funcs(&e->tables);
	if (!e->tables.lines)
		return 0;
	points = change_points(im, from_target(e, lo), from_target(e, hi), &n);
	mid = n;
	memset(&job, 0, sizeof(job));
	if (lines_split && n >= lines_split && n >= 2 && sp_workers_enabled()) {
		mid = n / 2;
		job.im = im;
		job.points = points + mid;
		job.n = n - mid;
		job.out = sp_xreallocarray(NULL, job.n, sizeof(*job.out));
		if (!(worker = sp_worker_start(nearest_run, &job)))
			mid = n;
	}
	memset(&c, 0, sizeof(c));
	for (i = 0; i < mid && ret == 0; i++) {
		const char *file, *func;
		int line;

		nearest(im, points[i], &file, &line, &func, &c);
		ret = fn(ctx, to_target(e, points[i]), file, line, func);
	}
	sp_worker_join(worker);
	for (i = mid; worker && i < n && ret == 0; i++) {
		const struct nearest_answer *a = &job.out[i - mid];

		ret = fn(ctx, to_target(e, points[i]), a->file, a->line, a->func);
	}
	free(job.out);
	free(points);
	return ret;
}

/* The code description; symbols (starts, mapping symbols) come from the
 * file elf_for_each_sym() reads them from. */
static int elf_code(struct sp_image *im, struct sp_code *c, struct sp_error *err)
{
	struct elf_image *e = EI(im);
	struct sp_elf_file *dbg;
	Elf *symelf = e->main.elf;

	if (!find_scn_type(&e->main, SHT_SYMTAB) && (dbg = debug_file(im)) &&
	    find_scn_type(dbg, SHT_SYMTAB))
		symelf = dbg->elf;
	return sp_elf_code_load(im, e->main.elf, symelf, c, err);
}

static void elf_free(struct sp_image *im)
{
	struct elf_image *e = EI(im);

	sp_dwtables_release(&e->tables);
	sp_dwfuncs_free(e->symfuncs);
	free(e->code);
	free(e->loads);
	free(e->alloc);
	free(e->dbg_path);
	sp_elf_file_close(&e->dbg);
	sp_elf_file_close(&e->main);
	free(e);
}

/* ---- runtime symbolization (internal.h) ---- */

int sp_image_is_elf(const struct sp_image *im)
{
	return im->ops == &sp_elf_image_ops;
}

static void read_loads(struct elf_image *e)
{
	size_t i, n, alloc = 0;

	e->loads_read = 1;
	if (elf_getphdrnum(e->main.elf, &n) < 0)
		return;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct sp_elf_load *l;

		if (!gelf_getphdr(e->main.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		SP_ALLOC_GROW(e->loads, e->nloads + 1, alloc);
		l = &e->loads[e->nloads++];
		l->vaddr = ph.p_vaddr;
		l->offset = ph.p_offset;
		l->filesz = ph.p_filesz;
		l->memsz = ph.p_memsz;
		l->align = ph.p_align;
		l->flags = ph.p_flags;
	}
}

void sp_elf_image_info(struct sp_image *im, struct sp_elf_info *out)
{
	struct elf_image *e = EI(im);

	if (!e->loads_read)
		read_loads(e);
	memset(out, 0, sizeof(*out));
	out->e_type = e->main.ehdr.e_type;
	out->loads = e->loads;
	out->nloads = e->nloads;
	build_id(&e->main, &out->build_id, &out->build_id_len);
	if (!out->build_id && debug_file(im))
		build_id(&e->dbg, &out->build_id, &out->build_id_len);
}

void sp_elf_image_start(struct sp_image *im)
{
	sp_dwtables_start(&EI(im)->tables, SP_PREFETCH_LINES);
}

void sp_elf_image_start_for(struct sp_image *im, const uint64_t *vaddrs, size_t n)
{
	sp_dwtables_start_for(&EI(im)->tables, vaddrs, n);
}

int sp_elf_image_covers(struct sp_image *im, uint64_t vaddr)
{
	return sp_dwtables_covers(&EI(im)->tables, vaddr);
}

void sp_elf_image_read_all(struct sp_image *im)
{
	sp_dwtables_read_all(&EI(im)->tables);
}

void sp_elf_image_set_cache(struct sp_image *im, const char *dir)
{
	sp_dwtables_set_cache(&EI(im)->tables, dir);
}

int sp_elf_image_from_cache(struct sp_image *im)
{
	return sp_dwtables_from_cache(&EI(im)->tables);
}

void sp_elf_image_uncache(struct sp_image *im)
{
	sp_dwtables_uncache(&EI(im)->tables);
}

/*
 * The table of the ELF symbols alone, from the symbol cache when the image
 * has a cache directory and a build-id (walking and sorting a library's
 * thousands of symbols is a fixed cost of every run), else built and saved
 * there.
 */
static struct sp_dwfuncs *symbols_only(struct sp_image *im)
{
	struct elf_image *e = EI(im);
	const char *dir = sp_dwtables_cache_dir(&e->tables);
	struct sp_dwcache_key k;
	struct sp_dwfuncs *f;
	char *real;

	memset(&k, 0, sizeof(k));
	if (dir)
		build_id(&e->main, &k.build_id, &k.build_id_len);
	if (!k.build_id || !(real = realpath(im->path, NULL)))
		return sp_dwfuncs_new_syms(e->main.elf, &im->strs);
	k.dwarf_path = real;
	f = sp_dwcache_load_syms(dir, &k, &im->strs);
	if (!f) {
		f = sp_dwfuncs_new_syms(e->main.elf, &im->strs);
		sp_dwcache_store_syms(dir, &k, f);
	}
	free(real);
	return f;
}

struct sp_dwfuncs *sp_elf_image_funcs(struct sp_image *im, const struct sp_linetab **lines)
{
	struct elf_image *e = EI(im);
	struct sp_dwfuncs *f = sp_dwtables_funcs(&e->tables);

	*lines = e->tables.lines;
	if (f)
		return f;
	if (!e->symfuncs_tried) {
		e->symfuncs_tried = 1;
		e->symfuncs = symbols_only(im);
	}
	*lines = NULL;
	return e->symfuncs;
}

static int cmp_range(const void *a, const void *b, void *ctx)
{
	const uint64_t *x = a, *y = b;

	(void)ctx;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The allocated sections' ranges, sorted, those that touch or overlap
 * merged: a lookup is a binary search in a handful. */
static void find_alloc(struct elf_image *e)
{
	Elf_Scn *scn = NULL;
	size_t i, n = 0, alloc = 0;

	e->alloc_found = 1;
	while ((scn = elf_nextscn(e->main.elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		SP_ALLOC_GROW(e->alloc, e->nalloc + 1, alloc);
		e->alloc[e->nalloc][0] = sh.sh_addr;
		e->alloc[e->nalloc][1] = sh.sh_addr + sh.sh_size;
		e->nalloc++;
	}
	sp_sort(e->alloc, e->nalloc, sizeof(*e->alloc), cmp_range, NULL);
	for (i = 0; i < e->nalloc; i++) {
		if (n && e->alloc[i][0] <= e->alloc[n - 1][1]) {
			if (e->alloc[i][1] > e->alloc[n - 1][1])
				e->alloc[n - 1][1] = e->alloc[i][1];
			continue;
		}
		e->alloc[n][0] = e->alloc[i][0];
		e->alloc[n++][1] = e->alloc[i][1];
	}
	e->nalloc = n;
	for (i = 1, e->alloc_big = 0; i < n; i++)
		if (e->alloc[i][1] - e->alloc[i][0] >
		    e->alloc[e->alloc_big][1] - e->alloc[e->alloc_big][0])
			e->alloc_big = i;
}

int sp_elf_image_in_alloc(struct sp_image *im, uint64_t vaddr)
{
	struct elf_image *e = EI(im);
	size_t lo = 0, hi;

	if (!e->alloc_found)
		find_alloc(e);
	if (!e->nalloc)
		return 0;
	/* most addresses are code: the largest range first */
	if (vaddr >= e->alloc[e->alloc_big][0] && vaddr < e->alloc[e->alloc_big][1])
		return 1;
	/* the last range that starts at or below vaddr */
	hi = e->nalloc;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->alloc[mid][0] <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && vaddr < e->alloc[lo - 1][1];
}

int sp_elf_image_data_line(struct sp_image *im, uint64_t vaddr, const char **file, uint32_t *line)
{
	struct elf_image *e = EI(im);

	if (sp_image_in_code(im, vaddr))
		return 0;
	return sp_dwvars_find(sp_dwtables_vars(&e->tables, e->main.elf), from_target(e, vaddr),
			      file, line);
}

/* Version names of a dynamic symbol table, as bfd composes them for nm. */
struct versions {
	Elf_Data *versym;
	const char **defname; /* by version index */
	uint16_t *defflags;
	size_t ndefs; /* bfd's cverdefs: the highest index defined */
	size_t nalloc;
	const char **needname; /* .gnu.version_r: the name of version index i */
	size_t nneed;	       /* entries of needname */
};

/* The versions the file needs (.gnu.version_r): a symbol the executable
 * defines for a library (a copy-relocated `stdout`) carries one of them. */
static void read_verneeds(const struct sp_elf_file *f, Elf_Scn *scn, const GElf_Shdr *sh,
			  struct versions *v)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, i, k;

	for (i = 0; d && i < sh->sh_info; i++) {
		GElf_Verneed vn;
		size_t aoff;

		if (!gelf_getverneed(d, (int)off, &vn))
			break;
		aoff = off + vn.vn_aux;
		for (k = 0; k < vn.vn_cnt; k++) {
			GElf_Vernaux va;
			size_t ndx;

			if (!gelf_getvernaux(d, (int)aoff, &va))
				break;
			ndx = va.vna_other & 0x7fff;
			if (ndx >= v->nneed) {
				size_t old = v->nneed;

				v->nneed = ndx + 16u;
				v->needname =
					sp_xreallocarray(v->needname, v->nneed, sizeof(char *));
				memset(v->needname + old, 0, (v->nneed - old) * sizeof(char *));
			}
			v->needname[ndx] = elf_strptr(f->elf, sh->sh_link, va.vna_name);
			if (!va.vna_next)
				break;
			aoff += va.vna_next;
		}
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
}

static void read_verdefs(const struct sp_elf_file *f, struct versions *v)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, i;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_GNU_versym)
			v->versym = elf_getdata(scn, NULL);
		if (sh.sh_type == SHT_GNU_verneed)
			read_verneeds(f, scn, &sh, v);
		if (sh.sh_type != SHT_GNU_verdef || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_info; i++) {
			GElf_Verdef vd;
			GElf_Verdaux va;

			if (!gelf_getverdef(d, (int)off, &vd))
				break;
			if (vd.vd_ndx >= v->nalloc) {
				size_t old = v->nalloc;

				v->nalloc = vd.vd_ndx + 16u;
				v->defname =
					sp_xreallocarray(v->defname, v->nalloc, sizeof(char *));
				v->defflags =
					sp_xreallocarray(v->defflags, v->nalloc, sizeof(uint16_t));
				memset(v->defname + old, 0, (v->nalloc - old) * sizeof(char *));
				memset(v->defflags + old, 0, (v->nalloc - old) * sizeof(uint16_t));
			}
			if (vd.vd_cnt && gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
				v->defname[vd.vd_ndx] = elf_strptr(f->elf, sh.sh_link, va.vda_name);
			v->defflags[vd.vd_ndx] = vd.vd_flags;
			if (vd.vd_ndx > v->ndefs)
				v->ndefs = vd.vd_ndx;
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
	}
}

/* _bfd_elf_get_symbol_version_string() without base_p: "" or a name. */
static const char *version_of(const struct versions *v, size_t i, const char *name, int *hidden)
{
	GElf_Versym vs;
	size_t n;

	*hidden = 0;
	if (!v->versym || !gelf_getversym(v->versym, (int)i, &vs))
		return "";
	*hidden = (vs & 0x8000) != 0;
	n = vs & 0x7fff;
	if (n == 0)
		return "";
	if (n == 1 && (n > v->ndefs || (v->defflags && v->defflags[1] == VER_FLG_BASE)))
		return "";
	if (n <= v->ndefs) {
		const char *node = v->defname[n];

		return node && strcmp(name, node) ? node : "";
	}
	/* a needed version (bfd: always hidden, "<corrupt>" if unknown) */
	*hidden = 1;
	if (!v->needname && !v->ndefs)
		return "";
	return n < v->nneed && v->needname[n] ? v->needname[n] : "<corrupt>";
}

static int nm_walk(struct sp_image *im, Elf_Scn *symscn, int dynamic,
		   int (*fn)(void *, const struct sp_nm_sym *), void *ctx)
{
	struct elf_image *e = EI(im);
	const struct sp_elf_file *f = &e->main;
	struct versions v;
	Elf_Data *d = elf_getdata(symscn, NULL), *strd = NULL;
	struct sec_letters letters;
	Elf_Scn *strscn;
	GElf_Shdr sh, strsh;
	size_t i, n, shown = 0;
	int ret = 0;

	memset(&v, 0, sizeof(v));
	if (!d || !gelf_getshdr(symscn, &sh) || !sh.sh_entsize)
		return 0;
	if (dynamic)
		read_verdefs(f, &v);
	/* a string table that ends with a NUL holds every name at an offset
	 * within it whole: no elf_strptr() per symbol */
	if (!(strscn = elf_getscn(f->elf, sh.sh_link)) || !gelf_getshdr(strscn, &strsh) ||
	    strsh.sh_type != SHT_STRTAB || (strsh.sh_flags & SHF_COMPRESSED) ||
	    !(strd = elf_getdata(strscn, NULL)) || !strd->d_buf || !strd->d_size ||
	    ((const char *)strd->d_buf)[strd->d_size - 1])
		strd = NULL;
	sec_letters_init(&letters, f);
	n = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < n && ret == 0; i++) {
		struct sp_nm_sym ns;
		struct raw_sym r;
		GElf_Sym s;
		uint64_t vma;
		int hidden;

		if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) == STT_SECTION ||
		    GELF_ST_TYPE(s.st_info) == STT_FILE || s.st_shndx == SHN_UNDEF)
			continue;
		memset(&r, 0, sizeof(r));
		memset(&ns, 0, sizeof(ns));
		if (strd)
			ns.name = s.st_name < strd->d_size ? (const char *)strd->d_buf + s.st_name
							   : NULL;
		else
			ns.name = elf_strptr(f->elf, sh.sh_link, s.st_name);
		if (!ns.name)
			continue;
		ns.type = sym_letter(f, &letters, &s, s.st_shndx, &r, &vma);
		ns.addr = s.st_value;
		ns.index = i;
		ns.version = dynamic ? version_of(&v, i, ns.name, &hidden) : "";
		ns.hidden = dynamic && hidden;
		shown++;
		ret = fn(ctx, &ns);
	}
	sec_letters_release(&letters);
	free(v.defname);
	free(v.defflags);
	free(v.needname);
	return ret < 0 ? ret : (int)shown;
}

int sp_elf_image_nm(struct sp_image *im, int (*fn)(void *ctx, const struct sp_nm_sym *s), void *ctx)
{
	struct elf_image *e = EI(im);
	Elf_Scn *s;
	int r;

	if ((s = find_scn_type(&e->main, SHT_SYMTAB)) && (r = nm_walk(im, s, 0, fn, ctx)) != 0)
		return r;
	if ((s = find_scn_type(&e->main, SHT_DYNSYM)))
		return nm_walk(im, s, 1, fn, ctx);
	return 0;
}

const struct image_ops sp_elf_image_ops = {
	.name = "elf",
	.for_each_sym = elf_for_each_sym,
	.text = elf_text,
	.text_bytes = elf_text_bytes,
	.src_line = elf_src_line,
	.for_each_line = elf_for_each_line,
	.prefetch = elf_prefetch,
	.prefetch_query = elf_prefetch_query,
	.in_code = elf_in_code,
	.code = elf_code,
	.symbol_value = elf_symbol_value,
	.has_func_syms = 1,
	.free = elf_free,
};

int sp_elf_image_open(struct sp_image *im, struct sp_error *err)
{
	struct elf_image *e = sp_xcalloc(1, sizeof(*e));
	int r;

	elf_version(EV_CURRENT);
	e->dbg.fd = -1;
	r = sp_elf_file_open(&e->main, im->path);
	if (r != 0) {
		free(e);
		if (r < 0)
			return sp_error_errno(err, SP_E_OPEN, "cannot open '%s'", im->path);
		return 1;
	}
	im->priv = e;
	sp_dwtables_init(&e->tables, im);
	im->ops = &sp_elf_image_ops;
	im->target.is_elf = 1;
	im->target.ptr_size = e->main.ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	im->target.big_endian = e->main.ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	im->target.machine = e->main.ehdr.e_machine;
	im->target.sign_extend = e->main.ehdr.e_machine == EM_MIPS;
	e->sext32 = im->target.sign_extend && im->target.ptr_size == 4;
	im->target.is_relocatable = e->main.ehdr.e_type == ET_REL;
	im->target.leading_char = 0;
	return 0;
}
