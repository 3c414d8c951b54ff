/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=pprof: google-pprof's `--text` report of a CPU profile (the
 * Perl script of gperftools 2.0: PrintText and what feeds it), so that a
 * pprof user sees the same numbers and names:
 *
 *   Total: N samples
 *   <flat> <flat%> <sum%> <cum> <cum%> <name>      "%8s %6s %6s %8s %6s %s"
 *
 * sorted by flat (by cum with --cum), then by name (byte order); flat% and
 * cum% are of the flat total, sum% the running sum of flat. The steps are
 * pprof's, on the stacks of the profile:
 *
 *  1. RemoveUninterestingFrames: while every stack has a second address
 *     and it is the same one, it is a signal-handler artefact: it goes
 *     (and the next one with it when it is the leaf's duplicate), and
 *     "Removing NAME from all stack traces." goes to stderr (through
 *     o->stderr_lines, which the cli prints); then frames
 *     of the profiler itself (ProfileData::Add, CpuProfiler::prof_handler,
 *     __pthread_sighandler, __restore ...) are dropped, and (even with
 *     --no-auto-signal-frm) those whose function's name holds "NOMATCH",
 *     the skip pattern pprof tests on CPU profiles too.
 *  2. TranslateStack: each address becomes its symbol list, innermost
 *     first, every function but the outermost marked " (inline)"; names
 *     that several routines share get "@addr" (FillFullnameToShortnameMap);
 *     addresses above 0x7fffffffffffffff (kernel) are skipped. With -l an
 *     entry is "name file:line".
 *  3. ReduceProfile: a stack counts once per entry however often the entry
 *     repeats in it (recursion), so cum is the samples whose stack holds
 *     the entry; flat goes to the first entry.
 *
 * pprof's names come from pprof-names.c. Differences on purpose: every
 * frame of every file is named (pprof loses PIE executables not at their
 * recorded path, and later profiles' libraries); Callback::Run frames are
 * not renamed "Run#N" (pprof numbers them in hash order).
 */
#include "symprof/report.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pprof.h"
#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct pprof {
	FILE *out;
	const struct sp_profile *p;
	const struct sp_stack_report_opts *o;
	struct sp_pprof_names names;
	struct sp_pprof_addr *addrs; /* distinct addresses */
	size_t naddrs, addrs_alloc;
	struct sp_pairmap addr_index; /* pc -> addrs */
	uint32_t *frame_addr;	      /* per frame */
	uint32_t counter;	      /* "samples" */
	/* the stacks, frames leaf first: the profile's list, or own_* listed
	 * from its calling-context tree */
	const struct sp_stack *st;
	const uint32_t *st_frames;
	size_t nst;
	struct sp_stack *own_st;
	uint32_t *own_frames;
	/* with signal frames to remove: the stacks as addresses, leaf first,
	 * stk[off[i] .. off[i + 1]) */
	uint32_t *stk;
	size_t nstk, stk_alloc;
	size_t *off;
	int64_t *count;
	size_t nstacks;
	int64_t total; /* samples */
	/* entries (translated names) */
	struct sp_pairmap entry_index; /* interned string -> entries */
	const char **entry;
	/* per entry: what PrintText prints for it if not the entry itself
	 * (an address key pprof has symbols for), or NULL */
	const char **shown;
	int64_t *flat, *cum;
	size_t nentries, entries_alloc;
	char *listed; /* per entry: in some stack (pprof's cum keys) */
	struct pprof_memo {
		const char *func;
		uint64_t k2;
		uint32_t entry;
	} * memo; /* (name, file:line, inline) -> entry */
	struct sp_pairmap memo_index;
	size_t nmemo, memo_alloc;
	uint32_t *aent;	  /* per address: its entries ... */
	size_t *aent_off; /* ... aent[aent_off[a] .. aent_off[a + 1]) */
	size_t naent, aent_alloc;
	struct sp_strtab strs;
};

/* ---- addresses ---- */

static void addr_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pprof *pp = ctx;

	*k1 = pp->addrs[i].pc;
	*k2 = 0;
}

/* An address found in a file, to look up there: 16 bytes, as the sort
 * moves them around. */
struct pending {
	uint64_t pc;
	uint32_t file; /* index into the files met */
	uint32_t addr;
};

#define PENDING_PC(x) ((x)->pc)
SP_DEFINE_RADIX_SORT(sort_pending_pc, struct pending, PENDING_PC)

/* v[0 .. n) by file, then by pc (distinct, as the addresses are): by
 * pc, then a stable pass by file. Returns v or tmp, whichever holds the
 * result (tmp has room for n). */
static struct pending *sort_pending(struct pending *v, size_t n, size_t nfiles, struct pending *tmp)
{
	struct pending *by_pc = sort_pending_pc(v, n, tmp), *out = by_pc == v ? tmp : v;
	size_t *start, i, at = 0;

	if (nfiles < 2)
		return by_pc;
	start = sp_xcalloc(nfiles + 1, sizeof(*start));
	for (i = 0; i < n; i++)
		start[by_pc[i].file + 1]++;
	for (i = 0; i < nfiles; i++) {
		at += start[i + 1];
		start[i + 1] = at;
	}
	for (i = 0; i < n; i++)
		out[start[by_pc[i].file]++] = by_pc[i];
	free(start);
	return out;
}

/* The index of f among files[0 .. *n), added if new. */
static uint32_t file_index(struct sp_symfile ***files, size_t *n, size_t *alloc,
			   struct sp_symfile *f)
{
	size_t i;

	for (i = *n; i > 0; i--)
		if ((*files)[i - 1] == f)
			return (uint32_t)(i - 1);
	SP_ALLOC_GROW(*files, *n + 1, *alloc);
	(*files)[*n] = f;
	return (uint32_t)(*n)++;
}

