/*
 * sim_hsx.c - the simulator's data for Xeon E5/E7 v3 (plat_sim.h).
 *
 * The UBox "socket ID" function (manual 1.6.1; device 0x2F1E, notes "Bus
 * to socket") on every socket's bus holds CPUNODEID (the socket's node
 * ID) and GIDNIDMAP (every package's), both read-only here; node IDs are
 * permuted, (3p + 2) mod 8, so discovery must use the mapping.
 * U_MSR_PMON_GLOBAL_CONFIG.num_c resets to the CBo count (notes "CBo
 * count").  Overflow reaches the global status only through ov_en
 * (2.1.1); UCLK 2.0 GHz, the iMC channels' fixed counter DCLK 1066.67 MHz.
 */
#include "config.h"

#include "plat/plat_hsx.h"
#include "plat/plat_sim.h"

static const struct plat_sim_reg hsx_sim_regs[] = {
	{ .space = HW_PCI, .devfn = HSX_DEVFN(16, 5), .device = HSX_UBOX_DID,
	  .addr = HSX_UBOX_CPUNODEID, .bits = 32, .ro = 0xffffffffull,
	  .reset_kind = PSR_NODE_ID },
	{ .space = HW_PCI, .devfn = HSX_DEVFN(16, 5), .device = HSX_UBOX_DID,
	  .addr = HSX_UBOX_GIDNIDMAP, .bits = 32, .ro = 0xffffffffull,
	  .reset_kind = PSR_NODE_MAP },
	{ .space = HW_MSR, .addr = HSX_MSR_GLOBAL_CONFIG, .bits = 64,
	  .reset_kind = PSR_NINST, .unit = "cbo" },
};

/* Topology keys and their largest values (DESIGN.md section 3). */
static const struct plat_sim_count hsx_sim_counts[] = {
	{ "cbo_count", "cbo", 18 },
	{ "sbox_count", "sbox", 4 },
	{ "ha_count", "ha", 2 },
	{ "imc_channels", "imc", 8 },
	{ "qpi_ports", "qpi", 3 },
	{ "r3qpi_links", "r3qpi", 3 },
};

const struct plat_sim plat_hsx_sim = {
	.counts = hsx_sim_counts,
	.ncounts = sizeof(hsx_sim_counts) / sizeof(hsx_sim_counts[0]),
	.max_sockets = 8,
	.cores = true,
	.uclk_hz = 2000000000ull,
	.dclk_hz = 1066666667ull,
	.dclk_unit = "imc_fixed",
	.ovf_needs_en = true,
	.regs = hsx_sim_regs,
	.nregs = sizeof(hsx_sim_regs) / sizeof(hsx_sim_regs[0]),
	.mmio_bar = -1,
	.node_mul = 3,
	.node_add = 2,
};
