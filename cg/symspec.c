/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Symspecs: the symbol selections of gprof's -p/-P/-q/-Q/-e/-E/-f/-F/-k/
 * -n/-N/-A/-J/-C/-Z options (gprof.md 1.2, binutils sym_ids.c).
 *
 *   spec := FILE.WITH.DOT | FUNCNAME | LINENUM | [FILE] ':' (FUNCNAME | LINENUM)
 *   arc  := spec '/' spec      (split at the first '/')
 *
 * A file is matched by basename against the source files of the symbol
 * table (the most recently seen file of that basename wins; an unknown
 * file matches nothing). Every run of consecutive symbols matching one spec
 * becomes one address range in that spec's table; the twelve tables are
 * then sorted and deduplicated like the symbol table itself, and queried by
 * address. An arc spec also remembers the ranges its right side matched.
 *
 * Specs are applied in reverse command-line order, as gprof does (it
 * prepends each one to a list); this matters when the deduplication of a
 * table keeps one of two ranges starting at the same address.
 */
#include "symprof/cg.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/symbolize.h"

struct spec_side {
	const struct sp_srcfile *file;
	int no_file; /* a file was named but does not exist */
	int line;
	const char *name;
	const char *interned; /* the table's copy of name (NULL: no symbol has it) */
	size_t prev_match;    /* 1 + index of the last symbol matched, 0 = none */
	size_t prev_index;
};

struct spec {
	char *text; /* the spec as given */
	enum sp_symspec_table table;
	int has_right;
	struct spec_side left, right;
	struct sp_symbol *rights; /* right-side ranges */
	size_t nrights, rights_alloc;
};

struct table {
	struct sp_symbol *syms; /* aux = index of the spec that made the entry */
	size_t len, alloc;
};

struct sp_symspecs {
	struct spec *specs; /* command-line order */
	size_t nspecs, specs_alloc;
	struct table tables[SP_SYMSPEC_TABLES];
	char leading_char;
};

struct sp_symspecs *sp_symspecs_new(void)
{
	return sp_xcalloc(1, sizeof(struct sp_symspecs));
}

void sp_symspecs_free(struct sp_symspecs *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nspecs; i++) {
		free(s->specs[i].text);
		free(s->specs[i].rights);
	}
	for (i = 0; i < SP_SYMSPEC_TABLES; i++)
		free(s->tables[i].syms);
	free(s->specs);
	free(s);
}

void sp_symspecs_set_leading_char(struct sp_symspecs *s, char c)
{
	s->leading_char = c;
}

void sp_symspecs_add(struct sp_symspecs *s, const char *text, enum sp_symspec_table table)
{
	struct spec *sp;

	SP_ALLOC_GROW(s->specs, s->nspecs + 1, s->specs_alloc);
	sp = &s->specs[s->nspecs++];
	memset(sp, 0, sizeof(*sp));
	sp->text = sp_xstrdup(text);
	sp->table = table;
}

/* ---- parsing ---- */

static void parse_side(struct spec_side *side, char *spec, const struct sp_symtab *t)
{
	char *colon = strrchr(spec, ':');

	memset(side, 0, sizeof(*side));
	if (colon) {
		*colon = '\0';
		if (colon > spec) {
			side->file = sp_symtab_file_by_basename(t, spec);
			side->no_file = !side->file;
		}
		spec = colon + 1;
		if (*spec) {
			if (isdigit((unsigned char)spec[0]))
				side->line = atoi(spec);
			else
				side->name = spec;
		}
	} else if (*spec) {
		if (strchr(spec, '.')) {
			side->file = sp_symtab_file_by_basename(t, spec);
			side->no_file = !side->file;
		} else if (isdigit((unsigned char)*spec)) {
			side->line = atoi(spec);
		} else {
			side->name = spec;
		}
	}
}

static void parse_spec(struct spec *sp, const struct sp_symtab *t)
{
	char *slash = strchr(sp->text, '/');

	if (slash) {
		parse_side(&sp->right, slash + 1, t);
		*slash = '\0';
		sp->has_right = 1;
	}
	parse_side(&sp->left, sp->text, t);
	if (sp->left.name)
		sp->left.interned = sp_strtab_find(&t->strs, sp->left.name, strlen(sp->left.name));
	if (sp->has_right && sp->right.name)
		sp->right.interned =
			sp_strtab_find(&t->strs, sp->right.name, strlen(sp->right.name));
}

static int matches(const struct spec_side *pat, const struct sp_symbol *sym, char lead)
{
	const char *name = sym->name;

	if (pat->no_file || (pat->file && pat->file != sym->file))
		return 0;
	if (pat->line && pat->line != sym->line)
		return 0;
	if (pat->name) {
		/* symbol names are interned in the table: compare pointers */
		if (!lead)
			return sym->name == pat->interned;
		if (*name && lead == *name)
			name++;
		if (strcmp(pat->name, name))
			return 0;
	}
	return 1;
}

