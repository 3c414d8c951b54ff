/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * From the frames of a stack profile to the functions sp_cg_from_cct()
 * and the stack renderers count: each frame expands to its inline chain,
 * outermost first (the function the address is in, then the functions
 * inlined into it down to the innermost), so that inlined calls become
 * arcs like any other call.
 *
 * A function is identified by its object and its raw (mangled) name; with
 * line granularity by its object, name, file and line (each frame of an
 * inline chain then is the line of its call site, the innermost the line
 * of the address). A frame the symbolizer cannot name is one function per
 * address, "0xADDR (in OBJECT)". A frame the profiler named itself
 * (SP_FRAME_NAMED, IgProf) keeps that name, or with SP_FF_RESOLVE_NAMED is
 * looked up like the others and keeps it only when nothing else names it.
 * IgProf's pipeline also asks for the function the address is in without
 * its inline chain (what igprof-analyse -g names), clones merged onto
 * their origin (--merge-clones), and igprof-analyse's names for unknown
 * frames.
 */
#include "symprof/cg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/buf.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"

struct ffbuild {
	struct sp_frame_funcs *ff;
	struct sp_pairmap index; /* interned key -> function */
	const char **keys;	 /* per function */
	size_t nfuncs, keys_alloc, objs_alloc, list_alloc;
	struct sp_buf key;
};

static void fn_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct ffbuild *b = ctx;

	*k1 = (uint64_t)(uintptr_t)b->keys[i];
	*k2 = 0;
}

/* The function for (object, name[, file, line]), created on first use;
 * `linkage`: the name is a linkage name (see struct sp_symbol). */
static uint32_t function(struct ffbuild *b, uint32_t obj, const char *name, int linkage,
			 const char *file, uint32_t line, int with_line)
{
	struct sp_symtab *t = b->ff->funcs;
	const char *key;
	struct sp_symbol *s;
	uint32_t i;

	sp_buf_reset(&b->key);
	sp_buf_addf(&b->key, "%u\x1f%s", obj, name);
	if (with_line)
		sp_buf_addf(&b->key, "\x1f%s\x1f%u", file ? file : "??", line);
	key = sp_strtab_intern(&t->strs, b->key.buf);
	i = sp_pairmap_get(&b->index, (uint64_t)(uintptr_t)key, 0);
	if (i != UINT32_MAX) {
		if (!b->ff->file[i] && file)
			b->ff->file[i] = sp_strtab_intern(&t->strs, file);
		return i;
	}
	s = sp_symtab_add(t);
	s->name = sp_strtab_intern(&t->strs, name);
	s->is_func = 1;
	s->no_linkage = !linkage;
	if (with_line && file) {
		s->file = sp_symtab_file(t, file);
		s->line = (int)line;
	}
	SP_ALLOC_GROW(b->keys, b->nfuncs + 1, b->keys_alloc);
	SP_ALLOC_GROW(b->ff->object, b->nfuncs + 1, b->objs_alloc);
	b->ff->file = sp_xreallocarray(b->ff->file, b->objs_alloc, sizeof(*b->ff->file));
	b->keys[b->nfuncs] = key;
	b->ff->object[b->nfuncs] = obj;
	b->ff->file[b->nfuncs] = file ? sp_strtab_intern(&t->strs, file) : NULL;
	sp_pairmap_put(&b->index, (uint64_t)(uintptr_t)key, 0, (uint32_t)b->nfuncs);
	return (uint32_t)b->nfuncs++;
}

static void push(struct ffbuild *b, uint32_t fn)
{
	struct sp_frame_funcs *ff = b->ff;

	SP_ALLOC_GROW(ff->list, ff->nlist + 1, b->list_alloc);
	ff->list[ff->nlist++] = fn;
}

/* A frame nothing names: "0xADDR (in OBJECT)", or with SP_FF_IGPROF_NAMES
 * igprof-analyse's "@{BASENAME+DECIMAL OFFSET}". */
static void unknown_name(struct sp_buf *name, const struct sp_profile *p, const struct sp_frame *f,
			 unsigned flags)
{
	const char *obj = f->object < p->nobjects ? p->objects[f->object].path : NULL;

	sp_buf_reset(name);
	if (flags & SP_FF_IGPROF_NAMES) {
		const char *base = obj ? strrchr(obj, '/') : NULL;

		if (!obj || !obj[0]) /* JIT code, anonymous memory */
			sp_buf_addf(name, "@?0x%llx{<dynamically-generated>}",
				    (unsigned long long)f->addr);
		else
			sp_buf_addf(name, "@{%s+%llu}", base ? base + 1 : obj,
				    (unsigned long long)f->addr);
		return;
	}
	sp_buf_addf(name, "0x%llx (in %s)", (unsigned long long)f->addr,
		    obj && obj[0] ? obj : "??");
}

