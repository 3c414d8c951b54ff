/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Encoding a large pprof profile two ways (bench/proto-bench.sh):
 *
 *   proto-bench own SAMPLES       symprof's encoder (core/pbwire.c), fields
 *                                 written into one buffer as report/proto.c
 *                                 writes them
 *   proto-bench protobuf-c SAMPLES  libprotobuf-c: the message tree built
 *                                 (one struct per sample, location, line,
 *                                 function), packed_size, pack
 *
 * The profile is synthetic and the same for both: SAMPLES samples of 2
 * values with stacks of 8 to 40 locations, 100,000 locations with 1 to 3
 * lines, 20,000 functions, 40,000 strings. Prints the time to encode (not
 * to gzip: the same for both), the encoded size, a checksum of the bytes
 * (equal: both wrote the same message) and the peak resident memory.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "profile.pb-c.h"
#include "symprof/buf.h"
#include "symprof/pbwire.h"

#define NLOCS 100000
#define NFUNCS 20000
#define NSTRS 40000

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct data {
	size_t nsamples;
	uint64_t *ids; /* all stacks, one after the other */
	size_t *first; /* nsamples + 1 */
	int64_t *vals; /* 2 per sample */
	uint32_t nlines[NLOCS], line_fn[NLOCS][3];
	char *strs[NSTRS];
};

static void make(struct data *d, size_t n)
{
	size_t i, k, total = 0;

	d->nsamples = n;
	d->first = malloc((n + 1) * sizeof(*d->first));
	d->vals = malloc(2 * n * sizeof(*d->vals));
	for (i = 0; i < n; i++) {
		d->first[i] = total;
		total += 8 + next() % 33;
	}
	d->first[n] = total;
	d->ids = malloc(total * sizeof(*d->ids));
	for (i = 0; i < total; i++)
		d->ids[i] = 1 + next() % NLOCS;
	for (i = 0; i < n; i++) {
		d->vals[2 * i] = 1 + (int64_t)(next() % 5);
		d->vals[2 * i + 1] = d->vals[2 * i] * 10000000;
	}
	for (i = 0; i < NLOCS; i++) {
		d->nlines[i] = 1 + (uint32_t)(next() % 3);
		for (k = 0; k < 3; k++)
			d->line_fn[i][k] = 1 + (uint32_t)(next() % NFUNCS);
	}
	for (i = 0; i < NSTRS; i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), i ? "function_%zu_%llx" : "", i,
			 (unsigned long long)(next() & 0xffffff));
		d->strs[i] = strdup(buf);
	}
}

/* ---- symprof's encoder ---- */

static void own(const struct data *d, struct sp_buf *out)
{
	struct sp_buf tmp = SP_BUF_INIT, line = SP_BUF_INIT;
	uint64_t vals[2];
	size_t i, k;

	for (i = 0; i < d->nsamples; i++) {
		sp_buf_reset(&tmp);
		sp_pb_put_packed(&tmp, 1, d->ids + d->first[i], d->first[i + 1] - d->first[i]);
		vals[0] = (uint64_t)d->vals[2 * i];
		vals[1] = (uint64_t)d->vals[2 * i + 1];
		sp_pb_put_packed(&tmp, 2, vals, 2);
		sp_pb_put_bytes(out, 2, tmp.buf, tmp.len);
	}
	for (i = 0; i < NLOCS; i++) {
		sp_buf_reset(&tmp);
		sp_pb_put_uint(&tmp, 1, i + 1);
		sp_pb_put_uint(&tmp, 3, 0x400000 + i * 16);
		for (k = 0; k < d->nlines[i]; k++) {
			sp_buf_reset(&line);
			sp_pb_put_uint(&line, 1, d->line_fn[i][k]);
			sp_pb_put_uint(&line, 2, 10 + k);
			sp_pb_put_bytes(&tmp, 4, line.buf, line.len);
		}
		sp_pb_put_bytes(out, 4, tmp.buf, tmp.len);
	}
	for (i = 0; i < NFUNCS; i++) {
		sp_buf_reset(&tmp);
		sp_pb_put_uint(&tmp, 1, i + 1);
		sp_pb_put_uint(&tmp, 2, 1 + i);
		sp_pb_put_uint(&tmp, 3, 1 + i);
		sp_pb_put_uint(&tmp, 5, 100 + i);
		sp_pb_put_bytes(out, 5, tmp.buf, tmp.len);
	}
	for (i = 0; i < NSTRS; i++)
		sp_pb_put_bytes(out, 6, d->strs[i], strlen(d->strs[i]));
	sp_buf_release(&tmp);
	sp_buf_release(&line);
}

