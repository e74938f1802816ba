/*
 * resctrl_own.c - MON groups per cgroup (see resctrl_own.h).
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/prom.h"
#include "base/sfile.h"
#include "resctrl_cg.h"
#include "resctrl_own.h"

/* Deeper cgroup trees than this are not walked (systemd's are < 10). */
#define CG_MAX_DEPTH	32
/* Passes before a cgroup refused an RMID (ENOSPC) or a group for another
 * reason tries again; after EBUSY (limbo) it is the next pass. */
#define RDT_OWN_RETRY_PASSES	5

bool rdt_own_name_ok(const char *name)
{
	size_t p = sizeof(RDT_OWN_PREFIX) - 1;

	if (!name || strncmp(name, RDT_OWN_PREFIX, p) != 0 ||
	    strlen(name) != RDT_OWN_NAME_LEN)
		return false;
	for (const char *c = name + p; *c; c++)
		if (!isdigit((unsigned char)*c) && !(*c >= 'a' && *c <= 'f'))
			return false;
	return true;
}

/* ---- the manager ------------------------------------------------------ */

static const char *const state_names[RDT_OWN_NSTATES] = {
	[RDT_OWN_GROUPED] = "grouped",
	[RDT_OWN_PENDING] = "pending",
	[RDT_OWN_LIMIT] = "limit",
	[RDT_OWN_NO_RMID] = "no_rmid",
	[RDT_OWN_LIMBO] = "rmid_limbo",
	[RDT_OWN_ERROR] = "error",
	[RDT_OWN_REFUSED] = "refused",
	[RDT_OWN_SHARE] = "owner_share",
	[RDT_OWN_UNTRACKED] = "untracked",
};

static const char *const assign_names[RDT_ASSIGN_N] = {
	[RDT_ASSIGN_OK] = "assigned",
	[RDT_ASSIGN_REFUSED] = "refused",
	[RDT_ASSIGN_ERROR] = "error",
};

static const char *const move_names[RDT_MOVE_N] = {
	[RDT_MOVE_OK] = "moved",
	[RDT_MOVE_GONE] = "gone",
	[RDT_MOVE_OTHER_CTRL] = "other_ctrl_group",
	[RDT_MOVE_OTHER_MON] = "other_mon_group",
	[RDT_MOVE_DENIED] = "denied",
	[RDT_MOVE_ERROR] = "error",
};

const char *rdt_own_state_name(enum rdt_own_state s)
{
	return (unsigned)s < RDT_OWN_NSTATES ? state_names[s] : "?";
}

/* One matching cgroup. */
struct ent {
	char *cgroup;			/* relative to the cgroup root */
	char name[RDT_OWN_NAME_LEN + 1];
	char pod[64], ctr[128];
	enum rdt_own_state state;
	bool made;			/* the directory is ours now */
	int lockfd;			/* the group's directory, flock()ed
					   shared while it is ours; -1 none */
	bool retrying;			/* made again after a refusal, not yet
					   seen in the tree: state unchanged */
	uint64_t retry_at;		/* a refused one tries from this pass */
	pid_t *tids;			/* written to tasks, sorted */
	size_t ntids;
};

struct rdt_own {
	char **pat;
	size_t npat;
	char *cg_root, *rdt_root;
	unsigned max_groups;
	uint64_t pass;			/* passes so far */
	struct rdt_writer *w;
	struct ent *e;			/* sorted by cgroup path */
	size_t n, cap;
	struct ent **byname;		/* the made ones, sorted by name */
	size_t nbyname;
	pthread_mutex_t mu;		/* guards the figures below (render) */
	unsigned nstate[RDT_OWN_NSTATES];
	uint64_t moves[RDT_MOVE_N];
	unsigned logged[RDT_OWN_NSTATES];	/* counts last logged */
	bool abmc;			/* mbm_event mode seen (last pass) */
	unsigned unassigned;		/* our groups' events without one */
	unsigned unassigned_logged;
	uint64_t assigns[RDT_ASSIGN_N];
	struct log_limit refused_log;	/* a cgroup.threads refused */
	struct log_limit lost_log;	/* a group removed behind us */
	uint64_t lost;			/* groups found removed behind us */
};

/* FNV-1a, 64 bits: a stable name for a cgroup path. */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

void rdt_own_name(const char *cgroup, char out[RDT_OWN_NAME_LEN + 1])
{
	snprintf(out, RDT_OWN_NAME_LEN + 1, RDT_OWN_PREFIX "%016llx",
		 (unsigned long long)fnv1a(cgroup));
}

struct rdt_own *rdt_own_new(const struct rdt_own_cfg *cfg,
			    struct rdt_writer *w)
{
	struct rdt_own *o = calloc(1, sizeof *o);

	if (!o) {
		if (w)
			w->free(w);
		return NULL;
	}
	o->w = w;
	pthread_mutex_init(&o->mu, NULL);
	o->max_groups = cfg->max_groups;
	o->cg_root = strdup(cfg->cgroup_root);
	o->rdt_root = strdup(cfg->resctrl_root);
	if (!w || !o->cg_root || !o->rdt_root ||
	    rdtcg_split(cfg->patterns, &o->pat, &o->npat) < 0) {
		rdt_own_free(o);
		return NULL;
	}
	return o;
}

static bool matches(const struct rdt_own *o, const char *path)
{
	for (size_t i = 0; i < o->npat; i++)
		if (rdtcg_match(o->pat[i], path))
			return true;
	return false;
}