/* Whether the n characters at s match (\.\d+)+\w*(\.\d+){0,3} whole. */
static int version_suffix(const char *s, size_t n)
{
	size_t i = 0, j, k, w;
	int dots;

	/* each way to end the (\.\d+)+ part, then each length of \w* */
	while (i < n && s[i] == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1])) {
		for (i++; i < n && isdigit((unsigned char)s[i]); i++)
			;
		for (w = i; w <= n; w++) {
			for (j = w, dots = 0; j < n && dots <= 3; dots++) {
				if (s[j] != '.' || j + 1 >= n || !isdigit((unsigned char)s[j + 1]))
					break;
				for (k = j + 1; k < n && isdigit((unsigned char)s[k]); k++)
					;
				j = k;
			}
			if (j == n && dots <= 3)
				return 1;
			if (w < n && !(isalnum((unsigned char)s[w]) || s[w] == '_'))
				break;
		}
	}
	return 0;
}

/*
 * Whether google-pprof's ParseLibraries takes a mapping of `path` for a
 * library: .+\.(so|dll|dylib|bundle|node)((\.\d+)+\w*(\.\d+){0,3})?$,
 * case-insensitive. Its frames are looked up in it; those of any other
 * mapping but the program's ([vdso], [vsyscall]) are in none.
 */
static int pprof_library_path(const char *path)
{
	static const char *const ext[] = {"so", "dll", "dylib", "bundle", "node"};
	size_t n = strlen(path), i, e, len;

	for (i = 1; i < n; i++) {
		if (path[i] != '.')
			continue;
		for (e = 0; e < sizeof(ext) / sizeof(ext[0]); e++) {
			len = strlen(ext[e]);
			if (n - i - 1 >= len && !strncasecmp(path + i + 1, ext[e], len) &&
			    (i + 1 + len == n ||
			     version_suffix(path + i + 1 + len, n - i - 1 - len)))
				return 1;
		}
	}
	return 0;
}

/* The frame's reason for having no file, as google-pprof would see it. */
static const struct sp_symloc *pprof_unfound(const struct pprof *pp, struct sp_symbolizer *s,
					     uint32_t frame, struct sp_symloc *tmp)
{
	const struct sp_symloc *loc = sp_symbolizer_frame(s, pp->p, frame);
	const struct sp_frame *fr = &pp->p->frames[frame];
	const struct sp_object *ob =
		fr->object < pp->p->nobjects ? &pp->p->objects[fr->object] : NULL;

	if ((loc->reason == SP_SYM_NO_FILE || loc->reason == SP_SYM_BAD_FILE) && ob &&
	    !ob->is_main && !pprof_library_path(ob->path)) {
		*tmp = *loc;
		tmp->reason = SP_SYM_UNMAPPED;
		return tmp;
	}
	return loc;
}

/*
 * MapToSymbols runs one addr2line per file on its addresses in ascending
 * order, and libbfd's answers depend on the lookups before (rule 8 of
 * symbolize/dwarf-funcs.c): resolve each file's addresses in that order.
 * What nm says of each address needs only the files' ELF symbols: it is
 * asked first, while their DWARF (or index) may still be loading.
 */
static void resolve_addrs(struct pprof *pp, struct sp_symbolizer *s, const uint32_t *rep)
{
	struct pending *v = sp_xmalloc((pp->naddrs + 1) * sizeof(*v)), *tmp, *sorted;
	uint64_t *vaddr = sp_xmalloc((pp->naddrs + 1) * sizeof(*vaddr));
	struct sp_pprof_nm *nm = sp_xmalloc((pp->naddrs + 1) * sizeof(*nm));
	struct sp_symfile **files = NULL;
	size_t i, n = 0, nfiles = 0, files_alloc = 0;

	for (i = 0; i < pp->naddrs; i++) {
		struct sp_symfile *f;

		/* found in a file: looked up below, in a session, only */
		if (sp_symbolizer_place(s, pp->p, rep[i], &f, &vaddr[i]) == SP_SYM_OK) {
			v[n].file = file_index(&files, &nfiles, &files_alloc, f);
			v[n].pc = pp->addrs[i].pc;
			v[n++].addr = (uint32_t)i;
		} else {
			struct sp_symloc unfound;

			sp_pprof_names_resolve(&pp->names, &pp->addrs[i],
					       pprof_unfound(pp, s, rep[i], &unfound));
		}
	}
	tmp = sp_xmalloc((n + 1) * sizeof(*tmp));
	sorted = sort_pending(v, n, nfiles, tmp);
	for (i = 0; i < n; i++) {
		uint32_t a = sorted[i].addr;

		sp_pprof_names_nm(&pp->names, files[sorted[i].file], vaddr[a], pp->addrs[a].pc,
				  &nm[a]);
	}
	for (i = 0; i < n; i++) {
		struct sp_symfile *f = files[sorted[i].file];
		uint32_t a = sorted[i].addr;

		if (!i || sorted[i - 1].file != sorted[i].file)
			sp_symfile_session_reset(f);
		/* without file:line in the report, only a frame without a name
		 * needs it (pprof-names.c prints "?? file:line") */
		sp_pprof_names_resolve_nm(&pp->names, &pp->addrs[a],
					  pp->names.lines
						  ? sp_symfile_lookup_session(f, vaddr[a])
						  : sp_symfile_lookup_session_names(f, vaddr[a]),
					  &nm[a]);
	}
	free(nm);
	free(tmp);
	free(files);
	free(vaddr);
	free(v);
}

static void collect_addrs(struct pprof *pp, struct sp_symbolizer *s)
{
	const struct sp_profile *p = pp->p;
	uint32_t *rep = NULL;
	size_t f, rep_alloc = 0;

	pp->frame_addr = sp_xmalloc((p->nframes + 1) * sizeof(*pp->frame_addr));
	sp_pairmap_init(&pp->addr_index, addr_key, pp);
	sp_pairmap_reserve(&pp->addr_index, p->nframes);
	for (f = 0; f < p->nframes; f++) {
		const struct sp_frame *fr = &p->frames[f];
		uint64_t pc = fr->addr - ((fr->flags & SP_FRAME_RETURN_ADDR) ? 1 : 0);
		uint32_t i = sp_pairmap_get(&pp->addr_index, pc, 0);

		if (i == UINT32_MAX) {
			SP_ALLOC_GROW(pp->addrs, pp->naddrs + 1, pp->addrs_alloc);
			SP_ALLOC_GROW(rep, pp->naddrs + 1, rep_alloc);
			memset(&pp->addrs[pp->naddrs], 0, sizeof(*pp->addrs));
			pp->addrs[pp->naddrs].pc = pc;
			rep[pp->naddrs] = (uint32_t)f;
			i = (uint32_t)pp->naddrs++;
			sp_pairmap_put(&pp->addr_index, pc, 0, i);
		}
		pp->frame_addr[f] = i;
	}
	resolve_addrs(pp, s, rep);
	free(rep);
}

