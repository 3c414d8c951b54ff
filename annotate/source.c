/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's annotated source listing (basic_blocks.c print_annotated_source,
 * annotate_with_count; source.c annotate_source; gprof.md 2.5):
 *
 *  - every symbol with a source line adds its count to that line (a line
 *    with several symbols gets their sum);
 *  - each source file with executions is printed with a 16-column prefix
 *    on every line: "<count> -> " where a symbol starts (function entry
 *    counts, basic-block counts with -l), "#####" below -m, blank
 *    elsewhere; -x repeats counts over the lines of a block;
 *  - then the "Top N Lines" table and the execution summary.
 *
 * Files are searched as given, then under each -I directory with the
 * path, then with the basename only. Files are listed most recently seen
 * first, as gprof keeps them.
 */
#include "symprof/annotate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

#define WIDTH 16
#define NBBS 10

/* What gprof keeps per source line: a symbol, or a merged copy (addr 0). */
struct line_stat {
	const struct sp_cg_node *node; /* for is_func, basic blocks */
	uint64_t addr;
	uint64_t ncalls;
	int line;
};

struct file_state {
	int num_lines;
	uint64_t ncalls;
	struct line_stat **line; /* num_lines entries, NULL = no symbol */
	double *ticks;		 /* --precise: histogram time per line */
};

struct anno {
	const struct sp_cg *cg;
	const struct sp_annotate_opts *o;
	struct file_state *files; /* by srcfile id */
	struct line_stat *pool;	  /* one entry per symbol, then merged copies */
	size_t npool;
	unsigned long last_count; /* gprof keeps it across files */
	long executable_lines, lines_executed;
	int first_file;
	int width; /* of the prefix: 16, or 38 with --precise */
};

static int selected(const struct sp_symspecs *specs, uint64_t addr)
{
	return sp_symspecs_selects(specs, SP_INCL_ANNO, addr);
}

/* --precise: the histogram time of every line, from the line-level graph
 * (whose symbol table names the same files). */
static struct file_state *same_file(struct anno *a, const struct sp_srcfile *sf)
{
	const struct sp_symtab *t = a->cg->symtab;
	size_t k;

	for (k = 0; k < t->nfiles; k++)
		if (!strcmp(t->files[k]->name, sf->name))
			return &a->files[t->files[k]->id];
	return NULL;
}

static void line_ticks(struct anno *a)
{
	const struct sp_cg *lc = a->o->line_cg;
	size_t i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < lc->nsyms; i++) {
			const struct sp_symbol *s = lc->nodes[i].sym;
			struct file_state *f;

			if (!s->file || !s->line || lc->nodes[i].time <= 0 ||
			    !(f = same_file(a, s->file)) || !f->num_lines)
				continue;
			if (pass == 0) {
				if (s->line > f->num_lines)
					f->num_lines = s->line;
				continue;
			}
			if (!f->ticks)
				f->ticks = sp_xcalloc((size_t)f->num_lines, sizeof(double));
			f->ticks[s->line - 1] += lc->nodes[i].time;
		}
}

/* gprof's first two passes: the last line of each file, then line stats. */
static void collect(struct anno *a, const struct sp_symspecs *specs)
{
	const struct sp_cg *cg = a->cg;
	const struct sp_symtab *t = cg->symtab;
	size_t i;

	a->files = sp_xcalloc(t->nfiles + 1, sizeof(*a->files));
	a->pool = sp_xcalloc(2 * cg->nsyms + 1, sizeof(*a->pool));
	for (i = 0; i < cg->nsyms; i++) {
		const struct sp_symbol *s = cg->nodes[i].sym;

		if (s->file && s->line > a->files[s->file->id].num_lines &&
		    selected(specs, s->addr))
			a->files[s->file->id].num_lines = s->line;
	}
	if (a->o->line_cg)
		line_ticks(a);
	for (i = 0; i < t->nfiles; i++)
		if (a->files[i].num_lines > 0)
			a->files[i].line = sp_xcalloc((size_t)a->files[i].num_lines,
						      sizeof(struct line_stat *));
	for (i = 0; i < cg->nsyms; i++) {
		const struct sp_cg_node *n = &cg->nodes[i];
		const struct sp_symbol *s = n->sym;
		struct file_state *f;
		struct line_stat **slot;

		if (!s->file || !(f = &a->files[s->file->id])->num_lines ||
		    !selected(specs, s->addr))
			continue;
		f->ncalls += n->ncalls;
		slot = &f->line[s->line - 1];
		if (!*slot) {
			struct line_stat *ls = &a->pool[a->npool++];

			ls->node = n;
			ls->addr = s->addr;
			ls->ncalls = n->ncalls;
			ls->line = s->line;
			*slot = ls;
		} else if (!(*slot)->addr) {
			(*slot)->ncalls += n->ncalls;
		} else {
			struct line_stat *ls = &a->pool[a->npool++];

			*ls = **slot;
			ls->addr = 0;
			ls->ncalls += n->ncalls;
			*slot = ls;
		}
	}
}

