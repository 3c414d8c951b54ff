/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=proto: the profile as pprof's profile.proto (google/pprof,
 * proto/profile.proto; the field numbers are in formats/profile.proto and
 * docs/formats.md), gzipped, as `go tool pprof`, Pyroscope, Parca and
 * speedscope read it.
 *
 *   Profile      sample_type* sample* mapping* location* function*
 *                string_table* period_type period comment default_sample_type
 *   Sample       location_id (packed, leaf first) value (packed, one per type)
 *   Location     id mapping_id address line* (innermost inlined function first)
 *   Function     id name (demangled) system_name (raw) filename start_line
 *   Mapping      id memory_start memory_limit file_offset filename build_id has_*
 *
 * Stack profiles (gperftools, IgProf, pprof; sp_report_proto_stacks): one
 * sample per distinct stack, one location per frame with the frame's
 * address (a return address less one, inside its call) and its inline
 * chain as the symbolizer answers it (a pprof profile's as recorded), one mapping
 * per mapping of the profile (IgProf records none: one per object, laid
 * at a base of its own, the address being IgProf's offset from it).
 * Frames nothing names keep their address and no line, and their mapping
 * says it has no functions, so that a consumer with the binaries can
 * symbolize them.
 *
 * gprof's data are not stacks (sp_report_proto_cg): each function with
 * self time is a one-frame sample of that time, each arc of the call
 * graph a two-frame sample [callee, caller] of its calls, in a sample
 * type of its own; one location per function at its address. The
 * functions are those --format=json lists (gprof's -z rule).
 *
 * The message is written as it is built: samples first, compressed as
 * they come; the locations, functions and strings they made, which
 * samples refer to by id, follow them (protobuf fields may come in any
 * order, and readers resolve the ids once the whole message is read).
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "json.h"
#include "pprof.h"
#include "symprof/alloc.h"
#include "symprof/hashmap.h"
#include "symprof/pbwire.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"

/* Profile's fields. */
enum {
	P_SAMPLE_TYPE = 1,
	P_SAMPLE = 2,
	P_MAPPING = 3,
	P_LOCATION = 4,
	P_FUNCTION = 5,
	P_STRING_TABLE = 6,
	P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10,
	P_PERIOD_TYPE = 11,
	P_PERIOD = 12,
	P_COMMENT = 13,
	P_DEFAULT_SAMPLE_TYPE = 14,
};

#define FLUSH_AT (256 * 1024)

struct pfunc {
	uint32_t name, sys, file;
	int64_t start_line;
};

struct pmapping {
	uint64_t start, limit, offset;
	uint32_t file, build_id;
	unsigned is_main : 1, has_functions : 1, has_filenames : 1, has_lines : 1, has_inline : 1;
};

/* One line of a location: a function and the line in it. */
struct pline {
	uint32_t func; /* 1-based id */
	int64_t line;
};

struct pbw {
	FILE *out;
	z_stream z;
	int zerr;
	struct sp_buf msg; /* Profile fields not compressed yet */
	struct sp_buf tmp; /* a nested message being built */
	struct sp_strtab strs;
	struct sp_pairmap str_index; /* interned pointer -> index */
	const char **str;
	size_t nstr, str_alloc;
	struct pfunc *funcs;
	struct sp_pairmap func_index;
	size_t nfuncs, funcs_alloc;
	struct sp_buf locs; /* Location fields, as made */
	uint64_t nlocs;
	struct pmapping *maps;
	size_t nmaps, maps_alloc;
	uint64_t *ids, *vals;
	size_t ids_alloc;
	const struct sp_proto_opts *o;
};

/* ---- strings and functions ---- */

static void str_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pbw *w = ctx;

	*k1 = (uint64_t)(uintptr_t)w->str[i];
	*k2 = 0;
}

static uint32_t string_n(struct pbw *w, const char *s, size_t len)
{
	const char *k = sp_strtab_intern_n(&w->strs, s ? s : "", s ? len : 0);
	uint32_t i = sp_pairmap_get(&w->str_index, (uint64_t)(uintptr_t)k, 0);

	if (i != UINT32_MAX)
		return i;
	SP_ALLOC_GROW(w->str, w->nstr + 1, w->str_alloc);
	w->str[w->nstr] = k;
	sp_pairmap_put(&w->str_index, (uint64_t)(uintptr_t)k, 0, (uint32_t)w->nstr);
	return (uint32_t)w->nstr++;
}

static uint32_t string(struct pbw *w, const char *s)
{
	return string_n(w, s, s ? strlen(s) : 0);
}

static void func_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct pbw *w = ctx;

	*k1 = (uint64_t)w->funcs[i].name << 32 | w->funcs[i].sys;
	*k2 = w->funcs[i].file;
}

/* The id of the function (name, system name, file), made on first use;
 * a start line fills one not known yet. */
static uint32_t function(struct pbw *w, uint32_t name, uint32_t sys, uint32_t file,
			 int64_t start_line)
{
	uint32_t i;

	SP_ALLOC_GROW(w->funcs, w->nfuncs + 1, w->funcs_alloc);
	w->funcs[w->nfuncs].name = name;
	w->funcs[w->nfuncs].sys = sys;
	w->funcs[w->nfuncs].file = file;
	w->funcs[w->nfuncs].start_line = start_line;
	i = sp_pairmap_put(&w->func_index, (uint64_t)name << 32 | sys, file, (uint32_t)w->nfuncs);
	if (i == w->nfuncs)
		w->nfuncs++;
	else if (!w->funcs[i].start_line)
		w->funcs[i].start_line = start_line;
	return i + 1;
}

/* ---- the compressed stream ---- */

static void deflate_out(struct pbw *w, int flush)
{
	uint8_t chunk[65536];

	w->z.next_in = (Bytef *)w->msg.buf;
	w->z.avail_in = (uInt)w->msg.len;
	do {
		int rc;

		w->z.next_out = chunk;
		w->z.avail_out = sizeof(chunk);
		rc = deflate(&w->z, flush);
		if (rc == Z_STREAM_ERROR) {
			w->zerr = 1;
			break;
		}
		fwrite(chunk, 1, sizeof(chunk) - w->z.avail_out, w->out);
	} while (w->z.avail_out == 0 || w->z.avail_in > 0);
	sp_buf_reset(&w->msg);
}

static void maybe_flush(struct pbw *w)
{
	if (w->msg.len >= FLUSH_AT)
		deflate_out(w, Z_NO_FLUSH);
}

static void value_type(struct pbw *w, uint32_t field, const char *type, const char *unit)
{
	sp_buf_reset(&w->tmp);
	sp_pb_put_uint_nz(&w->tmp, 1, string(w, type));
	sp_pb_put_uint_nz(&w->tmp, 2, string(w, unit));
	sp_pb_put_bytes(&w->msg, field, w->tmp.buf, w->tmp.len);
}

static void pbw_init(struct pbw *w, FILE *out, const struct sp_proto_opts *o)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->out = out;
	w->o = o;
	/* gzip wrapper (15 + 16), the default level */
	if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		w->zerr = 1;
	sp_strtab_init(&w->strs);
	sp_pairmap_init(&w->str_index, str_key, w);
	sp_pairmap_init(&w->func_index, func_key, w);
	string(w, ""); /* string_table[0] */
	for (i = 0; i < o->nvalues; i++)
		value_type(w, P_SAMPLE_TYPE, o->values[i].type, o->values[i].unit);
	w->vals = sp_xcalloc(o->nvalues + 1, sizeof(*w->vals));
}

