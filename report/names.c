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

#include "fmt.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/symbolize.h"

void sp_report_init(struct sp_report *r, FILE *out, struct sp_cg *cg,
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
}

void sp_report_flush_line(struct sp_report *r)
{
	if (r->line.len)
		fwrite(r->line.buf, 1, r->line.len, r->out);
	sp_buf_reset(&r->line);
}

void sp_report_end_line(struct sp_report *r)
{
	if (r->line.len >= 32768)
		sp_report_flush_line(r);
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
	free(r->full);
	r->full = NULL;
	r->nfull = 0;
	sp_buf_release(&r->names);
	for (i = 0; i < r->cg->nsyms; i++)
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
		d = (r->o->bsd || !r->o->demangle) ? NULL : sp_demangle(s->name, r->o->leading_char);
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

int sp_report_name_only(struct sp_report *r, unsigned node)
{
	const struct sp_symbol *s = r->cg->nodes[node].sym;
	const char *name;
	size_t len, before;
	char num[24];

	if (!s || !s->name)
		return 0;
	name = sp_report_display_name(r, node, &len);
	before = r->line.len;
	sp_buf_add(&r->line, name, len);
	if ((r->o->line_granularity || r->o->inline_file_names) && s->file) {
		sp_buf_add(&r->line, " (", 2);
		sp_buf_addstr(&r->line, file_label(r, s->file->name));
		sp_buf_addch(&r->line, ':');
		if (s->line >= 0)
			sp_buf_add(&r->line, num, sp_fmt_utoa(num, (unsigned long long)s->line));
		else
			sp_buf_addf(&r->line, "%d", s->line);
		if (r->o->line_granularity) {
			sp_buf_add(&r->line, " @ ", 3);
			sp_buf_add(&r->line, num, sp_fmt_xtoa(num, (unsigned long)s->addr));
		}
		sp_buf_addch(&r->line, ')');
	}
	return (int)(r->line.len - before);
}

static void name_uncached(struct sp_report *r, unsigned node)
{
	const struct sp_cg_node *n = &r->cg->nodes[node];

	sp_report_name_only(r, node);
	if (n->cycle != 0) {
		sp_buf_addstr(&r->line, " <cycle ");
		sp_fmt_put_long(&r->line, n->cycle);
		sp_buf_addch(&r->line, '>');
	}
	if (n->index != 0) {
		sp_buf_addstr(&r->line, n->print_flag ? " [" : " (");
		sp_fmt_put_long(&r->line, n->index);
		sp_buf_addch(&r->line, n->print_flag ? ']' : ')');
	}
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
	size_t before;

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
		/* made at the end of the line being built, then moved out of it */
		before = r->line.len;
		name_uncached(r, node);
		f->off = r->names.len;
		f->len = r->line.len - before;
		sp_buf_add(&r->names, r->line.buf + before, f->len);
		sp_buf_setlen(&r->line, before);
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
