/*
 * sim_ufreq.c - the simulated kernel's intel_uncore_frequency tree
 * (sim_ufreq.h) and the workload's "uncore_freq" object that shapes it.
 *
 * What the kernel writes (drivers/platform/x86/intel/uncore-frequency/,
 * Kingxukai/linux @ 9b44fff; read, not copied):
 *  - uncore-frequency.c (the MSR driver) matches intel_uncore_cpu_ids[]:
 *    among uncored's platforms SKYLAKE_X (skx), ICELAKE_X (icx),
 *    SAPPHIRERAPIDS_X (spr), KABYLAKE/COMETLAKE (skl's later parts),
 *    ALDERLAKE (adl), METEORLAKE (mtl); not HASWELL_X (hsx) nor
 *    SANDYBRIDGE_X (snbep).  It refuses to load under a hypervisor.  One
 *    entry per package and die, domain_id UNCORE_DOMAIN_ID_INVALID, so
 *    uncore-frequency-common.c uncore_freq_add_entry() names it
 *    package_%02d_die_%02d.
 *  - uncore-frequency-tpmi.c: one entry per power domain and fabric
 *    cluster, with a domain id, so named uncore%02d by an IDA (the number
 *    says nothing about the package); files package_id, domain_id,
 *    fabric_cluster_id 0400, die_id 0444 only for a compute die of a
 *    package with more than one; plus the package's root entry
 *    (package_%02d_die_00) unless topology_max_dies_per_package() > 1.
 *  - Every entry: min_freq_khz, max_freq_khz 0644, initial_min_freq_khz,
 *    initial_max_freq_khz 0444, current_freq_khz 0400 where a read of it
 *    worked at creation (create_attr_group()); values "%u\n" in kHz.
 *
 * Layouts here: "package_die" (the MSR driver, dies per socket as asked),
 * "uncore" (TPMI: one cluster per domain, "dies" compute domains with
 * die_id when there are more than one, then "io_domains" domains with no
 * die; the root package_PP_die_00 entries when dies is 1), "none".
 * Defaults: package_die on the platforms the MSR driver matches (their
 * simulator data's ufreq_msr), else none; one die; current = the simulator's uncore clock (what
 * uncore_clock_hertz measures), max = initial_max = that clock rounded up
 * to the 100 MHz ratio unit (MSR 0x620 holds ratios), min = initial_min =
 * 800 MHz or the max if lower.  The values do not change while the
 * simulator runs (the real current_freq_khz does).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plat/plat_sim.h"
#include "sim/sim_ufreq.h"
#include "sim/sim_wl_parse.h"

#define UF_DIR "devices/system/cpu/intel_uncore_frequency"
#define UF_MAX_KHZ 10000000ull		/* 10 GHz, as WL_MAX_UCLK */
#define UF_RATIO_KHZ 100000ull		/* MSR 0x620: ratio x 100 MHz */
#define UF_FLOOR_KHZ 800000ull

static const char *const vname[WL_UF_NVALUES] = {
	[WL_UF_MIN] = "min_khz", [WL_UF_MAX] = "max_khz",
	[WL_UF_INITIAL_MIN] = "initial_min_khz",
	[WL_UF_INITIAL_MAX] = "initial_max_khz",
	[WL_UF_CURRENT] = "current_khz",
};
static const char *const fname[WL_UF_NVALUES] = {
	[WL_UF_MIN] = "min_freq_khz", [WL_UF_MAX] = "max_freq_khz",
	[WL_UF_INITIAL_MIN] = "initial_min_freq_khz",
	[WL_UF_INITIAL_MAX] = "initial_max_freq_khz",
	[WL_UF_CURRENT] = "current_freq_khz",
};
static const mode_t fmode[WL_UF_NVALUES] = {
	[WL_UF_MIN] = 0644, [WL_UF_MAX] = 0644, [WL_UF_INITIAL_MIN] = 0444,
	[WL_UF_INITIAL_MAX] = 0444, [WL_UF_CURRENT] = 0400,
};

