/*
 * plat_snbep.h - the Xeon E5-2600/4600 v1 ("snbep", Sandy Bridge-EP,
 * "Jaketown") platform: the parts of its description that discovery, the
 * simulator and the tests name directly.
 *
 * The platform itself is plat_snbep (declared in plat.h) and its catalog
 * snbep_events (events_snbep.h).  Sources: the UBox pages of 327043-001
 * (the E5-2600 v1 uncore guide (327043-001)), public copies of its
 * other pages, the Linux kernel's uncore_snbep.c and likwid's PCI device
 * table, each cited in doc/hardware-notes.md, section "Xeon
 * E5-2600/4600 v1 (snbep)".
 */
#ifndef UNCORED_PLAT_SNBEP_H
#define UNCORED_PLAT_SNBEP_H

#include <stdint.h>

#include "plat/plat.h"

/* A PCI function as a unit instance base: (device << 3) | function. */
#define SNBEP_DEVFN(d, f) ((uint32_t)(((d) << 3) | (f)))

#define SNBEP_PCI_VENDOR_INTEL 0x8086

/*
 * The UBox device that marks each package's uncore bus (kernel
 * snbep_uncore_pci_init: snbep_pci2phy_map_init(0x3ce0, SNBEP_CPUNODEID,
 * SNBEP_GIDNIDMAP, true)): CPUNODEID at 0x40 (node ID, bits 2:0),
 * GIDNIDMAP at 0x54 (3 bits per package), the offsets hsx uses too.
 */
#define SNBEP_UBOX_DID 0x3CE0
#define SNBEP_UBOX_CPUNODEID 0x40
#define SNBEP_UBOX_GIDNIDMAP 0x54

/* Box control bits (327043 Tables 2-9, 2-60, 2-74, 2-85; kernel
 * SNBEP_PMON_BOX_CTL_*): all write-only. */
#define SNBEP_BOX_RST_CTRL (1u << 0)
#define SNBEP_BOX_RST_CTRS (1u << 1)
#define SNBEP_BOX_FRZ (1u << 8)
#define SNBEP_BOX_FRZ_EN (1u << 16)

/* Kernel snbep_uncore_cbox: 8 CBos at most, one per core. */
#define SNBEP_MAX_CBO 8

/*
 * Headline metrics (doc/design.md section 7; the table is derived_snbep.c),
 * the families hsx has:
 *  - LLC lookups and misses: LLC_LOOKUP.DATA_READ (0x34/0x03; the data has
 *    no ANY sub-event, notes "What the catalog offers") with the box
 *    filter's state field 22:18 = every state (0x1F << 18 = 0x7C0000)
 *    and I only (1 << 18 = 0x40000).  One filter cannot hold both: the
 *    even CBos count lookups and the odd ones misses, each scaled by
 *    CBos / counting CBos, as hsx (notes "LLC lookups and misses: one
 *    FILTER0, two states").
 *  - DRAM bytes: CAS_COUNT.RD / .WR x 64, over every channel;
 *  - uncore clock: the UBox fixed counter;
 *  - QPI: TxL_FLITS_G0.DATA / .NON_DATA x 8 bytes per flit (L0), per port;
 *  - HA requests: READS and WRITES (no local/remote split in the data);
 *  - PCU: the core C3/C6 residency counters, and the four frequency
 *    bands with hsx's thresholds (1.2, 2.0, 2.8, 3.6 GHz in 100 MHz units
 *    in the four bytes of the band filter).
 */
#define SNBEP_LLC_LOOKUPS "UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x7c0000:split=0/2"
#define SNBEP_LLC_MISSES "UNC_C_LLC_LOOKUP.DATA_READ:filter0=0x40000:split=1/2"
#define SNBEP_BAND(n) "UNC_P_FREQ_BAND" #n "_CYCLES:filter0=0x241c140c"

#endif
