/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the probes of the readers look at (formats.h, "recognising a
 * file"): the first SP_FMT_HEAD_SIZE bytes of a file or, for a gzip or
 * bzip2 file (recognised by its magic bytes, 1f 8b or "BZh"), of what it
 * decompresses to. Only as much is decompressed as the head needs: a few
 * kilobytes of gzip input, the first block of a bzip2 stream. Which
 * formats are tried, and in which order, is the cli's table of input
 * formats (cli/formats.c).
 */
#include "symprof/formats.h"

#include <string.h>

#include "symprof/error.h"
#include "symprof/mfile.h"
#include "zstream.h"

int sp_fmt_head_of_mem(struct sp_fmt_head *h, const char *name, const uint8_t *data, size_t size,
		       struct sp_error *err)
{
	int kind;

	memset(h, 0, sizeof(*h));
	kind = sp_zin_head(name, data, size, h->data, sizeof(h->data), &h->size, err);
	if (kind < 0)
		return kind;
	h->compression = kind == SP_ZIN_GZIP	? SP_FMT_GZIP
			 : kind == SP_ZIN_BZIP2 ? SP_FMT_BZIP2
						: SP_FMT_PLAIN;
	return 0;
}

int sp_fmt_head_read(struct sp_fmt_head *h, const char *path, struct sp_error *err)
{
	struct sp_mfile f;
	int ret = sp_mfile_open(&f, path, err);

	if (ret < 0)
		return ret;
	ret = sp_fmt_head_of_mem(h, path, f.data, f.size, err);
	sp_mfile_close(&f);
	return ret;
}

const char *sp_fmt_compression_name(enum sp_fmt_compression c)
{
	switch (c) {
	case SP_FMT_GZIP:
		return "gzip";
	case SP_FMT_BZIP2:
		return "bzip2";
	default:
		return NULL;
	}
}
