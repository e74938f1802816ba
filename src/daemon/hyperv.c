/*
 * hyperv.c - the CPUID hypervisor bit and vendor signature (hyperv.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HV_X86 1
#endif

#include "hyperv.h"

#define HV_LEAF 0x40000000u

static const struct {
	char sig[13];
	const char *name;
} known[] = {
	{ "KVMKVMKVM\0\0\0", "KVM" },
	{ "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "TCGTCGTCGTCG", "QEMU TCG" },
	{ " lrpepyh  vr", "Parallels" },
	{ "ACRNACRNACRN", "ACRN" },
	{ "bhyve bhyve ", "bhyve" },
};

bool hv_detect_with(hv_cpuid_fn cpuid, char *name, size_t len)
{
	unsigned r[4] = { 0 };
	char sig[12];
	size_t used;

	if (len)
		name[0] = '\0';
	cpuid(0, r);
	if (r[0] < 1)
		return false;
	cpuid(1, r);
	if (!(r[2] & (1u << 31)))
		return false;
	cpuid(HV_LEAF, r);
	/* EAX: the highest hypervisor leaf, at least 0x40000000 where
	 * the vendor leaf exists (else CPUID returns whatever the highest
	 * basic leaf holds) */
	if (r[0] < HV_LEAF || r[0] > HV_LEAF + 0xffff) {
		snprintf(name, len, "unknown, no vendor leaf");
		return true;
	}
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (memcmp(sig, known[i].sig, 12) == 0) {
			snprintf(name, len, "%s", known[i].name);
			return true;
		}
	used = (size_t)snprintf(name, len, "unknown, signature ");
	for (size_t i = 0; i < 12 && used < len; i++) {
		unsigned char c = (unsigned char)sig[i];
		char e[5];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
			snprintf(e, sizeof(e), "%c", c);
		else
			snprintf(e, sizeof(e), "\\x%02x", c);
		if (used + strlen(e) >= len)
			break;	/* no half escape */
		memcpy(name + used, e, strlen(e) + 1);
		used += strlen(e);
	}
	return true;
}

#ifdef HV_X86
static void real_cpuid(unsigned leaf, unsigned r[4])
{
	__cpuid(leaf, r[0], r[1], r[2], r[3]);
}
#endif

bool hv_detect(char *name, size_t len)
{
#ifdef HV_X86
	return hv_detect_with(real_cpuid, name, len);
#else
	if (len)
		name[0] = '\0';
	return false;
#endif
}
