/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Finding separate debug files the way gdb and elfutils do:
 *   /usr/lib/debug/.build-id/xx/yyyy.debug             (build-id)
 *   DIR/NAME, DIR/.debug/NAME, /usr/lib/debug/DIR/NAME  (.gnu_debuglink,
 *                                                        CRC-32 checked)
 * The root (/usr/lib/debug) can be changed with SYMPROF_DEBUG_ROOT, for
 * tests.
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

static const char *debug_root(void)
{
	const char *r = getenv("SYMPROF_DEBUG_ROOT");

	return r && *r ? r : "/usr/lib/debug";
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

static char *try_path(struct sp_buf *b, uint32_t crc, int check_crc)
{
	if (is_file(b->buf) && (!check_crc || crc_matches(b->buf, crc)))
		return sp_buf_detach(b, NULL);
	return NULL;
}

char *sp_debuginfo_find(const char *path, const uint8_t *build_id, size_t build_id_len,
			const char *link, uint32_t crc)
{
	struct sp_buf b = SP_BUF_INIT;
	char *found = NULL, *dir, *real;
	size_t i;

	if (build_id && build_id_len >= 2) {
		sp_buf_addf(&b, "%s/.build-id/%02x/", debug_root(), build_id[0]);
		for (i = 1; i < build_id_len; i++)
			sp_buf_addf(&b, "%02x", build_id[i]);
		sp_buf_addstr(&b, ".debug");
		if ((found = try_path(&b, 0, 0)))
			return found;
	}
	if (!link || !*link || strchr(link, '/')) {
		sp_buf_release(&b);
		return NULL;
	}
	real = realpath(path, NULL);
	dir = sp_xstrdup(real ? real : path);
	free(real);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	else
		strcpy(dir, ".");
	sp_buf_reset(&b);
	sp_buf_addf(&b, "%s/%s", dir, link);
	if (strcmp(b.buf, path) && (found = try_path(&b, crc, 1)))
		goto out;
	sp_buf_reset(&b);
	sp_buf_addf(&b, "%s/.debug/%s", dir, link);
	if ((found = try_path(&b, crc, 1)))
		goto out;
	sp_buf_reset(&b);
	sp_buf_addf(&b, "%s%s/%s", debug_root(), dir, link);
	found = try_path(&b, crc, 1);
out:
	free(dir);
	sp_buf_release(&b);
	return found;
}
