/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Lookups in a file of the runtime-address symbolizer (symfile.h): from a
 * vaddr of the file to its inline chain, innermost first, as
 * `addr2line -f -i` answers (symbolizer.c found the file and the vaddr).
 *
 * The answers are libbfd's (what addr2line prints), because google-pprof
 * and users compare with addr2line: the function of the innermost frame is
 * the DWARF function's linkage name (or the ELF symbol, see dwarf-funcs.c),
 * callers come from DW_TAG_inlined_subroutine chains, and a file without
 * DWARF answers with the nearest ELF symbol of its .symtab (or .dynsym).
 * Each address is looked up once (frames of several profiles, or return
 * addresses equal to leaf addresses, share it); the file's DWARF is read
 * on first use (in the background once asked for, see dwarf-tables.c).
 */
#include "symfile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dmcache.h"
#include "lines.h"
#include "nmcache.h"
#include "symprof/buf.h"
#include "symprof/profile.h"
#include "symprof/sort.h"

/* ---- the file ---- */

static void loc_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_symfile *f = ctx;

	*k1 = f->locs[i]->vaddr;
	*k2 = 0;
}

struct sp_symfile *sp_symfile_new(struct sp_symbolizer *s, struct sp_arena *arena,
				  struct sp_strtab *strs, const char *path, struct sp_image *im)
{
	struct sp_symfile *f = sp_xcalloc(1, sizeof(*f));

	f->s = s;
	f->arena = arena;
	f->strs = strs;
	f->path = sp_xstrdup(path);
	f->im = im;
	sp_elf_image_info(im, &f->info);
	sp_pairmap_init(&f->index, loc_key, f);
	return f;
}

static void symnames_free(struct sp_symnames *t);

void sp_symfile_free(struct sp_symfile *f)
{
	sp_symfile_session_reset(f);
	sp_pairmap_release(&f->index);
	free(f->locs);
	free(f->nm);
	if (f->nm_map)
		munmap((void *)f->nm_map, f->nm_map_size);
	free(f->nm_names);
	symnames_free(f->byname[0]);
	symnames_free(f->byname[1]);
	sp_dmcache_close(f->dm);
	sp_image_free(f->im);
	free(f->path);
	free(f);
}

const char *sp_symfile_path(const struct sp_symfile *f)
{
	return f->path;
}

const struct sp_target *sp_symfile_target(const struct sp_symfile *f)
{
	return sp_image_target(f->im);
}

const uint8_t *sp_symfile_build_id(const struct sp_symfile *f, size_t *len)
{
	*len = f->info.build_id ? f->info.build_id_len : 0;
	return f->info.build_id;
}

/* ---- lookups ---- */

static void load(struct sp_symfile *f)
{
	if (f->loaded)
		return;
	f->loaded = 1;
	f->funcs = sp_elf_image_funcs(f->im, &f->lines);
	f->funcs_gen++;
}

/* A file read partially (for the profile's addresses) is read whole when
 * an address outside those units is asked. */
static void load_for(struct sp_symfile *f, uint64_t vaddr)
{
	load(f);
	if (!sp_elf_image_covers(f->im, vaddr)) {
		sp_elf_image_read_all(f->im);
		f->loaded = 0;
		load(f);
	}
}

/* The discriminator addr2line prints: the line row's, for frame 0's line. */
static uint32_t discriminator(const struct sp_symfile *f, uint64_t vaddr,
			      const struct sp_inline_frame *fr0, struct sp_dwfuncs_cursor *cur)
{
	const struct sp_line *l;

	if (!f->lines || !fr0->line)
		return 0;
	l = cur ? sp_linetab_find_any_at(f->lines, vaddr, &cur->lines)
		: sp_linetab_find_any(f->lines, vaddr);
	if (!l)
		return 0;
	return l->line == fr0->line && l->file == fr0->file ? l->discriminator : 0;
}

/* The naming rule's names for the frames of a chain (sp_name_frame());
 * fr NULL: no DWARF function there, the one frame is the ELF symbol's. */
