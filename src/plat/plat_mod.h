/*
 * plat_mod.h - the event modifiers' grammar, in one place.
 *
 * An event is written as its name or raw encoding followed by
 * ':'-separated fields.  Some fields are the encoding's own (a raw
 * encoding's thresh=N, edge, inv: plat_parse_raw()); the others are
 * modifiers, parsed here for the daemon (sched.c: claims, baseline) and
 * the simulator's workload keys (sim_workload.c) alike:
 *
 *   filterN=V   the value the unit's box filter register N
 *               (unit_type.filters[N]) must hold while the event counts
 *               (N decimal, < PLAT_MOD_FILTERS; V 0x-prefixed hex or
 *               decimal, 64 bits)
 *   split=K/N   count only on instances i with i % N == K
 *               (0 <= K < N, 2 <= N <= PLAT_MAX_INST)
 *   ext         the unit's event-select extension bit (workload keys;
 *               catalog events carry it themselves)
 *
 * Whether a unit has the filter or extension bit named is the caller's
 * check: it knows the unit.
 */
#ifndef UNCORED_PLAT_MOD_H
#define UNCORED_PLAT_MOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plat/plat.h"

/* Filter registers a modifier can name: filter0 .. filter{N-1}, as many
 * as a unit can have. */
#define PLAT_MOD_FILTERS PLAT_MAX_FILTERS

/* Which modifiers a caller accepts. */
#define PLAT_MOD_FILTER	0x1u
#define PLAT_MOD_SPLIT	0x2u
#define PLAT_MOD_EXT	0x4u

struct plat_mods {
	uint32_t filt_set;	/* bit f: filter f given */
	uint64_t filt[PLAT_MOD_FILTERS];
	uint8_t split_n, split_k;	/* 0: every instance */
	bool ext;
};

/*
 * A strict unsigned number: "0x"/"0X" and 1+ hex digits, or 1+ decimal
 * digits, nothing else (no sign, space or suffix), at most 64 bits.
 * true and *out, or false.  Raw encodings' fields use it too.
 */
bool plat_parse_num(const char *s, uint64_t *out);

/*
 * Takes one field (no ':') into *m if it is a modifier of a kind in
 * accept.  Returns 1 if it was, 0 if it is not a modifier of those kinds
 * (the event's own field, for the caller), or -EINVAL with the reason in
 * why (a malformed value, or a modifier given twice; the message names
 * the field, not the event: callers prefix their context).
 */
int plat_take_modifier(const char *field, unsigned accept,
		       struct plat_mods *m, char *why, size_t whylen);

/*
 * Splits text ("EVENT[:field...]") into its modifiers of the kinds in
 * accept, into *m (cleared first), and the rest, written to rest (the
 * other fields joined by ':' in their order).  Returns 0, or -EINVAL
 * with why as plat_take_modifier() sets it, for an empty field ("EV::x",
 * ":EV" or a trailing ':': its byte offset in text), or when
 * rest does not fit.
 */
int plat_parse_modifiers(const char *text, unsigned accept, char *rest,
			 size_t restlen, struct plat_mods *m, char *why,
			 size_t whylen);

#endif
