/*
 * kpmu.h - the kernel perf PMU facts of the seed platforms' units (skl,
 * hsx, snbep): which PMU under /sys/bus/event_source/devices each unit
 * is, and what the kernel writes into its format/ and events/ (struct
 * perf_unit, plat.h).  Data only, one file per platform
 * (kpmu_skl.c, kpmu_hsx.c, kpmu_snbep.c), each entry citing the kernel
 * file and the struct that defines it; doc/hardware-notes.md ("PMU
 * names and formats per platform") has the same facts for readers.
 * The perf-only Intel platforms (skx, icx, spr) keep theirs beside their
 * unit tables in plat_<id>.c; the AMD ones (zen3, zen4, zen5) share
 * kpmu_amd.c, as they share the kernel's one AMD uncore driver.
 */
#ifndef UNCORED_PLAT_KPMU_H
#define UNCORED_PLAT_KPMU_H

#include "plat/plat.h"

/* skl: arch/x86/events/intel/uncore_snb.c */
extern const struct perf_unit skl_kpmu_cbo, skl_kpmu_arb, skl_kpmu_fixed,
	skl_kpmu_imc;

/* hsx: arch/x86/events/intel/uncore_snbep.c (hswep_*), cstate.c */
extern const struct perf_unit hsx_kpmu_ubox, hsx_kpmu_ubox_fixed,
	hsx_kpmu_cbo, hsx_kpmu_sbox, hsx_kpmu_ha, hsx_kpmu_imc,
	hsx_kpmu_imc_fixed, hsx_kpmu_irp, hsx_kpmu_pcu,
	hsx_kpmu_qpi, hsx_kpmu_r2pcie, hsx_kpmu_r3qpi;

/* snbep: arch/x86/events/intel/uncore_snbep.c (snbep_*), cstate.c */
extern const struct perf_unit snbep_kpmu_ubox, snbep_kpmu_ubox_fixed,
	snbep_kpmu_cbo, snbep_kpmu_ha, snbep_kpmu_imc, snbep_kpmu_imc_fixed,
	snbep_kpmu_pcu, snbep_kpmu_qpi,
	snbep_kpmu_r2pcie, snbep_kpmu_r3qpi;

/* AMD: arch/x86/events/amd/uncore.c (kpmu_amd.c): amd_l3 with the
 * family >= 19h fields, amd_df with and without PerfMonV2, amd_umc_N */
extern const struct perf_unit amd_kpmu_l3_f19h, amd_kpmu_df_v2,
	amd_kpmu_df_v1, amd_kpmu_umc;
/* The DF's counter count as the kernel reads it (CPUID 0x80000022 EBX
 * NumDfPmc under PerfMonV2, else 4): struct unit_type.nctr_cpuid. */
extern const struct nctr_cpuid amd_df_nctr;

/* Shared by every platform: the cstate PMUs' one format field
 * (cstate.c cstate_format_attrs, "config:0-63"). */
extern const struct perf_fact kpmu_cstate_format[];
/* Shared by hsx and snbep as the kernel shares them (kpmu_hsx.c): the
 * PCU's C-state residencies (cstate.c snb_cstates, cstate_pkg with
 * cstate_core) and the QPI format (snbep_uncore_qpi_formats_attr). */
extern const struct perf_unit kpmu_snb_cstate_pkg;
extern const struct perf_fact kpmu_snbep_qpi_format[];

#endif