/* ---- stacks ---- */

/* A record of the report's counter; pprof keeps a gperftools stack that
 * counts 0 (--drop_negative's clamped ones): it still has a second
 * address for IsSecondPcAlwaysTheSame. */
static int counted(const struct pprof *pp, const struct sp_stack *s)
{
	return s->counter == pp->counter && (s->count != 0 || pp->p->kind == SP_PROFILE_GPERF);
}

/* The stacks of a profile read as a CCT: each node with samples is one. */
static void list_cct(struct pprof *pp)
{
	const struct sp_profile *p = pp->p;
	int64_t *node_count = sp_xcalloc(p->nnodes + 1, sizeof(*node_count));
	size_t i, total = 0, n = 0, w = 0;

	for (i = 0; i < p->nvalues; i++)
		if (p->values[i].counter == pp->counter && p->values[i].node < p->nnodes)
			node_count[p->values[i].node] += p->values[i].count;
	for (i = 1; i < p->nnodes; i++) {
		if (node_count[i]) {
			total += p->nodes[i].depth;
			n++;
		}
	}
	pp->own_st = sp_xmalloc((n + 1) * sizeof(*pp->own_st));
	pp->own_frames = sp_xmalloc((total + 1) * sizeof(*pp->own_frames));
	for (i = 1; i < p->nnodes; i++) {
		struct sp_stack *s = &pp->own_st[pp->nst];
		uint32_t node;

		if (!node_count[i])
			continue;
		s->first = w;
		s->counter = pp->counter;
		s->count = node_count[i];
		for (node = (uint32_t)i; node != 0 && node != SP_NONE; node = p->nodes[node].parent)
			pp->own_frames[w++] = p->nodes[node].frame;
		s->depth = w - s->first;
		pp->nst++;
	}
	free(node_count);
	pp->st = pp->own_st;
	pp->st_frames = pp->own_frames;
}

/* The profile's stacks as a list, and their samples. */
static void list_stacks(struct pprof *pp)
{
	const struct sp_profile *p = pp->p;
	size_t i;

	pp->counter = sp_profile_find_counter(p, pp->o->counter ? pp->o->counter : "samples");
	if (p->nstacks) {
		pp->st = p->stacks;
		pp->st_frames = p->stack_frames;
		pp->nst = p->nstacks;
	} else {
		list_cct(pp);
	}
	for (i = 0; i < pp->nst; i++)
		if (counted(pp, &pp->st[i]))
			pp->total += pp->st[i].count;
}

/* The stacks as addresses, for removing frames from them. */
static void collect_stacks(struct pprof *pp)
{
	size_t i, k, total = 0, n = 0;

	for (i = 0; i < pp->nst; i++) {
		if (counted(pp, &pp->st[i])) {
			total += pp->st[i].depth;
			n++;
		}
	}
	pp->off = sp_xmalloc((n + 1) * sizeof(*pp->off));
	pp->count = sp_xmalloc((n + 1) * sizeof(*pp->count));
	pp->stk = sp_xmalloc((total + 1) * sizeof(*pp->stk));
	pp->stk_alloc = total + 1;
	for (i = 0; i < pp->nst; i++) {
		const struct sp_stack *s = &pp->st[i];

		if (!counted(pp, s))
			continue;
		pp->off[pp->nstacks] = pp->nstk;
		pp->count[pp->nstacks++] = s->count;
		for (k = 0; k < s->depth; k++)
			pp->stk[pp->nstk++] = pp->frame_addr[pp->st_frames[s->first + k]];
	}
	pp->off[pp->nstacks] = pp->nstk;
}

static size_t stack_len(const struct pprof *pp, size_t i)
{
	return pp->off[i + 1] - pp->off[i];
}

static const char *addr_name(struct pprof *pp, uint32_t a)
{
	const struct sp_pprof_addr *x = &pp->addrs[a];

	return x->known && x->nsyms ? x->syms[0].func : sp_pprof_names_hex(&pp->names, x->pc);
}

/* Removes position k (and the duplicate leaf) from every stack. */
static void drop_second(struct pprof *pp)
{
	size_t i, w = 0, start = 0;

	for (i = 0; i < pp->nstacks; i++) {
		size_t b = pp->off[i], n = pp->off[i + 1] - b, k;
		uint32_t *s = pp->stk + b;
		int dup = n > 3 && pp->addrs[s[2]].pc + 1 == pp->addrs[s[0]].pc;

		pp->off[i] = w;
		for (k = 0; k < n; k++)
			if (k != 1 && !(dup && k == 2))
				pp->stk[w++] = s[k];
		start = w;
	}
	pp->off[pp->nstacks] = start;
	pp->nstk = w;
}

/* IsSecondPcAlwaysTheSame, repeated. */
static void remove_signal_frames(struct pprof *pp)
{
	for (;;) {
		size_t i;
		uint32_t second = UINT32_MAX;

		if (!pp->nstacks)
			return;
		for (i = 0; i < pp->nstacks; i++) {
			if (stack_len(pp, i) < 2)
				return;
			if (second == UINT32_MAX)
				second = pp->stk[pp->off[i] + 1];
			else if (pp->stk[pp->off[i] + 1] != second)
				return;
		}
		sp_warn(pp->o->stderr_lines, "Removing %s from all stack traces.",
			addr_name(pp, second));
		drop_second(pp);
	}
}

/*
 * The addresses whose frames pprof's RemoveUninterestingFrames drops, as a
 * new array of flags: those whose function (the outermost of an inline
 * chain) is one of the profiler's own (unless with_profiler is 0, as with
 * --no-auto-signal-frm), or matches its skip pattern, which for a CPU
 * profile is the literal "NOMATCH". Names are interned in names.strs, so
 * pointers compare.
 */
