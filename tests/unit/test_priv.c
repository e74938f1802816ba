/*
 * test_priv.c - least privilege against a fake device tree (priv.c and
 * the real backend, hw_real.c, hw_msr.c, hw_pci.c, hw_mmio.c).
 *
 * The real backend takes path prefixes, so ordinary files stand in for
 * the kernel's devices, with the kernel's rules reproduced where a file
 * can show them:
 *  - /dev/cpu/N/msr and /dev/mem: root-only files (the kernel wants
 *    CAP_SYS_RAWIO at open);
 *  - a sysfs PCI config file: 4096 bytes for a privileged opener, 64 for
 *    an unprivileged one (drivers/pci/pci-sysfs.c checks the opener's
 *    CAP_SYS_ADMIN) - two trees, one per view;
 *  - lockdown and msr.allow_writes: fake /sys files for the start-time
 *    check.
 * The open-then-drop sequence runs in a forked child (a drop cannot be
 * undone), which reports its checks to the parent through a pipe.
 * Needs root for the drop; the privilege checks are skipped otherwise.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hw/hw.h"
#include "daemon/priv.h"
#include "tests/tap.h"

/* Host bridge +0x48 with the enable bit set; not the value in the lspci
 * dump used for enumeration, so a read that went through libpci instead
 * of the kept config file would show. */
#define MCHBAR_VAL 0xfed18001ull

static char dir[64];
static int report_fd = -1;	/* child: where check results go */

/* A TAP check that cannot run here. */
static void skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void put_file(const char *path, const void *data, size_t len,
		     mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd < 0 || write(fd, data, len) != (ssize_t)len || fchmod(fd, mode))
		die(path);
	close(fd);
}

static void mkdirs(const char *path)
{
	char p[512];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST)
				die(p);
			*s = '/';
		}
	if (mkdir(p, 0755) && errno != EEXIST)
		die(p);
}

/*
 * The fake tree under dir/name: msr/cpu{0,1}/msr (0600), mem (0600, one
 * page), pci/0000:00:00.0/config (0644) of cfg_len bytes with MCHBAR at
 * 0x48 when the file reaches it, vendor/device at 0.
 */
static void make_tree(const char *name, size_t cfg_len)
{
	char p[512];
	uint8_t cfg[4096] = { 0x86, 0x80, 0x1f, 0x19 }, page[4096] = { 0 };
	uint64_t v = MCHBAR_VAL, zero[64] = { 0 };

	memcpy(cfg + 0x48, &v, sizeof(v));
	for (unsigned c = 0; c < 2; c++) {
		snprintf(p, sizeof(p), "%s/%s/msr/cpu%u", dir, name, c);
		mkdirs(p);
		snprintf(p, sizeof(p), "%s/%s/msr/cpu%u/msr", dir, name, c);
		put_file(p, zero, sizeof(zero), 0600);
	}
	snprintf(p, sizeof(p), "%s/%s/mem", dir, name);
	put_file(p, page, sizeof(page), 0600);
	snprintf(p, sizeof(p), "%s/%s/pci/0000:00:00.0", dir, name);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/%s/pci/0000:00:00.0/config", dir, name);
	put_file(p, cfg, cfg_len, 0644);
}

/* Child side: one check, sent to the parent as "0|1 description". */
static void check(int cond, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "%d ", !!cond);

	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	if (write(report_fd, buf, strlen(buf)) < 0)
		_exit(3);
}

static void check_like(const char *hay, const char *needle, const char *what)
{
	check(strstr(hay, needle) != NULL, "%s (\"%s\" in: %s)", what, needle,
	      hay);
}

/* Runs fn in a child, turning its reports into TAP lines here. */
static void in_child(void (*fn)(void))
{
	int p[2], st;
	pid_t pid;
	FILE *f;
	char line[1024];

	if (pipe(p))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		fn();
		_exit(0);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		ok(line[0] == '1', "%s", line + 2);
	}
	if (f)
		fclose(f);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exited cleanly "
	   "(status 0x%x)", st);
}

static void open_tree(struct hw *hw, const char *name, char *fmt, char *mem,
		      char *pci, char *dump)
{
	struct hw_opts o = { .pci_method = "dump" };

	sprintf(fmt, "%s/%s/msr/cpu%%u/msr", dir, name);
	sprintf(mem, "%s/%s/mem", dir, name);
	sprintf(pci, "%s/%s/pci", dir, name);
	/* the copy main() put in the tree: nobody may not reach the source
	 * tree (a clone under /root, say) */
	sprintf(dump, "dump.name=%s/lspci-skl.txt", dir);
	o.msr_path = fmt;
	o.mem_path = mem;
	o.pci_config_dir = pci;
	o.pci_params[0] = dump;
	if (hw_open(hw, &hw_real_ops, &o) < 0)
		die(hw_last_error());
}

