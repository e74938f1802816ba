/*
 * resctrl_priv.c - the resctrl writer, confined, and its uid-0 helper
 * (see resctrl_priv.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include <cap-ng.h>

#include "base/log.h"
#include "resctrl_cg.h"
#include "resctrl_priv.h"

#ifndef RDTGROUP_SUPER_MAGIC
#define RDTGROUP_SUPER_MAGIC	0x7655821
#endif

/* How long the daemon waits for an answer: a mkdir under resctrl's
 * mutex takes microseconds, but a sanitizer build of the helper on a
 * loaded machine is slow, and once given up on, the helper is gone for
 * good; a hung helper must not stop the resctrl thread for longer. */
#define HELPER_TIMEOUT_MS	15000
/* The helper's group: the overflow gid, which owns nothing. */
#define HELPER_GID		65534
/* Deepest cgroup path a move may name (resctrl_own.c walks 32). */
#define CG_MAX_DEPTH		32

/* ---- paths that stay beneath a directory ------------------------------ */

static bool no_openat2;

void rdt_writer_no_openat2(void)
{
	no_openat2 = true;
}

/*
 * The fallback: each component with O_NOFOLLOW, on the same file system
 * as dfd.  path is relative, with no empty, "." or ".." component (the
 * callers build it from checked names).
 */
