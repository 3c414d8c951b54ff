/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's -R map file: `nm --extern-only --defined-only -v
 * --print-file-name` output, "OBJECT:ADDRESS TYPE FUNCTION" per line
 * ("No symbols in ..." lines skipped). The first function listed for each
 * object file stands for the whole object in the symbol table.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/error.h"
#include "symprof/mfile.h"
#include "symprof/sort.h"

static int cmp_function(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return strcmp(((const struct sp_function_map_entry *)a)->function_name,
		      ((const struct sp_function_map_entry *)b)->function_name);
}

static int parse_line(struct sp_function_map *m, size_t *alloc, const char *p, const char *end)
{
	const char *colon = p, *sp, *fn;
	struct sp_function_map_entry *e;

	while (colon < end && *colon != ':' && *colon != '\n')
		colon++;
	if (colon == p || colon == end || *colon != ':')
		return -1;
	/* the function is what follows the last space of the rest */
	for (sp = fn = colon; sp < end; sp++)
		if (*sp == ' ')
			fn = sp + 1;
	SP_ALLOC_GROW(m->entries, m->len + 1, *alloc);
	e = &m->entries[m->len++];
	memset(e, 0, sizeof(*e));
	e->file_name = sp_arena_strndup(&m->arena, p, (size_t)(colon - p));
	e->function_name = sp_arena_strndup(&m->arena, fn, (size_t)(end - fn));
	return 0;
}

struct sp_function_map *sp_function_map_read(const char *path, struct sp_error *err)
{
	struct sp_function_map *m;
	struct sp_mfile f;
	const char *p, *end;
	size_t alloc = 0, i, lineno = 0;

	if (sp_mfile_open(&f, path, err) < 0)
		return NULL;
	m = sp_xcalloc(1, sizeof(*m));
	sp_arena_init(&m->arena);
	p = (const char *)f.data;
	end = p + f.size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		lineno++;
		if (le > p && strncmp(p, "No symbols in ", 14) &&
		    parse_line(m, &alloc, p, le) < 0) {
			sp_error_set(err, SP_E_CORRUPT, "cannot parse map file '%s' at line %zu",
				     path, lineno);
			sp_mfile_close(&f);
			sp_function_map_free(m);
			return NULL;
		}
		p = nl ? nl + 1 : end;
	}
	sp_mfile_close(&f);
	for (i = 0; i < m->len; i++)
		m->entries[i].is_first =
			i == 0 || strcmp(m->entries[i].file_name, m->entries[i - 1].file_name);
	sp_sort(m->entries, m->len, sizeof(m->entries[0]), cmp_function, NULL);
	return m;
}

void sp_function_map_free(struct sp_function_map *m)
{
	if (!m)
		return;
	free(m->entries);
	sp_arena_release(&m->arena);
	free(m);
}