/* The basic blocks of a line's symbol (gprof's bb_addr/bb_calls). */
static size_t blocks(const struct anno *a, const struct line_stat *b, const struct sp_cg_bb **bbs)
{
	*bbs = b->node->nbbs ? &a->cg->bbs[b->node->bb_first] : NULL;
	return b->node->nbbs < NBBS ? b->node->nbbs : NBBS;
}

/* --precise: "seconds  percent  +/-error " before the count column. */
static void time_columns(const struct anno *a, const struct file_state *f, int line_num, char *out)
{
	const struct sp_cg *lc = a->o->line_cg;
	double t = f->ticks && line_num <= f->num_lines ? f->ticks[line_num - 1] : 0;
	double total = lc->total_time > 0 ? lc->total_time : 1;
	char tmp[64];

	if (t <= 0)
		return;
	snprintf(tmp, sizeof(tmp), "%7.2f %6.2f%% %6.2f", t / lc->hz, 100 * t / total,
		 sqrt(t) / lc->hz);
	memcpy(out, tmp, strlen(tmp));
}

/* gprof's annotate_with_count(): the 16-column prefix of one line. */
static void annotation(struct anno *a, const struct file_state *f, int line_num, char *out)
{
	const struct line_stat *b = line_num <= f->num_lines ? f->line[line_num - 1] : NULL;
	unsigned long last_print = (unsigned long)-1, ncalls = 0;
	const struct sp_cg_bb *bbs;
	struct sp_buf p = SP_BUF_INIT;
	int ncalls_set = 0;
	size_t i, nb, len;

	memset(out, ' ', (size_t)a->width);
	out[a->width] = '\0';
	if (a->o->line_cg)
		time_columns(a, f, line_num, out);
	out += a->width - WIDTH;
	if (!b)
		return;
	a->executable_lines++;
	nb = blocks(a, b, &bbs);
	if (b->node->sym->is_func) {
		sp_buf_addf(&p, "%lu", (unsigned long)b->ncalls);
		a->last_count = b->ncalls;
		last_print = a->last_count;
		ncalls = b->ncalls;
		ncalls_set = 1;
	} else if (a->o->all_lines && nb && bbs[0].addr > b->addr) {
		sp_buf_addf(&p, "%lu", a->last_count);
		last_print = a->last_count;
		ncalls = a->last_count;
		ncalls_set = 1;
	}
	for (i = 0; i < nb && bbs[i].addr; i++) {
		a->last_count = bbs[i].count;
		if (!ncalls_set) {
			ncalls = 0;
			ncalls_set = 1;
		}
		ncalls += a->last_count;
		if (a->o->all_lines && a->last_count == last_print)
			continue;
		if (p.len)
			sp_buf_addch(&p, ',');
		sp_buf_addf(&p, "%lu", a->last_count);
		last_print = a->last_count;
	}
	if (a->o->all_lines && !p.len) {
		sp_buf_addf(&p, "%lu", a->last_count);
		ncalls = a->last_count;
		ncalls_set = 1;
	}
	if (!ncalls_set) {
		sp_buf_release(&p);
		return;
	}
	if (!a->o->line_cg || ncalls >= a->o->min_count)
		a->lines_executed++;
	if (ncalls < a->o->min_count) {
		sp_buf_reset(&p);
		sp_buf_addstr(&p, "#####");
	}
	sp_buf_addstr(&p, " -> ");
	len = p.len;
	if (len >= WIDTH)
		memcpy(out, p.buf, WIDTH);
	else
		memcpy(out + WIDTH - len, p.buf, len);
	sp_buf_release(&p);
}

/*
 * gprof's search (source.c annotate_source): the name as given; then, for a
 * relative name, each directory + "/" + name; then, if the name has a '/',
 * each directory + "/" + its basename.
 */
static FILE *open_source(const struct anno *a, const char *name)
{
	const char *only = NULL;
	struct sp_buf path = SP_BUF_INIT;
	size_t d = 0, ndirs = a->o->ndirs;
	int in_dirs = name[0] != '/' && ndirs > 0;
	FILE *in = fopen(name, "rb");

	while (!in) {
		if (!in_dirs && !only && (only = strrchr(name, '/'))) {
			only++;
			d = 0;
			in_dirs = ndirs > 0;
		}
		if (!in_dirs)
			break;
		sp_buf_reset(&path);
		sp_buf_addf(&path, "%s/%s", a->o->dirs[d++], only ? only : name);
		if (d >= ndirs)
			in_dirs = 0;
		in = fopen(path.buf, "rb");
	}
	sp_buf_release(&path);
	return in;
}