static void name_frames(struct sp_symfile *f, uint64_t vaddr, const struct sp_inline_frame *fr,
			size_t n, struct sp_sym_frame *out)
{
	size_t i;
	int linkage, is_linkage, inlined = 0;

	for (i = 0; i < n; i++) {
		/* the outermost frame is the function itself, unless the
		 * chain was cut short */
		if (fr && i == n - 1)
			sp_dwfuncs_fn_name(f->funcs, fr[i].fn, &is_linkage, &inlined);
		out[i].func = sp_name_frame(f->funcs, fr ? &fr[i] : NULL, i == n - 1 && !inlined,
					    vaddr, &linkage);
		out[i].func_linkage = out[i].func && linkage;
	}
}

/* 1 if naming the chain would read DIEs that tables from the index
 * cache do not have. */
static int needs_dies(struct sp_symfile *f, const struct sp_inline_frame *fr, size_t n)
{
	size_t i;

	if (!sp_elf_image_from_cache(f->im))
		return 0;
	for (i = 0; i < n; i++)
		if (sp_dwfuncs_needs_dies(f->funcs, fr[i].fn))
			return 1;
	return 0;
}

/* How compute() looks an address up. */
struct how {
	struct sp_dwfuncs_state *st;   /* one process's memory, or NULL: a fresh one */
	struct sp_dwfuncs_cursor *cur; /* where the last lookup ended, or NULL */
	int session;		       /* a session's lookup (variables in data too) */
	int names;		       /* also the naming rule's names */
	uint32_t *fns;		       /* NULL, or per frame its function (NONE_FN: none) */
	int covered;		       /* the caller ran load_for() for the address */
	int no_line;		       /* frame 0's file and line unasked (NULL, 0:
					* the line table is not read), but for a
					* frame 0 without a name */
};

#define NONE_FN UINT32_MAX

/*
 * addr2line -f -i: bfd_find_nearest_line, then bfd_find_inliner_info,
 * into out[] (MAX_INLINE entries) as `how` says. Returns the number of
 * frames.
 */
static size_t compute(struct sp_symfile *f, uint64_t vaddr, const struct how *how,
		      struct sp_sym_frame *out)
{
	struct sp_inline_frame fr[MAX_INLINE];
	struct sp_dwfuncs_cursor fresh;
	size_t n = 0, i;
	uint32_t disc = 0;
	int from_dwarf = 1;

	if (!how->covered)
		load_for(f, vaddr);
	if (!sp_elf_image_in_alloc(f->im, vaddr))
		return 0;
	memset(&fresh, 0, sizeof(fresh));
	if (f->lines && how->st && how->no_line) {
		n = sp_dwfuncs_find_state_names(f->funcs, how->st, vaddr, fr, MAX_INLINE);
		if (n && !fr[0].name)
			n = sp_dwfuncs_find_state(f->funcs, how->st, vaddr, fr, MAX_INLINE);
	} else if (f->lines) {
		n = how->st ? sp_dwfuncs_find_state(f->funcs, how->st, vaddr, fr, MAX_INLINE)
			    : sp_dwfuncs_find_at(f->funcs, vaddr, fr, MAX_INLINE,
						 how->cur ? how->cur : &fresh);
	}
	if (!n) {
		const struct sp_line *l = f->lines ? sp_linetab_find_any(f->lines, vaddr) : NULL;

		const char *symfile;

		fr[0].name = sp_dwfuncs_symbol_file(f->funcs, vaddr, &symfile);
		fr[0].file = l && l->file ? l->file : symfile;
		fr[0].line = l ? l->line : 0;
		fr[0].fn = NONE_FN;
		n = fr[0].name || l;
		from_dwarf = 0;
		/* addr2line's answer for a variable (in a session: --addr2line;
		 * a profile's frames are code) */
		if (how->session && f->lines &&
		    sp_elf_image_data_line(f->im, vaddr, &fr[0].file, &fr[0].line))
			n = 1;
	}
	if (n)
		disc = discriminator(f, vaddr, &fr[0], how->cur);
	for (i = 0; i < n; i++) {
		out[i].name = fr[i].name;
		out[i].file = fr[i].file;
		out[i].line = fr[i].line;
		out[i].discriminator = disc;
		out[i].func = NULL;
		out[i].func_linkage = 0;
		if (how->fns)
			how->fns[i] = from_dwarf ? fr[i].fn : NONE_FN;
	}
	if (how->names && from_dwarf && needs_dies(f, fr, n)) {
		/* tables from the index cache cannot name this chain: read
		 * the DWARF and look again */
		struct how again = *how;

		sp_elf_image_uncache(f->im);
		f->loaded = 0;
		again.covered = 0;
		return compute(f, vaddr, &again, out);
	}
	if (how->names)
		name_frames(f, vaddr, from_dwarf ? fr : NULL, n, out);
	return n;
}