static char *uninteresting(struct pprof *pp, int with_profiler)
{
	static const char *const names[] = {
		"ProfileData::Add", "ProfileData::prof_handler", "CpuProfiler::prof_handler",
		"__FRAME_END__",    "__pthread_sighandler",	 "__restore",
	};
	const char *in[sizeof(names) / sizeof(names[0])];
	char *skip = sp_xcalloc(pp->naddrs + 1, 1);
	size_t i, k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		in[k] = sp_strtab_intern(&pp->names.strs, names[k]);
	for (i = 0; i < pp->naddrs; i++) {
		const struct sp_pprof_addr *x = &pp->addrs[i];

		if (!x->known || !x->nsyms)
			continue;
		for (k = 0; with_profiler && k < sizeof(in) / sizeof(in[0]); k++)
			if (x->syms[0].func == in[k])
				skip[i] = 1;
		if (strstr(x->syms[0].func, "NOMATCH"))
			skip[i] = 1;
	}
	return skip;
}

static void remove_uninteresting(struct pprof *pp)
{
	char *skip = uninteresting(pp, 1);
	size_t i, k, w = 0;

	remove_signal_frames(pp);
	for (i = 0; i < pp->nstacks; i++) {
		size_t b = pp->off[i], e = pp->off[i + 1];

		pp->off[i] = w;
		for (k = b; k < e; k++)
			if (!skip[pp->stk[k]])
				pp->stk[w++] = pp->stk[k];
	}
	pp->off[pp->nstacks] = w;
	pp->nstk = w;
	free(skip);
}

/* ---- names ---- */

static void entry_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pprof *pp = ctx;

	*k1 = (uint64_t)(uintptr_t)pp->entry[i];
	*k2 = 0;
}

static void memo_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pprof *pp = ctx;

	*k1 = (uint64_t)(uintptr_t)pp->memo[i].func;
	*k2 = pp->memo[i].k2;
}

static uint32_t entry_for(struct pprof *pp, const char *s)
{
	const char *key = sp_strtab_intern(&pp->strs, s);
	uint32_t i = sp_pairmap_get(&pp->entry_index, (uint64_t)(uintptr_t)key, 0);

	if (i != UINT32_MAX)
		return i;
	size_t had = pp->entries_alloc;

	SP_ALLOC_GROW(pp->entry, pp->nentries + 1, pp->entries_alloc);
	if (pp->entries_alloc != had)
		pp->shown = sp_xreallocarray(pp->shown, pp->entries_alloc, sizeof(*pp->shown));
	pp->entry[pp->nentries] = key;
	pp->shown[pp->nentries] = NULL;
	sp_pairmap_put(&pp->entry_index, (uint64_t)(uintptr_t)key, 0, (uint32_t)pp->nentries);
	return (uint32_t)pp->nentries++;
}

/* A map from interned strings to interned strings (pointer keys). */
struct strmap {
	struct sp_pairmap index;
	const char **k, **v;
	size_t n, alloc;
};

static void strmap_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct strmap *m = ctx;

	*k1 = (uint64_t)(uintptr_t)m->k[i];
	*k2 = 0;
}

static void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
	sp_pairmap_init(&m->index, strmap_key, m);
}

static void strmap_release(struct strmap *m)
{
	sp_pairmap_release(&m->index);
	free(m->k);
	free(m->v);
}

static const char **strmap_get(struct strmap *m, const char *k)
{
	uint32_t i = sp_pairmap_get(&m->index, (uint64_t)(uintptr_t)k, 0);

	return i == UINT32_MAX ? NULL : &m->v[i];
}

static const char **strmap_put(struct strmap *m, const char *k, const char *v)
{
	const char **old = strmap_get(m, k);

	if (old)
		return old;
	SP_ALLOC_GROW(m->k, m->n + 1, m->alloc);
	m->v = sp_xreallocarray(m->v, m->alloc, sizeof(*m->v));
	m->k[m->n] = k;
	m->v[m->n] = v;
	sp_pairmap_put(&m->index, (uint64_t)(uintptr_t)k, 0, (uint32_t)m->n);
	return &m->v[m->n++];
}

/* isxdigit() of the C locale, inline: it runs over every tagged name. */
static int is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int ends_with_hex_tag(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 3 || s[n - 1] != '>')
		return 0;
	for (i = n - 1; i > 0 && s[i - 1] != '<'; i--)
		if (!is_hex_digit(s[i - 1]))
			return 0;
	return i > 0 && i < n - 1;
}

/*
 * FillFullnameToShortnameMap: full name -> "short@addr" for the short
 * names that routines at several addresses share (outermost entries).
 * Only full names with nm's <addr> tag take part; they and the short
 * names are interned, so their addresses identify them.
 */
static void fullname_map(struct pprof *pp, struct strmap *map)
{
	struct strmap once; /* short -> its first tagged full name, or "" if several */
	size_t i;

	strmap_init(&once);
	for (i = 0; i < pp->naddrs; i++) {
		const struct sp_pprof_addr *a = &pp->addrs[i];
		const char **f;

		if (!a->known || !a->nsyms || !ends_with_hex_tag(a->syms[0].full))
			continue;
		f = strmap_put(&once, a->syms[0].func, a->syms[0].full);
		if (*f != a->syms[0].full)
			*f = "";
	}
	for (i = 0; i < pp->naddrs; i++) {
		const struct sp_pprof_addr *a = &pp->addrs[i];
		const char *full, **f, *lt, *gt;
		struct sp_buf b = SP_BUF_INIT;

		if (!a->known || !a->nsyms)
			continue;
		full = a->syms[0].full;
		f = strmap_get(&once, a->syms[0].func);
		if (!f || **f || strmap_get(map, full))
			continue;
		gt = full + strlen(full) - 1;
		if (*gt != '>' || !(lt = strrchr(full, '<')) || memchr(lt, '>', (size_t)(gt - lt)))
			continue;
		for (lt++; *lt == '0'; lt++)
			;
		sp_buf_addf(&b, "%s@%.*s", a->syms[0].func, (int)(gt - lt), lt);
		strmap_put(map, full, sp_strtab_intern(&pp->strs, b.buf));
		sp_buf_release(&b);
	}
	strmap_release(&once);
}

