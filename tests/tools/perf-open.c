/*
 * perf-open.c - can this process count system-wide through perf, here?
 * For tests/scenario/container.sh, run inside the uncored image with the
 * capabilities a pod would have.
 *
 *   perf-open SYSFS PMU CONFIG
 *
 * First asks uncored's own start-up check (pev_access(), src/hw/
 * perf_event.c: perf_event_paranoid, cap_last_cap and the effective
 * capabilities) and prints its answer: "uncored: allowed: WHY" or
 * "uncored: refused: MESSAGE".  Then asks the kernel: opens one counting
 * event of SYSFS/bus/event_source/devices/PMU (its type file) with
 * config CONFIG, CPU-wide (pid -1) on CPU 0, as the perf backend opens
 * uncore events, reads it twice and prints "kernel: opened PMU/CONFIG on
 * cpu 0: V1 V2" or "kernel: refused: perf_event_open: ERRNO".
 * Exit status: 0 both allowed, 1 both refused, 2 they disagree, 3 usage
 * or an unreadable PMU.
 *
 * Built statically and without sanitizers (Makefile.am): the image has
 * only uncored's libraries, and it is mounted in, not part of it.
 */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hw/perf_event.h"

static long read_type(const char *sysfs, const char *pmu)
{
	char path[512];
	long type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type",
		 sysfs, pmu);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "perf-open: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fscanf(f, "%ld", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	char why[1024];
	uint64_t v1 = 0, v2 = 0;
	unsigned long long config;
	char *end;
	long type;
	int allowed, fd;

	if (argc != 4) {
		fprintf(stderr, "usage: perf-open SYSFS PMU CONFIG\n");
		return 3;
	}
	errno = 0;
	config = strtoull(argv[3], &end, 0);
	if (errno || *end || end == argv[3]) {
		fprintf(stderr, "perf-open: CONFIG \"%s\" is not a number\n",
			argv[3]);
		return 3;
	}
	if ((type = read_type(argv[1], argv[2])) < 0)
		return 3;
	allowed = pev_access("/proc", why, sizeof(why)) == 0;
	printf("uncored: %s: %s\n", allowed ? "allowed" : "refused", why);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)type;
	a.config = config;
	fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
	if (fd < 0) {
		printf("kernel: refused: perf_event_open: %s\n",
		       strerror(errno));
		return allowed ? 2 : 1;
	}
	if (read(fd, &v1, sizeof(v1)) != sizeof(v1))
		v1 = 0;
	usleep(10000);
	if (read(fd, &v2, sizeof(v2)) != sizeof(v2))
		v2 = 0;
	close(fd);
	printf("kernel: opened %s/%s on cpu 0: %llu %llu\n", argv[2], argv[3],
	       (unsigned long long)v1, (unsigned long long)v2);
	return allowed ? 0 : 2;
}
