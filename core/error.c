/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The error table (SP_ERRORS in error.h), the functions that fill a
 * struct sp_error, warnings handed to a hook, and SP_BUG().
 */
#include "symprof/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/buf.h"

#define SP_ERROR_STR_(name, msg) msg,
static const char *const error_strs[] = {SP_ERRORS(SP_ERROR_STR_)};
#undef SP_ERROR_STR_

const char *sp_error_str(int code)
{
	if (code < 0)
		code = -code;
	if (code >= SP_E_COUNT_)
		return "unknown error";
	return error_strs[code];
}

static int error_vset(struct sp_error *err, int code, int errnum, const char *fmt, va_list ap)
{
	if (code < 0)
		code = -code;
	if (err) {
		int n;

		err->code = code;
		err->saved_errno = errnum;
		n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		if (errnum && n >= 0 && (size_t)n < sizeof(err->msg))
			snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s",
				 strerror(errnum));
	}
	return -code;
}

int sp_error_set(struct sp_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = error_vset(err, code, 0, fmt, ap);
	va_end(ap);
	return r;
}

int sp_error_errno(struct sp_error *err, int code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = error_vset(err, code, saved, fmt, ap);
	va_end(ap);
	errno = saved;
	return r;
}

void sp_warn(const struct sp_warn_hook *h, const char *fmt, ...)
{
	struct sp_buf b = SP_BUF_INIT;
	va_list ap;

	if (!h || !h->warn)
		return;
	va_start(ap, fmt);
	sp_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	h->warn(h->ctx, b.buf);
	sp_buf_release(&b);
}

void sp_bug_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "symprof: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
