/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The protocol buffer wire format (include/symprof/pbwire.h): varints and
 * keys written into an sp_buf, and fields read from memory with each
 * length checked against the end of its message.
 */
#include "symprof/pbwire.h"

/* ---- writing ---- */

void sp_pb_put_varint(struct sp_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	sp_buf_add(b, tmp, n);
}

static void put_key(struct sp_buf *b, uint32_t field, enum sp_pb_wire wire)
{
	sp_pb_put_varint(b, (uint64_t)field << 3 | wire);
}

void sp_pb_put_uint(struct sp_buf *b, uint32_t field, uint64_t v)
{
	put_key(b, field, SP_PB_VARINT);
	sp_pb_put_varint(b, v);
}

void sp_pb_put_uint_nz(struct sp_buf *b, uint32_t field, uint64_t v)
{
	if (v)
		sp_pb_put_uint(b, field, v);
}

void sp_pb_put_bytes(struct sp_buf *b, uint32_t field, const void *data, size_t len)
{
	put_key(b, field, SP_PB_LEN);
	sp_pb_put_varint(b, len);
	sp_buf_add(b, data, len);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void sp_pb_put_packed(struct sp_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, len = 0;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += varint_len(v[i]);
	put_key(b, field, SP_PB_LEN);
	sp_pb_put_varint(b, len);
	for (i = 0; i < n; i++)
		sp_pb_put_varint(b, v[i]);
}

/* ---- reading ---- */

void sp_pb_reader_init(struct sp_pb_reader *r, const uint8_t *data, size_t size)
{
	r->p = r->base = data;
	r->end = data + size;
}

void sp_pb_reader_sub(struct sp_pb_reader *r, const struct sp_pb_reader *parent,
		      const struct sp_pb_field *f)
{
	r->p = f->data;
	r->end = f->data + f->len;
	r->base = parent->base;
}

size_t sp_pb_offset(const struct sp_pb_reader *r)
{
	return (size_t)(r->p - r->base);
}

enum sp_pb_status sp_pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 70; shift += 7) {
		if (q == end)
			return SP_PB_TRUNCATED;
		if (shift < 64)
			x |= (uint64_t)(*q & 0x7f) << shift;
		if (!(*q++ & 0x80)) {
			*p = q;
			*v = x;
			return SP_PB_OK;
		}
	}
	return SP_PB_BAD_VARINT;
}

static enum sp_pb_status read_value(struct sp_pb_field *f, const uint8_t **p, const uint8_t *end)
{
	enum sp_pb_status st;
	size_t n;

	switch (f->wire) {
	case SP_PB_VARINT:
		return sp_pb_read_varint(p, end, &f->num);
	case SP_PB_I64:
	case SP_PB_I32:
		n = f->wire == SP_PB_I64 ? 8 : 4;
		if ((size_t)(end - *p) < n)
			return SP_PB_TRUNCATED;
		f->num = 0;
		while (n--)
			f->num |= (uint64_t)(*p)[n] << (8 * n);
		*p += f->wire == SP_PB_I64 ? 8 : 4;
		return SP_PB_OK;
	case SP_PB_LEN:
		if ((st = sp_pb_read_varint(p, end, &f->num)) != SP_PB_OK)
			return st;
		if (f->num > (uint64_t)(end - *p))
			return SP_PB_TRUNCATED;
		f->data = *p;
		f->len = (size_t)f->num;
		*p += f->len;
		return SP_PB_OK;
	default:
		return SP_PB_BAD_WIRE;
	}
}

enum sp_pb_status sp_pb_next(struct sp_pb_reader *r, struct sp_pb_field *f)
{
	const uint8_t *p = r->p;
	enum sp_pb_status st;
	uint64_t key;

	if (p == r->end)
		return SP_PB_END;
	f->offset = sp_pb_offset(r);
	f->data = NULL;
	f->len = 0;
	if ((st = sp_pb_read_varint(&p, r->end, &key)) != SP_PB_OK)
		return st;
	f->wire = (enum sp_pb_wire)(key & 7);
	if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
		return SP_PB_BAD_FIELD;
	f->field = (uint32_t)(key >> 3);
	if ((st = read_value(f, &p, r->end)) != SP_PB_OK)
		return st;
	r->p = p;
	return SP_PB_OK;
}

const char *sp_pb_status_text(enum sp_pb_status s)
{
	switch (s) {
	case SP_PB_OK:
		return "no error";
	case SP_PB_END:
		return "the message ends";
	case SP_PB_TRUNCATED:
		return "a field runs past the end of its message";
	case SP_PB_BAD_VARINT:
		return "a varint is longer than 10 bytes";
	case SP_PB_BAD_WIRE:
		return "a field has an invalid wire type";
	case SP_PB_BAD_FIELD:
		return "a field has an invalid number";
	}
	return "?";
}
