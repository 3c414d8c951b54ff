/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Demangling with libiberty's cplus_demangle (exported by libbfd), with the
 * adjustments gprof gets through bfd_demangle(): a target leading character
 * is skipped, leading '.' and '$' are kept aside, and a version or PLT
 * suffix after '@' is put back after the demangled name.
 */
#include "symprof/symbolize.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <demangle.h>

#include "symprof/alloc.h"
#include "symprof/worker.h"

int sp_demangle_set_style(const char *style)
{
	enum demangling_styles s = cplus_demangle_name_to_style(style);

	if (s == unknown_demangling)
		return -1;
	cplus_demangle_set_style(s);
	return 0;
}

/*
 * Whether cplus_demangle() could demangle name at all. In the default style
 * (auto) and in gnu-v3 and rust, it only tries the Rust and GNU v3
 * demanglers, and they only accept names that start with '_' ("_Z",
 * "_GLOBAL_", "_R"). Asking first saves the demangler's setup, about 250
 * instructions a name, as much as printing the name: a C program's names
 * never start so.
 */
static int can_be_mangled(const char *name)
{
	switch (current_demangling_style) {
	case auto_demangling:
	case gnu_v3_demangling:
	case rust_demangling:
		return name[0] == '_';
	default:
		return 1;
	}
}

/*
 * Whether libiberty's Rust demangler could take name: in the default style
 * (auto) cplus_demangle() asks it first, and it reads the whole name before
 * saying no, 3% of a C++ program's pprof report. A legacy Rust name is a
 * GNU v3 nested name with a hash segment, "_ZN...17h<16 hex>E" (and maybe
 * a ".suffix"); a v0 one starts "_R". A "_Z" name without "17h" goes
 * straight to the GNU v3 demangler, which cplus_demangle() asks next when
 * the Rust one says no: the answers are the same.
 */
static int may_be_rust(const char *name)
{
	if (name[0] != '_' || name[1] != 'Z')
		return 1; /* not a GNU v3 name: cplus_demangle() decides */
	return name[2] == 'N' && strstr(name + 3, "17h");
}

static char *demangle_stem(const char *name)
{
	if (!can_be_mangled(name))
		return NULL;
	if (current_demangling_style == auto_demangling && !may_be_rust(name))
		return cplus_demangle_v3(name, DMGL_ANSI | DMGL_PARAMS);
	return cplus_demangle(name, DMGL_ANSI | DMGL_PARAMS);
}

char *sp_demangle(const char *name, char leading_char)
{
	const char *pre, *suf;
	char *res, *stem = NULL, *out;
	size_t pre_len, len, suf_len;
	int skip_lead = leading_char && *name == leading_char;

	if (skip_lead)
		name++;
	pre = name;
	while (*name == '.' || *name == '$')
		name++;
	pre_len = (size_t)(name - pre);
	suf = strchr(name, '@');
	if (suf) {
		stem = strndup(name, (size_t)(suf - name));
		if (!stem)
			return NULL;
		name = stem;
	}
	res = demangle_stem(name);
	free(stem);
	if (!res)
		return skip_lead ? strdup(pre) : NULL;
	if (!pre_len && !suf)
		return res;
	len = strlen(res);
	if (!suf)
		suf = "";
	suf_len = strlen(suf);
	out = malloc(pre_len + len + suf_len + 1);
	if (out) {
		memcpy(out, pre, pre_len);
		memcpy(out + pre_len, res, len);
		memcpy(out + pre_len + len, suf, suf_len + 1);
	}
	free(res);
	return out;
}

/* ---- batches ---- */

enum { BATCH_CHUNK = 64 }; /* names taken at a time from the shared counter */

struct sp_demangle_batch {
	const char **names;
	char **out;
	size_t n;
	char leading_char;
	atomic_size_t next;	  /* the first name no thread has taken yet */
	struct sp_worker *worker; /* started and not joined yet, or NULL */
	int done;
};

/* Takes chunks of names until none is left; each name is demangled by the
 * one thread that took it, so out[] needs no lock. */
static void batch_work(struct sp_demangle_batch *b)
{
	for (;;) {
		size_t i = atomic_fetch_add(&b->next, BATCH_CHUNK), end;

		if (i >= b->n)
			return;
		end = i + BATCH_CHUNK < b->n ? i + BATCH_CHUNK : b->n;
		for (; i < end; i++)
			b->out[i] = sp_demangle(b->names[i], b->leading_char);
	}
}

static void batch_main(void *job)
{
	batch_work(job);
}

struct sp_demangle_batch *sp_demangle_batch_start(const char *const *names, size_t n,
						  char leading_char)
{
	struct sp_demangle_batch *b = sp_xcalloc(1, sizeof(*b));

	b->names = sp_xreallocarray(NULL, n + 1, sizeof(*b->names));
	memcpy(b->names, names, n * sizeof(*names));
	b->out = sp_xcalloc(n + 1, sizeof(*b->out));
	b->n = n;
	b->leading_char = leading_char;
	atomic_init(&b->next, 0);
	if (n > BATCH_CHUNK)
		b->worker = sp_worker_start(batch_main, b);
	return b;
}

const char *sp_demangle_batch_get(struct sp_demangle_batch *b, size_t i)
{
	if (!b->done) {
		batch_work(b);
		sp_worker_join(b->worker);
		b->worker = NULL;
		b->done = 1;
	}
	return i < b->n ? b->out[i] : NULL;
}

size_t sp_demangle_batch_len(const struct sp_demangle_batch *b)
{
	return b->n;
}

void sp_demangle_batch_free(struct sp_demangle_batch *b)
{
	size_t i;

	if (!b)
		return;
	if (b->worker) {
		/* never asked: stop taking names, wait for the worker's chunk */
		atomic_store(&b->next, b->n);
		sp_worker_join(b->worker);
	}
	for (i = 0; i < b->n; i++)
		free(b->out[i]);
	free(b->out);
	free(b->names);
	free(b);
}
