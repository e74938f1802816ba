/*
 * hw.c - backend-independent part of the hardware access layer: access
 * counting, address formatting and the per-thread error message.
 */
#include "config.h"

#include <errno.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"

static _Thread_local char hw_errbuf[512];

const char *hw_last_error(void)
{
	return hw_errbuf;
}

int hw_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hw_errbuf, sizeof(hw_errbuf), fmt, ap);
	va_end(ap);
	return -err;
}

/* hw_pci_check()'s failure, "ADDRESS: why": the address is formatted
 * only then, not on every access. */
__attribute__((format(printf, 2, 3)))
static int pci_bad(const struct hw_addr *a, const char *fmt, ...)
{
	char s[64], why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return hw_fail(EINVAL, "%s: %s", hw_addr_str(a, s, sizeof(s)), why);
}

int hw_pci_check(const struct hw_addr *a)
{
	if (a->width != 4 && a->width != 8)
		return pci_bad(a, "unsupported access width %u (PCI config "
			       "accesses are 4 or 8 bytes)", a->width);
	if (a->dev > 31 || a->fn > 7)
		return pci_bad(a, "no such device/function number");
	if (a->reg >= HW_PCI_CFG_SIZE || a->reg + a->width > HW_PCI_CFG_SIZE)
		return pci_bad(a, "offset beyond the %u-byte PCI configuration "
			       "space", HW_PCI_CFG_SIZE);
	if (a->reg % 4)
		return pci_bad(a, "offset is not 4-byte aligned");
	return 0;
}

char *hw_addr_str(const struct hw_addr *a, char *buf, size_t len)
{
	switch (a->space) {
	case HW_MSR:
		snprintf(buf, len, "msr 0x%" PRIx64 " on cpu %" PRIu32, a->reg,
			 a->cpu);
		break;
	case HW_PCI:
		snprintf(buf, len, "pci %04x:%02x:%02x.%x+0x%" PRIx64,
			 a->domain, a->bus, a->dev, a->fn, a->reg);
		break;
	case HW_MMIO:
		snprintf(buf, len, "mmio 0x%" PRIx64, a->reg);
		break;
	default:
		snprintf(buf, len, "unknown space %d", (int)a->space);
	}
	return buf;
}

/* Parses an unsigned number (0x hex or decimal) that must end at *end
 * or at one of the characters in stop. */
static int parse_num(const char *s, const char *stop, uint64_t max,
		     uint64_t *out, const char **end)
{
	char *e;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || v > max || e == s || (*e && !strchr(stop, *e)))
		return -1;
	*out = v;
	*end = e;
	return 0;
}

int hw_addr_parse(const char *s, struct hw_addr *a, char *why, size_t whylen)
{
	const char *p, *e;
	uint64_t v, w = 0, cpu = 0, dom = 0, bus, dev, fn;

	memset(a, 0, sizeof(*a));
	if (strncmp(s, "msr:", 4) == 0) {
		if (parse_num(s + 4, "@/", 0xffffffffull, &v, &e) < 0)
			goto bad;
		if (*e == '@' && parse_num(e + 1, "/", 0xffffffffull, &cpu, &e) < 0)
			goto bad;
		*a = hw_msr((uint32_t)cpu, (uint32_t)v);
	} else if (strncmp(s, "pci:", 4) == 0) {
		/* [DDDD:]BB:DD.F+0xOFF, bus/dev/fn in hex as lspci prints */
		char *x;
		unsigned long n[4];
		int k = 0;

		p = s + 4;
		for (;;) {
			errno = 0;
			n[k] = strtoul(p, &x, 16);
			if (x == p || errno || k == 3)
				goto bad;
			k++;
			if (*x != ':')
				break;
			p = x + 1;
		}
		if (*x != '.' || (k != 2 && k != 3))
			goto bad;
		dom = k == 3 ? n[0] : 0;
		bus = n[k - 2];
		dev = n[k - 1];
		p = x + 1;
		if (*p < '0' || *p > '7' || p[1] != '+')
			goto bad;
		fn = (uint64_t)(*p - '0');
		if (dom > 0xffff || bus > 0xff || dev > 31 ||
		    parse_num(p + 2, "/", 0xfff, &v, &e) < 0)
			goto bad;
		*a = hw_pci((uint16_t)dom, (uint8_t)bus, (uint8_t)dev,
			    (uint8_t)fn, (uint16_t)v, 4);
	} else if (strncmp(s, "mmio:", 5) == 0) {
		if (parse_num(s + 5, "/", ~0ull, &v, &e) < 0)
			goto bad;
		*a = hw_mmio(v, 4);
	} else {
		goto bad;
	}
	if (*e == '/') {
		if (parse_num(e + 1, "", 8, &w, &e) < 0 || (w != 4 && w != 8) ||
		    (a->space == HW_MSR && w != 8))
			goto bad;
		a->width = (uint8_t)w;
	}
	return 0;
bad:
	snprintf(why, whylen, "bad register address \"%s\": expected "
		 "msr:0xADDR[@CPU], pci:[DDDD:]BB:DD.F+0xOFF[/4|/8] or "
		 "mmio:0xADDR[/4|/8]", s);
	return -EINVAL;
}

void hw_cpu_map_of(const struct hw *hw, struct hw_cpu_map *m)
{
	memset(m, 0, sizeof(*m));
	if (hw->ops->cpu_map)
		hw->ops->cpu_map(hw, m);
}

bool hw_played(const struct hw *hw)
{
	return hw->ops && hw->ops->played_time && hw->ops->played_phase &&
	       hw->ops->played_rate;
}

