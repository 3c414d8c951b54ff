/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The runtime-address symbolizer (symbolize.h): from a stack profile's
 * frames (runtime addresses plus the process's mappings) to the file and
 * vaddr each one is; symfile.c then looks the vaddr up.
 *
 *   frame --(mapping)--> object --(find the file)--> sp_symfile
 *         --(bias from PT_LOAD, -1 for return addresses: maps.c)--> vaddr
 *         --(symfile.c: addr2line -f -i rules)--> sp_symloc
 *
 * Every step is cached: an object's file is found once (in the order of
 * docs/architecture.md, "Where files and debug files are found": the
 * executable given, --path-map, the recorded path, $PATH, the build-id
 * under the debug root, debuginfod), a mapping's bias computed once, a
 * frame symbolized once. Files are opened once whatever the number of
 * objects that resolve to them, and their DWARF is read ahead for the
 * profile's addresses (sp_symbolizer_prefetch).
 */
#include "internal.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dmcache.h"
#include "symfile.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"

struct obj_slot {
	struct sp_symfile *file;
	enum sp_sym_reason why;
	int done;
	int misfit;	       /* a base-offset frame fell outside its code (said once) */
	int elsewhere_checked; /* main_elsewhere() done */
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
	/* raw name pointer -> dm_raw[], dm_out[]; equal names at other
	 * pointers (an ELF symbol's, the DWARF's) meet at their copy in
	 * dm_names, so each is demangled once */
	struct sp_pairmap dm_index;
	struct sp_strtab dm_names;
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

static const char *dm_add(struct sp_symbolizer *s, const char *raw, const char *out)
{
	size_t had = s->dm_alloc;

	SP_ALLOC_GROW(s->dm_raw, s->ndm + 1, s->dm_alloc);
	if (s->dm_alloc != had)
		s->dm_out = sp_xreallocarray(s->dm_out, s->dm_alloc, sizeof(*s->dm_out));
	s->dm_raw[s->ndm] = raw;
	s->dm_out[s->ndm] = out;
	sp_pairmap_put(&s->dm_index, (uint64_t)(uintptr_t)raw, 0, (uint32_t)s->ndm++);
	return out;
}

const char *sp_symbolizer_cache_dir(const struct sp_symbolizer *s)
{
	return s->o.cache_dir;
}

/* f's saved demangling memo, opened when first needed (NULL: none). */
static struct sp_dmcache *memo_of(struct sp_symbolizer *s, struct sp_symfile *f)
{
	const uint8_t *id;
	size_t len;

	if (!f)
		return NULL;
	if (!f->dm_opened) {
		f->dm_opened = 1;
		id = sp_symfile_build_id(f, &len);
		f->dm = sp_dmcache_open(s->o.cache_dir, id, len);
	}
	return f->dm;
}

const char *sp_symbolizer_demangle_in(struct sp_symbolizer *s, struct sp_symfile *f,
				      const char *raw)
{
	struct sp_dmcache *memo;
	const char *name, *out, *saved;
	uint32_t i, hash, out_hash;
	size_t len;
	char *d;

	if (!raw)
		return NULL;
	if (raw[0] != '_')
		return raw;
	i = sp_pairmap_get(&s->dm_index, (uint64_t)(uintptr_t)raw, 0);
	if (i != UINT32_MAX)
		return s->dm_out[i];
	len = strlen(raw);
	hash = sp_strtab_hash(raw, len);
	/* the file's memo first: a name it knows costs one probe there and
	 * the interning of its answer, whose hash it keeps */
	memo = memo_of(s, f);
	if (sp_dmcache_get_hashed(memo, raw, hash, &saved, &out_hash)) {
		out = saved ? sp_strtab_intern_hashed(&s->strs, saved, strlen(saved), out_hash)
			    : NULL;
		return dm_add(s, raw, out ? out : raw);
	}
	/* the copy's entry holds NULL for a name that does not demangle:
	 * each pointer then answers itself */
	name = sp_strtab_intern_hashed(&s->dm_names, raw, len, hash);
	i = sp_pairmap_get(&s->dm_index, (uint64_t)(uintptr_t)name, 0);
	if (i != UINT32_MAX)
		return dm_add(s, raw, s->dm_out[i] ? s->dm_out[i] : raw);
	d = sp_demangle(raw, 0);
	out = d ? sp_strtab_intern(&s->strs, d) : NULL;
	free(d);
	if (memo)
		sp_dmcache_add(memo, name, out);
	dm_add(s, name, out);
	return dm_add(s, raw, out ? out : raw);
}

const char *sp_symbolizer_demangle(struct sp_symbolizer *s, const char *raw)
{
	return sp_symbolizer_demangle_in(s, NULL, raw);
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
	sp_strtab_init(&s->dm_names);
	for (i = 0; i <= SP_SYM_RECORDED; i++)
		s->failed[i].reason = (enum sp_sym_reason)i;
	return s;
}

void sp_symbolizer_free(struct sp_symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfiles; i++)
		sp_symfile_free(s->files[i]);
	free(s->files);
	free(s->objs);
	free(s->maps);
	free(s->frames);
	free(s->dm_raw);
	free(s->dm_out);
	sp_pairmap_release(&s->dm_index);
	sp_strtab_release(&s->dm_names);
	sp_strtab_release(&s->strs);
	sp_arena_release(&s->arena);
	free(s);
}

