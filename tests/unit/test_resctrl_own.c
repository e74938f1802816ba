/*
 * test_resctrl_own.c - uncored's own MON groups per cgroup, on plain
 * directory trees standing for /sys/fs/cgroup and /sys/fs/resctrl: which
 * cgroups get a group, threads written to tasks (and new ones later),
 * max_groups, the simulated tree's .mkdir_error (no RMID, limbo), a
 * cgroup that goes, leftovers swept, another tool's groups untouched,
 * labels, and the privileged helper's refusal of any other name; a
 * group removed behind the manager made again, and two managers (and a
 * crashed one) on one tree.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/prom.h"
#include "resctrl/resctrl_own.h"
#include "resctrl/resctrl_priv.h"
#include "tests/bounded.h"
#include "tests/tap.h"

static char top[64], cg[128], rdt[128];

static void put(const char *path, const char *text)
{
	char p[512], *s;
	FILE *f;

	snprintf(p, sizeof p, "%s", path);
	for (s = p + strlen(top) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (!(f = fopen(p, "w")))
		exit(99);
	fputs(text, f);
	fclose(f);
}

static void cgroup(const char *rel, const char *threads)
{
	char p[512];

	snprintf(p, sizeof p, "%s/%s/cgroup.threads", cg, rel);
	put(p, threads);
}

/* The simulated kernel's side of a mkdir: the group's files. */
static void kernel_files(const char *name)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof p, "%s/mon_groups/%s/tasks", rdt, name);
	if (stat(p, &st) == 0)
		return;
	put(p, "");
	snprintf(p, sizeof p, "%s/mon_groups/%s/mon_data/mon_L3_00/llc_occupancy",
		 rdt, name);
	put(p, "0\n");
}

