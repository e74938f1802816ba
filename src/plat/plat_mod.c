/*
 * plat_mod.c - the event modifiers' grammar (see plat_mod.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plat/plat.h"
#include "plat/plat_mod.h"

bool plat_parse_num(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10, d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0')
		return false;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* len decimal digits at s (at most 9): true and *out, or false. */
static bool mod_dec(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 9)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

int plat_take_modifier(const char *field, unsigned accept,
		       struct plat_mods *m, char *why, size_t whylen)
{
	if ((accept & PLAT_MOD_FILTER) && strncmp(field, "filter", 6) == 0 &&
	    field[6] >= '0' && field[6] <= '9' && strchr(field, '=')) {
		const char *eq = strchr(field, '=');
		uint64_t f, v;

		if (!mod_dec(field + 6, (size_t)(eq - field - 6), &f))
			return 0;	/* "filter1x=": not ours */
		if (f >= PLAT_MOD_FILTERS) {
			snprintf(why, whylen, "no unit has a filter%" PRIu64
				 " register (at most %d filters a unit)", f,
				 PLAT_MOD_FILTERS);
			return -EINVAL;
		}
		if (m->filt_set & (1u << f)) {
			snprintf(why, whylen, "filter%" PRIu64 " given twice", f);
			return -EINVAL;
		}
		if (!plat_parse_num(eq + 1, &v)) {
			snprintf(why, whylen, "bad filter%" PRIu64 " value \"%s\" "
				 "(expected 0x-prefixed hex or decimal, at most "
				 "64 bits)", f, eq + 1);
			return -EINVAL;
		}
		m->filt_set |= 1u << f;
		m->filt[f] = v;
		return 1;
	}
	if ((accept & PLAT_MOD_SPLIT) && strncmp(field, "split=", 6) == 0) {
		const char *kn = field + 6, *slash = strchr(kn, '/');
		uint64_t k, n;

		if (!slash || !mod_dec(kn, (size_t)(slash - kn), &k) ||
		    !mod_dec(slash + 1, strlen(slash + 1), &n) || n < 2 ||
		    n > PLAT_MAX_INST || k >= n || m->split_n) {
			snprintf(why, whylen, "bad split \"%s\" (K/N, 0 <= K < N "
				 "<= %d%s)", kn, PLAT_MAX_INST,
				 m->split_n ? ", given once" : "");
			return -EINVAL;
		}
		m->split_n = (uint8_t)n;
		m->split_k = (uint8_t)k;
		return 1;
	}
	if ((accept & PLAT_MOD_EXT) && strcmp(field, "ext") == 0) {
		if (m->ext) {
			snprintf(why, whylen, "ext given twice");
			return -EINVAL;
		}
		m->ext = true;
		return 1;
	}
	return 0;
}

int plat_parse_modifiers(const char *text, unsigned accept, char *rest,
			 size_t restlen, struct plat_mods *m, char *why,
			 size_t whylen)
{
	const char *f = text;
	size_t used = 0;

	memset(m, 0, sizeof(*m));
	if (restlen)
		rest[0] = '\0';
	/* every field up to the end, the one after a trailing ':' included */
	for (bool more = *f != '\0'; more; ) {
		const char *end = strchr(f, ':');
		size_t len = end ? (size_t)(end - f) : strlen(f);
		char field[128];
		int r;

		if (len >= sizeof(field)) {
			snprintf(why, whylen, "field \"%.*s...\" too long", 16, f);
			return -EINVAL;
		}
		if (!len) {
			/* "EV::x", "EV:": a name no catalog has, that
			 * would otherwise pass for a second EV */
			snprintf(why, whylen, "an empty field at byte %zu",
				 (size_t)(f - text));
			return -EINVAL;
		}
		memcpy(field, f, len);
		field[len] = '\0';
		f += len + (end != NULL);
		more = end != NULL;
		r = plat_take_modifier(field, accept, m, why, whylen);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (used + (used != 0) + len >= restlen) {
			snprintf(why, whylen, "event name too long");
			return -EINVAL;
		}
		used += (size_t)snprintf(rest + used, restlen - used, "%s%s",
					 used ? ":" : "", field);
	}
	return 0;
}
