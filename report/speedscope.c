/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=speedscope: a flame graph as speedscope's own file format
 * (jlfwong/speedscope, src/lib/file-format-spec.ts), one "sampled"
 * profile:
 *
 *   {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *    "exporter": "symprof", "name": TITLE, "activeProfileIndex": 0,
 *    "shared": {"frames": [{"name": NAME}, ...]},
 *    "profiles": [{"type": "sampled", "name": TITLE, "unit": UNIT,
 *                  "startValue": 0, "endValue": TOTAL,
 *                  "samples": [[ROOT, ..., LEAF], ...], "weights": [W, ...]}]}
 *
 * A frame is a distinct name, shared by every stack it appears in; a
 * sample is a distinct stack (a node of the flame graph with a self
 * value), outermost frame first, weighted by that value. Values counted
 * in samples that the tree knows the seconds of are weighted in seconds;
 * bytes in bytes; anything else ("none") as the counts they are.
 */
#include "symprof/flame.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "symprof/alloc.h"

/* How weights are written: speedscope's unit and the factor. */
static const char *unit_of(const struct sp_flame *f, double *scale)
{
	*scale = 1;
	if (f->dimen && !strcmp(f->dimen, "seconds") && f->unit_scale > 0) {
		*scale = f->unit_scale;
		return "seconds";
	}
	if (f->unit && !strcmp(f->unit, "seconds"))
		return "seconds";
	if ((f->unit && !strcmp(f->unit, "bytes")) || (f->dimen && !strcmp(f->dimen, "bytes")))
		return "bytes";
	return "none";
}

static void name_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const char *const *names = ctx;

	*k1 = (uint64_t)(uintptr_t)names[i];
	*k2 = 0;
}

/* Each node's frame index (names interned in f: equal names, equal
 * pointers); writes the frames. Node 0 (the root) has none. */
static uint32_t *write_frames(struct sp_flame *f, FILE *out)
{
	uint32_t *frame = sp_xcalloc(f->len + 1, sizeof(*frame));
	struct sp_pairmap index;
	const char **names = sp_xmalloc((f->len + 1) * sizeof(*names));
	uint32_t nframes = 0;
	size_t i;

	sp_pairmap_init(&index, name_key, names);
	fputs("\"shared\":{\"frames\":[", out);
	for (i = 1; i < f->len; i++) {
		const char *name = f->nodes[i].name;
		uint32_t k = sp_pairmap_get(&index, (uint64_t)(uintptr_t)name, 0);

		if (k == UINT32_MAX) {
			k = nframes++;
			names[k] = name;
			sp_pairmap_put(&index, (uint64_t)(uintptr_t)name, 0, k);
			fputs(k ? ",{\"name\":" : "{\"name\":", out);
			sp_esc_json_str(out, name);
			fputc('}', out);
		}
		frame[i] = k;
	}
	fputs("]}", out);
	sp_pairmap_release(&index);
	free(names);
	return frame;
}

static void write_stack(const struct sp_flame *f, const uint32_t *frame, uint32_t node,
			uint32_t **path, size_t *alloc, FILE *out)
{
	size_t depth = 0, i;

	for (; node != 0 && node != SP_FLAME_NONE; node = f->nodes[node].parent) {
		SP_ALLOC_GROW(*path, depth + 1, *alloc);
		(*path)[depth++] = frame[node];
	}
	fputc('[', out);
	for (i = depth; i > 0; i--)
		fprintf(out, i == depth ? "%u" : ",%u", (*path)[i - 1]);
	fputc(']', out);
}

void sp_flame_write_speedscope(struct sp_flame *f, FILE *out)
{
	uint32_t *frame, *path = NULL;
	size_t i, alloc = 0, n = 0;
	double scale, total = 0;
	const char *unit;

	sp_flame_finish(f);
	unit = unit_of(f, &scale);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",", out);
	fputs("\"exporter\":\"symprof\",\"name\":", out);
	sp_esc_json_str(out, f->title ? f->title : "symprof");
	fputs(",\"activeProfileIndex\":0,", out);
	frame = write_frames(f, out);
	fputs(",\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	sp_esc_json_str(out, f->title ? f->title : "symprof");
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", unit);
	for (i = 1; i < f->len; i++)
		if (f->nodes[i].self > 0)
			total += f->nodes[i].self * scale;
	sp_esc_json_num(out, total);
	fputs(",\n\"samples\":[", out);
	for (i = 1; i < f->len; i++) {
		if (!(f->nodes[i].self > 0))
			continue;
		fputs(n++ ? ",\n" : "\n", out);
		write_stack(f, frame, (uint32_t)i, &path, &alloc, out);
	}
	fputs("],\n\"weights\":[", out);
	n = 0;
	for (i = 1; i < f->len; i++) {
		if (!(f->nodes[i].self > 0))
			continue;
		if (n++)
			fputc(',', out);
		sp_esc_json_num(out, f->nodes[i].self * scale);
	}
	fputs("]}]}\n", out);
	free(path);
	free(frame);
}