/* Every uncored-* directory gets its files, as the simulator's sync. */
static unsigned sync_tree(void)
{
	char p[512];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(p, sizeof p, "%s/mon_groups", rdt);
	if (!(d = opendir(p)))
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "uncored-", 8)) {
			char m[512];
			struct stat st;

			snprintf(m, sizeof m, "%s/mon_groups/%s/.mkdir_error", rdt,
				 e->d_name);
			if (stat(m, &st) < 0)
				kernel_files(e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return strcpy(buf, "(none)");
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static const char *tasks_of(const char *name)
{
	char p[512];

	snprintf(p, sizeof p, "%s/mon_groups/%s/tasks", rdt, name);
	return slurp(p);
}

static const char *page(struct rdt_own *o, struct buf *b)
{
	struct prom w;

	buf_reset(b);
	prom_begin(&w, b, PROM_TEXT_004);
	rdt_own_render(&w, o);
	prom_end(&w);
	return b->p ? b->p : "";
}

/* The writer every daemon uses, on this plain tree: named simulated,
 * threads known from the cgroup tree. */
static struct rdt_writer *writer(const struct rdt_own_cfg *c)
{
	struct rdt_writer_cfg wc = {
		.resctrl_root = c->resctrl_root, .cgroup_root = c->cgroup_root,
		.patterns = c->patterns, .max_groups = c->max_groups,
		.simulated = true,
	};
	char why[512];
	struct rdt_writer *w = rdt_writer_open(&wc, why, sizeof why);

	if (!w)
		printf("# no writer: %s\n", why);
	return w;
}

/* The group name of a cgroup, found through the labels. */
static const char *name_of(struct rdt_own *o, const char *cgpath)
{
	static char found[300];
	char p[512], c[512], pod[64], ctr[128];
	struct dirent *e;
	DIR *d;

	found[0] = '\0';
	snprintf(p, sizeof p, "%s/mon_groups", rdt);
	if (!(d = opendir(p)))
		return found;
	while ((e = readdir(d))) {
		char g[300];

		snprintf(g, sizeof g, "mon_groups/%s", e->d_name);
		if (rdt_own_labels(o, g, c, sizeof c, pod, ctr) &&
		    !strcmp(c, cgpath))
			snprintf(found, sizeof found, "%s", e->d_name);
	}
	closedir(d);
	return found;
}

static bool exists(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof p, "%s/%s", rdt, rel);
	return stat(p, &st) == 0;
}

static void names(void)
{
	ok(rdt_own_name_ok("uncored-0123456789abcdef"), "a name of ours");
	ok(!rdt_own_name_ok("uncored-0123456789ABCDEF"), "upper-case hex: not ours");
	ok(!rdt_own_name_ok("uncored-0123456789abcde"), "15 digits: not ours");
	ok(!rdt_own_name_ok("uncored-0123456789abcdef0"), "17 digits: not ours");
	ok(!rdt_own_name_ok("cadvisor-0123456789abcdef"), "another prefix: not ours");
	ok(!rdt_own_name_ok("../uncored-0123456789abc"), "a path: not ours");
	ok(!rdt_own_name_ok(""), "empty: not ours");
}

static void manager(void)
{
	struct rdt_own_cfg c = {
		.patterns = "system.slice/*.service, ,kubepods.slice/none-*.scope",
		.cgroup_root = cg, .resctrl_root = rdt, .max_groups = 3,
	};
	struct buf b = BUF_INIT;
	char p[512], lc[512], pod[64], ctr[128], leftover[64];
	const char *k8s = "kubepods.slice/kubepods-burstable.slice/"
		"kubepods-burstable-pod1b2c3d4e_0000_1111_2222_333344445555.slice/"
		"cri-containerd-abc123.scope";

	cgroup("system.slice/a.service", "101\n102\n");
	cgroup("system.slice/b.service", "201\n");
	cgroup("system.slice/c.service", "");
	cgroup("system.slice/d.service", "401\n");
	cgroup("user.slice/user-0.slice/session-1.scope", "501\n");
	cgroup(k8s, "601\n");
	/* another tool's groups, and a leftover of an earlier run */
	snprintf(p, sizeof p, "%s/mon_groups/cadvisor-x/tasks", rdt);
	put(p, "999\n");
	snprintf(p, sizeof p, "%s/batch/tasks", rdt);
	put(p, "888\n");
	snprintf(leftover, sizeof leftover, "uncored-00000000000000ff");
	snprintf(p, sizeof p, "%s/mon_groups/%s/tasks", rdt, leftover);
	put(p, "");

	struct rdt_own *o = rdt_own_new(&c, writer(&c));
	ok(o != NULL, "a manager");
	is_int(rdt_own_pass(o), 4, "four cgroups match (not the session, not the pod)");
	is_u64(sync_tree(), 3, "three groups made: max_groups 3 (the leftover swept)");
	ok(!exists("mon_groups/uncored-00000000000000ff"), "the leftover of an earlier run is removed");
	ok(exists("mon_groups/cadvisor-x/tasks") && exists("batch/tasks"),
	   "another tool's groups are there");
	like(page(o, &b), "uncore_resctrl_cgroups{state=\"pending\"} 3", "made, pending until the tree has them");
	like(b.p, "uncore_resctrl_cgroups{state=\"limit\"} 1", "one over max_groups");

	is_int(rdt_own_pass(o), 4, "second pass");
	like(page(o, &b), "uncore_resctrl_cgroups{state=\"grouped\"} 3", "three grouped");
	/* in path order: a, b, c get groups; d does not */
	char *na = strdup(name_of(o, "system.slice/a.service"));
	ok(*na, "a.service has a group (%s)", na);
	is_str(tasks_of(na), "101\n102\n", "its two threads are in tasks");
	is_str(tasks_of(name_of(o, "system.slice/b.service")), "201\n", "b's thread");
	is_str(tasks_of(name_of(o, "system.slice/c.service")), "", "c has no thread yet");
	is_str(name_of(o, "system.slice/d.service"), "", "d has none (limit)");
	like(b.p, "uncore_resctrl_task_moves_total{result=\"moved\"} 3", "three threads moved");

	/* threads follow: a new one in a, one ended in b */
	cgroup("system.slice/a.service", "101\n102\n103\n");
	cgroup("system.slice/b.service", "");
	rdt_own_pass(o);
	is_str(tasks_of(na), "101\n102\n103\n", "a thread started since the last pass is moved, once");
	like(page(o, &b), "result=\"moved\"} 4", "four moves in all: none repeated");

	/* a thread another tool's MON group holds joins a: left there */
	cgroup("system.slice/a.service", "101\n102\n103\n999\n");
	rdt_own_pass(o);
	is_str(tasks_of(na), "101\n102\n103\n", "a thread cadvisor-x holds is not taken from it");
	like(page(o, &b), "result=\"other_mon_group\"} 1", "counted: other_mon_group");
	like(b.p, "result=\"moved\"} 4", "not as a move");
	cgroup("system.slice/a.service", "101\n102\n103\n");

	/* a cgroup goes: its group goes, and d gets one */
	snprintf(p, sizeof p, "rm -rf %s/system.slice/b.service", cg);
	if (system(p) != 0)
		exit(99);
	char *nb = strdup(name_of(o, "system.slice/b.service"));
	is_int(rdt_own_pass(o), 3, "three cgroups match now");
	snprintf(p, sizeof p, "mon_groups/%s", nb);
	ok(!exists(p), "b's group is removed with b (its files too, on a plain tree)");
	free(nb);
	sync_tree();
	rdt_own_pass(o);
	ok(*name_of(o, "system.slice/d.service"), "d has a group now");
	is_str(tasks_of(name_of(o, "system.slice/d.service")), "401\n", "with its thread");

	/* labels: cgroup, and the pod and container for a kubelet path */
	ok(!rdt_own_labels(o, "mon_groups/cadvisor-x", lc, sizeof lc, pod, ctr),
	   "another tool's group has no cgroup label");
	ok(!rdt_own_labels(o, "/", lc, sizeof lc, pod, ctr), "the root group neither");
	rdt_own_free(o);
	ok(!exists("mon_groups/uncored-00000000000000ff") && sync_tree() == 0,
	   "freed: every group of ours removed");
	ok(exists("mon_groups/cadvisor-x/tasks") && exists("batch/tasks"),
	   "another tool's groups untouched");
	is_str(slurp(strcat(strcpy(p, rdt), "/mon_groups/cadvisor-x/tasks")), "999\n",
	       "and their tasks as they were");

	/* the pod, with room: labels */
	c.max_groups = 10;
	c.patterns = "kubepods.slice/**/cri-containerd-*.scope";
	o = rdt_own_new(&c, writer(&c));
	rdt_own_pass(o);
	sync_tree();
	rdt_own_pass(o);
	const char *np = name_of(o, k8s);
	snprintf(p, sizeof p, "mon_groups/%s", np);
	ok(rdt_own_labels(o, p, lc, sizeof lc, pod, ctr), "the container's group has labels");
	is_str(lc, k8s, "cgroup");
	is_str(pod, "1b2c3d4e-0000-1111-2222-333344445555", "pod_uid, with '-'");
	is_str(ctr, "abc123", "container_id");
	rdt_own_free(o);

	/* the simulated tree says a mkdir failed: no RMID, then limbo */
	c.patterns = "system.slice/a.service";
	o = rdt_own_new(&c, writer(&c));
	rdt_own_pass(o);			/* pass 1: mkdir */
	free(na);
	na = strdup(name_of(o, "system.slice/a.service"));
	snprintf(p, sizeof p, "%s/mon_groups/%s/.mkdir_error", rdt, na);
	put(p, "ENOSPC\n");
	rdt_own_pass(o);			/* pass 2: refused */
	like(page(o, &b), "state=\"no_rmid\"} 1", ".mkdir_error ENOSPC: no RMID");
	snprintf(p, sizeof p, "mon_groups/%s", na);
	ok(!exists(p), "the refused directory is removed");
	for (int i = 3; i <= 6; i++)
		rdt_own_pass(o);
	ok(!exists(p), "no RMID: not tried again for 5 passes");
	rdt_own_pass(o);			/* pass 7: tried again */
	ok(exists(p), "tried again at the 5th pass");
	like(page(o, &b), "state=\"no_rmid\"} 1", "keeping its reason until the tree answers");
	snprintf(p, sizeof p, "%s/mon_groups/%s/.mkdir_error", rdt, na);
	put(p, "EBUSY\n");
	rdt_own_pass(o);			/* pass 8: refused again */
	like(page(o, &b), "state=\"rmid_limbo\"} 1", ".mkdir_error EBUSY: RMIDs in limbo");
	rdt_own_pass(o);			/* pass 9: limbo: the next pass */
	snprintf(p, sizeof p, "mon_groups/%s", na);
	ok(exists(p), "limbo: tried again at the next pass");
	sync_tree();
	rdt_own_pass(o);
	like(page(o, &b), "state=\"grouped\"} 1", "grouped once an RMID is free");
	rdt_own_free(o);
	free(na);

	/* no cgroup tree: an error, nothing touched */
	c.cgroup_root = "/nonexistent/cgroup";
	o = rdt_own_new(&c, writer(&c));
	is_int(rdt_own_pass(o), -ENOENT, "no cgroup tree: -ENOENT");
	rdt_own_free(o);
	c.patterns = "/abs";
	ok(rdt_own_new(&c, writer(&c)) == NULL, "a bad pattern: no manager");
	buf_free(&b);
}

/* ABMC in mbm_event mode: a group of ours whose events have no counter
 * gets one while available_mbm_cntrs says one is free, never more. */
static void abmc(void)
{
	struct rdt_own_cfg c = {
		.patterns = "abmc.slice/*.service",
		.cgroup_root = cg, .resctrl_root = rdt, .max_groups = 10,
	};
	struct buf b = BUF_INIT;
	char p[512], asg[512], na[300], nb[300];
	const char *unassigned = "mbm_total_bytes:0=_;1=_\n"
				 "mbm_local_bytes:0=_;1=_\n";

	cgroup("abmc.slice/a.service", "");
	cgroup("abmc.slice/b.service", "");
	snprintf(p, sizeof p, "%s/info/L3_MON/mbm_assign_mode", rdt);
	put(p, "[default]\nmbm_event\n");
	snprintf(p, sizeof p, "%s/info/L3_MON/available_mbm_cntrs", rdt);
	put(p, "0=1;1=3\n");

	struct rdt_own *o = rdt_own_new(&c, writer(&c));
	rdt_own_pass(o);
	sync_tree();
	snprintf(na, sizeof na, "%s", name_of(o, "abmc.slice/a.service"));
	snprintf(nb, sizeof nb, "%s", name_of(o, "abmc.slice/b.service"));
	snprintf(asg, sizeof asg, "%s/mon_groups/%s/mbm_L3_assignments", rdt, na);
	put(asg, unassigned);
	snprintf(p, sizeof p, "%s/mon_groups/%s/mbm_L3_assignments", rdt, nb);
	put(p, unassigned);
	rdt_own_pass(o);
	is_str(slurp(asg), unassigned, "default mode: nothing written");
	ok(!strstr(page(o, &b), "uncore_resctrl_unassigned_events"),
	   "nor the ABMC families shown");

	snprintf(p, sizeof p, "%s/info/L3_MON/mbm_assign_mode", rdt);
	put(p, "[mbm_event]\ndefault\n");
	rdt_own_pass(o);
	is_str(slurp(asg), "mbm_total_bytes:0=_;1=_\n"
	       "mbm_local_bytes:0=_;1=_\nmbm_total_bytes:*=e\n",
	       "mbm_event mode, one counter free in every domain (0=1;1=3): "
	       "a's total asked for, in every domain (appended: the simulated "
	       "tree's file)");
	snprintf(p, sizeof p, "%s/mon_groups/%s/mbm_L3_assignments", rdt, nb);
	is_str(slurp(p), unassigned, "b (later in path order) nothing: the "
	       "least domain had one");
	like(page(o, &b), "uncore_resctrl_counter_assignments_total{result=\"assigned\"} 1",
	     "one assigned");
	like(b.p, "uncore_resctrl_unassigned_events 3", "three events still without");

	/* none free: nothing asked for */
	snprintf(p, sizeof p, "%s/info/L3_MON/available_mbm_cntrs", rdt);
	put(p, "0=0;1=3\n");
	put(asg, unassigned);
	rdt_own_pass(o);
	is_str(slurp(asg), unassigned, "none free in domain 0: nothing written");
	like(page(o, &b), "result=\"assigned\"} 1", "still one assigned in all");
	like(b.p, "uncore_resctrl_unassigned_events 4", "four events without");

	/* the file said one was free, the kernel refused: refused, and no
	 * more asked for in that pass */
	put(p, "0=2;1=2\n");
	snprintf(p, sizeof p, "%s/mon_groups/%s/mbm_L3_assignments", rdt, na);
	if (chmod(p, 0444) < 0)
		exit(99);
	rdt_own_pass(o);
	if (geteuid() != 0)
		like(page(o, &b), "result=\"error\"} 1", "a write that fails: an error");
	else
		like(page(o, &b), "result=\"assigned\"} 3", "root writes a 0444 file: two more");
	chmod(p, 0644);
	/* two free in every domain: both of a's events asked for in one
	 * pass, and both requests kept until the tree's next sync (each
	 * replaced the one before it once: the first was never done, and
	 * asked for again - resctrl_abmc.sh 11 read 3 assigned for 2) */
	snprintf(p, sizeof p, "%s/info/L3_MON/available_mbm_cntrs", rdt);
	put(p, "0=2;1=2\n");
	put(asg, unassigned);
	rdt_own_pass(o);
	is_str(slurp(asg), "mbm_total_bytes:0=_;1=_\nmbm_local_bytes:0=_;1=_\n"
	       "mbm_total_bytes:*=e\nmbm_local_bytes:*=e\n",
	       "two requests in one pass: both kept for the tree's sync");
	page(o, &b);
	rdt_own_pass(o);
	is_str(slurp(asg), "mbm_total_bytes:0=_;1=_\nmbm_local_bytes:0=_;1=_\n"
	       "mbm_total_bytes:*=e\nmbm_local_bytes:*=e\n",
	       "a pass before the sync asks for neither again (the last line "
	       "of an event holds)");
	rdt_own_free(o);
	snprintf(p, sizeof p, "rm -rf %s/info", rdt);
	if (system(p) != 0)
		exit(99);
	buf_free(&b);
}

static void helper(void)
{
	const char *hs = "system.slice/h.service";
	struct rdt_writer_cfg wc = {
		.resctrl_root = rdt, .cgroup_root = cg,
		.patterns = "system.slice/*.service", .max_groups = 4,
		.simulated = true,
	};
	char why[512], p[512], nh[RDT_OWN_NAME_LEN + 1];
	struct rdt_writer *w;
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		printf("ok %d - the privileged helper # SKIP it keeps uid 0: "
		       "needs root\n", ++tap_n);
		return;
	}
	rdt_own_name(hs, nh);
	cgroup(hs, "4242\n");
	w = rdt_helper_start(&wc, &pid, why, sizeof why);
	ok(w != NULL, "helper started (%s)", w ? "" : why);
	if (!w)
		return;
	is_int(rdt_helper_request(w, 'm', "../../x", NULL, 0), -EINVAL, "a path: refused");
	is_int(rdt_helper_request(w, 'm', "cadvisor-x", NULL, 0), -EINVAL, "another tool's name: refused");
	is_int(rdt_helper_request(w, 'r', "cadvisor-x", NULL, 0), -EINVAL, "its removal: refused");
	is_int(rdt_helper_request(w, 'x', nh, NULL, 0), -EINVAL, "an unknown request: refused");
	is_int(w->mkgroup(w, nh), 0, "make ours");
	kernel_files(nh);
	is_int(w->move(w, nh, hs, 4242), 0, "write a thread of its cgroup");
	is_str(tasks_of(nh), "4242\n", "the thread is in tasks");
	is_int(rdt_helper_request(w, 'a', "cadvisor-x", NULL, 0), -EINVAL,
	       "a counter for another tool's group: refused");
	is_int(rdt_helper_request(w, 'a', nh, NULL, 2), -EINVAL,
	       "a counter for an event that is not total or local: refused");
	snprintf(p, sizeof p, "%s/mon_groups/%s/mbm_L3_assignments", rdt, nh);
	put(p, "mbm_total_bytes:0=_\nmbm_local_bytes:0=_\n");
	is_int(w->assign(w, nh, 1), 0, "a counter for ours");
	is_str(slurp(p), "mbm_total_bytes:0=_\nmbm_local_bytes:0=_\n"
	       "mbm_local_bytes:*=e\n", "appended after the state (a "
	       "simulated tree)");
	is_int(w->rmgroup(w, nh), 0, "remove ours");
	ok(exists("mon_groups/cadvisor-x/tasks"), "another tool's group untouched");
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	like(slurp(p), "CapEff:\t0000000000000000", "the helper has no capability");
	like(slurp(p), "NoNewPrivs:\t1", "and no_new_privs");
	w->free(w);
	ok(waitpid(pid, &st, WNOHANG) < 0, "freed: the helper has ended");
}

