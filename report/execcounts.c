/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's execution counts (-C; basic_blocks.c print_exec_counts; gprof.md
 * 2.6): "file:line: (name:0xaddr) N executions" per symbol, sorted by file,
 * line and address, then one line per basic block recorded for it.
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

static int cmp_bb(const void *a, const void *b, void *ctx)
{
	const struct sp_cg *cg = ctx;
	const struct sp_symbol *l = cg->nodes[*(const unsigned *)a].sym;
	const struct sp_symbol *r = cg->nodes[*(const unsigned *)b].sym;

	if (l->file && r->file) {
		int c = strcmp(l->file->name, r->file->name);

		if (c)
			return c;
		if (l->line != r->line)
			return l->line - r->line;
	}
	return (l->addr > r->addr) - (l->addr < r->addr);
}

void sp_report_exec_counts(struct sp_report *r, const struct sp_symspecs *specs)
{
	const struct sp_cg *cg = r->cg;
	unsigned *sorted = sp_xmalloc((cg->nsyms + 1) * sizeof(*sorted));
	size_t i, len = 0;
	uint32_t b;

	if (r->first_output)
		r->first_output = 0;
	else
		fputs("\f\n", sp_report_out(r));
	for (i = 0; i < cg->nsyms; i++)
		if (sp_symspecs_selects(specs, SP_INCL_EXEC, cg->nodes[i].sym->addr))
			sorted[len++] = (unsigned)i;
	sp_sort(sorted, len, sizeof(*sorted), cmp_bb, (void *)cg);
	for (i = 0; i < len; i++) {
		const struct sp_cg_node *n = &cg->nodes[sorted[i]];
		const struct sp_symbol *s = n->sym;
		const char *file = s->file ? s->file->name : "<unknown>";

		if (n->ncalls > 0 || !r->o->ignore_zeros)
			fprintf(sp_report_out(r), "%s:%d: (%s:0x%lx) %lu executions\n", file,
				s->line, s->name, (unsigned long)s->addr, (unsigned long)n->ncalls);
		for (b = 0; b < n->nbbs; b++) {
			const struct sp_cg_bb *bb = &cg->bbs[n->bb_first + b];

			if (bb->count > 0 || !r->o->ignore_zeros)
				fprintf(sp_report_out(r), "%s:%d: (%s:0x%lx) %lu executions\n",
					file, s->line, s->name, (unsigned long)bb->addr,
					(unsigned long)bb->count);
		}
	}
	free(sorted);
}
