/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The runtime-address symbolizer (symbolize.h): from a stack profile's
 * frames (runtime addresses plus the process's mappings) to functions,
 * source lines and inline chains.
 *
 *   frame --(mapping)--> object --(find the file)--> sp_symfile
 *         --(bias from PT_LOAD, -1 for return addresses)--> vaddr
 *         --(addr2line -f -i rules: DWARF, else ELF symbols)--> sp_symloc
 *
 * Every step is cached: an object's file is found once, a mapping's bias
 * computed once, a frame symbolized once, and an address of a file looked
 * up once (frames of several profiles, or return addresses equal to leaf
 * addresses, share it). Files are opened once whatever the number of
 * objects that resolve to them, and their DWARF is read on first use (the
 * line table in the background, see elf-image.c).
 *
 * The answers are libbfd's (what addr2line prints), because google-pprof
 * and users compare with addr2line: the function of the innermost frame is
 * the DWARF function's linkage name (or the ELF symbol, see dwarf-funcs.c),
 * callers come from DW_TAG_inlined_subroutine chains, and a file without
 * DWARF answers with the nearest ELF symbol of its .symtab (or .dynsym).
 */
#include "internal.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dwarf-funcs.h"
#include "lines.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"

#define MAX_INLINE 256

/* A routine as google-pprof's nm pass keeps it. */
struct nm_routine {
	uint64_t start, end;
	const char *fullname; /* "name<start>", or "name" (see nm_build) */
};

struct sp_symfile {
	struct sp_symbolizer *s;
	char *path;
	struct sp_image *im;
	struct sp_elf_info info;
	struct sp_dwfuncs *funcs; /* on first lookup */
	const struct sp_linetab *lines;
	int loaded;
	struct sp_pairmap index; /* vaddr -> locs[] */
	struct sp_symloc **locs;
	size_t nlocs, locs_alloc;
	struct nm_routine *routines; /* sorted by start; on first use */
	size_t nroutines;
	const char *fini_name; /* the "_fini" pprof found, or NULL */
	int nm_loaded;
	struct sp_dwfuncs_state session; /* one addr2line process's memory */
	unsigned funcs_gen, session_gen; /* funcs loaded; those the session is for */
	int session_ready;
	struct sp_symloc scratch; /* the last session answer */
	struct sp_sym_frame scratch_frames[MAX_INLINE];
};

struct obj_slot {
	struct sp_symfile *file;
	enum sp_sym_reason why;
	int done;
	int misfit; /* a base-offset frame fell outside its code (said once) */
};

struct map_slot {
	uint64_t bias;
	int state; /* 0 not computed, 1 ok, 2 ok but said not to match, -1 no fit */
};

struct sp_symbolizer {
	struct sp_symbolizer_opts o;
	struct sp_symfile **files;
	size_t nfiles, files_alloc;
	struct obj_slot *objs;
	size_t nobjs;
	struct map_slot *maps;
	size_t nmaps;
	const struct sp_symloc **frames;
	size_t nframes;
	struct sp_symloc failed[SP_SYM_RECORDED + 1];
	struct sp_symfile *exe; /* for profiles without maps (see unmapped()) */
	int exe_tried;
	int preloaded;
	struct sp_arena arena;
	struct sp_strtab strs;
	struct sp_pairmap dm_index; /* raw name pointer -> dm[] */
	const char **dm_raw, **dm_out;
	size_t ndm, dm_alloc;
};

static void warn(struct sp_symbolizer *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct sp_symbolizer *s, const char *fmt, ...)
{
	struct sp_buf b = SP_BUF_INIT;
	va_list ap;

	if (!s->o.warn)
		return;
	va_start(ap, fmt);
	sp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	s->o.warn(s->o.warn_ctx, b.buf);
	sp_buf_release(&b);
}

/* ---- demangling cache ---- */

static void dm_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_symbolizer *s = ctx;

	*k1 = (uint64_t)(uintptr_t)s->dm_raw[i];
	*k2 = 0;
}