enum wl_ufreq_layout sufreq_layout(const struct workload *w)
{
	if (w->ufreq.layout != WL_UFREQ_DEFAULT)
		return w->ufreq.layout;
	/* the platforms the MSR driver matches (plat_sim.ufreq_msr) */
	return w->plat && w->plat->sim && w->plat->sim->ufreq_msr
	       ? WL_UFREQ_PACKAGE_DIE : WL_UFREQ_NONE;
}

/* ---- the workload's "uncore_freq" ------------------------------------- */

static int parse_layout(struct pctx *c, json_object *v)
{
	static const char *const names[] = { "package_die", "uncore", "none" };
	static const enum wl_ufreq_layout kinds[] = {
		WL_UFREQ_PACKAGE_DIE, WL_UFREQ_UNCORE, WL_UFREQ_NONE };
	const char *s = json_object_is_type(v, json_type_string)
			? json_object_get_string(v) : NULL;

	for (unsigned i = 0; s && i < ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0) {
			c->w->ufreq.layout = kinds[i];
			return 0;
		}
	return wlp_fail(c, "must be \"package_die\" (the MSR driver's "
		    "package_PP_die_DD), \"uncore\" (the TPMI driver's uncoreNN) "
		    "or \"none\" (no driver), not %s",
		    json_object_to_json_string(v));
}

/* A value in kHz: a number for every domain, or an array of one per
 * domain (socket-major); "current_khz" may be null (no such file). */
static int parse_value(struct pctx *c, enum wl_ufreq_value k, json_object *v,
		       unsigned ndom)
{
	struct wl_ufreq *u = &c->w->ufreq;
	char what[160];
	uint64_t x;
	size_t n;
	int r;

	snprintf(what, sizeof(what), "kHz as the kernel writes it, 1..%llu",
		 UF_MAX_KHZ);
	if (k == WL_UF_CURRENT && v == NULL) {
		u->no_current = true;
		return 0;
	}
	if (!json_object_is_type(v, json_type_array)) {
		if ((r = wlp_get_uint(c, v, 1, UF_MAX_KHZ, what, &x)) < 0)
			return r;
		u->khz[k][0] = x;
		u->n[k] = 1;
		return 0;
	}
	n = json_object_array_length(v);
	if (n != ndom)
		return wlp_fail(c, "%zu values: one per domain is %u (sockets x "
			    "dies, socket 0's dies first), or give one number "
			    "for all", n, ndom);
	for (size_t i = 0; i < n; i++) {
		size_t old = wlp_path_idx(c, i);

		r = wlp_get_uint(c, json_object_array_get_idx(v, i), 1,
				 UF_MAX_KHZ, what, &x);
		if (r < 0)
			return r;
		u->khz[k][i] = x;
		wlp_path_pop(c, old);
	}
	u->n[k] = (unsigned)n;
	return 0;
}

/* The value k of domain dom as given (0: not given). */
static uint64_t given(const struct wl_ufreq *u, enum wl_ufreq_value k,
		      unsigned dom)
{
	return u->n[k] == 0 ? 0 : u->khz[k][u->n[k] == 1 ? 0 : dom];
}

