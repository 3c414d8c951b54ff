/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pprof's profile format (google/pprof, proto/profile.proto; the messages
 * and field numbers are in formats/profile.proto), as Go's runtime/pprof,
 * `go tool pprof -proto`, pprof-rs, perf_data_converter and symprof's own
 * --format=proto write it: one Profile message, usually gzipped.
 *
 * A protocol buffer is a sequence of fields, each a key (a varint: field
 * number << 3 | wire type) and a value (core/pbwire.c). The messages read:
 *
 *   Profile    1 sample_type ValueType*   2 sample Sample*   3 mapping*
 *              4 location*  5 function*   6 string_table string*
 *              9 time_nanos  10 duration_nanos  11 period_type ValueType
 *              12 period  14 default_sample_type (a string index)
 *   ValueType  1 type  2 unit                       (string indexes)
 *   Sample     1 location_id*  2 value*             (packed or not)
 *   Mapping    1 id  2 memory_start  3 memory_limit  4 file_offset
 *              5 filename  6 build_id (string indexes)
 *   Location   1 id  2 mapping_id  3 address  4 line Line*
 *   Line       1 function_id  2 line
 *   Function   1 id  2 name  3 system_name  4 filename  5 start_line
 *
 * Unknown fields are skipped, as protobuf readers do (labels, comments,
 * drop_frames ...). Ids are any non-zero numbers; a sample's locations
 * are leaf first, a location's lines innermost function first.
 *
 * What goes into struct sp_profile: a counter per sample type (name =
 * type, unit = unit; a value is both the count and the amount of its
 * events), an object per mapping's file and a map per mapping, a frame
 * per location (its address as recorded: pprof's addresses of callers
 * already point into the call instruction), with the location's lines as
 * the frame's recorded inline chain (SP_FRAME_LINES) when it has any, and
 * each sample's stack in the calling-context tree. Several files are
 * summed; they must have the same sample types.
 *
 * Hostile input: the message is read in two passes over memory, every
 * length checked against its message (core/pbwire.c), every id and string
 * index checked against what the message defines; an error names the
 * file and the offset (in the decompressed message) of the field that is
 * wrong. Memory is bounded: the decompressed message may be at most
 * SP_PPROF_MAX_SIZE bytes (a gzip bomb stops there), and the reader's
 * tables take at most a few times the message's size.
 */
#include "symprof/formats.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/pbwire.h"
#include "symprof/profile.h"
#include "zstream.h"

/* ---- tables ---- */

struct pstr {
	uint32_t off, len; /* in the message */
	const char *s;	   /* interned on first use */
};

struct pmap {
	uint64_t id, start, limit, offset;
	int64_t file, build_id;
	size_t at; /* offset of the message */
	uint32_t map;
};

struct pfunc {
	uint64_t id;
	int64_t name, sys, file, start_line;
	size_t at;
};

struct ploc {
	uint64_t id;
	size_t at, len; /* the Location message */
	uint32_t frame;
};

struct ptype {
	int64_t type, unit;
	size_t at;
};

struct reader {
	struct sp_profile *p;
	const char *name;
	struct sp_error *err;
	const uint8_t *data;
	size_t size;
	struct pstr *strs;
	size_t nstrs, strs_alloc;
	struct pmap *maps;
	size_t nmaps, maps_alloc;
	struct pfunc *funcs;
	size_t nfuncs, funcs_alloc;
	struct ploc *locs;
	size_t nlocs, locs_alloc;
	struct ptype *types;
	size_t ntypes, types_alloc;
	struct ptype period_type;
	int64_t period, time_ns, duration_ns, default_type;
	size_t default_at, nsamples;
	struct sp_pairmap map_index, func_index, loc_index;
	uint32_t *counters;  /* per sample type */
	uint64_t *ids;	     /* a sample's location ids */
	uint32_t *frames;    /* a sample's frames */
	uint64_t *vals;	     /* a sample's values (two's complement) */
	uint64_t *abs_total; /* per sample type: the absolute values so far */
	size_t ids_alloc, vals_alloc;
	struct sp_frame_line *lines;
	size_t lines_alloc;
};

static void map_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	*k1 = ((const struct reader *)ctx)->maps[i].id;
	*k2 = 0;
}

static void func_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	*k1 = ((const struct reader *)ctx)->funcs[i].id;
	*k2 = 0;
}

static void loc_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	*k1 = ((const struct reader *)ctx)->locs[i].id;
	*k2 = 0;
}

/* ---- errors ---- */

