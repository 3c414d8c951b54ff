/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's -S / --external-symbol-table: a symbol table read from an `nm`
 * listing, one "ADDRESS TYPE NAME" per line; only text symbols (t, T) are
 * kept, all as functions, statics for 't'. Lines are read in chunks of at
 * most 1022 bytes, as gprof's fgets() reads them, so a longer line counts
 * as several.
 */
#include "internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/error.h"
#include "symprof/mfile.h"

#define CHUNK 1022

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p;
}

static const char *word(const char *p, const char *end, const char **w, size_t *len)
{
	const char *s = p;

	while (p < end && !isspace((unsigned char)*p) && (size_t)(p - s) < 1023)
		p++;
	*w = s;
	*len = (size_t)(p - s);
	return p;
}

/* sscanf(chunk, "%s %c %s", addr, &type, name) == 3 */
static int parse_chunk(const char *p, const char *end, uint64_t *addr, char *type,
		       const char **name, size_t *name_len)
{
	const char *a;
	size_t alen;
	char abuf[64];

	p = word(skip_ws(p, end), end, &a, &alen);
	if (!alen)
		return 0;
	p = skip_ws(p, end);
	if (p >= end)
		return 0;
	*type = *p++;
	p = word(skip_ws(p, end), end, name, name_len);
	if (!*name_len)
		return 0;
	if (alen >= sizeof(abuf))
		alen = sizeof(abuf) - 1;
	memcpy(abuf, a, alen);
	abuf[alen] = '\0';
	*addr = 0;
	sscanf(abuf, "%" SCNx64, addr);
	return 1;
}

struct sp_symtab *sp_symtab_from_nm(const char *path, uint64_t text_end, struct sp_error *err)
{
	struct sp_mfile f;
	struct sp_symtab *t;
	const char *p, *end;

	if (sp_mfile_open(&f, path, err) < 0)
		return NULL;
	t = sp_symtab_new();
	t->text_end = text_end;
	p = (const char *)f.data;
	end = p + f.size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *ce = nl ? nl + 1 : end, *name;
		size_t name_len;
		uint64_t addr;
		char type;

		if (ce - p > CHUNK)
			ce = p + CHUNK;
		if (parse_chunk(p, ce, &addr, &type, &name, &name_len) &&
		    (type == 't' || type == 'T')) {
			struct sp_symbol *s = sp_symtab_add(t);

			s->addr = addr;
			s->name = sp_strtab_intern_n(&t->strs, name, name_len);
			s->is_func = 1;
			s->is_bb_head = 1;
			s->is_static = type == 't';
		}
		p = ce;
	}
	sp_mfile_close(&f);
	if (!t->len) {
		sp_error_set(err, SP_E_NOSYMS, "cannot read '%s': file has no text symbols", path);
		sp_symtab_free(t);
		return NULL;
	}
	sp_symtab_finalize(t);
	return t;
}
