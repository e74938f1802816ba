/*
 * sim_rdt.c - the simulated resctrl tree (see sim_rdt.h).
 *
 * Kernel behaviour mirrored (Documentation/filesystems/resctrl.rst, as
 * summarised with commits in the facts sheet "Xeon 6 (GNR/SRF), EPYC Zen 3/Zen 5, Core since Alder Lake, CXL, resctrl" (NEXT-PLATFORMS.md) §5; the
 * choices the simulator makes where the kernel leaves room are in
 * doc/resctrl.md "The simulated tree"):
 *  - the root and each top-level directory are CTRL_MON groups, MON
 *    groups live in a CTRL_MON group's mon_groups/; each has one RMID,
 *    the root RMID 0; a CTRL_MON group's values add its MON groups';
 *  - mbm_*_bytes are bytes since the group was made (the kernel extends
 *    the hardware counter), llc_occupancy bytes now;
 *  - mkdir fails when no RMID is free: ENOSPC, or EBUSY while freed RMIDs
 *    wait in limbo (fs/resctrl/monitor.c resctrl_find_free_rmid());
 *  - one L3 domain per socket on Intel, mon_sub_L3_YY per SNC node below
 *    it, the domain's own files holding the nodes' sum; one per CCX on
 *    AMD;
 *  - with ABMC in mbm_event mode (v6.18, commit e19c06219985f) a group
 *    gets a counter per event at mkdir while any is free
 *    (mbm_assign_on_mkdir), and an event without one reads "Unassigned";
 *    "EVENT:*=e" or "EVENT:*=_" written to a group's mbm_L3_assignments
 *    assigns or frees one (commit "fs/resctrl: Introduce the interface to
 *    modify assignments in a group"), a count from 0 at assignment; with
 *    none free the write is refused, in info/last_cmd_status.
 * Every file is written to a temporary name and renamed, so a reader
 * never sees half a number.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/hw_sim.h"
#include "sim/sim_rdt.h"

static const char *const ev_file[WL_RDT_NEV] = {
	[WL_RDT_TOTAL] = "mbm_total_bytes",
	[WL_RDT_LOCAL] = "mbm_local_bytes",
	[WL_RDT_OCC] = "llc_occupancy",
};

enum wl_state { WS_PENDING, WS_LIVE, WS_REMOVED, WS_REFUSED };

/* One group directory: the workload's, or one someone else made. */
struct sgroup {
	char name[WL_RDT_NAME_MAX];
	int wl;			/* workload entry, -1: made by someone else */
	bool is_mon;
	bool live;
	bool bare;		/* someone else's, left without an RMID */
	double made;
	unsigned rmid;
	bool cntr[2];		/* ABMC counter for total, local */
	double *cbase;		/* [socket * 2 + e]: own() when a counter
				   was assigned after mkdir (the kernel's
				   count starts there); NULL: at mkdir */
	double *tacc;		/* [socket * 2 + e]: bytes of the workload's
				   threads while they were in this group
				   (total, local); NULL until one was */
	double *tocc;		/* [socket]: their L3 occupancy now */
};

struct srdt {
	const struct workload *w;
	char dir[PATH_MAX - 64], root[PATH_MAX], sysfs[PATH_MAX];
	unsigned nsock, ndom, snc, cores;
	double *rmid_free_at;	/* -INF never used, INF in use, else when
				   its limbo ends */
	struct sgroup *g;	/* g[0]: the root group */
	unsigned ng, capg;
	unsigned char *ws;	/* per workload entry: enum wl_state */
	int *wg;		/* per workload entry: its sgroup, -1 */
	unsigned cntr_used;
	double t;
	unsigned removed_seq;
	unsigned refused;
	FILE *log;
};

/* ---- files ----------------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static int pathf(char *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Writes text to path through a temporary name beside it. */
static int put(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	const char *sl = strrchr(path, '/');
	size_t n = strlen(text);
	int fd, e = 0;

	if (!sl || pathf(tmp, "%.*s/.%s.tmp", (int)(sl - path), path, sl + 1) < 0)
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, n) != (ssize_t)n)
		e = errno ? errno : EIO;
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) < 0)
		e = errno;
	if (e)
		unlink(tmp);
	return -e;
}

__attribute__((format(printf, 2, 3)))
static int putf(const char *path, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put(path, buf);
}

/* mkdir -p of path (its parents within it). */
/* mkdir -p path, but the first keep bytes of it must exist already (a
 * directory someone else made and may remove meanwhile is never made
 * again: -ENOENT then). */
static int mkdirs_below(const char *path, size_t keep)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/' || (size_t)(s - p) <= keep)
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int mkdirs(const char *path)
{
	return mkdirs_below(path, 0);
}

__attribute__((format(printf, 2, 3)))
static void logf_(struct srdt *k, const char *fmt, ...)
{
	va_list ap;

	if (!k->log)
		return;
	fprintf(k->log, "%.3f ", k->t);
	va_start(ap, fmt);
	vfprintf(k->log, fmt, ap);
	va_end(ap);
	fputc('\n', k->log);
	fflush(k->log);
}

/* ---- layout ---------------------------------------------------------- */

/* L3 domain of core c of a socket, and its id. */
static unsigned dom_of_core(const struct srdt *k, unsigned c)
{
	return c * k->ndom / k->cores;
}

