/*
 * bench_sched.c - the cost of the placement step: sched_select() over the
 * baseline and N claims (default 50) drawn from the skl catalog, as the
 * sampler runs it once per tick.  Prints microseconds per call.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plat/plat.h"
#include "sched.h"

int main(int argc, char **argv)
{
	const struct platform *p = plat_by_id("skl");
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 50, iters = 20000;
	struct sched_group *g = calloc(n + 1, sizeof(*g)), **v = calloc(n + 1, sizeof(*v));
	struct evspec *ev = calloc((n + 1) * 2, sizeof(*ev));
	const char *base[] = { "UNC_CBO_CACHE_LOOKUP.ANY_MESI", "UNC_CBO_CACHE_LOOKUP.ANY_I" };
	struct sched_ws ws = { 0 };
	struct timespec a, b;
	char why[128];
	unsigned k = 0, picked = 0;

	if (!p || !g || !v || !ev)
		return 1;
	for (unsigned i = 0; i <= n; i++) {
		unsigned ne = i == 0 ? 2 : 1 + i % 2;

		for (unsigned e = 0; e < ne; e++) {
			const char *name = i == 0 ? base[e] : NULL;

			/* claims: programmable catalog events, round robin */
			while (!name) {
				const struct event *c = &p->events[k++ % p->nevents];

				/* a second event: same unit as the first */
				if (c->ctr_mask &&
				    (e == 0 || strcmp(c->unit,
						      p->units[ev[i * 2].unit]->name) == 0))
					name = c->name;
			}
			sched_resolve(p, name, false, &ev[i * 2 + e], why, sizeof(why));
		}
		g[i] = (struct sched_group){ .ev = &ev[i * 2], .nev = ne,
					     .fixed = i == 0, .order = i };
		for (unsigned e = 0; e < SCHED_MAX_EVENTS; e++)
			g[i].ctr[e] = i == 0 && e < 2 ? (int)e : -1;
		v[i] = &g[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (unsigned t = 0; t < iters; t++) {
		picked += sched_select(p, v, n + 1, &ws);
		for (unsigned i = 0; i <= n; i++) {
			g[i].enabled++;
			g[i].running += g[i].selected;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("placement (sched_select) with the baseline + %u claims: %.2f us per tick, %.1f groups run per tick\n",
	       n, ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / iters / 1e3,
	       (double)picked / iters);
	free(g);
	free(v);
	free(ev);
	sched_ws_free(&ws);
	return 0;
}
