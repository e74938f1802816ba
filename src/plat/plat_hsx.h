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
 * (HASWELL_SERVER_SOCKETID_UBOX_DID has no value); 0x2F1E is DESIGN.md
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

#endif
