/*
 * backend.h - choosing the way to the counters (doc/design.md section 3):
 * direct (the daemon programs MSRs, PCI configuration space and MCHBAR
 * itself) or perf (the kernel's uncore PMU drivers through
 * perf_event_open), on the real machine or on the simulator, and setting
 * up the PMU layer over it.
 *
 * --backend=auto takes direct where the daemon can program the PMU, else
 * perf where the kernel exposes the platform's uncore PMUs, else gives up
 * with one message naming, for each path, the rule that forbids it and
 * what the operator can do.  The choice and its reason are kept in struct
 * daemon (status, startup log, uncored_build_info).
 */
#ifndef UNCORED_BACKEND_H
#define UNCORED_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hw/hw.h"
#include "plat/plat.h"

struct daemon;

enum backend_want { BACKEND_AUTO, BACKEND_DIRECT, BACKEND_PERF };

struct backend_opts {
	enum backend_want want;
	const char *sysfs;	/* NULL: "/sys" */
	const char *procfs;	/* NULL: "/proc" */
	bool simulate;
	struct hw_opts sim;	/* the simulator's options (simulate) */
	/* the kernel's rules on raw access (tests); NULL: the real files */
	const char *lockdown_path, *allow_writes_path;
};

/* Exit statuses backend_open() returns (uncored(8)). */
#define BACKEND_EXIT_CPU 2	/* no supported platform */
#define BACKEND_EXIT_KERNEL 4	/* no path to the counters is allowed */

/* Parses "auto", "direct" or "perf"; -1 for anything else. */
int backend_parse(const char *s, enum backend_want *out);

/*
 * Opens the chosen way to the counters into d: d->hw (the machine or the
 * simulator; closed on the real machine in perf mode), d->plat, d->topo,
 * d->pmu, d->backend ("direct" / "perf"), d->simulated, d->backend_why,
 * the perf privilege to keep (d->perf_cap), the owner file (direct only).
 * Returns 0, or an exit status (1, BACKEND_EXIT_CPU, BACKEND_EXIT_KERNEL)
 * with the whole message in why and nothing left open.
 */
int backend_open(struct daemon *d, const struct backend_opts *o, char *why,
		 size_t whylen);
/* Before the daemon becomes uid:gid: hands it what the backend made
 * that it must still change or remove (the simulated kernel's tree).
 * 0 or -errno. */
int backend_give(struct daemon *d, uid_t uid, gid_t gid);
/* Closes what backend_open() opened (after pmu_free()). */
void backend_close(struct daemon *d);

/* The perf events (leaders and siblings) the simulated kernel holds open
 * now, or -1 where the daemon does not count through it (the direct
 * backend, a real kernel): after pmu_release() it must be 0, the perf
 * backend's "PMU left idle". */
int backend_sim_events(const struct daemon *d);

/* The energy monitor of the backend d runs (core/energy.h): the power
 * PMU of its kernel (the real one, or the simulated kernel's) on perf,
 * the RAPL MSRs through d->hw on direct.  Call before the privilege
 * drop.  NULL only on no memory. */
struct energy_mon *backend_energy(struct daemon *d);

/* The package thermal-throttle monitor (core/throttle.h) of d's kernel:
 * the real one's thermal_throttle/ files (--path.sysfs), the simulated
 * kernel's (brought to the simulated clock before each read), or, on the
 * simulator's registers, only a tree conf_sysfs names other than /sys
 * (never the host's counters beside simulated counts; else absent with
 * that reason).  NULL only on no memory. */
struct throttle_mon *backend_throttle(struct daemon *d,
				      const char *conf_sysfs);

/* The platform of this CPU, or NULL with the reason in why: vendor,
 * family, model, stepping, the supported platforms, and whether the
 * kernel exposes uncore PMUs under SYSFS (NULL: "/sys"). */
const struct platform *backend_cpu_platform(const char *sysfs, char *why,
					    size_t len);
/* A CPU that matches no table but whose kernel has uncore PMUs gets
 * platform generic (plat_generic.h), built from SYSFS, which
 * backend_close() frees.  backend_log_generic() logs it: the CPU (cpu),
 * each family's kernel events or why it is absent, what was left out. */
void backend_log_generic(const struct platform *p, const char *cpu);

/*
 * The kernel's uncore-looking PMUs under SYSFS/bus/event_source/devices
 * ("uncore_*", "amd_df", "amd_l3", "amd_umc_*"), comma-separated into buf,
 * "" when none; the count.
 */
unsigned backend_kernel_uncore(const char *sysfs, char *buf, size_t len);

/*
 * Where SYSFS (NULL: "/sys") has no uncore PMU and the CPUID hypervisor
 * bit is set (hyperv.h): "this machine is a virtual machine (... hypervisor:
 * KVM) ...: run uncored on the bare-metal host, or on a bare-metal (.metal)
 * cloud instance" into buf, and its length; else "" and 0.  backend_open()
 * appends it, as ". Likely cause: ...", to the message of status 2 or 4 on
 * the real machine (never on the simulator); --self-test and [daemon]
 * unavailable = serve say the same, being that message.
 */
size_t backend_vm_note(const char *sysfs, char *buf, size_t len);

#endif