int wlp_parse_ufreq(struct pctx *c, json_object *o)
{
	struct wl_ufreq *u = &c->w->ufreq;
	unsigned ndom;
	uint64_t x;
	int r;

	if (!json_object_is_type(o, json_type_object))
		return wlp_fail(c, "must be an object {\"layout\": \"package_die\", "
			    "\"dies\": N, \"min_khz\": N, ...}, not %s",
			    wlp_type_name(o));
	u->given = true;
	/* the shape first: values are checked against it */
	json_object_object_foreach(o, key, val) {
		size_t old = wlp_path_key(c, key);

		r = 0;
		if (strcmp(key, "layout") == 0) {
			r = parse_layout(c, val);
		} else if (strcmp(key, "dies") == 0) {
			r = wlp_get_uint(c, val, 1, WL_UFREQ_MAX_DIES,
					 "dies per socket, 1..4", &x);
			u->dies = (unsigned)x;
		} else if (strcmp(key, "io_domains") == 0) {
			r = wlp_get_uint(c, val, 0, WL_UFREQ_MAX_IO,
					 "power domains with no die (I/O dies) "
					 "per socket, 0..4", &x);
			u->io_domains = (unsigned)x;
		} else {
			bool known = false;

			for (unsigned k = 0; k < WL_UF_NVALUES; k++)
				known |= strcmp(key, vname[k]) == 0;
			if (!known)
				r = wlp_fail(c, "unknown key (\"uncore_freq\" "
					     "accepts: layout, dies, io_domains, "
					     "min_khz, max_khz, initial_min_khz, "
					     "initial_max_khz, current_khz)");
		}
		if (r < 0)
			return r;
		wlp_path_pop(c, old);
	}
	if (u->io_domains && u->layout != WL_UFREQ_UNCORE) {
		wlp_path_key(c, "io_domains");
		return wlp_fail(c, "only the \"uncore\" layout (TPMI) has power "
			    "domains without a die");
	}
	ndom = wl_sockets(c->w) * (u->dies ? u->dies : 1);
	json_object_object_foreach(o, key2, val2) {
		for (unsigned k = 0; k < WL_UF_NVALUES; k++) {
			size_t old;

			if (strcmp(key2, vname[k]) != 0)
				continue;
			old = wlp_path_key(c, key2);
			if ((r = parse_value(c, k, val2, ndom)) < 0)
				return r;
			wlp_path_pop(c, old);
		}
	}
	for (unsigned d = 0; d < ndom; d++) {
		uint64_t lo = given(u, WL_UF_MIN, d), hi = given(u, WL_UF_MAX, d);
		uint64_t ilo = given(u, WL_UF_INITIAL_MIN, d);
		uint64_t ihi = given(u, WL_UF_INITIAL_MAX, d);

		if ((lo && hi && lo > hi) || (ilo && ihi && ilo > ihi))
			return wlp_fail(c, "domain %u (socket %u die %u): a "
				    "minimum above its maximum (%llu > %llu kHz); "
				    "the kernel refuses that", d,
				    d / (u->dies ? u->dies : 1),
				    d % (u->dies ? u->dies : 1),
				    (unsigned long long)(lo > hi ? lo : ilo),
				    (unsigned long long)(lo > hi ? hi : ihi));
	}
	return 0;
}

/* ---- the tree ---------------------------------------------------------- */

static int fail(char *why, size_t len, int err, const char *what,
		const char *path)
{
	snprintf(why, len, "cannot %s %s: %s", what, path, strerror(err));
	return -err;
}

/* dir/name with text, mode exactly (not masked by the umask). */
static int put(const char *dir, const char *name, mode_t mode,
	       const char *text, char *why, size_t len)
{
	char path[PATH_MAX];
	size_t n = strlen(text);
	int fd, e;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return fail(why, len, ENAMETOOLONG, "write", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(why, len, errno, "write", path);
	if (write(fd, text, n) != (ssize_t)n || fchmod(fd, mode) < 0) {
		e = errno ? errno : EIO;
		close(fd);
		return fail(why, len, e, "write", path);
	}
	if (close(fd) < 0)
		return fail(why, len, errno, "write", path);
	return 0;
}

static int put_u(const char *dir, const char *name, mode_t mode,
		 uint64_t v, char *why, size_t len)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	return put(dir, name, mode, text, why, len);
}

/* The five values of domain dom (socket-major index) into v[]. */
static void values_of(const struct workload *w, uint64_t clock_hz,
		      unsigned dom, uint64_t *v)
{
	const struct wl_ufreq *u = &w->ufreq;
	uint64_t clk = clock_hz / 1000, top;

	top = (clk + UF_RATIO_KHZ - 1) / UF_RATIO_KHZ * UF_RATIO_KHZ;
	if (top == 0)
		top = UF_RATIO_KHZ;
	v[WL_UF_CURRENT] = clk;
	v[WL_UF_MAX] = v[WL_UF_INITIAL_MAX] = top;
	v[WL_UF_MIN] = v[WL_UF_INITIAL_MIN] =
		top < UF_FLOOR_KHZ ? top : UF_FLOOR_KHZ;
	for (unsigned k = 0; k < WL_UF_NVALUES; k++)
		if (given(u, k, dom))
			v[k] = given(u, k, dom);
}

/* One entry: root/name with the frequency files, and for uncoreNN the id
 * files (die < 0: no die_id). */