double hw_played_time(struct hw *hw)
{
	return hw->ops->played_time ? hw->ops->played_time(hw) : 0;
}

int hw_played_phase(const struct hw *hw, unsigned ph,
		    struct hw_played_phase *out)
{
	return hw->ops->played_phase ? hw->ops->played_phase(hw, ph, out)
				     : -ENOENT;
}

double hw_played_rate(const struct hw *hw, unsigned ph, int unit,
		      int freerun, uint8_t code, uint8_t umask)
{
	return hw->ops->played_rate ?
	       hw->ops->played_rate(hw, ph, unit, freerun, code, umask) : 0;
}

int hw_open(struct hw *hw, const struct hw_ops *ops, const struct hw_opts *o)
{
	static const struct hw_opts none;

	memset(hw, 0, sizeof(*hw));
	hw->ops = ops;
	hw_errbuf[0] = '\0';
	return ops->open(hw, o ? o : &none);
}

void hw_close(struct hw *hw)
{
	if (hw->ops && hw->ops->close)
		hw->ops->close(hw);
	hw->ops = NULL;
	hw->priv = NULL;
}

static int check_width(const struct hw_addr *a)
{
	char s[64];

	if (a->space == HW_MSR ? a->width != 8 : (a->width != 4 && a->width != 8))
		return hw_fail(EINVAL, "%s: unsupported access width %u",
			       hw_addr_str(a, s, sizeof(s)), a->width);
	return 0;
}

int hw_read(struct hw *hw, const struct hw_addr *a, uint64_t *val)
{
	int r;

	atomic_fetch_add_explicit(&hw->nreads, 1, memory_order_relaxed);
	r = check_width(a);
	if (r == 0)
		r = hw->ops->read(hw, a, val);
	if (r < 0)
		atomic_fetch_add_explicit(&hw->nerrors, 1, memory_order_relaxed);
	return r;
}

int hw_probe(struct hw *hw, const struct hw_addr *a, uint64_t *val)
{
	int r;

	atomic_fetch_add_explicit(&hw->nreads, 1, memory_order_relaxed);
	r = check_width(a);
	return r == 0 ? hw->ops->read(hw, a, val) : r;
}

int hw_write(struct hw *hw, const struct hw_addr *a, uint64_t val)
{
	int r;

	atomic_fetch_add_explicit(&hw->nwrites, 1, memory_order_relaxed);
	r = check_width(a);
	if (r == 0)
		r = hw->ops->write(hw, a, val);
	if (r < 0)
		atomic_fetch_add_explicit(&hw->nerrors, 1, memory_order_relaxed);
	return r;
}

int hw_pci_scan(struct hw *hw, int (*cb)(void *, const struct hw_pci_dev *),
		void *ctx)
{
	if (!hw->ops->pci_scan)
		return hw_fail(ENOTSUP, "%s backend cannot scan PCI",
			       hw->ops->name);
	return hw->ops->pci_scan(hw, cb, ctx);
}

int hw_seal(struct hw *hw, const char *why)
{
	/* no backend open (perf mode on the real machine): nothing to seal */
	return hw->ops && hw->ops->seal ? hw->ops->seal(hw, why) : 0;
}

int hw_reachable(struct hw *hw, const struct hw_addr *a)
{
	return hw->ops->reachable ? hw->ops->reachable(hw, a) : 0;
}

int hw_set_str(pthread_mutex_t *lock, char **dst, const char *v)
{
	char *c = strdup(v);

	if (!c)
		return hw_fail(ENOMEM, "out of memory");
	pthread_mutex_lock(lock);
	free(*dst);
	*dst = c;
	pthread_mutex_unlock(lock);
	return 0;
}

int hw_cpuid(const struct hw *hw, uint32_t leaf, uint32_t sub,
	     uint32_t r[4])
{
	r[0] = r[1] = r[2] = r[3] = 0;
	if (hw && hw->ops && hw->ops->cpuid)
		return hw->ops->cpuid(hw, leaf, sub, r);
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned max = __get_cpuid_max(leaf & 0x80000000u, NULL);

		if (max == 0 && !(leaf & 0x80000000u))
			return -ENODEV;
		if (leaf > max)
			return 0;	/* past the range: zeros */
		__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
		return 0;
	}
#else
	(void)leaf;
	(void)sub;
	return -ENODEV;
#endif
}

int hw_cpuid_fn(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	return hw_cpuid(ctx, leaf, sub, r);
}

unsigned hw_cpuid_cores(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned eax, ebx, ecx, edx, smt = 0, core = 0;

	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
		return 0;
	/* SDM vol. 2A, CPUID leaf 0BH: ECX[15:8] the level type (1 SMT,
	 * 2 core), EBX[15:0] the logical processors at that level */
	if (eax >= 0xB) {
		for (unsigned sub = 0; sub < 8; sub++) {
			__cpuid_count(0xB, sub, eax, ebx, ecx, edx);
			if (((ecx >> 8) & 0xff) == 0)
				break;
			if (((ecx >> 8) & 0xff) == 1)
				smt = ebx & 0xffff;
			else if (((ecx >> 8) & 0xff) == 2)
				core = ebx & 0xffff;
		}
		if (smt && core >= smt)
			return core / smt;
	}
	/* leaf 04H: EAX[31:26], addressable core IDs in the package - 1 */
	__get_cpuid(0, &eax, &ebx, &ecx, &edx);
	if (eax >= 4) {
		__cpuid_count(4, 0, eax, ebx, ecx, edx);
		if (eax & 0x1f)
			return (eax >> 26) + 1;
	}
#endif
	return 0;
}