/* " file:line" of sy, as addr2line prints it. */
static void add_fileline(struct sp_buf *b, const struct sp_pprof_sym *sy)
{
	char d[16], *e = d + sizeof(d);
	uint32_t l = sy->line;

	sp_buf_addch(b, ' ');
	if (!sy->file)
		return;
	do
		*--e = (char)('0' + l % 10);
	while (l /= 10);
	*--e = ':';
	sp_buf_addstr(b, sy->file);
	sp_buf_add(b, e, (size_t)(d + sizeof(d) - e));
}

/* The entry "func[ (inline)][ file:line]" (with lines: sy given),
 * memoized by the name's address (names are interned) and the pair's
 * number. */
static uint32_t entry_memo(struct pprof *pp, const char *func, const struct sp_pprof_sym *sy,
			   int inl, struct sp_buf *b)
{
	uint64_t k2 = ((uint64_t)(sy ? sy->fl : 0) << 1) | (unsigned)inl;
	uint32_t i = sp_pairmap_get(&pp->memo_index, (uint64_t)(uintptr_t)func, k2), e;

	if (i != UINT32_MAX)
		return pp->memo[i].entry;
	sp_buf_reset(b);
	sp_buf_addstr(b, func);
	if (inl)
		sp_buf_addstr(b, " (inline)");
	if (sy)
		add_fileline(b, sy);
	e = entry_for(pp, b->buf);
	SP_ALLOC_GROW(pp->memo, pp->nmemo + 1, pp->memo_alloc);
	pp->memo[pp->nmemo].func = func;
	pp->memo[pp->nmemo].k2 = k2;
	pp->memo[pp->nmemo].entry = e;
	sp_pairmap_put(&pp->memo_index, (uint64_t)(uintptr_t)func, k2, (uint32_t)pp->nmemo++);
	return e;
}

/* 1 if sy's file:line is addr2line's "??:0" (nothing known). */
static int fileline_unknown(const struct sp_pprof_sym *sy)
{
	return sy->file && sy->line == 0 && !strcmp(sy->file, "??");
}

/*
 * The entry of address x's key "$a" (the hex digits of its pc). PrintText
 * prints such a key as the first name and "file:line" of the address's
 * symbols when pprof has symbols for it (an address of a file that has
 * no name there, or no line with --files): known addresses, whose
 * file:line pprof-names.c read (with function granularity it reads it
 * for the frames nobody names, the ones that come here).
 */
static uint32_t addr_entry(struct pprof *pp, const struct sp_pprof_addr *x, struct sp_buf *b)
{
	uint32_t e;

	sp_buf_reset(b);
	sp_buf_addstr(b, sp_pprof_names_hex(&pp->names, x->pc));
	e = entry_for(pp, b->buf);
	if (x->known && x->nsyms && x->syms[0].file && !pp->shown[e]) {
		sp_buf_reset(b);
		sp_buf_addstr(b, x->syms[0].func);
		add_fileline(b, &x->syms[0]);
		pp->shown[e] = sp_strtab_intern(&pp->strs, b->buf);
	}
	return e;
}

/* An entry of --addresses, --files or --show_addresses: "$a $func
 * $fileline", the file of "$fileline", "$func $fileline ($a)" and "$func
 * ($a)" (func with its " (inline)"). */
static uint32_t grain_entry(struct pprof *pp, const struct sp_pprof_addr *x,
			    const struct sp_pprof_sym *sy, const char *func, int inl,
			    struct sp_buf *b)
{
	const char *hex;

	if (pp->o->files) {
		if (!sy->file || fileline_unknown(sy))
			return addr_entry(pp, x, b);
		sp_buf_reset(b);
		sp_buf_addstr(b, sy->file);
		return entry_for(pp, b->buf);
	}
	hex = sp_pprof_names_hex(&pp->names, x->pc);
	sp_buf_reset(b);
	if (pp->o->addresses) {
		sp_buf_addstr(b, hex);
		sp_buf_addch(b, ' ');
	}
	sp_buf_addstr(b, func);
	if (inl)
		sp_buf_addstr(b, " (inline)");
	if (pp->o->addresses || pp->o->lines)
		add_fileline(b, sy);
	if (!pp->o->addresses)
		sp_buf_addf(b, " (%s)", hex);
	return entry_for(pp, b->buf);
}

/* TranslateStack for one address: its entries, innermost first. */
static void translate_addr(struct pprof *pp, uint32_t a, struct strmap *map, struct sp_buf *b)
{
	const struct sp_pprof_addr *x = &pp->addrs[a];
	struct sp_pprof_sym unknown;
	const struct sp_pprof_sym *syms = x->syms;
	uint32_t n = x->nsyms, j;
	int plain = !pp->o->addresses && !pp->o->files && !pp->o->show_addresses;

	if (pp->names.addr_width > 8 && x->pc > 0x7fffffffffffffffULL)
		return;
	if (!x->known) {
		/* an empty "file:line", numbered apart from the pairs */
		memset(&unknown, 0, sizeof(unknown));
		unknown.func = unknown.full = sp_pprof_names_hex(&pp->names, x->pc);
		unknown.fl = UINT32_MAX;
		syms = &unknown;
		n = 1;
	}
	for (j = n; j > 0; j--) {
		const struct sp_pprof_sym *sy = &syms[j - 1];
		const char **m = map->n ? strmap_get(map, sy->full) : NULL;
		const char *func = m ? *m : sy->func;
		uint32_t e;

		if (!pp->o->addresses && !pp->o->files && func[0] == '?' && !strcmp(func, "??") &&
		    (!pp->o->lines || fileline_unknown(sy)))
			e = addr_entry(pp, x, b);
		else if (plain)
			e = entry_memo(pp, func, pp->o->lines ? sy : NULL, j > 1, b);
		else
			e = grain_entry(pp, x, sy, func, j > 1, b);
		/* ReduceProfile skips an empty key (--files of a frame whose
		 * file addr2line prints empty, as ld.so's _start): the flat
		 * goes to the next entry */
		if (!pp->entry[e][0])
			continue;
		SP_ALLOC_GROW(pp->aent, pp->naent + 1, pp->aent_alloc);
		pp->aent[pp->naent++] = e;
	}
}