static int bad(struct reader *r, size_t at, const char *what)
{
	return sp_error_set(r->err, SP_E_CORRUPT, "cannot read '%s': %s at offset %#zx", r->name,
			    what, at);
}

static int bad_field(struct reader *r, const struct sp_pb_reader *m, enum sp_pb_status st)
{
	return sp_error_set(r->err, st == SP_PB_TRUNCATED ? SP_E_TRUNCATED : SP_E_CORRUPT,
			    "cannot read '%s': not a pprof profile: %s at offset %#zx", r->name,
			    sp_pb_status_text(st), sp_pb_offset(m));
}

/* A field of a known message with another wire type than its own. */
static int bad_wire(struct reader *r, const char *msg, const struct sp_pb_field *f)
{
	return sp_error_set(r->err, SP_E_CORRUPT,
			    "cannot read '%s': field %u of a %s has wire type %d at offset %#zx",
			    r->name, (unsigned)f->field, msg, (int)f->wire, f->offset);
}

/* ---- scalar fields ---- */

/* The varint of field f into *v (a known field of message `msg`). */
static int varint_of(struct reader *r, const char *msg, const struct sp_pb_field *f, uint64_t *v)
{
	if (f->wire != SP_PB_VARINT)
		return bad_wire(r, msg, f);
	*v = f->num;
	return 0;
}

static int int_of(struct reader *r, const char *msg, const struct sp_pb_field *f, int64_t *v)
{
	uint64_t u = 0;
	int rc = varint_of(r, msg, f, &u);

	*v = (int64_t)u;
	return rc;
}

/* The string at index `i` of the table (NULL for index 0, ""), or NULL
 * and an error naming `at` for an index past the table. */
static int string_at(struct reader *r, int64_t i, size_t at, const char **out)
{
	struct pstr *s;

	*out = NULL;
	if (i < 0 || (uint64_t)i >= r->nstrs) {
		char what[96];

		snprintf(what, sizeof(what), "string index %lld past the table of %zu strings",
			 (long long)i, r->nstrs);
		return bad(r, at, what);
	}
	s = &r->strs[i];
	if (!s->len)
		return 0;
	if (!s->s)
		s->s = sp_strtab_intern_n(&r->p->strs, (const char *)r->data + s->off, s->len);
	*out = s->s;
	return 0;
}

/* ---- pass 1: everything but the samples ---- */

static int read_value_type(struct reader *r, const struct sp_pb_reader *parent,
			   const struct sp_pb_field *f, struct ptype *t)
{
	struct sp_pb_reader m;
	struct sp_pb_field g;
	enum sp_pb_status st;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->at = f->offset;
	sp_pb_reader_sub(&m, parent, f);
	while (!rc && (st = sp_pb_next(&m, &g)) == SP_PB_OK) {
		if (g.field == 1)
			rc = int_of(r, "ValueType", &g, &t->type);
		else if (g.field == 2)
			rc = int_of(r, "ValueType", &g, &t->unit);
	}
	return rc ? rc : st == SP_PB_END ? 0 : bad_field(r, &m, st);
}

static int read_mapping(struct reader *r, const struct sp_pb_reader *parent,
			const struct sp_pb_field *f)
{
	struct sp_pb_reader m;
	struct sp_pb_field g;
	enum sp_pb_status st;
	struct pmap *mp;
	int rc = 0;

	SP_ALLOC_GROW(r->maps, r->nmaps + 1, r->maps_alloc);
	mp = &r->maps[r->nmaps];
	memset(mp, 0, sizeof(*mp));
	mp->at = f->offset;
	sp_pb_reader_sub(&m, parent, f);
	while (!rc && (st = sp_pb_next(&m, &g)) == SP_PB_OK) {
		switch (g.field) {
		case 1:
			rc = varint_of(r, "Mapping", &g, &mp->id);
			break;
		case 2:
			rc = varint_of(r, "Mapping", &g, &mp->start);
			break;
		case 3:
			rc = varint_of(r, "Mapping", &g, &mp->limit);
			break;
		case 4:
			rc = varint_of(r, "Mapping", &g, &mp->offset);
			break;
		case 5:
			rc = int_of(r, "Mapping", &g, &mp->file);
			break;
		case 6:
			rc = int_of(r, "Mapping", &g, &mp->build_id);
			break;
		}
	}
	if (rc || st != SP_PB_END)
		return rc ? rc : bad_field(r, &m, st);
	if (!mp->id)
		return bad(r, mp->at, "a mapping has id 0");
	if (sp_pairmap_put(&r->map_index, mp->id, 0, (uint32_t)r->nmaps) != r->nmaps)
		return bad(r, mp->at, "two mappings have the same id");
	r->nmaps++;
	return 0;
}

