/*
 * sim_skl.c - the simulator's data for Skylake client (plat_sim.h).
 *
 * The host bridge at PCI 0:0.0 carries MCHBAR at offset 0x48 (bits 38:15
 * base, bit 0 enable; doc/hardware-notes.md) and the IMC counters sit in
 * its 32 KiB MMIO window; MSR_UNC_CBO_CONFIG (0x396) reads the number of
 * CBos plus one (manual 2.4.1).  Counters overflow into the global
 * status unconditionally; UCLK defaults to 800 MHz.
 */
#include "config.h"

#include "plat/plat_sim.h"
#include "plat/plat_skl.h"

#define SKL_SIM_HOST_BRIDGE_DID 0x191f	/* Skylake S quad core, one of
					   skl_host_bridges[] */

static const struct plat_sim_reg skl_sim_regs[] = {
	{ .space = HW_PCI, .devfn = 0, .device = SKL_SIM_HOST_BRIDGE_DID,
	  .addr = SKL_MCHBAR_PCI_OFF, .bits = 64,
	  .rw = SKL_MCHBAR_MASK | SKL_MCHBAR_EN, .reset = 0xfed10001ull,
	  .socket0_only = true },
	{ .space = HW_MSR, .addr = SKL_MSR_CBO_CONFIG, .bits = 64,
	  .reset_kind = PSR_NINST, .unit = "cbo", .reset = 1 },
};

/* Topology keys (DESIGN.md section 3): one socket, at most 8 CBos. */
static const struct plat_sim_count skl_sim_counts[] = {
	{ "cbo_count", "cbo", 8 },
};

const struct plat_sim plat_skl_sim = {
	.counts = skl_sim_counts,
	.ncounts = sizeof(skl_sim_counts) / sizeof(skl_sim_counts[0]),
	.max_sockets = 1,
	.mmio_key = "mchbar",
	.uclk_hz = 800000000ull,
	.regs = skl_sim_regs,
	.nregs = sizeof(skl_sim_regs) / sizeof(skl_sim_regs[0]),
	.mmio_bar = 0,
	.mmio_mask = SKL_MCHBAR_MASK,
	.mmio_enable = SKL_MCHBAR_EN,
	.mmio_size = 0x8000,
	.mmio_name = "MCHBAR",
};