static void fill(struct sp_symloc *loc, struct sp_symfile *f, uint64_t vaddr, size_t n)
{
	loc->reason = n ? SP_SYM_OK : SP_SYM_NO_SYMBOL;
	loc->file = f;
	loc->vaddr = vaddr;
	loc->nframes = (uint32_t)n;
}

/* A session's memory is per function of the tables it started with: when
 * those were replaced (read whole, or read from DWARF instead of the index
 * cache), it starts again. */
static void session_start(struct sp_symfile *f)
{
	if (f->session_ready && f->session_gen != f->funcs_gen)
		sp_symfile_session_reset(f);
	if (!f->session_ready) {
		sp_dwfuncs_state_init(&f->session, f->funcs);
		f->session_gen = f->funcs_gen;
		f->session_ready = 1;
	}
}

static const struct sp_symloc *lookup_session(struct sp_symfile *f, uint64_t vaddr, int no_line)
{
	struct how how = {&f->session, NULL, 1, 0, NULL, 1, no_line};

	load_for(f, vaddr);
	session_start(f);
	fill(&f->scratch, f, vaddr, compute(f, vaddr, &how, f->scratch_frames));
	f->scratch.frames = f->scratch_frames;
	return &f->scratch;
}

const struct sp_symloc *sp_symfile_lookup_session(struct sp_symfile *f, uint64_t vaddr)
{
	return lookup_session(f, vaddr, 0);
}

const struct sp_symloc *sp_symfile_lookup_session_names(struct sp_symfile *f, uint64_t vaddr)
{
	return lookup_session(f, vaddr, 1);
}

/*
 * Many session lookups at once. The chains are found in address order
 * (each distinct address once, the lookups stepping forward through the
 * tables instead of missing the cache at random), then handed out in the
 * callers' order, where the one thing a session remembers is replayed:
 * the names bfd gives functions without a linkage name (rule 8 of
 * dwarf-funcs.c, sp_dwfuncs_state_apply()).
 */
struct batch_addr {
	uint64_t vaddr;
	uint32_t i; /* position in the caller's order */
};

#define BATCH_KEY(x) ((x)->vaddr)
SP_DEFINE_RADIX_SORT(sort_batch, struct batch_addr, BATCH_KEY)

struct batch_answer {
	size_t first; /* into frames[] and fns[] */
	uint32_t n;
	uint8_t replay; /* a frame's function has no linkage name */
};

struct batch {
	struct batch_answer *ans; /* per distinct address */
	uint32_t *of;		  /* per input: its answer */
	struct sp_sym_frame *frames;
	uint32_t *fns;
	size_t nframes, frames_alloc;
};

