/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The gmon.out pipeline's work done ahead (gmon.h): each piece starts on
 * a worker (symprof/worker.h) as soon as what it reads is ready, and the
 * pipeline takes its result where it would have done the work itself,
 * which it does when no worker started. None starts when the work prints
 * as it goes (--debug, -i) or progress lines show.
 */
#include "gmon.h"

#include <stdlib.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"
#include "symprof/worker.h"

/* The profiles read on a worker while the symbols load. */
struct gmon_early {
	struct gmon_run *g;
	struct sp_gmon_read_opts ro;
	struct sp_worker *worker;
	int failed; /* err says why */
	struct sp_error err;
};

/* Only gprof's text reports of the one function view: the outputs the
 * work done ahead on other threads is for (names, files). */
static int plain_text(const struct sp_opts *o)
{
	return !o->line && !o->precise && o->out_format == SP_OUT_TEXT && !o->diff && !o->html;
}

/*
 * gprof's text demangles every name it prints; for a C++ program that is a
 * fifth of the work. Started once the symbols are known, the demangling
 * runs on a worker while the profile is read and the graph built.
 * Only for the text reports of one function view (-l has a symbol per
 * line, --precise other views).
 */
void sp_cli_gmon_demangle_ahead(struct gmon_run *g)
{
	const struct sp_opts *o = g->o;
	const struct sp_symtab *t = g->v.symtab;
	const char **names;
	size_t i;

	if (!o->demangle || o->bsd || !plain_text(o) || !t || !t->len)
		return;
	names = sp_xreallocarray(NULL, t->len, sizeof(*names));
	for (i = 0; i < t->len; i++)
		names[i] = t->syms[i].name;
	g->names = sp_demangle_batch_start(names, t->len, sp_image_target(g->im)->leading_char);
	free(names);
}

static void early_main(void *job)
{
	struct gmon_early *e = job;
	struct gmon_run *g = e->g;
	size_t i;

	for (i = 0; i < g->o->nprofiles && !e->failed; i++)
		if (sp_fmt_gmon_read(g->prof, &g->st, g->o->profiles[i], &e->ro, &e->err) < 0)
			e->failed = 1;
}

/*
 * Reading the profiles needs of the executable only its word size and
 * byte order, known once it is open, and the line thread starts only when
 * the symbols are known: so a worker reads the profiles while the pipeline
 * builds the symbol table, and its read_profiles() takes what it read,
 * reporting an error where it would without it (after the symbols' own).
 * Not when the reading prints (-i, debugging) or progress lines show.
 */
void sp_cli_gmon_read_ahead(struct gmon_run *g, const struct sp_gmon_read_opts *ro)
{
	const struct sp_opts *o = g->o;
	struct gmon_early *e;

	if (o->file_format == SP_GMON_PROF || (o->output_style & STYLE_GMON_INFO) || o->debug ||
	    sp_cli_progress_hook())
		return;
	e = sp_xcalloc(1, sizeof(*e));
	e->g = g;
	e->err = (struct sp_error)SP_ERROR_INIT;
	e->ro = *ro;
	g->prof = sp_profile_new(SP_PROFILE_GMON);
	e->worker = sp_worker_start(early_main, e);
	if (!e->worker) {
		free(e);
		sp_profile_free(g->prof);
		g->prof = NULL;
		return;
	}
	g->early = e;
}

int sp_cli_gmon_read_ahead_join(struct gmon_run *g)
{
	struct gmon_early *e = g->early;
	int failed;

	sp_worker_join(e->worker);
	failed = e->failed;
	if (failed)
		sp_cli_error("%s", e->err.msg);
	free(e);
	g->early = NULL;
	return failed;
}

static void files_main(void *job)
{
	struct gmon_run *g = job;

	if (g->static_files)
		sp_image_symtab_static_files(g->im, g->v.symtab);
	else
		sp_image_symtab_files(g->im, g->v.symtab);
}

/*
 * The text reports of one function view ask for the symbols' files only
 * in the index, after the call graph. A worker finds them while the
 * graph is built (it waits for the line table first), and
 * sp_cli_gmon_load_files() takes them. Meanwhile the pipeline reads the symbol table but none of
 * what that sets (the symbols' file and line, the table's files and
 * their names), and asks the image for no lines. Debugging output, the
 * other views, -c and the other outputs keep the plain order.
 */
void sp_cli_gmon_files_ahead(struct gmon_run *g, int files_wanted)
{
	const struct sp_opts *o = g->o;

	if (g->files_loaded || !g->v.symtab || !g->v.symtab->npending || g->fv.symtab ||
	    g->lv.symtab || !plain_text(o) || o->static_cg || o->debug || !files_wanted)
		return;
	g->files_worker = sp_worker_start(files_main, g);
}

/*
 * Source files of the symbols (deferred while the symbol table was built,
 * see sp_gprof_symopts.defer_files). The flat profile and the call graph
 * print them only with -l or --inline-file-names; the index prints those of
 * static functions. Loading them as late as possible leaves the line table,
 * built on another thread, time to finish while those reports are printed.
 */
void sp_cli_gmon_load_files(struct gmon_run *g)
{
	if (g->files_loaded)
		return;
	sp_cli_progress("loading DWARF line tables of %s", g->o->image);
	if (g->files_worker) {
		sp_worker_join(g->files_worker);
		g->files_worker = NULL;
	} else if (g->static_files) {
		sp_image_symtab_static_files(g->im, g->v.symtab);
	} else {
		sp_image_symtab_files(g->im, g->v.symtab);
	}
	if (g->fv.symtab)
		sp_image_symtab_files(g->im, g->fv.symtab);
	sp_cli_mark("source lines");
	g->files_loaded = 1;
	sp_cli_progress("writing the report");
}

void sp_cli_gmon_ahead_stop(struct gmon_run *g)
{
	if (g->early) /* the symbols failed: what it read is not reported */
		sp_worker_join(g->early->worker);
	free(g->early);
	g->early = NULL;
	sp_worker_join(g->files_worker);
	g->files_worker = NULL;
	sp_demangle_batch_free(g->names); /* before the symbols: its worker reads their names */
	g->names = NULL;
}
