/*
 * hyperv.h - is this machine a virtual machine, and under which
 * hypervisor?
 *
 * Linux registers no Intel uncore PMU under a hypervisor
 * (intel_uncore_init() returns -ENODEV when X86_FEATURE_HYPERVISOR is
 * set), and cloud VMs rarely expose AMD's: where nothing can be counted,
 * the daemon names the hypervisor as the likely cause (backend.c).  Only
 * the real machine's path asks: the simulated machine is not the host.
 */
#ifndef UNCORED_HYPERV_H
#define UNCORED_HYPERV_H

#include <stdbool.h>
#include <stddef.h>

/* One CPUID read: leaf (subleaf 0) into r[0..3] = EAX, EBX, ECX, EDX. */
typedef void (*hv_cpuid_fn)(unsigned leaf, unsigned r[4]);

/*
 * Whether the CPUID hypervisor bit (leaf 1 ECX bit 31) is set.  When it
 * is, name gets the hypervisor from the leaf 0x40000000 vendor signature
 * (EBX, ECX, EDX): "KVM", "Hyper-V", "VMware", "Xen", "QEMU TCG",
 * "Parallels", "ACRN", "bhyve"; otherwise "unknown, signature " and the
 * 12 bytes escaped (\xNN for any byte that is not printable ASCII, a
 * backslash or a double quote), or "unknown, no vendor leaf" where leaf 0x40000000 says
 * it is not there.  "" when the bit is clear (and off x86).
 */
bool hv_detect(char *name, size_t len);
/* The same over the given CPUID (tests). */
bool hv_detect_with(hv_cpuid_fn cpuid, char *name, size_t len);

#endif
