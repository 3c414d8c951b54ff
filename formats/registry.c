/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Which reader a profile file needs, from its first bytes:
 *   "gmon"                               GNU gmon.out
 *   machine words 0,N>=3,0|1,>0,...      gperftools CPU profile (any word size/order)
 *   "P=(" or gzip/bzip2 magic            IgProf dump
 *   aprof tags ("c ", "v ", "k ", ...)   aprof report
 *   anything else                        BSD gmon.out (no magic), as gprof assumes
 */
#include "symprof/formats.h"

#include <string.h>

#include "symprof/mfile.h"

static int looks_aprof(const uint8_t *d, size_t size)
{
	static const char tags[] = "cvkemitafrudpqx";

	return size >= 2 && d[1] == ' ' && strchr(tags, d[0]) && d[0];
}

enum sp_input_format sp_fmt_detect(const uint8_t *d, size_t size)
{
	if (sp_fmt_gmon_probe(d, size))
		return SP_INPUT_GMON;
	if (sp_fmt_gperf_probe(d, size))
		return SP_INPUT_GPERF;
	if ((size >= 3 && !memcmp(d, "P=(", 3)) || (size >= 2 && d[0] == 0x1f && d[1] == 0x8b) ||
	    (size >= 3 && !memcmp(d, "BZh", 3)))
		return SP_INPUT_IGPROF;
	if (looks_aprof(d, size))
		return SP_INPUT_APROF;
	return SP_INPUT_GMON;
}

const char *sp_fmt_name(enum sp_input_format f)
{
	switch (f) {
	case SP_INPUT_GMON:
		return "gmon";
	case SP_INPUT_GPERF:
		return "gperftools";
	case SP_INPUT_IGPROF:
		return "igprof";
	case SP_INPUT_APROF:
		return "aprof";
	default:
		return "unknown";
	}
}