/* ---- libprotobuf-c ---- */

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

static uint8_t *with_protobuf_c(const struct data *d, size_t *len)
{
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	Sample *samples = calloc(d->nsamples, sizeof(*samples));
	Location *locs = calloc(NLOCS, sizeof(*locs));
	Line *lines = calloc(NLOCS * 3, sizeof(*lines));
	Function *funcs = calloc(NFUNCS, sizeof(*funcs));
	size_t i, k;
	uint8_t *buf;

	p.n_sample = d->nsamples;
	p.sample = malloc(d->nsamples * sizeof(*p.sample));
	for (i = 0; i < d->nsamples; i++) {
		perftools__profiles__sample__init(&samples[i]);
		samples[i].n_location_id = d->first[i + 1] - d->first[i];
		samples[i].location_id = (uint64_t *)d->ids + d->first[i];
		samples[i].n_value = 2;
		samples[i].value = (int64_t *)d->vals + 2 * i;
		p.sample[i] = &samples[i];
	}
	p.n_location = NLOCS;
	p.location = malloc(NLOCS * sizeof(*p.location));
	for (i = 0; i < NLOCS; i++) {
		perftools__profiles__location__init(&locs[i]);
		locs[i].id = i + 1;
		locs[i].address = 0x400000 + i * 16;
		locs[i].n_line = d->nlines[i];
		locs[i].line = malloc(3 * sizeof(*locs[i].line));
		for (k = 0; k < d->nlines[i]; k++) {
			Line *l = &lines[3 * i + k];

			perftools__profiles__line__init(l);
			l->function_id = d->line_fn[i][k];
			l->line = (int64_t)(10 + k);
			locs[i].line[k] = l;
		}
		p.location[i] = &locs[i];
	}
	p.n_function = NFUNCS;
	p.function = malloc(NFUNCS * sizeof(*p.function));
	for (i = 0; i < NFUNCS; i++) {
		perftools__profiles__function__init(&funcs[i]);
		funcs[i].id = i + 1;
		funcs[i].name = (int64_t)(1 + i);
		funcs[i].system_name = (int64_t)(1 + i);
		funcs[i].start_line = (int64_t)(100 + i);
		p.function[i] = &funcs[i];
	}
	p.n_string_table = NSTRS;
	p.string_table = (char **)d->strs;
	*len = perftools__profiles__profile__get_packed_size(&p);
	buf = malloc(*len);
	perftools__profiles__profile__pack(&p, buf);
	for (i = 0; i < NLOCS; i++)
		free(locs[i].line);
	free(p.sample);
	free(p.location);
	free(p.function);
	free(samples);
	free(locs);
	free(lines);
	free(funcs);
	return buf;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct data d;
	struct sp_buf out = SP_BUF_INIT;
	struct rusage ru;
	const uint8_t *bytes;
	uint64_t sum = 1469598103934665603ull;
	size_t len, i;
	double t0, t1;

	if (argc != 3) {
		fprintf(stderr, "usage: proto-bench own|protobuf-c SAMPLES\n");
		return 2;
	}
	make(&d, strtoul(argv[2], NULL, 10));
	t0 = now();
	if (!strcmp(argv[1], "own")) {
		own(&d, &out);
		bytes = (const uint8_t *)out.buf;
		len = out.len;
	} else {
		bytes = with_protobuf_c(&d, &len);
	}
	t1 = now();
	for (i = 0; i < len; i++)
		sum = (sum ^ bytes[i]) * 1099511628211ull;
	getrusage(RUSAGE_SELF, &ru);
	printf("%-10s %.3f s  %zu bytes  checksum %016llx  peak %ld KiB\n", argv[1], t1 - t0, len,
	       (unsigned long long)sum, ru.ru_maxrss);
	return 0;
}