static void sample(struct pbw *w, const uint64_t *ids, size_t nids)
{
	sp_buf_reset(&w->tmp);
	sp_pb_put_packed(&w->tmp, 1, ids, nids);
	sp_pb_put_packed(&w->tmp, 2, w->vals, w->o->nvalues);
	sp_pb_put_bytes(&w->msg, P_SAMPLE, w->tmp.buf, w->tmp.len);
	maybe_flush(w);
}

/* Appends a Location; returns its id. */
static uint64_t location(struct pbw *w, uint32_t mapping, uint64_t addr, const struct pline *lines,
			 size_t nlines)
{
	struct sp_buf line = SP_BUF_INIT;
	uint64_t id = ++w->nlocs;
	size_t i;

	sp_buf_reset(&w->tmp);
	sp_pb_put_uint(&w->tmp, 1, id);
	sp_pb_put_uint_nz(&w->tmp, 2, mapping);
	sp_pb_put_uint_nz(&w->tmp, 3, addr);
	for (i = 0; i < nlines; i++) {
		sp_buf_reset(&line);
		sp_pb_put_uint(&line, 1, lines[i].func);
		sp_pb_put_uint_nz(&line, 2, (uint64_t)lines[i].line);
		sp_pb_put_bytes(&w->tmp, 4, line.buf, line.len);
	}
	sp_pb_put_bytes(&w->locs, P_LOCATION, w->tmp.buf, w->tmp.len);
	sp_buf_release(&line);
	return id;
}