/* The matching cgroups a walk found: path and its directory's owner. */
struct found {
	struct match {
		char *path;
		uid_t uid;
		bool old;	/* it has an entry from an earlier pass */
		bool keep;	/* tracked this pass */
	} *m;
	size_t n, cap;
	size_t over;		/* matches past RDT_OWN_WALK_MAX, not stored */
};

static int found_add(struct found *f, const char *path, uid_t uid)
{
	if (f->n >= RDT_OWN_WALK_MAX) {
		f->over++;
		return 0;
	}
	if (f->n == f->cap) {
		size_t nc = f->cap ? 2 * f->cap : 64;
		struct match *nm = realloc(f->m, nc * sizeof *nm);

		if (!nm)
			return -ENOMEM;
		f->m = nm;
		f->cap = nc;
	}
	f->m[f->n] = (struct match){ .path = strdup(path), .uid = uid };
	if (!f->m[f->n].path)
		return -ENOMEM;
	f->n++;
	return 0;
}

/* Walks the directory dfd (the cgroup at rel, "" for the root). */
static int walk(const struct rdt_own *o, int dfd, char *rel, size_t len,
		int depth, struct found *f)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while (r == 0 && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR &&
					     de->d_type != DT_UNKNOWN))
			continue;
		if (len + (len > 0) + l >= PATH_MAX)
			continue;
		if (len)
			rel[len] = '/';
		memcpy(rel + len + (len > 0), de->d_name, l + 1);
		int cfd = openat(dirfd(d), de->d_name,
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (cfd >= 0) {
			struct stat st;

			if (matches(o, rel))
				r = fstat(cfd, &st) < 0 ? 0
				    : found_add(f, rel, st.st_uid);
			if (r == 0 && depth < CG_MAX_DEPTH)
				r = walk(o, cfd, rel, len + (len > 0) + l,
					 depth + 1, f);
			else
				close(cfd);
		}
		/* ENOTDIR (DT_UNKNOWN, a file), ENOENT (gone): skip */
		rel[len] = '\0';
	}
	closedir(d);
	return r == -ENOMEM ? r : 0;
}

/* Tracked ones first, then path order: who keeps a place. */
static int cmp_match(const void *a, const void *b)
{
	const struct match *x = *(const struct match *const *)a;
	const struct match *y = *(const struct match *const *)b;

	if (x->old != y->old)
		return x->old ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* By owner, then as cmp_match: each owner's order of claim. */
static int cmp_owner(const void *a, const void *b)
{
	const struct match *x = *(const struct match *const *)a;
	const struct match *y = *(const struct match *const *)b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return cmp_match(a, b);
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct match *)a)->path,
		      ((const struct match *)b)->path);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int cmp_ent(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->cgroup,
		      ((const struct ent *)b)->cgroup);
}

/* o->e is sorted by cgroup path. */
static struct ent *find(struct rdt_own *o, const char *cg)
{
	struct ent key = { .cgroup = (char *)cg };

	return o->n ? bsearch(&key, o->e, o->n, sizeof key, cmp_ent) : NULL;
}

/* A new entry for cgroup path cg (taken over, not copied). */
static void init_ent(struct ent *e, char *cg)
{
	memset(e, 0, sizeof *e);
	e->cgroup = cg;
	rdt_own_name(cg, e->name);
	rdtcg_k8s_ids(cg, e->pod, e->ctr);
	e->state = RDT_OWN_PENDING;	/* until tried */
	e->lockfd = -1;
}

static void ent_free(struct ent *e)
{
	free(e->cgroup);
	free(e->tids);
	if (e->lockfd >= 0)
		close(e->lockfd);
}


/* ---- who holds a group (doc/resctrl.md, decision 27) ----------------- */

/* mon_groups/NAME's directory, opened without following a link; -errno. */
static int open_group(const struct rdt_own *o, const char *name)
{
	char p[PATH_MAX];
	int fd;

	if (snprintf(p, sizeof p, "%s/mon_groups/%s", o->rdt_root, name) >=
	    (int)sizeof p)
		return -ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
		  O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Marks e's group as held by a live daemon: a shared flock(2) on its
 * directory, kept while the group is ours.  Every daemon using the group
 * holds one; a sweep's exclusive one (sweep()) cannot be had meanwhile,
 * and the kernel drops it when the process ends, however it ends.
 * 0 or -errno (-EWOULDBLOCK: another daemon is removing it).
 */
static int hold(const struct rdt_own *o, struct ent *e)
{
	int fd, r;

	if (e->lockfd >= 0)
		close(e->lockfd);
	e->lockfd = -1;
	if ((fd = open_group(o, e->name)) < 0)
		return fd;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	e->lockfd = fd;
	return 0;
}

/*
 * Gives e's group up (why: for the log): removed, unless another live
 * daemon holds it too (a cgroup both match has one name, decision 18),
 * which then keeps it.  Returns the writer's answer, or 0 when left or
 * not there.
 */
static int release(struct rdt_own *o, struct ent *e, const char *why)
{
	int fd = e->lockfd, r;

	e->lockfd = -1;
	if (fd < 0)
		fd = open_group(o, e->name);
	if (fd == -ENOENT) {	/* gone: the writer forgets it too */
		o->w->rmgroup(o->w, e->name);
		return 0;
	}
	/* a shared lock becomes exclusive only when no one else has one */
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		log_info("resctrl: mon_groups/%s (cgroup %s) left to another "
			 "daemon that holds it (%s)", e->name, e->cgroup, why);
		close(fd);
		return 0;
	}
	r = o->w->rmgroup(o->w, e->name);
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * Was e's group removed behind us (by an administrator, another tool, or
 * a remount of resctrl, which empties mon_groups/)?  Its directory is
 * gone, or is another than the one held, or a grouped one has no tasks.
 * A group not held yet is taken now.
 */
