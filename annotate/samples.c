/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Annotated source for stack profiles (-A with a gperftools profile):
 * every source file that samples point into, each line prefixed with
 *
 *   flat   the samples taken while that line was executing (the line of
 *          the innermost function of the sampled address);
 *   cum    the samples whose stack holds the line anywhere (executing,
 *          or calling, or inlining code), each sample once per line;
 *
 * "." for zero. The line of an address comes from its inline chain: the
 * innermost function's line, and each call site of the inline chain.
 * Files are listed by flat samples (most first), then by name. A file is
 * searched as the debug information names it, then under each -I
 * directory with that name and with its base name; when none is found
 * its lines with samples are listed without their text.
 */
#include "symprof/annotate.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct spot {
	const char *file; /* interned */
	uint32_t line;
	int64_t flat, cum;
	uint32_t stamp;
};

struct ann {
	struct sp_strtab strs;
	struct sp_pairmap index; /* (file, line) -> spots */
	struct spot *spots;
	size_t nspots, alloc;
	uint32_t *pos; /* per frame: spot ids pos[first[f] .. first[f + 1]) */
	uint32_t *first;
	size_t npos, pos_alloc;
};

static void spot_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct ann *a = ctx;

	*k1 = (uint64_t)(uintptr_t)a->spots[i].file;
	*k2 = a->spots[i].line;
}

static uint32_t spot_of(struct ann *a, const char *file, uint32_t line)
{
	const char *f = sp_strtab_intern(&a->strs, file);
	uint32_t i;

	SP_ALLOC_GROW(a->spots, a->nspots + 1, a->alloc);
	memset(&a->spots[a->nspots], 0, sizeof(*a->spots));
	a->spots[a->nspots].file = f;
	a->spots[a->nspots].line = line;
	i = sp_pairmap_put(&a->index, (uint64_t)(uintptr_t)f, line, (uint32_t)a->nspots);
	if (i == a->nspots)
		a->nspots++;
	return i;
}

static void frame_spots(struct ann *a, const struct sp_profile *p, struct sp_symbolizer *s)
{
	size_t f;
	uint32_t k;

	a->first = sp_xmalloc((p->nframes + 1) * sizeof(*a->first));
	for (f = 0; f < p->nframes; f++) {
		const struct sp_symloc *loc = sp_symbolizer_frame(s, p, (uint32_t)f);

		a->first[f] = (uint32_t)a->npos;
		for (k = 0; k < loc->nframes; k++) {
			const struct sp_sym_frame *sf = &loc->frames[k];

			if (!sf->file || !sf->line)
				continue;
			SP_ALLOC_GROW(a->pos, a->npos + 1, a->pos_alloc);
			a->pos[a->npos++] = spot_of(a, sf->file, sf->line);
		}
	}
	a->first[p->nframes] = (uint32_t)a->npos;
}

static void count(struct ann *a, const struct sp_profile *p,
		  const struct sp_annotate_samples_opts *o)
{
	uint32_t counter = sp_profile_find_counter(p, o->counter ? o->counter : "samples");
	int64_t *node_count = sp_profile_node_values(p, counter, (enum sp_value_pick)o->pick);
	size_t i;

	for (i = 1; i < p->nnodes; i++) {
		uint32_t n = (uint32_t)i, leaf = p->nodes[i].frame, k;

		if (!node_count[i])
			continue;
		if (a->first[leaf] < a->first[leaf + 1])
			a->spots[a->pos[a->first[leaf]]].flat += node_count[i];
		for (; n != 0 && n != SP_NONE; n = p->nodes[n].parent) {
			uint32_t fr = p->nodes[n].frame;

			for (k = a->first[fr]; k < a->first[fr + 1]; k++) {
				struct spot *sp = &a->spots[a->pos[k]];

				if (sp->stamp != i) {
					sp->stamp = (uint32_t)i;
					sp->cum += node_count[i];
				}
			}
		}
	}
	free(node_count);
}

/* ---- files ---- */

struct src_file {
	const char *name;
	int64_t flat, cum;
	uint32_t first, n; /* its spots in the sorted order */
};

static int cmp_spot(const void *x, const void *y, void *ctx)
{
	const struct spot *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	(void)ctx;
	if (c)
		return c;
	return (a->line > b->line) - (a->line < b->line);
}

