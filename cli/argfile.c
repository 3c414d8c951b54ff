/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * @FILE response files, as gprof expands them (libiberty expandargv): the
 * argument @FILE is replaced by the words in FILE, separated by white
 * space; single and double quotes group, a backslash escapes the next
 * character; files may name other @FILEs. An @FILE that cannot be read is
 * kept as a literal argument.
 */
#include "cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/error.h"
#include "symprof/mfile.h"

#define MAX_EXPANSIONS 2000

struct argvec {
	char **v;
	size_t n, alloc;
};

static void push(struct argvec *a, char *s)
{
	SP_ALLOC_GROW(a->v, a->n + 2, a->alloc);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* Splits a response file into words (libiberty buildargv rules). */
static void split_words(const char *p, const char *end, struct argvec *out)
{
	struct sp_buf w = SP_BUF_INIT;

	while (p < end) {
		char quote = 0;
		int have = 0;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end)
			break;
		for (; p < end; p++) {
			if (!quote && isspace((unsigned char)*p))
				break;
			if (*p == '\\' && p + 1 < end) {
				sp_buf_addch(&w, *++p);
			} else if (quote && *p == quote) {
				quote = 0;
			} else if (!quote && (*p == '\'' || *p == '"')) {
				quote = *p;
			} else {
				sp_buf_addch(&w, *p);
			}
			have = 1;
		}
		if (have)
			push(out, sp_buf_detach(&w, NULL));
		else
			sp_buf_reset(&w);
	}
	sp_buf_release(&w);
}

void sp_cli_expand_argv(int *argc, char ***argv)
{
	struct argvec out = {NULL, 0, 0};
	int i, expansions = 0;
	char **in = *argv;
	int n = *argc;

	push(&out, sp_xstrdup(in[0]));
	for (i = 1; i < n; i++)
		push(&out, sp_xstrdup(in[i]));
	for (i = 1; i < (int)out.n; i++) {
		struct sp_mfile f;
		struct argvec words = {NULL, 0, 0};
		size_t k;

		if (out.v[i][0] != '@' || expansions >= MAX_EXPANSIONS)
			continue;
		if (sp_mfile_open(&f, out.v[i] + 1, NULL) < 0)
			continue;
		split_words((const char *)f.data, (const char *)f.data + f.size, &words);
		sp_mfile_close(&f);
		expansions++;
		free(out.v[i]);
		SP_ALLOC_GROW(out.v, out.n + words.n + 1, out.alloc);
		memmove(out.v + i + words.n, out.v + i + 1, (out.n - (size_t)i) * sizeof(char *));
		for (k = 0; k < words.n; k++)
			out.v[i + (int)k] = words.v[k];
		out.n = out.n - 1 + words.n;
		free(words.v);
		i--;
	}
	*argc = (int)out.n;
	*argv = out.v;
}
