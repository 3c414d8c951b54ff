/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gperftools CPU profile reader (CPUPROFILE=..., libprofiler), as Go pprof
 * accepts it (shared/reference/peers.md section 1).
 *
 * The file is a sequence of machine words ("slots"), 4 or 8 bytes in
 * either byte order, with no magic: the header is the signature. Word size
 * and byte order are the first of 32-LE, 32-BE, 64-LE, 64-BE under which
 * the header reads right.
 *
 *   <header>   0  N  version  period  pad{N-2}    N >= 3 (gperftools: 3),
 *                                                  version 0 (1 = Java),
 *                                                  period in microseconds
 *   <record>*  count  depth  pc{depth}             pc[0] = the interrupted
 *                                                  pc (leaf), pc[1..] =
 *                                                  return addresses, leaf
 *                                                  to root
 *   <trailer>  0  1  0                             always written: a file
 *                                                  without it was cut
 *                                                  (an error)
 *   <maps>     text to EOF                         a copy of /proc/self/maps,
 *                                                  ending with a newline
 *
 * The memory map is text, one mapping a line, in either of two forms:
 *
 *   start-end perms offset dev inode [path]        /proc/<pid>/maps
 *   start-end [perms] [path] [(@offset)] [buildid] "brief" form, the only
 *                                                  one with a build-id
 *
 * Numbers are hex with an optional 0x; start and end may be separated by
 * '-' or blanks and followed by ':'. Mappings whose permissions lack 'x'
 * are dropped; lines that are no mapping are skipped, except `name=value`,
 * which makes `$name` stand for `value` in the lines after it.
 *
 * What goes into struct sp_profile: one counter "samples" (a value per
 * sample, the period in period_ns and in the counter's seconds per
 * count), an object per mapped file, a map per executable mapping, a frame
 * per distinct (address, mapping, leaf or return address), and each
 * record's stack in the calling-context tree, where identical stacks (the
 * writer's evictions repeat them) add up, or in the list of stacks when
 * the caller asks for that (p->stack_list), where the records of one
 * stack become one entry with their counts summed. Nothing is symbolized
 * here.
 * Several files are summed: each keeps its own mappings, since every run
 * maps its libraries elsewhere.
 */
#include "symprof/formats.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/mfile.h"
#include "symprof/profile.h"

#define HDR_WORDS_MAX 1024	  /* more header words than this is not a profile */
#define MAX_PLAUSIBLE_DEPTH 65536 /* deeper is corrupt, not truncated (Perl pprof's limit) */

/* One distinct address of a file: its frames as a leaf and as a return
 * address, each as index + 1 (0: not seen yet; both 0: an empty slot). */
struct addr_slot {
	uint64_t addr;
	uint32_t frame[2];
};

/* A distinct stack of the list form: its index in p->stacks + 1 (0:
 * empty) and the high half of its hash. */
struct stack_slot {
	uint32_t stack;
	uint32_t tag;
};

#define ADDR_BITS_MIN 12 /* 4,096 slots, 64 KB, to start with */
#define RESERVE_MAX ((size_t)1 << 24)
#define PREFETCH_SLOTS 64 /* how far ahead scan_records() asks for the file */

struct gperf_reader {
	struct sp_profile *p;
	const char *name;
	const uint8_t *data;
	size_t size;
	int w, be;    /* word size, byte order */
	int native64; /* 8-byte words in the host's order */
	uint32_t counter;
	uint32_t map_first;  /* this file's maps: p->maps[map_first..] */
	uint32_t *map_order; /* those, sorted by start */
	size_t nmaps;
	struct addr_slot *addrs; /* open addressing, at most 3/4 full */
	size_t naddrs;
	int addr_bits;	     /* log2 of the slots */
	uint64_t *prev_word; /* the previous record's stack (leaf first) ... */
	uint32_t *prev_node; /* ... and its nodes */
	size_t prev_depth, prev_alloc;
	struct stack_slot *stk; /* list form: the distinct stacks so far */
	int stk_bits;
	size_t nstk;	 /* in stk */
	size_t stk_base; /* this file's first stack in p->stacks */
	size_t *stk_at;	 /* the slot of each one's words (from stk_base) */
	size_t stk_at_alloc;
	struct sp_error *err;
};

/* ---- header ---- */

/*
 * Whether the file starts with a header in words of w bytes. A period of
 * 0 is one (google-pprof reads such a profile as any other). A file cut
 * inside the header is one when what is left of it reads as gperftools
 * writes it (0, 3, then version 0 or 1): the reader then reports where it
 * was cut, rather than the format being unknown.
 */
