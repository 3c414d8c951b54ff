/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A fast streaming inflater for zlib and gzip streams: ISA-L's igzip when
 * symprof is built with it (about twice zlib's speed on x86-64), else
 * nothing. It is a fast path only: callers keep zlib for the rest and
 * redo a stream with zlib when this one fails, so that corrupt data gets
 * zlib's error at zlib's offset (the messages the tests hold).
 *
 * Usage: x = sp_inflate_new(wrap); NULL means "use zlib". Then call
 * sp_inflate_step() with more input or more room until it returns 1 (the
 * stream and its trailer are done: the input left over follows it) or -1.
 */
#ifndef SYMPROF_INFLATE_H
#define SYMPROF_INFLATE_H

#include <stddef.h>
#include <stdint.h>

enum sp_inflate_wrap {
	SP_INFLATE_ZLIB = 1, /* RFC 1950: 2-byte header, Adler-32 trailer */
	SP_INFLATE_GZIP,     /* RFC 1952: one member, CRC-32 and size checked */
};

struct sp_inflate;

/* A new inflater, or NULL when none is built in (or for a gzip member
 * whose header uses flags beyond FNAME: zlib checks those). */
struct sp_inflate *sp_inflate_new(enum sp_inflate_wrap wrap);
/* Whether the fast inflater is built in. */
int sp_inflate_available(void);

/*
 * Inflates from [*in, *in + *in_len) into [*out, *out + *out_len),
 * advancing all four. Returns 1 once the stream has ended and its trailer
 * was checked (*in then points past it), 0 when it needs more input or
 * more room, -1 on anything wrong (redo the stream with zlib).
 */
int sp_inflate_step(struct sp_inflate *x, const uint8_t **in, size_t *in_len, uint8_t **out,
		    size_t *out_len);

/* Starts a new stream of the same kind (the next gzip member). */
void sp_inflate_reset(struct sp_inflate *x);
/* NULL is fine. */
void sp_inflate_free(struct sp_inflate *x);

/*
 * A gzip header whose flags the fast inflater handles as zlib does: none,
 * or only FNAME. p holds at least the 10 bytes of a header, else 0.
 */
int sp_inflate_gzip_header_simple(const uint8_t *p, size_t n);

#endif
