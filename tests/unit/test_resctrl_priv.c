/*
 * test_resctrl_priv.c - the uid-0 resctrl helper against a hostile tree
 * and a hostile daemon (issue 39).  This test is the daemon: it forks
 * the helper with rdt_helper_start() and then, as a compromised daemon
 * would, sends it raw requests (rdt_helper_request()) and raw bytes on
 * its socket; the tree, a plain directory that a local user could write
 * (the simulated tree), holds symbolic links, FIFOs and hard links where
 * uncored's groups would be.  Each check states what the helper must not
 * do: write or make anything outside the resctrl root, write a thread of
 * a cgroup the patterns do not match (or pid 1, or another tool's
 * group's), make more groups than max_groups, stop on a malformed
 * message, keep gid 0, groups, the daemon's directory, or run without a
 * seccomp filter.  A tree that is not the kernel's resctrl and is not
 * named simulated is refused.
 *
 * Root only (the helper keeps uid 0 and cannot be started otherwise);
 * the /proc check of a real thread also needs a writable cgroup v2
 * hierarchy (skipped without one).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "resctrl/resctrl_own.h"
#include "resctrl/resctrl_priv.h"
#include "tests/tap.h"

static char top[128];

/* path under top */
static const char *at(const char *rel)
{
	static char p[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof p[i], "%s/%s", top, rel);
	return p[i];
}

