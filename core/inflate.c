/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The fast inflater (inflate.h): ISA-L's igzip behind a small streaming
 * interface, compiled in when CMake finds libisal (SYMPROF_HAVE_ISAL).
 *
 * igzip decodes a deflate stream about twice as fast as zlib on x86-64
 * (46 MB of IgProf text: 48 ms of CPU against zlib's 110 ms on the bench
 * machine), which is what a gzip'ed dump or a compressed debug section
 * costs to read. It checks the trailer (CRC-32 and size of a gzip member,
 * Adler-32 of a zlib stream) itself. What it reports as an error, the
 * caller redoes with zlib, whose messages and offsets are the ones users
 * and tests see.
 */
#include "symprof/inflate.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

int sp_inflate_gzip_header_simple(const uint8_t *p, size_t n)
{
	/* ID1 ID2 CM FLG MTIME(4) XFL OS; FLG bit 3 is FNAME */
	return n >= 10 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && (p[3] & ~0x08) == 0;
}

#ifdef SYMPROF_HAVE_ISAL

#include <isa-l/igzip_lib.h>

struct sp_inflate {
	struct inflate_state st;
	enum sp_inflate_wrap wrap;
};

int sp_inflate_available(void)
{
	return 1;
}

void sp_inflate_reset(struct sp_inflate *x)
{
	isal_inflate_init(&x->st);
	x->st.crc_flag = x->wrap == SP_INFLATE_GZIP ? ISAL_GZIP : ISAL_ZLIB;
}

struct sp_inflate *sp_inflate_new(enum sp_inflate_wrap wrap)
{
	struct sp_inflate *x = sp_xmalloc(sizeof(*x));

	x->wrap = wrap;
	sp_inflate_reset(x);
	return x;
}

int sp_inflate_step(struct sp_inflate *x, const uint8_t **in, size_t *in_len, uint8_t **out,
		    size_t *out_len)
{
	struct inflate_state *st = &x->st;
	int r;

	if (st->block_state == ISAL_BLOCK_FINISH)
		return 1;
	/* igzip counts in 32 bits: hand it at most 1 GiB at a time */
	st->next_in = (uint8_t *)*in;
	st->avail_in = (uint32_t)(*in_len > (1u << 30) ? (1u << 30) : *in_len);
	st->next_out = *out;
	st->avail_out = (uint32_t)(*out_len > (1u << 30) ? (1u << 30) : *out_len);
	r = isal_inflate(st);
	*in_len -= (size_t)(st->next_in - *in);
	*in = st->next_in;
	*out_len -= (size_t)(st->next_out - *out);
	*out = st->next_out;
	if (r != ISAL_DECOMP_OK && r != ISAL_END_INPUT && r != ISAL_OUT_OVERFLOW)
		return -1;
	return st->block_state == ISAL_BLOCK_FINISH ? 1 : 0;
}

void sp_inflate_free(struct sp_inflate *x)
{
	free(x);
}

#else

struct sp_inflate {
	int unused;
};

int sp_inflate_available(void)
{
	return 0;
}

struct sp_inflate *sp_inflate_new(enum sp_inflate_wrap wrap)
{
	(void)wrap;
	return NULL;
}

int sp_inflate_step(struct sp_inflate *x, const uint8_t **in, size_t *in_len, uint8_t **out,
		    size_t *out_len)
{
	(void)x;
	(void)in;
	(void)in_len;
	(void)out;
	(void)out_len;
	return -1;
}

void sp_inflate_reset(struct sp_inflate *x)
{
	(void)x;
}

void sp_inflate_free(struct sp_inflate *x)
{
	free(x);
}

#endif
