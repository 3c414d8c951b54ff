/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fuzz target: recognising a file (formats/registry.c, the readers'
 * probes): the head of the input, decompressed when it is gzip or bzip2,
 * then every probe on the head and on the raw bytes. No probe may read
 * past what it is given; at most one may recognise a head.
 */
#include <stdint.h>
#include <stdlib.h>

#include "symprof/error.h"
#include "symprof/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int (*const probes[])(const uint8_t *, size_t) = {
	sp_fmt_gmon_probe,  sp_fmt_gperf_probe, sp_fmt_igprof_probe,
	sp_fmt_aprof_probe, sp_fmt_pprof_probe,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_error err = SP_ERROR_INIT;
	struct sp_fmt_head *h = malloc(sizeof(*h));
	size_t i, n = 0;

	if (h && sp_fmt_head_of_mem(h, "fuzz", data, size, &err) == 0) {
		for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			n += probes[i](h->data, h->size) != 0;
		if (n > 1)
			abort();
	}
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		probes[i](data, size);
	free(h);
	return 0;
}
