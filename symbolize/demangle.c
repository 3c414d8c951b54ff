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

/*
 * Whether cplus_demangle() could demangle name at all. In the default style
 * (auto) and in gnu-v3 and rust, it only tries the Rust and GNU v3
 * demanglers, and they only accept names that start with '_' ("_Z",
 * "_GLOBAL_", "_R"). Asking first saves the demangler's setup, about 250
 * instructions a name, as much as printing the name: a C program's names
 * never start so.
 */
static int can_be_mangled(const char *name)
{
	switch (current_demangling_style) {
	case auto_demangling:
	case gnu_v3_demangling:
	case rust_demangling:
		return name[0] == '_';
	default:
		return 1;
	}
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
	res = can_be_mangled(name) ? cplus_demangle(name, DMGL_ANSI | DMGL_PARAMS) : NULL;
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
