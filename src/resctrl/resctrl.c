/*
 * resctrl.c - one read-only pass over a resctrl tree (see resctrl.h).
 *
 * Layout read (Documentation/filesystems/resctrl.rst, "Monitoring"):
 *   <root>/info/L3_MON/...                  present when monitoring is
 *   <root>/mon_data/mon_L3_XX/<event>       the root (default) CTRL_MON group
 *   <root>/<ctrl>/mon_data/...              a CTRL_MON group
 *   <root>[/<ctrl>]/mon_groups/<mon>/mon_data/...   a MON group
 *   .../mon_L3_XX/mon_sub_L3_YY/<event>     SNC nodes of domain XX
 * Values are bytes, cumulative since the group was made; the kernel
 * extends the hardware counter, so no wrap handling is needed here.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/prom.h"
#include "base/sfile.h"
#include "resctrl.h"

static const char *const ev_file[RDT_NEVENTS] = {
	[RDT_TOTAL] = "mbm_total_bytes",
	[RDT_LOCAL] = "mbm_local_bytes",
	[RDT_OCC] = "llc_occupancy",
};

const char *rdt_status_name(enum rdt_status s)
{
	static const char *const name[RDT_NSTATUS] = {
		[RDT_OK] = "ok",
		[RDT_UNAVAILABLE] = "unavailable",
		[RDT_ERROR] = "error",
		[RDT_UNASSIGNED] = "unassigned",
		[RDT_MALFORMED] = "malformed",
		[RDT_UNREADABLE] = "unreadable",
	};
	return (unsigned)s < RDT_NSTATUS ? name[s] : "malformed";
}

enum rdt_status rdt_parse_value(const char *text, struct rdt_val *out)
{
	size_t n = strcspn(text, "\n");
	static const struct { const char *w; enum rdt_status st; } word[] = {
		{ "Unavailable", RDT_UNAVAILABLE },
		{ "Error", RDT_ERROR },
		{ "Unassigned", RDT_UNASSIGNED },
	};

	out->v = 0;
	for (size_t i = 0; i < sizeof word / sizeof word[0]; i++)
		if (n == strlen(word[i].w) && strncmp(text, word[i].w, n) == 0)
			return out->st = word[i].st;
	/* A decimal u64 and nothing else (the kernel prints "%llu\n"). */
	if (n == 0 || n > 20)
		return out->st = RDT_MALFORMED;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)text[i]))
			return out->st = RDT_MALFORMED;
		unsigned d = (unsigned)(text[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return out->st = RDT_MALFORMED;
		v = v * 10 + d;
	}
	out->v = v;
	return out->st = RDT_OK;
}

/*
 * Formats a path into out[PATH_MAX].  0, or -1 when it would not fit: the
 * caller skips that entry rather than read a truncated path.
 */
__attribute__((format(printf, 2, 3)))
static int pathf(char *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= PATH_MAX ? -1 : 0;
}

/* Reads a small file into buf (NUL-terminated): sfile_read, so a FIFO
 * or a link in a file's place is refused, never waited on.  0 or
 * -errno. */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t r = sfile_read(AT_FDCWD, path, buf, len, NULL, 0);

	return r < 0 && r != -EFBIG ? (int)r : 0;
}

static int read_long(const char *path, long *out)
{
	char buf[32], *end;

	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -1;
	*out = v;
	return 0;
}

int rdt_l3_socket(const char *sysfs_root, unsigned l3)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int sock = -1;

	snprintf(path, sizeof path, "%s/devices/system/cpu", sysfs_root);
	if (!(d = opendir(path)))
		return -1;
	while (sock < 0 && (e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "cpu", 3) || !isdigit((unsigned char)e->d_name[3]))
			continue;
		strtoul(e->d_name + 3, &end, 10);
		if (*end)
			continue;
		for (int k = 0; k < 16; k++) {
			long level, id, pkg;
			snprintf(path, sizeof path,
				 "%s/devices/system/cpu/%s/cache/index%d/level",
				 sysfs_root, e->d_name, k);
			if (read_long(path, &level) < 0)
				break;
			if (level != 3)
				continue;
			snprintf(path, sizeof path,
				 "%s/devices/system/cpu/%s/cache/index%d/id",
				 sysfs_root, e->d_name, k);
			if (read_long(path, &id) < 0 || id != (long)l3)
				break;
			snprintf(path, sizeof path,
				 "%s/devices/system/cpu/%s/topology/physical_package_id",
				 sysfs_root, e->d_name);
			if (read_long(path, &pkg) == 0 && pkg >= 0)
				sock = (int)pkg;
			break;
		}
	}
	closedir(d);
	return sock;
}