static int read_function(struct reader *r, const struct sp_pb_reader *parent,
			 const struct sp_pb_field *f)
{
	struct sp_pb_reader m;
	struct sp_pb_field g;
	enum sp_pb_status st;
	struct pfunc *fn;
	int rc = 0;

	SP_ALLOC_GROW(r->funcs, r->nfuncs + 1, r->funcs_alloc);
	fn = &r->funcs[r->nfuncs];
	memset(fn, 0, sizeof(*fn));
	fn->at = f->offset;
	sp_pb_reader_sub(&m, parent, f);
	while (!rc && (st = sp_pb_next(&m, &g)) == SP_PB_OK) {
		if (g.field == 1)
			rc = varint_of(r, "Function", &g, &fn->id);
		else if (g.field == 2)
			rc = int_of(r, "Function", &g, &fn->name);
		else if (g.field == 3)
			rc = int_of(r, "Function", &g, &fn->sys);
		else if (g.field == 4)
			rc = int_of(r, "Function", &g, &fn->file);
		else if (g.field == 5)
			rc = int_of(r, "Function", &g, &fn->start_line);
	}
	if (rc || st != SP_PB_END)
		return rc ? rc : bad_field(r, &m, st);
	if (!fn->id)
		return bad(r, fn->at, "a function has id 0");
	if (sp_pairmap_put(&r->func_index, fn->id, 0, (uint32_t)r->nfuncs) != r->nfuncs)
		return bad(r, fn->at, "two functions have the same id");
	r->nfuncs++;
	return 0;
}

/* A location's id now; the rest once mappings and functions are known. */
static int read_location_id(struct reader *r, const struct sp_pb_reader *parent,
			    const struct sp_pb_field *f)
{
	struct sp_pb_reader m;
	struct sp_pb_field g;
	enum sp_pb_status st;
	struct ploc *l;

	SP_ALLOC_GROW(r->locs, r->nlocs + 1, r->locs_alloc);
	l = &r->locs[r->nlocs];
	memset(l, 0, sizeof(*l));
	l->at = (size_t)(f->data - r->data);
	l->len = f->len;
	sp_pb_reader_sub(&m, parent, f);
	while ((st = sp_pb_next(&m, &g)) == SP_PB_OK) {
		int rc = g.field == 1 ? varint_of(r, "Location", &g, &l->id) : 0;

		if (rc)
			return rc;
	}
	if (st != SP_PB_END)
		return bad_field(r, &m, st);
	if (!l->id)
		return bad(r, f->offset, "a location has id 0");
	if (sp_pairmap_put(&r->loc_index, l->id, 0, (uint32_t)r->nlocs) != r->nlocs)
		return bad(r, f->offset, "two locations have the same id");
	r->nlocs++;
	return 0;
}

static int read_string(struct reader *r, const struct sp_pb_field *f)
{
	if (f->wire != SP_PB_LEN)
		return bad_wire(r, "Profile", f);
	if (f->len > UINT32_MAX)
		return bad(r, f->offset, "a string is longer than 4 GiB");
	SP_ALLOC_GROW(r->strs, r->nstrs + 1, r->strs_alloc);
	r->strs[r->nstrs].off = (uint32_t)(f->data - r->data);
	r->strs[r->nstrs].len = (uint32_t)f->len;
	r->strs[r->nstrs++].s = NULL;
	return 0;
}

static int read_type(struct reader *r, const struct sp_pb_reader *m, const struct sp_pb_field *f)
{
	if (f->wire != SP_PB_LEN)
		return bad_wire(r, "Profile", f);
	SP_ALLOC_GROW(r->types, r->ntypes + 1, r->types_alloc);
	return read_value_type(r, m, f, &r->types[r->ntypes++]);
}

/* One field of the Profile message in pass 1. */
static int read_top(struct reader *r, const struct sp_pb_reader *m, const struct sp_pb_field *f)
{
	switch (f->field) {
	case 1:
		return read_type(r, m, f);
	case 2:
		r->nsamples++;
		return f->wire == SP_PB_LEN ? 0 : bad_wire(r, "Profile", f);
	case 3:
		return f->wire == SP_PB_LEN ? read_mapping(r, m, f) : bad_wire(r, "Profile", f);
	case 4:
		return f->wire == SP_PB_LEN ? read_location_id(r, m, f) : bad_wire(r, "Profile", f);
	case 5:
		return f->wire == SP_PB_LEN ? read_function(r, m, f) : bad_wire(r, "Profile", f);
	case 6:
		return read_string(r, f);
	case 9:
		return int_of(r, "Profile", f, &r->time_ns);
	case 10:
		return int_of(r, "Profile", f, &r->duration_ns);
	case 11:
		return f->wire == SP_PB_LEN ? read_value_type(r, m, f, &r->period_type)
					    : bad_wire(r, "Profile", f);
	case 12:
		return int_of(r, "Profile", f, &r->period);
	case 14:
		r->default_at = f->offset;
		return int_of(r, "Profile", f, &r->default_type);
	default:
		return 0;
	}
}

