/*
 * test_resctrl_cg.c - [resctrl] cgroup patterns and the Kubernetes ids
 * read from cgroup paths, on paths shaped as systemd and the kubelet
 * name them (pkg/kubelet/cm/cgroup_manager_linux.go).
 */
#include "config.h"

#include "resctrl/resctrl_cg.h"
#include "tests/tap.h"

#define CTR "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_match(void)
{
	static const struct { const char *pat, *path; bool want; } t[] = {
		{ "system.slice/*.service", "system.slice/cron.service", true },
		{ "system.slice/*.service", "system.slice/cron.socket", false },
		{ "system.slice/*.service", "system.slice/a/b.service", false },
		{ "system.slice/*.service", "system.slice", false },
		{ "system.slice/*.service", "user.slice/x.service", false },
		{ "kubepods.slice/**/cri-containerd-*.scope",
		  "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podab_cd.slice/cri-containerd-" CTR ".scope", true },
		{ "kubepods.slice/**/cri-containerd-*.scope",
		  "kubepods.slice/cri-containerd-x.scope", true },	/* ** = none */
		{ "kubepods.slice/**/cri-containerd-*.scope",
		  "kubepods.slice/kubepods-burstable.slice", false },
		{ "kubepods.slice/**", "kubepods.slice/a/b/c", true },
		/* as in .gitignore: a trailing "/ **" is what is inside, not a; a
		 * slice holds no processes itself (cgroup v2), so a group
		 * for it would only spend an RMID */
		{ "kubepods.slice/**", "kubepods.slice", false },
		{ "**/*.scope", "a/b/c.scope", true },
		{ "**/*.scope", "c.scope", true },
		{ "*", "a/b", false },
		{ "a/?", "a/b", true },
		{ "a/[bc]", "a/d", false },
		{ "a/*", "a/.hidden", false },	/* FNM_PERIOD: as a shell */
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		ok(rdtcg_match(t[i].pat, t[i].path) == t[i].want,
		   "%s %s %s", t[i].pat, t[i].want ? "matches" : "does not match",
		   t[i].path);
}

static void test_pattern_error(void)
{
	ok(!rdtcg_pattern_error("system.slice/*.service"), "good pattern");
	ok(!rdtcg_pattern_error("kubepods.slice/**/x"), "** component");
	ok(rdtcg_pattern_error(""), "empty refused");
	ok(rdtcg_pattern_error("/system.slice"), "absolute refused");
	ok(rdtcg_pattern_error("a//b"), "empty component refused");
	ok(rdtcg_pattern_error("a/"), "trailing '/' refused");
	ok(rdtcg_pattern_error("a/../b"), "'..' refused");
	ok(rdtcg_pattern_error("a/x**/b"), "'**' inside a component refused");
}

static void test_k8s(void)
{
	char pod[64], ctr[128];

	rdtcg_k8s_ids("kubepods.slice/kubepods-burstable.slice/"
		      "kubepods-burstable-pod5f0b2c1e_7d3a_4c8e_9b1f_2a6d8e4c0b13.slice/"
		      "cri-containerd-" CTR ".scope", pod, ctr);
	is_str(pod, "5f0b2c1e-7d3a-4c8e-9b1f-2a6d8e4c0b13", "systemd: pod UID, '_' back to '-'");
	is_str(ctr, CTR, "systemd: containerd id");
	rdtcg_k8s_ids("kubepods.slice/kubepods-pod11_22.slice/crio-" CTR ".scope",
		      pod, ctr);
	is_str(pod, "11-22", "guaranteed QoS pod (no QoS slice)");
	is_str(ctr, CTR, "CRI-O id");
	rdtcg_k8s_ids("kubepods/besteffort/pod5f0b2c1e-7d3a/" CTR, pod, ctr);
	is_str(pod, "5f0b2c1e-7d3a", "cgroupfs: pod UID");
	is_str(ctr, CTR, "cgroupfs: container id");
	rdtcg_k8s_ids("kubepods.slice/kubepods-burstable.slice", pod, ctr);
	is_str(pod, "", "a QoS slice is not a pod");
	is_str(ctr, "", "no container");
	rdtcg_k8s_ids("system.slice/cron.service", pod, ctr);
	is_str(pod, "", "not Kubernetes: no pod");
	is_str(ctr, "", "not Kubernetes: no container");
}

int main(void)
{
	test_match();
	test_pattern_error();
	test_k8s();
	return tap_done();
}
