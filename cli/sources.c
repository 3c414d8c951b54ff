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

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

#define MAX_LINES 80

/* -I directories then GPROF_PATH, each a ':'-separated list. */
size_t sp_cli_source_dirs(const struct sp_opts *o, char ***out)
{
	const char *gpath = getenv("GPROF_PATH");
	size_t i, n = 0, alloc = 0;
	char **v = NULL;

	for (i = 0; i <= o->nsrc_dirs; i++) {
		const char *list = i < o->nsrc_dirs ? o->src_dirs[i] : gpath, *p;

		if (!list)
			continue;
		for (p = list;;) {
			const char *colon = strchr(p, ':');
			size_t len = colon ? (size_t)(colon - p) : strlen(p);

			if (len) {
				SP_ALLOC_GROW(v, n + 1, alloc);
				v[n++] = sp_xstrndup(p, len);
			}
			if (!colon)
				break;
			p = colon + 1;
		}
	}
	*out = v;
	return n;
}

void sp_cli_source_dirs_free(char **dirs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

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
		size_t k = sp_hist_find(hist, (uint32_t)((double)(lo - hist->low_pc) / size));

		/* the listed bins from there on: the others are 0 */
		for (; k < hist->nnonzero; k++) {
			uint64_t pc = sp_hist_bin_start(hist, hist->nonzero[k]);
			const char *file, *fb;
			int line;

			if (pc > s->end_addr)
				break;
			if (!hist->counts[k] || pc < s->addr)
				continue;
			if (sp_image_src_line(im, pc, &file, &line) < 0 || !file)
				continue;
			fb = strrchr(file, '/');
			if (strcmp(fb ? fb + 1 : file, base) || line < first || line >= first + n)
				continue;
			v[line - first] += hist->counts[k] / (double)(cg->hz > 0 ? cg->hz : 1);
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

/* One function's lines first..last of `file` with their values v. */
static void add_lines(struct sp_cli_sources *out, uint32_t node, const char *file, int first,
		      int last, const double *v, const char *const *dirs, size_t ndirs)
{
	struct sp_buf path = SP_BUF_INIT;
	FILE *f = open_source(file, dirs, ndirs, &path);
	size_t start = out->nlines;
	int n;

	if (!f) {
		sp_buf_release(&path);
		return;
	}
	n = read_lines(out, f, first, last, v);
	fclose(f);
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

/* The lines array has moved while growing: point into it now. */
static void fix_lines(struct sp_cli_sources *out)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		out->v[i].lines = out->lines + (size_t)(uintptr_t)out->v[i].lines;
}

static void add_function(struct sp_cli_sources *out, const struct sp_cg *cg, struct sp_image *im,
			 const struct sp_profile *p, uint32_t node, const char *const *dirs,
			 size_t ndirs)
{
	const struct sp_symbol *s = cg->nodes[node].sym;
	/* the line table's line is the one after the function's name */
	int first = s->line > 1 ? s->line - 1 : 1, last = last_line(cg->symtab, s);
	double *v = sp_xcalloc((size_t)(last - first + 1), sizeof(double));

	line_values(im, p, cg, s, first, v, last - first + 1);
	add_lines(out, node, s->file->name, first, last, v, dirs, ndirs);
	free(v);
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
	fix_lines(out);
	free(order);
}

/* ---- stack profiles ---- */

struct spot {
	uint32_t func;
	const char *file;
	uint32_t line;
	double value;
};

static int cmp_spot(const void *a, const void *b, void *ctx)
{
	const struct spot *x = a, *y = b;
	int c;

	(void)ctx;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if ((c = strcmp(x->file, y->file)))
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * One function of a stack profile: the source file most of its samples
 * point into, from two lines before its first sampled line to two after
 * its last (at most MAX_LINES, centred on the hottest line).
 */
static void add_stack_function(struct sp_cli_sources *out, uint32_t node, const struct spot *v,
			       size_t n, const char *const *dirs, size_t ndirs)
{
	size_t i, j, best = 0, best_end = 0;
	double best_sum = -1, top = -1;
	int first, last, hot = 0;
	double *vals;

	for (i = 0; i < n; i = j) {
		double sum = 0;

		for (j = i; j < n && !strcmp(v[j].file, v[i].file); j++)
			sum += v[j].value;
		if (sum > best_sum) {
			best_sum = sum;
			best = i;
			best_end = j;
		}
	}
	first = (int)v[best].line;
	last = (int)v[best_end - 1].line;
	for (i = best; i < best_end; i++)
		if (v[i].value > top) {
			top = v[i].value;
			hot = (int)v[i].line;
		}
	first = first > 2 ? first - 2 : 1;
	last += 2;
	if (last - first + 1 > MAX_LINES) {
		first = hot > MAX_LINES / 2 ? hot - MAX_LINES / 2 : 1;
		last = first + MAX_LINES - 1;
	}
	vals = sp_xcalloc((size_t)(last - first + 1), sizeof(double));
	for (i = best; i < best_end; i++)
		if ((int)v[i].line >= first && (int)v[i].line <= last)
			vals[v[i].line - (uint32_t)first] += v[i].value;
	add_lines(out, node, v[best].file, first, last, vals, dirs, ndirs);
	free(vals);
}

void sp_cli_sources_build_stacks(struct sp_cli_sources *out, const struct sp_cg *cg,
				 const struct sp_profile *p, struct sp_symbolizer *sym,
				 const struct sp_cg_stack_opts *co, const char *const *dirs,
				 size_t ndirs, size_t max_funcs)
{
	static const enum sp_value_pick pick[] = {
		[SP_VALUE_VALUE] = SP_PICK_VALUE,
		[SP_VALUE_COUNT] = SP_PICK_COUNT,
		[SP_VALUE_PEAK] = SP_PICK_PEAK,
	};
	int64_t *self = sp_profile_node_values(p, co->counter, pick[co->field]);
	struct spot *spots = NULL;
	size_t nspots = 0, alloc = 0, i, m = 0, k;
	uint32_t *order = sp_xmalloc((cg->nsyms + 1) * sizeof(*order));
	size_t *start = sp_xcalloc(cg->nsyms + 2, sizeof(*start));

	memset(out, 0, sizeof(*out));
	/* the innermost function and line of every sampled leaf */
	for (i = 0; i < p->nnodes; i++) {
		const struct sp_symloc *loc;
		uint32_t frame = p->nodes[i].frame;

		if (!self[i] || frame == SP_NONE ||
		    co->frame_first[frame] == co->frame_first[frame + 1])
			continue;
		loc = sp_symbolizer_frame(sym, p, frame);
		/* a line beyond any real file's (corrupt DWARF) is not shown */
		if (!loc || !loc->nframes || !loc->frames[0].file || !loc->frames[0].line ||
		    loc->frames[0].line > INT_MAX / 2)
			continue;
		SP_ALLOC_GROW(spots, nspots + 1, alloc);
		spots[nspots].func = co->frame_funcs[co->frame_first[frame + 1] - 1];
		spots[nspots].file = loc->frames[0].file;
		spots[nspots].line = loc->frames[0].line;
		spots[nspots].value = (double)self[i] / (double)(cg->hz > 0 ? cg->hz : 1);
		nspots++;
	}
	free(self);
	sp_sort(spots, nspots, sizeof(*spots), cmp_spot, NULL);
	/* spots of function f: spots[start[f] .. start[f + 1]) */
	for (i = 0; i < nspots; i++)
		start[spots[i].func + 1]++;
	for (i = 1; i <= cg->nsyms; i++)
		start[i] += start[i - 1];
	for (i = 0; i < cg->nsyms; i++)
		if (cg->nodes[i].time > 0 && start[i + 1] > start[i])
			order[m++] = (uint32_t)i;
	sp_sort(order, m, sizeof(*order), cmp_self, (void *)cg);
	for (k = 0; k < m && out->n < max_funcs; k++)
		add_stack_function(out, order[k], spots + start[order[k]],
				   start[order[k] + 1] - start[order[k]], dirs, ndirs);
	fix_lines(out);
	free(order);
	free(start);
	free(spots);
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