static unsigned l3_id(const struct srdt *k, unsigned s, unsigned d)
{
	return s * k->ndom + d;
}

/* The CPUs of the simulated machine: CPU s * SIM_CPUS_PER_SOCKET + c, as
 * the simulated kernel numbers them (sim_kernel.h), with the cache ids
 * the reader maps L3 domains to sockets by (resctrl.c rdt_l3_socket()). */
static int write_cpus(struct srdt *k)
{
	char p[PATH_MAX];
	static const unsigned level[4] = { 1, 1, 2, 3 };
	int r;

	for (unsigned s = 0; s < k->nsock; s++)
		for (unsigned c = 0; c < k->cores; c++) {
			unsigned cpu = s * SIM_CPUS_PER_SOCKET + c;

			for (unsigned i = 0; i < 4; i++) {
				unsigned id = i < 3 ? c : l3_id(k, s, dom_of_core(k, c));

				if ((r = pathf(p, "%s/devices/system/cpu/cpu%u/cache/"
					       "index%u", k->sysfs, cpu, i)) < 0 ||
				    (r = mkdirs(p)) < 0 ||
				    (r = pathf(p, "%s/devices/system/cpu/cpu%u/cache/"
					       "index%u/level", k->sysfs, cpu, i)) < 0 ||
				    (r = putf(p, "%u\n", level[i])) < 0 ||
				    (r = pathf(p, "%s/devices/system/cpu/cpu%u/cache/"
					       "index%u/id", k->sysfs, cpu, i)) < 0 ||
				    (r = putf(p, "%u\n", id)) < 0)
					return r;
			}
			if ((r = pathf(p, "%s/devices/system/cpu/cpu%u/topology",
				       k->sysfs, cpu)) < 0 || (r = mkdirs(p)) < 0 ||
			    (r = pathf(p, "%s/devices/system/cpu/cpu%u/topology/"
				       "physical_package_id", k->sysfs, cpu)) < 0 ||
			    (r = putf(p, "%u\n", s)) < 0 ||
			    (r = pathf(p, "%s/devices/system/cpu/cpu%u/online",
				       k->sysfs, cpu)) < 0 ||
			    (r = putf(p, "1\n")) < 0)
				return r;
		}
	return 0;
}

/* "0=N;1=N" over every domain. */
static void per_domain(const struct srdt *k, unsigned v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned s = 0; s < k->nsock; s++)
		for (unsigned d = 0; d < k->ndom && n < len; d++)
			n += (size_t)snprintf(buf + n, len - n, "%s%u=%u",
					      n ? ";" : "", l3_id(k, s, d), v);
}

static int write_info(struct srdt *k)
{
	const struct wl_rdt *rd = &k->w->rdt;
	char p[PATH_MAX], buf[2048];
	int r;

	if ((r = pathf(p, "%s/info/L3_MON", k->root)) < 0 || (r = mkdirs(p)) < 0 ||
	    (r = pathf(p, "%s/info/L3_MON/num_rmids", k->root)) < 0 ||
	    (r = putf(p, "%u\n", rd->num_rmids)) < 0 ||
	    (r = pathf(p, "%s/info/L3_MON/mon_features", k->root)) < 0 ||
	    (r = put(p, "llc_occupancy\nmbm_total_bytes\nmbm_local_bytes\n")) < 0 ||
	    (r = pathf(p, "%s/info/L3_MON/max_threshold_occupancy", k->root)) < 0 ||
	    (r = put(p, "0\n")) < 0 ||
	    (r = pathf(p, "%s/info/last_cmd_status", k->root)) < 0 ||
	    (r = put(p, "ok\n")) < 0)
		return r;
	if (!rd->assignable)
		return 0;
	per_domain(k, rd->num_mbm_cntrs, buf, sizeof(buf));
	if ((r = pathf(p, "%s/info/L3_MON/mbm_assign_mode", k->root)) < 0 ||
	    (r = put(p, rd->abmc ? "[mbm_event]\ndefault\n"
				 : "mbm_event\n[default]\n")) < 0 ||
	    (r = pathf(p, "%s/info/L3_MON/num_mbm_cntrs", k->root)) < 0 ||
	    (r = putf(p, "%s\n", buf)) < 0)
		return r;
	return 0;
}

/* The directory of group g. */
static int group_dir(const struct srdt *k, const struct sgroup *g, char *out)
{
	return strcmp(g->name, "/") ? pathf(out, "%s/%s", k->root, g->name)
				    : pathf(out, "%s", k->root);
}

/* The counts' directories and the files a group is made with; tasks,
 * cpus and cpus_list only when absent (a tool may have written them). */
