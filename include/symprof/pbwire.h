/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The protocol buffer wire format, as far as pprof's profile.proto needs
 * it (docs/formats.md): writing fields into an sp_buf, and reading them
 * back from memory with every length checked against the end.
 *
 * A message is a sequence of fields, each a key (a varint: field number
 * << 3 | wire type) and a value: a varint (wire type 0), 8 bytes (1), a
 * length and as many bytes (2: strings, packed numbers, nested messages)
 * or 4 bytes (5). Varints are little-endian groups of 7 bits, the high
 * bit set on every byte but the last, at most 10 bytes.
 */
#ifndef SYMPROF_PBWIRE_H
#define SYMPROF_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "symprof/buf.h"

enum sp_pb_wire {
	SP_PB_VARINT = 0,
	SP_PB_I64 = 1,
	SP_PB_LEN = 2,
	SP_PB_I32 = 5,
};

/* ---- writing ---- */

/* Appends v as a varint (1 to 10 bytes). */
void sp_pb_put_varint(struct sp_buf *b, uint64_t v);
/* Appends a varint field (an int64 is its two's complement). */
void sp_pb_put_uint(struct sp_buf *b, uint32_t field, uint64_t v);
/* The same, left out when v is 0 (proto3's default). */
void sp_pb_put_uint_nz(struct sp_buf *b, uint32_t field, uint64_t v);
/* Appends a length-delimited field of `len` bytes. */
void sp_pb_put_bytes(struct sp_buf *b, uint32_t field, const void *data, size_t len);
/* Appends n numbers as one packed field (left out when n is 0). */
void sp_pb_put_packed(struct sp_buf *b, uint32_t field, const uint64_t *v, size_t n);

/* ---- reading ---- */

/* A message being read: [p, end) is left; `base` is where the outermost
 * message starts, for offsets in messages. */
struct sp_pb_reader {
	const uint8_t *p, *end, *base;
};

/* One field: its number, wire type, and value (varints and fixed-size
 * numbers in `num`; a length-delimited one's bytes in [data, data + len),
 * which lie inside the message). `offset` is where its key starts,
 * counted from the reader's base. */
struct sp_pb_field {
	uint32_t field;
	enum sp_pb_wire wire;
	uint64_t num;
	const uint8_t *data;
	size_t len;
	size_t offset;
};

/* Why a field could not be read. */
enum sp_pb_status {
	SP_PB_OK = 0,
	SP_PB_END,	  /* no field left */
	SP_PB_TRUNCATED,  /* a varint, a number or a length runs past the end */
	SP_PB_BAD_VARINT, /* a varint longer than 10 bytes */
	SP_PB_BAD_WIRE,	  /* wire type 3, 4, 6 or 7 (groups, or not protobuf) */
	SP_PB_BAD_FIELD,  /* field number 0 or above 2^29 - 1 */
};

void sp_pb_reader_init(struct sp_pb_reader *r, const uint8_t *data, size_t size);
/* A reader of the bytes of a length-delimited field (same base). */
void sp_pb_reader_sub(struct sp_pb_reader *r, const struct sp_pb_reader *parent,
		      const struct sp_pb_field *f);
/* The next field; on an error, r->p is where the bad field starts. */
enum sp_pb_status sp_pb_next(struct sp_pb_reader *r, struct sp_pb_field *f);
/* The offset of r->p from the base. */
size_t sp_pb_offset(const struct sp_pb_reader *r);
/* One varint of a packed field's bytes, [*p, end): SP_PB_OK and *v, or
 * SP_PB_TRUNCATED, SP_PB_BAD_VARINT. */
enum sp_pb_status sp_pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);
/* What a status means, for messages ("a length runs past the end"). */
const char *sp_pb_status_text(enum sp_pb_status s);

#endif