/* The length of `name` without a compiler clone suffix (.constprop.N,
 * .isra.N, .part.N, .cold, and chains of them): the origin function. */
size_t sp_clone_origin_len(const char *name)
{
	static const char *const sfx[] = {".constprop", ".isra", ".part", ".cold"};
	const char *d;

	for (d = strchr(name, '.'); d; d = strchr(d + 1, '.')) {
		size_t i;

		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
			size_t n = strlen(sfx[i]);

			if (!strncmp(d, sfx[i], n) && (d[n] == '.' || d[n] == '\0'))
				return (size_t)(d - name);
		}
	}
	return strlen(name);
}

/* The function named `raw` (its clone suffix dropped if asked). */
static uint32_t named(struct ffbuild *b, uint32_t obj, const char *raw, int linkage,
		      const char *file, uint32_t line, unsigned flags, struct sp_buf *tmp)
{
	size_t n;

	if (!(flags & SP_FF_MERGE_CLONES) || (n = sp_clone_origin_len(raw)) == strlen(raw) || !n)
		return function(b, obj, raw, linkage, file, line, flags & SP_FF_LINES);
	sp_buf_reset(tmp);
	sp_buf_add(tmp, raw, n);
	return function(b, obj, tmp->buf, linkage, file, line, flags & SP_FF_LINES);
}

static void expand(struct ffbuild *b, const struct sp_profile *p, struct sp_symbolizer *s,
		   uint32_t frame, unsigned flags, struct sp_buf *name)
{
	const struct sp_frame *f = &p->frames[frame];
	const struct sp_symloc *loc = NULL;
	uint32_t k, last;

	if ((f->flags & SP_FRAME_NAMED) && !(flags & SP_FF_RESOLVE_NAMED)) {
		push(b, named(b, f->object, f->name, 1, NULL, 0, flags & ~SP_FF_LINES, name));
		return;
	}
	if (s)
		loc = sp_symbolizer_frame(s, p, frame);
	if (!loc || !loc->nframes || !loc->frames[loc->nframes - 1].func) {
		if (f->flags & SP_FRAME_NAMED) {
			push(b,
			     named(b, f->object, f->name, 1, NULL, 0, flags & ~SP_FF_LINES, name));
			return;
		}
		unknown_name(name, p, f, flags);
		push(b, function(b, f->object, name->buf, 0, NULL, 0, 0));
		return;
	}
	last = (flags & SP_FF_OUTERMOST) ? loc->nframes - 1 : 0;
	for (k = loc->nframes; k > last; k--) {
		const struct sp_sym_frame *sf = &loc->frames[k - 1];

		if (!sf->func) {
			unknown_name(name, p, f, flags);
			push(b, function(b, f->object, name->buf, 0, NULL, 0, 0));
			continue;
		}
		push(b, named(b, f->object, sf->func, sf->func_linkage, sf->file, sf->line, flags,
			      name));
	}
}

void sp_frame_funcs_build_flags(struct sp_frame_funcs *ff, const struct sp_profile *p,
				struct sp_symbolizer *s, unsigned flags)
{
	struct ffbuild b;
	struct sp_buf name = SP_BUF_INIT;
	size_t i;

	memset(ff, 0, sizeof(*ff));
	memset(&b, 0, sizeof(b));
	b.ff = ff;
	sp_buf_init(&b.key, 128);
	sp_pairmap_init(&b.index, fn_key, &b);
	ff->funcs = sp_symtab_new();
	ff->first = sp_xmalloc((p->nframes + 1) * sizeof(*ff->first));
	for (i = 0; i < p->nframes; i++) {
		ff->first[i] = (uint32_t)ff->nlist;
		expand(&b, p, s, (uint32_t)i, flags, &name);
	}
	ff->first[p->nframes] = (uint32_t)ff->nlist;
	sp_pairmap_release(&b.index);
	sp_buf_release(&b.key);
	sp_buf_release(&name);
	free(b.keys);
}

void sp_frame_funcs_build(struct sp_frame_funcs *ff, const struct sp_profile *p,
			  struct sp_symbolizer *s, int line_granularity)
{
	sp_frame_funcs_build_flags(ff, p, s, line_granularity ? SP_FF_LINES : 0);
}

void sp_frame_funcs_release(struct sp_frame_funcs *ff)
{
	sp_symtab_free(ff->funcs);
	free(ff->first);
	free(ff->list);
	free(ff->object);
	free(ff->file);
	memset(ff, 0, sizeof(*ff));
}
