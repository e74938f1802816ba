/*
 * jnum.c - the shortest round-trip text of a JSON number (see jnum.h).
 *
 * If a decimal of at most 15 significant digits reads back as v, then v
 * printed with %.15g is that decimal (padded with zeros, which %g
 * strips): a double's half-spacing, under 1.2e-16 relative, is far below
 * the spacing of 15-digit decimals.  So trying 15, then 16, then 17
 * digits finds the shortest, and 17 always reads back.  Subnormals have
 * fewer bits, so that argument fails for them: they try every length.
 */
#include "config.h"

#include <float.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jnum.h"

size_t jnum_format(char *out, double v)
{
	int prec, n = 0;

	if (!isfinite(v)) {
		memcpy(out, "null", 5);
		return 4;
	}
	for (prec = v != 0 && fabs(v) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
		n = snprintf(out, JNUM_MAX, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			break;
	}
	/* json-c's mark of a double: 1.0, not 1 */
	if (!strpbrk(out, ".e")) {
		memcpy(out + n, ".0", 3);
		n += 2;
	}
	return (size_t)n;
}

struct json_object *jnum_new(double v)
{
	char t[JNUM_MAX];

	if (!isfinite(v))
		return NULL;
	jnum_format(t, v);
	return json_object_new_double_s(v, t);
}