static int pass1(struct reader *r)
{
	struct sp_pb_reader m;
	struct sp_pb_field f;
	enum sp_pb_status st;
	int rc = 0;

	sp_pb_reader_init(&m, r->data, r->size);
	while (!rc && (st = sp_pb_next(&m, &f)) == SP_PB_OK)
		rc = read_top(r, &m, &f);
	if (rc)
		return rc;
	if (st != SP_PB_END)
		return bad_field(r, &m, st);
	if (!r->nstrs || r->strs[0].len)
		return bad(r, r->nstrs ? r->strs[0].off : 0,
			   "not a pprof profile: the string table does not start with \"\"");
	if (!r->ntypes)
		return sp_error_set(r->err, SP_E_NODATA,
				    "cannot read '%s': the profile has no sample types", r->name);
	return 0;
}

/* ---- the profile model ---- */

static void hex_bytes(struct reader *r, const char *hex, struct sp_object *o)
{
	size_t i, n = strlen(hex);
	uint8_t *v;

	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", hex[i]))
			break;
	if (i < n || n % 2 || !n) {
		/* not hex: the bytes as they are */
		o->build_id = (const uint8_t *)hex;
		o->build_id_len = n;
		return;
	}
	v = sp_arena_alloc(&r->p->arena, n / 2);
	for (i = 0; i < n / 2; i++) {
		char b[3] = {hex[2 * i], hex[2 * i + 1], 0};

		v[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	o->build_id = v;
	o->build_id_len = n / 2;
}

static int make_maps(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->nmaps; i++) {
		struct pmap *mp = &r->maps[i];
		const char *file, *bid;
		struct sp_map m;
		char anon[48];
		int rc;

		if ((rc = string_at(r, mp->file, mp->at, &file)) ||
		    (rc = string_at(r, mp->build_id, mp->at, &bid)))
			return rc;
		if (!file) {
			snprintf(anon, sizeof(anon), "[mapping %llu]", (unsigned long long)mp->id);
			file = sp_profile_intern(r->p, anon);
		}
		memset(&m, 0, sizeof(m));
		m.start = mp->start;
		m.end = mp->limit;
		m.pgoff = mp->offset;
		m.executable = 1;
		m.merged = 1;
		m.object = sp_profile_findnew_object(r->p, file);
		if (bid && !r->p->objects[m.object].build_id)
			hex_bytes(r, bid, &r->p->objects[m.object]);
		if (i == 0)
			r->p->objects[m.object].is_main = 1;
		mp->map = sp_profile_add_map(r->p, &m);
	}
	return 0;
}

/* Line message `f` of a location: its function's strings and the line. */
static int read_line(struct reader *r, const struct sp_pb_reader *parent,
		     const struct sp_pb_field *f, struct sp_frame_line *out)
{
	struct sp_pb_reader m;
	struct sp_pb_field g;
	enum sp_pb_status st;
	uint64_t fid = 0;
	int64_t line = 0;
	const struct pfunc *fn;
	uint32_t k;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	sp_pb_reader_sub(&m, parent, f);
	while (!rc && (st = sp_pb_next(&m, &g)) == SP_PB_OK) {
		if (g.field == 1)
			rc = varint_of(r, "Line", &g, &fid);
		else if (g.field == 2)
			rc = int_of(r, "Line", &g, &line);
	}
	if (rc || st != SP_PB_END)
		return rc ? rc : bad_field(r, &m, st);
	if ((k = sp_pairmap_get(&r->func_index, fid, 0)) == UINT32_MAX)
		return bad(r, f->offset, "a line names a function that is not in the profile");
	fn = &r->funcs[k];
	if ((rc = string_at(r, fn->name, fn->at, &out->name)) ||
	    (rc = string_at(r, fn->sys, fn->at, &out->system_name)) ||
	    (rc = string_at(r, fn->file, fn->at, &out->file)))
		return rc;
	if (!out->name)
		out->name = out->system_name ? out->system_name : sp_profile_intern(r->p, "??");
	out->line = line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
	out->start_line =
		fn->start_line > 0 && fn->start_line <= UINT32_MAX ? (uint32_t)fn->start_line : 0;
	return 0;
}

/* Location i becomes a frame. */
static int make_frame(struct reader *r, struct ploc *l)
{
	struct sp_pb_reader m;
	struct sp_pb_field g;
	enum sp_pb_status st;
	struct sp_frame fr;
	uint64_t mid = 0;
	size_t n = 0;
	uint32_t k;
	int rc = 0;

	memset(&fr, 0, sizeof(fr));
	fr.map = fr.object = SP_NONE;
	m.base = r->data;
	m.p = r->data + l->at;
	m.end = m.p + l->len;
	while (!rc && (st = sp_pb_next(&m, &g)) == SP_PB_OK) {
		if (g.field == 2) {
			rc = varint_of(r, "Location", &g, &mid);
		} else if (g.field == 3) {
			rc = varint_of(r, "Location", &g, &fr.addr);
		} else if (g.field == 4) {
			if (g.wire != SP_PB_LEN)
				return bad_wire(r, "Location", &g);
			SP_ALLOC_GROW(r->lines, n + 1, r->lines_alloc);
			rc = read_line(r, &m, &g, &r->lines[n++]);
		}
	}
	if (rc || st != SP_PB_END)
		return rc ? rc : bad_field(r, &m, st);
	if (mid) {
		if ((k = sp_pairmap_get(&r->map_index, mid, 0)) == UINT32_MAX)
			return bad(r, l->at,
				   "a location names a mapping that is not in the profile");
		fr.map = r->maps[k].map;
		fr.object = r->p->maps[fr.map].object;
	}
	if (n) {
		fr.flags |= SP_FRAME_LINES;
		fr.first_line = sp_profile_add_frame_lines(r->p, r->lines, n);
		fr.nlines = (uint32_t)n;
	}
	l->frame = sp_profile_add_frame(r->p, &fr);
	return 0;
}

/* The profile's counters: one per sample type, the same in every file. */
static int make_counters(struct reader *r)
{
	struct sp_profile *p = r->p;
	size_t i;
	int rc;

	if (p->pprof.nfiles && p->ncounters != r->ntypes)
		return sp_error_set(r->err, SP_E_INCOMPAT,
				    "cannot add '%s': it has %zu sample types, the profiles before "
				    "it %zu",
				    r->name, r->ntypes, p->ncounters);
	r->counters = sp_xcalloc(r->ntypes + 1, sizeof(*r->counters));
	for (i = 0; i < r->ntypes; i++) {
		struct sp_counter c;

		memset(&c, 0, sizeof(c));
		if ((rc = string_at(r, r->types[i].type, r->types[i].at, &c.name)) ||
		    (rc = string_at(r, r->types[i].unit, r->types[i].at, &c.unit)))
			return rc;
		c.name = c.name ? c.name : sp_profile_intern(p, "samples");
		c.unit = c.unit ? c.unit : sp_profile_intern(p, "count");
		c.unit_per_count = 1;
		if (!p->pprof.nfiles) {
			r->counters[i] = sp_profile_add_counter(p, &c);
		} else if (strcmp(p->counters[i].name, c.name) ||
			   strcmp(p->counters[i].unit, c.unit)) {
			return sp_error_set(r->err, SP_E_INCOMPAT,
					    "cannot add '%s': its sample type %zu is %s/%s, the "
					    "profiles before it have %s/%s",
					    r->name, i + 1, c.name, c.unit, p->counters[i].name,
					    p->counters[i].unit);
		} else {
			r->counters[i] = (uint32_t)i;
		}
	}
	return 0;
}

/* time, duration, period and the default sample type */
static int make_info(struct reader *r)
{
	struct sp_pprof_info *in = &r->p->pprof;
	const char *dflt;
	size_t i;
	int rc;

	in->duration_ns += r->duration_ns;
	if (in->nfiles++)
		return 0;
	in->time_ns = r->time_ns;
	in->period = r->period;
	if ((rc = string_at(r, r->period_type.type, r->period_type.at, &in->period_type)) ||
	    (rc = string_at(r, r->period_type.unit, r->period_type.at, &in->period_unit)) ||
	    (rc = string_at(r, r->default_type, r->default_at, &dflt)))
		return rc;
	if (in->period_unit && !strcmp(in->period_unit, "nanoseconds") && r->period > 0)
		r->p->period_ns = (uint64_t)r->period;
	for (i = 0; dflt && i < r->ntypes; i++)
		if (!strcmp(r->p->counters[i].name, dflt))
			in->default_counter = (uint32_t)i;
	return 0;
}

/* ---- pass 2: the samples ---- */

/* The numbers of a repeated field, packed or not, appended to *v. */
static int numbers(struct reader *r, const struct sp_pb_field *g, uint64_t **v, size_t *n,
		   size_t *alloc)
{
	const uint8_t *p, *end;
	uint64_t x;

	if (g->wire == SP_PB_VARINT) {
		SP_ALLOC_GROW(*v, *n + 1, *alloc);
		(*v)[(*n)++] = g->num;
		return 0;
	}
	if (g->wire != SP_PB_LEN)
		return bad_wire(r, "Sample", g);
	p = g->data;
	end = p + g->len;
	while (p < end) {
		enum sp_pb_status st = sp_pb_read_varint(&p, end, &x);

		if (st != SP_PB_OK)
			return bad(r, (size_t)(p - r->data), sp_pb_status_text(st));
		SP_ALLOC_GROW(*v, *n + 1, *alloc);
		(*v)[(*n)++] = x;
	}
	return 0;
}

/* Adds a sample's values, refusing sums past 2^63 (one bound for every
 * per-node sum below). */
static int add_values(struct reader *r, uint32_t node, const uint64_t *vals, size_t at)
{
	size_t i;

	for (i = 0; i < r->ntypes; i++) {
		int64_t v = (int64_t)vals[i];
		uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

		if (!v)
			continue;
		if (mag > (uint64_t)INT64_MAX - r->abs_total[r->counters[i]])
			return bad(r, at, "sample values add up past 2^63");
		r->abs_total[r->counters[i]] += mag;
		sp_profile_add_value(r->p, node, r->counters[i], v, v, 0);
	}
	return 0;
}

static int read_sample(struct reader *r, const struct sp_pb_reader *parent,
		       const struct sp_pb_field *f)
{
	struct sp_pb_reader m;
	struct sp_pb_field g;
	enum sp_pb_status st;
	size_t nids = 0, nvals = 0, i;
	uint32_t k, node;
	int rc = 0;

	sp_pb_reader_sub(&m, parent, f);
	while (!rc && (st = sp_pb_next(&m, &g)) == SP_PB_OK) {
		if (g.field == 1)
			rc = numbers(r, &g, &r->ids, &nids, &r->ids_alloc);
		else if (g.field == 2)
			rc = numbers(r, &g, &r->vals, &nvals, &r->vals_alloc);
	}
	if (rc || st != SP_PB_END)
		return rc ? rc : bad_field(r, &m, st);
	if (nvals != r->ntypes) {
		char what[96];

		snprintf(what, sizeof(what), "a sample has %zu values for %zu sample types", nvals,
			 r->ntypes);
		return bad(r, f->offset, what);
	}
	if (!nids) {
		r->p->diag[SP_DIAG_EMPTY_STACK]++;
		return 0;
	}
	r->frames = sp_xreallocarray(r->frames, r->ids_alloc, sizeof(*r->frames));
	for (i = 0; i < nids; i++) {
		if ((k = sp_pairmap_get(&r->loc_index, r->ids[i], 0)) == UINT32_MAX)
			return bad(r, f->offset,
				   "a sample names a location that is not in the profile");
		r->frames[i] = r->locs[k].frame;
	}
	node = sp_profile_cct_insert_leaf_first(r->p, r->frames, nids);
	return add_values(r, node, r->vals, f->offset);
}

static int pass2(struct reader *r)
{
	struct sp_pb_reader m;
	struct sp_pb_field f;
	int rc = 0;
	size_t i;

	/* what the files before put there counts against the bound too */
	r->abs_total = sp_xcalloc(r->p->ncounters + 1, sizeof(*r->abs_total));
	for (i = 0; i < r->p->nvalues; i++) {
		const struct sp_cct_value *v = &r->p->values[i];

		r->abs_total[v->counter] +=
			v->value < 0 ? (uint64_t)0 - (uint64_t)v->value : (uint64_t)v->value;
	}
	sp_pb_reader_init(&m, r->data, r->size);
	while (!rc && sp_pb_next(&m, &f) == SP_PB_OK)
		if (f.field == 2)
			rc = read_sample(r, &m, &f);
	return rc;
}

/* ---- reading ---- */

static void reader_release(struct reader *r)
{
	sp_pairmap_release(&r->map_index);
	sp_pairmap_release(&r->func_index);
	sp_pairmap_release(&r->loc_index);
	free(r->strs);
	free(r->maps);
	free(r->funcs);
	free(r->locs);
	free(r->types);
	free(r->counters);
	free(r->ids);
	free(r->frames);
	free(r->vals);
	free(r->abs_total);
	free(r->lines);
}

int sp_fmt_pprof_read_message(struct sp_profile *p, const char *name, const uint8_t *data,
			      size_t size, struct sp_error *err)
{
	struct reader r;
	size_t i;
	int rc;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.name = name;
	r.err = err;
	r.data = data;
	r.size = size;
	sp_pairmap_init(&r.map_index, map_key, &r);
	sp_pairmap_init(&r.func_index, func_key, &r);
	sp_pairmap_init(&r.loc_index, loc_key, &r);
	if (size > SP_PPROF_MAX_SIZE)
		rc = bad(&r, SP_PPROF_MAX_SIZE, "the message is larger than symprof reads");
	else
		rc = pass1(&r);
	if (!rc)
		rc = make_counters(&r);
	if (!rc)
		rc = make_maps(&r);
	for (i = 0; !rc && i < r.nlocs; i++)
		rc = make_frame(&r, &r.locs[i]);
	if (!rc)
		rc = make_info(&r);
	if (!rc)
		rc = pass2(&r);
	if (!rc)
		sp_profile_add_input(p, name, "pprof");
	reader_release(&r);
	return rc;
}

/* The message, decompressed (gzip, bzip2) into *out, at most
 * SP_PPROF_MAX_SIZE bytes. */
static int load(struct sp_zin *z, const char *name, struct sp_buf *out, struct sp_error *err)
{
	const char *chunk;
	size_t len;
	int rc;

	while ((rc = sp_zin_next(z, &chunk, &len, err)) > 0) {
		if (len > SP_PPROF_MAX_SIZE - out->len)
			return sp_error_set(
				err, SP_E_UNSUPPORTED,
				"cannot read '%s': it decompresses to more than %d MiB "
				"(at compressed offset %#llx), more than a pprof profile "
				"symprof reads",
				name, SP_PPROF_MAX_SIZE >> 20,
				(unsigned long long)sp_zin_consumed(z));
		sp_buf_add(out, chunk, len);
	}
	return rc;
}

int sp_fmt_pprof_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			  struct sp_error *err)
{
	struct sp_zin *z = sp_zin_open_mem(name, data, size);
	struct sp_buf b = SP_BUF_INIT;
	int rc;

	if (sp_zin_kind(z) == SP_ZIN_PLAIN) {
		sp_zin_close(z);
		return sp_fmt_pprof_read_message(p, name, data, size, err);
	}
	rc = load(z, name, &b, err);
	sp_zin_close(z);
	if (!rc)
		rc = sp_fmt_pprof_read_message(p, name, (const uint8_t *)b.buf, b.len, err);
	sp_buf_release(&b);
	return rc;
}

