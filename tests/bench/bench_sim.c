/*
 * bench_sim.c - the simulator's cost per register access as the machine
 * grows: a platform's model at 1, 2, 4 and 8 sockets (every box at its
 * maximum; tests/sim_scale.h), reading every counter once per tick as the
 * sampler does.  Prints counters, reads per tick, microseconds per tick
 * and per read.  With a register lookup that does not depend on the
 * machine's size, us/read is flat from 1 to 8 sockets.
 *
 *   bench_sim [PLATFORM [TICKS]]     default: hsx 200
 */
#include "config.h"

#include "tests/sim_scale.h"

int main(int argc, char **argv)
{
	const char *plat = argc > 1 ? argv[1] : "hsx";
	unsigned ticks = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
	static const unsigned sockets[] = { 1, 2, 4, 8 };

	if (!plat_by_id(plat) || !ticks) {
		fprintf(stderr, "usage: bench_sim [PLATFORM [TICKS]]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(sockets) / sizeof(sockets[0]); i++) {
		struct sim_scale b;
		struct hw hw;
		double dt;

		if (sim_scale_open(plat, sockets[i], &hw, &b) < 0) {
			fprintf(stderr, "bench_sim: %s\n", hw_last_error());
			return 1;
		}
		dt = sim_scale_ticks(&hw, &b, ticks);
		printf("%s %u socket%s: %5u counters, %5u reads/tick, %9.1f "
		       "us/tick, %6.3f us/read\n", plat, sockets[i],
		       sockets[i] > 1 ? "s" : " ", b.ncounters, b.nreads,
		       dt / ticks * 1e6, dt / ticks / b.nreads * 1e6);
		sim_scale_close(&hw, &b);
	}
	return 0;
}
