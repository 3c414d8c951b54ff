/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Which reader a profile file needs, from its first bytes:
 *   "gmon"                               GNU gmon.out
 *   5 machine words 0,3,0|1,>0,0          gperftools CPU profile (any word size/order)
 *   "P=(" or gzip/bzip2 magic            IgProf dump
 *   aprof tags ("c ", "v ", "k ", ...)   aprof report
 *   anything else                        BSD gmon.out (no magic), as gprof assumes
 */
#include "symprof/formats.h"

#include <string.h>

#include "symprof/mfile.h"

static int gperf_header(const uint8_t *d, size_t size, int w, int be)
{
	uint64_t v[5];
	int i;

	if (size < (size_t)(5 * w))
		return 0;
	for (i = 0; i < 5; i++)
		v[i] = sp_load_uint(d + i * w, w, be);
	return v[0] == 0 && v[1] == 3 && (v[2] == 0 || v[2] == 1) && v[3] > 0 && v[4] == 0;
}

static int looks_aprof(const uint8_t *d, size_t size)
{
	static const char tags[] = "cvkemitafrudpqx";

	return size >= 2 && d[1] == ' ' && strchr(tags, d[0]) && d[0];
}

enum sp_input_format sp_fmt_detect(const uint8_t *d, size_t size)
{
	if (sp_fmt_gmon_probe(d, size))
		return SP_INPUT_GMON;
	if (gperf_header(d, size, 4, 0) || gperf_header(d, size, 4, 1) ||
	    gperf_header(d, size, 8, 0) || gperf_header(d, size, 8, 1))
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
