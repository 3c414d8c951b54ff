/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Errors: one table defines every code and its default message (the
 * DWFL_ERRORS pattern of elfutils). Library functions return 0 on success
 * and a negative -SP_E_* code on failure; they take a `struct sp_error *`
 * last and fill it with a message that names the file and the offset or
 * line. There is no thread-local "last error". What is not an error but
 * worth a line goes through a struct sp_warn_hook (below); a bug of
 * symprof's own through SP_BUG().
 */
#ifndef SYMPROF_ERROR_H
#define SYMPROF_ERROR_H

#include <stddef.h>

#define SP_ERRORS(X)                                                                               \
	X(OK, "success")                                                                           \
	X(NOMEM, "out of memory")                                                                  \
	X(IO, "input/output error")                                                                \
	X(OPEN, "cannot open file")                                                                \
	X(TRUNCATED, "file is truncated")                                                          \
	X(CORRUPT, "file is corrupt")                                                              \
	X(FORMAT, "unrecognized file format")                                                      \
	X(MISMATCH, "profile does not match the executable")                                       \
	X(INCOMPAT, "incompatible profiles")                                                       \
	X(NOSYMS, "no symbols")                                                                    \
	X(NODATA, "no profile data")                                                               \
	X(LIBELF, "libelf error")                                                                  \
	X(LIBDW, "libdw error")                                                                    \
	X(BFD, "libbfd error")                                                                     \
	X(USAGE, "invalid usage")                                                                  \
	X(UNSUPPORTED, "unsupported")

#define SP_ERROR_ENUM_(name, msg) SP_E_##name,
enum sp_error_code { SP_ERRORS(SP_ERROR_ENUM_) SP_E_COUNT_ };
#undef SP_ERROR_ENUM_

#define SP_ERROR_MSG_MAX 512

/* A byte count in a message, "%zu byte%s": "1 byte", "2 bytes". */
#define SP_BYTES(n) (size_t)(n), (size_t)(n) == 1 ? "" : "s"

/* Filled by a failing function. `msg` is the complete one-line message. */
struct sp_error {
	int code; /* enum sp_error_code, positive */
	int saved_errno;
	char msg[SP_ERROR_MSG_MAX];
};

#define SP_ERROR_INIT                                                                              \
	{                                                                                          \
		0, 0,                                                                              \
		{                                                                                  \
			0                                                                          \
		}                                                                                  \
	}

/*
 * Fill `err` (may be NULL) with `code` and a printf-formatted message, and
 * return -code, so that `return sp_error_set(err, SP_E_TRUNCATED, ...);`
 * fits on one line. Messages follow git's rules: lowercase, no final period,
 * the problem first, the subject quoted. Overlong messages are truncated.
 */
int sp_error_set(struct sp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like sp_error_set() but appends ": strerror(errno)" and keeps errno. */
int sp_error_errno(struct sp_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The default message of a code ("file is truncated"); never NULL. */
const char *sp_error_str(int code);

/*
 * A broken invariant: a bug in symprof, never bad input (bad input is an
 * error: sp_error_set()). SP_BUG("what") prints "symprof: BUG: FILE:LINE:
 * what" on stderr and aborts, on any layer, as git's BUG() does.
 */
#define SP_BUG(...) sp_bug_(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void sp_bug_(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Warnings: a library function that goes on past a problem worth telling
 * (a source file not found) hands a one-line message, as it would go in a
 * struct sp_error, to the hook its caller gave it; it never prints. cli/
 * gives sp_cli_warn_hook(), which prints "symprof: MSG" like its other
 * messages, at once (so that the line comes where it came before). A
 * NULL hook, or one without `warn`, drops the message.
 */
struct sp_warn_hook {
	void (*warn)(void *ctx, const char *msg);
	void *ctx;
};

/* Formats the message and hands it to h (if any). */
void sp_warn(const struct sp_warn_hook *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