static bool lost(const struct rdt_own *o, struct ent *e)
{
	char p[PATH_MAX];
	struct stat now, had;

	snprintf(p, sizeof p, "%s/mon_groups/%s", o->rdt_root, e->name);
	if (lstat(p, &now) < 0)
		return errno == ENOENT || errno == ENOTDIR;
	if (e->lockfd < 0) {
		hold(o, e);
		return false;
	}
	if (fstat(e->lockfd, &had) == 0 &&
	    (had.st_ino != now.st_ino || had.st_dev != now.st_dev))
		return true;
	snprintf(p, sizeof p, "%s/mon_groups/%s/tasks", o->rdt_root, e->name);
	return e->state == RDT_OWN_GROUPED && access(p, F_OK) < 0 &&
	       errno == ENOENT;
}

/* e's group was removed behind us: made again in this pass (make()),
 * and its threads written again, as none is in the new one. */
static void forget(struct rdt_own *o, struct ent *e)
{
	log_warnx_limited(&o->lost_log, "resctrl: mon_groups/%s (cgroup %s) "
			  "was removed behind uncored (another tool, or "
			  "resctrl remounted): made again", e->name, e->cgroup);
	if (e->lockfd >= 0)
		close(e->lockfd);
	e->lockfd = -1;
	e->made = false;
	e->retrying = false;
	e->state = RDT_OWN_PENDING;
	free(e->tids);
	e->tids = NULL;
	e->ntids = 0;
}

/*
 * Which matching cgroups are tracked this pass: of those a uid other
 * than 0 owns, at most RDT_OWN_SHARE per uid; of all, at most
 * RDT_OWN_TRACKED; in both, those tracked before first, then path order,
 * so a newcomer never takes an older one's place and the choice is
 * reproducible.  The others are counted in ns[] (owner_share,
 * untracked), eg[] pointing at an example path (f's).  -ENOMEM.
 */
static int choose(const struct rdt_own *o, struct found *f, unsigned *ns,
		  const char **eg)
{
	unsigned share = RDT_OWN_SHARE(o->max_groups);
	unsigned cap = RDT_OWN_TRACKED(o->max_groups), kept = 0, rank = 0;
	struct match **ix = f->n ? malloc(f->n * sizeof *ix) : NULL;

	if (f->n && !ix)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		f->m[i].old = find((struct rdt_own *)o, f->m[i].path) != NULL;
		f->m[i].keep = true;
		ix[i] = &f->m[i];
	}
	if (f->n)
		qsort(ix, f->n, sizeof *ix, cmp_owner);
	for (size_t i = 0; i < f->n; i++) {
		if (i == 0 || ix[i]->uid != ix[i - 1]->uid)
			rank = 0;
		if (ix[i]->uid != 0 && rank++ >= share) {
			ix[i]->keep = false;
			ns[RDT_OWN_SHARE]++;
			if (!eg[RDT_OWN_SHARE])
				eg[RDT_OWN_SHARE] = ix[i]->path;
		}
	}
	if (f->n)
		qsort(ix, f->n, sizeof *ix, cmp_match);
	for (size_t i = 0; i < f->n; i++) {
		if (!ix[i]->keep)
			continue;
		if (kept < cap) {
			kept++;
			continue;
		}
		ix[i]->keep = false;
		ns[RDT_OWN_UNTRACKED]++;
		if (!eg[RDT_OWN_UNTRACKED])
			eg[RDT_OWN_UNTRACKED] = ix[i]->path;
	}
	ns[RDT_OWN_UNTRACKED] += (unsigned)f->over;
	free(ix);
	return 0;
}

/*
 * The entries become those of the sorted paths p[0..n) (taken over):
 * each keeps its state if it had an entry; an entry whose cgroup went
 * away takes its group with it (its RMID goes to limbo, as the kernel's
 * rmdir does).  -ENOMEM leaves everything as it was.
 */
static int renew(struct rdt_own *o, char **p, size_t n)
{
	struct ent *ne = n ? calloc(n, sizeof *ne) : NULL;
	bool *kept = o->n ? calloc(o->n, sizeof *kept) : NULL;

	if ((n && !ne) || (o->n && !kept)) {
		free(ne);
		free(kept);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct ent *old = find(o, p[i]);

		if (old) {
			ne[i] = *old;	/* its strings move with it */
			kept[old - o->e] = true;
			free(p[i]);
		} else {
			init_ent(&ne[i], p[i]);
		}
		p[i] = NULL;
	}
	for (size_t i = 0; i < o->n; i++) {
		if (kept[i])
			continue;
		if (o->e[i].made)
			release(o, &o->e[i], "its cgroup went away");
		ent_free(&o->e[i]);
	}
	free(kept);
	free(o->e);
	o->e = ne;
	o->n = o->cap = n;
	return 0;
}

static int cmp_byname(const void *a, const void *b)
{
	return strcmp((*(struct ent *const *)a)->name,
		      (*(struct ent *const *)b)->name);
}