/* The count of state st on the page, -1 when it has none. */
static long state_count(const char *pg, const char *st)
{
	char k[96];
	const char *at;

	snprintf(k, sizeof k, "uncore_resctrl_cgroups{state=\"%s\"} ", st);
	at = strstr(pg, k);
	return at ? strtol(at + strlen(k), NULL, 10) : -1;
}

/* Three passes over "hostile/ *" with max_groups 4, the tree synced
 * between them, in a child: grouped * 100 + refused. */
static int hostile_child(const void *ctx, char *msg, size_t len)
{
	struct rdt_own_cfg c = { .patterns = "hostile/*", .cgroup_root = cg,
				 .resctrl_root = rdt, .max_groups = 4 };
	struct rdt_own *o = rdt_own_new(&c, writer(&c));
	struct buf b = BUF_INIT;
	long g, rf;

	(void)ctx;
	for (int i = 0; i < 3; i++) {
		rdt_own_pass(o);
		sync_tree();
	}
	page(o, &b);
	snprintf(msg, len, "%s", b.p ? b.p : "");
	g = state_count(b.p ? b.p : "", "grouped");
	rf = state_count(b.p ? b.p : "", "refused");
	rdt_own_free(o);
	buf_free(&b);
	return (int)(g * 100 + rf);
}