int sp_fmt_pprof_read(struct sp_profile *p, const char *path, struct sp_error *err)
{
	struct sp_zin *z = sp_zin_open(path, 0, err);
	struct sp_buf b = SP_BUF_INIT;
	int rc;

	if (!z)
		return -err->code;
	rc = load(z, path, &b, err);
	sp_zin_close(z);
	if (!rc && !b.len)
		rc = sp_error_set(err, SP_E_NODATA, "cannot read '%s': the file is empty", path);
	if (!rc)
		rc = sp_fmt_pprof_read_message(p, path, (const uint8_t *)b.buf, b.len, err);
	sp_buf_release(&b);
	return rc;
}

/* ---- the probe ----
 *
 * sp_fmt_pprof_probe() walks the fields of a file's head (sp_fmt_head):
 * each must be a Profile field with its wire type (1-6 and 11 messages or
 * strings, 7-10 and 12-15 varints, 13 also packed), and each nested
 * message (fields 1-5, 11) a sequence of the fields of its type, as far as
 * the head holds them; at least one nested message must be complete and
 * hold a field (a profile without one has no samples). Other files fail
 * within a few bytes: binary formats start with a zero key (gperftools,
 * BSD gmon.out) or one of a wire type no Profile field has (ELF, "gmon"),
 * text with keys of unknown fields or invalid wire types. Of three million
 * buffers of random bytes (uniform, printable, mostly zeros) none passes;
 * when nested messages only had to be well-formed, 18 did.
 */

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