/* The index of made groups by name, for sweep() and rdt_own_labels(). */
static int index_names(struct rdt_own *o)
{
	size_t k = 0;

	free(o->byname);
	o->byname = NULL;
	o->nbyname = 0;
	for (size_t i = 0; i < o->n; i++)
		k += o->e[i].made;
	if (!k)
		return 0;
	if (!(o->byname = malloc(k * sizeof *o->byname)))
		return -ENOMEM;
	for (size_t i = 0; i < o->n; i++)
		if (o->e[i].made)
			o->byname[o->nbyname++] = &o->e[i];
	qsort(o->byname, o->nbyname, sizeof *o->byname, cmp_byname);
	return 0;
}

static const struct ent *by_name(const struct rdt_own *o, const char *name)
{
	struct ent key, *kp = &key, **r;

	if (!o->nbyname || strlen(name) >= sizeof key.name)
		return NULL;
	snprintf(key.name, sizeof key.name, "%s", name);
	r = bsearch(&kp, o->byname, o->nbyname, sizeof *o->byname, cmp_byname);
	return r ? *r : NULL;
}

static int add_tid(pid_t **t, size_t *n, size_t *cap, long v)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		pid_t *nt = realloc(*t, nc * sizeof *nt);

		if (!nt)
			return -ENOMEM;
		*t = nt;
		*cap = nc;
	}
	(*t)[(*n)++] = (pid_t)v;
	return 0;
}

/*
 * Appends the thread ids of the file p (cgroup.threads, or a group's
 * tasks) to *t (n used, cap allocated); -errno, with msg.  The file is
 * opened with sfile_open (a FIFO or a link is refused, -EINVAL or -ELOOP:
 * one blocked this thread for ever, a link to /dev/zero spun it) and read
 * up to RDT_OWN_THREADS_MAX bytes (-EFBIG past them).  A line that is not
 * a thread id is skipped.
 */
static int read_tid_file(const char *p, pid_t **t, size_t *n, size_t *cap,
			 char *msg, size_t msglen)
{
	char buf[4096];
	long v = -1;		/* the line's number so far; -1: none */
	bool junk = false;	/* the line has something else */
	size_t total = 0;
	ssize_t r;
	int fd, err = 0;

	if ((fd = sfile_open(AT_FDCWD, p, msg, msglen)) < 0)
		return fd;
	for (;;) {
		r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			snprintf(msg, msglen, "%s: %s", p, strerror(errno));
			break;
		}
		if (r == 0)
			break;
		if ((total += (size_t)r) > RDT_OWN_THREADS_MAX) {
			err = -EFBIG;
			snprintf(msg, msglen, "%s: longer than %u bytes", p,
				 RDT_OWN_THREADS_MAX);
			break;
		}
		for (ssize_t i = 0; i < r && !err; i++) {
			char c = buf[i];

			if (c >= '0' && c <= '9') {
				v = v < 0 ? c - '0' : v * 10 + (c - '0');
				junk |= v > INT_MAX;
				if (junk)
					v = 0;
			} else if (c == '\n') {
				if (!junk && v > 0)
					err = add_tid(t, n, cap, v);
				v = -1;
				junk = false;
			} else {
				junk = true;
			}
		}
		if (err)
			break;
	}
	if (!err && !junk && v > 0)
		err = add_tid(t, n, cap, v);
	close(fd);
	return err;
}

/* The thread ids in cg's cgroup.threads, sorted; -errno, with msg
 * (read_tid_file). */
static int read_threads(const struct rdt_own *o, const char *cg,
			pid_t **out, size_t *n, char *msg, size_t msglen)
{
	char p[PATH_MAX];
	size_t cap = 0;
	int err;

	*out = NULL;
	*n = 0;
	if (snprintf(p, sizeof p, "%s/%s/cgroup.threads", o->cg_root, cg) >=
	    (int)sizeof p)
		return -ENAMETOOLONG;
	if ((err = read_tid_file(p, out, n, &cap, msg, msglen)) < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return err;
	}
	if (*n)
		qsort(*out, *n, sizeof **out, cmp_pid);
	return 0;
}

/*
 * The threads other tools' MON groups of the root hold (every
 * mon_groups/<name>/tasks whose name is not uncored's), sorted: they are
 * left where they are (doc/resctrl.md, decision 20).  Read once a pass;
 * the helper checks again before each write.
 */
static void read_held(const struct rdt_own *o, pid_t **out, size_t *n)
{
	char p[PATH_MAX];
	size_t cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(p, sizeof p, "%s/mon_groups", o->rdt_root);
	if (!(d = opendir(p)))
		return;
	while ((de = readdir(d))) {
		char msg[PATH_MAX + 64];

		if (de->d_name[0] == '.' || rdt_own_name_ok(de->d_name))
			continue;
		snprintf(p, sizeof p, "%s/mon_groups/%s/tasks", o->rdt_root,
			 de->d_name);
		/* a file refused or gone holds nothing we would skip */
		if (read_tid_file(p, out, n, &cap, msg, sizeof msg) == -ENOMEM)
			break;
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof **out, cmp_pid);
}

static bool has_tid(const struct ent *e, pid_t t)
{
	return e->ntids &&
	       bsearch(&t, e->tids, e->ntids, sizeof t, cmp_pid) != NULL;
}