static int entry(const char *root, const char *name, const uint64_t *v,
		 bool current, int tpmi, unsigned pkg, int die,
		 unsigned domain, char *why, size_t len)
{
	char dir[PATH_MAX];
	int r;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", root, name) >=
	    sizeof(dir))
		return fail(why, len, ENAMETOOLONG, "create", root);
	if (mkdir(dir, 0755) < 0)
		return fail(why, len, errno, "create", dir);
	for (unsigned k = 0; k < WL_UF_NVALUES; k++) {
		if (k == WL_UF_CURRENT && !current)
			continue;
		if ((r = put_u(dir, fname[k], fmode[k], v[k], why, len)) < 0)
			return r;
	}
	if (!tpmi)
		return 0;
	if ((r = put_u(dir, "package_id", 0400, pkg, why, len)) < 0 ||
	    (r = put_u(dir, "domain_id", 0400, domain, why, len)) < 0 ||
	    (r = put_u(dir, "fabric_cluster_id", 0400, 0, why, len)) < 0)
		return r;
	if (die >= 0 && (r = put_u(dir, "die_id", 0444, (unsigned)die, why,
				   len)) < 0)
		return r;
	return 0;
}

int sufreq_write(const struct workload *w, unsigned nsockets,
		 uint64_t clock_hz, const char *sysfs, char *why, size_t len)
{
	enum wl_ufreq_layout lay = sufreq_layout(w);
	const struct wl_ufreq *u = &w->ufreq;
	unsigned dies = u->dies ? u->dies : 1, inst = 0;
	bool cur = !u->no_current;
	char root[PATH_MAX], name[48];
	uint64_t v[WL_UF_NVALUES];
	int r;

	if (lay == WL_UFREQ_NONE)
		return 0;
	if ((size_t)snprintf(root, sizeof(root), "%s/" UF_DIR, sysfs) >=
	    sizeof(root))
		return fail(why, len, ENAMETOOLONG, "create", sysfs);
	if (mkdir(root, 0755) < 0)
		return fail(why, len, errno, "create", root);
	for (unsigned s = 0; s < nsockets; s++) {
		for (unsigned d = 0; d < dies; d++) {
			values_of(w, clock_hz, s * dies + d, v);
			if (lay == WL_UFREQ_PACKAGE_DIE ||
			    (lay == WL_UFREQ_UNCORE && dies == 1)) {
				/* the MSR driver's entry, or TPMI's root */
				snprintf(name, sizeof(name),
					 "package_%02u_die_%02u", s, d);
				if ((r = entry(root, name, v, cur, 0, s, -1, 0,
					       why, len)) < 0)
					return r;
			}
			if (lay != WL_UFREQ_UNCORE)
				continue;
			snprintf(name, sizeof(name), "uncore%02u", inst++);
			if ((r = entry(root, name, v, cur, 1, s,
				       dies > 1 ? (int)d : -1, d, why,
				       len)) < 0)
				return r;
		}
		for (unsigned i = 0; lay == WL_UFREQ_UNCORE &&
		     i < u->io_domains; i++) {
			values_of(w, clock_hz, s * dies, v);
			snprintf(name, sizeof(name), "uncore%02u", inst++);
			if ((r = entry(root, name, v, cur, 1, s, -1, dies + i,
				       why, len)) < 0)
				return r;
		}
	}
	return 0;
}

/* nftw() has no argument for its callback (one thread, at start-up). */
static uid_t keep_uid;
static gid_t keep_gid;

static int keep_entry(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)ftw;
	if (flag != FTW_F || (st->st_mode & 07777) != 0400)
		return 0;
	return lchown(path, keep_uid, keep_gid) < 0 ? -1 : 0;
}

int sufreq_keep_private(const char *sysfs, uid_t uid, gid_t gid)
{
	char root[PATH_MAX];

	if ((size_t)snprintf(root, sizeof(root), "%s/" UF_DIR, sysfs) >=
	    sizeof(root))
		return -ENAMETOOLONG;
	if (access(root, F_OK) < 0)
		return errno == ENOENT ? 0 : -errno;
	keep_uid = uid;
	keep_gid = gid;
	return nftw(root, keep_entry, 8, FTW_PHYS) < 0 ? -errno : 0;
}