static int make_group_files(struct srdt *k, const struct sgroup *g)
{
	const struct wl_rdt_group *wg = g->wl >= 0 ? &k->w->rdt.groups[g->wl] : NULL;
	char d[PATH_MAX], p[PATH_MAX], tasks[WL_RDT_MAX_TASKS * 12 + 1] = "";
	struct stat st;
	size_t n = 0, keep;
	int r;

	if ((r = group_dir(k, g, d)) < 0)
		return r;
	/* someone else's directory: made by them, maybe removed meanwhile */
	keep = g->wl < 0 && strcmp(g->name, "/") ? strlen(d) : 0;
	for (unsigned i = 0; wg && i < wg->ntasks; i++)
		n += (size_t)snprintf(tasks + n, sizeof(tasks) - n, "%u\n",
				      wg->tasks[i]);
	if ((r = pathf(p, "%s/tasks", d)) < 0 ||
	    (stat(p, &st) < 0 && (r = put(p, tasks)) < 0) ||
	    (r = pathf(p, "%s/cpus", d)) < 0 ||
	    (stat(p, &st) < 0 && (r = put(p, "0\n")) < 0) ||
	    (r = pathf(p, "%s/cpus_list", d)) < 0 ||
	    (stat(p, &st) < 0 && (r = put(p, "\n")) < 0))
		return r;
	if (!g->is_mon && ((r = pathf(p, "%s/mon_groups", d)) < 0 ||
			   (r = mkdirs_below(p, keep)) < 0))
		return r;
	for (unsigned s = 0; s < k->nsock; s++)
		for (unsigned dm = 0; dm < k->ndom; dm++) {
			if ((r = pathf(p, "%s/mon_data/mon_L3_%02u", d,
				       l3_id(k, s, dm))) < 0 || (r = mkdirs_below(p, keep)) < 0)
				return r;
			for (unsigned y = 0; k->snc > 1 && y < k->snc; y++)
				if ((r = pathf(p, "%s/mon_data/mon_L3_%02u/"
					       "mon_sub_L3_%02u", d, l3_id(k, s, dm),
					       s * k->snc + y)) < 0 ||
				    (r = mkdirs_below(p, keep)) < 0)
					return r;
		}
	return 0;
}

/* ---- RMIDs and counters --------------------------------------------- */

/* A free RMID at time t into *rmid: 0, -ENOSPC (none), -EBUSY (only
 * ones in limbo). */
static int rmid_alloc(struct srdt *k, double t, unsigned *rmid)
{
	bool limbo = false;

	for (unsigned i = 1; i < k->w->rdt.num_rmids; i++) {
		if (k->rmid_free_at[i] <= t) {
			k->rmid_free_at[i] = INFINITY;
			*rmid = i;
			return 0;
		}
		if (isfinite(k->rmid_free_at[i]))
			limbo = true;
	}
	return limbo ? -EBUSY : -ENOSPC;
}

static void assign_cntrs(struct srdt *k, struct sgroup *g)
{
	const struct wl_rdt *rd = &k->w->rdt;

	for (int e = 0; e < 2; e++) {
		g->cntr[e] = rd->abmc && k->cntr_used < rd->num_mbm_cntrs;
		if (g->cntr[e])
			k->cntr_used++;
	}
}

static int write_available(struct srdt *k)
{
	const struct wl_rdt *rd = &k->w->rdt;
	char p[PATH_MAX], buf[2048];
	int r;

	if (!rd->assignable)
		return 0;
	per_domain(k, rd->num_mbm_cntrs - k->cntr_used, buf, sizeof(buf));
	if ((r = pathf(p, "%s/info/L3_MON/available_mbm_cntrs", k->root)) < 0)
		return r;
	return putf(p, "%s\n", buf);
}

/* ---- groups ---------------------------------------------------------- */

static int find_live(const struct srdt *k, const char *name)
{
	for (unsigned i = 0; i < k->ng; i++)
		if (k->g[i].live && !strcmp(k->g[i].name, name))
			return (int)i;
	return -1;
}

static int find_any(const struct srdt *k, const char *name)
{
	for (unsigned i = 0; i < k->ng; i++)
		if ((k->g[i].live || k->g[i].bare) && !strcmp(k->g[i].name, name))
			return (int)i;
	return -1;
}

static struct sgroup *new_group(struct srdt *k)
{
	if (k->ng == k->capg) {
		unsigned cap = k->capg ? 2 * k->capg : 16;
		struct sgroup *ng = realloc(k->g, cap * sizeof(*ng));

		if (!ng)
			return NULL;
		k->g = ng;
		k->capg = cap;
	}
	memset(&k->g[k->ng], 0, sizeof(k->g[0]));
	return &k->g[k->ng++];
}

/* The CTRL_MON parent's name of a MON group ("/" for the root's). */
static void parent_name(const char *name, char *out, size_t len)
{
	const char *sl = strchr(name, '/');

	if (!strncmp(name, "mon_groups/", 11) || !sl)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(sl - name), name);
}