static void translate(struct pprof *pp)
{
	struct strmap map;
	struct sp_buf b = SP_BUF_INIT;
	size_t a;

	strmap_init(&map);
	sp_pairmap_init(&pp->entry_index, entry_key, pp);
	sp_pairmap_init(&pp->memo_index, memo_key, pp);
	fullname_map(pp, &map);
	pp->aent_off = sp_xmalloc((pp->naddrs + 1) * sizeof(*pp->aent_off));
	for (a = 0; a < pp->naddrs; a++) {
		pp->aent_off[a] = pp->naent;
		translate_addr(pp, (uint32_t)a, &map, &b);
	}
	pp->aent_off[pp->naddrs] = pp->naent;
	sp_buf_release(&b);
	strmap_release(&map);
}

/* ---- counting ---- */

static void alloc_counts(struct pprof *pp)
{
	pp->flat = sp_xcalloc(pp->nentries + 1, sizeof(*pp->flat));
	pp->cum = sp_xcalloc(pp->nentries + 1, sizeof(*pp->cum));
	pp->listed = sp_xcalloc(pp->nentries + 1, 1);
}

/*
 * ReduceProfile, FlatProfile, CumulativeProfile, one stack at a time: a
 * stack adds its samples to the cum of every entry it holds, once however
 * often the entry recurs in it, and to the flat of its first entry. The
 * stack is n elements el[0 .. n), leaf first (frames or addresses); the
 * entries of element x are aent[range[x][0] .. range[x][1]). seen[] holds
 * per entry the stamp of the last stack that counted it.
 */
struct tally {
	const uint32_t (*range)[2];
	uint32_t *seen;
	uint32_t stamp;
};

static void tally_init(struct tally *t, const struct pprof *pp, const uint32_t (*range)[2])
{
	t->range = range;
	t->seen = sp_xcalloc(pp->nentries + 1, sizeof(*t->seen));
	t->stamp = 0;
}

static void tally_stack(struct pprof *pp, struct tally *t, const uint32_t *el, size_t n, int64_t c)
{
	const uint32_t(*range)[2] = t->range;
	const uint32_t *aent = pp->aent;
	uint32_t *seen = t->seen, stamp;
	int64_t *cum = pp->cum;
	char *listed = pp->listed;
	size_t k = 0;

	if (++t->stamp == 0) {
		memset(seen, 0, pp->nentries * sizeof(*seen));
		t->stamp = 1;
	}
	stamp = t->stamp;
	while (k < n && range[el[k]][0] == range[el[k]][1])
		k++;
	if (k < n)
		pp->flat[aent[range[el[k]][0]]] += c;
	for (; k < n; k++) {
		uint32_t e = range[el[k]][0], hi = range[el[k]][1];

		for (; e < hi; e++) {
			uint32_t id = aent[e];

			if (seen[id] != stamp) {
				seen[id] = stamp;
				listed[id] = 1;
				cum[id] += c;
			}
		}
	}
}

/* ---- --focus and --ignore (FocusProfile, IgnoreProfile) ---- */

/* 1 if re matches address x's key or one of its symbols' short name or
 * file:line (SymbolMatches). */
static int addr_matches(struct pprof *pp, const regex_t *re, const struct sp_pprof_addr *x,
			struct sp_buf *b)
{
	uint32_t k;

	if (!regexec(re, sp_pprof_names_hex(&pp->names, x->pc), 0, NULL, 0))
		return 1;
	for (k = 0; x->known && k < x->nsyms; k++) {
		const struct sp_pprof_sym *sy = &x->syms[k];

		if (!regexec(re, sy->func, 0, NULL, 0))
			return 1;
		sp_buf_reset(b);
		add_fileline(b, sy); /* " file:line", or " " */
		if (!regexec(re, b->buf + 1, 0, NULL, 0))
			return 1;
	}
	return 0;
}

/* Per address: IGNORED if the stacks that hold it are dropped by
 * --ignore, FOCUSED if they are kept by --focus (both can be set). */
enum { IGNORED = 1, FOCUSED = 2 };

struct stack_filter {
	char *match; /* per address; NULL: no filter */
	int focus;   /* --focus given: a stack needs a FOCUSED address */
};

/* The patterns were checked when the options were read. */
static void stack_filter_init(struct stack_filter *f, struct pprof *pp)
{
	regex_t focus, ignore;
	struct sp_buf b = SP_BUF_INIT;
	size_t i;

	f->match = NULL;
	f->focus = pp->o->focus != NULL;
	if (!pp->o->focus && !pp->o->ignore)
		return;
	if ((pp->o->focus && regcomp(&focus, pp->o->focus, REG_EXTENDED | REG_NOSUB)) ||
	    (pp->o->ignore && regcomp(&ignore, pp->o->ignore, REG_EXTENDED | REG_NOSUB)))
		SP_BUG("a pattern the options accepted does not compile");
	f->match = sp_xcalloc(pp->naddrs + 1, 1);
	for (i = 0; i < pp->naddrs; i++) {
		if (pp->o->ignore && addr_matches(pp, &ignore, &pp->addrs[i], &b))
			f->match[i] |= IGNORED;
		if (pp->o->focus && addr_matches(pp, &focus, &pp->addrs[i], &b))
			f->match[i] |= FOCUSED;
	}
	if (pp->o->focus)
		regfree(&focus);
	if (pp->o->ignore)
		regfree(&ignore);
	sp_buf_release(&b);
}

/*
 * Whether a stack passes the filter: its n elements at[0 .. n) are
 * addresses, or frames when frame_addr maps them to addresses; those
 * that skip[] marks (frames pprof removed) match nothing.
 */
