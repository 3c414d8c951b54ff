/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Input files, read-only: mmap'ed when the path is a regular file, read
 * into memory otherwise (pipes, "-" for stdin). Also a bounds-checked
 * cursor for binary formats: every read says whether the bytes were there.
 */
#ifndef SYMPROF_MFILE_H
#define SYMPROF_MFILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sp_error;

struct sp_mfile {
	const uint8_t *data;
	size_t size;
	const char *path; /* as given; borrowed */
	int mapped;	  /* 1: munmap on close, 0: free */
};

/* Opens `path` ("-" = stdin). On failure fills err: "cannot open 'x': ...". */
int sp_mfile_open(struct sp_mfile *f, const char *path, struct sp_error *err);
void sp_mfile_close(struct sp_mfile *f);

/* ---- bounded cursor ---- */

struct sp_cursor {
	const uint8_t *base; /* start of the file, for offsets in messages */
	const uint8_t *p;
	const uint8_t *end;
	int big_endian;
};

static inline void sp_cursor_init(struct sp_cursor *c, const void *data, size_t size,
				  int big_endian)
{
	c->base = data;
	c->p = data;
	c->end = (const uint8_t *)data + size;
	c->big_endian = big_endian;
}

static inline size_t sp_cursor_off(const struct sp_cursor *c)
{
	return (size_t)(c->p - c->base);
}

static inline size_t sp_cursor_left(const struct sp_cursor *c)
{
	return (size_t)(c->end - c->p);
}

static inline uint64_t sp_load_uint(const uint8_t *p, int n, int big_endian)
{
	uint64_t v = 0;
	int i;

#if defined(__GNUC__) && defined(__BYTE_ORDER__)
	/* whole-word loads, swapped when the file's order is not the host's */
	int swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);

	switch (n) {
	case 8:
		memcpy(&v, p, 8);
		return swap ? __builtin_bswap64(v) : v;
	case 4: {
		uint32_t w;

		memcpy(&w, p, 4);
		return swap ? __builtin_bswap32(w) : w;
	}
	case 2: {
		uint16_t h;

		memcpy(&h, p, 2);
		return swap ? __builtin_bswap16(h) : h;
	}
	case 1:
		return p[0];
	default:
		break;
	}
#endif

	if (big_endian)
		for (i = 0; i < n; i++)
			v = (v << 8) | p[i];
	else
		for (i = n - 1; i >= 0; i--)
			v = (v << 8) | p[i];
	return v;
}

static inline void sp_store_uint(uint8_t *p, int n, uint64_t v, int big_endian)
{
	int i;

	for (i = 0; i < n; i++) {
		int k = big_endian ? n - 1 - i : i;
		p[k] = (uint8_t)(v >> (8 * i));
	}
}

/* Reads an n-byte (1, 2, 4 or 8) unsigned integer; 0 on success, -1 if short. */
static inline int sp_cursor_uint(struct sp_cursor *c, int n, uint64_t *v)
{
	if (sp_cursor_left(c) < (size_t)n)
		return -1;
	*v = sp_load_uint(c->p, n, c->big_endian);
	c->p += n;
	return 0;
}

static inline int sp_cursor_bytes(struct sp_cursor *c, void *dst, size_t n)
{
	if (sp_cursor_left(c) < n)
		return -1;
	memcpy(dst, c->p, n);
	c->p += n;
	return 0;
}

static inline int sp_cursor_skip(struct sp_cursor *c, size_t n)
{
	if (sp_cursor_left(c) < n)
		return -1;
	c->p += n;
	return 0;
}

#endif