const char *sp_symbolizer_demangle(struct sp_symbolizer *s, const char *raw)
{
	uint32_t i;
	char *d;

	if (!raw)
		return NULL;
	if (raw[0] != '_')
		return raw;
	i = sp_pairmap_get(&s->dm_index, (uint64_t)(uintptr_t)raw, 0);
	if (i != UINT32_MAX)
		return s->dm_out[i];
	SP_ALLOC_GROW(s->dm_raw, s->ndm + 1, s->dm_alloc);
	s->dm_out = sp_xreallocarray(s->dm_out, s->dm_alloc, sizeof(*s->dm_out));
	d = sp_demangle(raw, 0);
	s->dm_raw[s->ndm] = raw;
	s->dm_out[s->ndm] = d ? sp_strtab_intern(&s->strs, d) : raw;
	free(d);
	sp_pairmap_put(&s->dm_index, (uint64_t)(uintptr_t)raw, 0, (uint32_t)s->ndm);
	return s->dm_out[s->ndm++];
}

/* ---- lifecycle ---- */

struct sp_symbolizer *sp_symbolizer_new(const struct sp_symbolizer_opts *o)
{
	struct sp_symbolizer *s = sp_xcalloc(1, sizeof(*s));
	int i;

	if (o)
		s->o = *o;
	sp_arena_init(&s->arena);
	sp_strtab_init(&s->strs);
	sp_pairmap_init(&s->dm_index, dm_key, s);
	for (i = 0; i <= SP_SYM_RECORDED; i++)
		s->failed[i].reason = (enum sp_sym_reason)i;
	return s;
}

static void symfile_free(struct sp_symfile *f)
{
	sp_symfile_session_reset(f);
	sp_pairmap_release(&f->index);
	free(f->locs);
	free(f->routines);
	sp_image_free(f->im);
	free(f->path);
	free(f);
}

void sp_symbolizer_free(struct sp_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfiles; i++)
		symfile_free(s->files[i]);
	free(s->files);
	free(s->objs);
	free(s->maps);
	free(s->frames);
	free(s->dm_raw);
	free(s->dm_out);
	sp_pairmap_release(&s->dm_index);
	sp_strtab_release(&s->strs);
	sp_arena_release(&s->arena);
	free(s);
}

/* ---- files ---- */

static void loc_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_symfile *f = ctx;

	*k1 = f->locs[i]->vaddr;
	*k2 = 0;
}

/* The opened file at `path`, shared by every object that resolves to it. */
static struct sp_symfile *file_open(struct sp_symbolizer *s, const char *path, struct sp_error *err)
{
	struct sp_symfile *f;
	struct sp_image *im;
	size_t i;

	for (i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i]->path, path))
			return s->files[i];
	if (!(im = sp_image_open(path, s->o.search, err)))
		return NULL;
	if (!sp_image_is_elf(im)) {
		sp_error_set(err, SP_E_FORMAT, "cannot read '%s': not an ELF file", path);
		sp_image_free(im);
		return NULL;
	}
	f = sp_xcalloc(1, sizeof(*f));
	f->s = s;
	f->path = sp_xstrdup(path);
	f->im = im;
	sp_elf_image_set_cache(im, s->o.cache_dir);
	sp_elf_image_info(im, &f->info);
	sp_pairmap_init(&f->index, loc_key, f);
	SP_ALLOC_GROW(s->files, s->nfiles + 1, s->files_alloc);
	s->files[s->nfiles++] = f;
	return f;
}

struct sp_symfile *sp_symbolizer_open(struct sp_symbolizer *s, const char *path,
				      struct sp_error *err)
{
	return file_open(s, path, err);
}

const char *sp_symfile_path(const struct sp_symfile *f)
{
	return f->path;
}