static int stack_kept(const struct stack_filter *f, const uint32_t *at, size_t n,
		      const uint32_t *frame_addr, const char *skip)
{
	int found = 0;
	size_t i;

	if (!f->match)
		return 1;
	for (i = 0; i < n; i++) {
		uint32_t a = frame_addr ? frame_addr[at[i]] : at[i];

		if (skip && skip[a])
			continue;
		if (f->match[a] & IGNORED)
			return 0;
		found |= f->match[a] & FOCUSED;
	}
	return found || !f->focus;
}

/* The stacks of addresses left by remove_uninteresting(). */
static void reduce_addrs(struct pprof *pp)
{
	uint32_t(*range)[2] = sp_xmalloc((pp->naddrs + 1) * sizeof(*range));
	struct stack_filter f;
	struct tally t;
	size_t i;

	for (i = 0; i < pp->naddrs; i++) {
		range[i][0] = (uint32_t)pp->aent_off[i];
		range[i][1] = (uint32_t)pp->aent_off[i + 1];
	}
	tally_init(&t, pp, (const uint32_t(*)[2])range);
	stack_filter_init(&f, pp);
	for (i = 0; i < pp->nstacks; i++)
		if (stack_kept(&f, pp->stk + pp->off[i], pp->off[i + 1] - pp->off[i], NULL, NULL))
			tally_stack(pp, &t, pp->stk + pp->off[i], pp->off[i + 1] - pp->off[i],
				    pp->count[i]);
	free(f.match);
	free(t.seen);
	free(range);
}

/* The stacks of frames as they are, the frames of skipped addresses
 * having no entries. */
static void reduce_frames(struct pprof *pp, const char *skip)
{
	size_t nframes = pp->p->nframes, i;
	uint32_t(*range)[2] = sp_xmalloc((nframes + 1) * sizeof(*range));
	struct stack_filter f;
	struct tally t;

	for (i = 0; i < nframes; i++) {
		uint32_t a = pp->frame_addr[i];

		range[i][0] = (uint32_t)pp->aent_off[a];
		range[i][1] = (uint32_t)(skip[a] ? pp->aent_off[a] : pp->aent_off[a + 1]);
	}
	tally_init(&t, pp, (const uint32_t(*)[2])range);
	stack_filter_init(&f, pp);
	for (i = 0; i < pp->nst; i++) {
		const struct sp_stack *s = &pp->st[i];

		if (counted(pp, s) &&
		    stack_kept(&f, pp->st_frames + s->first, s->depth, pp->frame_addr, skip))
			tally_stack(pp, &t, pp->st_frames + s->first, s->depth, s->count);
	}
	free(f.match);
	free(t.seen);
	free(range);
}

/* IsSecondPcAlwaysTheSame: every stack has a second address and it is
 * the same one. */
static int second_always_same(const struct pprof *pp, uint32_t *which)
{
	uint32_t second = UINT32_MAX;
	size_t i;

	for (i = 0; i < pp->nst; i++) {
		const struct sp_stack *s = &pp->st[i];
		uint32_t a;

		if (!counted(pp, s))
			continue;
		if (s->depth < 2)
			return 0;
		a = pp->frame_addr[pp->st_frames[s->first + 1]];
		if (second != UINT32_MAX && a != second)
			return 0;
		second = a;
	}
	*which = second;
	return second != UINT32_MAX;
}

/*
 * The flat and cum columns. The common case counts on the stacks as they
 * are, the frames pprof drops having no entries; when every stack has the
 * same second address (a signal-frame artefact pprof removes, rare in
 * gperftools 2.x profiles) the stacks are rewritten as pprof does first.
 */
static void count_samples(struct pprof *pp)
{
	char *skip;
	uint32_t second;

	list_stacks(pp);
	if (pp->o->keep_signal_frames) {
		/* --no-auto-signal-frm: nothing removed, the artefact reported */
		if (second_always_same(pp, &second)) {
			sp_warn(pp->o->stderr_lines, "All second stack frames are same: `%s'.",
				addr_name(pp, second));
			sp_warn(pp->o->stderr_lines, "Might be stack trace capturing bug.");
		}
		skip = uninteresting(pp, 0);
	} else if (second_always_same(pp, &second)) {
		collect_stacks(pp);
		remove_uninteresting(pp);
		translate(pp);
		alloc_counts(pp);
		reduce_addrs(pp);
		return;
	} else {
		skip = uninteresting(pp, 1);
	}
	translate(pp);
	alloc_counts(pp);
	reduce_frames(pp, skip);
	free(skip);
}

/* PrintText's order: by flat (cum with --cum) descending, then by name. */
struct row {
	int64_t key;
	const char *name;
	uint32_t entry;
};

/*
 * rows[0 .. n) in that order: by name first (8 bytes at a time, not a
 * strcmp() per comparison: most rows tie on their count, and C++ names
 * share long prefixes), then stably by the count's bytes, descending.
 */
static void sort_rows(struct row *rows, size_t n)
{
	struct sp_named *byname = sp_xmalloc((2 * n + 1) * sizeof(*byname));
	struct sp_keyed *bykey = sp_xmalloc((2 * n + 1) * sizeof(*bykey)), *sorted;
	struct row *out = sp_xmalloc((n + 1) * sizeof(*out));
	size_t i;

	for (i = 0; i < n; i++) {
		byname[i].name = rows[i].name;
		byname[i].idx = (uint32_t)i;
	}
	sp_sort_names(byname, n, byname + n);
	for (i = 0; i < n; i++) {
		/* descending: the complement of the key, its sign bit flipped */
		bykey[i].key = ~((uint64_t)rows[byname[i].idx].key ^ (UINT64_C(1) << 63));
		bykey[i].idx = byname[i].idx;
	}
	sorted = sp_sort_keyed(bykey, n, bykey + n);
	for (i = 0; i < n; i++)
		out[i] = rows[sorted[i].idx];
	memcpy(rows, out, n * sizeof(*rows));
	free(out);
	free(bykey);
	free(byname);
}

/* ---- printing ---- */

/* pprof's "%.1f%%" of num / total; memoized per num, as the same few
 * counts recur over many rows. */
#define PCT_SLOTS 1024