static bool group_file(const struct rdt_own *o, const struct ent *e,
		       const char *file)
{
	char p[PATH_MAX];

	snprintf(p, sizeof p, "%s/mon_groups/%s/%s", o->rdt_root, e->name, file);
	return access(p, F_OK) == 0;
}

/* Is r read_threads' refusal of a file (not its absence)? */
static bool file_refused(int r)
{
	return r == -EINVAL || r == -ELOOP || r == -EFBIG;
}

/* e's cgroup.threads was refused (msg): no group, tried again later. */
static void refuse_file(struct rdt_own *o, struct ent *e, const char *msg)
{
	log_warnx_limited(&o->refused_log, "resctrl: cgroup %s left without "
			  "a monitoring group: %s", e->cgroup, msg);
	e->state = RDT_OWN_REFUSED;
	e->retrying = false;
	e->retry_at = o->pass + RDT_OWN_RETRY_PASSES;
}

static bool in_ids(const pid_t *ids, size_t n, pid_t t)
{
	return n && bsearch(&t, ids, n, sizeof t, cmp_pid) != NULL;
}

/*
 * Writes the threads of e's cgroup that are not in its group yet, but
 * not those another tool's MON group holds (held[0..nheld)).  The moved
 * set becomes the threads now in the cgroup that were moved (ended
 * threads are forgotten, so a reused id is moved again).  Returns
 * read_threads' error (file_refused: the caller gives the group up).
 */
static int follow(struct rdt_own *o, struct ent *e, const pid_t *held,
		  size_t nheld, uint64_t *moves)
{
	char msg[PATH_MAX + 64];
	pid_t *now;
	size_t n, keep = 0;
	int r0 = read_threads(o, e->cgroup, &now, &n, msg, sizeof msg);

	if (r0 < 0) {
		if (file_refused(r0))
			refuse_file(o, e, msg);
		return r0;	/* gone: the next walk drops it */
	}
	for (size_t i = 0; i < n; i++) {
		int r = 0;

		if (!has_tid(e, now[i])) {
			r = in_ids(held, nheld, now[i]) ? -EBUSY
			    : o->w->move(o->w, e->name, e->cgroup, now[i]);
			moves[r == 0 ? RDT_MOVE_OK : r == -ESRCH ? RDT_MOVE_GONE
			      : r == -EINVAL ? RDT_MOVE_OTHER_CTRL
			      : r == -EBUSY ? RDT_MOVE_OTHER_MON
			      : r == -EPERM || r == -EACCES ? RDT_MOVE_DENIED
			      : RDT_MOVE_ERROR]++;
		}
		if (r == 0)
			now[keep++] = now[i];
	}
	free(e->tids);
	e->tids = now;
	e->ntids = keep;	/* now[] is sorted, and so its prefix */
	return 0;
}

static bool refused(enum rdt_own_state s)
{
	return s == RDT_OWN_NO_RMID || s == RDT_OWN_LIMBO ||
	       s == RDT_OWN_ERROR || s == RDT_OWN_REFUSED;
}

/* e's mkdir was refused with r: its state, and when to try again. */
static void refuse(struct rdt_own *o, struct ent *e, int r)
{
	if (r == -EMEDIUMTYPE && e->state != RDT_OWN_ERROR)
		log_warnx("resctrl: cannot make mon_groups/%s for cgroup %s: "
			  "%s is not the kernel's resctrl (statfs), and not "
			  "named a simulated tree ([resctrl] simulated): refused",
			  e->name, e->cgroup, o->rdt_root);
	else if (r != -ENOSPC && r != -EBUSY && e->state != RDT_OWN_ERROR)
		log_warnx("resctrl: cannot make mon_groups/%s for cgroup %s: %s%s",
			  e->name, e->cgroup, strerror(-r), r == -EDQUOT
			  ? " (the writer's own max_groups limit)" : "");
	e->state = r == -ENOSPC ? RDT_OWN_NO_RMID : r == -EBUSY ? RDT_OWN_LIMBO
		   : RDT_OWN_ERROR;
	e->retrying = false;
	e->retry_at = o->pass + (e->state == RDT_OWN_LIMBO ? 1
						: RDT_OWN_RETRY_PASSES);
}

/*
 * Makes e's group within the budget of made ones.  A first try is
 * pending until the tree shows the group; a cgroup refused before tries
 * again after its back-off, keeping its reason meanwhile (so that a
 * tree that answers a pass late, the simulated one, shows no flapping).
 */
static void make(struct rdt_own *o, struct ent *e, unsigned *made)
{
	char p[PATH_MAX], msg[PATH_MAX + 64];
	int r, fd = -1;

	if (refused(e->state) && o->pass < e->retry_at)
		return;
	if (*made >= o->max_groups) {
		e->state = RDT_OWN_LIMIT;
		return;
	}
	/* no RMID for a cgroup whose threads cannot be read */
	if (snprintf(p, sizeof p, "%s/%s/cgroup.threads", o->cg_root,
		     e->cgroup) < (int)sizeof p &&
	    (fd = sfile_open(AT_FDCWD, p, msg, sizeof msg)) < 0) {
		if (file_refused(fd)) {
			refuse_file(o, e, msg);
			return;
		}
	} else if (fd >= 0) {
		close(fd);
	}
	r = o->w->mkgroup(o->w, e->name);
	if (r == 0 || r == -EEXIST) {	/* EEXIST: ours, from before,
					   or another live daemon's */
		e->made = true;
		hold(o, e);	/* failing, lost() tells next pass */
		e->retrying = refused(e->state);
		if (!e->retrying)
			e->state = RDT_OWN_PENDING;
		(*made)++;
		return;
	}
	refuse(o, e, r);
}