/* Parses "mon_L3_XX" / "mon_sub_L3_YY".  0 or -1. */
static int domain_id(const char *name, const char *prefix, unsigned *id)
{
	size_t n = strlen(prefix);
	char *end;

	if (strncmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return -1;
	errno = 0;
	unsigned long v = strtoul(name + n, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*id = (unsigned)v;
	return 0;
}

struct scan {
	const char *sysfs;
	struct rdt_snap *snap;
	/* L3 id -> socket, looked up once per pass */
	unsigned *l3;
	int *sock;
	size_t nl3;
};

static int socket_of(struct scan *sc, unsigned l3)
{
	for (size_t i = 0; i < sc->nl3; i++)
		if (sc->l3[i] == l3)
			return sc->sock[i];
	unsigned *nl = realloc(sc->l3, (sc->nl3 + 1) * sizeof *nl);
	if (nl)
		sc->l3 = nl;
	int *ns = realloc(sc->sock, (sc->nl3 + 1) * sizeof *ns);
	if (ns)
		sc->sock = ns;
	int s = rdt_l3_socket(sc->sysfs, l3);
	if (nl && ns) {
		sc->l3[sc->nl3] = l3;
		sc->sock[sc->nl3++] = s;
	}
	return s;
}

static int add_sample(struct scan *sc, const char *group, int is_mon,
		      uint64_t gen, unsigned dom, int sub, const char *dir)
{
	struct rdt_snap *sn = sc->snap;

	if (sn->n == sn->cap) {
		size_t cap = sn->cap ? 2 * sn->cap : 16;
		struct rdt_sample *s = realloc(sn->s, cap * sizeof *s);
		if (!s)
			return -ENOMEM;
		sn->s = s;
		sn->cap = cap;
	}
	struct rdt_sample *s = &sn->s[sn->n];
	memset(s, 0, sizeof *s);
	if (!(s->group = strdup(group)))
		return -ENOMEM;
	s->is_mon = is_mon;
	s->gen = gen;
	s->domain = dom;
	s->sub = sub;
	s->socket = socket_of(sc, dom);
	for (int e = 0; e < RDT_NEVENTS; e++) {
		char path[PATH_MAX], buf[64];
		if (pathf(path, "%s/%s", dir, ev_file[e]) < 0) {
			s->ev[e].st = RDT_UNREADABLE;
			s->ev[e].v = ENAMETOOLONG;
			continue;
		}
		int r = read_small(path, buf, sizeof buf);
		if (r < 0) {
			/* -ENOENT: the event is not monitored here (see
			 * info/L3_MON/mon_features); the caller skips it. */
			s->ev[e].st = RDT_UNREADABLE;
			s->ev[e].v = (uint64_t)-r;
			continue;
		}
		rdt_parse_value(buf, &s->ev[e]);
	}
	sn->n++;
	return 0;
}

/* All domains of one group, whose directory is gdir. */
static int scan_group(struct scan *sc, const char *gdir, const char *group,
		      int is_mon)
{
	char path[PATH_MAX];
	struct stat st;
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (stat(gdir, &st) < 0)
		return 0;	/* went away during the pass */
	/* kernfs numbers inodes cyclically (fs/kernfs/dir.c,
	 * __kernfs_new_node: idr/xa_alloc_cyclic), so a re-made group gets a
	 * new one: the inode is the group's generation. */
	uint64_t gen = (uint64_t)st.st_ino;
	snprintf(path, sizeof path, "%s/mon_data", gdir);
	if (!(d = opendir(path)))
		return 0;
	while (r == 0 && (e = readdir(d))) {
		unsigned dom;
		char ddir[PATH_MAX];
		if (domain_id(e->d_name, "mon_L3_", &dom) < 0)
			continue;
		if (pathf(ddir, "%s/%s", path, e->d_name) < 0)
			continue;
		/* Under SNC the domain directory holds the sums and one
		 * mon_sub_L3_YY per node; the nodes are the finer truth. */
		DIR *sd = opendir(ddir);
		struct dirent *se;
		int nsub = 0;
		while (r == 0 && sd && (se = readdir(sd))) {
			unsigned sub;
			char sdir[PATH_MAX];
			if (domain_id(se->d_name, "mon_sub_L3_", &sub) < 0)
				continue;
			if (pathf(sdir, "%s/%s", ddir, se->d_name) < 0)
				continue;
			r = add_sample(sc, group, is_mon, gen,
				       dom, (int)sub, sdir);
			nsub++;
		}
		if (sd)
			closedir(sd);
		if (r == 0 && nsub == 0)
			r = add_sample(sc, group, is_mon, gen,
				       dom, -1, ddir);
	}
	closedir(d);
	return r;
}

/* The MON groups under ctrl_dir/mon_groups. */
static int scan_mon_groups(struct scan *sc, const char *ctrl_dir,
			   const char *ctrl_name)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *e;
	int r = 0;

	snprintf(path, sizeof path, "%s/mon_groups", ctrl_dir);
	if (!(d = opendir(path)))
		return 0;
	while (r == 0 && (e = readdir(d))) {
		char gdir[PATH_MAX], name[PATH_MAX];
		if (e->d_name[0] == '.')
			continue;
		if (pathf(gdir, "%s/%s", path, e->d_name) < 0 ||
		    pathf(name, "%s%smon_groups/%s", ctrl_name ? ctrl_name : "",
			  ctrl_name ? "/" : "", e->d_name) < 0)
			continue;
		r = scan_group(sc, gdir, name, 1);
	}
	closedir(d);
	return r;
}

static void sample_free(struct rdt_sample *s)
{
	free(s->group);
	free(s->cgroup);
	free(s->pod);
	free(s->ctr);
}

void rdt_snap_free(struct rdt_snap *snap)
{
	for (size_t i = 0; i < snap->n; i++)
		sample_free(&snap->s[i]);
	free(snap->s);
	memset(snap, 0, sizeof *snap);
}

static void snap_clear(struct rdt_snap *snap)
{
	for (size_t i = 0; i < snap->n; i++)
		sample_free(&snap->s[i]);
	snap->n = 0;
}

int rdt_scan(const char *root, const char *sysfs_root, struct rdt_snap *snap)
{
	struct scan sc = { .sysfs = sysfs_root, .snap = snap };
	char path[PATH_MAX];
	struct stat st;
	DIR *d;
	struct dirent *e;
	int r;

	snap_clear(snap);
	snprintf(path, sizeof path, "%s/info", root);
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOENT;
	r = scan_group(&sc, root, "/", 0);
	if (r == 0)
		r = scan_mon_groups(&sc, root, NULL);
	if (r == 0 && (d = opendir(root))) {
		while (r == 0 && (e = readdir(d))) {
			char gdir[PATH_MAX];
			if (e->d_name[0] == '.' || !strcmp(e->d_name, "info") ||
			    !strcmp(e->d_name, "mon_groups") ||
			    !strcmp(e->d_name, "mon_data"))
				continue;
			if (pathf(gdir, "%s/%s", root, e->d_name) < 0)
				continue;
			if (stat(gdir, &st) < 0 || !S_ISDIR(st.st_mode))
				continue;
			r = scan_group(&sc, gdir, e->d_name, 0);
			if (r == 0)
				r = scan_mon_groups(&sc, gdir, e->d_name);
		}
		closedir(d);
	}
	free(sc.l3);
	free(sc.sock);
	return r;
}

uint64_t rdt_delta(uint64_t prev_gen, uint64_t prev, uint64_t gen,
		   uint64_t cur, int *reset)
{
	if (gen != prev_gen || cur < prev) {
		*reset = 1;
		return cur;
	}
	*reset = 0;
	return cur - prev;
}

void rdt_count(struct rdt_stats *st, const struct rdt_snap *snap)
{
	for (size_t i = 0; i < snap->n; i++)
		for (int e = 0; e < RDT_NEVENTS; e++) {
			const struct rdt_val *v = &snap->s[i].ev[e];
			if (v->st == RDT_OK ||
			    (v->st == RDT_UNREADABLE && v->v == ENOENT))
				continue;
			if ((unsigned)v->st < RDT_NSTATUS)
				st->unreadable[v->st]++;
		}
}

static void labels_of(const struct rdt_sample *s, char *sock, size_t nsock,
		      char *dom, size_t ndom)
{
	if (s->socket >= 0)
		snprintf(sock, nsock, "%d", s->socket);
	else
		sock[0] = '\0';
	if (s->sub >= 0)
		snprintf(dom, ndom, "%u.%d", s->domain, s->sub);
	else
		snprintf(dom, ndom, "%u", s->domain);
}

/* Appends at l[n] the cgroup labels of a group uncored made (those that
 * are known), then the NULL end; l has room for 6 more. */
static void own_labels(const struct rdt_sample *s, const char **l, int n)
{
	if (s->cgroup) {
		l[n++] = "cgroup";
		l[n++] = s->cgroup;
		if (s->pod && *s->pod) {
			l[n++] = "pod_uid";
			l[n++] = s->pod;
		}
		if (s->ctr && *s->ctr) {
			l[n++] = "container_id";
			l[n++] = s->ctr;
		}
	}
	l[n] = NULL;
}

int rdt_render(struct prom *w, const struct rdt_snap *snap,
	       const struct rdt_stats *st)
{
	char sock[16], dom[32];

	prom_family(w, "uncore_resctrl_memory_bytes_total", PROM_COUNTER, NULL,
		    "Bytes of memory traffic counted by resctrl for a monitoring "
		    "group in an L3 domain since the group was made (scope "
		    "total: all memory; local: the domain's own NUMA node)");
	for (size_t i = 0; i < snap->n; i++) {
		const struct rdt_sample *s = &snap->s[i];
		labels_of(s, sock, sizeof sock, dom, sizeof dom);
		for (int e = RDT_TOTAL; e <= RDT_LOCAL; e++) {
			if (s->ev[e].st != RDT_OK)
				continue;
			const char *l[16] = { "group", s->group, "socket", sock,
					      "domain", dom, "scope",
					      e == RDT_TOTAL ? "total" : "local" };
			own_labels(s, l, 8);
			prom_sample_u64(w, NULL, l, s->ev[e].v);
		}
	}
	prom_family(w, "uncore_resctrl_llc_occupancy_bytes", PROM_GAUGE, NULL,
		    "Bytes of the L3 cache held by a resctrl monitoring group "
		    "in an L3 domain");
	for (size_t i = 0; i < snap->n; i++) {
		const struct rdt_sample *s = &snap->s[i];
		if (s->ev[RDT_OCC].st != RDT_OK)
			continue;
		labels_of(s, sock, sizeof sock, dom, sizeof dom);
		const char *l[16] = { "group", s->group, "socket", sock,
				      "domain", dom };
		own_labels(s, l, 6);
		prom_sample_u64(w, NULL, l, s->ev[RDT_OCC].v);
	}
	prom_family(w, "uncore_resctrl_unreadable_total", PROM_COUNTER, "",
		    "resctrl values that were not a reading, by reason "
		    "(unavailable, error, unassigned, malformed, unreadable); "
		    "such a value is left out, never exported as 0");
	for (int r = RDT_OK + 1; r < RDT_NSTATUS; r++) {
		const char *l[] = { "reason", rdt_status_name((enum rdt_status)r),
				    NULL };
		prom_sample_u64(w, NULL, l, st->unreadable[r]);
	}
	return w->err;
}
