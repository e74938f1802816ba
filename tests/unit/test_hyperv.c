/*
 * test_hyperv.c - the CPUID hypervisor bit and vendor signature
 * (src/daemon/hyperv.c) over a fake CPUID: no hypervisor bit; KVM; Hyper-V; an
 * unknown signature (escaped); a CPUID whose leaf 0x40000000 is not
 * there (EAX below 0x40000000); a CPU whose highest basic leaf is 0.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "daemon/hyperv.h"
#include "tests/tap.h"

static unsigned max_basic, ecx1, hv_max;
static char sig[12];

static void fake(unsigned leaf, unsigned r[4])
{
	memset(r, 0, 4 * sizeof(unsigned));
	if (leaf == 0)
		r[0] = max_basic;
	else if (leaf == 1)
		r[2] = ecx1;
	else if (leaf == 0x40000000u) {
		r[0] = hv_max;
		memcpy(&r[1], sig, 4);
		memcpy(&r[2], sig + 4, 4);
		memcpy(&r[3], sig + 8, 4);
	}
}

static void machine(unsigned basic, int bit, unsigned hmax, const char *s)
{
	max_basic = basic;
	ecx1 = bit ? 1u << 31 : 0x7ffefbffu;	/* everything else set */
	hv_max = hmax;
	memcpy(sig, s, 12);
}

int main(void)
{
	char name[96];
	bool r;

	machine(0x16, 0, 0, "KVMKVMKVM\0\0\0");
	strcpy(name, "stale");
	r = hv_detect_with(fake, name, sizeof(name));
	ok(!r, "no hypervisor bit: not a VM");
	is_str(name, "", "... and no name");

	machine(0x10, 1, 0x40000001u, "KVMKVMKVM\0\0\0");
	r = hv_detect_with(fake, name, sizeof(name));
	ok(r, "KVM: a VM");
	is_str(name, "KVM", "... named KVM");

	machine(0x10, 1, 0x4000000bu, "Microsoft Hv");
	r = hv_detect_with(fake, name, sizeof(name));
	ok(r, "Hyper-V: a VM");
	is_str(name, "Hyper-V", "... named Hyper-V");

	machine(0x10, 1, 0x40000010u, "VMwareVMware");
	hv_detect_with(fake, name, sizeof(name));
	is_str(name, "VMware", "VMware");
	machine(0x10, 1, 0x40000001u, " lrpepyh  vr");
	hv_detect_with(fake, name, sizeof(name));
	is_str(name, "Parallels", "Parallels");
	machine(0x10, 1, 0x40000001u, "TCGTCGTCGTCG");
	hv_detect_with(fake, name, sizeof(name));
	is_str(name, "QEMU TCG", "QEMU TCG");

	machine(0x10, 1, 0x40000000u, "Ab\\\"\x01\x7f" "c\0d e\xff");
	r = hv_detect_with(fake, name, sizeof(name));
	ok(r, "an unknown signature: a VM");
	is_str(name, "unknown, signature Ab\\x5c\\x22\\x01\\x7fc\\x00d e\\xff",
	       "... its 12 bytes, escaped");
	r = hv_detect_with(fake, name, 24);
	is_str(name, "unknown, signature Ab", "... cut short in a short "
	       "buffer, never inside an escape");

	/* the bit without the vendor leaf: CPUID answers a leaf above the
	 * highest with the highest basic leaf's registers */
	machine(0x10, 1, 0x00000d00u, "KVMKVMKVM\0\0\0");
	r = hv_detect_with(fake, name, sizeof(name));
	ok(r, "max hypervisor leaf below 0x40000000: still a VM");
	is_str(name, "unknown, no vendor leaf", "... named as having no vendor leaf");

	machine(0, 1, 0x40000001u, "KVMKVMKVM\0\0\0");
	r = hv_detect_with(fake, name, sizeof(name));
	ok(!r, "highest basic leaf 0: leaf 1 is not read, not a VM");

	/* the real machine: whatever it is, the answer is consistent */
	r = hv_detect(name, sizeof(name));
	ok(r == (name[0] != '\0'), "hv_detect() here: %s", r ? name : "no VM");
	return tap_done();
}
