/*
 * plat_hsx.h - the Xeon E5/E7 v3 ("hsx", Haswell-EP/EX) platform: the
 * parts of its description that discovery, the simulator and the tests
 * name directly.
 *
 * The platform itself is plat_hsx (declared in plat.h) and its catalog
 * hsx_events (events_hsx.h).  Source: Intel Xeon Processor E5 and E7 v3
 * Family Uncore Performance Monitoring Reference Manual, 331051-002 (June
 * 2015); decisions where it is silent or contradicts itself are in
 * doc/hardware-notes.md, section "Xeon E5/E7 v3".
 */
#ifndef UNCORED_PLAT_HSX_H
#define UNCORED_PLAT_HSX_H

#include <stdint.h>

#include "plat/plat.h"

/* A PCI function as a unit instance base: (device << 3) | function. */
#define HSX_DEVFN(d, f) ((uint32_t)(((d) << 3) | (f)))

#define HSX_PCI_VENDOR_INTEL 0x8086

/*
 * Manual 1.6.1: each package's uncore PCI bus holds the UBox "socket ID"
 * device.  Its device ID is not printed in the manual's listing
 * (HASWELL_SERVER_SOCKETID_UBOX_DID has no value); 0x2F1E is doc/design.md
 * section 2's, the Linux kernel's (snbep_pci2phy_map_init(0x2f1e, ...) for
 * HSWEP) and the real part's.  CPUNODEID at 0x40 (bits 2:0: the local
 * node ID), GIDNIDMAP at 0x54 (3 bits per package: bits 3p+2:3p hold the
 * node ID of package p).
 */
#define HSX_UBOX_DID 0x2F1E
#define HSX_UBOX_CPUNODEID 0x40
#define HSX_UBOX_GIDNIDMAP 0x54

/* Table 2-1: the UBox global registers (MSRs). */
#define HSX_MSR_GLOBAL_CTL 0x700
#define HSX_MSR_GLOBAL_STATUS 0x701
#define HSX_MSR_GLOBAL_CONFIG 0x702
#define HSX_GLOBAL_FRZ_ALL (1u << 31)	/* Table 2-2, WO */
#define HSX_GLOBAL_UNFRZ_ALL (1u << 29)	/* Table 2-2, WO */
#define HSX_GLOBAL_CONFIG_NUM_C 0x1Fu	/* Table 2-4: CBo count, 4:0 */

/* Table 1-1: at most 18 CBos per socket. */
#define HSX_MAX_CBO 18

/* Table 2-167 / 2-177: QPI_RATE_STATUS in the QPI "Misc" function (D8:F0
 * for ports 0 and 1, D10:F0 for port 2), bits 2:0. */
#define HSX_QPI_RATE_STATUS 0xD4

/*
 * Manual 1.6.1: the package whose GIDNIDMAP triplet equals the node ID in
 * CPUNODEID.  The first matching triplet wins (unused triplets may repeat
 * a node ID).  Returns the package (0..7), or -1 if no triplet matches.
 * The manual's listing compares unshifted triplets ("(mapping &
 * 0x00000038) == gid"), which only works for package 0; the triplets are
 * compared shifted down here (doc/hardware-notes.md, "Bus to socket").
 */
int hsx_node_to_package(uint32_t cpunodeid, uint32_t gidnidmap);

/*
 * Headline metrics (doc/design.md section 7; manual 2.3.5 and 2.6.6): LLC
 * lookups and misses are LLC_LOOKUP.ANY with CBo FILTER0.state 0x3F and
 * 0x01 (state bit 0 = I, the miss; 2.3.6 LLC_LOOKUP: 1 = S, 2 = E, 3 = M,
 * 4 = F; 2.3.5 uses 0x3F for "any"), DRAM bytes CAS_COUNT.RD / .WR x 64
 * summed over every channel, the UCLK fixed counter.  The two LLC
 * quantities need different FILTER0 values, given as event modifiers.
 */
/*
 * The two LLC quantities are LLC_LOOKUP.ANY with different FILTER0.state
 * values; one box filter cannot hold both, so the even CBos count lookups
 * (state 0x3F) and the odd ones misses (state 0x01), each scaled by
 * CBos/counting CBos (doc/design.md section 7 allows "splitting the CBos
 * between the two and scaling").  FILTER0.state is bits 23:17 (Table
 * 2-18): 0x3F << 17 = 0x7E0000, 0x01 << 17 = 0x20000.  The simulator's
 * built-in workload reads the filter values from these strings too.
 */
#define HSX_LLC_LOOKUPS "UNC_C_LLC_LOOKUP.ANY:filter0=0x7e0000:split=0/2"
#define HSX_LLC_MISSES "UNC_C_LLC_LOOKUP.ANY:filter0=0x20000:split=1/2"
/*
 * Frequency-band cycles (2.8.5): the PCU filter holds four band
 * thresholds in 100 MHz units, bits 7:0, 15:8, 23:16, 31:24 (Table
 * 2-160); the baseline uses 1.2, 2.0, 2.8 and 3.6 GHz.  All four band
 * events need the same filter value, so they count together.
 */
#define HSX_BAND(n) "UNC_P_FREQ_BAND" #n "_CYCLES:filter0=0x241c140c"


/*
 * Memory read latency (manual 2.3.5 AVG_TOR_DRD_MISS_LATENCY,
 * _LOC_/_REM_): TOR_OCCUPANCY (0x36, counter 0 only, Table 2-41 note) and
 * TOR_INSERTS (0x35) of demand data reads that missed the LLC, opcode
 * filter Cn_MSR_PMON_BOX_FILTER1.opc = 0x182 (DRd, Table 2-20) in bits
 * 28:20 (Table 2-19): 0x182 << 20 = 0x18200000.  "all" is the MISS_OPCODE
 * umask 0x03; local / remote the MISS_LOCAL_OPCODE 0x23 and
 * MISS_REMOTE_OPCODE 0x83 umasks (Table 2-40/2-41), under the same
 * FILTER1 value, so every target can share the box filter
 * (doc/hardware-notes.md "Memory read latency": why not the nid field).
 */
#define HSX_DRD_FILTER1 ":filter1=0x18200000"
#define HSX_LAT_OCC(sub) "UNC_C_TOR_OCCUPANCY." sub HSX_DRD_FILTER1
#define HSX_LAT_INS(sub) "UNC_C_TOR_INSERTS." sub HSX_DRD_FILTER1

#endif