/* A new mapping; returns its id. */
static uint32_t mapping(struct pbw *w, uint64_t start, uint64_t limit, uint64_t offset,
			const char *file, const uint8_t *build_id, size_t build_id_len, int is_main)
{
	struct pmapping *m;
	struct sp_buf hex = SP_BUF_INIT;
	size_t i;

	for (i = 0; i < build_id_len; i++)
		sp_buf_addf(&hex, "%02x", build_id[i]);
	SP_ALLOC_GROW(w->maps, w->nmaps + 1, w->maps_alloc);
	m = &w->maps[w->nmaps];
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->limit = limit;
	m->offset = offset;
	m->file = string(w, file);
	m->build_id = hex.len ? string(w, hex.buf) : 0;
	m->is_main = is_main != 0;
	sp_buf_release(&hex);
	return (uint32_t)++w->nmaps;
}

/* What a location of mapping `id` says about its symbols. */
static void mapping_saw(struct pbw *w, uint32_t id, const struct pline *lines, size_t n,
			int with_file)
{
	struct pmapping *m;
	size_t i;

	if (!id || !n)
		return;
	m = &w->maps[id - 1];
	m->has_functions = 1;
	m->has_filenames |= with_file;
	m->has_inline |= n > 1;
	for (i = 0; i < n; i++)
		m->has_lines |= lines[i].line > 0;
}

static void write_mapping(struct pbw *w, size_t i)
{
	const struct pmapping *m = &w->maps[i];

	sp_buf_reset(&w->tmp);
	sp_pb_put_uint(&w->tmp, 1, i + 1);
	sp_pb_put_uint_nz(&w->tmp, 2, m->start);
	sp_pb_put_uint_nz(&w->tmp, 3, m->limit);
	sp_pb_put_uint_nz(&w->tmp, 4, m->offset);
	sp_pb_put_uint_nz(&w->tmp, 5, m->file);
	sp_pb_put_uint_nz(&w->tmp, 6, m->build_id);
	sp_pb_put_uint_nz(&w->tmp, 7, m->has_functions);
	sp_pb_put_uint_nz(&w->tmp, 8, m->has_filenames);
	sp_pb_put_uint_nz(&w->tmp, 9, m->has_lines);
	sp_pb_put_uint_nz(&w->tmp, 10, m->has_inline);
	sp_pb_put_bytes(&w->msg, P_MAPPING, w->tmp.buf, w->tmp.len);
	maybe_flush(w);
}

static void write_tables(struct pbw *w)
{
	size_t i, pass;

	/* mapping[0] is the main binary, by pprof's convention */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < w->nmaps; i++)
			if (w->maps[i].is_main == !pass)
				write_mapping(w, i);
	sp_buf_add(&w->msg, w->locs.buf, w->locs.len);
	maybe_flush(w);
	for (i = 0; i < w->nfuncs; i++) {
		const struct pfunc *f = &w->funcs[i];

		sp_buf_reset(&w->tmp);
		sp_pb_put_uint(&w->tmp, 1, i + 1);
		sp_pb_put_uint_nz(&w->tmp, 2, f->name);
		sp_pb_put_uint_nz(&w->tmp, 3, f->sys);
		sp_pb_put_uint_nz(&w->tmp, 4, f->file);
		sp_pb_put_uint_nz(&w->tmp, 5, (uint64_t)f->start_line);
		sp_pb_put_bytes(&w->msg, P_FUNCTION, w->tmp.buf, w->tmp.len);
		maybe_flush(w);
	}
}

