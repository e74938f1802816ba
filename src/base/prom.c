/*
 * prom.c - Prometheus text 0.0.4 / OpenMetrics 1.0.0 writer (see prom.h).
 *
 * Everything a line needs is validated before the first byte of it is
 * written, so a refused family or sample leaves no trace in the output:
 * one bad label value must not make Prometheus reject the whole scrape
 * (OpenMetrics: "Partial or invalid expositions MUST be considered
 * erroneous in their entirety").
 *
 * Escaping (0.0.4 "Text format details"; OpenMetrics 1.0 ABNF):
 *   label values, both formats:  \ -> \\   " -> \"   LF -> \n
 *   HELP, 0.0.4:                 \ -> \\   LF -> \n  (a \" is an error
 *                                to the 0.0.4 parser, so quotes stay raw)
 *   HELP, OpenMetrics:           as label values (escaped-string)
 *   other C0 controls and DEL, both: U+FFFD (no escape exists for them)
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prom.h"

/* ---- errors --------------------------------------------------------------- */

static int fail(struct prom *w, int rc)
{
	if (!w->err)
		w->err = rc;
	return rc;
}

/* -ENOMEM if the buffer ran out of memory while writing, else 0. */
static int check_oom(struct prom *w)
{
	return w->b->oom ? fail(w, -ENOMEM) : 0;
}

/* ---- validation ----------------------------------------------------------- */

