/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The function symbol table gprof builds (gprof.md 4.1; corefile.c
 * core_sym_class and core_create_function_syms in binutils 2.40):
 *
 *  - kept: global text symbols ('T'), weak symbols of any section ('W',
 *    treated as global text), and static text symbols ('t') unless -a;
 *  - a static name is dropped if it is empty, contains '$', or contains a
 *    '.' not followed only by digits (".clone." and ".constprop." are
 *    allowed before the digits), so ".isra.0", ".part.0", ".cold" and
 *    ".lto_priv.0" go and their code belongs to the symbol before them;
 *  - statics that do not start with the target's leading character, and
 *    __gnu_compiled* labels, are dropped; with -D statics that are not
 *    functions too;
 *  - with a -R map, only the first function of each object file is kept,
 *    renamed to the object file;
 *  - every kept symbol gets the file and line of its address from DWARF.
 */
#include "internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/error.h"
#include "symprof/strtab.h"

struct build_ctx {
	struct sp_image *im;
	const struct sp_gprof_symopts *o;
	struct sp_symtab *t;
};

/* A character of the string table, NUL past its end. */
static inline char at(const char *p, const char *limit)
{
	return limit && p >= limit ? '\0' : *p;
}

static size_t bounded_len(const char *p, const char *limit)
{
	const char *q = p;

	while (at(q, limit))
		q++;
	return (size_t)(q - p);
}

/*
 * gprof's filter for static names, step by step. When a ".digits" suffix
 * runs to the end of the name, gprof's loop steps over the terminating NUL
 * and goes on scanning the next string of the string table, so whether
 * "f.constprop.0" is kept depends on the name stored after it (the next
 * one holding a '.' or '$' drops it). `limit` bounds that walk.
 */
static int static_name_ok(const char *name, const char *limit)
{
	const char *p;
	size_t len;

	if (!name || !*name)
		return 0;
	/* most names have neither '.' nor '$': kept, as the walk below finds */
	if (!limit || limit > name) {
		p = limit ? memchr(name, '\0', (size_t)(limit - name)) : name + strlen(name);
		len = (size_t)((p ? p : limit) - name);
		if (!memchr(name, '.', len) && !memchr(name, '$', len))
			return 1;
	}
	for (p = name; at(p, limit); ++p) {
		if (*p == '$')
			return 0;
		while (at(p, limit) == '.') {
			int digit_seen = 0;

			if (bounded_len(p, limit) > 7 && !strncmp(p, ".clone.", 7))
				p += 6;
			else if (bounded_len(p, limit) > 11 && !strncmp(p, ".constprop.", 11))
				p += 10;
			for (p++; at(p, limit); p++) {
				if (digit_seen && *p == '.')
					break;
				if (isdigit((unsigned char)*p))
					digit_seen = 1;
				else
					return 0;
			}
		}
		/* without a known table end, stop at the name's own NUL */
		if ((limit && p >= limit) || (!limit && !*p))
			break;
	}
	return 1;
}

/* gprof's core_sym_class(): 0 (drop), 'T' or 't'. */
static int sym_class(const struct build_ctx *c, const struct raw_sym *s)
{
	char lead = c->im->target.leading_char;

	if (!s->has_section || s->debugging)
		return 0;
	if (c->o->no_static && s->local)
		return 0;
	if (s->type == 'T' || s->type == 'W')
		return 'T';
	if (s->type != 't' || c->o->no_static)
		return 0;
	if (!static_name_ok(s->name, s->name_limit) &&
	    !(c->o->keep_clones && sp_is_clone_name(s->name, NULL)))
		return 0;
	if ((lead && lead != s->name[0]) || !strncmp(s->name, "__gnu_compiled", 14) ||
	    !strncmp(s->name, "___gnu_compiled", 15))
		return 0;
	if (c->o->ignore_non_functions && !s->function)
		return 0;
	return 't';
}