/* Workload entry i's mkdir at time t. */
static int wl_make(struct srdt *k, unsigned i, double t)
{
	const struct wl_rdt_group *wg = &k->w->rdt.groups[i];
	char parent[WL_RDT_NAME_MAX], d[PATH_MAX];
	unsigned rmid = 0;
	int r;

	if (wg->is_mon) {
		parent_name(wg->name, parent, sizeof(parent));
		if (find_live(k, parent) < 0) {
			k->ws[i] = WS_REFUSED;
			k->refused++;
			logf_(k, "mkdir %s: ENOENT (its CTRL_MON group %s is not "
			      "there)", wg->name, parent);
			return 0;
		}
	}
	if (find_any(k, wg->name) >= 0) {
		k->ws[i] = WS_REFUSED;
		k->refused++;
		logf_(k, "mkdir %s: EEXIST (made by someone else)", wg->name);
		return 0;
	}
	if ((r = rmid_alloc(k, t, &rmid)) < 0) {
		k->ws[i] = WS_REFUSED;
		k->refused++;
		logf_(k, "mkdir %s: %s", wg->name, r == -EBUSY
		      ? "EBUSY (the free RMIDs are still in limbo)"
		      : "ENOSPC (no free RMID)");
		return 0;
	}
	struct sgroup *g = new_group(k);
	if (!g)
		return -ENOMEM;
	snprintf(g->name, sizeof(g->name), "%s", wg->name);
	g->wl = (int)i;
	g->is_mon = wg->is_mon;
	g->live = true;
	g->made = t;
	g->rmid = rmid;
	assign_cntrs(k, g);
	k->ws[i] = WS_LIVE;
	k->wg[i] = (int)(g - k->g);
	if ((r = group_dir(k, g, d)) < 0 || (r = mkdirs(d)) < 0 ||
	    (r = make_group_files(k, g)) < 0)
		return r;
	logf_(k, "mkdir %s: rmid %u%s%s", g->name, rmid,
	      wg->owner[0] ? ", made by " : "", wg->owner);
	return 0;
}

/* Group gi removed at time t (and its MON groups with it): its RMID goes
 * to limbo, its counters are freed, its directory moves to DIR/removed. */
static int remove_group(struct srdt *k, unsigned gi, double t)
{
	struct sgroup *g = &k->g[gi];
	char d[PATH_MAX], to[PATH_MAX];
	int r;

	if (!g->is_mon)
		for (unsigned j = 0; j < k->ng; j++) {
			char parent[WL_RDT_NAME_MAX];

			if (!k->g[j].live || !k->g[j].is_mon)
				continue;
			parent_name(k->g[j].name, parent, sizeof(parent));
			if (!strcmp(parent, g->name) && (r = remove_group(k, j, t)) < 0)
				return r;
		}
	g = &k->g[gi];
	g->live = false;
	k->rmid_free_at[g->rmid] = t + k->w->rdt.limbo_s;
	k->cntr_used -= g->cntr[0] + g->cntr[1];
	if (g->wl >= 0 && k->ws[g->wl] == WS_LIVE)
		k->ws[g->wl] = WS_REMOVED;
	if ((r = group_dir(k, g, d)) < 0 ||
	    (r = pathf(to, "%s/removed/%u", k->dir, k->removed_seq++)) < 0)
		return r;
	if (rename(d, to) < 0 && errno != ENOENT)
		return -errno;
	logf_(k, "rmdir %s: rmid %u to limbo until %.3f", g->name, g->rmid,
	      t + k->w->rdt.limbo_s);
	return 0;
}

/* The next workload event at or before t: a removal (*make false) or a
 * creation, earliest first, removals before creations at one time.
 * Its entry, or -1. */
static int next_event(const struct srdt *k, double t, bool *make)
{
	const struct wl_rdt *rd = &k->w->rdt;
	double best = INFINITY;
	bool best_make = true;
	int bi = -1;

	for (unsigned i = 0; i < rd->ngroups; i++) {
		const struct wl_rdt_group *wg = &rd->groups[i];
		double at;
		bool mk;

		if (k->ws[i] == WS_LIVE && wg->until <= t && k->wg[i] > 0) {
			at = wg->until;
			mk = false;
		} else if (k->ws[i] == WS_PENDING && wg->from <= t) {
			at = wg->from;
			mk = true;
		} else {
			continue;
		}
		if (at < best || (at == best && best_make && !mk)) {
			best = at;
			best_make = mk;
			bi = (int)i;
		}
	}
	*make = best_make;
	return bi;
}

/* Directories made by someone else: in the root, and in the mon_groups/
 * of every live CTRL_MON group.  Each gets an RMID and its files. */
static int adopt_dir(struct srdt *k, const char *name, bool is_mon)
{
	unsigned rmid;
	int r;

	if (find_any(k, name) >= 0)
		return 0;
	struct sgroup *g = new_group(k);
	if (!g)
		return -ENOMEM;
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->wl = -1;
	g->is_mon = is_mon;
	g->made = k->t;
	if ((r = rmid_alloc(k, k->t, &rmid)) < 0) {
		char d[PATH_MAX], p[PATH_MAX];
		const char *en = r == -EBUSY ? "EBUSY" : "ENOSPC";

		g->bare = true;
		k->refused++;
		logf_(k, "mkdir %s (someone else's): %s: left without mon_data",
		      name, en);
		/* The kernel's mkdir would have failed with en; a plain
		 * directory cannot, so it says so in .mkdir_error, a file no
		 * kernel tree has (doc/resctrl.md, decision 16). */
		if ((r = group_dir(k, g, d)) < 0 ||
		    (r = pathf(p, "%s/.mkdir_error", d)) < 0)
			return r;
		r = putf(p, "%s\n", en);
		return r == -ENOENT ? 0 : r;	/* removed meanwhile */
	}
	g->live = true;
	g->rmid = rmid;
	assign_cntrs(k, g);
	logf_(k, "mkdir %s (someone else's): rmid %u", name, rmid);
	r = make_group_files(k, g);
	if (r == -ENOENT) {
		/* removed while being taken in: as if it never was */
		g = &k->g[find_live(k, name)];
		g->live = false;
		k->rmid_free_at[g->rmid] = -INFINITY;
		k->cntr_used -= g->cntr[0] + g->cntr[1];
		logf_(k, "%s was removed before it was ready: rmid %u free",
		      name, rmid);
		return 0;
	}
	return r;
}

