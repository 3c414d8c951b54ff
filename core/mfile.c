/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Opening input files: mmap for regular files (the kernel pages them in as
 * the readers touch them), a growing read buffer for pipes and stdin.
 */
#include "symprof/mfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symprof/alloc.h"
#include "symprof/error.h"

static int read_all(struct sp_mfile *f, int fd, struct sp_error *err)
{
	size_t alloc = 0, len = 0;
	uint8_t *data = NULL;

	for (;;) {
		ssize_t n;

		SP_ALLOC_GROW(data, len + 65536, alloc);
		n = read(fd, data + len, alloc - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(data);
			return sp_error_errno(err, SP_E_IO, "cannot read '%s'", f->path);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	f->data = data;
	f->size = len;
	f->mapped = 0;
	return 0;
}

int sp_mfile_open(struct sp_mfile *f, const char *path, struct sp_error *err)
{
	struct stat st;
	int fd, r;

	memset(f, 0, sizeof(*f));
	f->path = path;
	if (!strcmp(path, "-"))
		return read_all(f, 0, err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sp_error_errno(err, SP_E_OPEN, "cannot open '%s'", path);
	if (fstat(fd, &st) < 0) {
		r = sp_error_errno(err, SP_E_IO, "cannot stat '%s'", path);
		close(fd);
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return sp_error_set(err, SP_E_OPEN, "cannot open '%s': is a directory", path);
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			f->data = p;
			f->size = (size_t)st.st_size;
			f->mapped = 1;
			return 0;
		}
	}
	r = read_all(f, fd, err);
	close(fd);
	return r;
}

void sp_mfile_close(struct sp_mfile *f)
{
	if (f->mapped)
		munmap((void *)f->data, f->size);
	else
		free((void *)f->data);
	memset(f, 0, sizeof(*f));
}