static const struct sp_function_map_entry *map_find(const struct sp_function_map *m,
						    const char *name)
{
	size_t lo = 0, hi;

	if (!m || !m->len)
		return NULL;
	hi = m->len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int r = strcmp(name, m->entries[mid].function_name);

		if (!r)
			return &m->entries[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int add_sym(void *vctx, const struct raw_sym *s)
{
	struct build_ctx *c = vctx;
	const struct sp_function_map_entry *found;
	struct sp_symbol *sym;
	const char *file;
	int cls = sym_class(c, s), line;

	if (!cls) {
		if (c->o->debug)
			fprintf(c->o->debug, "[core_create_function_syms] rejecting: 0x%llx %s\n",
				(unsigned long long)s->addr, s->name);
		return 0;
	}
	found = map_find(c->o->map, s->name);
	if (found && !found->is_first)
		return 0;
	if (!c->t->syms_alloc && s->count_hint) {
		/* the table at its final size, reserved once (its untouched
		 * end costs nothing) */
		sp_symtab_reserve(c->t, s->count_hint);
		if (c->o->defer_files)
			SP_ALLOC_GROW(c->t->pending, s->count_hint, c->t->pending_alloc);
	}
	sym = sp_symtab_add(c->t);
	sym->addr = s->addr;
	sym->size = s->size;
	if (found) {
		sym->name = sp_strtab_intern(&c->t->strs, found->file_name);
		sym->mapped = 1;
	} else {
		sym->name = sp_strtab_intern(&c->t->strs, s->name);
	}
	if (c->o->defer_files) {
		SP_ALLOC_GROW(c->t->pending, c->t->npending + 1, c->t->pending_alloc);
		c->t->pending[c->t->npending++] = sym->addr;
	} else if (sp_image_src_line(c->im, sym->addr, &file, &line) == 0) {
		sym->file = sp_symtab_file(c->t, file);
		sym->line = line;
	}
	sym->is_func = !c->im->ops->has_func_syms || s->function;
	sym->is_bb_head = 1;
	sym->is_static = cls == 't';
	if (c->o->debug)
		fprintf(c->o->debug, "[core_create_function_syms] %zu %s 0x%llx\n", c->t->len - 1,
			sym->name, (unsigned long long)sym->addr);
	return 0;
}

/* ---- --precise: sizes and clones ---- */

/* A symbol with an ELF size ends there (padding and unsymbolized code then
 * belong to nobody) instead of at the next symbol as in gprof. */
static void end_at_sizes(struct sp_symtab *t)
{
	size_t i;

	for (i = 0; i < t->len; i++) {
		struct sp_symbol *s = &t->syms[i];

		if (s->size && s->addr + s->size - 1 < s->end_addr)
			s->end_addr = s->addr + s->size - 1;
	}
}

static const char *const clone_words[] = {"constprop", "isra",	   "part",	 "cold",
					  "clone",     "lto_priv", "localalias", "specialized"};

/* Is s[0..n) one of GCC's clone suffix words? */
static int clone_word(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(clone_words) / sizeof(clone_words[0]); i++)
		if (strlen(clone_words[i]) == n && !strncmp(s, clone_words[i], n))
			return 1;
	return 0;
}

int sp_is_clone_name(const char *name, size_t *base_len)
{
	const char *dot = strchr(name, '.'), *p;
	int words = 0;

	if (!dot || dot == name)
		return 0;
	for (p = dot; *p;) {
		const char *q;

		p++;
		for (q = p; *q && *q != '.'; q++)
			;
		if (clone_word(p, (size_t)(q - p)))
			words++;
		else if (q == p || strspn(p, "0123456789") != (size_t)(q - p))
			return 0;
		p = q;
	}
	if (!words)
		return 0;
	if (base_len)
		*base_len = (size_t)(dot - name);
	return 1;
}

/* The symbol named exactly `base` (base_len bytes), preferring `file`. */
static size_t find_origin(const struct sp_symtab *t, const char *base, size_t base_len,
			  const struct sp_srcfile *file, size_t self)
{
	size_t j, any = SIZE_MAX;

	for (j = 0; j < t->len; j++) {
		const struct sp_symbol *c = &t->syms[j];

		if (j == self || strlen(c->name) != base_len || strncmp(c->name, base, base_len))
			continue;
		if (c->file == file)
			return j;
		if (any == SIZE_MAX)
			any = j;
	}
	return any;
}

size_t *sp_symtab_clone_origins(struct sp_symtab *t)
{
	size_t *o = sp_xmalloc((t->len + 1) * sizeof(*o)), i, j, base;

	for (i = 0; i < t->len; i++) {
		const struct sp_symbol *s = &t->syms[i];

		o[i] = SIZE_MAX;
		if (s->is_func && sp_is_clone_name(s->name, &base))
			o[i] = find_origin(t, s->name, base, s->file, i);
	}
	/* clones whose origin was inlined away: the first one of each origin
	 * name stands for it, under that name, and the others join it */
	for (i = 0; i < t->len; i++) {
		struct sp_symbol *s = &t->syms[i];

		if (o[i] != SIZE_MAX || !s->is_func || !sp_is_clone_name(s->name, &base))
			continue;
		for (j = i + 1; j < t->len; j++) {
			const struct sp_symbol *c = &t->syms[j];
			size_t cb;

			if (o[j] == SIZE_MAX && c->is_func && c->file == s->file &&
			    sp_is_clone_name(c->name, &cb) && cb == base &&
			    !strncmp(c->name, s->name, base))
				o[j] = i;
		}
		s->name = sp_strtab_intern_n(&t->strs, s->name, base);
	}
	return o;
}

/* ---- line symbols (-l; gprof's core_create_line_syms) ---- */

#define LINE_MEMO 2048 /* a power of two */

struct line_ctx {
	struct sp_symtab *t;	 /* the finalized function table */
	struct sp_symbol *lines; /* the new line symbols */
	size_t n, alloc;
	FILE *debug;
	/* the previous answer, as the image named it (its strings are
	 * interned there: equal names are equal pointers) */
	const char *last_func, *last_name, *last_file;
	const struct sp_srcfile *last_sf;
	/* earlier answers, by the image's pointer: a function's lines come
	 * in runs that its inlined callees' lines interrupt */
	struct {
		const char *func, *name;
	} names[LINE_MEMO];
	struct {
		const char *file;
		const struct sp_srcfile *sf;
	} files[LINE_MEMO];
};

static int add_line(void *vctx, uint64_t addr, const char *file, int line, const char *func)
{
	struct line_ctx *c = vctx;
	const struct sp_symbol *prev = c->n ? &c->lines[c->n - 1] : NULL, *fsym;
	struct sp_symbol *l;
	const char *name;
	const struct sp_srcfile *sf;

	if (!file || !func || !line)
		return 0;
	if (func != c->last_func) {
		size_t k = sp_ptr_slot(func, LINE_MEMO);

		c->last_func = func;
		if (c->names[k].func != func) {
			c->names[k].func = func;
			c->names[k].name = sp_strtab_intern(&c->t->strs, func);
		}
		c->last_name = c->names[k].name;
	}
	name = c->last_name;
	if (prev && prev->line == line && prev->name == name && file == c->last_file)
		return 0;
	if (file != c->last_file) {
		size_t k = sp_ptr_slot(file, LINE_MEMO);

		c->last_file = file;
		if (c->files[k].file != file) {
			c->files[k].file = file;
			c->files[k].sf = sp_symtab_file(c->t, file);
		}
		c->last_sf = c->files[k].sf;
	}
	sf = c->last_sf;
	SP_ALLOC_GROW(c->lines, c->n + 1, c->alloc);
	prev = c->n ? &c->lines[c->n - 1] : NULL; /* the array may have moved */
	l = &c->lines[c->n++];
	memset(l, 0, sizeof(*l));
	l->name = name;
	l->file = sf;
	l->line = line;
	l->addr = addr;
	l->is_line = 1;
	if (prev && sf == prev->file && name == prev->name)
		l->is_static = prev->is_static;
	else if ((fsym = sp_symtab_lookup(c->t, addr)))
		l->is_static = fsym->is_static;
	if (c->debug)
		fprintf(c->debug, "[core_create_line_syms] %zu %s 0x%llx\n", c->n - 1, name,
			(unsigned long long)addr);
	return 0;
}

/* Adds one symbol per source line of .text to a finalized function table
 * and finalizes again: function symbols win over line symbols at the same
 * address and keep their function-wide end addresses, as in gprof. */
static int add_line_syms(struct sp_image *im, struct sp_symtab *t, FILE *debug,
			 struct sp_error *err)
{
	struct line_ctx c;
	uint64_t vma, size;
	size_t i;
	int ret;

	if (!im->ops->for_each_line || im->ops->text(im, &vma, &size, err) < 0)
		return 0;
	memset(&c, 0, sizeof(c));
	c.t = t;
	c.debug = debug;
	ret = im->ops->for_each_line(im, vma, vma + size, add_line, &c, err);
	if (ret == 0) {
		/*
		 * gprof sorts the line symbols followed by the functions; both
		 * runs are sorted already, so merging them (lines first on ties)
		 * gives the same order as its stable sort.
		 */
		size_t nf = t->len, j = c.n, k = nf, n = c.n + nf;
		struct sp_symbol *m;

		/*
		 * In place, from the back, in the lines' array grown by the
		 * functions (megabytes with -l: a second array was as many
		 * fresh pages, and a copy): of the last line and the last
		 * function left, the one above goes last, the function on a
		 * tie (lines come first).
		 */
		m = sp_xreallocarray(c.lines, c.n + nf + 2, sizeof(*m));
		c.lines = NULL;
		while (k > 0) {
			if (j > 0 && sp_symbol_cmp_addr(&m[j - 1], &t->syms[k - 1]) > 0)
				m[--n] = m[--j];
			else
				m[--n] = t->syms[--k];
		}
		memset(&m[c.n + nf], 0, sizeof(*m));
		free(t->syms);
		t->syms = m;
		t->len = c.n + nf;
		t->syms_alloc = c.n + nf + 2;
		sp_symtab_finalize_sorted(t);
	}
	free(c.lines);
	(void)i;
	return ret;
}

/* Starts the line table for the static symbols' addresses alone (before
 * the table is finalized, pending[i] is the address of syms[i]). */
static void prefetch_statics(struct sp_image *im, const struct sp_symtab *t)
{
	uint64_t *addrs = sp_xreallocarray(NULL, t->len + 1, sizeof(*addrs));
	size_t i, n = 0;

	for (i = 0; i < t->len; i++)
		if (t->syms[i].is_static)
			addrs[n++] = t->syms[i].addr;
	im->ops->prefetch_query(im, addrs, n);
	free(addrs);
}

struct sp_symtab *sp_image_gprof_symtab(struct sp_image *im, const struct sp_gprof_symopts *o,
					struct sp_error *err)
{
	struct build_ctx c;
	uint64_t vma, size;
	int query;

	if (im->ops->text(im, &vma, &size, err) < 0)
		return NULL;
	if (o->external_symtab)
		return sp_symtab_from_nm(o->external_symtab, vma + size - 1, err);
	/* the lines are read on another thread: from the start, or once the
	 * symbols say which addresses the files will be asked for */
	query = o->defer_files && o->files_only && im->ops->prefetch_query;
	if (im->ops->prefetch && !(o->defer_files && o->no_prefetch) && !query)
		im->ops->prefetch(im, SP_PREFETCH_LINES |
					      (o->line_granularity ? SP_PREFETCH_FUNCS : 0));
	c.im = im;
	c.o = o;
	c.t = sp_symtab_new();
	c.t->text_end = vma + size - 1;
	if (im->ops->for_each_sym(im, add_sym, &c, err) < 0) {
		sp_symtab_free(c.t);
		return NULL;
	}
	if (query && !o->no_prefetch && o->statics_only)
		prefetch_statics(im, c.t);
	else if (query && !o->no_prefetch)
		im->ops->prefetch_query(im, c.t->pending, c.t->npending);
	if (!c.t->len) {
		sp_error_set(err, SP_E_NOSYMS, "cannot read '%s': file has no symbols", im->path);
		sp_symtab_free(c.t);
		return NULL;
	}
	sp_symtab_finalize(c.t);
	if (o->use_sizes)
		end_at_sizes(c.t);
	if (o->line_granularity && add_line_syms(im, c.t, o->debug, err) < 0) {
		sp_symtab_free(c.t);
		return NULL;
	}
	if (o->debug) {
		size_t i;

		for (i = 0; i < c.t->len; i++)
			fprintf(o->debug, "[symtab_finalize] 0x%llx-0x%llx\t%s\n",
				(unsigned long long)c.t->syms[i].addr,
				(unsigned long long)c.t->syms[i].end_addr, c.t->syms[i].name);
	}
	return c.t;
}

/* The files of the pending symbols (of the static ones only if `statics`). */
static void symtab_files(struct sp_image *im, struct sp_symtab *t, int statics)
{
	/*
	 * A symbol's file is most often one seen a few symbols before (the
	 * global symbols of the ELF table alternate between files): remember
	 * the files by the address of the name the reader gave, in a small
	 * direct-mapped cache, rather than interning each name again. A reader
	 * may reuse its buffer, so the characters are compared too.
	 */
	enum { FILE_CACHE = 256 };
	struct {
		const char *name;
		const struct sp_srcfile *sf;
	} cache[FILE_CACHE] = {{0}};
	size_t i;

	for (i = 0; i < t->npending; i++) {
		const struct sp_symbol *found;
		const struct sp_srcfile *sf;
		struct sp_symbol *sym;
		const char *file;
		size_t slot;
		int line;

		if (statics) {
			found = sp_symtab_lookup(t, t->pending[i]);
			if (!found || found->addr != t->pending[i] || found->file ||
			    !found->is_static)
				continue;
		}
		if (sp_image_src_line(im, t->pending[i], &file, &line) < 0)
			continue;
		/* the file exists (in this order) even if the symbol was a duplicate */
		slot = sp_hash_u64((uintptr_t)file) % FILE_CACHE;
		if (cache[slot].name != file || strcmp(file, cache[slot].sf->name)) {
			cache[slot].sf = sp_symtab_file(t, file);
			cache[slot].name = file;
		}
		sf = cache[slot].sf;
		found = sp_symtab_lookup(t, t->pending[i]);
		if (!found || found->addr != t->pending[i] || found->file)
			continue;
		sym = &t->syms[found - t->syms];
		sym->file = sf;
		sym->line = line;
	}
	free(t->pending);
	t->pending = NULL;
	t->npending = t->pending_alloc = 0;
}

void sp_image_symtab_files(struct sp_image *im, struct sp_symtab *t)
{
	symtab_files(im, t, 0);
}

void sp_image_symtab_static_files(struct sp_image *im, struct sp_symtab *t)
{
	symtab_files(im, t, 1);
}