static const char *status_field(const char *key, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t kl = strlen(key);

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			snprintf(buf, len, "%s", line + kl + 1);
			buf[strcspn(buf, "\n")] = '\0';
			for (char *s = buf; *s == '\t' || *s == ' ';)
				memmove(s, s + 1, strlen(s));
		}
	if (f)
		fclose(f);
	return buf;
}

/* Root opens, drops to nobody, and works on through the kept handles. */
static void open_then_drop(void)
{
	char fmt[256], mem[256], pci[256], dump[320], st[128], why[512];
	struct hw hw;
	struct hw_addr m0 = hw_msr(0, 0x10), m1 = hw_msr(1, 0x10);
	struct hw_addr bar = hw_pci(0, 0, 0, 0, 0x48, 8);
	struct hw_addr dram = hw_mmio(0x50, 4);
	struct priv_target t;
	uint64_t v = 0;
	int r;

	open_tree(&hw, "root", fmt, mem, pci, dump);
	/* Start-up, as root: touch everything the platform uses. */
	check(hw_read(&hw, &m0, &v) == 0, "root: msr on cpu 0 opens");
	r = hw_read(&hw, &bar, &v);
	check(r == 0 && v == MCHBAR_VAL, "root: host bridge +0x48 (MCHBAR) "
	      "reads 0x%llx from the config file", (unsigned long long)v);
	check(hw_read(&hw, &dram, &v) == 0, "root: /dev/mem opens");

	r = priv_resolve("nobody", &t, why, sizeof(why));
	check(r == 0 && t.drop && t.uid != 0, "nobody resolves (uid %u)",
	      (unsigned)t.uid);
	check(hw_reachable(&hw, &m1) == 0,
	      "before the seal a new CPU is reachable (it may still be opened)");
	check(hw_seal(&hw, "sealed for the test") == 0, "backend sealed");
	check(hw_reachable(&hw, &m0) == 0 && hw_reachable(&hw, &bar) == 0 &&
	      hw_reachable(&hw, &dram) == 0,
	      "after the seal: the opened MSR, config file and mapping are "
	      "reachable");
	r = hw_reachable(&hw, &m1);
	check(r == -EPERM, "cpu 1, never opened, is not (r=%d)", r);
	check_like(hw_last_error(), "sealed for the test", "with the reason");
	r = hw_reachable(&hw, &(struct hw_addr){ .space = HW_PCI, .width = 4,
						 .dev = 2, .reg = 0 });
	check(r == -EPERM, "nor is a PCI device never opened (r=%d)", r);
	r = priv_drop(&t, why, sizeof(why));
	check(r == 0, "drop to nobody (%s)", r ? why : "ok");
	check(getuid() == t.uid && geteuid() == t.uid, "uid is nobody's");
	check(strcmp(status_field("CapEff", st, sizeof(st)),
		     "0000000000000000") == 0, "CapEff %s", st);
	check(strcmp(status_field("CapPrm", st, sizeof(st)),
		     "0000000000000000") == 0, "CapPrm %s", st);
	check(strcmp(status_field("NoNewPrivs", st, sizeof(st)), "1") == 0,
	      "NoNewPrivs %s", st);
	check(!priv_have_caps(), "priv_have_caps() agrees");

	/* The kept handles still work; the kernel would refuse new ones. */
	check(hw_write(&hw, &m0, 0x1234) == 0 && hw_read(&hw, &m0, &v) == 0 &&
	      v == 0x1234, "after the drop: msr write and read on cpu 0");
	check(hw_read(&hw, &bar, &v) == 0 && v == MCHBAR_VAL,
	      "after the drop: config space past byte 64 still reads");
	check(hw_write(&hw, &bar, MCHBAR_VAL) == 0,
	      "after the drop: config space still writes");
	check(hw_write(&hw, &dram, 7) == 0 && hw_read(&hw, &dram, &v) == 0 &&
	      v == 7, "after the drop: /dev/mem mapping still works");
	r = hw_read(&hw, &m1, &v);
	check(r == -EPERM, "cpu 1, never opened, is refused (r=%d)", r);
	check_like(hw_last_error(), "sealed for the test",
		   "with the reason given to hw_seal");
	check_like(hw_last_error(), "cpu 1", "naming the cpu");
	hw_close(&hw);
}

