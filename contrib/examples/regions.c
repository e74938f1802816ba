/* regions.c - the DRAM bytes of a streaming loop and the LLC misses of a
 * pointer chase, counted with libuncored's regions (uncored_read(3)).
 *   cc regions.c $(pkg-config --cflags --libs uncored) -o regions
 *   ./regions [DRAM_READS_EVENT LLC_MISS_EVENT]      (default: skl's)
 * Uncore counts are per socket: run it on an otherwise quiet machine. */
#include <stdio.h>
#include <stdlib.h>
#include <uncored.h>

#define N (8u << 20)		/* 8 Mi words, 64 MiB: more than any LLC */

int main(int argc, char **argv)
{
	const char *dram = argc > 2 ? argv[1] : "DRAM_DATA_READS";
	const char *miss = argc > 2 ? argv[2] : "UNC_CBO_CACHE_LOOKUP.ANY_I";
	struct uncored *u = uncored_connect(NULL);
	size_t *next = malloc(N * sizeof(*next)), sum = 0, i, j;
	char events[256], id[32];

	if (!u || !next) {
		fprintf(stderr, "regions: %s\n", u ? "out of memory" : uncored_error(NULL));
		return 1;
	}
	snprintf(events, sizeof(events), "%s,%s", dram, miss);
	if (uncored_claim(u, events, 60, 0, id, sizeof(id)) < 0) {
		fprintf(stderr, "regions: %s\n", uncored_error(u));
		return 1;
	}
	for (i = 0; i < N; i++)		/* x -> 5x + 1 mod 2^23: one cycle */
		next[i] = (i * 5 + 1) & (N - 1);
	uncored_region_begin(u, "stream");
	for (i = 0; i < N; i++)
		sum += next[i];
	uncored_region_end(u, "stream");
	uncored_region_begin(u, "chase");
	for (i = 0, j = 0; i < N / 8; i++)
		j = next[j];
	uncored_region_end(u, "chase");
	uncored_region_report(u, stdout);
	printf("DRAM bytes = %s x 64 (checksum %zu)\n", dram, sum + j);
	uncored_release(u, id);
	uncored_disconnect(u);
	free(next);
	return 0;
}
