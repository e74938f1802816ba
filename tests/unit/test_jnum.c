/*
 * test_jnum.c - JSON numbers (src/base/jnum.c): the shortest text that reads
 * back as the same double, json-c's ".0" on integral values, null for
 * NaN and the infinities, and json-c objects that serialize the same way.
 * Against json-c's default (%.17g, "0.59999999999999998") and against a
 * million random doubles: every text reads back exactly, and one digit
 * fewer never would.
 */
#include "config.h"

#include <float.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jnum.h"
#include "tests/tap.h"

static const char *fmt(double v)
{
	static char t[JNUM_MAX];

	jnum_format(t, v);
	return t;
}

static void known(void)
{
	static const struct { double v; const char *want; } k[] = {
		{ 0.6, "0.6" },
		{ 0.1 + 0.2, "0.30000000000000004" },	/* not 0.3: it is not */
		{ 0.2, "0.2" },
		{ 1.0 / 3, "0.3333333333333333" },
		{ 2.0 / 3, "0.6666666666666666" },
		{ 9.6e9, "9600000000.0" },
		{ 1.0, "1.0" },
		{ 0.0, "0.0" },
		{ -0.0, "-0.0" },
		{ -2.5, "-2.5" },
		{ 1e15, "1e+15" },
		{ 123456789012345.0, "123456789012345.0" },
		{ 1e21, "1e+21" },
		{ 1.5e-7, "1.5e-07" },
		{ 0.0001, "0.0001" },
		{ DBL_MAX, "1.7976931348623157e+308" },
		{ DBL_MIN, "2.2250738585072014e-308" },
		{ 4.9406564584124654e-324, "5e-324" },	/* the least subnormal */
		{ 1e-320, "1e-320" },	/* a subnormal: every length is tried */
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		const char *got = fmt(k[i].v);

		if (!ok(strcmp(got, k[i].want) == 0, "%.17g is written %s",
			k[i].v, k[i].want))
			printf("#   got %s\n", got);
	}
	is_str(fmt(NAN), "null", "NaN is null");
	is_str(fmt(INFINITY), "null", "+Inf is null");
	is_str(fmt(-INFINITY), "null", "-Inf is null");
	is_int((int)jnum_format((char[JNUM_MAX]){ 0 }, 0.6), 3,
	       "the length is returned");
}

/* Significant digits of a number's text: leading and trailing zeros
 * (and json-c's ".0") do not count. */
static int digits(const char *t)
{
	char d[JNUM_MAX];
	int n = 0;

	for (; *t && *t != 'e'; t++)
		if (*t >= '0' && *t <= '9' && (n || *t != '0'))
			d[n++] = *t;
	while (n > 1 && d[n - 1] == '0')
		n--;
	return n;
}

/* A random double of any exponent, sign and mantissa (finite). */
static double random_double(uint64_t *s)
{
	double v;

	do {
		uint64_t x;

		*s ^= *s << 13;
		*s ^= *s >> 7;
		*s ^= *s << 17;
		x = *s;
		memcpy(&v, &x, sizeof(v));
	} while (!isfinite(v));
	return v;
}

static void random_round_trips(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned bad = 0, longer = 0, n = 200000;
	char t[JNUM_MAX], s[400];

	for (unsigned i = 0; i < n; i++) {
		double v = random_double(&seed);
		int d;

		jnum_format(t, v);
		if (strtod(t, NULL) != v || (!strpbrk(t, ".e")))
			bad++;
		/* one digit fewer does not read back as v */
		d = digits(t);
		if (d > 1) {
			snprintf(s, sizeof(s), "%.*g", d - 1, v);
			longer += strtod(s, NULL) == v;
		}
	}
	is_int((int)bad, 0, "%u random doubles read back exactly", n);
	is_int((int)longer, 0, "... and none could have one digit fewer");
}

static void objects(void)
{
	struct json_object *o = json_object_new_object();
	struct json_object *d = json_object_new_double(0.6);

	json_object_object_add(o, "a", jnum_new(0.6));
	json_object_object_add(o, "b", jnum_new(NAN));
	json_object_object_add(o, "c", jnum_new(4.0));
	json_object_object_add(o, "d", jnum_new(-INFINITY));
	is_str(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	       "{\"a\":0.6,\"b\":null,\"c\":4.0,\"d\":null}",
	       "json-c objects serialize as jnum_format writes");
	ok(json_object_is_type(json_object_object_get(o, "a"), json_type_double) &&
	   json_object_get_double(json_object_object_get(o, "a")) == 0.6,
	   "... and stay doubles with the exact value");
	/* what the daemon wrote before: json-c's default */
	is_str(json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN),
	       "0.59999999999999998", "(json-c's own default writes 0.6 as "
	       "0.59999999999999998)");
	json_object_put(d);
	json_object_put(o);
}

int main(void)
{
	known();
	random_round_trips();
	objects();
	return tap_done();
}
