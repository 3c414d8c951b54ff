/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * moved-objects: symbolizes a profile whose binaries are known only by
 * build-id, as a pprof protobuf profile's mappings name them, for the
 * debuginfod test (tests/debuginfod/check.sh).
 *
 * A test tool, not part of symprof. It reads a real gperftools profile,
 * finds each object's file the way symprof does (EXE for the main
 * program), and gives every object the build-id of the file found (what
 * gperftools does not record but pprof's profile.proto does). Then:
 *
 *   moved-objects -e EXE --list PROFILE    the files found, one per line
 *   moved-objects -e EXE PROFILE           every frame, symbolized
 *   moved-objects -e EXE --moved PROFILE   the same after renaming every
 *                                          object to /nonexistent/moved/NAME
 *
 * so that with --moved the files can only come from the debug root or
 * debuginfod (DEBUGINFOD_URLS, as symprof's cli reads it). Each frame
 * prints as "ADDR OBJECT FUNC FILE:LINE [<- FUNC FILE:LINE ...]", the
 * object by its base name. Warnings go to stderr.
 *
 * Exit status: 0, or 2 on errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "symprof/error.h"
#include "symprof/formats.h"
#include "symprof/profile.h"

static void warn_cb(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "moved-objects: warning: %s\n", msg);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Gives every object the build-id of the file found for it; prints the
 * files with --list. */
static void record_build_ids(struct sp_profile *p, const char *exe, int list)
{
	struct sp_symbolizer_opts so = {.exe = exe, .warn = warn_cb};
	struct sp_symbolizer *s = sp_symbolizer_new(&so);
	uint32_t i;

	for (i = 0; i < p->nobjects; i++) {
		struct sp_symfile *f = sp_symbolizer_object(s, p, i, NULL);
		struct sp_image *im;
		struct sp_elf_info info;
		uint8_t *id;

		if (!f || !(im = sp_image_open(sp_symfile_path(f), NULL, NULL)))
			continue;
		sp_elf_image_info(im, &info);
		if (info.build_id) {
			id = sp_arena_alloc(&p->arena, info.build_id_len);
			memcpy(id, info.build_id, info.build_id_len);
			p->objects[i].build_id = id;
			p->objects[i].build_id_len = info.build_id_len;
			if (list)
				printf("%s\n", sp_symfile_path(f));
		}
		sp_image_free(im);
	}
	sp_symbolizer_free(s);
}

static void move_away(struct sp_profile *p)
{
	char name[4096];
	uint32_t i;

	for (i = 0; i < p->nobjects; i++) {
		if (!p->objects[i].path[0] || p->objects[i].path[0] == '[')
			continue;
		snprintf(name, sizeof(name), "/nonexistent/moved/%s",
			 base_name(p->objects[i].path));
		p->objects[i].path = sp_profile_intern(p, name);
		p->objects[i].is_main = 0;
	}
}

static void print_frames(struct sp_profile *p, const char *exe)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct sp_debuginfod_opts dopts = {.urls = urls, .timeout = 90, .warn = warn_cb};
	struct sp_debug_search search = {.debug_root = getenv("SYMPROF_DEBUG_ROOT")};
	struct sp_symbolizer_opts so = {.exe = exe, .search = &search, .warn = warn_cb};
	struct sp_symbolizer *s;
	uint32_t i, k;

	/* what cli/debug-search.c does */
	if (getenv("DEBUGINFOD_TIMEOUT"))
		dopts.timeout = atol(getenv("DEBUGINFOD_TIMEOUT"));
	if (!getenv("DEBUGINFOD_RETRY_LIMIT"))
		setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
	if (urls && *urls)
		search.debuginfod = sp_debuginfod_new(&dopts);
	s = sp_symbolizer_new(&so);
	for (i = 0; i < p->nframes; i++) {
		const struct sp_frame *fr = &p->frames[i];
		const struct sp_symloc *loc = sp_symbolizer_frame(s, p, i);

		printf("%#llx %s", (unsigned long long)fr->addr,
		       fr->object == SP_NONE ? "?" : base_name(p->objects[fr->object].path));
		for (k = 0; k < loc->nframes; k++)
			printf("%s %s %s:%u", k ? " <-" : "",
			       loc->frames[k].name ? loc->frames[k].name : "??",
			       loc->frames[k].file ? loc->frames[k].file : "??",
			       loc->frames[k].line);
		if (!loc->nframes)
			printf(" ?? (reason %d)", (int)loc->reason);
		putchar('\n');
	}
	sp_symbolizer_free(s);
	sp_debuginfod_free(search.debuginfod);
}

int main(int argc, char **argv)
{
	struct sp_error err = SP_ERROR_INIT;
	const char *exe = NULL, *path = NULL;
	struct sp_profile *p;
	int list = 0, moved = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-e") && i + 1 < argc)
			exe = argv[++i];
		else if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--moved"))
			moved = 1;
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: moved-objects [-e EXE] [--list | --moved] PROFILE\n");
		return 2;
	}
	p = sp_profile_new(SP_PROFILE_GPERF);
	if (sp_fmt_gperf_read(p, path, &err) < 0) {
		fprintf(stderr, "moved-objects: %s\n", err.msg);
		sp_profile_free(p);
		return 2;
	}
	record_build_ids(p, exe, list);
	if (moved) {
		move_away(p);
		exe = NULL;
	}
	if (!list)
		print_frames(p, exe);
	sp_profile_free(p);
	return 0;
}
