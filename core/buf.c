/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sp_buf: growable NUL-terminated string; invariants in buf.h. */
#include "symprof/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

char sp_buf_empty_[1];

void sp_buf_init(struct sp_buf *sb, size_t hint)
{
	sb->alloc = 0;
	sb->len = 0;
	sb->buf = sp_buf_empty_;
	if (hint)
		sp_buf_grow(sb, hint);
}

void sp_buf_release(struct sp_buf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	sp_buf_init(sb, 0);
}

char *sp_buf_detach(struct sp_buf *sb, size_t *len)
{
	char *r;

	if (len)
		*len = sb->len;
	if (!sb->alloc)
		sp_buf_grow(sb, 0);
	r = sb->buf;
	sp_buf_init(sb, 0);
	return r;
}

void sp_buf_grow_(struct sp_buf *sb, size_t extra)
{
	int fresh = !sb->alloc;

	if (sb->len + extra + 1 <= sb->len)
		sp_oom(SIZE_MAX);
	if (fresh)
		sb->buf = NULL;
	SP_ALLOC_GROW(sb->buf, sb->len + extra + 1, sb->alloc);
	if (fresh)
		sb->buf[0] = '\0';
}

void sp_buf_setlen(struct sp_buf *sb, size_t len)
{
	if (!sb->alloc && len == 0)
		return;
	if (len > sb->len)
		sp_buf_grow(sb, len - sb->len);
	sb->len = len;
	sb->buf[len] = '\0';
}

void sp_buf_vaddf(struct sp_buf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (!sb->alloc)
		sp_buf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		sp_buf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sp_buf_addf(struct sp_buf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_buf_vaddf(sb, fmt, ap);
	va_end(ap);
}