static bool tree_name(const char *n)
{
	return n[0] == '.' || !strcmp(n, "info") || !strcmp(n, "mon_groups") ||
	       !strcmp(n, "mon_data");
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory names in dir that keep(name) accepts, sorted: a tree
 * takes in what others made in name order, so the same directories get
 * the same RMIDs in every run whatever the file system's readdir order. */
static int sorted_dirs(const char *dir, bool (*keep)(const char *),
		       char ***out, size_t *n)
{
	struct dirent *e;
	size_t cap = 0;
	char **v = NULL;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		char p[PATH_MAX];
		struct stat st;

		if (!keep(e->d_name) || pathf(p, "%s/%s", dir, e->d_name) < 0 ||
		    stat(p, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    strlen(e->d_name) >= WL_RDT_NAME_MAX)
			continue;
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			char **nv = realloc(v, nc * sizeof(*nv));

			if (!nv)
				goto nomem;
			v = nv;
			cap = nc;
		}
		if (!(v[*n] = strdup(e->d_name)))
			goto nomem;
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_name);
	*out = v;
	return 0;
nomem:
	closedir(d);
	while (*n)
		free(v[--*n]);
	free(v);
	return -ENOMEM;
}

static bool ctrl_name(const char *n)
{
	return !tree_name(n);
}

static bool mon_name(const char *n)
{
	return n[0] != '.';
}

