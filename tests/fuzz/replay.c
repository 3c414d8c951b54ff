/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Replays fuzz inputs through the fuzz target without libFuzzer: every
 * file named on the command line (the corpus, and inputs that once
 * crashed) must run cleanly, under ASan+UBSan in the sanitizer build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "symprof/error.h"
#include "symprof/mfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i, n = 0;

	for (i = 1; i < argc; i++) {
		struct sp_mfile f;

		if (sp_mfile_open(&f, argv[i], NULL) < 0) {
			fprintf(stderr, "replay: cannot open '%s'\n", argv[i]);
			return 1;
		}
		LLVMFuzzerTestOneInput(f.data, f.size);
		sp_mfile_close(&f);
		n++;
	}
	printf("replayed %d inputs\n", n);
	return n ? 0 : 1;
}