/* ---- files ---- */

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
	sp_elf_image_set_cache(im, s->o.cache_dir);
	f = sp_symfile_new(s, &s->arena, &s->strs, path, im);
	SP_ALLOC_GROW(s->files, s->nfiles + 1, s->files_alloc);
	s->files[s->nfiles++] = f;
	return f;
}

struct sp_symfile *sp_symbolizer_open(struct sp_symbolizer *s, const char *path,
				      struct sp_error *err)
{
	return file_open(s, path, err);
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

/*
 * Object o from debuginfod by its build-id (a mapping without a path may
 * still have one: pprof). A local .debug file (debug, owned) is debug
 * info, not the object (its code is not in it): the executable is asked
 * for, and the .debug file then gives its DWARF; it stands for the object
 * only when no server has the executable (an unstripped copy may).
 */
static char *from_debuginfod(const struct sp_symbolizer *s, const struct sp_object *o, char *debug)
{
	struct sp_debuginfod *d = s->o.search ? s->o.search->debuginfod : NULL;
	char *p = NULL;

	if (d && o->build_id && !(o->path[0] && is_pseudo(o->path)))
		p = debug ? sp_debuginfod_find(d, SP_DEBUGINFOD_EXECUTABLE, o->build_id,
					       o->build_id_len, o->path)
			  : sp_debuginfod_find_file(d, o->build_id, o->build_id_len, o->path);
	if (!p)
		return debug;
	free(debug);
	return p;
}

/* pprof's FindLibrary: each prefix before the path, then before the path
 * without its first directory (s|^/[^/]+/|/|), and so on. */
static char *with_lib_prefix(const struct sp_symbolizer *s, const char *path)
{
	const char *suffix = path, *slash;
	size_t i;

	for (;;) {
		for (i = 0; i < s->o.nlib_prefixes; i++) {
			struct sp_buf b = SP_BUF_INIT;

			sp_buf_addstr(&b, s->o.lib_prefixes[i]);
			sp_buf_addstr(&b, suffix);
			if (is_file(b.buf))
				return sp_buf_detach(&b, NULL);
			sp_buf_release(&b);
		}
		if (suffix[0] != '/' || !(slash = strchr(suffix + 1, '/')) || slash == suffix + 1)
			return NULL;
		suffix = slash;
	}
}

/* Where to read object o from, in search order; NULL if nowhere. */
static char *locate(const struct sp_symbolizer *s, const struct sp_object *o)
{
	char *p;

	if (o->is_main && s->o.exe)
		return sp_xstrdup(s->o.exe);
	if (s->o.nlib_prefixes && o->path[0] && (p = with_lib_prefix(s, o->path)))
		return p;
	if ((p = path_mapped(s, o->path))) {
		if (is_file(p))
			return p;
		free(p);
	}
	if (o->path[0] == '/' && is_file(o->path))
		return sp_xstrdup(o->path);
	if ((p = in_path(s, o->path)))
		return p;
	if ((p = by_build_id(s, o, "")))
		return p;
	return from_debuginfod(s, o, by_build_id(s, o, ".debug"));
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

/*
 * The executable given stands for the main program whatever its path (a
 * copied or moved PIE). When the profile recorded no build-id but the
 * recorded path still holds another program (other build-id), the names
 * may be that other program's: said once, when a mapping of it fits the
 * file, and the report goes on (google-pprof would name a non-PIE's frames
 * from the same executable without a word).
 */
static void main_elsewhere(struct sp_symbolizer *s, const struct sp_object *o,
			   const struct sp_symfile *f)
{
	struct sp_error err = SP_ERROR_INIT;
	struct stat a, b;
	struct sp_image *im;
	const uint8_t *id;
	size_t len;

	if (!o->is_main || !s->o.exe || o->build_id || o->path[0] != '/' || !f->info.build_id ||
	    stat(f->path, &a) < 0 || stat(o->path, &b) < 0 || !S_ISREG(b.st_mode) ||
	    (a.st_dev == b.st_dev && a.st_ino == b.st_ino))
		return;
	if (!(im = sp_image_open(o->path, NULL, &err)))
		return;
	id = sp_image_build_id(im, &len);
	if (id && (len != f->info.build_id_len || memcmp(id, f->info.build_id, len))) {
		struct sp_buf x = SP_BUF_INIT, y = SP_BUF_INIT;

		hex_id(&x, f->info.build_id, f->info.build_id_len);
		hex_id(&y, id, len);
		warn(s,
		     "'%s' (build-id %s) stands for '%s', which the profile recorded and which "
		     "is another program (build-id %s): its frames may be misnamed",
		     f->path, x.buf, o->path, y.buf);
		sp_buf_release(&x);
		sp_buf_release(&y);
	}
	sp_image_free(im);
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
		if (why) {
			mismatch(s, p, map, f, why);
		} else if (!s->objs[map->object].elsewhere_checked) {
			/* only a file whose frames will be named from it */
			s->objs[map->object].elsewhere_checked = 1;
			main_elsewhere(s, &p->objects[map->object], f);
		}
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
