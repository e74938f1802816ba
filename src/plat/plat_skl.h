/*
 * plat_skl.h - the 6th-generation Core client ("skl") platform: the parts
 * of its description that other modules and tests name directly.
 *
 * The platform itself is plat_skl (declared in plat.h); this header adds
 * its event catalog and the host-bridge constants its discovery uses.
 * Source: 6th Generation Intel Core Processor Family Uncore Performance
 * Monitoring Reference Manual, 334060-001 (April 2016).
 */
#ifndef UNCORED_PLAT_SKL_H
#define UNCORED_PLAT_SKL_H

#include <stddef.h>

#include "plat/plat.h"

/* Entries in skl_events: Table 3-1 (14) + Table 3-2 (6) + Table 3-3 (5).
 * A constant so that plat_skl can be initialised statically; events_skl.c
 * asserts that it matches the array. */
#define SKL_NEVENTS 25

/* The event catalog (events_skl.c), in manual order. */
extern const struct event skl_events[SKL_NEVENTS];
extern const size_t skl_nevents;

/*
 * MCHBAR, the base of the IMC free-running counters (section 3.3): a
 * 64-bit value in the host bridge's configuration space, bus 0 device 0
 * function 0, offset 48H.  Bit 0 enables the BAR; bits 38:15 are the base
 * (see doc/hardware-notes.md, "MCHBAR mask", for why the mask is
 * 0x7FFFFF8000 and not the clean copy's 0x0007FFFF8000).
 */
#define SKL_MCHBAR_PCI_OFF 0x48
#define SKL_MCHBAR_EN 0x1ull
#define SKL_MCHBAR_MASK 0x7fffff8000ull	/* bits 38:15 */

/*
 * Host bridges (PCI 0:0.0, vendor 8086) whose MCHBAR window holds the IMC
 * free-running counters of Table 3-3, 0-terminated (plat_skl.c cites the
 * source).  Discovery refuses any other host bridge.
 */
#define SKL_PCI_VENDOR_INTEL 0x8086
extern const uint16_t skl_host_bridges[];
bool skl_host_bridge_known(uint16_t device);

/* MSR_UNC_CBO_CONFIG (Table 2-1, 2-6): reads the CBo count plus one. */
#define SKL_MSR_CBO_CONFIG 0x396

#endif
