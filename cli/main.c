/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof: entry point. Expands @FILE arguments, parses the options, looks
 * at the first profile to pick the pipeline for its format, and runs it.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/mfile.h"

static enum sp_input_format detect(const char *path)
{
	struct sp_mfile f;
	enum sp_input_format fmt;

	if (sp_mfile_open(&f, path, NULL) < 0)
		return SP_INPUT_UNKNOWN;
	fmt = sp_fmt_detect(f.data, f.size);
	sp_mfile_close(&f);
	return fmt;
}

/*
 * The format of the first profile; gmon.out when it cannot be read (the
 * gmon pipeline then reports the error as gprof would). A lone argument
 * that is a gperftools profile or an aprof report is the profile (a
 * gperftools profile's maps name the files; aprof reports have no image);
 * IgProf dumps name their binaries, so every argument is a dump.
 */
/* IgProf dumps name their binaries: every argument is a dump. */
static enum sp_input_format all_dumps(struct sp_opts *o)
{
	if (o->image_given) {
		if (o->profiles_defaulted)
			o->nprofiles = 0;
		memmove(o->profiles + 1, o->profiles, o->nprofiles * sizeof(*o->profiles));
		o->profiles[0] = o->image;
		o->nprofiles++;
		o->profiles_defaulted = 0;
		o->image = NULL;
		o->image_given = 0;
	}
	return SP_INPUT_IGPROF;
}

static enum sp_input_format input_format(struct sp_opts *o)
{
	enum sp_input_format fmt;

	if (o->input_format == SP_INPUT_IGPROF)
		return all_dumps(o);
	if (o->input_format != SP_INPUT_UNKNOWN)
		return o->input_format;
	if (o->image_given) {
		fmt = detect(o->image);
		if (fmt == SP_INPUT_APROF)
			return fmt;
		if (fmt == SP_INPUT_GPERF && o->profiles_defaulted) {
			o->profiles[0] = o->image;
			o->image = NULL;
			o->image_given = 0;
			return SP_INPUT_GPERF;
		}
		if (fmt == SP_INPUT_IGPROF)
			return all_dumps(o);
	}
	if (!o->nprofiles)
		return SP_INPUT_GMON;
	fmt = detect(o->profiles[0]);
	return fmt == SP_INPUT_UNKNOWN ? SP_INPUT_GMON : fmt;
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

/* The stack-profile outputs need exact stacks. */
static const char *stack_only_format(const struct sp_opts *o, enum sp_input_format fmt)
{
	if (o->out_format == SP_OUT_PPROF && fmt != SP_INPUT_GPERF)
		return "--format=pprof needs a gperftools profile";
	if (o->out_format == SP_OUT_CALLGRIND && fmt != SP_INPUT_GPERF && fmt != SP_INPUT_IGPROF)
		return "--format=callgrind needs a stack profile (gperftools, IgProf)";
	if (o->out_format == SP_OUT_IGPROF && fmt != SP_INPUT_IGPROF)
		return "--format=igprof needs IgProf dumps";
	return NULL;
}

/* The IgProf options make no sense for other formats. */
static const char *igprof_only_option(const struct sp_opts *o)
{
	if (o->counter)
		return "--counter";
	if (o->value_given)
		return "--value";
	if (o->no_filter)
		return "--no-filter";
	if (o->leaks)
		return o->leak_addresses ? "--leak-addresses" : "--leaks";
	return NULL;
}

static int run(struct sp_opts *o)
{
	enum sp_input_format fmt;

	if (o->addr2line)
		return sp_cmd_addr2line(o);
	fmt = input_format(o);
	if (fmt != SP_INPUT_APROF && aprof_only_option(o)) {
		sp_cli_error("%s is an option for aprof reports, and '%s' is a %s profile",
			     aprof_only_option(o), o->image_given ? o->image : o->profiles[0],
			     sp_fmt_name(fmt));
		return 2;
	}
	if (stack_only_format(o, fmt)) {
		sp_cli_error("%s, and '%s' is a %s profile", stack_only_format(o, fmt),
			     o->image_given ? o->image : o->profiles[0], sp_fmt_name(fmt));
		return 2;
	}
	if (fmt != SP_INPUT_IGPROF && igprof_only_option(o)) {
		sp_cli_error("%s is an option for IgProf dumps, and '%s' is a %s profile",
			     igprof_only_option(o), o->image_given ? o->image : o->profiles[0],
			     sp_fmt_name(fmt));
		return 2;
	}
	switch (fmt) {
	case SP_INPUT_GMON:
		return sp_cmd_gmon(o);
	case SP_INPUT_APROF:
		return sp_cmd_aprof(o);
	case SP_INPUT_GPERF:
		return sp_cmd_gperf(o);
	case SP_INPUT_IGPROF:
		return sp_cmd_igprof(o);
	default:
		sp_cli_error("cannot read '%s': not a gmon.out, gperftools profile, IgProf dump "
			     "or aprof report",
			     o->profiles[0]);
		return 1;
	}
}

/*
 * symprof runs once and exits. glibc gives each block from 128 KiB up a
 * mapping of its own and unmaps it when freed: a system call, a flush of
 * the other cores' TLBs, and fresh pages (zeroed by the kernel, a fault
 * each) for the next large block. Up to 32 MiB (glibc's own ceiling for
 * that threshold) they come from the heap here, which is never trimmed:
 * freeing is bookkeeping, freed blocks are reused as they are, and the
 * pages go back at exit. 3-7% off a -b run, 6% off -b -l; the same peak
 * memory (bench/README.md).
 */
static void tune_malloc(void)
{
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

int main(int argc, char **argv)
{
	struct sp_opts o;
	int rc, i;

	tune_malloc();
	sp_cli_expand_argv(&argc, &argv);
	rc = sp_cli_parse(&o, argc, argv);
	rc = rc == 0 ? run(&o) : 0;
	sp_cli_opts_release(&o);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return rc;
}