/* A matching cgroup under cg owned by uid. */
static void owned(const char *rel, uid_t uid)
{
	char p[512];

	cgroup(rel, "");
	snprintf(p, sizeof p, "%s/%s", cg, rel);
	if (chown(p, uid, uid) < 0)
		exit(99);
}

/*
 * Issue 39 §5, hostile cgroup trees: a FIFO as cgroup.threads blocked
 * the resctrl thread for ever, a link to /dev/zero spun it; matching
 * cgroups were all tracked, and in path order one user's could take
 * every max_groups slot.
 */
static void hostile(void)
{
	char p[512], msg[1024];
	struct buf b = BUF_INIT;
	int r;

	cgroup("hostile/good", "701\n");
	snprintf(p, sizeof p, "%s/hostile/fifo", cg);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/hostile/fifo/cgroup.threads", cg);
	if (mkfifo(p, 0644) < 0)
		exit(99);
	r = bounded_call(hostile_child, NULL, msg, sizeof msg, 10);
	is_int(r, 101, "a FIFO as cgroup.threads: refused at once, the other "
	       "cgroup grouped");
	unlink(p);
	if (symlink("/dev/zero", p) < 0)
		exit(99);
	r = bounded_call(hostile_child, NULL, msg, sizeof msg, 10);
	is_int(r, 101, "a link to /dev/zero as cgroup.threads: refused");
	snprintf(p, sizeof p, "rm -rf %s/hostile", cg);
	if (system(p) != 0)
		exit(99);

	if (geteuid() != 0) {
		printf("ok %d # skip owner shares: chown needs root\n", ++tap_n);
		return;
	}
	/* uid 1000's six cgroups come first in path order; root's two last */
	for (int i = 1; i <= 6; i++) {
		snprintf(p, sizeof p, "hostile/a%d", i);
		owned(p, 1000);
	}
	owned("hostile/z1", 0);
	owned("hostile/z2", 0);
	struct rdt_own_cfg c = { .patterns = "hostile/*", .cgroup_root = cg,
				 .resctrl_root = rdt, .max_groups = 4 };
	struct rdt_own *o = rdt_own_new(&c, writer(&c));
	is_int(rdt_own_pass(o), 8, "eight cgroups match");
	sync_tree();
	rdt_own_pass(o);
	page(o, &b);
	is_int(state_count(b.p, "grouped"), 3, "grouped: uid 1000's share (1 of "
	       "max_groups 4) and root's two");
	is_int(state_count(b.p, "owner_share"), 5, "uid 1000's other five: "
	       "owner_share, not tracked");
	ok(*name_of(o, "hostile/z1") && *name_of(o, "hostile/z2") &&
	   *name_of(o, "hostile/a1") && !*name_of(o, "hostile/a2"),
	   "root's cgroups have groups, uid 1000's first one only");
	rdt_own_free(o);
	snprintf(p, sizeof p, "rm -rf %s/hostile", cg);
	if (system(p) != 0)
		exit(99);

	/* max_groups 1: two tracked (one grouped, one waiting), the rest not */
	for (int i = 1; i <= 5; i++) {
		snprintf(p, sizeof p, "hostile/r%d", i);
		owned(p, 0);
	}
	c.max_groups = 1;
	o = rdt_own_new(&c, writer(&c));
	is_int(rdt_own_pass(o), 5, "five cgroups match");
	sync_tree();
	rdt_own_pass(o);
	page(o, &b);
	is_int(state_count(b.p, "grouped"), 1, "one grouped (max_groups 1)");
	is_int(state_count(b.p, "limit"), 1, "one tracked, waiting (limit)");
	is_int(state_count(b.p, "untracked"), 3, "three over 2 x max_groups: "
	       "untracked");
	rdt_own_free(o);
	snprintf(p, sizeof p, "rm -rf %s/hostile", cg);
	if (system(p) != 0)
		exit(99);
	buf_free(&b);
}