static void mkdirs(const char *rel)
{
	char p[512], *s;

	snprintf(p, sizeof p, "%s/%s", top, rel);
	for (s = p + strlen(top) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char d[512], *s;
	FILE *f;

	snprintf(d, sizeof d, "%s", rel);
	if ((s = strrchr(d, '/'))) {
		*s = '\0';
		mkdirs(d);
	}
	if (!(f = fopen(at(rel), "w")))
		exit(99);
	fputs(text, f);
	fclose(f);
}

static const char *slurp(const char *rel)
{
	static char buf[4096];
	FILE *f = fopen(at(rel), "r");
	size_t n;

	if (!f)
		return strcpy(buf, "(none)");
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool exists(const char *rel)
{
	struct stat st;

	return lstat(at(rel), &st) == 0;
}

/* uncored's group name of a cgroup path, as resctrl_own.c makes it */
static const char *name_of(const char *cg)
{
	static char n[RDT_OWN_NAME_LEN + 1];

	rdt_own_name(cg, n);
	return n;
}

static struct rdt_writer *start(const char *rel, bool simulated,
				unsigned max, const char *cgroups,
				const char *cgroot, pid_t *pid, char *why,
				size_t len)
{
	struct rdt_writer_cfg c = {
		.resctrl_root = at(rel),
		.cgroup_root = cgroot ? cgroot : at("cgroup"),
		.patterns = cgroups ? cgroups : "system.slice/*.service",
		.max_groups = max,
		.simulated = simulated,
	};
	char root[512];

	snprintf(root, sizeof root, "%s", at(rel));
	c.resctrl_root = root;
	return rdt_helper_start(&c, pid, why, len);
}

static int mv(struct rdt_writer *w, const char *name, const char *cg,
	      pid_t tid)
{
	return rdt_helper_request(w, 't', name, cg, tid);
}

/* The daemon's end of the helper's socket: the socket this process
 * opened last. */
static int helper_socket(void)
{
	char p[300], l[64];
	struct dirent *e;
	int best = -1;
	DIR *d = opendir("/proc/self/fd");

	while (d && (e = readdir(d))) {
		ssize_t n;

		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		n = readlink(p, l, sizeof l - 1);
		if (n > 0 && (l[n] = '\0', !strncmp(l, "socket:", 7)) &&
		    atoi(e->d_name) > best)
			best = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return best;
}

/* One raw message; the helper's answer, or 1 when none came in 5 s. */
static int raw(int sk, const void *m, size_t n)
{
	struct pollfd p = { .fd = sk, .events = POLLIN };
	int32_t a;

	if (send(sk, m, n, MSG_NOSIGNAL) != (ssize_t)n)
		return -errno;
	if (poll(&p, 1, 5000) != 1)
		return 1;
	if (recv(sk, &a, sizeof a, MSG_DONTWAIT) != (ssize_t)sizeof a)
		return 2;
	return a;
}

static const char *status(pid_t pid, const char *key)
{
	static char v[256];
	char p[64], line[512];
	size_t l = strlen(key);
	FILE *f;

	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	v[0] = '\0';
	if (!(f = fopen(p, "r")))
		return v;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, l) && line[l] == ':') {
			char *s = line + l + 1;

			s += strspn(s, " \t");
			s[strcspn(s, "\n")] = '\0';
			snprintf(v, sizeof v, "%s", s);
			break;
		}
	fclose(f);
	return v;
}

/*
 * A move into group name, of a thread of a cgroup whose group it is:
 * the cgroup "system.slice/x<name>.service" is laid out (holding 500)
 * and the name planted under the hash of that; so what is tested is the
 * writer's path, not its checks of the request.
 */
static struct rdt_writer *cur_w;
static int raw_move(const char *planted)
{
	char cgp[128], rel[256], n[RDT_OWN_NAME_LEN + 1], from[256];
	int r;

	snprintf(cgp, sizeof cgp, "system.slice/x%s.service", planted);
	snprintf(rel, sizeof rel, "cgroup/%s/cgroup.threads", cgp);
	put(rel, "500\n");
	rdt_own_name(cgp, n);
	snprintf(from, sizeof from, "%s", at("t/mon_groups/"));
	snprintf(rel, sizeof rel, "t/mon_groups/%s", n);
	if (!exists(rel)) {
		char a[512], b[512];

		snprintf(a, sizeof a, "%s%s", from, planted);
		snprintf(b, sizeof b, "%s", at(rel));
		if (rename(a, b) < 0)
			exit(99);
	}
	r = mv(cur_w, n, cgp, 500);
	return r;
}

/* A tree a local user could have written: links, FIFOs, hard links. */
static void hostile_tree(void)
{
	mkdirs("t/mon_groups");
	/* another tool's group holding thread 700 */
	put("t/mon_groups/cadvisor-x/tasks", "700\n");
	/* and one with a name a careless check would skip */
	put("t/mon_groups/pqos..x/tasks", "701\n");
	/* cgroups: a.service (matching) holds 500, 700 and 1; the
	 * user's own cgroup does not match */
	put("cgroup/system.slice/a.service/cgroup.threads", "1\n500\n700\n701\n");
	put("cgroup/user.slice/u.scope/cgroup.threads", "600\n");
	/* a root-owned 0644 tasks file elsewhere (a cgroup v1 one) */
	put("victim/tasks", "");
	chmod(at("victim/tasks"), 0644);
	/* uncored's name as a link to it, and as a link in its parent */
	if (symlink(at("victim"), at("t/mon_groups/uncored-1111111111111111")) < 0)
		exit(99);
	mkdirs("t/mon_groups/uncored-2222222222222222");
	if (symlink(at("victim/tasks"),
		    at("t/mon_groups/uncored-2222222222222222/tasks")) < 0)
		exit(99);
	/* a FIFO for tasks: an open for writing would wait for a reader */
	mkdirs("t/mon_groups/uncored-3333333333333333");
	if (mkfifo(at("t/mon_groups/uncored-3333333333333333/tasks"), 0644) < 0)
		exit(99);
	/* a hard link to the victim for tasks */
	mkdirs("t/mon_groups/uncored-4444444444444444");
	if (link(at("victim/tasks"),
		 at("t/mon_groups/uncored-4444444444444444/tasks")) < 0)
		exit(99);
	/* mon_groups as a link to a directory outside (standing for /etc) */
	mkdirs("etc");
	mkdirs("t2");
	if (symlink(at("etc"), at("t2/mon_groups")) < 0)
		exit(99);
	/* the root itself a link */
	mkdirs("t3/mon_groups");
	if (symlink(at("t3"), at("t4")) < 0)
		exit(99);
}

static void links(void)
{
	char a[RDT_OWN_NAME_LEN + 1];
	char why[512], rel[128];
	struct rdt_writer *w;
	pid_t pid;

	rdt_own_name("system.slice/a.service", a);
	w = start("t", true, 64, NULL, NULL, &pid, why, sizeof why);
	ok(w != NULL, "helper started on the simulated tree (%s)", w ? "" : why);
	if (!w)
		exit(1);
	cur_w = w;
	/* the checks of the name against the cgroup aside (the test's
	 * names are not a.service's): the raw writes */
	is_int(raw_move("uncored-1111111111111111"), -ELOOP,
	       "a group that is a link to another directory: ELOOP");
	is_int(raw_move("uncored-2222222222222222"), -ELOOP,
	       "a tasks file that is a link: ELOOP");
	is_int(raw_move("uncored-4444444444444444"), -EPERM,
	       "a tasks file with a second (hard) link: EPERM");
	is_str(slurp("victim/tasks"), "", "the root-owned file outside the "
	       "tree was never written");
	{
		struct timespec t0, t1;
		int r;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = raw_move("uncored-3333333333333333");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ok((r == -ENXIO || r == -EPERM) && t1.tv_sec - t0.tv_sec < 3,
		   "a FIFO for tasks: "
		   "refused at once (%d, %lds)", r, (long)(t1.tv_sec - t0.tv_sec));
	}
	{
		char n[RDT_OWN_NAME_LEN + 1], gone[128];

		rdt_own_name("system.slice/xuncored-1111111111111111.service", n);
		snprintf(gone, sizeof gone, "t/mon_groups/%s", n);
		ok(w->rmgroup(w, n) == 0 && exists("victim/tasks") &&
		   !exists(gone), "removing the link removes the link, not what "
		   "it names");
	}
	/* the group of a.service, made properly: the helper works */
	is_int(w->mkgroup(w, a), 0, "uncored's group of a matching cgroup: made");
	snprintf(rel, sizeof rel, "t/mon_groups/%s/tasks", a);
	put(rel, "");
	is_int(mv(w, a, "system.slice/a.service", 500), 0, "its thread: written");
	is_str(slurp(rel), "500\n", "into its tasks");
	w->free(w);

	w = start("t2", true, 64, NULL, NULL, &pid, why, sizeof why);
	ok(w != NULL, "helper on a tree whose mon_groups is a link (%s)", why);
	if (w) {
		is_int(w->mkgroup(w, a), -ELOOP, "mkdir through the link: ELOOP");
		snprintf(rel, sizeof rel, "etc/%s", a);
		ok(!exists(rel), "nothing made in the directory it names");
		mkdirs(rel);
		ok(w->rmgroup(w, a) != 0 && exists(rel),
		   "nor removed there");
		w->free(w);
	}
	w = start("t4", true, 64, NULL, NULL, &pid, why, sizeof why);
	ok(w == NULL, "a root that is a link: refused");
	like(why, at("t4"), "naming the path");
	if (w)
		w->free(w);
	w = start("t", false, 64, NULL, NULL, &pid, why, sizeof why);
	ok(w == NULL, "a plain tree not named simulated: refused at start");
	like(why, "not the kernel's resctrl", "saying why");
	like(why, at("t"), "naming the path");
	if (w) {
		ok(w->mkgroup(w, name_of("system.slice/b.service")) != 0,
		   "and no group made in it");
		w->free(w);
	}
}

static void distrust(void)
{
	char a[RDT_OWN_NAME_LEN + 1];
	char why[512], rel[128], big[8192];
	struct rdt_writer *w;
	int sk, n = 0;
	pid_t pid;

	rdt_own_name("system.slice/a.service", a);
	w = start("t", true, 3, NULL, NULL, &pid, why, sizeof why);
	ok(w != NULL, "helper started with max_groups 3 (%s)", w ? "" : why);
	if (!w)
		exit(1);
	snprintf(rel, sizeof rel, "t/mon_groups/%s/tasks", a);
	put(rel, "");
	is_int(mv(w, a, "system.slice/a.service", 1), -EPERM, "pid 1: EPERM");
	is_int(mv(w, a, "system.slice/a.service", 0), -EINVAL, "tid 0: refused");
	is_int(mv(w, a, "system.slice/a.service", -5), -EINVAL, "tid -5: refused");
	is_int(mv(w, a, "system.slice/a.service", 700), -EBUSY,
	       "a thread another tool's group holds: EBUSY");
	is_int(mv(w, a, "system.slice/a.service", 701), -EBUSY,
	       "one that mon_groups/pqos..x holds: EBUSY");
	is_int(mv(w, a, "user.slice/u.scope", 600), -EPERM,
	       "a thread of a cgroup no pattern matches: EPERM");
	is_int(mv(w, a, "system.slice/a.service", 600), -EPERM,
	       "a thread not in the cgroup claimed: EPERM");
	is_int(mv(w, name_of("system.slice/b.service"), "system.slice/a.service",
		  500), -EPERM, "a thread into another cgroup's group: EPERM");
	is_int(mv(w, a, "", 500), -EPERM, "no cgroup: EPERM");
	is_int(mv(w, a, "system.slice/a.service", 500), 0, "its own thread: written");
	is_str(slurp(rel), "500\n", "only that one");
	for (int i = 0; i < 40; i++) {
		char nm[40];

		snprintf(nm, sizeof nm, "uncored-%016x", 0xabc000 + i);
		n += w->mkgroup(w, nm) == 0;
	}
	is_int(n, 3, "40 mkdirs asked: as many made as max_groups 3 allows");
	is_int(w->rmgroup(w, "uncored-0000000000abc000"), 0, "one removed");
	is_int(w->mkgroup(w, "uncored-0000000000abcfff"), 0, "and one more may be made");
	is_int(w->mkgroup(w, "uncored-0000000000abcffe"), -EDQUOT, "but no other (EDQUOT)");

	sk = helper_socket();
	ok(sk >= 0, "the daemon's end of the socket (%d)", sk);
	is_int(raw(sk, "", 0), -EINVAL, "a zero-length message: EINVAL");
	is_int(raw(sk, "m", 1), -EINVAL, "a short message: EINVAL");
	memset(big, 'm', sizeof big);
	is_int(raw(sk, big, sizeof big), -EINVAL, "a long message: EINVAL");
	ok(rdt_helper_request(w, 'm', "uncored-0123456789ABCDEF", NULL, 0) != 0,
	   "upper-case hex: refused");
	ok(rdt_helper_request(w, 'm', "uncored-0123456789abcde", NULL, 0) != 0,
	   "15 digits: refused");
	ok(rdt_helper_request(w, 'm', "uncored-../../../../etc", NULL, 0) != 0,
	   "a path: refused");
	ok(rdt_helper_request(w, 'm', ".", NULL, 0) != 0, "\".\": refused");
	ok(rdt_helper_request(w, 't', a, "system.slice/../../x", 500) != 0,
	   "a cgroup path with ..: refused");
	ok(rdt_helper_request(w, 'a', a, NULL, 7) != 0, "an event not 0 or 1: refused");
	ok(rdt_helper_request(w, 'z', a, NULL, 0) != 0, "an unknown request: refused");
	ok(kill(pid, 0) == 0, "the helper is still there");
	is_int(rdt_helper_request(w, 'r', "uncored-0000000000abcfff", NULL, 0), 0,
	       "and answers as before");
	is_str(status(pid, "Uid"), "0\t0\t0\t0", "the helper: uid 0");
	is_str(status(pid, "Gid"), "65534\t65534\t65534\t65534",
	       "gid the overflow group's, not 0");
	is_str(status(pid, "Groups"), "", "no supplementary group");
	is_str(status(pid, "CapEff"), "0000000000000000", "no capability");
	is_str(status(pid, "Seccomp"), "2", "a seccomp filter");
	{
		char p[64], l[PATH_MAX];
		ssize_t k;

		snprintf(p, sizeof p, "/proc/%d/cwd", (int)pid);
		k = readlink(p, l, sizeof l - 1);
		l[k > 0 ? k : 0] = '\0';
		is_str(l, "/", "working directory /");
	}
	w->free(w);
}

/*
 * The kernel's view of a real thread: with cgroup membership read from
 * /proc/<tid>/cgroup (as on the kernel's resctrl), a child moved into a
 * matching cgroup v2 is written, one in the root cgroup is not.
 */
static void real_threads(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup/unified",
					     "/sys/fs/cgroup" };
	char cgdir[512], why[512], p[PATH_MAX], cgname[64];
	const char *cgroot = NULL, *name;
	struct rdt_writer_cfg c;
	struct rdt_writer *w;
	pid_t kid, other, pid;
	FILE *f;

	for (size_t i = 0; i < 2 && !cgroot; i++) {
		snprintf(p, sizeof p, "%s/cgroup.procs", roots[i]);
		if (access(p, W_OK) == 0)
			cgroot = roots[i];
	}
	snprintf(cgname, sizeof cgname, "uncored-test.%d", (int)getpid());
	snprintf(cgdir, sizeof cgdir, "%s/%s", cgroot ? cgroot : "", cgname);
	if (!cgroot || mkdir(cgdir, 0755) < 0) {
		printf("ok %d - a real thread in a real cgroup # SKIP no "
		       "writable cgroup v2 hierarchy\n", ++tap_n);
		return;
	}
	kid = fork();
	if (kid == 0) {
		pause();
		_exit(0);
	}
	other = fork();
	if (other == 0) {
		pause();
		_exit(0);
	}
	snprintf(p, sizeof p, "%s/cgroup.procs", cgdir);
	if ((f = fopen(p, "w"))) {
		fprintf(f, "%d\n", (int)kid);
		fclose(f);
	}
	name = name_of(cgname);
	snprintf(p, sizeof p, "t/mon_groups/%s/tasks", name);
	put(p, "");
	memset(&c, 0, sizeof c);
	snprintf(p, sizeof p, "%s", at("t"));
	c.resctrl_root = p;
	c.cgroup_root = cgroot;
	c.patterns = "uncored-test.*";
	c.max_groups = 8;
	c.simulated = true;
	c.threads = RDT_THREADS_PROC;
	w = rdt_helper_start(&c, &pid, why, sizeof why);
	ok(w != NULL, "helper reading /proc (%s)", w ? "" : why);
	if (w) {
		is_int(mv(w, name, cgname, kid), 0,
		       "a thread /proc/<tid>/cgroup puts in the matching cgroup: written");
		ok(mv(w, name, cgname, other) != 0,
		   "one in another cgroup, claimed to be in it: refused");
		ok(mv(w, name, cgname, 999999999) != 0, "a thread that is not: refused");
		w->free(w);
	}
	snprintf(p, sizeof p, "t/mon_groups/%s/tasks", name);
	{
		char want[32];

		snprintf(want, sizeof want, "%d\n", (int)kid);
		is_str(slurp(p), want, "tasks holds the one thread");
	}
	kill(kid, SIGKILL);
	kill(other, SIGKILL);
	waitpid(kid, NULL, 0);
	waitpid(other, NULL, 0);
	rmdir(cgdir);
}

int main(void)
{
	char base[48], cmd[128];

	if (geteuid() != 0) {
		printf("1..0 # SKIP the helper keeps uid 0: needs root\n");
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	snprintf(base, sizeof base, "/tmp/test_resctrl_priv.XXXXXX");
	if (!mkdtemp(base))
		return 99;
	snprintf(top, sizeof top, "%s/openat2", base);
	mkdir(top, 0755);
	hostile_tree();
	links();
	distrust();
	real_threads();
	/* again where the kernel has no openat2: a component at a time */
	printf("# the same, resolving without openat2\n");
	rdt_writer_no_openat2();
	snprintf(top, sizeof top, "%s/walk", base);
	mkdir(top, 0755);
	hostile_tree();
	links();
	distrust();
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	if (system(cmd) != 0)
		return 99;
	return tap_done();
}