static void pbw_finish(struct pbw *w)
{
	const struct sp_proto_opts *o = w->o;
	uint32_t comment = o->comment ? string(w, o->comment) : 0;
	uint32_t period_type = 0;
	size_t i;

	if (o->period_type) {
		/* strings first: the table is written next */
		period_type = string(w, o->period_type);
		string(w, o->period_unit);
	}
	write_tables(w);
	for (i = 0; i < w->nstr; i++) {
		sp_pb_put_bytes(&w->msg, P_STRING_TABLE, w->str[i], strlen(w->str[i]));
		maybe_flush(w);
	}
	sp_pb_put_uint_nz(&w->msg, P_TIME_NANOS, (uint64_t)o->time_ns);
	sp_pb_put_uint_nz(&w->msg, P_DURATION_NANOS, (uint64_t)o->duration_ns);
	if (period_type)
		value_type(w, P_PERIOD_TYPE, o->period_type, o->period_unit);
	sp_pb_put_uint_nz(&w->msg, P_PERIOD, (uint64_t)o->period);
	sp_pb_put_uint_nz(&w->msg, P_COMMENT, comment);
	if (o->default_value >= 0 && (size_t)o->default_value < o->nvalues)
		sp_pb_put_uint(&w->msg, P_DEFAULT_SAMPLE_TYPE,
			       string(w, o->values[o->default_value].type));
	deflate_out(w, Z_FINISH);
}

static void pbw_release(struct pbw *w)
{
	deflateEnd(&w->z);
	sp_buf_release(&w->msg);
	sp_buf_release(&w->tmp);
	sp_buf_release(&w->locs);
	sp_pairmap_release(&w->str_index);
	sp_pairmap_release(&w->func_index);
	sp_strtab_release(&w->strs);
	free(w->str);
	free(w->funcs);
	free(w->maps);
	free(w->ids);
	free(w->vals);
}

