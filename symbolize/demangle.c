/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Demangling with libiberty's cplus_demangle (exported by libbfd), with the
 * adjustments gprof gets through bfd_demangle(): a target leading character
 * is skipped, leading '.' and '$' are kept aside, and a version or PLT
 * suffix after '@' is put back after the demangled name.
 */
#include "symprof/symbolize.h"

#include <stdlib.h>
#include <string.h>

#include <demangle.h>

int sp_demangle_set_style(const char *style)
{
	enum demangling_styles s = cplus_demangle_name_to_style(style);

	if (s == unknown_demangling)
		return -1;
	cplus_demangle_set_style(s);
	return 0;
}

char *sp_demangle(const char *name, char leading_char)
{
	const char *pre, *suf;
	char *res, *stem = NULL, *out;
	size_t pre_len, len, suf_len;
	int skip_lead = leading_char && *name == leading_char;

	if (skip_lead)
		name++;
	pre = name;
	while (*name == '.' || *name == '$')
		name++;
	pre_len = (size_t)(name - pre);
	suf = strchr(name, '@');
	if (suf) {
		stem = strndup(name, (size_t)(suf - name));
		if (!stem)
			return NULL;
		name = stem;
	}
	res = cplus_demangle(name, DMGL_ANSI | DMGL_PARAMS);
	free(stem);
	if (!res)
		return skip_lead ? strdup(pre) : NULL;
	if (!pre_len && !suf)
		return res;
	len = strlen(res);
	if (!suf)
		suf = "";
	suf_len = strlen(suf);
	out = malloc(pre_len + len + suf_len + 1);
	if (out) {
		memcpy(out, pre, pre_len);
		memcpy(out + pre_len, res, len);
		memcpy(out + pre_len + len, suf, suf_len + 1);
	}
	free(res);
	return out;
}