static bool is_alpha_(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* */
static bool valid_metric_name(const char *s)
{
	if (!is_alpha_(*s) && *s != ':')
		return false;
	for (s++; *s; s++)
		if (!is_alpha_(*s) && !is_digit(*s) && *s != ':')
			return false;
	return true;
}

/* [a-zA-Z_][a-zA-Z0-9_]*, and not "__..." (reserved for Prometheus). */
static bool valid_label_name(const char *s)
{
	if (!is_alpha_(*s) || (s[0] == '_' && s[1] == '_'))
		return false;
	for (s++; *s; s++)
		if (!is_alpha_(*s) && !is_digit(*s))
			return false;
	return true;
}

/*
 * Well-formed UTF-8: no overlong forms, no surrogates (OpenMetrics'
 * normal-char excludes D800-DFFF), nothing above U+10FFFF.
 */
static bool valid_utf8(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		unsigned c = *s, n, cp, min;

		if (c < 0x80) {
			s++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1; cp = c & 0x1f; min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2; cp = c & 0x0f; min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3; cp = c & 0x07; min = 0x10000;
		} else {
			return false;
		}
		for (unsigned i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;	/* also catches the NUL */
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		s += n + 1;
	}
	return true;
}

static bool ends_with(const char *s, size_t len, const char *suf)
{
	size_t n = strlen(suf);

	return len > n && memcmp(s + len - n, suf, n) == 0;
}

/*
 * labels: NULL or name/value pairs ending in NULL.  no_le refuses "le"
 * (prom_histogram adds its own).
 */
static int check_labels(const char *const *labels, bool no_le)
{
	if (!labels)
		return 0;
	for (size_t i = 0; labels[i]; i += 2) {
		if (!labels[i + 1] || !valid_label_name(labels[i]) ||
		    !valid_utf8(labels[i + 1]))
			return -EINVAL;
		if (no_le && strcmp(labels[i], "le") == 0)
			return -EINVAL;
		for (size_t j = 0; j < i; j += 2)
			if (strcmp(labels[i], labels[j]) == 0)
				return -EINVAL;
	}
	return 0;
}

/* ---- output helpers ------------------------------------------------------- */

/*
 * Writes s with \ " LF escaped; quotes only when esc_quote.  The other
 * control characters (C0, DEL), which neither format can escape and
 * which reached a terminal or a log raw (a cgroup named with ESC,
 * issue 39 §6), are written as U+FFFD.
 */
static void put_escaped(struct buf *b, const char *s, bool esc_quote)
{
	const char *run = s;

	for (; *s; s++) {
		const char *rep;

		if (*s == '\\')
			rep = "\\\\";
		else if (*s == '\n')
			rep = "\\n";
		else if (*s == '"' && esc_quote)
			rep = "\\\"";
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			rep = "\xef\xbf\xbd";	/* U+FFFD */
		else
			continue;
		buf_put(b, run, (size_t)(s - run));
		buf_puts(b, rep);
		run = s + 1;
	}
	buf_put(b, run, (size_t)(s - run));
}

static void put_u64(struct buf *b, uint64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf_put(b, tmp + i, sizeof(tmp) - i);
}

/* {name="value",...[,le="le"]}, or nothing when there are no labels. */
static void put_labels(struct buf *b, const char *const *labels,
		       const char *le)
{
	bool first = true;

	if ((!labels || !labels[0]) && !le)
		return;
	buf_putc(b, '{');
	for (size_t i = 0; labels && labels[i]; i += 2) {
		if (!first)
			buf_putc(b, ',');
		first = false;
		buf_puts(b, labels[i]);
		buf_put(b, "=\"", 2);
		put_escaped(b, labels[i + 1], true);
		buf_putc(b, '"');
	}
	if (le) {
		if (!first)
			buf_putc(b, ',');
		buf_put(b, "le=\"", 4);
		buf_puts(b, le);
		buf_putc(b, '"');
	}
	buf_putc(b, '}');
}

/* ---- numbers -------------------------------------------------------------- */

size_t prom_format_f64(char *out, double v)
{
	char tmp[40], digits[24], *o = out;
	const char *p;
	int prec, nd = 0, exp10;

	if (isnan(v))
		return (size_t)sprintf(out, "NaN");
	if (isinf(v))
		return (size_t)sprintf(out, v > 0 ? "+Inf" : "-Inf");
	if (v == 0)
		v = 0.0;	/* -0 is written as 0.0 */

	/*
	 * Shortest round trip.  If some decimal of <= 15 significant digits
	 * reads back as v, then v rounded to 15 digits is that decimal
	 * padded with zeros (a double's half-spacing, < 1.2e-16 relative, is
	 * far below 15-digit spacing), so it is enough to try 15 and 16
	 * digits and strip zeros; 17 digits always round-trip.  Subnormals
	 * have fewer bits, so that argument fails: they try every length.
	 */
	for (prec = fabs(v) < DBL_MIN ? 0 : 14; prec < 16; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	if (prec == 16)
		snprintf(tmp, sizeof(tmp), "%.16e", v);

	/* tmp is [-]d.ddd...e[+-]dd: collect the digits and the exponent. */
	p = tmp;
	if (*p == '-') {
		*o++ = '-';
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (is_digit(*p))
			digits[nd++] = *p;
	exp10 = *p == 'e' ? atoi(p + 1) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;

	/* Laid out as Go's strconv 'g' with shortest precision does. */
	if (exp10 < -4 || exp10 >= 6) {
		*o++ = digits[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, digits + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		o += sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	} else if (exp10 < 0) {
		*o++ = '0';
		*o++ = '.';
		for (int i = -1; i > exp10; i--)
			*o++ = '0';
		memcpy(o, digits, (size_t)nd);
		o += nd;
	} else {
		for (int i = 0; i <= exp10; i++)
			*o++ = i < nd ? digits[i] : '0';
		*o++ = '.';
		if (nd > exp10 + 1) {
			memcpy(o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
			o += nd - exp10 - 1;
		} else {
			*o++ = '0';	/* "1.0": a float, not an integer */
		}
	}
	*o = '\0';
	return (size_t)(o - out);
}

static void put_f64(struct buf *b, double v)
{
	char tmp[PROM_F64_MAX];

	buf_put(b, tmp, prom_format_f64(tmp, v));
}

/* ---- families ------------------------------------------------------------- */

void prom_begin(struct prom *w, struct buf *b, enum prom_fmt fmt)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	w->fmt = fmt;
}

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

/*
 * Remembers a family name; false if it was seen before.  Past 3/4 of the
 * table, new names are no longer remembered (and not checked).
 */
static bool remember_family(struct prom *w, const char *name, size_t n)
{
	uint64_t h = name_hash(name, n);
	size_t i = (size_t)(h % PROM_SEEN_SLOTS);

	while (w->seen[i]) {
		if (w->seen[i] == h)
			return false;
		i = (i + 1) % PROM_SEEN_SLOTS;
	}
	if (w->nseen < PROM_SEEN_SLOTS / 4 * 3) {
		w->seen[i] = h;
		w->nseen++;
	}
	return true;
}

static const char *type_name(enum prom_fmt fmt, enum prom_type t)
{
	switch (t) {
	case PROM_COUNTER: return "counter";
	case PROM_GAUGE: return "gauge";
	case PROM_HISTOGRAM: return "histogram";
	case PROM_SUMMARY: return "summary";
	case PROM_INFO: return fmt == PROM_OPENMETRICS_100 ? "info" : "gauge";
	case PROM_UNTYPED:
		return fmt == PROM_OPENMETRICS_100 ? "unknown" : "untyped";
	}
	return NULL;
}

/*
 * Units a family name may end in (OpenMetrics 1.0 "Units and Base Units":
 * seconds, bytes, joules, grams, meters, ratios, volts, amperes, celsius;
 * plus hertz and bytes_per_second, which the daemon's names use).
 */
static const char *const known_units[] = {
	"bytes_per_second", "seconds", "bytes", "hertz", "ratio", "joules",
	"volts", "amperes", "celsius", "meters", "grams", NULL,
};

/* The known unit the family name (first baselen bytes) ends in, or NULL. */
static const char *unit_of(const char *name, size_t baselen)
{
	for (const char *const *u = known_units; *u; u++) {
		size_t ul = strlen(*u);

		if (ul + 1 < baselen && name[baselen - ul - 1] == '_' &&
		    memcmp(name + baselen - ul, *u, ul) == 0)
			return *u;
	}
	return NULL;
}

int prom_family(struct prom *w, const char *name, enum prom_type type,
		const char *unit, const char *help)
{
	struct buf *b = w->b;
	size_t len, baselen;
	const char *tname;

	w->in_family = false;
	if (!name || !help || !*help || !valid_utf8(help))
		return fail(w, -EINVAL);
	len = strlen(name);
	tname = type_name(w->fmt, type);
	if (!tname || len > PROM_NAME_MAX - 8 || !valid_metric_name(name))
		return fail(w, -EINVAL);

	baselen = len;
	if (type == PROM_COUNTER) {
		if (!ends_with(name, len, "_total"))
			return fail(w, -EINVAL);
		baselen -= 6;
	} else if (type == PROM_INFO) {
		if (!ends_with(name, len, "_info"))
			return fail(w, -EINVAL);
		baselen -= 5;
	}
	/* Info families have no unit (the Python client's OpenMetrics
	   parser refuses one). */
	if (type == PROM_INFO && unit && *unit)
		return fail(w, -EINVAL);
	if (!unit && type != PROM_INFO)
		unit = unit_of(name, baselen);
	if (unit && *unit) {
		size_t ul = strlen(unit);

		/* OpenMetrics: the family name ends in "_" unit. */
		if (!valid_metric_name(unit) || ul + 1 >= baselen ||
		    memcmp(name + baselen - ul, unit, ul) != 0 ||
		    name[baselen - ul - 1] != '_')
			return fail(w, -EINVAL);
	} else {
		unit = NULL;
	}
	/* Keyed by the OpenMetrics name: foo_total and foo collide there. */
	if (!remember_family(w, name, baselen))
		return fail(w, -EINVAL);

	memcpy(w->name, name, len + 1);
	w->namelen = len;
	w->baselen = baselen;
	w->type = type;

	if (w->fmt == PROM_OPENMETRICS_100) {
		/* Recommended order: TYPE, UNIT, HELP. */
		buf_put(b, "# TYPE ", 7);
		buf_put(b, name, baselen);
		buf_putc(b, ' ');
		buf_puts(b, tname);
		if (unit) {
			buf_put(b, "\n# UNIT ", 8);
			buf_put(b, name, baselen);
			buf_putc(b, ' ');
			buf_puts(b, unit);
		}
		buf_put(b, "\n# HELP ", 8);
		buf_put(b, name, baselen);
		buf_putc(b, ' ');
		put_escaped(b, help, true);
		buf_putc(b, '\n');
	} else {
		buf_put(b, "# HELP ", 7);
		buf_put(b, name, len);
		buf_putc(b, ' ');
		put_escaped(b, help, false);
		buf_put(b, "\n# TYPE ", 8);
		buf_put(b, name, len);
		buf_putc(b, ' ');
		buf_puts(b, tname);
		buf_putc(b, '\n');
	}
	if (check_oom(w) < 0)
		return -ENOMEM;
	w->in_family = true;
	return 0;
}

/* ---- samples -------------------------------------------------------------- */

static bool suffix_allowed(enum prom_type t, const char *suffix)
{
	if (!suffix)
		return t != PROM_HISTOGRAM && t != PROM_SUMMARY;
	switch (t) {
	case PROM_COUNTER:
		return strcmp(suffix, "_created") == 0;
	case PROM_SUMMARY:	/* no quantiles: _sum and _count only */
		return strcmp(suffix, "_sum") == 0 ||
		       strcmp(suffix, "_count") == 0 ||
		       strcmp(suffix, "_created") == 0;
	case PROM_HISTOGRAM:
		return strcmp(suffix, "_bucket") == 0 ||
		       strcmp(suffix, "_sum") == 0 ||
		       strcmp(suffix, "_count") == 0 ||
		       strcmp(suffix, "_created") == 0;
	default:
		return false;
	}
}

/*
 * Validates a sample and writes everything up to the value's space.
 * Returns 1 when the sample is to be written, 0 when it is to be skipped
 * silently (_created in 0.0.4), or -EINVAL.
 */
static int sample_head(struct prom *w, const char *suffix,
		       const char *const *labels, bool value_ok)
{
	struct buf *b = w->b;

	if (!w->in_family || !suffix_allowed(w->type, suffix) ||
	    check_labels(labels, false) < 0 || (!suffix && !value_ok))
		return fail(w, -EINVAL);
	if (suffix && w->fmt == PROM_TEXT_004 &&
	    strcmp(suffix, "_created") == 0)
		return 0;
	if (suffix) {
		buf_put(b, w->name, w->baselen);
		buf_puts(b, suffix);
	} else {
		buf_put(b, w->name, w->namelen);
	}
	put_labels(b, labels, NULL);
	buf_putc(b, ' ');
	return 1;
}

int prom_sample_u64(struct prom *w, const char *suffix,
		    const char *const *labels, uint64_t v)
{
	int rc = sample_head(w, suffix, labels, true);

	if (rc <= 0)
		return rc;
	put_u64(w->b, v);
	buf_putc(w->b, '\n');
	return check_oom(w);
}

int prom_sample_f64(struct prom *w, const char *suffix,
		    const char *const *labels, double v)
{
	/* A counter's total is never NaN or negative (OpenMetrics). */
	bool ok = w->type != PROM_COUNTER || v >= 0;
	int rc = sample_head(w, suffix, labels, ok);

	if (rc <= 0)
		return rc;
	put_f64(w->b, v);
	buf_putc(w->b, '\n');
	return check_oom(w);
}

int prom_histogram(struct prom *w, const char *const *labels,
		   const double *bounds, const uint64_t *cumulative,
		   unsigned nbounds, double sum, uint64_t count)
{
	struct buf *b = w->b;
	char le[PROM_F64_MAX];

	if (!w->in_family || w->type != PROM_HISTOGRAM ||
	    check_labels(labels, true) < 0 ||
	    (nbounds && (!bounds || !cumulative)))
		return fail(w, -EINVAL);
	for (unsigned i = 0; i < nbounds; i++) {
		if (!isfinite(bounds[i]) || cumulative[i] > count ||
		    (i && (!(bounds[i] > bounds[i - 1]) ||
			   cumulative[i] < cumulative[i - 1])))
			return fail(w, -EINVAL);
	}

	for (unsigned i = 0; i < nbounds; i++) {
		prom_format_f64(le, bounds[i]);
		buf_put(b, w->name, w->baselen);
		buf_put(b, "_bucket", 7);
		put_labels(b, labels, le);
		buf_putc(b, ' ');
		put_u64(b, cumulative[i]);
		buf_putc(b, '\n');
	}
	buf_put(b, w->name, w->baselen);
	buf_put(b, "_bucket", 7);
	put_labels(b, labels, "+Inf");
	buf_putc(b, ' ');
	put_u64(b, count);
	buf_putc(b, '\n');

	buf_put(b, w->name, w->baselen);
	buf_put(b, "_sum", 4);
	put_labels(b, labels, NULL);
	buf_putc(b, ' ');
	put_f64(b, sum);
	buf_putc(b, '\n');

	buf_put(b, w->name, w->baselen);
	buf_put(b, "_count", 6);
	put_labels(b, labels, NULL);
	buf_putc(b, ' ');
	put_u64(b, count);
	buf_putc(b, '\n');
	return check_oom(w);
}

int prom_end(struct prom *w)
{
	w->in_family = false;
	if (w->fmt == PROM_OPENMETRICS_100)
		buf_put(w->b, "# EOF\n", 6);
	if (w->b->oom)
		return -ENOMEM;
	return w->err;
}

/* ---- content negotiation -------------------------------------------------- */

const char *prom_content_type(enum prom_fmt fmt)
{
	return fmt == PROM_OPENMETRICS_100 ? PROM_CTYPE_OPENMETRICS_100
					   : PROM_CTYPE_TEXT_004;
}

/* RFC 9110 tchar. */
static bool is_tchar(int c)
{
	return is_alpha_(c) || is_digit(c) ||
	       (c && strchr("!#$%&'*+-.^`|~", c) != NULL);
}

static const char *skip_ows(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Token at *p: returns its length (0 if none) and advances *p. */
static size_t take_token(const char **p)
{
	const char *s = *p;

	while (is_tchar(**p))
		(*p)++;
	return (size_t)(*p - s);
}

/*
 * Parameter value at *p, a token or a quoted-string.  Sets *v, *vlen to
 * the contents (inside the quotes, escapes left as they are).  Returns
 * false if malformed.
 */
static bool take_value(const char **p, const char **v, size_t *vlen)
{
	const char *s = *p;

	if (*s != '"') {
		*v = s;
		*vlen = take_token(p);
		return *vlen > 0;
	}
	for (s++; *s && *s != '"'; s++)
		if (*s == '\\' && s[1])
			s++;
	if (*s != '"')
		return false;
	*v = *p + 1;
	*vlen = (size_t)(s - *v);
	*p = s + 1;
	return true;
}

/* RFC 9110 qvalue, in thousandths; -1 if malformed. */
static int parse_qvalue(const char *s, size_t n)
{
	int q, scale = 100;

	if (n == 0 || (s[0] != '0' && s[0] != '1'))
		return -1;
	q = (s[0] - '0') * 1000;
	if (n == 1)
		return q;
	if (s[1] != '.' || n > 5)
		return -1;
	for (size_t i = 2; i < n; i++, scale /= 10) {
		if (!is_digit(s[i]))
			return -1;
		q += (s[i] - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

static bool span_is(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/* Skips to just past the next ',' outside quotes (or to the end). */
static const char *skip_element(const char *p)
{
	bool quoted = false;

	for (; *p; p++) {
		if (quoted && *p == '\\' && p[1])
			p++;
		else if (*p == '"')
			quoted = !quoted;
		else if (*p == ',' && !quoted)
			return p + 1;
	}
	return p;
}

enum prom_fmt prom_negotiate(const char *accept, const char **ctype)
{
	int q_om = 0, q_text = 0;
	const char *p = accept ? accept : "";
	enum prom_fmt fmt;

	while (*p) {
		const char *type, *sub;
		size_t tlen, slen;
		int q = 1000;
		bool ok = true;

		p = skip_ows(p);
		if (*p == ',') {		/* empty list element */
			p++;
			continue;
		}
		type = p;
		tlen = take_token(&p);
		if (!tlen || *p != '/') {
			p = skip_element(p);
			continue;
		}
		p++;
		sub = p;
		slen = take_token(&p);
		if (!slen)
			ok = false;
		while (ok) {
			const char *pn, *pv;
			size_t pnlen, pvlen;

			p = skip_ows(p);
			if (*p != ';')
				break;
			p = skip_ows(p + 1);
			pn = p;
			pnlen = take_token(&p);
			if (!pnlen || *p != '=') {
				ok = false;
				break;
			}
			p++;
			if (!take_value(&p, &pv, &pvlen)) {
				ok = false;
				break;
			}
			if (span_is(pn, pnlen, "q")) {
				q = parse_qvalue(pv, pvlen);
				ok = q >= 0;
			}
		}
		if (ok && *p && *p != ',')
			ok = false;
		p = skip_element(p);
		if (!ok)
			continue;

		if (span_is(type, tlen, "application") &&
		    span_is(sub, slen, "openmetrics-text")) {
			/* Any version: OpenMetrics 1.0 "Protocol Negotiation"
			   says HTTP negotiation "MUST default to the oldest
			   version of the standard (i.e. 1.0.0) if no newer
			   version is requested", so 0.0.1 (what Prometheus
			   offers second) gets 1.0.0; a newer one we do not
			   serve gets 1.0.0 too, which every OpenMetrics
			   ingestor must read, and the Content-Type says so. */
			if (q > q_om)
				q_om = q;
		} else if ((span_is(type, tlen, "text") &&
			    (span_is(sub, slen, "plain") ||
			     span_is(sub, slen, "*"))) ||
			   (span_is(type, tlen, "*") && span_is(sub, slen, "*"))) {
			if (q > q_text)
				q_text = q;
		}
	}
	fmt = q_om > 0 && q_om >= q_text ? PROM_OPENMETRICS_100
					 : PROM_TEXT_004;
	if (ctype)
		*ctype = prom_content_type(fmt);
	return fmt;
}
