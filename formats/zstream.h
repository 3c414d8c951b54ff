/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to formats/: a text file read in chunks, plain, gzip or bzip2
 * (recognised by their magic bytes), decompressed in-process with zlib or
 * libbz2 so that a file of any size is read with a few megabytes of memory.
 *
 * Files are decompressed on a worker (symprof/worker.h) while the caller
 * parses the chunks before them (sp_zin_open with threaded = 1): a ring of
 * a few chunk buffers between the two. From memory (tests, fuzzing), or
 * with threads off, everything runs on the caller's thread.
 */
#ifndef SYMPROF_FORMATS_ZSTREAM_H
#define SYMPROF_FORMATS_ZSTREAM_H

#include <stddef.h>
#include <stdint.h>

struct sp_error;
struct sp_zin;

enum sp_zin_kind {
	SP_ZIN_PLAIN = 0,
	SP_ZIN_GZIP,
	SP_ZIN_BZIP2,
};

/* Opens `path` ("-": stdin); NULL and err (naming the file) on failure. */
struct sp_zin *sp_zin_open(const char *path, int threaded, struct sp_error *err);
/* Reads `size` bytes of memory (borrowed until sp_zin_close()); `name` is
 * used in messages. Never NULL. */
struct sp_zin *sp_zin_open_mem(const char *name, const uint8_t *data, size_t size);
/*
 * The next chunk of decompressed text: *buf and *len, borrowed until the
 * next call. Returns 1 with a chunk, 0 at the end of the data, or a
 * negative error (corrupt or truncated compressed data, I/O) whose message
 * names the file and the compressed offset.
 */
int sp_zin_next(struct sp_zin *z, const char **buf, size_t *len, struct sp_error *err);
/*
 * The first bytes `data` holds, decompressed when it is gzip or bzip2 (and
 * copied otherwise): at most `cap` bytes into out, *len of them. Returns
 * the data's kind (also when it ends early after some bytes: a truncated
 * file), or a negative error naming `name` and the compressed offset when
 * the data is corrupt before `cap` bytes, or ends before any.
 */
int sp_zin_head(const char *name, const uint8_t *data, size_t size, uint8_t *out, size_t cap,
		size_t *len, struct sp_error *err);
enum sp_zin_kind sp_zin_kind(const struct sp_zin *z);
/* Compressed bytes consumed so far, and the file's size (0 if unknown). */
uint64_t sp_zin_consumed(const struct sp_zin *z);
uint64_t sp_zin_size(const struct sp_zin *z);
/* Stops the thread, closes the file; NULL is fine. */
void sp_zin_close(struct sp_zin *z);

#endif
