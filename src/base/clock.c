/*
 * clock.c - the system clock source (see clock.h).
 */
#include "config.h"

#include <time.h>

#include "clock.h"

static int64_t sys_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t sys_mono(void *ctx)
{
	(void)ctx;
	return sys_ns(CLOCK_MONOTONIC);
}

static int64_t sys_real(void *ctx)
{
	(void)ctx;
	return sys_ns(CLOCK_REALTIME);
}

const struct clock_src clock_system = { sys_mono, sys_real, NULL };

static int64_t manual_mono(void *ctx)
{
	return ((const struct clock_manual *)ctx)->now_ns;
}

static int64_t manual_real(void *ctx)
{
	/* 2023-11-14: any fixed wall-clock epoch will do */
	return 1700000000000000000 + ((const struct clock_manual *)ctx)->now_ns;
}

void clock_manual_init(struct clock_manual *f, int64_t start_ns)
{
	f->src = (struct clock_src){ manual_mono, manual_real, f };
	f->now_ns = start_ns;
}