static int header_ok(const uint8_t *d, size_t size, int w, int be)
{
	uint64_t v[5];
	size_t i, n = size / (size_t)w;

	if (n < 2)
		return 0;
	for (i = 0; i < 5 && i < n; i++)
		v[i] = sp_load_uint(d + i * w, w, be);
	if (n < 5)
		return v[0] == 0 && v[1] == 3 && (n < 3 || v[2] <= 1);
	if (v[0] != 0 || v[1] < 3 || v[1] > HDR_WORDS_MAX || v[2] > 1)
		return 0;
	return v[1] != 3 || v[4] == 0;
}

/* The word size (4, 8) and byte order of a gperftools profile, or 0. */
static int probe(const uint8_t *d, size_t size, int *be)
{
	static const int order[4][2] = {{4, 0}, {4, 1}, {8, 0}, {8, 1}};
	int i;

	for (i = 0; i < 4; i++) {
		if (header_ok(d, size, order[i][0], order[i][1])) {
			*be = order[i][1];
			return order[i][0];
		}
	}
	return 0;
}

int sp_fmt_gperf_probe(const uint8_t *data, size_t size)
{
	int be;

	return probe(data, size, &be) != 0;
}

static int host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 0;
}

static uint64_t __attribute__((noinline)) word_slow(const struct gperf_reader *r, size_t slot)
{
	return sp_load_uint(r->data + slot * (size_t)r->w, r->w, r->be);
}

static inline uint64_t word(const struct gperf_reader *r, size_t slot)
{
	/* the common case: a 64-bit profile in the host's byte order */
	if (r->native64) {
		uint64_t v;

		memcpy(&v, r->data + slot * 8, 8);
		return v;
	}
	return word_slow(r, slot);
}

static int corrupt(struct gperf_reader *r, size_t slot, const char *fmt, unsigned long long v)
{
	char what[128];

	snprintf(what, sizeof(what), fmt, v);
	return sp_error_set(r->err, SP_E_CORRUPT, "cannot read '%s': %s at offset %#zx", r->name,
			    what, slot * (size_t)r->w);
}

static int truncated(struct gperf_reader *r, const char *what, size_t slot)
{
	return sp_error_set(r->err, SP_E_TRUNCATED,
			    "cannot read '%s': %s truncated at offset %#zx (file is %zu byte%s)",
			    r->name, what, slot * (size_t)r->w, SP_BYTES(r->size));
}

/* Reads the header; *first = the slot of the first record. */
static int read_header(struct gperf_reader *r, size_t *first)
{
	struct sp_profile *p = r->p;
	size_t nslots = r->size / (size_t)r->w;
	uint64_t nwords, version, period;

	if (nslots < 5) /* probe() took the start of a header */
		return truncated(r, "header", nslots);
	nwords = word(r, 1);
	version = word(r, 2);
	period = word(r, 3);
	if (version == 1)
		return sp_error_set(r->err, SP_E_UNSUPPORTED,
				    "cannot read '%s': Java CPU profiles are not supported",
				    r->name);
	if (2 + nwords > nslots)
		return truncated(r, "header", nslots);
	/* google-pprof refuses a period above 2^32 as a corrupt profile */
	if (period == 0 || period > ((uint64_t)1 << 32))
		return corrupt(r, 3, "sampling period of %llu microseconds", period);
	/* pprof adds the samples of profiles with other periods as they are;
	 * so does symprof, keeping the first period for seconds */
	if (p->period_ns && p->period_ns != period * 1000)
		p->diag[SP_DIAG_PERIOD_MIXED]++;
	else
		p->period_ns = period * 1000;
	*first = 2 + (size_t)nwords;
	return 0;
}

/* ---- memory map ---- */

struct map_line {
	uint64_t start, end, offset;
	const char *perms; /* NULL if absent */
	size_t perms_len;
	const char *path; /* NULL if absent */
	size_t path_len;
	const char *build_id;
	size_t build_id_len;
};

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int hex_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *skip_space(const char *s, const char *end)
{
	while (s < end && is_space((unsigned char)*s))
		s++;
	return s;
}

/* A hex number with an optional 0x; NULL if there is none or it overflows. */
static const char *parse_hex(const char *s, const char *end, uint64_t *v)
{
	int digits = 0, d;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hex_val(s[2]) >= 0)
		s += 2;
	for (*v = 0; s < end && (d = hex_val((unsigned char)*s)) >= 0; s++, digits++) {
		if (*v >> 60)
			return NULL;
		*v = *v << 4 | (uint64_t)d;
	}
	return digits ? s : NULL;
}