static void free_names(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

static int adopt(struct srdt *k)
{
	char p[PATH_MAX], name[WL_RDT_NAME_MAX];
	char **v;
	size_t n;
	int r;

	/* CTRL_MON groups first, then every CTRL_MON group's MON groups */
	if ((r = sorted_dirs(k->root, ctrl_name, &v, &n)) < 0)
		return r;
	for (size_t j = 0; r == 0 && j < n; j++)
		r = adopt_dir(k, v[j], false);
	free_names(v, n);
	for (unsigned i = 0; r == 0 && i < k->ng; i++) {
		char gd[PATH_MAX];

		if (!k->g[i].live || k->g[i].is_mon || group_dir(k, &k->g[i], gd) < 0 ||
		    pathf(p, "%s/mon_groups", gd) < 0)
			continue;
		if ((r = sorted_dirs(p, mon_name, &v, &n)) < 0)
			return r;
		for (size_t j = 0; r == 0 && j < n; j++) {
			int m = snprintf(name, sizeof(name), "%s%s%s", i ?
					 k->g[i].name : "", i ? "/" : "",
					 "mon_groups/");
			if (m < 0 || (size_t)m + strlen(v[j]) >= sizeof(name))
				continue;
			strcat(name, v[j]);
			r = adopt_dir(k, name, true);
		}
		free_names(v, n);
	}
	return r;
}

/* ---- values ---------------------------------------------------------- */

/* The phase the workload is in at time t. */
static unsigned phase_at(const struct workload *w, double t)
{
	double r = w->period_s > 0 ? fmod(t, w->period_s) : 0;

	for (unsigned p = 0; p < w->nphases; p++) {
		if (r < w->phase_s[p])
			return p;
		r -= w->phase_s[p];
	}
	return w->nphases ? w->nphases - 1 : 0;
}

/* Group g's own count of event e on socket s at time t, over the whole
 * socket (the caller splits it over domains and nodes). */
static double own(const struct srdt *k, const struct sgroup *g, int e,
		  unsigned s, double t)
{
	const struct workload *w = k->w;
	const struct wl_rdt *rd = &w->rdt;
	unsigned np = w->nphases;

	double th = 0;

	if (!g->live)
		return 0;
	if (g->tacc)
		th = e == WL_RDT_OCC ? g->tocc[s] : g->tacc[s * 2 + (unsigned)e];
	if (g->wl < 0)
		return th;
	const struct wl_rdt_group *wg = &rd->groups[g->wl];
	if (wg->socket >= 0 && (unsigned)wg->socket != s)
		return th;
	const double *r = &rd->rates[((size_t)g->wl * WL_RDT_NEV + (size_t)e) * np];
	if (e == WL_RDT_OCC)
		return th + r[phase_at(w, t)];
	return th + wl_integral(w, r, g->made, t);
}

/* Writes one value file of group gi in directory dir: the socket's
 * count divided by split (the socket's domains, or its SNC nodes). */
static int write_value(struct srdt *k, unsigned gi, int e, unsigned s,
		       unsigned split, const char *dir)
{
	const struct sgroup *g = &k->g[gi];
	const struct wl_rdt_group *wg = g->wl >= 0 ? &k->w->rdt.groups[g->wl] : NULL;
	char p[PATH_MAX];
	double v;
	int r;

	if ((r = pathf(p, "%s/%s", dir, ev_file[e])) < 0)
		return r;
	if (wg && (wg->unavail >> e & 1))
		return put(p, "Unavailable\n");
	if (e != WL_RDT_OCC && k->w->rdt.abmc && !g->cntr[e])
		return put(p, "Unassigned\n");
	v = own(k, g, e, s, k->t);
	if (e != WL_RDT_OCC && g->cbase)
		v -= g->cbase[s * 2 + (unsigned)e];
	if (!g->is_mon) {
		char parent[WL_RDT_NAME_MAX];

		for (unsigned j = 0; j < k->ng; j++) {
			if (!k->g[j].live || !k->g[j].is_mon)
				continue;
			parent_name(k->g[j].name, parent, sizeof(parent));
			if (!strcmp(parent, g->name))
				v += own(k, &k->g[j], e, s, k->t);
		}
	}
	return putf(p, "%" PRIu64 "\n", (uint64_t)floor(v / split));
}

/* The value files of group gi: on socket s, the socket's count split
 * evenly over its domains, and under SNC over each domain's nodes. */
static int write_values(struct srdt *k, unsigned gi)
{
	char gd[PATH_MAX], p[PATH_MAX], q[PATH_MAX];
	int r;

	if ((r = group_dir(k, &k->g[gi], gd)) < 0)
		return r;
	for (unsigned s = 0; s < k->nsock; s++)
		for (unsigned dm = 0; dm < k->ndom; dm++) {
			if ((r = pathf(p, "%s/mon_data/mon_L3_%02u", gd,
				       l3_id(k, s, dm))) < 0)
				return r;
			for (int e = 0; e < WL_RDT_NEV; e++) {
				if ((r = write_value(k, gi, e, s, k->ndom, p)) < 0)
					return r;
				for (unsigned y = 0; k->snc > 1 && y < k->snc; y++) {
					if ((r = pathf(q, "%s/mon_sub_L3_%02u", p,
						       s * k->snc + y)) < 0 ||
					    (r = write_value(k, gi, e, s,
							     k->ndom * k->snc, q)) < 0)
						return r;
				}
			}
		}
	return 0;
}

/*
 * What someone wrote to group gi's mbm_L3_assignments since the last
 * sync, taken as the kernel takes a write there: each line
 * "EVENT:DOMAIN=STATE;..." ('*' for every domain), e assigning a counter
 * and _ freeing it.  Counters are modelled for all domains at once, so a
 * line must ask the same of every domain it names; one that does not is
 * logged and left.  A counter assigned now counts from 0 (cbase).
 */
static int take_assignments(struct srdt *k, unsigned gi)
{
	struct sgroup *g = &k->g[gi];
	const struct wl_rdt *rd = &k->w->rdt;
	char gd[PATH_MAX], p[PATH_MAX], line[1024];
	FILE *f;
	int r;

	if (!rd->abmc)
		return 0;
	if ((r = group_dir(k, g, gd)) < 0 ||
	    (r = pathf(p, "%s/mbm_L3_assignments", gd)) < 0)
		return r;
	if (!(f = fopen(p, "re")))
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');
		int e;
		bool want;

		line[strcspn(line, "\n")] = '\0';
		if (!c)
			continue;
		*c = '\0';
		e = !strcmp(line, ev_file[WL_RDT_TOTAL]) ? 0
		    : !strcmp(line, ev_file[WL_RDT_LOCAL]) ? 1 : -1;
		if (e < 0 || (!strstr(c + 1, "=e") == !strstr(c + 1, "=_"))) {
			if (e >= 0)
				logf_(k, "%s: assignment \"%s\" not modelled "
				      "(not the same in every domain)", g->name,
				      c + 1);
			continue;
		}
		want = strstr(c + 1, "=e") != NULL;
		if (want == g->cntr[e])
			continue;
		if (!want) {
			g->cntr[e] = false;
			k->cntr_used--;
			logf_(k, "%s: %s counter freed", g->name, ev_file[e]);
			continue;
		}
		if (k->cntr_used >= rd->num_mbm_cntrs) {
			char q[PATH_MAX];

			logf_(k, "%s: %s: no counter free", g->name, ev_file[e]);
			if (pathf(q, "%s/info/last_cmd_status", k->root) == 0)
				putf(q, "Failed to allocate counter for %s in "
				     "domain %u\n", ev_file[e], l3_id(k, 0, 0));
			continue;
		}
		if (!g->cbase && !(g->cbase = calloc(k->nsock * 2, sizeof(double)))) {
			fclose(f);
			return -ENOMEM;
		}
		for (unsigned s = 0; s < k->nsock; s++)
			g->cbase[s * 2 + (unsigned)e] = own(k, g, e, s, k->t);
		g->cntr[e] = true;
		k->cntr_used++;
		logf_(k, "%s: %s counter assigned", g->name, ev_file[e]);
	}
	fclose(f);
	return 0;
}

/*
 * The lock a request to group gi's mbm_L3_assignments is appended under
 * (resctrl_priv.c, g_assign()), held from take_assignments() to
 * write_assignments(): a request made between the two would be written
 * over.  An fd to close, or -1 (no ABMC, no file).
 */