/* How a field ended: complete, cut by the end of the head, or malformed. */
enum walk { WALK_OK, WALK_CUT, WALK_BAD };

/* A varint at *p: WALK_OK and its value, WALK_CUT, or WALK_BAD when
 * longer than 10 bytes. */
static enum walk varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		if (*p == end)
			return WALK_CUT;
		*v |= (uint64_t)(**p & 0x7f) << (shift < 64 ? shift : 63);
		if (!(*(*p)++ & 0x80))
			return WALK_OK;
	}
	return WALK_BAD;
}

/* The value of a field of wire type `wire` at *p; a length-delimited
 * one's bytes in [*body, *p). */
static enum walk value(const uint8_t **p, const uint8_t *end, unsigned wire, const uint8_t **body)
{
	uint64_t v;
	enum walk w;

	switch (wire) {
	case WIRE_VARINT:
		return varint(p, end, &v);
	case WIRE_I64:
	case WIRE_I32: {
		size_t n = wire == WIRE_I64 ? 8 : 4;

		if ((size_t)(end - *p) < n)
			return WALK_CUT;
		*p += n;
		return WALK_OK;
	}
	case WIRE_LEN:
		if ((w = varint(p, end, &v)) != WALK_OK)
			return w;
		*body = *p;
		if (v > (uint64_t)(end - *p)) {
			*p = end;
			return WALK_CUT;
		}
		*p += v;
		return WALK_OK;
	default:
		return WALK_BAD;
	}
}