static int64_t scaled(double v, double scale)
{
	double x = v * (scale ? scale : 1);

	return (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
}

/* ---- stack profiles ---- */

struct stackw {
	struct pbw w;
	const struct sp_profile *p;
	struct sp_symbolizer *s;
	uint64_t *loc;	     /* per frame: its location id, 0 until made */
	uint32_t *map_id;    /* per map: its mapping id, 0 until made */
	uint32_t *obj_id;    /* per object without maps: its mapping id */
	uint64_t *obj_limit; /* its highest offset + 1 */
	struct pline *lines; /* of the location being made */
	size_t lines_alloc;
	struct sp_pprof_nmview nm; /* start lines: pprof's routines */
};

/* Objects without mappings (IgProf) are laid at (object + 1) << 40. */
#define OBJECT_BASE(obj) ((uint64_t)((obj) + 1) << 40)

/* The build-id of object `obj`: the profile's, else that of the file the
 * symbolizer read for it (not looked for when frame `fr` came named: a
 * pprof profile's file may well be absent, and need not be). */
static void object_build_id(struct stackw *sw, const struct sp_frame *fr, uint32_t obj,
			    const uint8_t **id, size_t *len)
{
	const struct sp_object *o = &sw->p->objects[obj];
	struct sp_symfile *f;

	*id = o->build_id;
	*len = o->build_id_len;
	if (!*id && sw->s && !(fr->flags & SP_FRAME_LINES) &&
	    (f = sp_symbolizer_object(sw->s, sw->p, obj, NULL)))
		*id = sp_symfile_build_id(f, len);
}

/* The mapping id and the address of frame f. */
static uint32_t frame_mapping(struct stackw *sw, const struct sp_frame *fr, uint64_t *addr)
{
	const struct sp_profile *p = sw->p;
	const uint8_t *bid;
	size_t len;

	/* a return address: one byte back, inside the call (pprof's rule for
	 * callers' addresses, as Go's pprof writes gperftools' stacks) */
	*addr = sp_map_frame_abs(fr);
	if (fr->map < p->nmaps) {
		const struct sp_map *m = &p->maps[fr->map];

		if (!sw->map_id[fr->map]) {
			object_build_id(sw, fr, m->object, &bid, &len);
			sw->map_id[fr->map] = mapping(&sw->w, m->start, m->end, m->pgoff,
						      p->objects[m->object].path, bid, len,
						      p->objects[m->object].is_main);
		}
		return sw->map_id[fr->map];
	}
	if (fr->object >= p->nobjects)
		return 0;
	if (!sw->obj_id[fr->object]) {
		object_build_id(sw, fr, fr->object, &bid, &len);
		sw->obj_id[fr->object] = mapping(
			&sw->w, OBJECT_BASE(fr->object), OBJECT_BASE(fr->object), 0,
			p->objects[fr->object].path, bid, len, p->objects[fr->object].is_main);
	}
	if (fr->addr + 1 > sw->obj_limit[fr->object])
		sw->obj_limit[fr->object] = fr->addr + 1;
	*addr += OBJECT_BASE(fr->object);
	return sw->obj_id[fr->object];
}

/*
 * The line the function whose code holds `vaddr` starts at: the line of
 * the first instruction of the routine nm lists it in (the outermost
 * function there is the one vaddr is in); 0 if unknown.
 */
static int64_t start_line(struct stackw *sw, struct sp_symfile *f, uint64_t vaddr)
{
	const struct sp_symloc *l;
	const char *name;
	uint64_t start;

	if (!f || !sp_pprof_nmview_routine(&sw->nm, f, vaddr, &name, NULL, &start) || start > vaddr)
		return 0;
	l = sp_symfile_lookup(f, start);
	return l->nframes ? l->frames[l->nframes - 1].line : 0;
}

/* The lines a pprof profile recorded for frame f, as it recorded them. */
static size_t recorded_lines(struct stackw *sw, const struct sp_frame *fr, int *with_file)
{
	struct pbw *w = &sw->w;
	uint32_t k;

	SP_ALLOC_GROW(sw->lines, fr->nlines, sw->lines_alloc);
	for (k = 0; k < fr->nlines; k++) {
		const struct sp_frame_line *l = &sw->p->frame_lines[fr->first_line + k];
		const char *sys = l->system_name ? l->system_name : l->name;

		sw->lines[k].func = function(w, string(w, w->o->demangle ? l->name : sys),
					     string(w, sys), string(w, l->file), l->start_line);
		sw->lines[k].line = l->line;
		*with_file |= l->file != NULL;
	}
	return fr->nlines;
}

/* The lines of frame f, innermost function first: its inline chain, or
 * the profiler's name for it, or none. */
static size_t frame_lines(struct stackw *sw, uint32_t f, int *with_file)
{
	const struct sp_frame *fr = &sw->p->frames[f];
	const struct sp_symloc *loc;
	struct pbw *w = &sw->w;
	size_t k, n = 0;

	*with_file = 0;
	if (fr->flags & SP_FRAME_LINES)
		return recorded_lines(sw, fr, with_file);
	loc = sw->s ? sp_symbolizer_frame(sw->s, sw->p, f) : NULL;
	if (loc && loc->nframes && loc->frames[loc->nframes - 1].func) {
		SP_ALLOC_GROW(sw->lines, loc->nframes, sw->lines_alloc);
		for (k = 0; k < loc->nframes; k++) {
			/* the reports' naming rule (symbolize/names.c): a linkage
			 * name to demangle, or a name built from DWARF */
			const struct sp_sym_frame *sf = &loc->frames[k];
			const char *raw = sf->func ? sf->func : "??";
			const char *shown =
				w->o->demangle && sf->func_linkage
					? sp_symbolizer_demangle_in(sw->s, loc->file, raw)
					: raw;
			int64_t start =
				k + 1 == loc->nframes ? start_line(sw, loc->file, loc->vaddr) : 0;

			sw->lines[n].func = function(w, string(w, shown), string(w, raw),
						     string(w, sf->file), start);
			sw->lines[n++].line = sf->line;
			*with_file |= sf->file != NULL;
		}
	} else if ((fr->flags & SP_FRAME_NAMED) && fr->name) {
		const char *shown = w->o->demangle && sw->s
					    ? sp_symbolizer_demangle(sw->s, fr->name)
					    : fr->name;

		SP_ALLOC_GROW(sw->lines, 1, sw->lines_alloc);
		sw->lines[0].func = function(w, string(w, shown), string(w, fr->name), 0, 0);
		sw->lines[0].line = 0;
		n = 1;
	}
	return n;
}

static uint64_t frame_location(struct stackw *sw, uint32_t f)
{
	uint64_t addr;
	uint32_t mid;
	size_t n;
	int with_file;

	if (sw->loc[f])
		return sw->loc[f];
	mid = frame_mapping(sw, &sw->p->frames[f], &addr);
	n = frame_lines(sw, f, &with_file);
	mapping_saw(&sw->w, mid, sw->lines, n, with_file);
	sw->loc[f] = location(&sw->w, mid, addr, sw->lines, n);
	return sw->loc[f];
}

/* The sample of CCT node `node`: its path, leaf first. */
static void node_sample(struct stackw *sw, uint32_t node)
{
	struct pbw *w = &sw->w;
	size_t n = 0;
	uint32_t k;

	for (k = node; k != 0 && k != SP_NONE; k = sw->p->nodes[k].parent) {
		SP_ALLOC_GROW(w->ids, n + 1, w->ids_alloc);
		w->ids[n++] = frame_location(sw, sw->p->nodes[k].frame);
	}
	sample(w, w->ids, n);
}

static void cct_samples(struct stackw *sw)
{
	const struct sp_proto_opts *o = sw->w.o;
	int64_t *vals[SP_PROTO_MAX_VALUES];
	size_t i, k;

	for (k = 0; k < o->nvalues; k++)
		vals[k] = sp_profile_node_values(sw->p, o->values[k].counter,
						 (enum sp_value_pick)o->values[k].pick);
	for (i = 1; i < sw->p->nnodes; i++) {
		int any = 0;

		for (k = 0; k < o->nvalues; k++) {
			sw->w.vals[k] = (uint64_t)scaled((double)vals[k][i], o->values[k].scale);
			any |= vals[k][i] != 0;
		}
		if (any)
			node_sample(sw, (uint32_t)i);
	}
	for (k = 0; k < o->nvalues; k++)
		free(vals[k]);
}

/* The list form (sp_profile.stacks): events of one counter each. */
static void list_samples(struct stackw *sw)
{
	const struct sp_proto_opts *o = sw->w.o;
	struct pbw *w = &sw->w;
	size_t i, k;

	for (i = 0; i < sw->p->nstacks; i++) {
		const struct sp_stack *st = &sw->p->stacks[i];

		for (k = 0; k < o->nvalues; k++)
			w->vals[k] =
				o->values[k].counter == st->counter
					? (uint64_t)scaled((double)st->count, o->values[k].scale)
					: 0;
		SP_ALLOC_GROW(w->ids, st->depth, w->ids_alloc);
		for (k = 0; k < st->depth; k++)
			w->ids[k] = frame_location(sw, sw->p->stack_frames[st->first + k]);
		sample(w, w->ids, st->depth);
	}
}

void sp_report_proto_stacks(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
			    const struct sp_proto_opts *o)
{
	struct stackw sw;
	size_t i;

	memset(&sw, 0, sizeof(sw));
	pbw_init(&sw.w, out, o);
	sw.p = p;
	sw.s = s;
	sw.loc = sp_xcalloc(p->nframes + 1, sizeof(*sw.loc));
	sw.map_id = sp_xcalloc(p->nmaps + 1, sizeof(*sw.map_id));
	sw.obj_id = sp_xcalloc(p->nobjects + 1, sizeof(*sw.obj_id));
	sw.obj_limit = sp_xcalloc(p->nobjects + 1, sizeof(*sw.obj_limit));
	sp_pprof_nmview_init(&sw.nm);
	cct_samples(&sw);
	list_samples(&sw);
	for (i = 0; i < p->nobjects; i++)
		if (sw.obj_id[i])
			sw.w.maps[sw.obj_id[i] - 1].limit = OBJECT_BASE(i) + sw.obj_limit[i];
	pbw_finish(&sw.w);
	pbw_release(&sw.w);
	free(sw.loc);
	free(sw.map_id);
	free(sw.obj_id);
	free(sw.obj_limit);
	free(sw.lines);
	sp_pprof_nmview_release(&sw.nm);
}

/* ---- call graphs (gmon.out, aprof) ---- */

struct cgw {
	struct pbw w;
	struct sp_report *r;
	const struct sp_report_meta *m;
	uint64_t *loc;	   /* per symbol node: its location id */
	uint32_t main_map; /* the executable's mapping, 0 if none */
	struct sp_pairmap obj_index;
	const char **objs; /* mapped objects (sym_objects), by mapping id - 1 */
};

static void obj_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct cgw *c = ctx;

	*k1 = (uint64_t)(uintptr_t)c->objs[i];
	*k2 = 0;
}

