/*
 * derived_snbep.c - the daemon's derived metrics on Xeon E5-2600/4600 v1
 * (doc/design.md section 7; the table format is described in plat.h, the
 * encodings in plat_snbep.h): the families hsx has, less what the part
 * cannot count - home agent requests without a local/remote split
 * (locality="any") - and package C7, which the part has and hsx does not
 * read (exported when a [baseline] counts UNC_P_CORE_PC7_CTR).
 */
#include "config.h"

#include "derived.h"
#include "plat_snbep.h"

static const struct derived_src snbep_src[] = {
	{ "lookups", SNBEP_LLC_LOOKUPS, 1 },
	{ "misses", SNBEP_LLC_MISSES, 1 },
	{ "dram_rd", "UNC_M_CAS_COUNT.RD", 64 },
	{ "dram_wr", "UNC_M_CAS_COUNT.WR", 64 },
	{ "clock", "UNC_U_CLOCKTICKS", 1 },
	{ "qpi_data", "UNC_Q_TxL_FLITS_G0.DATA", 8 },
	{ "qpi_nondata", "UNC_Q_TxL_FLITS_G0.NON_DATA", 8 },
	{ "ha_rd", "UNC_H_REQUESTS.READS", 1 },
	{ "ha_wr", "UNC_H_REQUESTS.WRITES", 1 },
	{ "core_c3", "UNC_P_CORE_CC3_CTR", 1 },
	{ "core_c6", "UNC_P_CORE_CC6_CTR", 1 },
	{ "pkg_c3", "UNC_P_CORE_PC3_CTR", 1 },
	{ "pkg_c2", "UNC_P_CORE_PC2_CTR", 1 },
	{ "pkg_c6", "UNC_P_CORE_PC6_CTR", 1 },
	{ "pkg_c7", "UNC_P_CORE_PC7_CTR", 1 },
	{ "band0", SNBEP_BAND(0), 1 },
	{ "band1", SNBEP_BAND(1), 1 },
	{ "band2", SNBEP_BAND(2), 1 },
	{ "band3", SNBEP_BAND(3), 1 },
	/* the PCU's limit cycles in seconds: its UNC_P_CLOCKTICKS "The PCU
	 * runs off a fixed 800 MHz clock" (events_snbep.c, intel-perfmon) */
	DM_FL_SRCS,
};

static const struct derived_metric snbep_m[] = {
	DM_XEON_HEADLINE,
	DM_HA("ha_requests_read_total", "read", "any", "ha_rd"),
	DM_HA("ha_requests_write_total", "write", "any", "ha_wr"),
	DM_CSTATE("pcu_core_c3_cycles_total", "core_c3", "core_c3"),
	DM_CSTATE("pcu_core_c6_cycles_total", "core_c6", "core_c6"),
	DM_CSTATE("pcu_package_c3_cycles_total", "package_c3", "pkg_c3"),
	DM_CSTATE("pcu_package_c2_cycles_total", "package_c2", "pkg_c2"),
	DM_CSTATE("pcu_package_c6_cycles_total", "package_c6", "pkg_c6"),
	DM_CSTATE("pcu_package_c7_cycles_total", "package_c7", "pkg_c7"),
	DM_BAND("pcu_frequency_band0_cycles_total", "0", "band0"),
	DM_BAND("pcu_frequency_band1_cycles_total", "1", "band1"),
	DM_BAND("pcu_frequency_band2_cycles_total", "2", "band2"),
	DM_BAND("pcu_frequency_band3_cycles_total", "3", "band3"),
	DM_FLIMITS,
};

const struct derived_table derived_snbep = {
	.src = snbep_src,
	.nsrc = sizeof(snbep_src) / sizeof(snbep_src[0]),
	.m = snbep_m,
	.nm = sizeof(snbep_m) / sizeof(snbep_m[0]),
};
