/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof: entry point. Expands @FILE arguments, parses the options, looks
 * at the first profile to pick the pipeline for its format, and runs it.
 */
#include <stdlib.h>

#include "cli.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/mfile.h"

/* The format of the first profile; gmon.out when it cannot be read (the
 * gmon pipeline then reports the error as gprof would). */
static enum sp_input_format input_format(const struct sp_opts *o)
{
	struct sp_mfile f;
	enum sp_input_format fmt;

	if (o->input_format != SP_INPUT_UNKNOWN)
		return o->input_format;
	/* aprof reports have no image: the first file name is a report */
	if (o->image_given && sp_mfile_open(&f, o->image, NULL) == 0) {
		fmt = sp_fmt_detect(f.data, f.size);
		sp_mfile_close(&f);
		if (fmt == SP_INPUT_APROF)
			return fmt;
	}
	if (!o->nprofiles || sp_mfile_open(&f, o->profiles[0], NULL) < 0)
		return SP_INPUT_GMON;
	fmt = sp_fmt_detect(f.data, f.size);
	sp_mfile_close(&f);
	return fmt;
}

/* The aprof options make no sense for other formats. */
static const char *aprof_only_option(const struct sp_opts *o)
{
	if (o->routine)
		return "--routine";
	if (o->plot)
		return "--plot";
	if (o->rank_given)
		return "--rank";
	if (o->check)
		return "--check";
	return NULL;
}

static int run(struct sp_opts *o)
{
	enum sp_input_format fmt = input_format(o);

	if (fmt != SP_INPUT_APROF && aprof_only_option(o)) {
		sp_cli_error("%s is an option for aprof reports, and '%s' is a %s profile",
			     aprof_only_option(o), o->image_given ? o->image : o->profiles[0],
			     sp_fmt_name(fmt));
		return 2;
	}
	switch (fmt) {
	case SP_INPUT_GMON:
		return sp_cmd_gmon(o);
	case SP_INPUT_APROF:
		return sp_cmd_aprof(o);
	default:
		sp_cli_error("cannot read '%s': %s profiles are not supported yet", o->profiles[0],
			     sp_fmt_name(fmt));
		return 1;
	}
}

int main(int argc, char **argv)
{
	struct sp_opts o;
	int rc, i;

	sp_cli_expand_argv(&argc, &argv);
	rc = sp_cli_parse(&o, argc, argv);
	rc = rc == 0 ? run(&o) : 0;
	sp_cli_opts_release(&o);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return rc;
}
