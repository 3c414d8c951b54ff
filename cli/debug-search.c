/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where files are found beyond their own paths (struct sp_debug_search,
 * symbolize.h): the configuration symbolize/ takes from cli/, read from
 * the environment once, here.
 *
 *   SYMPROF_DEBUG_ROOT   the debug root instead of /usr/lib/debug (tests)
 *   PATH                 where a bare program name is looked for (IgProf)
 */
#include "cli.h"

#include <stdlib.h>

void sp_cli_debug_search_init(struct sp_opts *o)
{
	o->search.debug_root = getenv("SYMPROF_DEBUG_ROOT");
	o->search.program_path = getenv("PATH");
}

void sp_cli_debug_search_release(struct sp_opts *o)
{
	(void)o;
}