/*
 * The simulated tree's answer to a mkdir it could not refuse: the errno
 * name in .mkdir_error (doc/resctrl.md, decision 16).  0 when absent.
 */
static int mkdir_error(const struct rdt_own *o, const struct ent *e)
{
	char p[PATH_MAX], buf[16] = "";

	snprintf(p, sizeof p, "%s/mon_groups/%s/.mkdir_error", o->rdt_root,
		 e->name);
	if (sfile_read(AT_FDCWD, p, buf, sizeof buf, NULL, 0) < 0 &&
	    !buf[0])
		return 0;
	return !strncmp(buf, "EBUSY", 5) ? -EBUSY : -ENOSPC;
}

/*
 * Our names in mon_groups/ that no entry made and no live daemon holds
 * (hold()): left by an earlier run or a daemon that crashed, removed.
 * The exclusive lock is kept through the removal, so a daemon cannot
 * take the group meanwhile; one another daemon holds is left alone.
 */
static void sweep(struct rdt_own *o)
{
	char p[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(p, sizeof p, "%s/mon_groups", o->rdt_root);
	if (!(d = opendir(p)))
		return;
	while ((de = readdir(d))) {
		int fd;

		if (!rdt_own_name_ok(de->d_name) || by_name(o, de->d_name))
			continue;
		fd = open_group(o, de->d_name);
		/* not a directory (a link planted): the writer unlinks it */
		if (fd < 0 && fd != -ELOOP && fd != -ENOTDIR)
			continue;
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);	/* a live daemon's */
			continue;
		}
		if (o->w->rmgroup(o->w, de->d_name) == 0)
			log_info("resctrl: removed %s, left by an earlier run "
				 "or a daemon that ended (no live daemon holds "
				 "it)", de->d_name);
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
}

static void log_states(struct rdt_own *o, const unsigned *ns,
		       const char *const *egs)
{
	for (int s = RDT_OWN_LIMIT; s < RDT_OWN_NSTATES; s++) {
		const char *eg = egs[s] ? egs[s] : "";

		if (ns[s] == o->logged[s])
			continue;
		o->logged[s] = ns[s];
		if (!ns[s]) {
			log_info("resctrl: no cgroup is left without a group "
				 "for reason %s now", state_names[s]);
			continue;
		}
		for (size_t i = 0; i < o->n && !*eg; i++)
			if (o->e[i].state == (enum rdt_own_state)s) {
				eg = o->e[i].cgroup;
				break;
			}
		log_warnx("resctrl: %u matching cgroup%s without a monitoring "
			  "group: %s (%s; e.g. %s); the daemon goes on",
			  ns[s], ns[s] == 1 ? "" : "s", state_names[s],
			  s == RDT_OWN_LIMIT ? "[resctrl] max_groups reached"
			  : s == RDT_OWN_NO_RMID ? "mkdir: no free RMID"
			  : s == RDT_OWN_LIMBO ? "mkdir: freed RMIDs still in "
						 "limbo, tried again next pass"
			  : s == RDT_OWN_REFUSED ? "its cgroup.threads is not a "
						   "regular file or too long"
			  : s == RDT_OWN_SHARE ? "its owner, not root, has its "
						 "share of max_groups"
			  : s == RDT_OWN_UNTRACKED ? "more matching cgroups than "
						     "2 x max_groups, or than "
						     "the walk keeps"
			  : "mkdir failed", eg);
	}
}

/* ---- ABMC: counters for uncored's groups ----------------------------- */

/* A file under the resctrl root, read whole (sfile_read); "" when
 * unreadable, not a regular file or longer than n - 1 bytes. */
static void info_text(const struct rdt_own *o, const char *file, char *buf,
		      size_t n)
{
	char p[PATH_MAX];

	int k = snprintf(p, sizeof p, "%s/%s", o->rdt_root, file);

	if (k < 0 || (size_t)k >= sizeof p ||
	    sfile_read(AT_FDCWD, p, buf, n, NULL, 0) < 0)
		buf[0] = '\0';
}

