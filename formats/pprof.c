/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pprof's profile.proto (github.com/google/pprof, proto/profile.proto),
 * the format Go, pprof-rs and perf_data_converter write, usually gzipped.
 * For now symprof only recognises one, to name it; the reader is to come.
 *
 * A protocol buffer is a sequence of fields, each a key (a varint: field
 * number << 3 | wire type) and a value: a varint (wire type 0), 8 bytes
 * (1), a length and as many bytes (2: strings, packed numbers, nested
 * messages) or 4 bytes (5). A Profile message has these fields:
 *
 *    1 sample_type   ValueType      7 drop_frames      int64
 *    2 sample        Sample         8 keep_frames      int64
 *    3 mapping       Mapping        9 time_nanos       int64
 *    4 location      Location      10 duration_nanos   int64
 *    5 function      Function      11 period_type      ValueType
 *    6 string_table  string        12 period           int64
 *   13 comment       int64s (packed or not)
 *   14 default_sample_type, 15 doc_url   int64
 *
 * The probe walks the fields of the head: each must be one of these with
 * its wire type, and each nested message (fields 1-5, 11) a sequence of
 * the fields of its type, as far as the head holds them; at least one
 * nested message must be complete and hold a field (a profile without one
 * has no samples). Other files fail within a few bytes: binary formats
 * start with a zero key (gperftools, BSD gmon.out) or one of a wire type
 * no Profile field has (ELF, "gmon"), text with keys of unknown fields or
 * invalid wire types. Of three million buffers of random bytes (uniform,
 * printable, mostly zeros) none passes; when nested messages only had to
 * be well-formed, 18 did.
 */
#include "symprof/formats.h"

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

/* How a field ended: complete, cut by the end of the head, or malformed. */
enum walk { WALK_OK, WALK_CUT, WALK_BAD };

/* A varint at *p: WALK_OK and its value, WALK_CUT, or WALK_BAD when
 * longer than 10 bytes. */
static enum walk varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		if (*p == end)
			return WALK_CUT;
		*v |= (uint64_t)(**p & 0x7f) << (shift < 64 ? shift : 63);
		if (!(*(*p)++ & 0x80))
			return WALK_OK;
	}
	return WALK_BAD;
}

/* The value of a field of wire type `wire` at *p; a length-delimited
 * one's bytes in [*body, *p). */
static enum walk value(const uint8_t **p, const uint8_t *end, unsigned wire, const uint8_t **body)
{
	uint64_t v;
	enum walk w;

	switch (wire) {
	case WIRE_VARINT:
		return varint(p, end, &v);
	case WIRE_I64:
	case WIRE_I32: {
		size_t n = wire == WIRE_I64 ? 8 : 4;

		if ((size_t)(end - *p) < n)
			return WALK_CUT;
		*p += n;
		return WALK_OK;
	}
	case WIRE_LEN:
		if ((w = varint(p, end, &v)) != WALK_OK)
			return w;
		*body = *p;
		if (v > (uint64_t)(end - *p)) {
			*p = end;
			return WALK_CUT;
		}
		*p += v;
		return WALK_OK;
	default:
		return WALK_BAD;
	}
}

/* The fields of the messages a Profile holds, as bit masks of field
 * numbers by wire type: varints, and length-delimited ones (packed
 * numbers, nested Label and Line messages). */
struct schema {
	uint16_t varints, lens;
};

#define F(n) (1u << (n))

static const struct schema schemas[16] = {
	[1] = {F(1) | F(2), 0},			     /* ValueType */
	[2] = {F(1) | F(2), F(1) | F(2) | F(3)},     /* Sample */
	[3] = {0x7fe, 0},			     /* Mapping: 1-10 */
	[4] = {F(1) | F(2) | F(3) | F(5), F(4)},     /* Location */
	[5] = {F(1) | F(2) | F(3) | F(4) | F(5), 0}, /* Function */
	[11] = {F(1) | F(2), 0},		     /* ValueType */
};

/* The fields of a nested message of Profile field `field` in [p, end)
 * (`cut`: the head ends there, not the message): how many, or -1 if one
 * is not the schema's. */
static int nested_fields(uint64_t field, const uint8_t *p, const uint8_t *end, int cut)
{
	const struct schema *sc = &schemas[field];
	int n = 0;

	while (p < end) {
		const uint8_t *body;
		uint64_t key, f;
		unsigned wire;
		enum walk w = varint(&p, end, &key);

		if (w == WALK_CUT && cut)
			return n;
		f = key >> 3;
		wire = (unsigned)(key & 7);
		if (w != WALK_OK || f >= 16 ||
		    !((wire == WIRE_VARINT && (sc->varints & F(f))) ||
		      (wire == WIRE_LEN && (sc->lens & F(f)))))
			return -1;
		w = value(&p, end, wire, &body);
		if (w == WALK_BAD || (w == WALK_CUT && !cut))
			return -1;
		n++;
	}
	return n;
}

/* The wire type of Profile field `field`, or -1 for no such field; 13
 * (comment) is also allowed packed. */
static int profile_wire(uint64_t field)
{
	static const signed char wire[16] = {
		-1,	     WIRE_LEN,	  WIRE_LEN,    WIRE_LEN,    WIRE_LEN,	 WIRE_LEN,
		WIRE_LEN,    WIRE_VARINT, WIRE_VARINT, WIRE_VARINT, WIRE_VARINT, WIRE_LEN,
		WIRE_VARINT, WIRE_VARINT, WIRE_VARINT, WIRE_VARINT,
	};

	return field < 16 ? wire[field] : -1;
}

static int is_message(uint64_t field)
{
	return field < 16 && (schemas[field].varints || schemas[field].lens);
}

int sp_fmt_pprof_probe(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	int messages = 0;

	while (p < end) {
		const uint8_t *body = NULL;
		uint64_t key, field;
		unsigned wire;
		enum walk w;
		int nested = 0;

		if ((w = varint(&p, end, &key)) != WALK_OK)
			return w == WALK_CUT && messages;
		field = key >> 3;
		wire = (unsigned)(key & 7);
		if (profile_wire(field) < 0 ||
		    (wire != (unsigned)profile_wire(field) && !(field == 13 && wire == WIRE_LEN)))
			return 0;
		w = value(&p, end, wire, &body);
		if (w != WALK_BAD && is_message(field) && body)
			nested = nested_fields(field, body, p, w == WALK_CUT);
		if (w == WALK_BAD || nested < 0)
			return 0;
		if (w == WALK_CUT)
			break;
		messages += nested > 0;
	}
	return messages > 0;
}
