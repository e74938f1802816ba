/*
 * prom.h - streaming writer for the Prometheus exposition formats.
 *
 * One writer emits either the Prometheus text format 0.0.4 or OpenMetrics
 * 1.0.0 text into a struct buf, family by family: prom_family() writes the
 * metadata lines, prom_sample_*() / prom_histogram() the samples of that
 * family, prom_end() closes the exposition.  Callers name every family
 * the way it is seen in the 0.0.4 format (counters end in "_total", info
 * metrics in "_info"); the writer derives the OpenMetrics family name.
 *
 * The writer never emits an invalid line: bad metric or label names, label
 * values or HELP text that are not UTF-8, unsorted histogram buckets or a
 * second family of the same name are refused with -EINVAL and nothing is
 * written for them.  Errors are also remembered, and prom_end() returns
 * the first one, so a renderer may ignore the per-call results and check
 * once at the end (as with buf's oom).
 *
 * Number formats:
 *  - uint64 values are written exactly, in decimal.
 *  - doubles are written in the shortest form that reads back to the same
 *    double (at most 17 significant digits), laid out as Go's %g does
 *    (exponent form below 1e-4 and from 1e+06 up), with ".0" added when
 *    the result would look like an integer.  This is the "canonical
 *    number" form OpenMetrics asks for in "le" labels ("1.0", "0.25",
 *    "1e+06"); it is used for all doubles, in both formats, so that le
 *    label values are the same whichever format Prometheus negotiates.
 *  - NaN, +Inf and -Inf are written "NaN", "+Inf", "-Inf"; -0 as "0.0".
 * Formatting assumes LC_NUMERIC is "C" (the daemon never calls setlocale).
 */
#ifndef UNCORED_PROM_H
#define UNCORED_PROM_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"

enum prom_fmt {
	PROM_TEXT_004,		/* text/plain; version=0.0.4 */
	PROM_OPENMETRICS_100,	/* application/openmetrics-text; version=1.0.0 */
};

#define PROM_CTYPE_TEXT_004 "text/plain; version=0.0.4; charset=utf-8"
#define PROM_CTYPE_OPENMETRICS_100 \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

enum prom_type {
	PROM_COUNTER,	/* name ends in "_total"; samples: NULL, "_created" */
	PROM_GAUGE,	/* samples: NULL */
	PROM_HISTOGRAM,	/* samples: "_bucket", "_sum", "_count", "_created" */
	PROM_INFO,	/* name ends in "_info"; 0.0.4: a gauge of that name */
	PROM_UNTYPED,	/* 0.0.4 "untyped", OpenMetrics "unknown" */
	PROM_SUMMARY,	/* without quantiles; samples: "_sum", "_count",
			   "_created" (prom_sample_*() with the suffix) */
};

/* Longest metric name accepted, suffixes included. */
#define PROM_NAME_MAX 200

/* Families whose names are remembered to refuse duplicates. */
#define PROM_SEEN_SLOTS 1024

struct prom {
	struct buf *b;		/* output, borrowed */
	enum prom_fmt fmt;
	enum prom_type type;	/* of the current family */
	bool in_family;		/* a family was started and accepted */
	int err;		/* first error, 0 if none */
	size_t namelen;		/* strlen(name) */
	size_t baselen;		/* OpenMetrics family name = name[0..baselen) */
	char name[PROM_NAME_MAX + 1];	/* current family as given */
	unsigned nseen;
	uint64_t seen[PROM_SEEN_SLOTS];	/* hashes of family names, 0 = free */
};

/* Starts an exposition in fmt, appending to b (which it does not reset). */
void prom_begin(struct prom *w, struct buf *b, enum prom_fmt fmt);

