/*
 * jnum.h - numbers in the daemon's JSON.
 *
 * A double is written as the shortest decimal that reads back as the same
 * double (0.6, not json-c's default %.17g 0.59999999999999998), the way
 * Prometheus' Go exposition writes it; integral values keep json-c's
 * ".0" (1.0), so a client parsing with json-c still gets a double.  JSON
 * has no NaN or infinity: those are null, which is how the daemon's JSON
 * says "no value for this interval".  Both the json-c trees (jnum_new)
 * and the streamed /api/v1/samples (jnum_format) write numbers through
 * here, so the two are byte for byte alike.
 */
#ifndef UNCORED_JNUM_H
#define UNCORED_JNUM_H

#include <stddef.h>

struct json_object;

/* Enough for any double's text and its NUL ("-2.2250738585072014e-308"). */
#define JNUM_MAX 32

/*
 * Writes v as JSON into out (JNUM_MAX bytes, NUL-terminated): the
 * shortest of %.15g, %.16g and %.17g that strtod() reads back as v (every
 * length from 1 for subnormals), with ".0" added when that has neither a
 * point nor an exponent; "null" when v is NaN or infinite.  Returns the
 * length written.
 */
size_t jnum_format(char *out, double v);

/*
 * A json-c double that serializes as jnum_format() writes it, or NULL
 * (JSON null once added to an object or array) when v is not finite.
 * The caller owns the object (json_object_put(), or the object or array
 * it is added to); NULL also when out of memory.
 */
struct json_object *jnum_new(double v);

#endif
