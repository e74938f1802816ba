/*
 * fuzz_workload.c - libFuzzer target: the simulator's workload parser
 * (wl_parse), unconstrained and against each platform.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_workload.h"
#include "base/log.h"
#include "plat/plat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const plats[] = { NULL, "skl", "hsx" };
	char err[512];

	log_init("fuzz", LOG_LVL_ERR);
	for (size_t i = 0; i < sizeof(plats) / sizeof(plats[0]); i++) {
		const struct platform *p = plats[i] ? plat_by_id(plats[i]) : NULL;
		struct workload *w = NULL;

		err[0] = '\0';
		if (wl_parse((const char *)data, size, "fuzz.json", p, &w, err,
			     sizeof(err)) == 0) {
			if (!w)
				abort();
			wl_free(w);
		} else if (strncmp(err, "fuzz.json", 9) != 0) {
			fprintf(stderr, "error without the file name: %s\n", err);
			abort();
		}
	}
	return 0;
}