static int cmp_file(const void *x, const void *y, void *ctx)
{
	const struct src_file *a = x, *b = y;

	(void)ctx;
	if (a->flat != b->flat)
		return a->flat > b->flat ? -1 : 1;
	if (a->cum != b->cum)
		return a->cum > b->cum ? -1 : 1;
	return strcmp(a->name, b->name);
}

static FILE *open_source(const char *name, const struct sp_annotate_samples_opts *o)
{
	const char *base = strrchr(name, '/');
	struct sp_buf b = SP_BUF_INIT;
	FILE *f = fopen(name, "r");
	size_t i;
	int pass;

	base = base ? base + 1 : name;
	for (pass = 0; pass < 2 && !f; pass++) {
		for (i = 0; i < o->ndirs && !f; i++) {
			sp_buf_reset(&b);
			sp_buf_addf(&b, "%s/%s", o->dirs[i], pass ? base : name);
			f = fopen(b.buf, "r");
		}
	}
	sp_buf_release(&b);
	return f;
}

static void cell(FILE *out, int64_t v)
{
	if (v)
		fprintf(out, "%8lld", (long long)v);
	else
		fprintf(out, "%8s", ".");
}

static void print_file(FILE *out, const struct src_file *sf, const struct spot *spots,
		       const struct sp_annotate_samples_opts *o)
{
	FILE *src = open_source(sf->name, o);
	char *line = NULL;
	size_t cap = 0, k = 0;
	ssize_t len;
	uint32_t no = 0;

	fprintf(out, "\n*** File %s: %lld %s on its lines\n\n", sf->name, (long long)sf->flat,
		o->what ? o->what : "samples");
	fprintf(out, "%8s %8s %6s\n", "flat", "cum", "line");
	if (!src) {
		sp_warn(o->warn, "warning: cannot find source file '%s'", sf->name);
		for (k = 0; k < sf->n; k++) {
			const struct spot *sp = &spots[sf->first + k];

			cell(out, sp->flat);
			fputc(' ', out);
			cell(out, sp->cum);
			fprintf(out, " %6u: (source not found)\n", sp->line);
		}
		return;
	}
	while ((len = getline(&line, &cap, src)) >= 0) {
		int64_t flat = 0, cum = 0;

		no++;
		while (k < sf->n && spots[sf->first + k].line < no)
			k++;
		if (k < sf->n && spots[sf->first + k].line == no) {
			flat = spots[sf->first + k].flat;
			cum = spots[sf->first + k].cum;
		}
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		cell(out, flat);
		fputc(' ', out);
		cell(out, cum);
		fprintf(out, " %6u: %s\n", no, line);
	}
	free(line);
	fclose(src);
}

void sp_annotate_samples(FILE *out, const struct sp_profile *p, struct sp_symbolizer *s,
			 const struct sp_annotate_samples_opts *o, int first_output)
{
	struct ann a;
	struct src_file *files = NULL;
	size_t i, nfiles = 0, falloc = 0;

	memset(&a, 0, sizeof(a));
	sp_strtab_init(&a.strs);
	sp_pairmap_init(&a.index, spot_key, &a);
	frame_spots(&a, p, s);
	count(&a, p, o);
	sp_pairmap_release(&a.index);
	sp_sort(a.spots, a.nspots, sizeof(*a.spots), cmp_spot, NULL);
	for (i = 0; i < a.nspots; i++) {
		if (!nfiles || files[nfiles - 1].name != a.spots[i].file) {
			SP_ALLOC_GROW(files, nfiles + 1, falloc);
			memset(&files[nfiles], 0, sizeof(*files));
			files[nfiles].name = a.spots[i].file;
			files[nfiles++].first = (uint32_t)i;
		}
		files[nfiles - 1].n++;
		files[nfiles - 1].flat += a.spots[i].flat;
		if (a.spots[i].cum > files[nfiles - 1].cum)
			files[nfiles - 1].cum = a.spots[i].cum; /* sorts ties */
	}
	sp_sort(files, nfiles, sizeof(*files), cmp_file, NULL);
	if (!first_output)
		fputs("\f\n", out);
	fprintf(out, "Annotated source (%s: flat = on the line, cum = the line on the stack)\n",
		o->what ? o->what : "samples");
	for (i = 0; i < nfiles; i++)
		print_file(out, &files[i], a.spots, o);
	free(files);
	free(a.spots);
	free(a.pos);
	free(a.first);
	sp_strtab_release(&a.strs);
}