/* Started without privilege: each of the kernel's rules, named. */
static void unprivileged(void)
{
	char fmt[256], mem[256], pci[256], dump[320], why[512];
	struct hw hw;
	struct hw_addr m0 = hw_msr(0, 0x10), bar = hw_pci(0, 0, 0, 0, 0x48, 8);
	struct hw_addr vid = hw_pci(0, 0, 0, 0, 0, 4);
	struct priv_target t;
	uint64_t v = 0;
	int r;

	r = priv_resolve("nobody", &t, why, sizeof(why));
	check(r == 0 && priv_drop(&t, why, sizeof(why)) == 0,
	      "drop to nobody first");
	r = priv_resolve("nobody", &t, why, sizeof(why));
	check(r == 0 && !t.drop, "not root: nothing left to drop");
	open_tree(&hw, "user", fmt, mem, pci, dump);
	r = hw_read(&hw, &m0, &v);
	check(r == -EACCES, "msr file refused to an unprivileged opener "
	      "(r=%d)", r);
	check_like(hw_last_error(), "CAP_SYS_RAWIO", "naming the capability");
	r = hw_read(&hw, &vid, &v);
	check(r == 0 && (v & 0xffff) == 0x8086,
	      "the first 64 bytes of config space read (vendor 0x%llx)",
	      (unsigned long long)(v & 0xffff));
	r = hw_read(&hw, &bar, &v);
	check(r == -EACCES, "MCHBAR at byte 72 is past the 64 bytes an "
	      "unprivileged opener gets (r=%d)", r);
	check_like(hw_last_error(), "CAP_SYS_ADMIN", "naming the rule");
	check_like(hw_last_error(), "start uncored as root", "and the fix");
	r = hw_write(&hw, &vid, 0);
	check(r == -EPERM, "config write through a read-only file (r=%d)", r);
	check_like(hw_last_error(), "needs root", "says root is needed");
	r = hw_read(&hw, &(struct hw_addr){ .space = HW_MMIO, .width = 4,
					      .reg = 0x50 }, &v);
	check(r == -EACCES, "/dev/mem refused (r=%d)", r);
	hw_close(&hw);
}

static void kernel_rules(void)
{
	char lock[256], aw[256], why[1024];

	snprintf(lock, sizeof(lock), "%s/lockdown", dir);
	snprintf(aw, sizeof(aw), "%s/allow_writes", dir);
	is_int(priv_kernel_rules(lock, aw, why, sizeof(why)), 0,
	       "no lockdown file, no msr module: allowed");
	put_file(lock, "[none] integrity confidentiality\n", 33, 0644);
	put_file(aw, "on\n", 3, 0644);
	is_int(priv_kernel_rules(lock, aw, why, sizeof(why)), 0,
	       "lockdown none, allow_writes on: allowed");
	put_file(aw, "default\n", 8, 0644);
	is_int(priv_kernel_rules(lock, aw, why, sizeof(why)), 0,
	       "allow_writes default (writes allowed, logged): allowed");
	put_file(lock, "none [integrity] confidentiality\n", 33, 0644);
	is_int(priv_kernel_rules(lock, aw, why, sizeof(why)), 1,
	       "lockdown integrity: forbidden");
	like(why, "lockdown is active (integrity mode", "says which");
	like(why, "forbids writing MSRs", "says what it forbids");
	like(why, "perf uncore PMUs", "says what remains available");
	put_file(lock, "none integrity [confidentiality]\n", 33, 0644);
	is_int(priv_kernel_rules(lock, aw, why, sizeof(why)), 1,
	       "lockdown confidentiality: forbidden");
	put_file(lock, "[none] integrity confidentiality\n", 33, 0644);
	put_file(aw, "off\n", 4, 0644);
	is_int(priv_kernel_rules(lock, aw, why, sizeof(why)), 1,
	       "allow_writes off: forbidden");
	like(why, "msr.allow_writes=off", "says which");
	like(why, "echo on >", "says how to allow them");
}

static void resolve_errors(void)
{
	struct priv_target t;
	char why[1024];

	if (geteuid() != 0) {
		skip("user look-up", "not root: nothing is ever dropped");
		return;
	}
	is_int(priv_resolve("uncored-no-such-user", &t, why, sizeof(why)), -1,
	       "a missing user is an error");
	like(why, "\"uncored-no-such-user\" does not exist", "naming it");
	like(why, "useradd --system", "and how to create it");
	like(why, "--user", "or how to name another");
	is_int(priv_resolve("root", &t, why, sizeof(why)), -1,
	       "root as the target is refused");
	like(why, "uid 0", "saying why");
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_priv.XXXXXX");
	if (!mkdtemp(dir))
		die("mkdtemp");
	chmod(dir, 0755);	/* nobody must reach the fake tree */
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "cp '%s/tests/fixtures/lspci-skl.txt' "
			 "'%s/' && chmod 0644 '%s/lspci-skl.txt'",
			 getenv("top_srcdir") ? getenv("top_srcdir") : "..",
			 dir, dir);
		if (system(cmd) != 0)
			die("cannot copy the lspci fixture");
	}
	kernel_rules();
	resolve_errors();
	if (geteuid() == 0) {
		make_tree("root", 4096);
		make_tree("user", 64);
		in_child(open_then_drop);
		in_child(unprivileged);
	} else {
		skip("open, then drop", "needs root");
	}
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	wait(NULL);
	return tap_done();
}