/* The mapping of symbol node i: its object's (aprof), else the
 * executable's. */
static uint32_t node_mapping(struct cgw *c, uint32_t i)
{
	const char *obj = c->m->sym_objects ? c->m->sym_objects[i] : NULL;
	uint32_t k;

	if (!obj)
		return c->main_map;
	obj = sp_strtab_intern(&c->w.strs, obj);
	k = sp_pairmap_get(&c->obj_index, (uint64_t)(uintptr_t)obj, 0);
	if (k != UINT32_MAX)
		return k + 1;
	k = mapping(&c->w, 0, 0, 0, obj, NULL, 0, 0);
	c->objs = sp_xreallocarray(c->objs, k, sizeof(*c->objs));
	c->objs[k - 1] = obj;
	sp_pairmap_put(&c->obj_index, (uint64_t)(uintptr_t)obj, 0, k - 1);
	return k;
}

static uint64_t node_location(struct cgw *c, uint32_t i)
{
	const struct sp_symbol *s = c->r->cg->nodes[i].sym;
	struct pbw *w = &c->w;
	const char *file = s->file ? s->file->name : NULL;
	struct pline line;
	uint32_t mid;
	size_t len;
	const char *shown;

	if (c->loc[i])
		return c->loc[i];
	shown = sp_report_display_name(c->r, i, &len);
	line.func = function(w, string_n(w, shown, len), string(w, s->name), string(w, file),
			     s->line > 0 ? s->line : 0);
	line.line = s->line > 0 ? s->line : 0;
	mid = node_mapping(c, i);
	mapping_saw(w, mid, &line, 1, file != NULL);
	c->loc[i] = location(w, mid, w->o->addresses ? s->addr : 0, &line, 1);
	return c->loc[i];
}