/* The first line of file under the resctrl root ("" when unreadable). */
static void info_line(const struct rdt_own *o, const char *file, char *buf,
		      size_t n)
{
	info_text(o, file, buf, n);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Is the tree in ABMC's mbm_event mode ("[mbm_event]" on a line)? */
static bool abmc_on(const struct rdt_own *o)
{
	char buf[4096];

	info_text(o, "info/L3_MON/mbm_assign_mode", buf, sizeof buf);
	for (const char *l = buf; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1
						       : NULL)
		if (strncmp(l, "[mbm_event]", 11) == 0)
			return true;
	return false;
}

/* The counters free in every domain: the least of available_mbm_cntrs'
 * "ID=N;ID=N" (0 when unreadable: nothing is asked for blindly). */
static unsigned free_counters(const struct rdt_own *o)
{
	char buf[4096];
	const char *p;
	unsigned long least = ULONG_MAX;

	info_line(o, "info/L3_MON/available_mbm_cntrs", buf, sizeof buf);
	for (p = buf; (p = strchr(p, '=')); p++) {
		char *end;
		unsigned long v = strtoul(p + 1, &end, 10);

		if (end == p + 1)
			return 0;
		if (v < least)
			least = v;
	}
	return least == ULONG_MAX ? 0 : (unsigned)(least > UINT_MAX ? UINT_MAX
								    : least);
}

static const char *const assign_ev[2] = { "mbm_total_bytes",
					   "mbm_local_bytes" };

/* Which of e's events have no counter in some domain, from its
 * mbm_L3_assignments ("EVENT:ID=e;ID=_"): bit 0 total, bit 1 local.
 * The kernel's file has one line per event; the simulated tree's holds
 * requests appended after its state until its next sync, and the last
 * line of an event is what holds (g_assign()). */
static unsigned lacking(const struct rdt_own *o, const struct ent *e)
{
	char p[PATH_MAX], buf[4096], *line, *save = NULL;
	unsigned m = 0;

	snprintf(p, sizeof p, "mon_groups/%s/mbm_L3_assignments", e->name);
	info_text(o, p, buf, sizeof buf);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		for (unsigned ev = 0; ev < 2; ev++) {
			size_t l = strlen(assign_ev[ev]);

			if (!strncmp(line, assign_ev[ev], l) && line[l] == ':')
				m = strstr(line + l, "=_") ? m | 1u << ev
							   : m & ~(1u << ev);
		}
	return m;
}

/*
 * With ABMC (AMD, v6.18) in mbm_event mode, an event of a group with no
 * counter reads "Unassigned".  The kernel gives a group counters at
 * mkdir while any is free; one of uncored's groups made when none was
 * gets one here once one is free again, in path order, never more than
 * available_mbm_cntrs says and never by taking another's (other tools'
 * groups are read only).  Returns how many of our events still lack one.
 */
static unsigned assign_counters(struct rdt_own *o, uint64_t *res)
{
	unsigned left = 0, avail;

	avail = free_counters(o);
	for (size_t i = 0; i < o->n; i++) {
		struct ent *e = &o->e[i];
		unsigned m;

		if (e->state != RDT_OWN_GROUPED || !(m = lacking(o, e)))
			continue;
		for (unsigned ev = 0; ev < 2; ev++) {
			int r;

			if (!(m >> ev & 1))
				continue;
			if (!avail) {
				left++;
				continue;
			}
			r = o->w->assign(o->w, e->name, ev);
			res[r == 0 ? RDT_ASSIGN_OK : r == -ENOSPC
			    ? RDT_ASSIGN_REFUSED : RDT_ASSIGN_ERROR]++;
			if (r == 0) {
				avail--;
			} else {
				left++;
				if (r == -ENOSPC)
					avail = 0;	/* the file was stale */
			}
		}
	}
	return left;
}

static void log_unassigned(struct rdt_own *o, unsigned left)
{
	if (left == o->unassigned_logged)
		return;
	if (!left)
		log_info("resctrl: every event of uncored's groups has an ABMC "
			 "counter now");
	else
		log_warnx("resctrl: %u event%s of uncored's groups without an "
			  "ABMC counter (every one in use: num_mbm_cntrs): they "
			  "read Unassigned until one is free", left,
			  left == 1 ? "" : "s");
	o->unassigned_logged = left;
}

/* ---- the pass --------------------------------------------------------- */

int rdt_own_pass(struct rdt_own *o)
{
	char rel[PATH_MAX] = "", **kp = NULL;
	const char *eg[RDT_OWN_NSTATES] = { 0 };
	struct found f = { 0 };
	unsigned made = 0, ns[RDT_OWN_NSTATES] = { 0 }, left;
	uint64_t moves[RDT_MOVE_N] = { 0 }, asg[RDT_ASSIGN_N] = { 0 };
	uint64_t nlost = 0;
	pid_t *held = NULL;
	size_t nk = 0, nheld = 0;
	bool abmc;
	int fd, r;

	o->pass++;
	fd = open(o->cg_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = walk(o, fd, rel, 0, 0, &f);
	if (r < 0)
		goto out;
	if (f.n)
		qsort(f.m, f.n, sizeof *f.m, cmp_path);
	if ((r = choose(o, &f, ns, eg)) < 0)
		goto out;
	if (f.n && !(kp = malloc(f.n * sizeof *kp))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f.n; i++)
		if (f.m[i].keep)
			kp[nk++] = f.m[i].path;	/* in path order */
	if ((r = renew(o, kp, nk)) < 0)
		goto out;
	for (size_t i = 0; i < f.n; i++)
		if (f.m[i].keep)
			f.m[i].path = NULL;	/* taken over */
	for (size_t i = 0; i < o->n; i++)
		if (o->e[i].made && lost(o, &o->e[i])) {
			forget(o, &o->e[i]);
			nlost++;
		}
	for (size_t i = 0; i < o->n; i++)
		made += o->e[i].made;
	read_held(o, &held, &nheld);
	/* in path order, so which cgroups go without is reproducible */
	for (size_t i = 0; i < o->n; i++) {
		struct ent *e = &o->e[i];

		if (!e->made)
			make(o, e, &made);
		if (e->made && (e->state == RDT_OWN_PENDING || e->retrying)) {
			int me = mkdir_error(o, e);

			if (me) {
				release(o, e, "the tree refused it");
				e->made = false;
				made--;
				refuse(o, e, me);
			} else if (group_file(o, e, "tasks")) {
				e->state = RDT_OWN_GROUPED;
				e->retrying = false;
			}
		}
		if (e->state == RDT_OWN_GROUPED &&
		    file_refused(follow(o, e, held, nheld, moves))) {
			release(o, e, "cgroup.threads refused");  /* its RMID */
			e->made = false;
			made--;
			free(e->tids);
			e->tids = NULL;
			e->ntids = 0;
		}
		ns[e->state]++;
	}
	if ((r = index_names(o)) < 0)
		goto out;
	sweep(o);
	log_states(o, ns, eg);
	abmc = abmc_on(o);
	left = abmc ? assign_counters(o, asg) : 0;
	log_unassigned(o, left);
	pthread_mutex_lock(&o->mu);
	o->abmc = abmc;
	memcpy(o->nstate, ns, sizeof ns);
	for (int i = 0; i < RDT_MOVE_N; i++)
		o->moves[i] += moves[i];
	for (int i = 0; i < RDT_ASSIGN_N; i++)
		o->assigns[i] += asg[i];
	o->unassigned = left;
	o->lost += nlost;
	pthread_mutex_unlock(&o->mu);
	r = f.n + f.over > INT_MAX ? INT_MAX : (int)(f.n + f.over);
out:
	free(held);
	for (size_t i = 0; i < f.n; i++)
		free(f.m[i].path);	/* NULL once taken over */
	free(f.m);
	free(kp);
	return r;
}

bool rdt_own_labels(const struct rdt_own *o, const char *group,
		    char *cgroup, size_t ncg, char pod[64], char ctr[128])
{
	static const char mg[] = "mon_groups/";

	const struct ent *e;

	if (strncmp(group, mg, sizeof mg - 1) != 0 ||
	    !rdt_own_name_ok(group + sizeof mg - 1) ||
	    !(e = by_name(o, group + sizeof mg - 1)))
		return false;
	snprintf(cgroup, ncg, "%s", e->cgroup);
	snprintf(pod, 64, "%s", e->pod);
	snprintf(ctr, 128, "%s", e->ctr);
	return true;
}

void rdt_own_render(struct prom *w, const struct rdt_own *o)
{
	struct rdt_own *m = (struct rdt_own *)o;	/* the mutex only */

	pthread_mutex_lock(&m->mu);
	prom_family(w, "uncore_resctrl_cgroups", PROM_GAUGE, "",
		    "cgroups matching [resctrl] cgroups, by state: grouped (a "
		    "monitoring group of uncored's holds their threads), "
		    "pending (made, not yet ready), or why they have none: "
		    "limit ([resctrl] max_groups), no_rmid, rmid_limbo, error, "
		    "refused (cgroup.threads not a regular file or too long), "
		    "owner_share (its owner, not root, has a quarter of "
		    "max_groups), untracked (over 2 x max_groups matching)");
	for (int s = 0; s < RDT_OWN_NSTATES; s++) {
		const char *l[] = { "state", state_names[s], NULL };

		prom_sample_u64(w, NULL, l, o->nstate[s]);
	}
	prom_family(w, "uncore_resctrl_task_moves_total", PROM_COUNTER, "",
		    "Threads written to the tasks file of uncored's monitoring "
		    "groups, by result: moved, gone (ended first), "
		    "other_ctrl_group (in another tool's CTRL_MON group, left "
		    "there), other_mon_group (in another tool's MON group, "
		    "left there, not written), denied, error");
	for (int i = 0; i < RDT_MOVE_N; i++) {
		const char *l[] = { "result", move_names[i], NULL };

		prom_sample_u64(w, NULL, l, o->moves[i]);
	}
	prom_family(w, "uncore_resctrl_groups_lost_total", PROM_COUNTER, "",
		    "uncored's monitoring groups found removed behind it (by "
		    "another tool, or a remount of resctrl), each made again "
		    "and its threads written again");
	prom_sample_u64(w, NULL, NULL, o->lost);
	if (o->abmc) {
		prom_family(w, "uncore_resctrl_unassigned_events", PROM_GAUGE,
			    "", "Events (mbm_total_bytes, mbm_local_bytes) of "
			    "uncored's monitoring groups with no ABMC counter "
			    "now: every counter is in use (num_mbm_cntrs), so "
			    "they read Unassigned");
		prom_sample_u64(w, NULL, NULL, o->unassigned);
		prom_family(w, "uncore_resctrl_counter_assignments_total",
			    PROM_COUNTER, "", "ABMC counters asked for an "
			    "event of uncored's monitoring groups that had "
			    "none, by result: assigned, refused (ENOSPC: taken "
			    "meanwhile), error");
		for (int i = 0; i < RDT_ASSIGN_N; i++) {
			const char *l[] = { "result", assign_names[i], NULL };

			prom_sample_u64(w, NULL, l, o->assigns[i]);
		}
	}
	pthread_mutex_unlock(&m->mu);
}

void rdt_own_free(struct rdt_own *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		int r = o->e[i].made && o->w ? release(o, &o->e[i], "stop") : 0;

		if (r < 0 && r != -ENOENT)
			log_warnx("resctrl: cannot remove mon_groups/%s (cgroup "
				  "%s) at stop: %s", o->e[i].name, o->e[i].cgroup,
				  strerror(-r));
		ent_free(&o->e[i]);
	}
	free(o->e);
	free(o->byname);
	for (size_t i = 0; i < o->npat; i++)
		free(o->pat[i]);
	free(o->pat);
	free(o->cg_root);
	free(o->rdt_root);
	if (o->w)
		o->w->free(o->w);
	pthread_mutex_destroy(&o->mu);
	free(o);
}