/* The fields of the messages a Profile holds, as bit masks of field
 * numbers by wire type: varints, and length-delimited ones (packed
 * numbers, nested Label and Line messages). */
struct schema {
	uint16_t varints, lens;
};

#define F(n) (1u << (n))

static const struct schema schemas[16] = {
	[1] = {F(1) | F(2), 0},			     /* ValueType */
	[2] = {F(1) | F(2), F(1) | F(2) | F(3)},     /* Sample */
	[3] = {0x7fe, 0},			     /* Mapping: 1-10 */
	[4] = {F(1) | F(2) | F(3) | F(5), F(4)},     /* Location */
	[5] = {F(1) | F(2) | F(3) | F(4) | F(5), 0}, /* Function */
	[11] = {F(1) | F(2), 0},		     /* ValueType */
};

/* The fields of a nested message of Profile field `field` in [p, end)
 * (`cut`: the head ends there, not the message): how many, or -1 if one
 * is not the schema's. */
static int nested_fields(uint64_t field, const uint8_t *p, const uint8_t *end, int cut)
{
	const struct schema *sc = &schemas[field];
	int n = 0;

	while (p < end) {
		const uint8_t *body;
		uint64_t key, f;
		unsigned wire;
		enum walk w = varint(&p, end, &key);

		if (w == WALK_CUT && cut)
			return n;
		f = key >> 3;
		wire = (unsigned)(key & 7);
		if (w != WALK_OK || f >= 16 ||
		    !((wire == WIRE_VARINT && (sc->varints & F(f))) ||
		      (wire == WIRE_LEN && (sc->lens & F(f)))))
			return -1;
		w = value(&p, end, wire, &body);
		if (w == WALK_BAD || (w == WALK_CUT && !cut))
			return -1;
		n++;
	}
	return n;
}

