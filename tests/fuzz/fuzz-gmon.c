/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target: a gmon.out file read (as 64-bit or 32-bit, little or big
 * endian, per the first byte), then -- if it parses -- assembled into a
 * call graph over a real symbol table and printed in every text layout.
 * The symbol table comes from SP_FUZZ_EXE (default: the fixture program),
 * loaded once; with -l (a bit of the size), its line symbols' table, and
 * another bit takes the path of gprof's text without -z: a copy of that
 * table without the lines the profile does not reach (cli/cmd-gmon.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/cg.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sp_symtab *fuzz_symtab(int line)
{
	static struct sp_symtab *t[2];
	static int tried[2];

	if (!tried[line]) {
		const char *exe = getenv("SP_FUZZ_EXE");
		struct sp_gprof_symopts so;
		struct sp_image *im;

		tried[line] = 1;
		if (!exe)
			exe = SP_FUZZ_DEFAULT_EXE;
		memset(&so, 0, sizeof(so));
		so.line_granularity = line;
		im = sp_image_open(exe, NULL, NULL);
		if (im) {
			t[line] = sp_image_gprof_symtab(im, &so, NULL);
			sp_image_free(im);
		}
	}
	return t[line];
}

/* A copy of t's symbols (names and files still t's) compacted to those
 * the profile reaches, and what numbering them needs (in co->dropped). */
static struct sp_symtab *without_unused(const struct sp_profile *p, const struct sp_symtab *t,
					struct sp_cg_gmon_opts *co, struct sp_cg_dropped *d)
{
	struct sp_symtab *c = sp_symtab_new();

	sp_symtab_reserve(c, t->len + 1);
	memcpy(c->syms, t->syms, t->len * sizeof(*t->syms));
	c->len = t->len;
	c->text_end = t->text_end;
	sp_symtab_finalize_sorted(c);
	sp_cg_gmon_drop_unused(p, c, co, d);
	return c;
}

static void render(struct sp_cg *cg, int bsd)
{
	static FILE *null;
	struct sp_report_opts ro;
	struct sp_report r;

	if (!null)
		null = fopen("/dev/null", "w");
	memset(&ro, 0, sizeof(ro));
	ro.bsd = bsd;
	ro.demangle = 1;
	ro.ignore_zeros = 1;
	ro.width = 80;
	sp_report_init(&r, null, cg, &ro);
	sp_report_flat(&r);
	if (cg->have_arcs) {
		sp_report_graph(&r);
		sp_report_index(&r);
	}
	sp_report_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	struct sp_gmon_state st;
	struct sp_gmon_read_opts o;
	struct sp_symtab *t = fuzz_symtab((size & 4) != 0), *part = NULL;
	struct sp_cg_dropped dropped = {NULL, 0};
	struct sp_error err = SP_ERROR_INIT;

	memset(&st, 0, sizeof(st));
	memset(&o, 0, sizeof(o));
	o.target.ptr_size = size && (data[size - 1] & 1) ? 4 : 8;
	o.target.big_endian = size && (data[size - 1] & 2);
	o.bsd_hz = 100;
	if (sp_fmt_gmon_read_mem(p, &st, "fuzz", data, size, &o, &err) == 0 && t) {
		struct sp_cg_gmon_opts co;
		struct sp_symspecs *specs = sp_symspecs_new();
		struct sp_cg *cg;

		sp_symspecs_resolve(specs, t, NULL);
		memset(&co, 0, sizeof(co));
		co.specs = specs;
		co.hz = st.hz;
		co.hist_scale = st.hist_scale;
		co.have_hist = (st.input_flags & SP_GMON_INPUT_HISTOGRAM) != 0;
		co.have_arcs = (st.input_flags & SP_GMON_INPUT_CALL_GRAPH) != 0;
		co.line_granularity = (size & 4) != 0;
		if (co.line_granularity && (size & 16) && t->len)
			part = without_unused(p, t, &co, &dropped);
		cg = sp_cg_from_gmon(p, part ? part : t, &co, NULL);
		if (cg) {
			render(cg, (int)(size & 8));
			sp_cg_free(cg);
		}
		sp_cg_dropped_release(&dropped);
		sp_symtab_free(part);
		sp_symspecs_free(specs);
	} else if (err.code == 0 && !t) {
		/* parsed but nothing to assemble against */
	}
	sp_profile_free(p);
	return 0;
}
