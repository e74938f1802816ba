/*
 * hw_real.c - the real hardware backend: MSRs through the kernel's msr
 * driver, PCI configuration space through libpci, MMIO through /dev/mem.
 * Each space is opened lazily on first use, so a platform that needs no
 * MMIO never opens /dev/mem and a missing msr module is reported only
 * when an MSR is actually needed.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"

struct hw_real {
	struct hw_opts opts;
	pthread_mutex_t lock;	/* guards lazy opening */
	struct hw_msr *msr;
	struct hw_pcicfg *pci;
	struct hw_mem *mem;
	char *sealed;		/* NULL, or why nothing may be opened */
};

static int real_open(struct hw *hw, const struct hw_opts *o)
{
	struct hw_real *r = calloc(1, sizeof(*r));

	if (!r)
		return hw_fail(ENOMEM, "out of memory");
	r->opts = *o;
	pthread_mutex_init(&r->lock, NULL);
	hw->priv = r;
	return 0;
}

static void real_close(struct hw *hw)
{
	struct hw_real *r = hw->priv;

	if (!r)
		return;
	if (r->msr)
		hw_msr_close(r->msr);
	if (r->pci)
		hw_pcicfg_close(r->pci);
	if (r->mem)
		hw_mem_close(r->mem);
	pthread_mutex_destroy(&r->lock);
	free(r->sealed);
	free(r);
}

/* Opens the PCI part, with kept config files where the method is sysfs. */
static int open_pci(struct hw_real *r)
{
	const char *m = r->opts.pci_method, *dir = r->opts.pci_config_dir;
	int err = hw_pcicfg_open(&r->pci, m, r->opts.pci_params);

	if (!err && !dir && (!m || strcmp(m, "linux-sysfs") == 0))
		dir = "/sys/bus/pci/devices";
	if (!err && dir)
		err = hw_pcicfg_set_cfgdir(r->pci, dir);
	return err;
}

/* Opens the part for space a->space if needed. */
static int real_need(struct hw_real *r, enum hw_space space)
{
	static const char *const what[] = {
		[HW_MSR] = "MSR", [HW_PCI] = "PCI", [HW_MMIO] = "MMIO" };
	int err = 0;

	pthread_mutex_lock(&r->lock);
	if (r->sealed && !(space == HW_MSR ? (void *)r->msr : space == HW_PCI ?
			   (void *)r->pci : (void *)r->mem)) {
		err = hw_fail(EPERM, "%s access: %s", what[space], r->sealed);
		pthread_mutex_unlock(&r->lock);
		return err;
	}
	switch (space) {
	case HW_MSR:
		if (!r->msr)
			err = hw_msr_open(&r->msr, r->opts.msr_path);
		break;
	case HW_PCI:
		if (!r->pci)
			err = open_pci(r);
		break;
	case HW_MMIO:
		if (!r->mem)
			err = hw_mem_open(&r->mem, r->opts.mem_path);
		break;
	}
	pthread_mutex_unlock(&r->lock);
	return err;
}

static int real_read(struct hw *hw, const struct hw_addr *a, uint64_t *v)
{
	struct hw_real *r = hw->priv;
	int err = real_need(r, a->space);

	if (err)
		return err;
	switch (a->space) {
	case HW_MSR:
		return hw_msr_read(r->msr, a->cpu, (uint32_t)a->reg, v);
	case HW_PCI:
		return hw_pcicfg_read(r->pci, a, v);
	case HW_MMIO:
		return hw_mem_read(r->mem, a->reg, a->width, v);
	}
	return hw_fail(EINVAL, "bad address space");
}

static int real_write(struct hw *hw, const struct hw_addr *a, uint64_t v)
{
	struct hw_real *r = hw->priv;
	int err = real_need(r, a->space);

	if (err)
		return err;
	switch (a->space) {
	case HW_MSR:
		return hw_msr_write(r->msr, a->cpu, (uint32_t)a->reg, v);
	case HW_PCI:
		return hw_pcicfg_write(r->pci, a, v);
	case HW_MMIO:
		return hw_mem_write(r->mem, a->reg, a->width, v);
	}
	return hw_fail(EINVAL, "bad address space");
}

static int real_scan(struct hw *hw, int (*cb)(void *, const struct hw_pci_dev *),
		     void *ctx)
{
	struct hw_real *r = hw->priv;
	int err = real_need(r, HW_PCI);

	return err ? err : hw_pcicfg_scan(r->pci, cb, ctx);
}

static int real_seal(struct hw *hw, const char *why)
{
	struct hw_real *r = hw->priv;
	int err = 0;

	pthread_mutex_lock(&r->lock);
	free(r->sealed);
	r->sealed = strdup(why);
	if (!r->sealed)
		err = hw_fail(ENOMEM, "out of memory");
	if (!err && r->msr)
		err = hw_msr_seal(r->msr, why);
	if (!err && r->pci)
		err = hw_pcicfg_seal(r->pci, why);
	pthread_mutex_unlock(&r->lock);
	return err;
}

static int real_reachable(struct hw *hw, const struct hw_addr *a)
{
	struct hw_real *r = hw->priv;
	char s[64];
	bool open_;

	pthread_mutex_lock(&r->lock);
	if (!r->sealed) {
		pthread_mutex_unlock(&r->lock);
		return 0;
	}
	switch (a->space) {
	case HW_MSR:
		open_ = r->msr && hw_msr_is_open(r->msr, a->cpu);
		break;
	case HW_PCI:
		open_ = r->pci && hw_pcicfg_is_open(r->pci, a);
		break;
	default:
		open_ = r->mem != NULL;
		break;
	}
	pthread_mutex_unlock(&r->lock);
	if (open_)
		return 0;
	hw_addr_str(a, s, sizeof(s));
	return hw_fail(EPERM, "%s: %s", s, r->sealed);
}

/* The machine's sysfs says where the CPUs are; CPUID how many cores a
 * package has, offline ones included (hw_cpuid_cores()). */
static void real_cpu_map(const struct hw *hw, struct hw_cpu_map *m)
{
	(void)hw;
	m->hw_cores = hw_cpuid_cores();
}

const struct hw_ops hw_real_ops = {
	.name = "hw",
	.open = real_open,
	.close = real_close,
	.read = real_read,
	.write = real_write,
	.pci_scan = real_scan,
	.seal = real_seal,
	.reachable = real_reachable,
	.cpu_map = real_cpu_map,
};
