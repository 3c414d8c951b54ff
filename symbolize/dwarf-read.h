/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: reading DWARF bytes the way libbfd does. Reads
 * past the end yield 0 and leave the cursor at the end (bfd's
 * read_N_bytes), LEB128s keep their low 64 bits, and an empty string
 * counts as none (bfd's read_string).
 */
#ifndef SYMPROF_SYMBOLIZE_DWARF_READ_H
#define SYMPROF_SYMBOLIZE_DWARF_READ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rd {
	const uint8_t *p, *end;
	int be;
};

static inline uint64_t rd_uint(struct rd *r, int n)
{
	uint64_t v = 0;
	int i;

	if (r->end - r->p < n) {
		r->p = r->end;
		return 0;
	}
	if (r->be)
		for (i = 0; i < n; i++)
			v = (v << 8) | r->p[i];
	else
		for (i = n - 1; i >= 0; i--)
			v = (v << 8) | r->p[i];
	r->p += n;
	return v;
}

static inline uint64_t rd_leb(struct rd *r, int is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t byte = 0;

	if (r->p < r->end && !(*r->p & 0x80)) {
		byte = *r->p++;
		return is_signed && (byte & 0x40) ? byte | ~(uint64_t)0x7f : byte;
	}
	while (r->p < r->end) {
		byte = *r->p++;
		if (shift < 64) {
			v |= (uint64_t)(byte & 0x7f) << shift;
			shift += 7;
		}
		if (!(byte & 0x80))
			break;
	}
	if (is_signed && shift < 64 && (byte & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

/* A NUL-terminated string; NULL (bfd) if it is empty or unterminated. */
static inline const char *rd_string(struct rd *r)
{
	const uint8_t *s = r->p;
	const uint8_t *nul = memchr(s, 0, (size_t)(r->end - s));

	if (!nul) {
		r->p = r->end;
		return NULL;
	}
	r->p = nul + 1;
	return nul == s ? NULL : (const char *)s;
}

static inline void rd_skip(struct rd *r, uint64_t n)
{
	if (n > (uint64_t)(r->end - r->p))
		r->p = r->end;
	else
		r->p += n;
}

#endif