const uint8_t *sp_symfile_build_id(const struct sp_symfile *f, size_t *len)
{
	*len = f->info.build_id ? f->info.build_id_len : 0;
	return f->info.build_id;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The recorded path rewritten by the first --path-map that applies. */
static char *path_mapped(const struct sp_symbolizer *s, const char *recorded)
{
	size_t i;

	for (i = 0; i < s->o.npath_maps; i++) {
		const struct sp_path_map *m = &s->o.path_maps[i];
		size_t n = strlen(m->from);
		struct sp_buf b = SP_BUF_INIT;

		if (!n || strncmp(recorded, m->from, n) ||
		    !(m->from[n - 1] == '/' || recorded[n] == '/' || recorded[n] == '\0'))
			continue;
		sp_buf_addstr(&b, m->to);
		sp_buf_addstr(&b, recorded + n);
		return sp_buf_detach(&b, NULL);
	}
	return NULL;
}

static char *by_build_id(const struct sp_symbolizer *s, const struct sp_object *o,
			 const char *suffix)
{
	char *p =
		sp_build_id_path(sp_debug_root(s->o.search), o->build_id, o->build_id_len, suffix);

	if (p && !is_file(p)) {
		free(p);
		p = NULL;
	}
	return p;
}

/* A bare program name (IgProf records argv[0] when it has no '/', like
 * "ls"): found in the program path ($PATH), as igprof-analyse finds it. */
static char *in_path(const struct sp_symbolizer *s, const char *name)
{
	const char *path = s->o.search ? s->o.search->program_path : NULL, *p, *colon;

	if (!path || !*name || strchr(name, '/'))
		return NULL;
	for (p = path;; p = colon + 1) {
		struct sp_buf b = SP_BUF_INIT;

		colon = strchr(p, ':');
		if (colon == p || !*p)
			sp_buf_addstr(&b, ".");
		else
			sp_buf_add(&b, p, colon ? (size_t)(colon - p) : strlen(p));
		sp_buf_addf(&b, "/%s", name);
		if (is_file(b.buf))
			return sp_buf_detach(&b, NULL);
		sp_buf_release(&b);
		if (!colon)
			return NULL;
	}
}

static int is_pseudo(const char *path);

/* Where to read object o from, in search order; NULL if nowhere. */
static char *locate(const struct sp_symbolizer *s, const struct sp_object *o)
{
	char *p;

	if (o->is_main && s->o.exe)
		return sp_xstrdup(s->o.exe);
	if ((p = path_mapped(s, o->path))) {
		if (is_file(p))
			return p;
		free(p);
	}
	if (o->path[0] == '/' && is_file(o->path))
		return sp_xstrdup(o->path);
	if ((p = in_path(s, o->path)))
		return p;
	if ((p = by_build_id(s, o, "")) || (p = by_build_id(s, o, ".debug")))
		return p;
	/* a mapping without a path may still have a build-id (pprof) */
	if (!s->o.search || !o->build_id || (o->path[0] && is_pseudo(o->path)))
		return NULL;
	return sp_debuginfod_find_file(s->o.search->debuginfod, o->build_id, o->build_id_len,
				       o->path);
}

static void hex_id(struct sp_buf *b, const uint8_t *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sp_buf_addf(b, "%02x", id[i]);
}

static int build_id_differs(struct sp_symbolizer *s, const struct sp_object *o,
			    const struct sp_symfile *f)
{
	struct sp_buf a = SP_BUF_INIT, b = SP_BUF_INIT;

	if (!o->build_id)
		return 0;
	if (f->info.build_id && f->info.build_id_len == o->build_id_len &&
	    !memcmp(f->info.build_id, o->build_id, o->build_id_len))
		return 0;
	hex_id(&a, o->build_id, o->build_id_len);
	hex_id(&b, f->info.build_id, f->info.build_id_len);
	warn(s,
	     "'%s' has build-id %s, the profile recorded %s for '%s'; its frames are left "
	     "unnamed",
	     f->path, b.len ? b.buf : "(none)", a.buf, o->path);
	sp_buf_release(&a);
	sp_buf_release(&b);
	return 1;
}

static int is_pseudo(const char *path)
{
	return !path[0] || path[0] == '[' || !strncmp(path, "/anon_hugepage", 14) ||
	       !strncmp(path, "/memfd:", 7) || !strncmp(path, "/dev/", 5);
}

static void resolve_object(struct sp_symbolizer *s, const struct sp_object *o,
			   struct obj_slot *slot)
{
	struct sp_error err = SP_ERROR_INIT;
	char *path = locate(s, o);

	slot->done = 1;
	if (!path) {
		slot->why = SP_SYM_NO_FILE;
		if (!is_pseudo(o->path))
			warn(s,
			     "cannot find '%s' (named in the profile); its frames are left "
			     "unnamed",
			     o->path);
		return;
	}
	slot->file = file_open(s, path, &err);
	if (!slot->file) {
		slot->why = SP_SYM_BAD_FILE;
		warn(s, "%s; its frames are left unnamed", err.msg);
	} else if (build_id_differs(s, o, slot->file)) {
		slot->file = NULL;
		slot->why = SP_SYM_BUILD_ID;
	}
	free(path);
}

static void mismatch(struct sp_symbolizer *s, const struct sp_profile *p, const struct sp_map *map,
		     const struct sp_symfile *f, const char *why)
{
	warn(s,
	     "'%s' does not match the profile's mapping %#llx-%#llx (offset %#llx) of '%s': %s; "
	     "its frames there are left unnamed",
	     f->path, (unsigned long long)map->start, (unsigned long long)map->end,
	     (unsigned long long)map->pgoff, p->objects[map->object].path, why);
}

/*
 * A frame in no mapping. When the profile has no memory map at all and
 * the executable given is not position-independent, its addresses are
 * taken as the executable's (what google-pprof assumes); else unnamed.
 */
/* A frame in no mapping: the executable's own address when the profile
 * has no map at all (then the executable cannot be position-independent). */
static enum sp_sym_reason place_unmapped(struct sp_symbolizer *s, const struct sp_profile *p,
					 const struct sp_frame *fr, struct sp_symfile **file,
					 uint64_t *vaddr)
{
	struct sp_error err = SP_ERROR_INIT;

	*vaddr = sp_map_frame_abs(fr); /* no mapping: the executable's own */
	if (p->nmaps || !s->o.exe)
		return SP_SYM_UNMAPPED;
	if (!s->exe_tried) {
		s->exe_tried = 1;
		s->exe = file_open(s, s->o.exe, &err);
		if (s->exe && s->exe->info.e_type != ET_EXEC) {
			warn(s,
			     "the profile has no memory map and '%s' is position-independent: "
			     "its addresses cannot be symbolized",
			     s->o.exe);
			s->exe = NULL;
		} else if (s->exe) {
			warn(s,
			     "the profile has no memory map: its addresses are taken as "
			     "addresses of '%s'",
			     s->o.exe);
		}
	}
	if (!s->exe || !sp_image_in_code(s->exe->im, *vaddr))
		return SP_SYM_UNMAPPED;
	*file = s->exe;
	return SP_SYM_OK;
}

static void grow_slots(void **v, size_t *n, size_t want, size_t size)
{
	if (want <= *n)
		return;
	*v = sp_xreallocarray(*v, want, size);
	memset((char *)*v + *n * size, 0, (want - *n) * size);
	*n = want;
}

struct sp_symfile *sp_symbolizer_object(struct sp_symbolizer *s, const struct sp_profile *p,
					uint32_t obj, enum sp_sym_reason *why)
{
	struct obj_slot *slot;

	if (obj >= p->nobjects) {
		if (why)
			*why = SP_SYM_UNMAPPED;
		return NULL;
	}
	grow_slots((void **)&s->objs, &s->nobjs, p->nobjects, sizeof(*s->objs));
	slot = &s->objs[obj];
	if (!slot->done)
		resolve_object(s, &p->objects[obj], slot);
	if (why)
		*why = slot->file ? SP_SYM_OK : slot->why;
	return slot->file;
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

	load_for(f, vaddr);
	if (!sp_elf_image_in_alloc(f->im, vaddr))
		return 0;
	memset(&fresh, 0, sizeof(fresh));
	if (f->lines)
		n = how->st ? sp_dwfuncs_find_state(f->funcs, how->st, vaddr, fr, MAX_INLINE)
			    : sp_dwfuncs_find_at(f->funcs, vaddr, fr, MAX_INLINE,
						 how->cur ? how->cur : &fresh);
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
		sp_elf_image_uncache(f->im);
		f->loaded = 0;
		return compute(f, vaddr, how, out);
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

const struct sp_symloc *sp_symfile_lookup_session(struct sp_symfile *f, uint64_t vaddr)
{
	struct how how = {&f->session, NULL, 1, 0, NULL};

	load_for(f, vaddr);
	session_start(f);
	fill(&f->scratch, f, vaddr, compute(f, vaddr, &how, f->scratch_frames));
	f->scratch.frames = f->scratch_frames;
	return &f->scratch;
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
		struct how how = {NULL, &cur, 1, 0, NULL};

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
	struct how how = {NULL, NULL, 0, 1, NULL};
	size_t n;

	loc = sp_arena_zalloc(&f->s->arena, sizeof(*loc));
	n = compute(f, vaddr, &how, tmp);
	fill(loc, f, vaddr, n);
	if (n) {
		struct sp_sym_frame *out = sp_arena_array(&f->s->arena, n, sizeof(*out));

		memcpy(out, tmp, n * sizeof(*out));
		loc->frames = out;
	}
	SP_ALLOC_GROW(f->locs, f->nlocs + 1, f->locs_alloc);
	f->locs[f->nlocs] = loc;
	sp_pairmap_put(&f->index, vaddr, 0, (uint32_t)f->nlocs++);
	return loc;
}

/* Why a file cannot be the one a mapping showed; NULL if it fits. */
static const char *misfit(const struct sp_map *map, const struct sp_symfile *f, uint64_t *bias)
{
	if (sp_map_bias(map, f->info.loads, f->info.nloads, bias) < 0)
		return "none of its segments has the mapping's offset and length";
	if (f->info.e_type == ET_EXEC && *bias != 0)
		return "it is not position-independent, yet the mapping is not at its address";
	return NULL;
}

/* The bias of map m (cached); -1 if the file does not fit it. */
static int map_bias(struct sp_symbolizer *s, const struct sp_profile *p, uint32_t m,
		    struct sp_symfile *f, uint64_t *bias)
{
	struct map_slot *slot;
	const struct sp_map *map = &p->maps[m];

	grow_slots((void **)&s->maps, &s->nmaps, p->nmaps, sizeof(*s->maps));
	slot = &s->maps[m];
	if (!slot->state) {
		const char *why = misfit(map, f, &slot->bias);

		slot->state = why ? -1 : 1;
		if (why)
			mismatch(s, p, map, f, why);
	}
	*bias = slot->bias;
	return slot->state > 0 ? 0 : -1;
}

/* An address of a file that lands outside its code: the file is not the
 * one the profile ran (same layout, other code); said once per mapping. */
static int outside_code(struct sp_symbolizer *s, const struct sp_profile *p, uint32_t m,
			struct sp_symfile *f, uint64_t vaddr)
{
	char why[96];

	if (sp_image_in_code(f->im, vaddr))
		return 0;
	if (s->maps[m].state == 1) {
		s->maps[m].state = 2;
		snprintf(why, sizeof(why), "the sampled address %#llx is not in its code",
			 (unsigned long long)vaddr);
		mismatch(s, p, &p->maps[m], f, why);
	}
	return 1;
}

/* The file and vaddr of a mapped frame, or why there is none. */
static enum sp_sym_reason place(struct sp_symbolizer *s, const struct sp_profile *p,
				const struct sp_frame *fr, struct sp_symfile **file,
				uint64_t *vaddr)
{
	enum sp_sym_reason why;
	struct sp_symfile *f;
	uint64_t bias;

	if (!(f = sp_symbolizer_object(s, p, p->maps[fr->map].object, &why)))
		return why;
	if (map_bias(s, p, fr->map, f, &bias) < 0)
		return SP_SYM_MISMATCH;
	*vaddr = sp_map_abs_to_vaddr(sp_map_frame_abs(fr), bias);
	if (outside_code(s, p, fr->map, f, *vaddr))
		return SP_SYM_MISMATCH;
	*file = f;
	return SP_SYM_OK;
}

/*
 * A frame given as an offset from its object's load base (IgProf), turned
 * into a vaddr by maps.c. An address outside the file's code means
 * another file.
 */
static enum sp_sym_reason place_base_offset(struct sp_symbolizer *s, const struct sp_profile *p,
					    const struct sp_frame *fr, struct sp_symfile **file,
					    uint64_t *vaddr)
{
	enum sp_sym_reason why;
	struct sp_symfile *f = sp_symbolizer_object(s, p, fr->object, &why);

	if (!f)
		return why;
	if (sp_map_base_offset_to_vaddr(sp_map_frame_abs(fr), f->info.loads, f->info.nloads,
					vaddr) < 0)
		return SP_SYM_MISMATCH;
	if (!sp_image_in_code(f->im, *vaddr)) {
		struct obj_slot *slot = &s->objs[fr->object];

		if (!slot->misfit++)
			warn(s,
			     "'%s' does not match the profile's '%s': offset %#llx is not in "
			     "its code; its frames there are left unnamed",
			     f->path, p->objects[fr->object].path, (unsigned long long)fr->addr);
		return SP_SYM_MISMATCH;
	}
	*file = f;
	return SP_SYM_OK;
}

static enum sp_sym_reason place_any(struct sp_symbolizer *s, const struct sp_profile *p,
				    const struct sp_frame *fr, struct sp_symfile **file,
				    uint64_t *vaddr)
{
	if (fr->flags & SP_FRAME_LINES)
		return SP_SYM_RECORDED;
	if (fr->flags & SP_FRAME_BASE_OFFSET)
		return place_base_offset(s, p, fr, file, vaddr);
	if (fr->map == SP_NONE || fr->map >= p->nmaps)
		return place_unmapped(s, p, fr, file, vaddr);
	return place(s, p, fr, file, vaddr);
}

/* The inline chain the profile recorded for a frame (pprof locations
 * with lines), as the symbolizer would answer it: innermost first, raw
 * names (the system name where one was recorded), in the arena. */
static const struct sp_symloc *recorded_loc(struct sp_symbolizer *s, const struct sp_profile *p,
					    const struct sp_frame *fr)
{
	struct sp_symloc *loc = sp_arena_zalloc(&s->arena, sizeof(*loc));
	struct sp_sym_frame *v;
	uint32_t k, n = fr->nlines;

	if (fr->first_line > p->nframe_lines || n > p->nframe_lines - fr->first_line)
		n = 0; /* SP_BUG territory: readers check their indexes */
	v = sp_arena_array(&s->arena, n + 1, sizeof(*v));
	for (k = 0; k < n; k++) {
		const struct sp_frame_line *l = &p->frame_lines[fr->first_line + k];

		v[k].name = l->system_name ? l->system_name : l->name;
		v[k].file = l->file;
		v[k].line = l->line;
		v[k].discriminator = 0;
		/* a recorded system name is a linkage name; a name alone is
		 * printed as it is */
		v[k].func = v[k].name;
		v[k].func_linkage = l->system_name != NULL;
	}
	loc->reason = n ? SP_SYM_OK : SP_SYM_NO_SYMBOL;
	loc->vaddr = fr->addr;
	loc->nframes = n;
	loc->frames = v;
	return loc;
}

static const struct sp_symloc *frame_loc(struct sp_symbolizer *s, const struct sp_profile *p,
					 const struct sp_frame *fr)
{
	enum sp_sym_reason why;
	struct sp_symfile *f = NULL;
	uint64_t vaddr = 0;

	if (fr->flags & SP_FRAME_LINES)
		return recorded_loc(s, p, fr);
	why = place_any(s, p, fr, &f, &vaddr);
	if (why != SP_SYM_OK)
		return &s->failed[why];
	return sp_symfile_lookup(f, vaddr);
}

enum sp_sym_reason sp_symbolizer_place(struct sp_symbolizer *s, const struct sp_profile *p,
				       uint32_t frame, struct sp_symfile **file, uint64_t *vaddr)
{
	const struct sp_frame *fr;

	*file = NULL;
	*vaddr = 0;
	if (frame >= p->nframes)
		return SP_SYM_UNMAPPED;
	fr = &p->frames[frame];
	return place_any(s, p, fr, file, vaddr);
}

const struct sp_symloc *sp_symbolizer_frame(struct sp_symbolizer *s, const struct sp_profile *p,
					    uint32_t frame)
{
	if (frame >= p->nframes)
		return &s->failed[SP_SYM_UNMAPPED];
	grow_slots((void **)&s->frames, &s->nframes, p->nframes, sizeof(*s->frames));
	if (!s->frames[frame])
		s->frames[frame] = frame_loc(s, p, &p->frames[frame]);
	return s->frames[frame];
}

/* ---- symbols by name (addr2line's "name+offset" input) ---- */

struct find_name {
	struct sp_symbolizer *s;
	const char *name;
	int demangled;
	uint64_t addr;
	int found;
};

static int find_name_cb(void *ctx, const struct sp_nm_sym *sym)
{
	struct find_name *fn = ctx;
	const char *n = fn->demangled ? sp_symbolizer_demangle(fn->s, sym->name) : sym->name;

	if (fn->found || strcmp(n, fn->name))
		return 0;
	fn->addr = sym->addr;
	fn->found = 1;
	return 0;
}

int sp_symfile_find_symbol(struct sp_symfile *f, const char *name, uint64_t *addr)
{
	struct find_name fn = {f->s, name, 0, 0, 0};

	sp_elf_image_nm(f->im, find_name_cb, &fn);
	if (!fn.found) {
		fn.demangled = 1;
		sp_elf_image_nm(f->im, find_name_cb, &fn);
	}
	*addr = fn.addr;
	return fn.found ? 0 : -1;
}

/* ---- reading ahead ---- */

void sp_symbolizer_preload(struct sp_symbolizer *s)
{
	struct sp_error err = SP_ERROR_INIT;

	if (s->o.exe && !s->preloaded) {
		struct sp_symfile *f = file_open(s, s->o.exe, &err);

		s->preloaded = 1;
		if (f)
			sp_elf_image_start_for(f->im, NULL, 0);
	}
}

/* The addresses of p's frames in each file, for sp_elf_image_start_for(). */
void sp_symbolizer_prefetch(struct sp_symbolizer *s, const struct sp_profile *p)
{
	uint64_t **want = NULL;
	size_t *nwant, *walloc, i;
	size_t nfiles;

	for (i = 0; i < p->nframes; i++) {
		const struct sp_frame *fr = &p->frames[i];
		struct sp_symfile *f;
		uint64_t bias;

		if (fr->flags & SP_FRAME_LINES)
			continue; /* named by the profile: no file to read */
		if (fr->flags & SP_FRAME_BASE_OFFSET) {
			sp_symbolizer_object(s, p, fr->object, NULL);
			continue;
		}
		if (fr->map == SP_NONE || fr->map >= p->nmaps ||
		    !(f = sp_symbolizer_object(s, p, p->maps[fr->map].object, NULL)))
			continue;
		if (map_bias(s, p, fr->map, f, &bias) < 0)
			continue;
		(void)bias;
	}
	nfiles = s->nfiles;
	want = sp_xcalloc(nfiles + 1, sizeof(*want));
	nwant = sp_xcalloc(nfiles + 1, sizeof(*nwant));
	walloc = sp_xcalloc(nfiles + 1, sizeof(*walloc));
	for (i = 0; i < p->nframes; i++) {
		const struct sp_frame *fr = &p->frames[i];
		struct sp_symfile *f;
		uint64_t bias, vaddr = 0;
		size_t k;

		if (fr->flags & SP_FRAME_LINES)
			continue;
		if (fr->flags & SP_FRAME_BASE_OFFSET) {
			f = NULL;
			if (place_base_offset(s, p, fr, &f, &vaddr) != SP_SYM_OK)
				continue;
		} else {
			if (fr->map == SP_NONE || fr->map >= p->nmaps ||
			    !(f = sp_symbolizer_object(s, p, p->maps[fr->map].object, NULL)) ||
			    s->maps[fr->map].state <= 0)
				continue;
			bias = s->maps[fr->map].bias;
			vaddr = sp_map_abs_to_vaddr(sp_map_frame_abs(fr), bias);
		}
		for (k = 0; k < nfiles && s->files[k] != f; k++)
			;
		if (k == nfiles)
			continue;
		SP_ALLOC_GROW(want[k], nwant[k] + 1, walloc[k]);
		want[k][nwant[k]++] = vaddr;
	}
	for (i = 0; i < nfiles; i++) {
		sp_elf_image_start_for(s->files[i]->im, want[i], nwant[i]);
		free(want[i]);
	}
	free(want);
	free(nwant);
	free(walloc);
}

/* ---- google-pprof's nm view ---- */

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

/* The name nm prints: demangled, then @VERSION or @@VERSION. */
static const char *nm_printed(struct sp_symfile *f, const struct sp_nm_sym *sym)
{
	const char *d = sp_symbolizer_demangle(f->s, sym->name);
	struct sp_buf b = SP_BUF_INIT;
	const char *out;

	if (!sym->version[0])
		return d;
	sp_buf_addstr(&b, d);
	sp_buf_addstr(&b, sym->hidden ? "@" : "@@");
	sp_buf_addstr(&b, sym->version);
	out = sp_strtab_intern(&f->s->strs, b.buf);
	sp_buf_release(&b);
	return out;
}

static void routine_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct sp_symfile *f = ctx;

	*k1 = (uint64_t)(uintptr_t)f->routines[i].fullname;
	*k2 = 0;
}

/* pprof keeps routines in a hash by name: a later one replaces the range */
static void nm_emit(struct sp_symfile *f, struct sp_pairmap *index, size_t *alloc,
		    const char *fullname, uint64_t start, uint64_t end)
{
	uint32_t i;

	SP_ALLOC_GROW(f->routines, f->nroutines + 1, *alloc);
	f->routines[f->nroutines].fullname = fullname;
	i = sp_pairmap_put(index, (uint64_t)(uintptr_t)fullname, 0, (uint32_t)f->nroutines);
	if (i == f->nroutines)
		f->nroutines++;
	f->routines[i].start = start;
	f->routines[i].end = end;
}

/*
 * GetProcedureBoundariesViaNm: the first symbol at each address opens a
 * routine named "name<addr>" that ends at the next address; a later t/T
 * symbol at the same address replaces its name (without the <addr> tag).
 */
/* "name<%016llx>": nm's line as MapSymbolsWithNM keeps it (11,000 of
 * them for a big program: no printf). */
static void nm_tag(struct sp_buf *b, const char *name, uint64_t addr)
{
	char hex[18];
	int i;

	hex[0] = '<';
	for (i = 16; i > 0; i--, addr >>= 4)
		hex[i] = "0123456789abcdef"[addr & 15];
	hex[17] = '>';
	sp_buf_addstr(b, name);
	sp_buf_add(b, hex, sizeof(hex));
}

static void nm_build(struct sp_symfile *f)
{
	struct nm_collect c = {NULL, 0, 0};
	struct sp_buf b = SP_BUF_INIT;
	const char *routine = NULL;
	struct sp_pairmap index;
	uint64_t last = 0;
	size_t i, alloc = 0;
	int have_last = 0;

	f->nm_loaded = 1;
	sp_pairmap_init(&index, routine_key, f);
	sp_elf_image_nm(f->im, nm_add, &c);
	sp_sort(c.v, c.n, sizeof(*c.v), cmp_nm, NULL);
	for (i = 0; i < c.n; i++) {
		const struct sp_nm_sym *sym = &c.v[i];
		const char *name = nm_printed(f, sym);

		if (have_last && sym->addr == last) {
			if (sym->type == 't' || sym->type == 'T')
				routine = name;
			continue;
		}
		if (!strcmp(name, "_fini"))
			f->fini_name = name;
		if (routine && routine[0])
			nm_emit(f, &index, &alloc, routine, last, sym->addr);
		last = sym->addr;
		have_last = 1;
		sp_buf_reset(&b);
		nm_tag(&b, name, sym->addr);
		routine = sp_strtab_intern(&f->s->strs, b.buf);
	}
	sp_buf_release(&b);
	if (routine && routine[0])
		nm_emit(f, &index, &alloc, routine, last, last);
	sp_pairmap_release(&index);
	free(c.v);
}

static int cmp_routine(const void *a, const void *b, void *ctx)
{
	const struct nm_routine *x = a, *y = b;

	(void)ctx;
	return (x->start > y->start) - (x->start < y->start);
}

static void nm_load(struct sp_symfile *f)
{
	if (f->nm_loaded)
		return;
	nm_build(f);
	sp_sort(f->routines, f->nroutines, sizeof(*f->routines), cmp_routine, NULL);
}

int sp_symfile_nm_routine(struct sp_symfile *f, uint64_t vaddr, const char **name, uint64_t *start)
{
	size_t lo = 0, hi, n;

	nm_load(f);
	n = f->nroutines;
	if (!n)
		return 0;
	/* MapSymbolsWithNM: the first routine (up to the last) whose end is
	 * above vaddr */
	hi = n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vaddr >= f->routines[mid].end)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (vaddr >= f->routines[lo].end)
		return 0;
	*name = f->routines[lo].fullname;
	*start = f->routines[lo].start;
	return 1;
}

int sp_symfile_nm_has_routines(struct sp_symfile *f)
{
	nm_load(f);
	return f->nroutines != 0;
}

int sp_symfile_nm_has_fini(struct sp_symfile *f)
{
	nm_load(f);
	return f->fini_name != NULL;
}