/* gprof's extend_match(): a run of consecutive matches is one range. */
static void extend(struct spec_side *side, const struct sp_symtab *t, size_t i,
		   struct sp_symbol **arr, size_t *len, size_t *alloc, uint32_t aux)
{
	const struct sp_symbol *sym = &t->syms[i];

	if (side->prev_match != i || i == 0) {
		SP_ALLOC_GROW(*arr, *len + 2, *alloc);
		(*arr)[*len] = *sym;
		(*arr)[*len].aux = aux;
		side->prev_index = (*len)++;
	}
	(*arr)[side->prev_index].end_addr = sym->end_addr;
	side->prev_match = i + 1;
}

/* Whether a side can match some symbol of the table at all: not when it
 * names a file the table lacks, or (compared as interned pointers) a name
 * no symbol has, as for the default exclusions of mcount and friends. */
static int side_can_match(const struct spec_side *side, char lead)
{
	if (side->no_file)
		return 0;
	return !side->name || lead || side->interned;
}

void sp_symspecs_resolve(struct sp_symspecs *s, const struct sp_symtab *t, FILE *debug)
{
	size_t i, j, k, nlive = 0;
	size_t *live;

	for (k = 0; k < s->nspecs; k++)
		parse_spec(&s->specs[k], t);
	/* newest spec first, like gprof's prepended id list */
	live = sp_xreallocarray(NULL, s->nspecs + 1, sizeof(*live));
	for (k = s->nspecs; k > 0; k--) {
		const struct spec *sp = &s->specs[k - 1];

		if (side_can_match(&sp->left, s->leading_char) ||
		    (sp->has_right && side_can_match(&sp->right, s->leading_char)))
			live[nlive++] = k;
	}
	for (i = 0; nlive && i < t->len; i++) {
		const struct sp_symbol *sym = &t->syms[i];

		for (j = 0; j < nlive; j++) {
			struct spec *sp;
			struct table *tab;

			k = live[j];
			sp = &s->specs[k - 1];
			tab = &s->tables[sp->table];

			if (matches(&sp->left, sym, s->leading_char))
				extend(&sp->left, t, i, &tab->syms, &tab->len, &tab->alloc,
				       (uint32_t)(k - 1));
			if (sp->has_right && matches(&sp->right, sym, s->leading_char))
				extend(&sp->right, t, i, &sp->rights, &sp->nrights,
				       &sp->rights_alloc, (uint32_t)(k - 1));
		}
	}
	free(live);
	for (i = 0; i < SP_SYMSPEC_TABLES; i++) {
		struct table *tab = &s->tables[i];

		sp_symbols_finalize(tab->syms, &tab->len, t->text_end);
		if (debug) {
			for (k = 0; k < tab->len; k++)
				fprintf(debug, "[sym_id_parse] table %zu: %s 0x%llx-0x%llx\n", i,
					tab->syms[k].name ? tab->syms[k].name : "*",
					(unsigned long long)tab->syms[k].addr,
					(unsigned long long)tab->syms[k].end_addr);
		}
	}
}

/* ---- queries ---- */

size_t sp_symspecs_len(const struct sp_symspecs *s, enum sp_symspec_table table)
{
	return s ? s->tables[table].len : 0;
}

int sp_symspecs_in(const struct sp_symspecs *s, enum sp_symspec_table table, uint64_t addr)
{
	if (!s)
		return 0;
	return sp_symbols_lookup(s->tables[table].syms, s->tables[table].len, addr) != NULL;
}

int sp_symspecs_selects(const struct sp_symspecs *s, enum sp_symspec_table incl, uint64_t addr)
{
	return sp_symspecs_in(s, incl, addr) ||
	       (sp_symspecs_len(s, incl) == 0 && !sp_symspecs_in(s, incl + 1, addr));
}

/* gprof's sym_id_arc_is_present() */
static int arc_present(const struct sp_symspecs *s, enum sp_symspec_table table,
		       const struct sp_symbol *from, const struct sp_symbol *to)
{
	const struct table *tab = &s->tables[table];
	size_t i, r;

	for (i = 0; i < tab->len; i++) {
		const struct sp_symbol *e = &tab->syms[i];
		const struct spec *sp = &s->specs[e->aux];

		if (from->addr < e->addr || from->addr > e->end_addr)
			continue;
		for (r = 0; r < sp->nrights; r++)
			if (to->addr >= sp->rights[r].addr &&
			    to->end_addr <= sp->rights[r].end_addr)
				return 1;
	}
	return 0;
}

int sp_symspecs_keeps_arc(const struct sp_symspecs *s, const struct sp_symbol *from,
			  const struct sp_symbol *to)
{
	if (!s)
		return 1;
	return arc_present(s, SP_INCL_ARCS, from, to) ||
	       (s->tables[SP_INCL_ARCS].len == 0 && !arc_present(s, SP_EXCL_ARCS, from, to));
}
