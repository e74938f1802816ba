/*
 * sim_throttle.c - the simulated kernel's thermal_throttle/ files and the
 * workload's "thermal_throttle" object (sim_throttle.h).
 *
 * What the kernel writes (drivers/thermal/intel/therm_throt.c,
 * thermal_throttle_add_dev(); docs.kernel.org admin-guide/thermal/
 * intel_thermal_throttle.rst): a thermal_throttle/ group per CPU with
 * core_throttle_count, core_throttle_{max,total}_time_ms, and where the
 * CPU has package thermal status the package_* files; "%llu\n" values,
 * mode 0444.  The package's status is broadcast to every CPU of it, so
 * every CPU of a socket shows the same package counters.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sim/sim_throttle.h"
#include "sim/sim_wl_parse.h"

#define ST_DIR "devices/system/cpu"

/* One key's values (a number, or one per phase) into socket sock's
 * (-1: every socket's) row of arr. */
static int put_rates(struct pctx *c, json_object *val, double *arr, int sock,
		     double hi, const char *what)
{
	unsigned np = c->w->nphases;
	double x[WL_MAX_PHASES];
	int r;

	if ((r = wlp_get_per_phase(c, val, hi, what, x)) < 0)
		return r;
	for (unsigned s = 0; s < PLAT_MAX_SOCKETS; s++)
		if (sock < 0 || (unsigned)sock == s)
			memcpy(&arr[(size_t)s * np], x, np * sizeof(double));
	return 0;
}

int wlp_parse_throttle(struct pctx *c, json_object *o)
{
	struct wl_throttle *t = &c->w->throttle;
	size_t n = (size_t)PLAT_MAX_SOCKETS *
		   (c->w->nphases ? c->w->nphases : 1);
	int r, sock;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"ms_per_s\": N, "
				"\"count_per_s\": N}, not %s", wlp_type_name(o));
	t->given = true;
	t->ms = calloc(n, sizeof(double));
	t->count = calloc(n, sizeof(double));
	if (!t->ms || !t->count)
		return wlp_fail_nomem(c);
	/* every socket's first, then "sN/": whatever the object's order */
	for (int pass = 0; pass < 2; pass++) {
		json_object_object_foreach(o, key, val) {
			size_t old = wlp_path_key(c, key);
			const char *name = key;

			if ((r = wlp_parse_socket_prefix(c, &name, &sock)) < 0)
				return r;
			if ((sock >= 0) != (pass == 1)) {
				wlp_path_pop(c, old);
				continue;
			}
			if (strcmp(name, "ms_per_s") == 0)
				r = put_rates(c, val, t->ms, sock, 1000,
					      "throttled milliseconds per "
					      "second, 0..1000");
			else if (strcmp(name, "count_per_s") == 0)
				r = put_rates(c, val, t->count, sock, 1e6,
					      "throttle episodes per second, "
					      "0..1000000");
			else
				r = wlp_fail(c, "unknown key (\"thermal_throttle\" "
					     "accepts: ms_per_s, count_per_s, "
					     "and sN/ before either)");
			if (r < 0)
				return r;
			wlp_path_pop(c, old);
		}
	}
	return 0;
}

static uint64_t integral(const struct workload *w, const double *arr,
			 unsigned sock, double t)
{
	if (!w->throttle.given || sock >= PLAT_MAX_SOCKETS || t <= 0)
		return 0;
	return (uint64_t)floor(wl_integral(w, &arr[(size_t)sock * w->nphases],
					   0, t));
}

uint64_t sthr_ms(const struct workload *w, unsigned sock, double t)
{
	return integral(w, w->throttle.ms, sock, t);
}

uint64_t sthr_count(const struct workload *w, unsigned sock, double t)
{
	return integral(w, w->throttle.count, sock, t);
}

/* dir/name := "v\n", 0444, by a rename over the old file. */
static int put(const char *dir, const char *name, uint64_t v, char *why,
	       size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;
	int e;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path) ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.new", dir, name) >=
	    sizeof(tmp)) {
		snprintf(why, len, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	f = fopen(tmp, "we");
	if (!f || fprintf(f, "%llu\n", (unsigned long long)v) < 0 ||
	    fclose(f) != 0 || chmod(tmp, 0444) < 0 || rename(tmp, path) < 0) {
		e = errno ? errno : EIO;
		snprintf(why, len, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int sthr_write(const struct workload *w, unsigned nsockets,
	       unsigned cpus_per_socket, const char *sysfs, double t,
	       char *why, size_t len)
{
	char dir[PATH_MAX];
	bool fresh;
	int r;

	if (!w->throttle.given)
		return 0;
	for (unsigned cpu = 0; cpu < nsockets * cpus_per_socket; cpu++) {
		unsigned s = cpu / cpus_per_socket;

		if ((size_t)snprintf(dir, sizeof(dir), "%s/" ST_DIR "/cpu%u/"
				     "thermal_throttle", sysfs, cpu) >=
		    sizeof(dir)) {
			snprintf(why, len, "%s: path too long", sysfs);
			return -ENAMETOOLONG;
		}
		fresh = mkdir(dir, 0755) == 0;
		if (!fresh && errno != EEXIST) {
			r = errno;
			snprintf(why, len, "cannot create %s: %s", dir,
				 strerror(r));
			return -r;
		}
		if ((r = put(dir, "package_throttle_total_time_ms",
			     sthr_ms(w, s, t), why, len)) < 0 ||
		    (r = put(dir, "package_throttle_count",
			     sthr_count(w, s, t), why, len)) < 0)
			return r;
		/* the cores' stay 0: written once */
		if (fresh && ((r = put(dir, "core_throttle_total_time_ms", 0,
				       why, len)) < 0 ||
			      (r = put(dir, "core_throttle_count", 0, why,
				       len)) < 0))
			return r;
	}
	return 0;
}