/* The next blank-separated token of [s, end); *tok_end is where it ends. */
static const char *token(const char *s, const char *end, const char **tok_end)
{
	s = skip_space(s, end);
	*tok_end = s;
	while (*tok_end < end && !is_space((unsigned char)**tok_end))
		(*tok_end)++;
	return s;
}

static int all_of(const char *s, const char *e, const char *set)
{
	if (s == e)
		return 0;
	for (; s < e; s++)
		if (!strchr(set, *s))
			return 0;
	return 1;
}

static int all_hex(const char *s, const char *e)
{
	return all_of(s, e, "0123456789abcdefABCDEF");
}

/* "perms offset dev inode [path]" of /proc/<pid>/maps; 0 if it is not. */
static int parse_proc_rest(const char *s, const char *end, struct map_line *m)
{
	const char *t, *te;
	uint64_t v;

	t = token(s, end, &te);
	if (t == s || !all_of(t, te, "-rwxps"))
		return 0;
	m->perms = t;
	m->perms_len = (size_t)(te - t);
	t = token(te, end, &te);
	if (!all_hex(t, te) || parse_hex(t, te, &m->offset) != te)
		return 0;
	t = token(te, end, &te);
	if (!memchr(t, ':', (size_t)(te - t)) || !all_of(t, te, "0123456789abcdefABCDEF:"))
		return 0;
	t = token(te, end, &te);
	if (!all_of(t, te, "0123456789") || parse_hex(t, te, &v) == NULL)
		return 0;
	t = skip_space(te, end);
	while (end > t && is_space((unsigned char)end[-1]))
		end--;
	if (end - t >= 10 && !memcmp(end - 10, " (deleted)", 10))
		end -= 10;
	if (t < end) {
		m->path = t;
		m->path_len = (size_t)(end - t);
	}
	return 1;
}

/* "[perms] [path] [(@offset)] [buildid]", the brief form. */
static void parse_brief_rest(const char *s, const char *end, struct map_line *m)
{
	const char *t, *te;

	t = token(s, end, &te);
	if (t < te && all_of(t, te, "-rwxps") && t < end) {
		m->perms = t;
		m->perms_len = (size_t)(te - t);
		t = token(te, end, &te);
	}
	if (t < te && !(te - t > 3 && t[0] == '(' && t[1] == '@')) {
		m->path = t;
		m->path_len = (size_t)(te - t);
		t = token(te, end, &te);
	}
	if (te - t > 3 && t[0] == '(' && t[1] == '@' && te[-1] == ')') {
		parse_hex(t + 2, te - 1, &m->offset);
		t = token(te, end, &te);
	}
	if (t < te && all_hex(t, te) && (te - t) % 2 == 0) {
		m->build_id = t;
		m->build_id_len = (size_t)(te - t);
	}
}

/* One mapping line; 0 if the line is no mapping. */
static int parse_map_line(const char *s, const char *end, struct map_line *m)
{
	memset(m, 0, sizeof(*m));
	s = skip_space(s, end);
	if (!(s = parse_hex(s, end, &m->start)))
		return 0;
	if (s < end && (*s == '-' || is_space((unsigned char)*s)))
		s++;
	s = skip_space(s, end);
	if (!(s = parse_hex(s, end, &m->end)))
		return 0;
	if (s < end && *s == ':')
		s++;
	if (s < end && !is_space((unsigned char)*s))
		return 0;
	if (!parse_proc_rest(s, end, m)) {
		m->offset = 0;
		m->perms = m->path = NULL;
		parse_brief_rest(s, end, m);
	}
	return 1;
}

/* Go's libRx: a name ending in .so or containing .so.N / .so_N. */
static int is_shared_lib(const char *path)
{
	const char *s;
	size_t n = strlen(path);

	if (n >= 3 && !strcmp(path + n - 3, ".so"))
		return 1;
	for (s = strstr(path, ".so"); s; s = strstr(s + 1, ".so"))
		if ((s[3] == '.' || s[3] == '_') && s[4] >= '0' && s[4] <= '9')
			return 1;
	return 0;
}

static void set_build_id(struct sp_profile *p, struct sp_object *o, const char *hex, size_t n)
{
	uint8_t *id = sp_arena_alloc(&p->arena, n / 2 + 1);
	size_t i;

	for (i = 0; i < n / 2; i++)
		id[i] = (uint8_t)(hex_val(hex[2 * i]) << 4 | hex_val(hex[2 * i + 1]));
	o->build_id = id;
	o->build_id_len = n / 2;
}

