/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof: entry point. Expands @FILE arguments, parses the options and
 * runs the pipeline for the profile's format.
 */
#include <stdlib.h>

#include "cli.h"

int main(int argc, char **argv)
{
	struct sp_opts o;
	int rc, i;

	sp_cli_expand_argv(&argc, &argv);
	rc = sp_cli_parse(&o, argc, argv);
	if (rc == 0)
		rc = sp_cmd_gmon(&o);
	else
		rc = 0;
	sp_cli_opts_release(&o);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return rc;
}
