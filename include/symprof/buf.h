/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sp_buf: a growable string (git's strbuf).
 *
 * Invariants: `buf` is never NULL and always NUL-terminated; `len` is the
 * string length; `alloc` is private. SP_BUF_INIT is a valid empty string.
 * sp_buf_detach() is the only way to take ownership of the characters.
 */
#ifndef SYMPROF_BUF_H
#define SYMPROF_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

extern char sp_buf_empty_[];

struct sp_buf {
	size_t alloc;
	size_t len;
	char *buf;
};

#define SP_BUF_INIT                                                                                \
	{                                                                                          \
		0, 0, sp_buf_empty_                                                                \
	}

void sp_buf_init(struct sp_buf *sb, size_t hint);
void sp_buf_release(struct sp_buf *sb);
/* Returns the malloc'ed string; `sb` is empty afterwards. */
char *sp_buf_detach(struct sp_buf *sb, size_t *len);
/* Ensures room for `extra` more bytes plus the NUL. */
void sp_buf_grow_(struct sp_buf *sb, size_t extra);
static inline void sp_buf_grow(struct sp_buf *sb, size_t extra)
{
	/* allocated buffers always have alloc > len */
	if (!sb->alloc || extra >= sb->alloc - sb->len)
		sp_buf_grow_(sb, extra);
}
void sp_buf_setlen(struct sp_buf *sb, size_t len);
static inline void sp_buf_reset(struct sp_buf *sb)
{
	if (sb->alloc) {
		sb->len = 0;
		sb->buf[0] = '\0';
	}
}
/* The appenders are inline: report lines are built from many small pieces. */
static inline void sp_buf_add(struct sp_buf *sb, const void *data, size_t len)
{
	sp_buf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}
static inline void sp_buf_addstr(struct sp_buf *sb, const char *s)
{
	sp_buf_add(sb, s, strlen(s));
}
static inline void sp_buf_addch(struct sp_buf *sb, int c)
{
	sp_buf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}
static inline void sp_buf_addchars(struct sp_buf *sb, int c, size_t n)
{
	sp_buf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}
void sp_buf_addf(struct sp_buf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sp_buf_vaddf(struct sp_buf *sb, const char *fmt, va_list ap);

#endif