static void add_mapping(struct gperf_reader *r, const struct map_line *ml, int *have_main)
{
	struct sp_profile *p = r->p;
	char *path = sp_xstrndup(ml->path ? ml->path : "", ml->path ? ml->path_len : 0);
	struct sp_map m;
	struct sp_object *o;

	memset(&m, 0, sizeof(m));
	m.start = ml->start;
	m.end = ml->end;
	m.pgoff = ml->offset;
	m.executable = 1;
	m.object = sp_profile_findnew_object(p, path);
	o = &p->objects[m.object];
	if (ml->build_id && !o->build_id)
		set_build_id(p, o, ml->build_id, ml->build_id_len);
	if (!*have_main && path[0] && path[0] != '[' && !is_shared_lib(path)) {
		o->is_main = 1;
		*have_main = 1;
	}
	sp_profile_add_map(p, &m);
	free(path);
}

/* Applies the `$name` substitutions defined so far to a line. */
static const char *substitute(struct sp_buf *line, const struct sp_buf *vars)
{
	const char *v = vars->buf, *vend = vars->buf + vars->len;

	while (v < vend) {
		const char *name = v, *value = v + strlen(v) + 1;
		size_t nlen = strlen(name);
		char *hit;

		v = value + strlen(value) + 1;
		while ((hit = strstr(line->buf, name))) {
			struct sp_buf b = SP_BUF_INIT;

			sp_buf_add(&b, line->buf, (size_t)(hit - line->buf));
			sp_buf_addstr(&b, value);
			sp_buf_addstr(&b, hit + nlen);
			sp_buf_release(line);
			*line = b;
		}
	}
	return line->buf;
}

/* Records `name=value` as "$name\0value\0"; returns 0 if the line is not one. */
static int define_var(struct sp_buf *vars, const char *s)
{
	const char *eq = strchr(s, '='), *ne, *vs, *ve;

	if (!eq)
		return 0;
	s = skip_space(s, eq);
	for (ne = eq; ne > s && is_space((unsigned char)ne[-1]); ne--)
		;
	vs = skip_space(eq + 1, eq + 1 + strlen(eq + 1));
	for (ve = vs + strlen(vs); ve > vs && is_space((unsigned char)ve[-1]); ve--)
		;
	if (ne == s || memchr(s, '$', (size_t)(ne - s)))
		return 0;
	sp_buf_addch(vars, '$');
	sp_buf_add(vars, s, (size_t)(ne - s));
	sp_buf_addch(vars, '\0');
	sp_buf_add(vars, vs, (size_t)(ve - vs));
	sp_buf_addch(vars, '\0');
	return 1;
}

static void read_maps(struct gperf_reader *r, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	struct sp_buf vars = SP_BUF_INIT, line = SP_BUF_INIT;
	int have_main = 0;
	size_t i;

	for (i = 0; i < r->p->nobjects; i++)
		have_main |= r->p->objects[i].is_main;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;
		struct map_line ml;
		const char *l;

		sp_buf_reset(&line);
		sp_buf_add(&line, s, (size_t)(le - s));
		s = nl ? nl + 1 : end;
		if (strlen(line.buf) != line.len)
			continue; /* a NUL inside: not text */
		l = substitute(&line, &vars);
		if (parse_map_line(l, l + strlen(l), &ml)) {
			if (ml.perms && !memchr(ml.perms, 'x', ml.perms_len))
				continue;
			add_mapping(r, &ml, &have_main);
		} else {
			define_var(&vars, l);
		}
	}
	sp_buf_release(&vars);
	sp_buf_release(&line);
}

/* ---- frames ---- */

static int cmp_map_start(const void *a, const void *b, void *ctx)
{
	const struct sp_profile *p = ctx;
	uint64_t x = p->maps[*(const uint32_t *)a].start, y = p->maps[*(const uint32_t *)b].start;

	return (x > y) - (x < y);
}

static void sort_maps(struct gperf_reader *r)
{
	size_t i;

	r->nmaps = r->p->nmaps - r->map_first;
	r->map_order = sp_xreallocarray(NULL, r->nmaps + 1, sizeof(*r->map_order));
	for (i = 0; i < r->nmaps; i++)
		r->map_order[i] = r->map_first + (uint32_t)i;
	/* insertion sort: /proc maps come sorted already */
	for (i = 1; i < r->nmaps; i++) {
		uint32_t v = r->map_order[i];
		size_t j = i;

		while (j > 0 && cmp_map_start(&r->map_order[j - 1], &v, r->p) > 0) {
			r->map_order[j] = r->map_order[j - 1];
			j--;
		}
		r->map_order[j] = v;
	}
}