static void batch_resolve(struct sp_symfile *f, const uint64_t *vaddrs, size_t n, struct batch *b)
{
	struct batch_addr *v = sp_xmalloc((n + 1) * sizeof(*v)), *tmp, *sorted;
	struct sp_dwfuncs_cursor cur;
	size_t i, k, nans = 0;

	tmp = sp_xmalloc((n + 1) * sizeof(*tmp));
	for (i = 0; i < n; i++) {
		v[i].vaddr = vaddrs[i];
		v[i].i = (uint32_t)i;
		load_for(f, vaddrs[i]);
	}
	sorted = sort_batch(v, n, tmp);
	memset(&cur, 0, sizeof(cur));
	b->ans = sp_xmalloc((n + 1) * sizeof(*b->ans));
	b->of = sp_xmalloc((n + 1) * sizeof(*b->of));
	for (i = 0; i < n; i++) {
		struct batch_answer *a;
		struct how how = {NULL, &cur, 1, 0, NULL, 1, 0}; /* covered: above */

		if (i && sorted[i].vaddr == sorted[i - 1].vaddr) {
			b->of[sorted[i].i] = (uint32_t)(nans - 1);
			continue;
		}
		if (b->nframes + MAX_INLINE > b->frames_alloc) {
			SP_ALLOC_GROW(b->frames, b->nframes + MAX_INLINE, b->frames_alloc);
			b->fns = sp_xreallocarray(b->fns, b->frames_alloc, sizeof(*b->fns));
		}
		a = &b->ans[nans];
		a->first = b->nframes;
		how.fns = b->fns + b->nframes;
		a->n = (uint32_t)compute(f, sorted[i].vaddr, &how, b->frames + b->nframes);
		a->replay = 0;
		for (k = 0; k < a->n; k++) {
			int linkage = 1, inlined;

			if (how.fns[k] != NONE_FN)
				sp_dwfuncs_fn_name(f->funcs, how.fns[k], &linkage, &inlined);
			a->replay |= !linkage;
		}
		b->nframes += a->n;
		b->of[sorted[i].i] = (uint32_t)nans++;
	}
	free(v);
	free(tmp);
}

void sp_symfile_lookup_session_many(struct sp_symfile *f, const uint64_t *vaddrs, size_t n,
				    void (*fn)(void *ctx, size_t i, const struct sp_symloc *loc),
				    void *ctx)
{
	struct batch b;
	size_t i;

	memset(&b, 0, sizeof(b));
	batch_resolve(f, vaddrs, n, &b);
	session_start(f);
	f->scratch.frames = f->scratch_frames;
	for (i = 0; i < n; i++) {
		const struct batch_answer *a = &b.ans[b.of[i]];
		struct sp_inline_frame fr[MAX_INLINE];
		uint32_t k;

		/* the answers are in address order, the callers' order jumps
		 * around them: fetch a few ahead */
		if (i + 16 < n)
			__builtin_prefetch(&b.ans[b.of[i + 16]]);
		if (i + 8 < n)
			__builtin_prefetch(b.frames + b.ans[b.of[i + 8]].first);

		fill(&f->scratch, f, vaddrs[i], a->n);
		if (!a->replay) {
			f->scratch.frames = b.frames + a->first;
			fn(ctx, i, &f->scratch);
			continue;
		}
		for (k = 0; k < a->n; k++) {
			fr[k].name = b.frames[a->first + k].name;
			fr[k].fn = b.fns[a->first + k];
		}
		sp_dwfuncs_state_apply(f->funcs, &f->session, vaddrs[i], fr, a->n);
		for (k = 0; k < a->n; k++) {
			f->scratch_frames[k] = b.frames[a->first + k];
			f->scratch_frames[k].name = fr[k].name;
		}
		f->scratch.frames = f->scratch_frames;
		fn(ctx, i, &f->scratch);
	}
	f->scratch.frames = f->scratch_frames;
	free(b.ans);
	free(b.of);
	free(b.frames);
	free(b.fns);
}

void sp_symfile_session_reset(struct sp_symfile *f)
{
	if (f->session_ready)
		sp_dwfuncs_state_release(&f->session);
	f->session_ready = 0;
}

const struct sp_symloc *sp_symfile_lookup(struct sp_symfile *f, uint64_t vaddr)
{
	uint32_t i = sp_pairmap_get(&f->index, vaddr, 0);
	struct sp_symloc *loc;

	if (i != UINT32_MAX)
		return f->locs[i];
	struct sp_sym_frame tmp[MAX_INLINE];
	struct how how = {NULL, NULL, 0, 1, NULL, 0, 0};
	size_t n;

	loc = sp_arena_zalloc(f->arena, sizeof(*loc));
	n = compute(f, vaddr, &how, tmp);
	fill(loc, f, vaddr, n);
	if (n) {
		struct sp_sym_frame *out = sp_arena_array(f->arena, n, sizeof(*out));

		memcpy(out, tmp, n * sizeof(*out));
		loc->frames = out;
	}
	SP_ALLOC_GROW(f->locs, f->nlocs + 1, f->locs_alloc);
	f->locs[f->nlocs] = loc;
	sp_pairmap_put(&f->index, vaddr, 0, (uint32_t)f->nlocs++);
	return loc;
}