/* The wire type of Profile field `field`, or -1 for no such field; 13
 * (comment) is also allowed packed. */
static int profile_wire(uint64_t field)
{
	static const signed char wire[16] = {
		-1,	     WIRE_LEN,	  WIRE_LEN,    WIRE_LEN,    WIRE_LEN,	 WIRE_LEN,
		WIRE_LEN,    WIRE_VARINT, WIRE_VARINT, WIRE_VARINT, WIRE_VARINT, WIRE_LEN,
		WIRE_VARINT, WIRE_VARINT, WIRE_VARINT, WIRE_VARINT,
	};

	return field < 16 ? wire[field] : -1;
}

static int is_message(uint64_t field)
{
	return field < 16 && (schemas[field].varints || schemas[field].lens);
}

int sp_fmt_pprof_probe(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	int messages = 0;

	while (p < end) {
		const uint8_t *body = NULL;
		uint64_t key, field;
		unsigned wire;
		enum walk w;
		int nested = 0;

		if ((w = varint(&p, end, &key)) != WALK_OK)
			return w == WALK_CUT && messages;
		field = key >> 3;
		wire = (unsigned)(key & 7);
		if (profile_wire(field) < 0 ||
		    (wire != (unsigned)profile_wire(field) && !(field == 13 && wire == WIRE_LEN)))
			return 0;
		w = value(&p, end, wire, &body);
		if (w != WALK_BAD && is_message(field) && body)
			nested = nested_fields(field, body, p, w == WALK_CUT);
		if (w == WALK_BAD || nested < 0)
			return 0;
		if (w == WALK_CUT)
			break;
		messages += nested > 0;
	}
	return messages > 0;
}
