/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Finding separate debug files the way gdb and elfutils do, in this order:
 *   ROOT/.build-id/xx/yyyy.debug                       (build-id)
 *   DIR/NAME, DIR/.debug/NAME, ROOT/DIR/NAME           (.gnu_debuglink,
 *                                                       CRC-32 checked)
 *   debuginfod: the debug file with the build-id      (debuginfod.c)
 * where DIR is the directory of the file (symlinks resolved) and ROOT the
 * debug root, /usr/lib/debug unless the caller's struct sp_debug_search
 * names another (cli/ takes it from SYMPROF_DEBUG_ROOT, for tests).
 * sp_build_id_path() is the one place a .build-id path is spelled.
 */
#include "internal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symprof/buf.h"

const char *sp_debug_root(const struct sp_debug_search *search)
{
	return search && search->debug_root && *search->debug_root ? search->debug_root
								   : "/usr/lib/debug";
}

char *sp_build_id_path(const char *root, const uint8_t *build_id, size_t build_id_len,
		       const char *suffix)
{
	struct sp_buf b = SP_BUF_INIT;
	size_t i;

	if (!build_id || build_id_len < 2)
		return NULL;
	sp_buf_addf(&b, "%s/.build-id/%02x/", root, build_id[0]);
	for (i = 1; i < build_id_len; i++)
		sp_buf_addf(&b, "%02x", build_id[i]);
	sp_buf_addstr(&b, suffix);
	return sp_buf_detach(&b, NULL);
}

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int crc_matches(const char *path, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	close(fd);
	return n == 0 && (uint32_t)crc == want;
}

static char *try_path(struct sp_buf *b, uint32_t crc)
{
	if (is_file(b->buf) && crc_matches(b->buf, crc))
		return sp_buf_detach(b, NULL);
	return NULL;
}

static char *by_build_id(const uint8_t *build_id, size_t build_id_len, const char *root)
{
	char *p = sp_build_id_path(root, build_id, build_id_len, ".debug");

	if (p && !is_file(p)) {
		free(p);
		p = NULL;
	}
	return p;
}

/* DIR/NAME, DIR/.debug/NAME, ROOT/DIR/NAME for the debuglink NAME. */
static char *by_debuglink(const char *path, const char *link, uint32_t crc, const char *root)
{
	struct sp_buf b = SP_BUF_INIT;
	char *found = NULL, *dir, *real;

	if (!link || !*link || strchr(link, '/'))
		return NULL;
	real = realpath(path, NULL);
	dir = sp_xstrdup(real ? real : path);
	free(real);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	else
		strcpy(dir, ".");
	sp_buf_addf(&b, "%s/%s", dir, link);
	if (strcmp(b.buf, path) && (found = try_path(&b, crc)))
		goto out;
	sp_buf_reset(&b);
	sp_buf_addf(&b, "%s/.debug/%s", dir, link);
	if ((found = try_path(&b, crc)))
		goto out;
	sp_buf_reset(&b);
	sp_buf_addf(&b, "%s%s/%s", root, dir, link);
	found = try_path(&b, crc);
out:
	free(dir);
	sp_buf_release(&b);
	return found;
}

char *sp_debuginfo_find(const char *path, const uint8_t *build_id, size_t build_id_len,
			const char *link, uint32_t crc, const struct sp_debug_search *search)
{
	const char *root = sp_debug_root(search);
	char *found;

	if ((found = by_build_id(build_id, build_id_len, root)) ||
	    (found = by_debuglink(path, link, crc, root)))
		return found;
	if (!search || !search->debuginfod || !build_id || !build_id_len)
		return NULL;
	return sp_debuginfod_find(search->debuginfod, SP_DEBUGINFOD_DEBUGINFO, build_id,
				  build_id_len, path);
}
