/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fast printf-equivalent number formatting (private to report/). */
#ifndef SYMPROF_REPORT_FMT_H
#define SYMPROF_REPORT_FMT_H

#include <stddef.h>

#include "symprof/buf.h"

/* "%llu" of v into dst (at least 20 bytes); returns the length. */
size_t sp_fmt_utoa(char *dst, unsigned long long v);
/* "%llx" of v into dst (at least 16 bytes); returns the length. */
size_t sp_fmt_xtoa(char *dst, unsigned long long v);
/* "%.{prec}f" of v into dst (at least 64 bytes); returns the length. */
size_t sp_fmt_fixed(char *dst, double v, int prec);
/* "%{width}.{prec}f" appended to b. */
void sp_fmt_put_fixed(struct sp_buf *b, double v, int width, int prec);
/* "%{width}lu", or "%-{width}lu" when left, appended to b. */
void sp_fmt_put_ulong(struct sp_buf *b, unsigned long long v, int width, int left);
/* "%lld" appended to b. */
void sp_fmt_put_long(struct sp_buf *b, long long v);

#endif