static void set_values(struct pbw *w, enum sp_proto_source src, double v)
{
	size_t k;

	for (k = 0; k < w->o->nvalues; k++)
		w->vals[k] = w->o->values[k].source == src
				     ? (uint64_t)scaled(v, w->o->values[k].scale)
				     : 0;
}

static void main_mapping(struct cgw *c)
{
	const struct sp_cg *cg = c->r->cg;
	const struct sp_proto_opts *o = c->w.o;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	if (!o->executable)
		return;
	for (i = 0; o->addresses && i < cg->nsyms; i++) {
		const struct sp_symbol *s = cg->nodes[i].sym;

		if (s->addr < lo)
			lo = s->addr;
		if (s->end_addr + 1 > hi)
			hi = s->end_addr + 1;
	}
	if (lo > hi)
		lo = hi = 0;
	c->main_map = mapping(&c->w, lo, hi, 0, o->executable, o->build_id, o->build_id_len, 1);
}

void sp_report_proto_cg(struct sp_report *r, const struct sp_report_meta *m,
			const struct sp_proto_opts *o)
{
	const struct sp_cg *cg = r->cg;
	struct sp_json_fn fn;
	struct cgw c;
	uint64_t ids[2];
	char *listed;
	size_t i;

	memset(&c, 0, sizeof(c));
	pbw_init(&c.w, sp_report_out(r), o);
	c.r = r;
	c.m = m;
	c.loc = sp_xcalloc(cg->nsyms + 1, sizeof(*c.loc));
	sp_pairmap_init(&c.obj_index, obj_key, &c);
	main_mapping(&c);
	/* the functions --format=json lists (gprof's -z rule, --precise's
	 * folded clones) */
	listed = sp_xcalloc(cg->nsyms + 1, 1);
	for (i = 0; i < cg->nsyms; i++)
		listed[i] = (char)sp_json_fn(cg, m, r->o->ignore_zeros, i, &fn);
	for (i = 0; i < cg->nsyms; i++) {
		if (!listed[i] || cg->nodes[i].time == 0)
			continue;
		set_values(&c.w, SP_PROTO_SELF, cg->nodes[i].time);
		ids[0] = node_location(&c, (uint32_t)i);
		sample(&c.w, ids, 1);
	}
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->parent >= cg->nsyms || a->child >= cg->nsyms || !a->count ||
		    !listed[a->parent] || !listed[a->child])
			continue;
		set_values(&c.w, SP_PROTO_CALLS, (double)a->count);
		ids[0] = node_location(&c, a->child);
		ids[1] = node_location(&c, a->parent);
		sample(&c.w, ids, 2);
	}
	pbw_finish(&c.w);
	pbw_release(&c.w);
	sp_pairmap_release(&c.obj_index);
	free(listed);
	free(c.objs);
	free(c.loc);
}