/*
 * The mapping of this file that holds addr; failing that, one whose file
 * offset reaches back over addr (legacy writers that lost the first part
 * of a mapping, Go's rule); else SP_NONE.
 */
static uint32_t find_map(const struct gperf_reader *r, uint64_t addr)
{
	const struct sp_map *maps = r->p->maps;
	size_t lo = 0, hi = r->nmaps, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[r->map_order[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < maps[r->map_order[lo - 1]].end)
		return r->map_order[lo - 1];
	for (i = 0; i < r->nmaps; i++) {
		const struct sp_map *m = &maps[r->map_order[i]];

		if (m->pgoff && m->start - m->pgoff <= addr && addr < m->start &&
		    m->pgoff <= m->start)
			return r->map_order[i];
	}
	return SP_NONE;
}

static inline size_t addr_hash(uint64_t addr, int bits)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

static int slot_empty(const struct addr_slot *s)
{
	return !(s->frame[0] | s->frame[1]);
}

static void addrs_init(struct gperf_reader *r, int bits)
{
	r->addr_bits = bits;
	r->naddrs = 0;
	/* an empty slot is all zeros */
	r->addrs = sp_xcalloc_probed((size_t)1 << bits, sizeof(*r->addrs));
}

/* Doubles the table. */
static void addrs_grow(struct gperf_reader *r)
{
	struct addr_slot *old = r->addrs;
	size_t n = (size_t)1 << r->addr_bits, i, mask;

	addrs_init(r, r->addr_bits + 1);
	mask = ((size_t)1 << r->addr_bits) - 1;
	for (i = 0; i < n; i++) {
		size_t j;

		if (slot_empty(&old[i]))
			continue;
		for (j = addr_hash(old[i].addr, r->addr_bits); !slot_empty(&r->addrs[j]);
		     j = (j + 1) & mask)
			;
		r->addrs[j] = old[i];
		r->naddrs++;
	}
	free(old);
}

/* frame_for() when the address has no frame of that kind yet: adds it to
 * slot s (which may be empty). */
static uint32_t __attribute__((noinline))
new_frame(struct gperf_reader *r, struct addr_slot *s, uint64_t addr, int is_return)
{
	struct sp_profile *p = r->p;
	struct sp_frame f;
	uint32_t i = (uint32_t)p->nframes;

	memset(&f, 0, sizeof(f));
	f.addr = addr;
	f.map = find_map(r, is_return && addr ? addr - 1 : addr);
	f.object = f.map == SP_NONE ? SP_NONE : p->maps[f.map].object;
	f.flags = is_return ? SP_FRAME_RETURN_ADDR : 0;
	f.name = NULL;
	SP_ALLOC_GROW(p->frames, p->nframes + 1, p->frames_alloc);
	p->frames[p->nframes++] = f;
	if (slot_empty(s)) {
		s->addr = addr;
		r->naddrs++;
	}
	s->frame[is_return] = i + 1;
	if (r->naddrs * 4 > (size_t)3 << r->addr_bits)
		addrs_grow(r);
	return i;
}

/* The frame of an address (a leaf, or a return address): one probe of
 * the address table, rarely more. */
static inline uint32_t frame_for(struct gperf_reader *r, uint64_t addr, int is_return)
{
	size_t mask = ((size_t)1 << r->addr_bits) - 1, j = addr_hash(addr, r->addr_bits);

	for (;; j = (j + 1) & mask) {
		struct addr_slot *s = &r->addrs[j];

		if (slot_empty(s))
			break;
		if (s->addr == addr) {
			if (s->frame[is_return])
				return s->frame[is_return] - 1;
			return new_frame(r, s, addr, is_return);
		}
	}
	return new_frame(r, &r->addrs[j], addr, is_return);
}

/* ---- records ---- */

/*
 * Finds where the records end (the trailer, or EOF) and checks every
 * record's bounds, so that the maps can be read before the stacks (each
 * frame needs its mapping). *end_slot = first slot after the trailer.
 */
static int scan_records(struct gperf_reader *r, size_t first, size_t *end_slot, size_t *nrec)
{
	size_t nslots = r->size / (size_t)r->w, i = first;
	uint64_t total = 0; /* the file's samples: reports add them up */

	*nrec = 0;
	while (i < nslots) {
		uint64_t count, depth;

		if (nslots - i < 2)
			return truncated(r, "record header", i);
		/* each header says where the next one is: without help, every
		 * step would wait for memory */
		if (nslots - i > 2 * PREFETCH_SLOTS) {
			__builtin_prefetch(r->data + (i + PREFETCH_SLOTS) * (size_t)r->w);
			__builtin_prefetch(r->data + (i + 2 * PREFETCH_SLOTS) * (size_t)r->w);
		}
		count = word(r, i);
		depth = word(r, i + 1);
		if (depth > nslots - i - 2) {
			if (depth <= MAX_PLAUSIBLE_DEPTH)
				return truncated(r, "stack record", i);
			return corrupt(r, i + 1, "stack depth %llu exceeds the file", depth);
		}
		if (count == 0 && depth == 1 && word(r, i + 2) == 0) {
			*end_slot = i + 3;
			return 0;
		}
		if (count > INT64_MAX)
			return corrupt(r, i, "sample count %llu", count);
		if (count > INT64_MAX - total)
			return corrupt(r, i, "sample count %llu takes the total past 2^63", count);
		total += count;
		i += 2 + (size_t)depth;
		(*nrec)++;
	}
	if (r->size % (size_t)r->w)
		return truncated(r, "record header", nslots);
	/* gperftools (and Go's legacy writer) always end the records with
	 * 0 1 0: a file without it was cut after a whole record */
	return sp_error_set(r->err, SP_E_TRUNCATED,
			    "cannot read '%s': stack records truncated at offset %#zx: no 0 1 0 "
			    "record ends them (file is %zu byte%s)",
			    r->name, nslots * (size_t)r->w, SP_BYTES(r->size));
}

/*
 * Inserts a record's stack (leaf first at slot `at`) into the CCT. Stacks
 * share their root side (_start, main, the program's top functions): the
 * part equal to the previous record's, word for word, reuses its nodes
 * without a lookup. A leaf and a return address with the same value are
 * different frames, so that part never covers either stack's leaf unless
 * the two stacks are equal.
 */
static uint32_t insert_stack(struct gperf_reader *r, size_t at, size_t depth)
{
	struct sp_profile *p = r->p;
	size_t pd = r->prev_depth, k = 0, lim;
	uint32_t node = 0;

	lim = depth < pd ? depth : pd;
	while (k < lim && word(r, at + depth - 1 - k) == r->prev_word[pd - 1 - k])
		k++;
	if (!(k == depth && depth == pd) && k == lim && lim)
		k = lim - 1;
	SP_ALLOC_GROW(r->prev_word, depth, r->prev_alloc);
	r->prev_node = sp_xreallocarray(r->prev_node, r->prev_alloc, sizeof(*r->prev_node));
	if (k)
		node = r->prev_node[pd - k];
	/* prev_* are kept leaf first, like the record: index depth - 1 - j is
	 * root-side level j */
	if (k) {
		memmove(r->prev_word + depth - k, r->prev_word + pd - k, k * sizeof(*r->prev_word));
		memmove(r->prev_node + depth - k, r->prev_node + pd - k, k * sizeof(*r->prev_node));
	}
	for (; k < depth; k++) {
		size_t j = depth - 1 - k;
		uint64_t w = word(r, at + j);

		node = sp_profile_cct_child(p, node, frame_for(r, w, j > 0));
		r->prev_word[j] = w;
		r->prev_node[j] = node;
	}
	r->prev_depth = depth;
	return node;
}

#define HASH_MUL 0x9e3779b97f4a7c15ULL

/* A hash of a record's stack words (two lanes: half the multiplies'
 * latency per word). */
static uint64_t stack_hash(const struct gperf_reader *r, size_t at, size_t depth)
{
	uint64_t a = depth, b = HASH_MUL, h;
	size_t j = 0;

	if (r->native64) {
		const uint8_t *d = r->data + at * 8;

		for (; j + 2 <= depth; j += 2) {
			uint64_t v0, v1;

			memcpy(&v0, d + j * 8, 8);
			memcpy(&v1, d + j * 8 + 8, 8);
			a = (a ^ v0) * HASH_MUL;
			b = (b ^ v1) * HASH_MUL;
		}
	}
	for (; j < depth; j++)
		a = (a ^ word(r, at + j)) * HASH_MUL;
	h = a ^ (b << 32 | b >> 32);
	h ^= h >> 29;
	h *= HASH_MUL;
	return h ^ h >> 32;
}

static void stacks_init(struct gperf_reader *r, int bits)
{
	r->stk_bits = bits;
	r->stk = sp_xcalloc_probed((size_t)1 << bits, sizeof(*r->stk));
}

/* A slot per record, up to 2^20, to start with: it grows only when
 * nearly all records are distinct. */
static int stack_bits(size_t nrec)
{
	int bits = 4;

	while (bits < 20 && ((size_t)1 << bits) < nrec)
		bits++;
	return bits;
}

/* Doubles the table of distinct stacks. */
static void stacks_grow(struct gperf_reader *r)
{
	struct stack_slot *old = r->stk;
	size_t n = (size_t)1 << r->stk_bits, i, mask;

	stacks_init(r, r->stk_bits + 1);
	mask = ((size_t)1 << r->stk_bits) - 1;
	for (i = 0; i < n; i++) {
		size_t j;

		if (!old[i].stack)
			continue;
		for (j = old[i].tag >> (32 - r->stk_bits); r->stk[j].stack; j = (j + 1) & mask)
			;
		r->stk[j] = old[i];
	}
	free(old);
}

/* The list form (p->stack_list): the record's frames as they are. */
static void list_stack(struct gperf_reader *r, size_t at, size_t depth, int64_t count)
{
	uint32_t *f = sp_profile_add_stack(r->p, depth, r->counter, count);
	size_t j;

	f[0] = frame_for(r, word(r, at), 0);
	if (r->native64) {
		const uint8_t *d = r->data + at * 8;

		for (j = 1; j < depth; j++) {
			uint64_t v;

			memcpy(&v, d + j * 8, 8);
			f[j] = frame_for(r, v, 1);
		}
		return;
	}
	for (j = 1; j < depth; j++)
		f[j] = frame_for(r, word(r, at + j), 1);
}

/*
 * list_stack(), but a record whose stack equals, word for word, an
 * earlier record's of this file only adds its count to that one's: the
 * writer repeats its stacks (each eviction of its hash table writes one
 * record), deep ones most (deep-5k: 8,459 records of 937,512 words hold
 * 4,778 stacks of 129,373). A count that would overflow is listed apart.
 */
static void list_distinct_stack(struct gperf_reader *r, size_t at, size_t depth, int64_t count)
{
	struct sp_profile *p = r->p;
	uint64_t h = stack_hash(r, at, depth);
	uint32_t tag = (uint32_t)(h >> 32);
	size_t mask = ((size_t)1 << r->stk_bits) - 1, j = tag >> (32 - r->stk_bits);
	const size_t wb = (size_t)r->w;

	for (; r->stk[j].stack; j = (j + 1) & mask) {
		const struct stack_slot *s = &r->stk[j];
		struct sp_stack *st = &p->stacks[s->stack - 1];

		if (s->tag != tag || st->depth != depth ||
		    memcmp(r->data + r->stk_at[s->stack - 1 - r->stk_base] * wb, r->data + at * wb,
			   depth * wb))
			continue;
		if (st->count <= INT64_MAX - count) {
			st->count += count;
			return;
		}
		break;
	}
	list_stack(r, at, depth, count);
	SP_ALLOC_GROW(r->stk_at, p->nstacks - r->stk_base, r->stk_at_alloc);
	r->stk_at[p->nstacks - 1 - r->stk_base] = at;
	if (r->stk[j].stack || p->nstacks >= UINT32_MAX)
		return; /* an overflow: the first one stays in the table */
	r->stk[j].stack = (uint32_t)p->nstacks;
	r->stk[j].tag = tag;
	if (++r->nstk * 4 > (size_t)3 << r->stk_bits)
		stacks_grow(r);
}

static void read_records(struct gperf_reader *r, size_t first, size_t end)
{
	struct sp_profile *p = r->p;
	size_t i = first;

	while (i + 2 <= end) {
		uint64_t count = word(r, i), depth = word(r, i + 1);

		if (count == 0 && depth == 1 && word(r, i + 2) == 0)
			break;
		if (depth == 0)
			p->diag[SP_DIAG_EMPTY_STACK]++;
		if (depth == 0 || count == 0) {
			i += 2 + (size_t)depth;
			continue;
		}
		if (p->stack_list)
			list_distinct_stack(r, i + 2, (size_t)depth, (int64_t)count);
		else
			sp_profile_add_value(p, insert_stack(r, i + 2, (size_t)depth), r->counter,
					     (int64_t)count, (int64_t)count, 0);
		i += 2 + (size_t)depth;
	}
}

static uint32_t samples_counter(struct sp_profile *p)
{
	struct sp_counter c;
	uint32_t i = sp_profile_find_counter(p, "samples");

	if (i != SP_NONE)
		return i;
	memset(&c, 0, sizeof(c));
	c.name = "samples";
	c.unit = "seconds";
	c.unit_per_count = (double)p->period_ns / 1e9;
	c.kind = SP_COUNTER_SUM;
	return sp_profile_add_counter(p, &c);
}

/* Why the header does not probe: no data, too short, or not a profile's. */
static int bad_header(const char *name, const uint8_t *d, size_t size, struct sp_error *err)
{
	size_t zeros = 0;

	if (!size)
		return sp_error_set(err, SP_E_TRUNCATED, "cannot read '%s': file is empty", name);
	while (zeros < size && zeros < 8 && d[zeros] == 0)
		zeros++;
	if (size < 40 && zeros == (size < 8 ? size : 8))
		return sp_error_set(
			err, SP_E_TRUNCATED,
			"cannot read '%s': header truncated at offset %#zx (file is %zu "
			"byte%s)",
			name, size, SP_BYTES(size));
	return sp_error_set(err, SP_E_FORMAT,
			    "cannot read '%s': not a gperftools CPU profile (its header is not "
			    "0, 3, 0, period, 0 in machine words)",
			    name);
}

/*
 * Each frame word makes at most one CCT node (one word of the list form),
 * each record one value (one stack): room for all of them up front
 * (capped; a real profile is far below) spares the arrays their copies as
 * they grow.
 */
static void reserve(struct gperf_reader *r, size_t first, size_t end, size_t nrec)
{
	size_t frames = end - first - 2 * nrec;

	if (frames > RESERVE_MAX)
		frames = RESERVE_MAX;
	if (nrec > RESERVE_MAX)
		nrec = RESERVE_MAX;
	if (r->p->stack_list)
		sp_profile_reserve_stacks(r->p, nrec, frames);
	else
		sp_profile_reserve(r->p, frames + 1, nrec);
}

/*
 * The memory map after the records (from offset `at`) is a copy of
 * /proc/self/maps: its last line ends with a newline (NUL padding
 * after it aside). One that does not was cut: -1 with the error.
 */
static int check_maps_end(struct gperf_reader *r, size_t at)
{
	const uint8_t *t = r->data + at;
	size_t k = r->size - at, line;

	while (k && t[k - 1] == 0)
		k--;
	if (!k || t[k - 1] == '\n')
		return 0;
	for (line = k; line && t[line - 1] != '\n'; line--)
		;
	return sp_error_set(r->err, SP_E_TRUNCATED,
			    "cannot read '%s': memory map truncated at offset %#zx: its last line "
			    "(at offset %#zx) has no end (file is %zu byte%s)",
			    r->name, at + k, at + line, SP_BYTES(r->size));
}

int sp_fmt_gperf_read_mem(struct sp_profile *p, const char *name, const uint8_t *data, size_t size,
			  struct sp_error *err)
{
	struct gperf_reader r;
	size_t first = 0, end = 0, nrec = 0;
	struct sp_input *in;
	int ret;

	memset(&r, 0, sizeof(r));
	r.p = p;
	r.name = name;
	r.data = data;
	r.size = size;
	r.err = err;
	if (!(r.w = probe(data, size, &r.be)))
		return bad_header(name, data, size, err);
	r.native64 = r.w == 8 && r.be == host_big_endian();
	if ((ret = read_header(&r, &first)) < 0 || (ret = scan_records(&r, first, &end, &nrec)) < 0)
		return ret;
	in = sp_profile_add_input(p, name, "gperftools");
	in->version = (int)word(&r, 2);
	in->word_size = r.w;
	r.counter = samples_counter(p);
	r.map_first = (uint32_t)p->nmaps;
	if (end * (size_t)r.w < size) {
		if ((ret = check_maps_end(&r, end * (size_t)r.w)) < 0)
			return ret;
		read_maps(&r, (const char *)data + end * (size_t)r.w, size - end * (size_t)r.w);
	}
	sort_maps(&r);
	addrs_init(&r, ADDR_BITS_MIN);
	if (p->stack_list) {
		r.stk_base = p->nstacks;
		stacks_init(&r, stack_bits(nrec));
	}
	reserve(&r, first, end, nrec);
	if (!p->stack_list)
		sp_profile_cct_root(p);
	read_records(&r, first, end);
	free(r.addrs);
	free(r.stk);
	free(r.stk_at);
	free(r.map_order);
	free(r.prev_word);
	free(r.prev_node);
	return 0;
}

int sp_fmt_gperf_read(struct sp_profile *p, const char *path, struct sp_error *err)
{
	struct sp_mfile f;
	int ret = sp_mfile_open(&f, path, err);

	if (ret < 0)
		return ret;
	ret = sp_fmt_gperf_read_mem(p, path, f.data, f.size, err);
	sp_mfile_close(&f);
	return ret;
}