static int lock_assignments(struct srdt *k, unsigned gi)
{
	char gd[PATH_MAX], p[PATH_MAX];
	int fd;

	if (!k->w->rdt.abmc || group_dir(k, &k->g[gi], gd) < 0 ||
	    pathf(p, "%s/mbm_L3_assignments", gd) < 0 ||
	    (fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (flock(fd, LOCK_EX) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int write_assignments(struct srdt *k, unsigned gi)
{
	const struct sgroup *g = &k->g[gi];
	char gd[PATH_MAX], p[PATH_MAX], line[2][1024];
	int r;

	if (!k->w->rdt.abmc)
		return 0;
	for (int e = 0; e < 2; e++) {
		size_t n = (size_t)snprintf(line[e], sizeof(line[e]), "%s:",
					    ev_file[e]);
		for (unsigned s = 0; s < k->nsock; s++)
			for (unsigned dm = 0; dm < k->ndom && n < sizeof(line[e]); dm++)
				n += (size_t)snprintf(line[e] + n, sizeof(line[e]) - n,
						      "%s%u=%c", s || dm ? ";" : "",
						      l3_id(k, s, dm),
						      g->cntr[e] ? 'e' : '_');
	}
	if ((r = group_dir(k, g, gd)) < 0 ||
	    (r = pathf(p, "%s/mbm_L3_assignments", gd)) < 0)
		return r;
	return putf(p, "%s\n%s\n", line[0], line[1]);
}

/* ---- entry points ---------------------------------------------------- */

/* The thread ids in the tasks file of group g, into ids (at most max). */
static unsigned tasks_of(const struct srdt *k, const struct sgroup *g,
			 unsigned *ids, unsigned max)
{
	char gd[PATH_MAX], p[PATH_MAX], line[32];
	unsigned n = 0;
	FILE *f;

	if (group_dir(k, g, gd) < 0 || pathf(p, "%s/tasks", gd) < 0 ||
	    !(f = fopen(p, "re")))
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long v = strtoul(line, NULL, 10);

		if (v)
			ids[n++] = (unsigned)v;
	}
	fclose(f);
	return n;
}

/*
 * The workload's threads from t0 to t: each moves its bytes in the group
 * that holds it now - the live group whose tasks file lists it, a MON
 * group before a CTRL_MON group (the kernel keeps one RMID a thread), else
 * the root.  Held as the files are at this sync, for the whole interval
 * since the last one (doc/resctrl.md, decision 25).
 */
static int thread_traffic(struct srdt *k, double t0, double t)
{
	const struct wl_rdt *rd = &k->w->rdt;
	unsigned np = k->w->nphases, *ids;
	int *holder;

	if (!rd->nthreads)
		return 0;
	holder = calloc(rd->nthreads, sizeof(*holder));	/* 0: the root */
	ids = malloc(WL_RDT_MAX_THREADS * sizeof(*ids));
	if (!holder || !ids) {
		free(holder);
		free(ids);
		return -ENOMEM;
	}
	for (int pass = 0; pass < 2; pass++)	/* CTRL_MON, then MON */
		for (unsigned j = 1; j < k->ng; j++) {
			unsigned n;

			if (!k->g[j].live || k->g[j].is_mon != (pass == 1))
				continue;
			n = tasks_of(k, &k->g[j], ids, WL_RDT_MAX_THREADS);
			for (unsigned a = 0; a < n; a++)
				for (unsigned i = 0; i < rd->nthreads; i++)
					if (rd->threads[i].tid == ids[a])
						holder[i] = (int)j;
		}
	free(ids);
	for (unsigned j = 0; j < k->ng; j++)
		if (k->g[j].tocc)
			memset(k->g[j].tocc, 0, k->nsock * sizeof(double));
	for (unsigned i = 0; i < rd->nthreads; i++) {
		struct sgroup *g = &k->g[holder[i]];
		const double *r = &rd->trates[(size_t)i * WL_RDT_NEV * np];

		if (!g->tacc) {
			g->tacc = calloc(k->nsock * 2, sizeof(double));
			g->tocc = calloc(k->nsock, sizeof(double));
			if (!g->tacc || !g->tocc) {
				free(holder);
				return -ENOMEM;
			}
		}
		for (unsigned s = 0; s < k->nsock; s++) {
			if (rd->threads[i].socket >= 0 &&
			    (unsigned)rd->threads[i].socket != s)
				continue;
			for (int e = 0; e < 2; e++)
				g->tacc[s * 2 + (unsigned)e] +=
					wl_integral(k->w, &r[(size_t)e * np], t0, t);
			g->tocc[s] += r[(size_t)WL_RDT_OCC * np + phase_at(k->w, t)];
		}
	}
	free(holder);
	return 0;
}

int srdt_sync(struct srdt *k, double t)
{
	double t0 = k->t;
	bool make = false;
	int i, r;

	if (t < k->t)
		t = k->t;
	/* the workload's mkdir and rmdir, in time order */
	while ((i = next_event(k, t, &make)) >= 0) {
		const struct wl_rdt_group *wg = &k->w->rdt.groups[i];

		k->t = make ? wg->from : wg->until;
		r = make ? wl_make(k, (unsigned)i, k->t)
			 : remove_group(k, (unsigned)k->wg[i], k->t);
		if (r < 0)
			return r;
		make = false;
	}
	k->t = t;
	/* someone else's rmdir */
	for (unsigned j = 1; j < k->ng; j++) {
		char gd[PATH_MAX];
		struct stat st;

		/* a refused directory removed: forgotten, so that a mkdir of
		 * the same name is taken in anew */
		if (k->g[j].bare && group_dir(k, &k->g[j], gd) == 0 &&
		    stat(gd, &st) < 0 && errno == ENOENT) {
			k->g[j].bare = false;
			continue;
		}
		if (k->g[j].live && group_dir(k, &k->g[j], gd) == 0 &&
		    stat(gd, &st) < 0 && errno == ENOENT) {
			logf_(k, "%s was removed by someone else", k->g[j].name);
			if ((r = remove_group(k, j, t)) < 0)
				return r;
		}
	}
	if ((r = adopt(k)) < 0)
		return r;
	if ((r = thread_traffic(k, t0 < t ? t0 : t, t)) < 0)
		return r;
	for (unsigned j = 0; j < k->ng; j++) {
		if (!k->g[j].live)
			continue;
		int lk = lock_assignments(k, j);

		if ((r = take_assignments(k, j)) < 0 ||
		    (r = write_values(k, j)) < 0 || (r = write_assignments(k, j)) < 0) {
			if (lk >= 0)
				close(lk);
			/* a group someone removed since the look above (a
			 * workload's too: another tool may rmdir any group):
			 * the next sync removes it */
			if (r == -ENOENT)
				continue;
			return r;
		}
		if (lk >= 0)
			close(lk);
	}
	return write_available(k);
}

static int empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n ? -ENOTEMPTY : 0;
}

int srdt_open(struct srdt **out, const struct workload *w, const char *dir,
	      char *why, size_t whylen)
{
	const struct wl_rdt *rd = &w->rdt;
	struct srdt *k;
	char p[PATH_MAX];
	int r;

	*out = NULL;
	if (!rd->present) {
		snprintf(why, whylen, "%s has no \"resctrl\" object: no tree to "
			 "lay out", w->source ? w->source : "the workload");
		return -EINVAL;
	}
	if ((r = empty_dir(dir)) < 0) {
		snprintf(why, whylen, "%s: %s", dir, r == -ENOTEMPTY ?
			 "is not empty (the tree needs a new or empty directory)"
			 : strerror(-r));
		return r;
	}
	if (!(k = calloc(1, sizeof(*k))))
		return -ENOMEM;
	k->w = w;
	k->nsock = wl_sockets(w);
	k->cores = wl_cores(w);
	k->ndom = rd->domains ? rd->domains : 1;
	k->snc = rd->snc ? rd->snc : 1;
	if (strlen(dir) >= sizeof(k->dir)) {
		free(k);
		snprintf(why, whylen, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	snprintf(k->dir, sizeof(k->dir), "%s", dir);
	snprintf(k->root, sizeof(k->root), "%s/sys/fs/resctrl", dir);
	snprintf(k->sysfs, sizeof(k->sysfs), "%s/sys", dir);
	k->rmid_free_at = malloc((rd->num_rmids + 1) * sizeof(double));
	k->ws = calloc(rd->ngroups + 1, 1);
	k->wg = malloc((rd->ngroups + 1) * sizeof(int));
	if (!k->rmid_free_at || !k->ws || !k->wg) {
		srdt_close(k);
		return -ENOMEM;
	}
	for (unsigned i = 0; i <= rd->num_rmids; i++)
		k->rmid_free_at[i] = -INFINITY;
	k->rmid_free_at[0] = INFINITY;	/* the root group's */
	for (unsigned i = 0; i <= rd->ngroups; i++)
		k->wg[i] = -1;
	r = mkdirs(k->root);
	if (r == 0 && (r = pathf(p, "%s/removed", dir)) == 0)
		r = mkdirs(p);
	if (r == 0 && (r = pathf(p, "%s/resctrl.log", dir)) == 0 &&
	    !(k->log = fopen(p, "we")))
		r = -errno;
	if (r == 0)
		r = write_info(k);
	if (r == 0)
		r = write_cpus(k);
	if (r == 0) {
		/* the root group, RMID 0, there from mount; the workload's
		 * "/" entry gives its rates */
		struct sgroup *g = new_group(k);

		if (!g) {
			r = -ENOMEM;
		} else {
			snprintf(g->name, sizeof(g->name), "/");
			g->wl = -1;
			g->live = true;
			assign_cntrs(k, g);
			for (unsigned i = 0; i < rd->ngroups; i++)
				if (!strcmp(rd->groups[i].name, "/")) {
					g->wl = (int)i;
					k->ws[i] = WS_LIVE;
					k->wg[i] = 0;
				}
			r = make_group_files(k, g);
		}
	}
	if (r == 0)
		r = srdt_sync(k, 0);
	if (r < 0) {
		snprintf(why, whylen, "%s: cannot lay out the resctrl tree: %s",
			 dir, strerror(-r));
		srdt_close(k);
		return r;
	}
	*out = k;
	return 0;
}

const char *srdt_root(const struct srdt *k)
{
	return k->root;
}

const char *srdt_sysfs(const struct srdt *k)
{
	return k->sysfs;
}

unsigned srdt_refused(const struct srdt *k)
{
	return k->refused;
}

void srdt_close(struct srdt *k)
{
	if (!k)
		return;
	if (k->log)
		fclose(k->log);
	free(k->rmid_free_at);
	free(k->ws);
	free(k->wg);
	for (unsigned j = 0; j < k->ng; j++) {
		free(k->g[j].tacc);
		free(k->g[j].tocc);
		free(k->g[j].cbase);
	}
	free(k->g);
	free(k);
}
