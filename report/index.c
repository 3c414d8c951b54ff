/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's index by function name (cg_print_index; gprof.md 2.3): names in
 * strcmp order (raw names, not demangled), cycles after them, laid out
 * column-major in three columns of (width - 1) / 3; static functions carry
 * their source file. The BSD layout truncates each cell to 19 characters.
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

/* Stack profiles with -l: one name at several lines sorts by its place. */
static int cmp_stack_name(const void *a, const void *b, void *ctx)
{
	const struct sp_cg *cg = ctx;
	const struct sp_symbol *x = cg->nodes[*(const unsigned *)a].sym;
	const struct sp_symbol *y = cg->nodes[*(const unsigned *)b].sym;
	int c = strcmp(x->name, y->name);

	if (c || !cg->stack_based || !x->file || !y->file)
		return c;
	if ((c = strcmp(x->file->name, y->file->name)))
		return c;
	return (x->line > y->line) - (x->line < y->line);
}

/* The BSD layout: "%6.6s %-19.19s" cells, raw names. */
static void print_bsd_cell(struct sp_report *r, unsigned node, int is_name)
{
	const struct sp_cg_node *n = &r->cg->nodes[node];
	char buf[32], cyc[32];

	snprintf(buf, sizeof(buf), n->print_flag ? "[%d]" : "(%d)", n->index);
	if (is_name) {
		sp_buf_addf(&r->line, "%6.6s %-19.19s", buf, n->sym->name);
		return;
	}
	sp_buf_addf(&r->line, "%6.6s ", buf);
	snprintf(cyc, sizeof(cyc), "<cycle %d>", n->cycle);
	sp_buf_addf(&r->line, "%-19.19s", cyc);
}

void sp_report_index(struct sp_report *r)
{
	const struct sp_cg *cg = r->cg;
	unsigned *names = sp_xmalloc((cg->nnodes + 1) * sizeof(*names));
	size_t i, j, nnames = 0, todo, rows;
	int column_width = (r->o->width - 1) / 3;

	for (i = 0; i < cg->nsyms; i++) {
		if (cg->nodes[i].folded ||
		    (r->o->ignore_zeros && cg->nodes[i].ncalls == 0 && cg->nodes[i].time == 0 &&
		     !(cg->stack_based && cg->nodes[i].prop_child != 0)))
			continue;
		names[nnames++] = (unsigned)i;
	}
	if (cg->stack_based)
		sp_sort(names, nnames, sizeof(*names), cmp_stack_name, (void *)cg);
	else
		sp_cg_sort_nodes(r->cg, names, nnames, SP_CG_ORDER_NAME);
	todo = nnames;
	for (i = cg->nsyms; i < cg->nnodes; i++)
		names[todo++] = (unsigned)i;
	fputs("\f\nIndex by function name\n\n", sp_report_out(r));
	rows = (todo + 2) / 3;
	for (i = 0; i < rows; i++) {
		int col = 0, starting_col = 0;

		for (j = i; j < todo; j += rows) {
			const struct sp_cg_node *n = &cg->nodes[names[j]];
			char buf[32];

			if (r->o->bsd) {
				print_bsd_cell(r, names[j], j < nnames);
				starting_col += column_width;
				continue;
			}
			if (n->index >= 0) {
				size_t len = 0;

				buf[len++] = n->print_flag ? '[' : '(';
				len += sp_num_utoa(buf + len, (unsigned long long)n->index);
				buf[len++] = n->print_flag ? ']' : ')';
				buf[len] = '\0';
			} else {
				snprintf(buf, sizeof(buf), n->print_flag ? "[%d]" : "(%d)",
					 n->index);
			}
			col += (int)strlen(buf);
			if (col < starting_col + 5) {
				sp_buf_addchars(&r->line, ' ', (size_t)(starting_col + 5 - col));
				col = starting_col + 5;
			}
			sp_buf_addch(&r->line, ' ');
			sp_buf_addstr(&r->line, buf);
			sp_buf_addch(&r->line, ' ');
			if (j < nnames) {
				col += sp_report_name_only(r, names[j]);
				if (!r->o->line_granularity && n->sym->is_static && n->sym->file) {
					const char *f = n->sym->file->name, *slash;

					if (!r->o->print_path && (slash = strrchr(f, '/')))
						f = slash + 1;
					size_t flen = strlen(f);

					sp_buf_add(&r->line, " (", 2);
					sp_buf_add(&r->line, f, flen);
					sp_buf_addch(&r->line, ')');
					col += (int)flen + 3;
				}
			} else {
				size_t before = r->line.len;

				sp_buf_addf(&r->line, "<cycle %d>", n->cycle);
				col += (int)(r->line.len - before);
			}
			starting_col += column_width;
		}
		sp_buf_addch(&r->line, '\n');
		sp_report_end_line(r);
	}
	sp_report_flush_line(r);
	free(names);
}
