/*
 * sim_test.h - what the simulator's unit tests (test_sim_skl.c,
 * test_sim_hsx.c, test_sim_snbep.c) share: a fake clock the simulator
 * counts on (so every expected count is exact), a scratch directory for
 * workload and state files, register access that says what failed, and
 * opening the simulator on the fake clock.
 *
 * Include after tap.h.  Define SIM_TEST_NAME (the scratch directory's
 * name) first, and SIM_TEST_PLATFORM (a const struct platform *) to get
 * P and unit(); main() creates tmpdir with mkdtemp() and removes it.
 */
#ifndef UNCORED_TESTS_SIM_TEST_H
#define UNCORED_TESTS_SIM_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hw/hw.h"
#include "sim/hw_sim.h"
#include "plat/plat.h"

static int64_t fake_ns = 1000000000000ll;

/* The simulator's clock (hw_sim_set_clock()): moves only by advance(). */
static inline int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_ns;
}

/* Lets s seconds of simulated time pass. */
static inline void advance(double s)
{
	fake_ns += (int64_t)(s * 1e9);
}

static char tmpdir[] = "/tmp/" SIM_TEST_NAME "_XXXXXX";

/* Writes text to tmpdir/name; returns the path (static storage). */
static inline const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f) {
		printf("Bail out! cannot write %s\n", path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

/* A register's value (0xdeadbeef when the read fails, which is said). */
static inline uint64_t rd(struct hw *hw, struct hw_addr a)
{
	uint64_t v = 0xdeadbeef;

	if (hw_read(hw, &a, &v) < 0)
		printf("# read failed: %s\n", hw_last_error());
	return v;
}

/* Writes a register; returns hw_write()'s 0 or -errno. */
static inline int wr(struct hw *hw, struct hw_addr a, uint64_t v)
{
	return hw_write(hw, &a, v);
}

/* Opens the simulator (workload and state file may be NULL) on the fake
 * clock; bails out if it cannot. */
static inline void open_sim(struct hw *hw, const char *wl, const char *state)
{
	struct hw_opts o = { .sim_workload = wl, .sim_state = state };

	if (hw_open(hw, &hw_sim_ops, &o) < 0) {
		printf("Bail out! cannot open simulator: %s\n", hw_last_error());
		exit(1);
	}
	hw_sim_set_clock(hw, fake_clock, NULL);
}

#ifdef SIM_TEST_PLATFORM
static const struct platform *P = SIM_TEST_PLATFORM;

/* P's unit called name (its index in *index unless NULL); bails out if
 * P has none. */
static inline const struct unit_type *unit(const char *name, int *index)
{
	int i;
	const struct unit_type *u = plat_unit(P, name, &i);

	if (!u) {
		printf("Bail out! no unit %s\n", name);
		exit(1);
	}
	if (index)
		*index = i;
	return u;
}
#endif

#endif