/* ---- symbols by name (addr2line's "name+offset" input) ---- */

/* Each name once, with the address of its first symbol in the table's
 * order: one walk of the table, then a hash lookup per name asked. */
struct sp_symnames {
	struct sp_strtab names;
	struct sp_pairmap index; /* interned name -> addrs[] */
	const char **keys;
	uint64_t *addrs;
	size_t n, alloc;
};

struct symnames_build {
	struct sp_symnames *t;
	struct sp_symbolizer *s;
	int demangled;
};

static void symnames_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_symnames *t = ctx;

	*k1 = (uint64_t)(uintptr_t)t->keys[i];
	*k2 = 0;
}

static int symnames_add(void *ctx, const struct sp_nm_sym *sym)
{
	struct symnames_build *b = ctx;
	struct sp_symnames *t = b->t;
	const char *n = b->demangled ? sp_symbolizer_demangle(b->s, sym->name) : sym->name;
	const char *key;
	size_t had = t->alloc;

	if (!n)
		return 0;
	key = sp_strtab_intern(&t->names, n);
	if (sp_pairmap_get(&t->index, (uint64_t)(uintptr_t)key, 0) != UINT32_MAX)
		return 0; /* the first one answers */
	SP_ALLOC_GROW(t->keys, t->n + 1, t->alloc);
	if (t->alloc != had)
		t->addrs = sp_xreallocarray(t->addrs, t->alloc, sizeof(*t->addrs));
	t->keys[t->n] = key;
	t->addrs[t->n] = sym->addr;
	sp_pairmap_put(&t->index, (uint64_t)(uintptr_t)key, 0, (uint32_t)t->n++);
	return 0;
}

static struct sp_symnames *symnames_of(struct sp_symfile *f, int demangled)
{
	struct symnames_build b;

	if (f->byname[demangled])
		return f->byname[demangled];
	b.t = sp_xcalloc(1, sizeof(*b.t));
	b.s = f->s;
	b.demangled = demangled;
	sp_strtab_init(&b.t->names);
	sp_pairmap_init(&b.t->index, symnames_key, b.t);
	sp_elf_image_nm(f->im, symnames_add, &b);
	return f->byname[demangled] = b.t;
}

static void symnames_free(struct sp_symnames *t)
{
	if (!t)
		return;
	sp_pairmap_release(&t->index);
	sp_strtab_release(&t->names);
	free(t->keys);
	free(t->addrs);
	free(t);
}

int sp_symfile_find_symbol(struct sp_symfile *f, const char *name, uint64_t *addr)
{
	int demangled;

	/* the raw names first, then the demangled ones (addr2line's order) */
	for (demangled = 0; demangled < 2; demangled++) {
		struct sp_symnames *t = symnames_of(f, demangled);
		const char *key = sp_strtab_find(&t->names, name, strlen(name));
		uint32_t i =
			key ? sp_pairmap_get(&t->index, (uint64_t)(uintptr_t)key, 0) : UINT32_MAX;

		if (i != UINT32_MAX) {
			*addr = t->addrs[i];
			return 0;
		}
	}
	*addr = 0;
	return -1;
}

/* ---- nm's listing (google-pprof's view: report/pprof-nmview.c) ---- */

struct nm_collect {
	struct sp_nm_sym *v;
	size_t n, alloc;
};

static int nm_add(void *ctx, const struct sp_nm_sym *sym)
{
	struct nm_collect *c = ctx;

	SP_ALLOC_GROW(c->v, c->n + 1, c->alloc);
	c->v[c->n++] = *sym;
	return 0;
}

