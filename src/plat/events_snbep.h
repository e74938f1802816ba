/*
 * events_snbep.h - the snbep (Xeon E5-2600/4600 v1) uncore event
 * catalog.
 *
 * GENERATED with events_snbep.c by contrib/snbep/extract_events.py;
 * do not edit.  snbep_events[] lists, box by box in the data's order,
 * one entry per event of Intel's Jaketown uncore event data that
 * applies, then the fixed and free-running counters (ctr_mask 0,
 * EVF_FIXED / EVF_FREERUN, units ubox_fixed, imc_fixed, pcu_cstate).
 */
#ifndef UNCORED_EVENTS_SNBEP_H
#define UNCORED_EVENTS_SNBEP_H

#include <stddef.h>

#include "plat/plat.h"

/* Entries per unit (the data has 540 events; the IRP's are left out):
 *   ubox      23 entries
 *   cbo       97 entries
 *   ha       109 entries
 *   imc       50 entries
 *   pcu       39 entries
 *   qpi       84 entries
 *   r2pcie    36 entries
 *   r3qpi     63 entries
 *   fixed and free-running counters: 8
 * A constant so that a platform can be initialised statically;
 * events_snbep.c asserts that it matches the array. */
#define SNBEP_NEVENTS 509

extern const struct event snbep_events[SNBEP_NEVENTS];
extern const size_t snbep_nevents;

#endif
