/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The outputs every input format shares. A pipeline (cmd-gmon.c, and the
 * stack formats' pipelines) reads its files, builds a struct sp_cg and
 * hands it over in a struct sp_cli_model; this file writes what --format,
 * --html and --diff ask for:
 *
 *   --format=json        report/json.c (with --diff: report/diff.c)
 *   --format=dot         report/dot.c
 *   --format=flamegraph  report/flame-svg.c, from the model's exact stacks
 *   --format=folded      or, for gmon.out, estimated from the call graph
 *   --format=speedscope  report/speedscope.c, from the same flame graph
 *   --format=proto       report/proto.c, the graph's self times and arcs
 *                        (the stack formats write theirs from the stacks)
 *   --format=text        with --diff: the flat profile of differences
 *   --html=FILE          report/html.c, written beside the above
 *
 * With --diff=BASE the base is loaded by o->load_base, with the pipeline of
 * its own format (cli/formats.c: it only has to be a profile of the same
 * program that measures the same thing), and the two graphs are matched
 * by function name.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/flame.h"
#include "symprof/report.h"

int sp_cli_renders(const struct sp_opts *o)
{
	return o->out_format != SP_OUT_TEXT || o->diff || o->html;
}

/* Whether the --format output goes to out: always, except that --html
 * alone replaces the text (the pipeline prints gprof's text itself). */
static int wants_format(const struct sp_opts *o)
{
	if (o->out_format == SP_OUT_TEXT)
		return o->diff != NULL;
	return !o->html || o->format_given;
}

static void model_release(struct sp_cli_model *m)
{
	if (m->release)
		m->release(m->owner);
	m->release = NULL;
	m->owner = NULL;
}

/* The flame graph of the model: its exact stacks, or the estimate. */
static struct sp_flame *model_flame(struct sp_cli_model *m, struct sp_report *r, int *own)
{
	*own = m->flame == NULL;
	if (m->flame)
		return (struct sp_flame *)m->flame;
	return sp_flame_from_cg(r, m->meta.executable);
}

static void render_flame(struct sp_opts *o, struct sp_cli_model *m, struct sp_report *r, FILE *out)
{
	int own;
	struct sp_flame *fl = model_flame(m, r, &own);

	if (o->out_format == SP_OUT_FOLDED)
		sp_flame_write_folded(fl, out);
	else if (o->out_format == SP_OUT_SPEEDSCOPE)
		sp_flame_write_speedscope(fl, out);
	else
		sp_flame_write_svg(fl, out, NULL);
	if (own)
		sp_flame_free(fl);
}

static void render_format(struct sp_opts *o, struct sp_cli_model *m, struct sp_report *r,
			  const struct sp_diff *diff, FILE *out)
{
	struct sp_dot_opts dopts = {o->node_threshold, o->edge_threshold};

	switch (o->out_format) {
	case SP_OUT_JSON:
		if (diff)
			sp_diff_write_json(diff, out);
		else if (m->json)
			m->json(r, &m->meta);
		else
			sp_report_json(r, &m->meta);
		break;
	case SP_OUT_DOT:
		sp_report_dot(r, &m->meta, &dopts);
		break;
	case SP_OUT_FLAMEGRAPH:
	case SP_OUT_FOLDED:
	case SP_OUT_SPEEDSCOPE:
		render_flame(o, m, r, out);
		break;
	case SP_OUT_PROTO:
		sp_report_proto_cg(r, &m->meta, &m->proto);
		break;
	default:
		if (diff)
			sp_diff_write_text(diff, out);
		break;
	}
}

static int write_html(struct sp_opts *o, struct sp_cli_model *m, struct sp_report *r,
		      const struct sp_diff *diff)
{
	struct sp_html_opts ho;
	FILE *f = fopen(o->html, "w");
	int own, rc = 0;

	if (!f) {
		sp_cli_error("cannot write '%s': %s", o->html, strerror(errno));
		return 1;
	}
	memset(&ho, 0, sizeof(ho));
	ho.meta = &m->meta;
	ho.flame = model_flame(m, r, &own);
	ho.diff = diff;
	ho.sources = m->sources;
	ho.nsources = m->nsources;
	ho.plots = m->plots;
	ho.nplots = m->nplots;
	sp_report_html(r, &ho, f);
	if (own)
		sp_flame_free((struct sp_flame *)ho.flame);
	if (fclose(f) != 0) {
		sp_cli_error("cannot write '%s': %s", o->html, strerror(errno));
		rc = 1;
	}
	return rc;
}

int sp_cli_render(struct sp_opts *o, struct sp_cli_model *m, FILE *out)
{
	struct sp_cli_model base;
	struct sp_report r;
	struct sp_diff *diff = NULL;
	int rc = 0;

	memset(&base, 0, sizeof(base));
	if (o->diff) {
		rc = o->load_base(o, m, &base);
		if (rc) {
			model_release(&base);
			return rc;
		}
		diff = sp_diff_new(m->cg, &m->meta, base.cg, &base.meta, &m->ro);
	}
	sp_report_init(&r, out, m->cg, &m->ro);
	if (wants_format(o))
		render_format(o, m, &r, diff, out);
	if (o->html)
		rc = write_html(o, m, &r, diff);
	sp_report_release(&r);
	sp_diff_free(diff);
	model_release(&base);
	return rc;
}