static FILE *open_output(struct anno *a, FILE *out, const char *name, int *first_output)
{
	if (a->o->separate_files) {
		const char *slash = strrchr(name, '/');
		struct sp_buf path = SP_BUF_INIT;
		FILE *f;

		sp_buf_addf(&path, "%s-ann", slash ? slash + 1 : name);
		f = fopen(path.buf, "w");
		if (!f)
			sp_warn(a->o->warn, "cannot write '%s': %s", path.buf, strerror(errno));
		sp_buf_release(&path);
		return f;
	}
	if (a->first_file)
		a->first_file = 0;
	else
		fputc('\n', out);
	if (*first_output)
		*first_output = 0;
	else
		fputs("\f\n", out);
	fprintf(out, "*** File %s:\n", name);
	if (a->o->line_cg)
		fprintf(out, "%7s %7s %6s %12s\n", "seconds", "time", "+/-", "count");
	return out;
}

static int list_file(struct anno *a, FILE *out, const struct sp_srcfile *sf,
		     const struct file_state *f, int *first_output, FILE **ofp)
{
	char prefix[64], buf[8192];
	FILE *in = open_source(a, sf->name);
	int line_num = 1, new_line = 1;
	size_t n, i;

	if (!in) {
		sp_warn(a->o->warn, "could not locate '%s'", sf->name);
		return -1;
	}
	*ofp = open_output(a, out, sf->name, first_output);
	if (!*ofp) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		for (i = 0; i < n; i++) {
			if (new_line) {
				annotation(a, f, line_num++, prefix);
				fputs(prefix, *ofp);
			}
			new_line = buf[i] == '\n';
			fputc(buf[i], *ofp);
		}
	}
	fclose(in);
	return 0;
}

/* gprof's cmp_ncalls(): most executed first, then by line; empty last. */
static int cmp_ncalls(const void *pa, const void *pb, void *ctx)
{
	const struct line_stat *l = *(const struct line_stat *const *)pa;
	const struct line_stat *r = *(const struct line_stat *const *)pb;

	(void)ctx;
	if (!l)
		return 1;
	if (!r)
		return -1;
	if (l->ncalls < r->ncalls)
		return 1;
	if (l->ncalls > r->ncalls)
		return -1;
	return l->line - r->line;
}

static void summary(struct anno *a, FILE *ofp, struct file_state *f)
{
	int i, table_len = a->o->table_length;

	if (table_len > 0) {
		fprintf(ofp, "\n\nTop %d Lines:\n\n     Line      Count\n\n", table_len);
		sp_sort(f->line, (size_t)f->num_lines, sizeof(f->line[0]), cmp_ncalls, NULL);
		if (table_len > f->num_lines)
			table_len = f->num_lines;
		for (i = 0; i < table_len; i++) {
			const struct line_stat *s = f->line[i];

			if (!s || s->ncalls == 0)
				break;
			fprintf(ofp, "%9d %10lu\n", s->line, (unsigned long)s->ncalls);
		}
	}
	fputs("\nExecution Summary:\n\n", ofp);
	fprintf(ofp, "%9ld   Executable lines in this file\n", a->executable_lines);
	fprintf(ofp, "%9ld   Lines executed\n", a->lines_executed);
	fprintf(ofp, "%9.2f   Percent of the file executed\n",
		a->executable_lines ? 100.0 * a->lines_executed / (double)a->executable_lines
				    : 100.0);
	fprintf(ofp, "\n%9lu   Total number of line executions\n", (unsigned long)f->ncalls);
	fprintf(ofp, "%9.2f   Average executions per line\n",
		a->executable_lines ? (double)f->ncalls / (double)a->executable_lines : 0.0);
}

void sp_annotate_gprof(FILE *out, const struct sp_cg *cg, const struct sp_symspecs *specs,
		       const struct sp_annotate_opts *o, int *first_output)
{
	const struct sp_symtab *t = cg->symtab;
	struct anno a;
	size_t i;

	memset(&a, 0, sizeof(a));
	a.cg = cg;
	a.o = o;
	a.first_file = 1;
	a.width = o->line_cg ? WIDTH + 22 : WIDTH;
	collect(&a, specs);
	for (i = t->nfiles; i > 0; i--) {
		const struct sp_srcfile *sf = t->files[i - 1];
		struct file_state *f = &a.files[sf->id];
		FILE *ofp = NULL;

		if (!f->num_lines || (o->ignore_zeros && f->ncalls == 0 && !f->ticks))
			continue;
		a.executable_lines = a.lines_executed = 0;
		if (list_file(&a, out, sf, f, first_output, &ofp) < 0)
			continue;
		summary(&a, ofp, f);
		if (ofp != out)
			fclose(ofp);
	}
	for (i = 0; i < t->nfiles; i++) {
		free(a.files[i].line);
		free(a.files[i].ticks);
	}
	free(a.files);
	free(a.pool);
}