/*
 * Starts a family and writes its metadata: 0.0.4 "# HELP" and "# TYPE";
 * OpenMetrics "# TYPE", "# UNIT" (when unit is non-NULL) and "# HELP".
 *   name  the 0.0.4 name: counters must end in "_total" and info metrics
 *         in "_info" (OpenMetrics metadata uses the name without it);
 *         [a-zA-Z_:][a-zA-Z0-9_:]*, at most PROM_NAME_MAX - 8 bytes.
 *   unit  a base unit ("seconds", "bytes") that the family name (without
 *         _total) must end in after an underscore; "" for none; NULL for
 *         the unit the name ends in, if it is a known one (seconds,
 *         bytes, bytes_per_second, hertz, ratio, joules, volts, amperes,
 *         celsius, meters, grams), so that every family with a unit
 *         gets its "# UNIT" line.  Info families take no unit.
 *   help  non-empty UTF-8; backslash and newline are escaped (and the
 *         double quote too in OpenMetrics).  Borrowed for the call only.
 * Returns 0; -EINVAL for a bad argument or a family already written in
 * this exposition (then samples are refused until the next good family);
 * -ENOMEM when the buffer is out of memory.
 */
int prom_family(struct prom *w, const char *name, enum prom_type type,
		const char *unit, const char *help);

/*
 * Writes one sample of the current family.
 *   suffix  NULL for the family's own sample (counters: name_total), or a
 *           suffix the type allows (see enum prom_type).  "_created" is
 *           OpenMetrics-only: in 0.0.4 it is skipped and 0 returned.
 *   labels  NULL, or a NULL-terminated array of name/value pairs,
 *           {"socket", "0", "unit", "cbo", NULL}.  Names match
 *           [a-zA-Z_][a-zA-Z0-9_]*, do not start with "__" and appear once;
 *           values are UTF-8 and escaped (\\, \", \n) on output.
 * A counter's value (suffix NULL) must not be negative or NaN.
 * Returns 0, -EINVAL (nothing written) or -ENOMEM.
 */
int prom_sample_u64(struct prom *w, const char *suffix,
		    const char *const *labels, uint64_t v);
int prom_sample_f64(struct prom *w, const char *suffix,
		    const char *const *labels, double v);

/*
 * Writes one histogram of the current (PROM_HISTOGRAM) family: a _bucket
 * sample per bound with le="bound", then le="+Inf" (= count), _sum and
 * _count.  bounds: nbounds finite upper bounds, strictly ascending (+Inf
 * is implied and must not be listed); cumulative: the count of
 * observations <= each bound, non-decreasing and <= count.  labels as for
 * prom_sample_*(), without "le".  Returns 0, -EINVAL (nothing written) or
 * -ENOMEM.
 */
int prom_histogram(struct prom *w, const char *const *labels,
		   const double *bounds, const uint64_t *cumulative,
		   unsigned nbounds, double sum, uint64_t count);

/*
 * Ends the exposition (OpenMetrics: writes "# EOF").  Returns the first
 * error of the whole exposition: 0, -EINVAL (some family or sample was
 * refused; the output is still valid without it) or -ENOMEM (the buffer
 * is incomplete and must not be sent).
 */
int prom_end(struct prom *w);

/*
 * Picks the format for an HTTP Accept header (NULL or empty: 0.0.4).
 * OpenMetrics 1.0.0 is chosen when application/openmetrics-text, with
 * any version or none, has a q-value > 0 and at least as high as the
 * best of text/plain and the wildcards (text/ANY, ANY/ANY): a version we
 * do not serve (0.0.1, 2.0.0) falls back to 1.0.0, as the OpenMetrics
 * spec's "Protocol Negotiation" says.  Anything else, including
 * unparsable headers, gets 0.0.4: the daemon never answers 406.  *ctype (if ctype is non-NULL) is set to the
 * Content-Type to send, a static string.
 */
enum prom_fmt prom_negotiate(const char *accept, const char **ctype);

/* The Content-Type of a format, a static string. */
const char *prom_content_type(enum prom_fmt fmt);

/*
 * Formats a double as described above into out (at least PROM_F64_MAX
 * bytes, NUL-terminated).  Returns the length.
 */
#define PROM_F64_MAX 32
size_t prom_format_f64(char *out, double v);

#endif