static void rm_rf(const char *fmt, const char *a)
{
	char p[600], q[512];

	snprintf(q, sizeof q, fmt, a);
	snprintf(p, sizeof p, "rm -rf %s", q);
	if (system(p) != 0)
		exit(99);
}

/* A pass of o and the simulated tree's sync after it, n times. */
static void passes(struct rdt_own *o, int n)
{
	for (int i = 0; i < n; i++) {
		rdt_own_pass(o);
		sync_tree();
	}
}

/* A child "daemon" on pattern pat: its groups made and grouped, then it
 * dies without removing them (a crash). */
static void crashed_run(const char *pat)
{
	struct rdt_own_cfg c = { .patterns = pat, .cgroup_root = cg,
				 .resctrl_root = rdt, .max_groups = 4 };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct rdt_own *o = rdt_own_new(&c, writer(&c));

		passes(o, 2);
		_exit(0);	/* no rdt_own_free: its groups stay */
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
		exit(99);
}

/*
 * Issue 39 finding 4: a group removed behind the daemon (or every group,
 * by a remount) was never made again: the cgroup stayed "grouped" and
 * every new thread's write failed.  Two daemons with different patterns
 * swept each other's groups as "left by an earlier run".
 */
static void behind(void)
{
	struct rdt_own_cfg c = { .patterns = "behind/*", .cgroup_root = cg,
				 .resctrl_root = rdt, .max_groups = 4 };
	struct buf b = BUF_INIT;
	char p[512], na[RDT_OWN_NAME_LEN + 1], nb[RDT_OWN_NAME_LEN + 1],
	     nc[RDT_OWN_NAME_LEN + 1], ns[RDT_OWN_NAME_LEN + 1];
	struct rdt_own *o, *o2;

	cgroup("behind/a", "801\n802\n");
	cgroup("behind/b", "811\n");
	rdt_own_name("behind/a", na);
	rdt_own_name("behind/b", nb);
	o = rdt_own_new(&c, writer(&c));
	passes(o, 2);
	rdt_own_pass(o);
	is_int(state_count(page(o, &b), "grouped"), 2, "two grouped");

	/* a's group removed by someone else */
	rm_rf("%s", strcat(strcat(strcpy(p, rdt), "/mon_groups/"), na));
	rdt_own_pass(o);
	snprintf(p, sizeof p, "mon_groups/%s", na);
	ok(exists(p), "a group removed behind the daemon is made again");
	is_int(state_count(page(o, &b), "grouped"), 1, "and is not counted "
	       "grouped until the tree has it");
	passes(o, 1);
	rdt_own_pass(o);
	is_int(state_count(page(o, &b), "grouped"), 2, "grouped again");
	is_str(tasks_of(na), "801\n802\n", "its threads written again");
	like(b.p, "result=\"error\"} 0", "no move error");

	/* a remount: every group gone, mon_groups/ empty */
	rm_rf("%s/mon_groups", rdt);
	snprintf(p, sizeof p, "%s/mon_groups/.keep", rdt);
	put(p, "");
	cgroup("behind/b", "811\n812\n");
	passes(o, 2);
	rdt_own_pass(o);
	is_int(state_count(page(o, &b), "grouped"), 2, "after a remount: both "
	       "grouped again");
	is_str(tasks_of(na), "801\n802\n", "a's threads written again");
	is_str(tasks_of(nb), "811\n812\n", "b's too, the new one once");
	like(b.p, "result=\"error\"} 0", "no move error");

	/* a second daemon with other patterns on the same tree */
	struct rdt_own_cfg c2 = { .patterns = "two/*", .cgroup_root = cg,
				  .resctrl_root = rdt, .max_groups = 4 };
	cgroup("two/x", "821\n");
	o2 = rdt_own_new(&c2, writer(&c2));
	for (int i = 0; i < 3; i++) {
		passes(o, 1);
		passes(o2, 1);
	}
	is_int(state_count(page(o, &b), "grouped"), 2, "the first daemon's "
	       "two grouped");
	is_int(state_count(page(o2, &b), "grouped"), 1, "the second's one "
	       "grouped: neither swept the other's");
	snprintf(p, sizeof p, "mon_groups/%s", na);
	ok(exists(p), "the first's group is there");
	rdt_own_name("two/x", nc);
	snprintf(p, sizeof p, "mon_groups/%s", nc);
	ok(exists(p), "the second's group is there");

	/* one cgroup both match: one group, shared; the first to stop
	 * leaves it to the other */
	cgroup("behind/s", "831\n");
	rdt_own_name("behind/s", ns);
	struct rdt_own_cfg c3 = { .patterns = "behind/s", .cgroup_root = cg,
				  .resctrl_root = rdt, .max_groups = 4 };
	struct rdt_own *o3 = rdt_own_new(&c3, writer(&c3));
	for (int i = 0; i < 3; i++) {
		passes(o, 1);
		passes(o3, 1);
	}
	is_int(state_count(page(o3, &b), "grouped"), 1, "a cgroup two daemons "
	       "match: grouped in both");
	rdt_own_free(o3);
	snprintf(p, sizeof p, "mon_groups/%s", ns);
	ok(exists(p), "the first to stop leaves the shared group to the other");
	passes(o, 1);
	ok(exists(p), "which keeps it");

	/* a daemon that crashed: its groups are swept by another */
	cgroup("dead/y", "841\n");
	crashed_run("dead/*");
	rdt_own_name("dead/y", nc);
	snprintf(p, sizeof p, "mon_groups/%s", nc);
	ok(exists(p), "a crashed daemon's group is left in the tree");
	passes(o2, 1);
	ok(!exists(p), "and swept by another daemon: no live one holds it");

	/* and by its own successor when no other daemon runs */
	rdt_own_free(o2);
	rdt_own_free(o);
	crashed_run("dead/*");
	ok(exists(p), "a crashed run's group");
	cgroup("dead/y", "");
	rm_rf("%s/dead", cg);
	o = rdt_own_new(&c, writer(&c));
	passes(o, 1);
	ok(!exists(p), "swept by the next run (no matching cgroup now)");
	rdt_own_free(o);
	ok(sync_tree() == 0, "freed: no group of ours left");
	rm_rf("%s/behind", cg);
	rm_rf("%s/two", cg);
	buf_free(&b);
}

int main(void)
{
	char p[512];

	snprintf(top, sizeof top, "/tmp/test_resctrl_own.XXXXXX");
	if (!mkdtemp(top))
		return 99;
	snprintf(cg, sizeof cg, "%s/cgroup", top);
	snprintf(rdt, sizeof rdt, "%s/resctrl", top);
	snprintf(p, sizeof p, "%s/mon_groups/.keep", rdt);
	put(p, "");
	names();
	manager();
	abmc();
	hostile();
	behind();
	snprintf(p, sizeof p, "%s/mon_groups/cadvisor-x/tasks", rdt);
	put(p, "999\n");
	helper();
	snprintf(p, sizeof p, "rm -rf %s", top);
	if (system(p) != 0)
		return 99;
	return tap_done();
}
