/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Annotated source for the HTML report: the hottest functions (by self
 * time) whose source file can be found, each from the line before its
 * entry to the end of its body (before the next function of the file, at most
 * MAX_LINES lines), with the samples of the histogram bins whose address
 * the line table puts on each line. Files are searched as gprof's -A
 * searches them: the name as recorded, then each -I / GPROF_PATH
 * directory with the name, then with its basename.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

#define MAX_LINES 80

static FILE *open_source(const char *name, const char *const *dirs, size_t ndirs,
			 struct sp_buf *path)
{
	const char *base = strrchr(name, '/');
	FILE *f;
	size_t d;

	sp_buf_reset(path);
	sp_buf_addstr(path, name);
	if ((f = fopen(name, "rb")))
		return f;
	for (d = 0; name[0] != '/' && d < ndirs; d++) {
		sp_buf_reset(path);
		sp_buf_addf(path, "%s/%s", dirs[d], name);
		if ((f = fopen(path->buf, "rb")))
			return f;
	}
	for (d = 0; base && d < ndirs; d++) {
		sp_buf_reset(path);
		sp_buf_addf(path, "%s/%s", dirs[d], base + 1);
		if ((f = fopen(path->buf, "rb")))
			return f;
	}
	return NULL;
}

/* The last line of the function at s->line: two lines before the next
 * function of the same file (whose line is the one after its name), at
 * most MAX_LINES on. */
static int last_line(const struct sp_symtab *t, const struct sp_symbol *s)
{
	int last = s->line + MAX_LINES - 1;
	size_t i;

	for (i = 0; i < t->len; i++)
		if (t->syms[i].file == s->file && t->syms[i].line > s->line + 1 &&
		    t->syms[i].line - 2 < last)
			last = t->syms[i].line - 2;
	return last;
}

static int blank(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return !*s;
}

/* Samples (in seconds) per line first..last from the histogram bins. */
static void line_values(struct sp_image *im, const struct sp_profile *p, const struct sp_cg *cg,
			const struct sp_symbol *s, int first, double *v, int n)
{
	const char *base = strrchr(s->file->name, '/');
	size_t h;

	base = base ? base + 1 : s->file->name;
	for (h = 0; h < p->nhists; h++) {
		const struct sp_hist *hist = &p->hists[h];
		double size = (double)(hist->high_pc - hist->low_pc) / hist->nbins;
		uint64_t lo = s->addr > hist->low_pc ? s->addr : hist->low_pc;
		uint32_t i = (uint32_t)((double)(lo - hist->low_pc) / size);

		for (; i < hist->nbins; i++) {
			uint64_t pc = hist->low_pc + (uint64_t)(size * i);
			const char *file, *fb;
			int line;

			if (pc > s->end_addr)
				break;
			if (!hist->bins[i] || pc < s->addr)
				continue;
			if (sp_image_src_line(im, pc, &file, &line) < 0 || !file)
				continue;
			fb = strrchr(file, '/');
			if (strcmp(fb ? fb + 1 : file, base) || line < first || line >= first + n)
				continue;
			v[line - first] += hist->bins[i] / (double)(cg->hz > 0 ? cg->hz : 1);
		}
	}
}

static int read_lines(struct sp_cli_sources *out, FILE *f, int first, int last, const double *v)
{
	struct sp_buf line = SP_BUF_INIT;
	int c, no = 1, kept = 0;

	for (;;) {
		c = fgetc(f);
		if (c != EOF && c != '\n') {
			if (c != '\r')
				sp_buf_addch(&line, c);
			continue;
		}
		if (c == EOF && !line.len)
			break;
		if (no >= first && no <= last) {
			struct sp_html_source_line *l;

			SP_ALLOC_GROW(out->lines, out->nlines + 1, out->lines_alloc);
			l = &out->lines[out->nlines++];
			l->line = no;
			l->value = v[no - first];
			l->text = sp_buf_detach(&line, NULL);
			kept++;
		}
		sp_buf_reset(&line);
		if (c == EOF || ++no > last)
			break;
	}
	sp_buf_release(&line);
	while (kept > 0 && blank(out->lines[out->nlines - 1].text) &&
	       out->lines[out->nlines - 1].value == 0) {
		free((char *)out->lines[--out->nlines].text);
		kept--;
	}
	return kept;
}

static int cmp_self(const void *a, const void *b, void *ctx)
{
	const struct sp_cg *cg = ctx;
	double x = cg->nodes[*(const uint32_t *)a].time, y = cg->nodes[*(const uint32_t *)b].time;

	return x > y ? -1 : x < y ? 1 : 0;
}

static void add_function(struct sp_cli_sources *out, const struct sp_cg *cg, struct sp_image *im,
			 const struct sp_profile *p, uint32_t node, const char *const *dirs,
			 size_t ndirs)
{
	const struct sp_symbol *s = cg->nodes[node].sym;
	struct sp_buf path = SP_BUF_INIT;
	FILE *f = open_source(s->file->name, dirs, ndirs, &path);
	/* the line table's line is the one after the function's name */
	int first = s->line > 1 ? s->line - 1 : 1, last = last_line(cg->symtab, s), n;
	double *v;
	size_t start = out->nlines;

	if (!f) {
		sp_buf_release(&path);
		return;
	}
	v = sp_xcalloc((size_t)(last - first + 1), sizeof(double));
	line_values(im, p, cg, s, first, v, last - first + 1);
	n = read_lines(out, f, first, last, v);
	fclose(f);
	free(v);
	if (n > 0) {
		struct sp_html_source *src;

		SP_ALLOC_GROW(out->v, out->n + 1, out->alloc);
		src = &out->v[out->n++];
		src->node = node;
		src->path = sp_buf_detach(&path, NULL);
		src->lines = (const struct sp_html_source_line *)(uintptr_t)start; /* fixed below */
		src->nlines = (size_t)n;
	}
	sp_buf_release(&path);
}

void sp_cli_sources_build(struct sp_cli_sources *out, const struct sp_cg *cg, struct sp_image *im,
			  const struct sp_profile *p, const char *const *dirs, size_t ndirs,
			  size_t max_funcs)
{
	uint32_t *order = sp_xmalloc((cg->nsyms + 1) * sizeof(*order));
	size_t i, m = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cg->nsyms; i++)
		if (cg->nodes[i].time > 0 && cg->nodes[i].sym && cg->nodes[i].sym->file)
			order[m++] = (uint32_t)i;
	sp_sort(order, m, sizeof(*order), cmp_self, (void *)cg);
	for (i = 0; i < m && out->n < max_funcs; i++)
		add_function(out, cg, im, p, order[i], dirs, ndirs);
	/* the lines array has moved while growing: point into it now */
	for (i = 0; i < out->n; i++)
		out->v[i].lines = out->lines + (size_t)(uintptr_t)out->v[i].lines;
	free(order);
}

void sp_cli_sources_release(struct sp_cli_sources *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free((char *)s->v[i].path);
	for (i = 0; i < s->nlines; i++)
		free((char *)s->lines[i].text);
	free(s->v);
	free(s->lines);
	memset(s, 0, sizeof(*s));
}