static int open_walk(int dfd, const char *path, int flags)
{
	char comp[NAME_MAX + 1];
	struct stat st;
	dev_t dev;
	int cur = dfd, fd;

	if (fstat(dfd, &st) < 0)
		return -errno;
	dev = st.st_dev;
	for (;;) {
		size_t l = strcspn(path, "/");
		bool last = path[l] == '\0';

		if (l == 0 || l > NAME_MAX)
			fd = -EINVAL;
		else {
			memcpy(comp, path, l);
			comp[l] = '\0';
			fd = openat(cur, comp, last ? flags | O_NOFOLLOW | O_CLOEXEC
				    : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 && errno == ENOTDIR &&
			    fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				fd = -ELOOP;	/* as openat2 says it */
			else if (fd < 0)
				fd = -errno;
			else if (fstat(fd, &st) < 0 || st.st_dev != dev) {
				close(fd);
				fd = -EXDEV;
			}
		}
		if (cur != dfd)
			close(cur);
		if (fd < 0 || last)
			return fd;
		cur = fd;
		path += l + 1;
	}
}

/* Relative, and no empty or ".." component ("." alone is the dir). */
static bool path_ok(const char *path)
{
	if (path[0] == '/' || path[0] == '\0')
		return false;
	for (const char *c = path;;) {
		size_t l = strcspn(c, "/");

		if (l == 0 || (l == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!c[l])
			return true;
		c += l + 1;
	}
}

/*
 * Opens path below the directory dfd: never through a symbolic link,
 * never above dfd, never onto another mount.  The descriptor, or -errno
 * (ELOOP/EXDEV/ENOTDIR where the tree holds a link or a mount).
 */
static int open_beneath(int dfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	long fd;

	if (!path_ok(path))
		return -EINVAL;		/* never built so; refused anyway */
	if (!no_openat2) {
		fd = syscall(SYS_openat2, dfd, path, &how, sizeof how);
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
		no_openat2 = true;
	}
	return open_walk(dfd, path, flags);
}

/* ---- the writer ------------------------------------------------------- */

struct guard {
	struct rdt_writer w;
	char *root, *cgroot;
	char **pat;
	size_t npat;
	unsigned max;
	bool simulated;
	enum rdt_threads threads;
	int procfd;			/* /proc (RDT_THREADS_PROC) */
	char (*made)[RDT_OWN_NAME_LEN + 1];	/* made and not removed */
	size_t nmade;
};

/* The root, opened without following a link, and checked to be the
 * kernel's resctrl unless simulated; -errno. */
static int open_root(const struct guard *g)
{
	struct statfs sf;
	int fd = open(g->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (!g->simulated && (fstatfs(fd, &sf) < 0 ||
			      (unsigned long)sf.f_type != RDTGROUP_SUPER_MAGIC)) {
		close(fd);
		return -RDT_ERR_NOT_RESCTRL;
	}
	return fd;
}

/* The root's mon_groups/, opened beneath it; -errno. */
static int open_mg(const struct guard *g)
{
	int r = open_root(g), fd;

	if (r < 0)
		return r;
	fd = open_beneath(r, "mon_groups", O_RDONLY | O_DIRECTORY);
	close(r);
	return fd;
}

static ssize_t made_at(const struct guard *g, const char *name)
{
	for (size_t i = 0; i < g->nmade; i++)
		if (!strcmp(g->made[i], name))
			return (ssize_t)i;
	return -1;
}

static int g_mkgroup(struct rdt_writer *w, const char *name)
{
	struct guard *g = (struct guard *)w;
	bool known = made_at(g, name) >= 0;
	struct stat st;
	int mg, r;

	if (!rdt_own_name_ok(name))
		return -EINVAL;
	if (!known && g->nmade >= g->max)
		return -RDT_ERR_LIMIT;
	if ((mg = open_mg(g)) < 0)
		return mg;
	r = mkdirat(mg, name, 0755) < 0 ? -errno : 0;
	/* EEXIST is "ours, from before" to the daemon: only a directory */
	if (r == -EEXIST && (fstatat(mg, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			     !S_ISDIR(st.st_mode)))
		r = -ENOTDIR;
	close(mg);
	if ((r == 0 || r == -EEXIST) && !known)
		snprintf(g->made[g->nmade++], RDT_OWN_NAME_LEN + 1, "%s", name);
	return r;
}

/* Removes what is in the directory dfd (closed), depth first. */
static int empty_tree(int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(dfd);
		return -errno;
	}
	while (r == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno == ENOENT)
			continue;	/* ENOENT: renamed away meanwhile */
		if (errno != EISDIR || depth > 8) {
			r = -errno;
			break;
		}
		int c = open_beneath(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY);
		if (c < 0 || (r = empty_tree(c, depth + 1)) < 0 ||
		    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0)
			r = r < 0 ? r : c < 0 ? c : -errno;
	}
	closedir(d);
	return r;
}

/*
 * rmdir.  The kernel's rmdir of a group takes its files with it and never
 * answers ENOTEMPTY; a plain directory (the simulated tree) does, and
 * then its files are removed first - only ever below one of uncored's
 * own names, through descriptors.  Something else planted under that
 * name (a link) is unlinked itself, never what it names.
 */
static int g_rmgroup(struct rdt_writer *w, const char *name)
{
	struct guard *g = (struct guard *)w;
	ssize_t k;
	int mg, r = -ENOTEMPTY, fd;

	if (!rdt_own_name_ok(name))
		return -EINVAL;
	if ((mg = open_mg(g)) < 0)
		return mg;
	/* a few times: the simulator may write a file between the emptying
	 * and the rmdir (it did, under TSan) */
	for (int i = 0; i < 10; i++) {
		if (unlinkat(mg, name, AT_REMOVEDIR) == 0) {
			r = 0;
			break;
		}
		r = -errno;
		if (r == -ENOTDIR) {
			r = unlinkat(mg, name, 0) < 0 ? -errno : 0;
			break;
		}
		if (r != -ENOTEMPTY && r != -EEXIST)
			break;
		fd = open_beneath(mg, name, O_RDONLY | O_DIRECTORY);
		if (fd < 0) {
			r = fd == -ENOENT ? 0 : fd;
			break;
		}
		r = empty_tree(fd, 0);
		if (r < 0 && r != -ENOENT && r != -ENOTEMPTY && r != -EEXIST)
			break;
		r = -ENOTEMPTY;
	}
	close(mg);
	if ((r == 0 || r == -ENOENT) && (k = made_at(g, name)) >= 0) {
		memmove(g->made[k], g->made[k + 1],
			(g->nmade - (size_t)k - 1) * sizeof g->made[0]);
		g->nmade--;
	}
	return r;
}

/* Is tid a line of the file fd (closed)?  -errno on a read error. */
static int fd_has_id(int fd, pid_t tid)
{
	char buf[4096], part[16];
	size_t np = 0;
	ssize_t n;
	int found = 0;

	while (!found && (n = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n && !found; i++) {
			if (buf[i] != '\n') {
				if (np < sizeof part - 1)
					part[np++] = buf[i];
				else
					np = sizeof part;	/* too long */
				continue;
			}
			part[np < sizeof part ? np : 0] = '\0';
			found = np < sizeof part && np &&
				strtol(part, NULL, 10) == (long)tid;
			np = 0;
		}
	if (!found && np && np < sizeof part) {
		part[np] = '\0';
		found = strtol(part, NULL, 10) == (long)tid;
	}
	if (n < 0 && !found)
		found = -errno;
	close(fd);
	return found;
}

/* Opens path beneath dfd for reading or writing a regular file with a
 * single link (kernfs's are; a planted FIFO, device or hard link is
 * refused with -EPERM).  O_NONBLOCK: a FIFO cannot stall the open. */
static int open_file(int dfd, const char *path, int flags)
{
	struct stat st;
	int fd = open_beneath(dfd, path, flags | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Is the path a cgroup the writer may name: relative, no empty, "." or
 * ".." component, not too deep, no newline, and matched by a pattern. */
static bool cgroup_ok(const struct guard *g, const char *cg)
{
	unsigned depth = 1;

	if (!*cg || cg[0] == '/' || strlen(cg) >= PATH_MAX - 32 ||
	    strchr(cg, '\n'))
		return false;
	for (const char *c = cg;; depth++) {
		size_t l = strcspn(c, "/");

		if (l == 0 || (l == 1 && c[0] == '.') ||
		    (l == 2 && c[0] == '.' && c[1] == '.') ||
		    depth > CG_MAX_DEPTH)
			return false;
		if (!c[l])
			break;
		c += l + 1;
	}
	for (size_t i = 0; i < g->npat; i++)
		if (rdtcg_match(g->pat[i], cg))
			return true;
	return false;
}

/*
 * Is tid in cgroup cg now: 0 yes, -EPERM no, -ESRCH no such thread.
 * The kernel's word (/proc/<tid>/cgroup, the v2 line "0::/<path>"), or
 * for the simulated tree the cgroup tree's cgroup.threads.
 */
static int in_cgroup(const struct guard *g, const char *cg, pid_t tid)
{
	char p[PATH_MAX + 32], buf[PATH_MAX + 64];
	size_t l, n = 0;
	ssize_t k;
	int fd, r;

	if (g->threads == RDT_THREADS_TREE) {
		int root = open(g->cgroot, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				O_CLOEXEC);

		if (root < 0)
			return -errno;
		snprintf(p, sizeof p, "%s/cgroup.threads", cg);
		fd = open_file(root, p, O_RDONLY);
		close(root);
		if (fd < 0)
			return fd == -ENOENT ? -EPERM : fd;
		r = fd_has_id(fd, tid);
		return r < 0 ? r : r ? 0 : -EPERM;
	}
	snprintf(p, sizeof p, "%d/cgroup", (int)tid);
	fd = open_beneath(g->procfd, p, O_RDONLY);
	if (fd < 0)
		return fd == -ENOENT ? -ESRCH : fd;
	while (n < sizeof buf - 1 &&
	       (k = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)k;
	close(fd);
	buf[n] = '\0';
	l = strlen(cg);
	for (char *s = buf; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : s)
		if (!strncmp(s, "0::/", 4))
			return !strncmp(s + 4, cg, l) &&
			       (s[4 + l] == '\n' || s[4 + l] == '\0')
			       ? 0 : -EPERM;
	return -EPERM;
}

/* Is tid in the tasks of a MON group of the root that is not uncored's:
 * 1 yes, 0 no, -errno. */
static int held_by_other(int mg, pid_t tid)
{
	int dfd = open_beneath(mg, ".", O_RDONLY | O_DIRECTORY);
	struct dirent *de;
	int r = 0;
	DIR *d;

	if (dfd < 0)
		return dfd;
	if (!(d = fdopendir(dfd))) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (r == 0 && (de = readdir(d))) {
		char p[NAME_MAX + 8];
		int fd;

		if (de->d_name[0] == '.' || rdt_own_name_ok(de->d_name))
			continue;
		snprintf(p, sizeof p, "%s/tasks", de->d_name);
		fd = open_file(mg, p, O_RDONLY);
		if (fd >= 0)
			r = fd_has_id(fd, tid) > 0;
	}
	closedir(d);
	return r;
}

/* One thread id per write(2), as the kernel takes them.  O_APPEND: the
 * kernel ignores the offset; the simulated tree, a plain file, then
 * keeps every id written.  No O_CREAT: tasks is the kernel's to make. */
static int g_move(struct rdt_writer *w, const char *name, const char *cg,
		  pid_t tid)
{
	struct guard *g = (struct guard *)w;
	char own[RDT_OWN_NAME_LEN + 1], p[RDT_OWN_NAME_LEN + 16], buf[24];
	int mg, fd, n, r;

	if (!rdt_own_name_ok(name) || tid <= 0 || !cg)
		return -EINVAL;
	if (tid == 1 || !cgroup_ok(g, cg))	/* init is no workload's */
		return -EPERM;
	rdt_own_name(cg, own);
	if (strcmp(own, name) != 0)
		return -EPERM;	/* only into its own cgroup's group */
	if ((r = in_cgroup(g, cg, tid)) < 0)
		return r;
	if ((mg = open_mg(g)) < 0)
		return mg;
	if ((r = held_by_other(mg, tid)) != 0) {
		close(mg);
		return r > 0 ? -EBUSY : r;
	}
	snprintf(p, sizeof p, "%s/tasks", name);
	fd = open_file(mg, p, O_WRONLY | O_APPEND);
	close(mg);
	if (fd < 0)
		return fd;
	n = snprintf(buf, sizeof buf, "%d\n", (int)tid);
	r = write(fd, buf, (size_t)n) == n ? 0 : -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static const char *const assign_ev[2] = { "mbm_total_bytes",
					   "mbm_local_bytes" };

/*
 * "EVENT:*=e": a counter for the event in every domain (resctrl.rst,
 * "mbm_L3_assignments"; the kernel refuses with ENOSPC when a domain has
 * none free).  The kernel takes each write as it comes.  The simulated
 * tree's plain file cannot: a request there is appended under an flock,
 * which uncore-sim holds while it takes the file's lines in order and
 * writes the state back, so that two requests between its syncs are both
 * seen (a second that replaced the first left the first undone, and the
 * daemon asked again: 3 assignments for 2 events, resctrl_abmc.sh 11).
 */
/* The simulated tree's path beneath mg opened to append and locked; its
 * sync writes a new file over the old one (rename), so the lock taken is
 * checked to be the file's the path names now, else taken again. */
static int open_locked(int mg, const char *p)
{
	for (int tries = 0; tries < 5; tries++) {
		struct stat a, b;
		int fd = open_file(mg, p, O_WRONLY | O_APPEND), fd2, r = 0;

		if (fd < 0)
			return fd;
		if (flock(fd, LOCK_EX) < 0 || fstat(fd, &a) < 0)
			r = -errno;
		else if ((fd2 = open_file(mg, p, O_RDONLY)) < 0)
			r = fd2;
		else {
			r = fstat(fd2, &b) < 0 ? -errno : 0;
			close(fd2);
			if (r == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
				return fd;
			r = r ? r : -EAGAIN;
		}
		close(fd);
		if (r != -EAGAIN)
			return r;
	}
	return -EAGAIN;
}

static int g_assign(struct rdt_writer *w, const char *name, unsigned ev)
{
	struct guard *g = (struct guard *)w;
	char p[RDT_OWN_NAME_LEN + 32], buf[40];
	int mg, fd, n, r;

	if (!rdt_own_name_ok(name) || ev > 1)
		return -EINVAL;
	if ((mg = open_mg(g)) < 0)
		return mg;
	snprintf(p, sizeof p, "%s/mbm_L3_assignments", name);
	fd = g->simulated ? open_locked(mg, p) : open_file(mg, p, O_WRONLY);
	close(mg);
	if (fd < 0)
		return fd;
	n = snprintf(buf, sizeof buf, "%s:*=e\n", assign_ev[ev]);
	r = write(fd, buf, (size_t)n) == n ? 0 : -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static void g_free(struct rdt_writer *w)
{
	struct guard *g = (struct guard *)w;

	if (!g)
		return;
	for (size_t i = 0; i < g->npat; i++)
		free(g->pat[i]);
	free(g->pat);
	free(g->root);
	free(g->cgroot);
	free(g->made);
	if (g->procfd >= 0)
		close(g->procfd);
	free(g);
}

struct rdt_writer *rdt_writer_open(const struct rdt_writer_cfg *cfg,
				   char *why, size_t len)
{
	struct guard *g = calloc(1, sizeof *g);
	int r;

	if (!g) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	g->procfd = -1;
	g->max = cfg->max_groups;
	g->simulated = cfg->simulated;
	g->threads = cfg->threads != RDT_THREADS_AUTO ? cfg->threads
		     : cfg->simulated ? RDT_THREADS_TREE : RDT_THREADS_PROC;
	g->root = strdup(cfg->resctrl_root);
	g->cgroot = strdup(cfg->cgroup_root ? cfg->cgroup_root : "/");
	g->made = calloc(g->max ? g->max : 1, sizeof *g->made);
	if (!g->root || !g->cgroot || !g->made) {
		snprintf(why, len, "out of memory");
		goto fail;
	}
	if ((r = rdtcg_split(cfg->patterns, &g->pat, &g->npat)) < 0) {
		snprintf(why, len, r == -EINVAL ? "a bad [resctrl] cgroups "
			 "pattern" : "out of memory");
		goto fail;
	}
	if (g->threads == RDT_THREADS_PROC &&
	    (g->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(why, len, "/proc: %s", strerror(errno));
		goto fail;
	}
	r = open_root(g);
	if (r >= 0) {
		close(r);
	} else if (r == -ELOOP || r == -ENOTDIR) {
		snprintf(why, len, "the resctrl root %s is not a directory "
			 "(a symbolic link?): refused", g->root);
		goto fail;
	} else if (r == -RDT_ERR_NOT_RESCTRL) {
		snprintf(why, len, "%s is not the kernel's resctrl (statfs "
			 "f_type is not RDTGROUP_SUPER_MAGIC 0x7655821): "
			 "refused; a simulated tree is named with [resctrl] "
			 "simulated = yes", g->root);
		goto fail;
	}	/* ENOENT and the like: not mounted yet, checked at each write */
	g->w.mkgroup = g_mkgroup;
	g->w.rmgroup = g_rmgroup;
	g->w.move = g_move;
	g->w.assign = g_assign;
	g->w.free = g_free;
	return &g->w;
fail:
	g_free(&g->w);
	return NULL;
}

/* ---- the helper process ----------------------------------------------- */

/* One request; the answer is an int32_t, 0 or -errno. */
struct req {
	char op;			/* 'm', 'r', 't', 'a' */
	char name[RDT_OWN_NAME_LEN + 8];	/* NUL-terminated */
	int32_t tid;			/* 't': the thread; 'a': the event */
	char cgroup[PATH_MAX];		/* 't': its cgroup, NUL-terminated */
};

/* The first message, the helper's start: "" ready, else why not. */
struct hello {
	char why[512];
};

struct helper {
	struct rdt_writer w;
	int sk;
	pid_t pid;
	pthread_mutex_t mu;
};

/* The system calls its requests need after the filter, the C library's
 * and the sanitizers' runtimes included (malloc, an error report). */
#if defined(__x86_64__) || defined(__aarch64__)
static const int allowed_calls[] = {
	__NR_read, __NR_write, __NR_close, __NR_openat,
#ifdef __NR_openat2
	__NR_openat2,
#endif
	__NR_mkdirat, __NR_unlinkat, __NR_fstatfs, __NR_newfstatat,
	__NR_fstat, __NR_getdents64, __NR_fcntl, __NR_lseek, __NR_flock,
#ifdef __NR_statx
	__NR_statx,
#endif
	__NR_recvfrom, __NR_recvmsg, __NR_sendto, __NR_sendmsg, __NR_ppoll,
#ifdef __NR_poll
	__NR_poll,
#endif
	__NR_brk, __NR_mmap, __NR_munmap, __NR_mremap, __NR_madvise,
	__NR_mprotect, __NR_futex, __NR_getpid, __NR_gettid, __NR_tgkill,
	__NR_rt_sigreturn, __NR_rt_sigprocmask, __NR_sigaltstack,
	__NR_clock_gettime, __NR_clock_nanosleep, __NR_nanosleep,
	__NR_sched_yield, __NR_restart_syscall, __NR_getrandom,
	__NR_exit, __NR_exit_group,
};
#endif

/* The architectures whose numbers the list above is right for (i386's
 * socketcall, mmap2, fcntl64 ... are not on it: no filter there). */
#if defined(__x86_64__) && !defined(__ILP32__)
#define SECCOMP_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_ARCH	AUDIT_ARCH_AARCH64
#endif

/*
 * The filter, by hand (no libseccomp), as systemd and OpenSSH write it:
 * another architecture's (or x86-64's x32) numbers kill the process, a
 * call on the list is allowed, any other fails with EPERM - an
 * unexpected call of the C library or a sanitizer's runtime then shows
 * as a failed request rather than a helper gone.  0, or -1 (errno) when
 * it cannot be installed, and 1 where the architecture is not known.
 */
static int helper_seccomp(void)
{
#ifdef SECCOMP_ARCH
	enum { N = sizeof allowed_calls / sizeof allowed_calls[0] };
	struct sock_filter f[6 + 2 * N + 1];
	struct sock_fprog prog = { .filter = f };
	unsigned k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		SECCOMP_ARCH, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_KILL_PROCESS);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
		0x40000000u /* __X32_SYSCALL_BIT */, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_KILL_PROCESS);
#endif
	for (unsigned i = 0; i < N; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			(unsigned)allowed_calls[i], 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ALLOW);
	}
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	prog.len = (unsigned short)k;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0
	       ? -1 : 0;
#else
	return 1;
#endif
}

/* Everything but uid 0 goes; 0, or -1 when something could not be
 * dropped (the helper then exits: better no groups than a root one). */
static int helper_drop(void)
{
	capng_clear(CAPNG_SELECT_ALL);
	/* the bounding set needs CAP_SETPCAP, which a unit may not grant */
	if (capng_apply(CAPNG_SELECT_BOTH) < 0 &&
	    capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_get_caps_process() < 0 ||
	    capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE)
		return -1;
	return 0;
}

static int answer(struct rdt_writer *d, const struct req *q)
{
	if (memchr(q->name, '\0', sizeof q->name) == NULL ||
	    memchr(q->cgroup, '\0', sizeof q->cgroup) == NULL ||
	    !rdt_own_name_ok(q->name))
		return -EINVAL;
	switch (q->op) {
	case 'm':
		return d->mkgroup(d, q->name);
	case 'r':
		return d->rmgroup(d, q->name);
	case 't':
		return d->move(d, q->name, q->cgroup, q->tid);
	case 'a':
		return q->tid == 0 || q->tid == 1
		       ? d->assign(d, q->name, (unsigned)q->tid) : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Says why the helper does not start, to the daemon, and ends it. */
static void helper_fail(int sk, const char *what)
{
	struct hello h;

	memset(&h, 0, sizeof h);
	snprintf(h.why, sizeof h.why, "%s: %s", what, strerror(errno));
	send(sk, &h, sizeof h, MSG_NOSIGNAL);
	_exit(1);
}

static void helper_main(int sk, const struct rdt_writer_cfg *cfg,
			pid_t parent)
{
	struct rdt_writer *d;
	struct hello h;
	struct req q;
	sigset_t all;
	int s;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, "uncored-rdtpriv");
	/* signals: the daemon's handlers and mask are not ours; TERM from a
	 * service manager ends us as it ends the daemon */
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	/* nothing of the daemon's but the socket and stderr (the log) */
	if (sk > 3)
		close_range(3, (unsigned)sk - 1, 0);
	close_range((unsigned)sk + 1, ~0U, 0);
	/* no group of the daemon's, not gid 0: uid 0 writes root's files
	 * as their owner and needs no group */
	if (setgroups(0, NULL) < 0 ||
	    setresgid(HELPER_GID, HELPER_GID, HELPER_GID) < 0 ||
	    setresuid(0, 0, 0) < 0)
		helper_fail(sk, "cannot give up its groups");
	if (chdir("/") < 0)
		helper_fail(sk, "chdir /");
	umask(022);
	memset(&h, 0, sizeof h);
	if (!(d = rdt_writer_open(cfg, h.why, sizeof h.why))) {
		send(sk, &h, sizeof h, MSG_NOSIGNAL);
		_exit(1);
	}
	if (helper_drop() < 0)
		helper_fail(sk, "cannot drop its capabilities");
	if ((s = helper_seccomp()) < 0)
		helper_fail(sk, "cannot install its seccomp filter");
	if (s > 0)
		fprintf(stderr, "uncored: resctrl helper: no seccomp filter on "
			"this architecture\n");
	h.why[0] = '\0';
	if (send(sk, &h, sizeof h, MSG_NOSIGNAL) != (ssize_t)sizeof h)
		_exit(1);
	for (;;) {
		/* MSG_TRUNC: the length sent, so a long message is seen */
		ssize_t n = recv(sk, &q, sizeof q, MSG_TRUNC);
		int32_t a;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			/* the daemon's end closed, or a zero-length message */
			struct pollfd p = { .fd = sk, .events = POLLIN };

			if (poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR)))
				break;
		}
		a = n == (ssize_t)sizeof q ? answer(d, &q) : -EINVAL;
		if (send(sk, &a, sizeof a, MSG_NOSIGNAL) != (ssize_t)sizeof a)
			break;
	}
	_exit(0);	/* no atexit, no leak check under the filter */
}

/* ---- the daemon's side ------------------------------------------------ */

int rdt_helper_request(struct rdt_writer *w, char op, const char *name,
		       const char *cgroup, pid_t tid)
{
	struct helper *h = (struct helper *)w;
	struct req *q = calloc(1, sizeof *q);
	struct pollfd p = { .fd = h->sk, .events = POLLIN };
	int32_t a;
	int r;

	if (!q)
		return -ENOMEM;
	q->op = op;
	snprintf(q->name, sizeof q->name, "%s", name ? name : "");
	snprintf(q->cgroup, sizeof q->cgroup, "%s", cgroup ? cgroup : "");
	q->tid = (int32_t)tid;
	pthread_mutex_lock(&h->mu);
	if (h->sk < 0) {
		r = -EPIPE;
	} else if (send(h->sk, q, sizeof *q, MSG_NOSIGNAL) != (ssize_t)sizeof *q) {
		r = -errno;
	} else if ((r = poll(&p, 1, HELPER_TIMEOUT_MS)) <= 0) {
		r = r == 0 ? -ETIMEDOUT : -errno;
	} else if (recv(h->sk, &a, sizeof a, 0) != (ssize_t)sizeof a) {
		r = -EPIPE;
	} else {
		r = a;
	}
	free(q);
	if (r == -EPIPE || r == -ETIMEDOUT || r == -ECONNRESET) {
		/* the helper is gone or stuck: every later write fails at
		 * once, counted as errors, and the daemon goes on */
		if (h->sk >= 0) {
			log_warnx("resctrl: the helper (pid %d) %s: uncored's "
				  "groups can no longer be made, changed or "
				  "removed until uncored restarts", (int)h->pid,
				  r == -ETIMEDOUT ? "gave no answer in 15 s"
						  : "has ended");
			close(h->sk);
			h->sk = -1;
		}
		r = -EPIPE;
	}
	pthread_mutex_unlock(&h->mu);
	return r;
}

static int h_mkgroup(struct rdt_writer *w, const char *name)
{
	return rdt_helper_request(w, 'm', name, NULL, 0);
}

static int h_rmgroup(struct rdt_writer *w, const char *name)
{
	return rdt_helper_request(w, 'r', name, NULL, 0);
}

static int h_move(struct rdt_writer *w, const char *name, const char *cg,
		  pid_t tid)
{
	return rdt_helper_request(w, 't', name, cg, tid);
}

static int h_assign(struct rdt_writer *w, const char *name, unsigned ev)
{
	return rdt_helper_request(w, 'a', name, NULL, (pid_t)ev);
}

static void h_free(struct rdt_writer *w)
{
	struct helper *h = (struct helper *)w;

	if (!h)
		return;
	if (h->sk >= 0)
		close(h->sk);	/* the helper sees EOF and exits */
	if (h->pid > 0)
		waitpid(h->pid, NULL, 0);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

struct rdt_writer *rdt_helper_start(const struct rdt_writer_cfg *cfg,
				    pid_t *pid, char *why, size_t len)
{
	struct helper *h = calloc(1, sizeof *h);
	pid_t parent = getpid();
	struct pollfd p;
	struct hello hi;
	int sv[2];
	ssize_t n;

	if (!h) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(why, len, "socketpair: %s", strerror(errno));
		free(h);
		return NULL;
	}
	fflush(NULL);
	h->pid = fork();
	if (h->pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		free(h);
		return NULL;
	}
	if (h->pid == 0) {
		close(sv[0]);
		helper_main(sv[1], cfg, parent);
	}
	close(sv[1]);
	h->sk = sv[0];
	p = (struct pollfd){ .fd = h->sk, .events = POLLIN };
	memset(&hi, 0, sizeof hi);
	n = poll(&p, 1, HELPER_TIMEOUT_MS) == 1
	    ? recv(h->sk, &hi, sizeof hi, 0) : -1;
	hi.why[sizeof hi.why - 1] = '\0';
	if (n != (ssize_t)sizeof hi || hi.why[0]) {
		snprintf(why, len, "%s", n == (ssize_t)sizeof hi ? hi.why
			 : "the helper ended at its start");
		close(h->sk);
		waitpid(h->pid, NULL, 0);
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->mu, NULL);
	h->w.mkgroup = h_mkgroup;
	h->w.rmgroup = h_rmgroup;
	h->w.move = h_move;
	h->w.assign = h_assign;
	h->w.free = h_free;
	*pid = h->pid;
	return &h->w;
}