struct pct_memo {
	int64_t total;
	struct pct_slot {
		int64_t num;
		int set;
		char s[32];
	} slot[PCT_SLOTS];
};

/*
 * printf's "%.1f%%" of d >= 0 (not -0.0), without printf: d times 10 is exact in a
 * long double of 64 mantissa bits (53 + 4), so rounding it to an integer
 * in the default mode (to nearest, ties to even) rounds d's exact value as
 * printf does. Returns 0 where that does not hold (another long double,
 * a negative or huge d): the caller asks printf.
 */
static int tenths(char *buf, double d)
{
#if LDBL_MANT_DIG >= 64
	char tmp[24], *e = tmp + sizeof(tmp);
	uint64_t k;

	if (!(d >= 0 && d < 1e15) || signbit(d)) /* printf prints -0.0 */
		return 0;
	k = (uint64_t)rintl((long double)d * 10);
	*--e = '\0';
	*--e = '%';
	*--e = (char)('0' + k % 10);
	*--e = '.';
	k /= 10;
	do
		*--e = (char)('0' + k % 10);
	while (k /= 10);
	memcpy(buf, e, (size_t)(tmp + sizeof(tmp) - e));
	return 1;
#else
	(void)buf;
	(void)d;
	return 0;
#endif
}

static const char *percent(struct pct_memo *m, int64_t num)
{
	struct pct_slot *sl = &m->slot[(uint64_t)num % PCT_SLOTS];

	if (sl->set && sl->num == num)
		return sl->s;
	sl->set = 1;
	sl->num = num;
	if (m->total == 0)
		snprintf(sl->s, sizeof(sl->s), "%s", num == 0 ? "nan" : num > 0 ? "+inf" : "-inf");
	else if (!tenths(sl->s, (double)num * 100.0 / (double)m->total))
		snprintf(sl->s, sizeof(sl->s), "%.1f%%", (double)num * 100.0 / (double)m->total);
	return sl->s;
}

/* printf's "%*s": s[0 .. n) right-aligned in width columns. */
static void add_right_n(struct sp_buf *b, const char *s, size_t n, size_t width)
{
	if (n < width)
		sp_buf_addchars(b, ' ', width - n);
	sp_buf_add(b, s, n);
}

static void add_right(struct sp_buf *b, const char *s, size_t width)
{
	add_right_n(b, s, strlen(s), width);
}

/* printf's "%*lld". */
static void add_count(struct sp_buf *b, int64_t v, size_t width)
{
	char d[24], *e = d + sizeof(d) - 1;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	*e = '\0';
	do
		*--e = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--e = '-';
	add_right_n(b, e, (size_t)(d + sizeof(d) - 1 - e), width);
}

/* "%8lld %6s %6s %8lld %6s %s\n", the lines of PrintText. */
static void print_rows(struct pprof *pp)
{
	struct row *rows = sp_xmalloc((pp->nentries + 1) * sizeof(*rows));
	const int64_t *key = pp->o->cum ? pp->cum : pp->flat;
	struct pct_memo *pm = sp_xcalloc(1, sizeof(*pm));
	int64_t total = pp->total, running = 0;
	struct sp_buf b = SP_BUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < pp->nentries; i++) {
		pm->total += pp->flat[i];
		if (pp->listed[i]) {
			rows[n].key = key[i];
			rows[n].name = pp->entry[i];
			rows[n++].entry = (uint32_t)i;
		}
	}
	if (total != 0)
		fprintf(pp->out, "Total: %lld samples\n", (long long)total);
	sort_rows(rows, n);
	for (i = 0; i < n; i++) {
		uint32_t e = rows[i].entry;

		running += pp->flat[e];
		if (!pp->flat[e] && !pp->cum[e])
			continue;
		add_count(&b, pp->flat[e], 8);
		sp_buf_addch(&b, ' ');
		add_right(&b, percent(pm, pp->flat[e]), 6);
		sp_buf_addch(&b, ' ');
		add_right(&b, percent(pm, running), 6);
		sp_buf_addch(&b, ' ');
		add_count(&b, pp->cum[e], 8);
		sp_buf_addch(&b, ' ');
		add_right(&b, percent(pm, pp->cum[e]), 6);
		sp_buf_addch(&b, ' ');
		sp_buf_addstr(&b, pp->shown[e] ? pp->shown[e] : pp->entry[e]);
		sp_buf_addch(&b, '\n');
		if (b.len >= 65536) {
			fwrite(b.buf, 1, b.len, pp->out);
			sp_buf_reset(&b);
		}
	}
	fwrite(b.buf, 1, b.len, pp->out);
	sp_buf_release(&b);
	free(pm);
	free(rows);
}

static int addr_width(const struct sp_profile *p)
{
	return p->ninputs && p->inputs[0].word_size == 4 ? 8 : 16;
}

void sp_report_pprof(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
		     const struct sp_stack_report_opts *o)
{
	struct pprof pp;

	memset(&pp, 0, sizeof(pp));
	pp.out = out;
	pp.p = p;
	pp.o = o;
	sp_strtab_init(&pp.strs);
	/* file:line is asked for these granularities, and for --focus and
	 * --ignore, which match it */
	sp_pprof_names_init(&pp.names, s, addr_width(p),
			    o->lines || o->addresses || o->files || o->focus || o->ignore);
	pp.names.keep_templates = o->keep_templates;
	collect_addrs(&pp, s);
	count_samples(&pp);
	print_rows(&pp);
	sp_pprof_names_release(&pp.names);
	sp_strtab_release(&pp.strs);
	sp_pairmap_release(&pp.addr_index);
	sp_pairmap_release(&pp.entry_index);
	sp_pairmap_release(&pp.memo_index);
	free(pp.memo);
	free(pp.addrs);
	free(pp.frame_addr);
	free(pp.stk);
	free(pp.off);
	free(pp.count);
	free(pp.entry);
	free(pp.shown);
	free(pp.own_st);
	free(pp.own_frames);
	free(pp.flat);
	free(pp.cum);
	free(pp.listed);
	free(pp.aent);
	free(pp.aent_off);
}
