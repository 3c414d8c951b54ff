/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Printing names as gprof does (utils.c print_name_only/print_name):
 * demangled unless -T or --no-demangle, followed with -l or
 * --inline-file-names by " (file:line)" (" (file:line @ addr)" with -l),
 * and in the call graph by " <cycle N>" and " [index]" (or "(index)" for an
 * entry that is not printed). Demangled names are computed once per symbol.
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/symbolize.h"

void sp_report_init(struct sp_report *r, FILE *out, const struct sp_cg *cg,
		    const struct sp_report_opts *o)
{
	r->out = out;
	r->cg = cg;
	r->o = o;
	r->first_output = 1;
	r->demangled = sp_xcalloc(cg->nsyms + 1, sizeof(char *));
	r->name_len = sp_xcalloc(cg->nsyms + 1, sizeof(uint32_t));
	r->full = NULL;
	r->nfull = 0;
	sp_buf_init(&r->names, 0);
	sp_buf_init(&r->line, 256);
	memset(&r->sort_mem, 0, sizeof(r->sort_mem));
}

void sp_report_flush_line(struct sp_report *r)
{
	if (r->line.len)
		fwrite(r->line.buf, 1, r->line.len, r->out);
	sp_buf_reset(&r->line);
}

FILE *sp_report_out(struct sp_report *r)
{
	sp_report_flush_line(r);
	return r->out;
}

void sp_report_release(struct sp_report *r)
{
	size_t i;

	sp_report_flush_line(r);
	sp_cg_sort_mem_release(&r->sort_mem);
	free(r->full);
	r->full = NULL;
	r->nfull = 0;
	sp_buf_release(&r->names);
	for (i = 0; i < r->cg->nsyms && !r->o->demangled; i++)
		if (r->demangled[i] && r->demangled[i] != r->cg->nodes[i].sym->name)
			free(r->demangled[i]);
	free(r->demangled);
	free(r->name_len);
	r->demangled = NULL;
	sp_buf_release(&r->line);
}

const char *sp_report_display_name(struct sp_report *r, unsigned node, size_t *len)
{
	const struct sp_symbol *s = r->cg->nodes[node].sym;
	size_t dummy;
	char *d;

	if (!len)
		len = &dummy;
	if (node >= r->cg->nsyms) {
		*len = s && s->name ? strlen(s->name) : 0;
		return s && s->name ? s->name : "";
	}
	if (!r->demangled[node]) {
		if (r->o->bsd || !r->o->demangle)
			d = NULL;
		else if (r->o->demangled)
			d = (char *)sp_demangle_batch_get(r->o->demangled, node); /* borrowed */
		else
			d = sp_demangle(s->name, r->o->leading_char);
		r->demangled[node] = d ? d : (char *)s->name;
		r->name_len[node] = (uint32_t)strlen(r->demangled[node]);
	}
	*len = r->name_len[node];
	return r->demangled[node];
}

static const char *file_label(const struct sp_report *r, const char *path)
{
	const char *slash;

	if (r->o->print_path)
		return path;
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* print_name_only() appended to b; returns the width appended. */
static int name_only_to(struct sp_report *r, struct sp_buf *b, unsigned node)
{
	const struct sp_symbol *s = r->cg->nodes[node].sym;
	const char *name;
	size_t len, before;
	char num[24];

	if (!s || !s->name)
		return 0;
	name = sp_report_display_name(r, node, &len);
	before = b->len;
	sp_buf_add(b, name, len);
	if ((r->o->line_granularity || r->o->inline_file_names) && s->file) {
		sp_buf_add(b, " (", 2);
		sp_buf_addstr(b, file_label(r, s->file->name));
		sp_buf_addch(b, ':');
		if (s->line >= 0)
			sp_buf_add(b, num, sp_num_utoa(num, (unsigned long long)s->line));
		else
			sp_buf_addf(b, "%d", s->line);
		if (r->o->line_granularity) {
			sp_buf_add(b, " @ ", 3);
			sp_buf_add(b, num, sp_num_xtoa(num, (unsigned long)s->addr));
		}
		sp_buf_addch(b, ')');
	}
	return (int)(b->len - before);
}

int sp_report_name_only(struct sp_report *r, unsigned node)
{
	return name_only_to(r, &r->line, node);
}

/* "%d" of v at p; returns the end. */
static char *at_int(char *p, int v)
{
	if (v < 0) {
		*p++ = '-';
		return p + sp_num_utoa(p, (uint64_t) - (int64_t)v);
	}
	return p + sp_num_utoa(p, (uint64_t)v);
}

/* print_name() appended to b: the name, " <cycle N>", " [index]". */
static void name_uncached(struct sp_report *r, struct sp_buf *b, unsigned node)
{
	const struct sp_cg_node *n = &r->cg->nodes[node];
	char *p;

	name_only_to(r, b, node);
	p = sp_num_line_begin(b, 64);
	if (n->cycle != 0) {
		memcpy(p, " <cycle ", 8);
		p = at_int(p + 8, n->cycle);
		*p++ = '>';
	}
	if (n->index != 0) {
		memcpy(p, n->print_flag ? " [" : " (", 2);
		p = at_int(p + 2, n->index);
		*p++ = n->print_flag ? ']' : ')';
	}
	sp_num_line_end(b, p);
}

/*
 * A call graph prints each name about as often as the node has arcs: the
 * text is made once per node, and remade if its index or cycle changed.
 * The texts share one buffer, so that a report makes no allocation per
 * name and frees them at once.
 */
const char *sp_report_name_text(struct sp_report *r, unsigned node, size_t *len)
{
	const struct sp_cg_node *n = &r->cg->nodes[node];
	struct sp_report_full_name *f;

	if (node >= r->nfull) {
		size_t want = (size_t)node + 1 > r->cg->nnodes + r->cg->npseudo
				      ? (size_t)node + 1
				      : r->cg->nnodes + r->cg->npseudo;

		r->full = sp_xreallocarray(r->full, want, sizeof(*r->full));
		memset(r->full + r->nfull, 0, (want - r->nfull) * sizeof(*r->full));
		r->nfull = want;
	}
	f = &r->full[node];
	if (!sp_report_full_name_fresh(f, n->index, n->cycle, n->print_flag)) {
		f->off = r->names.len;
		name_uncached(r, &r->names, node);
		f->len = r->names.len - f->off;
		f->index = n->index;
		f->cycle = n->cycle;
		f->print_flag = n->print_flag;
	}
	*len = f->len;
	return r->names.buf + f->off;
}

void sp_report_name(struct sp_report *r, unsigned node)
{
	size_t len;
	const char *text = sp_report_name_text(r, node, &len);

	sp_buf_add(&r->line, text, len);
}
