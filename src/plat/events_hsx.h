/*
 * events_hsx.h - the hsx (Xeon E5/E7 v3) uncore event catalog.
 *
 * GENERATED with events_hsx.c by contrib/hsx/extract_events.py; do
 * not edit.  hsx_events[] lists, in the manual's order, one entry per
 * event and unit mask of the event lists of sections 2.2 .. 2.11,
 * then the fixed and free-running counters (ctr_mask 0, EVF_FIXED /
 * EVF_FREERUN, units ubox_fixed, imc_fixed, pcu_cstate, qpi_link).
 */
#ifndef UNCORED_EVENTS_HSX_H
#define UNCORED_EVENTS_HSX_H

#include <stddef.h>

#include "plat/plat.h"

/* Entries per unit (events in the manual's list / catalog entries):
 *   ubox      3 events,    3 entries
 *   cbo      28 events,  144 entries
 *   sbox     14 events,   60 entries
 *   ha       50 events,  189 entries
 *   imc      43 events,  324 entries
 *   irp      22 events,   56 entries
 *   pcu      59 events,   61 entries
 *   qpi      52 events,  118 entries
 *   r2pcie   13 events,   45 entries
 *   r3qpi    28 events,  137 entries
 *   fixed and free-running counters: 9
 * A constant so that a platform can be initialised statically;
 * events_hsx.c asserts that it matches the array. */
#define HSX_NEVENTS 1146

extern const struct event hsx_events[HSX_NEVENTS];
extern const size_t hsx_nevents;

#endif