/* nm -n: by address, then by name (C locale), then table order. */
static int cmp_nm(const void *a, const void *b, void *ctx)
{
	const struct sp_nm_sym *x = a, *y = b;
	int c;

	(void)ctx;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

/*
 * v[0 .. n) in cmp_nm's order, as a new array: by address with a radix
 * sort (stable: the table order stays among equal addresses), then each
 * run of one address by name. A big program has tens of thousands of
 * symbols, nearly all at distinct addresses.
 */
static struct sp_nm_sym *sort_nm(const struct sp_nm_sym *v, size_t n)
{
	struct sp_keyed *k = sp_xmalloc((n + 1) * sizeof(*k)), *tmp, *by_addr;
	struct sp_nm_sym *out = sp_xmalloc((n + 1) * sizeof(*out));
	size_t i, run;

	tmp = sp_xmalloc((n + 1) * sizeof(*tmp));
	for (i = 0; i < n; i++) {
		k[i].key = v[i].addr;
		k[i].idx = (uint32_t)i;
	}
	by_addr = sp_sort_keyed(k, n, tmp);
	for (i = 0; i < n; i++)
		out[i] = v[by_addr[i].idx];
	free(k);
	free(tmp);
	for (i = 0; i < n; i = run) {
		for (run = i + 1; run < n && out[run].addr == out[i].addr; run++)
			;
		if (run - i > 1)
			sp_sort(out + i, run - i, sizeof(*out), cmp_nm, NULL);
	}
	return out;
}

/* The name nm prints: demangled, then @VERSION or @@VERSION. */
static const char *nm_printed(struct sp_symfile *f, const struct sp_nm_line *l)
{
	const char *d = sp_symbolizer_demangle_in(f->s, f, l->raw);
	struct sp_buf b = SP_BUF_INIT;
	const char *out;

	if (!l->version[0])
		return d;
	sp_buf_addstr(&b, d);
	sp_buf_addstr(&b, l->hidden ? "@" : "@@");
	sp_buf_addstr(&b, l->version);
	out = sp_strtab_intern(f->strs, b.buf);
	sp_buf_release(&b);
	return out;
}

size_t sp_symfile_nm(struct sp_symfile *f, const struct sp_nm_line **lines)
{
	struct nm_collect c = {NULL, 0, 0};
	size_t i;

	if (!f->nm_loaded) {
		const char *dir = sp_symbolizer_cache_dir(f->s);
		struct sp_nmcache_key key = {NULL, 0, f->path};
		struct sp_nmcache_hit hit;
		struct sp_nm_sym *v;

		f->nm_loaded = 1;
		key.build_id = sp_symfile_build_id(f, &key.build_id_len);
		if (dir && key.build_id && sp_nmcache_load(dir, &key, &hit) == 0) {
			f->nm = hit.lines;
			f->nnm = hit.n;
			f->nm_map = hit.map;
			f->nm_map_size = hit.map_size;
		} else {
			sp_elf_image_nm(f->im, nm_add, &c);
			v = sort_nm(c.v, c.n);
			f->nm = sp_xreallocarray(NULL, c.n + 1, sizeof(*f->nm));
			for (i = 0; i < c.n; i++) {
				f->nm[i].addr = v[i].addr;
				f->nm[i].raw = v[i].name;
				f->nm[i].version = v[i].version;
				f->nm[i].type = v[i].type;
				f->nm[i].hidden = v[i].hidden;
			}
			f->nnm = c.n;
			free(v);
			free(c.v);
			if (dir && key.build_id)
				sp_nmcache_store(dir, &key, f->nm, f->nnm);
		}
		f->nm_names = sp_xcalloc(f->nnm + 1, sizeof(*f->nm_names));
	}
	*lines = f->nm;
	return f->nnm;
}

const char *sp_symfile_nm_name(struct sp_symfile *f, const struct sp_nm_line *l)
{
	size_t i = (size_t)(l - f->nm);

	if (!f->nm_names[i])
		f->nm_names[i] = nm_printed(f, l);
	return f->nm_names[i];
}

int sp_symfile_nm_is(struct sp_symfile *f, const struct sp_nm_line *l, const char *name)
{
	return !l->version[0] && !strcmp(l->raw, name) && !strcmp(sp_symfile_nm_name(f, l), name);
}

int sp_symfile_nm_is_empty(struct sp_symfile *f, const struct sp_nm_line *l)
{
	return !l->raw[0] && !l->version[0] && !sp_symfile_nm_name(f, l)[0];
}
