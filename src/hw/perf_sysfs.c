/*
 * perf_sysfs.c - the kernel's perf PMUs from sysfs: discovery, format/
 * fields, events/ aliases, term encoding and CPU topology.
 *
 * The grammar follows the kernel's ABI documents
 * (Documentation/ABI/testing/sysfs-bus-event_source-devices-format and
 * -events) and what the kernel's drivers actually write
 * (doc/hardware-notes.md, "perf sysfs interface").  Parsing is strict:
 * a file that does not fit the grammar is an error naming the file, never
 * a guess, since a misplaced bit would count the wrong event silently.
 * Only libc is used, so the parsers can be fuzzed alone
 * (tests/fuzz/fuzz_perf_format.c).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sfile.h"
#include "hw/perf_sysfs.h"

#define DEVICES "/bus/event_source/devices"
#define CPUDIR "/devices/system/cpu"
/* Files one format/ or events/ directory may hold: the biggest kernel
 * PMUs list a few hundred aliases. */
#define PFS_MAX_ENTRIES 4096
/* Terms one encoding may hold. */
#define PFS_MAX_TERMS 64
/* A term, field or alias name (a file name). */
#define PFS_NAME_MAX 255
/* An events/ALIAS.unit string. */
#define PFS_UNIT_MAX 64

static const char *const word_name[PFS_NWORDS] = {
	"config", "config1", "config2"
};

/* Sets why (control characters of the input it quotes shown as '?', so
 * a message stays one log line) and returns -err. */
__attribute__((format(printf, 4, 5)))
static int fail(int err, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
		for (char *c = why; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	return -err;
}

__attribute__((format(printf, 3, 4)))
static int path_fmt(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- numbers ------------------------------------------------------------ */

static int digit(char c, unsigned base)
{
	unsigned d;

	if (c >= '0' && c <= '9')
		d = (unsigned)(c - '0');
	else if (c >= 'a' && c <= 'f')
		d = (unsigned)(c - 'a') + 10;
	else if (c >= 'A' && c <= 'F')
		d = (unsigned)(c - 'A') + 10;
	else
		return -1;
	return d < base ? (int)d : -1;
}

/*
 * s[0..len): a number, "0x" hex or decimal (hex_only: "0x" hex only;
 * dec_only: decimal only), no sign, no blanks, no overflow.  Returns 0 or
 * -1.
 */
static int parse_num(const char *s, size_t len, int mode, uint64_t *v)
{
	unsigned base = 10;
	uint64_t r = 0;
	size_t i = 0;
	int d;

	if (mode != 10 && len > 2 && s[0] == '0' && (s[1] == 'x' ||
						     s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len || (mode == 16 && base != 16))
		return -1;
	for (; i < len; i++) {
		d = digit(s[i], base);
		if (d < 0 || r > (UINT64_MAX - (unsigned)d) / base)
			return -1;
		r = r * base + (unsigned)d;
	}
	*v = r;
	return 0;
}

/* A decimal number that is all of s. */
static int parse_dec(const char *s, uint64_t max, uint64_t *v)
{
	return parse_num(s, strlen(s), 10, v) || *v > max ? -1 : 0;
}

/* ---- files -------------------------------------------------------------- */

/*
 * Reads path into buf (PFS_FILE_MAX + 1 bytes), NUL-terminated, without
 * one trailing newline.  Opened with sfile_open: a FIFO, a device or a
 * symbolic link in a file's place is refused (-EINVAL, -ELOOP), never
 * waited on.  Returns 0, -EFBIG (longer than PFS_FILE_MAX), -EINVAL (a
 * NUL byte inside, or not a regular file) or the open/read -errno, with
 * why.
 */
static int read_file(const char *path, char *buf, char *why, size_t whylen)
{
	char msg[PATH_MAX + 128] = "";
	ssize_t len;

	len = sfile_read(AT_FDCWD, path, buf, PFS_FILE_MAX + 1, msg,
			 sizeof(msg));
	if (len < 0)
		return fail((int)-len, why, whylen, "%s", msg);
	if (memchr(buf, '\0', (size_t)len))
		return fail(EINVAL, why, whylen, "%s: holds a NUL byte", path);
	if (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return 0;
}

/* read_file(DIR/NAME). */
static int read_in(const char *dir, const char *name, char *buf, char *why,
		   size_t whylen)
{
	char path[PATH_MAX];

	if (path_fmt(path, sizeof(path), "%s/%s", dir, name))
		return fail(ENAMETOOLONG, why, whylen, "%s/%s: path too long",
			    dir, name);
	return read_file(path, buf, why, whylen);
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * The entries of dir not starting with '.', in strcmp order: *out (free
 * each and the array) and their count, or -errno with why.
 */
static int list_dir(const char *dir, struct dirent ***out, char *why,
		    size_t whylen)
{
	int n = scandir(dir, out, not_dot, name_cmp), err;

	if (n < 0) {
		err = errno;
		return fail(err, why, whylen, "%s: %s", dir, strerror(err));
	}
	if (n > PFS_MAX_ENTRIES) {
		for (int i = 0; i < n; i++)
			free((*out)[i]);
		free(*out);
		return fail(EFBIG, why, whylen, "%s: more than %d entries", dir,
			    PFS_MAX_ENTRIES);
	}
	return n;
}

static void free_list(struct dirent **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* ---- PMU names ---------------------------------------------------------- */

int pfs_list(const char *root, int (*cb)(void *ctx, const char *pmu),
	     void *ctx, char *why, size_t whylen)
{
	char dir[PATH_MAX];
	struct dirent **l;
	int n, r = 0;

	if (path_fmt(dir, sizeof(dir), "%s" DEVICES, root))
		return fail(ENAMETOOLONG, why, whylen, "%s: path too long",
			    root);
	n = list_dir(dir, &l, why, whylen);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !r; i++)
		r = cb(ctx, l[i]->d_name);
	free_list(l, n);
	return r;
}

int pfs_match(const char *pattern, const char *name, unsigned *box)
{
	const char *pc = strchr(pattern, '%');
	size_t pre, suf, nlen = strlen(name);
	uint64_t v;

	if (box)
		*box = 0;
	if (!pc)
		return strcmp(pattern, name) == 0;
	if (pc[1] != 'u' || strchr(pc + 2, '%'))
		return -EINVAL;
	pre = (size_t)(pc - pattern);
	suf = strlen(pc + 2);
	if (nlen <= pre + suf || strncmp(name, pattern, pre) != 0 ||
	    strcmp(name + nlen - suf, pc + 2) != 0)
		return 0;
	/* the box number: digits, no leading zero, fits unsigned */
	if ((name[pre] == '0' && nlen - suf - pre > 1) ||
	    parse_num(name + pre, nlen - suf - pre, 10, &v) || v > UINT_MAX)
		return 0;
	if (box)
		*box = (unsigned)v;
	return 1;
}

/* ---- cpulists ----------------------------------------------------------- */

void pfs_cpus_free(struct pfs_cpus *c)
{
	free(c->cpu);
	c->cpu = NULL;
	c->n = 0;
}

/* One "N" or "N-M" of a cpulist into the bitmap set. */
static int cpulist_item(const char *s, size_t len, uint8_t *set, char *why,
			size_t whylen)
{
	const char *dash = memchr(s, '-', len);
	uint64_t lo, hi;

	if (parse_num(s, dash ? (size_t)(dash - s) : len, 10, &lo) ||
	    (dash && parse_num(dash + 1, len - (size_t)(dash - s) - 1, 10,
			       &hi)))
		return fail(EINVAL, why, whylen, "\"%.*s\" is not a CPU number "
			    "or range N-M", (int)len, s);
	if (!dash)
		hi = lo;
	if (lo > hi)
		return fail(EINVAL, why, whylen, "range \"%.*s\" runs backwards",
			    (int)len, s);
	if (hi >= PFS_MAX_CPUS)
		return fail(ERANGE, why, whylen, "CPU %" PRIu64 " is beyond "
			    "the %u CPUs supported", hi, PFS_MAX_CPUS);
	for (uint64_t c = lo; c <= hi; c++)
		set[c / 8] |= (uint8_t)(1u << (c % 8));
	return 0;
}

/* The CPUs in set, ascending, into *out.  A word at a time, skipping
 * empty ones: a bit at a time over the PFS_MAX_CPUS possible CPUs, twice
 * for every CPU list parsed, was most of the perf backend's start-up. */
static int cpus_from_set(const uint8_t *set, struct pfs_cpus *out)
{
	unsigned n = 0, k = 0;

	out->cpu = NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < PFS_MAX_CPUS / 8; i += 8) {
			uint64_t w;

			memcpy(&w, set + i, sizeof(w));
			for (unsigned b = 0; w && b < 64; b++) {
				if (!((set[i + b / 8] >> (b % 8)) & 1))
					continue;
				if (pass)
					out->cpu[k++] = i * 8 + b;
				else
					n++;
			}
		}
		out->n = n;
		if (pass || !n)
			return 0;
		out->cpu = malloc(n * sizeof(*out->cpu));
		if (!out->cpu)
			return -ENOMEM;
	}
	return 0;
}

int pfs_cpulist_parse(const char *text, struct pfs_cpus *out, char *why,
		      size_t whylen)
{
	size_t len = strlen(text);
	const char *s = text, *end;
	uint8_t *set;
	int r = 0;

	if (len && text[len - 1] == '\n')
		len--;
	set = calloc(PFS_MAX_CPUS / 8, 1);
	if (!set)
		return fail(ENOMEM, why, whylen, "out of memory");
	while (len && !r) {
		end = memchr(s, ',', len);
		r = cpulist_item(s, end ? (size_t)(end - s) : len, set, why,
				 whylen);
		if (end && !r && (size_t)(end - s) + 1 == len)
			r = fail(EINVAL, why, whylen, "ends with a comma");
		len = end ? len - (size_t)(end - s) - 1 : 0;
		s = end ? end + 1 : s;
	}
	if (!r && cpus_from_set(set, out))
		r = fail(ENOMEM, why, whylen, "out of memory");
	free(set);
	return r;
}

/* ---- format fields ------------------------------------------------------ */

/* "LO-HI" or "BIT" of a format: its bits into *mask. */
static int format_range(const char *s, size_t len, uint64_t *mask,
			char *why, size_t whylen)
{
	const char *dash = memchr(s, '-', len);
	uint64_t lo, hi, m;

	if (parse_num(s, dash ? (size_t)(dash - s) : len, 10, &lo) ||
	    (dash && parse_num(dash + 1, len - (size_t)(dash - s) - 1, 10,
			       &hi)))
		return fail(EINVAL, why, whylen, "\"%.*s\" is not a bit number "
			    "or range LO-HI", (int)len, s);
	if (!dash)
		hi = lo;
	if (lo > hi || hi > 63)
		return fail(EINVAL, why, whylen, "bits \"%.*s\" are not a range "
			    "LO-HI with LO <= HI <= 63", (int)len, s);
	m = (hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
	if (*mask & m)
		return fail(EINVAL, why, whylen, "bits \"%.*s\" overlap an "
			    "earlier range", (int)len, s);
	*mask |= m;
	return 0;
}

/* The config word named s[0..len): 0..2, or -1. */
static int word_index(const char *s, size_t len)
{
	for (int i = 0; i < (int)PFS_NWORDS; i++)
		if (strlen(word_name[i]) == len && !memcmp(s, word_name[i], len))
			return i;
	return -1;
}

int pfs_format_parse(const char *text, struct pfs_format *f, char *why,
		     size_t whylen)
{
	const char *colon = strchr(text, ':'), *s, *end;
	size_t len = strlen(text);
	uint64_t mask = 0;
	int w, r;

	if (len && text[len - 1] == '\n')
		len--;
	if (!colon || (size_t)(colon - text) >= len)
		return fail(EINVAL, why, whylen, "\"%.*s\" is not WORD:BITS "
			    "(e.g. config:0-7)", (int)len, text);
	w = word_index(text, (size_t)(colon - text));
	if (w < 0)
		return fail(EINVAL, why, whylen, "\"%.*s\" is not a config word "
			    "this perf_event_attr has (config, config1, "
			    "config2)", (int)(colon - text), text);
	s = colon + 1;
	len -= (size_t)(s - text);
	do {
		end = memchr(s, ',', len);
		r = format_range(s, end ? (size_t)(end - s) : len, &mask, why,
				 whylen);
		if (r)
			return r;
		len = end ? len - (size_t)(end - s) - 1 : 0;
		s = end ? end + 1 : s;
	} while (end);
	f->word = (unsigned)w;
	f->mask = mask;
	f->width = (unsigned)__builtin_popcountll(mask);
	return 0;
}

int pfs_format_put(const struct pfs_format *f, uint64_t value,
		   uint64_t *word)
{
	uint64_t w = *word & ~f->mask, m = f->mask;

	if (f->width < 64 && value >> f->width)
		return -ERANGE;
	for (; m; m &= m - 1, value >>= 1)
		if (value & 1)
			w |= m & -m;
	*word = w;
	return 0;
}

uint64_t pfs_format_get(const struct pfs_format *f, uint64_t word)
{
	uint64_t v = 0, m = f->mask;
	unsigned i = 0;

	for (; m; m &= m - 1, i++)
		if (word & (m & -m))
			v |= 1ull << i;
	return v;
}

/* f's bits as "config:8-15,32-55" into buf. */
static const char *format_str(const struct pfs_format *f, char *buf,
			      size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s:", word_name[f->word]);
	const char *sep = "";

	for (unsigned b = 0; b < 64 && n < len; b++) {
		unsigned e = b;

		if (!((f->mask >> b) & 1))
			continue;
		while (e < 63 && ((f->mask >> (e + 1)) & 1))
			e++;
		n += (size_t)(e == b ? snprintf(buf + n, len - n, "%s%u", sep, b)
				     : snprintf(buf + n, len - n, "%s%u-%u",
						sep, b, e));
		sep = ",";
		b = e;
	}
	return buf;
}

/* ---- terms -------------------------------------------------------------- */

struct term {
	char name[PFS_NAME_MAX + 1];
	uint64_t value;		/* 1 for a bare term */
	bool param;		/* "name=?" */
	const char *text;	/* the term as written, text_len long */
	size_t text_len;
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

static const char *skip_blank(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* Trims blanks off the end of s[..*end). */
static void trim_end(const char *s, const char **end)
{
	while (*end > s && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
		(*end)--;
}

/* The value after '=' in v[..end): a number or '?'. */
static int term_value(struct term *t, const char *v, const char *end,
		      char *why, size_t whylen)
{
	v = skip_blank(v, end);
	if (end - v == 1 && *v == '?') {
		t->param = true;
		return 0;
	}
	if (v == end || parse_num(v, (size_t)(end - v), 0, &t->value))
		return fail(EINVAL, why, whylen, "term \"%.*s\": \"%.*s\" is not "
			    "a number (0x hex or decimal)", (int)t->text_len,
			    t->text, (int)(end - v), v);
	/* "0360": octal to strtoull(, 0), decimal here; the kernel writes
	 * neither (0x hex or plain decimal), so the file is wrong */
	if (end - v > 1 && v[0] == '0' && v[1] != 'x' && v[1] != 'X')
		return fail(EINVAL, why, whylen, "term \"%.*s\": \"%.*s\" has a "
			    "leading zero (octal or decimal?): the kernel writes "
			    "0x hex or decimal without one", (int)t->text_len,
			    t->text, (int)(end - v), v);
	return 0;
}

/* One term s[..end) ("name", "name=value", "name=?") into *t. */
static int term_parse(const char *s, const char *end, struct term *t,
		      char *why, size_t whylen)
{
	const char *n;
	size_t nlen;

	s = skip_blank(s, end);
	trim_end(s, &end);
	*t = (struct term){ .value = 1, .text = s,
			    .text_len = (size_t)(end - s) };
	for (n = s; n < end && name_char(*n); n++)
		;
	nlen = (size_t)(n - s);
	if (!nlen || nlen > PFS_NAME_MAX)
		return fail(EINVAL, why, whylen, "term \"%.*s\" has no name "
			    "(letters, digits, '_', '-', '.')", (int)(end - s),
			    s);
	memcpy(t->name, s, nlen);
	t->name[nlen] = '\0';
	n = skip_blank(n, end);
	if (n == end)
		return 0;
	if (*n != '=')
		return fail(EINVAL, why, whylen, "term \"%.*s\": expected '=' "
			    "after \"%s\"", (int)(end - s), s, t->name);
	return term_value(t, n + 1, end, why, whylen);
}

/*
 * Splits terms at ',' into t[0..PFS_MAX_TERMS).  Returns the count or
 * -EINVAL with why (empty term, too many, syntax).
 */
static int terms_split(const char *terms, struct term *t, char *why,
		       size_t whylen)
{
	const char *s = terms, *end;
	char msg[192];
	int n = 0, r;

	do {
		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		if (n == PFS_MAX_TERMS)
			return fail(EINVAL, why, whylen, "at byte %zu: more "
				    "than %d terms", (size_t)(s - terms),
				    PFS_MAX_TERMS);
		if (skip_blank(s, end) == end)
			return fail(EINVAL, why, whylen, "term %d at byte %zu: "
				    "an empty term in \"%s\"", n + 1,
				    (size_t)(s - terms), terms);
		r = term_parse(s, end, &t[n++], msg, sizeof(msg));
		if (r)
			return fail(-r, why, whylen, "term %d at byte %zu: %s",
				    n, (size_t)(skip_blank(s, end) - terms),
				    msg);
		s = end + 1;
	} while (*end);
	return n;
}

/* ---- lookups ------------------------------------------------------------ */

static int format_key(const void *key, const void *el)
{
	return strcmp(key, ((const struct pfs_format *)el)->name);
}

static int alias_key(const void *key, const void *el)
{
	return strcmp(key, ((const struct pfs_alias *)el)->name);
}

const struct pfs_format *pfs_field(const struct pfs_pmu *p, const char *name)
{
	if (!p->nformat)
		return NULL;
	return bsearch(name, p->format, p->nformat, sizeof(*p->format),
		       format_key);
}

const struct pfs_alias *pfs_alias(const struct pfs_pmu *p, const char *name)
{
	if (!p->nalias)
		return NULL;
	return bsearch(name, p->alias, p->nalias, sizeof(*p->alias),
		       alias_key);
}

/* ---- encoding ----------------------------------------------------------- */

/* "event, umask, ..." (p's fields) into buf, for an unknown term. */
static const char *field_names(const struct pfs_pmu *p, char *buf,
			       size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < p->nformat && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      p->format[i].name);
	if (!p->nformat)
		snprintf(buf, len, "none");
	return buf;
}

/* The field term t sets in p: its format field, or a whole config word
 * ("config", "config1", "config2": raw, as the perf tool allows) where
 * p has no field of that name. */
static int term_field(const struct pfs_pmu *p, const struct term *t,
		      struct pfs_format *f, char *why, size_t whylen)
{
	const struct pfs_format *pf = pfs_field(p, t->name);
	char names[256];
	int w;

	if (pf) {
		*f = *pf;
		return 0;
	}
	w = word_index(t->name, strlen(t->name));
	if (w >= 0) {
		*f = (struct pfs_format){ .name = NULL, .word = (unsigned)w,
					  .mask = ~0ull, .width = 64 };
		return 0;
	}
	if (pfs_alias(p, t->name))
		return fail(ENOENT, why, whylen, "term \"%s\" names an event "
			    "alias of PMU %s, not a format field: encode the "
			    "alias's terms instead", t->name, p->name);
	return fail(ENOENT, why, whylen, "PMU %s has no format field \"%s\" "
		    "(its fields: %s)", p->name, t->name,
		    field_names(p, names, sizeof(names)));
}

/* Places term t (the i-th of ts) into cfg, used recording set bits. */
static int term_place(const struct pfs_pmu *p, const struct term *ts,
		      int i, uint64_t cfg[3], uint64_t used[3], char *why,
		      size_t whylen)
{
	const struct term *t = &ts[i];
	struct pfs_format f = { 0 };
	char bits[160];
	int r;

	for (int k = 0; k < i; k++)
		if (!strcmp(ts[k].name, t->name))
			return fail(EINVAL, why, whylen, "term \"%s\" is given "
				    "twice (PMU %s)", t->name, p->name);
	if (t->param)
		return fail(EINVAL, why, whylen, "term \"%s=?\" of PMU %s is a "
			    "parameter: give it a value", t->name, p->name);
	r = term_field(p, t, &f, why, whylen);
	if (r)
		return r;
	if (f.mask & used[f.word])
		return fail(EINVAL, why, whylen, "term \"%s\" sets %s bits an "
			    "earlier term set (PMU %s)", t->name,
			    format_str(&f, bits, sizeof(bits)), p->name);
	if (pfs_format_put(&f, t->value, &cfg[f.word]))
		return fail(ERANGE, why, whylen, "term \"%.*s\": 0x%" PRIx64
			    " does not fit the %u-bit field %s of PMU %s "
			    "(max 0x%" PRIx64 ")", (int)t->text_len, t->text,
			    t->value, f.width, format_str(&f, bits, sizeof(bits)),
			    p->name, (uint64_t)((1ull << f.width) - 1));
	used[f.word] |= f.mask;
	return 0;
}

int pfs_encode(const struct pfs_pmu *p, const char *terms, uint64_t cfg[3],
	       char *why, size_t whylen)
{
	struct term *t = malloc(PFS_MAX_TERMS * sizeof(*t));
	uint64_t c[3] = { 0 }, used[3] = { 0 };
	int n, r = 0;

	if (!t)
		return fail(ENOMEM, why, whylen, "out of memory");
	n = terms_split(terms, t, why, whylen);
	if (n < 0) {
		free(t);
		return n;
	}
	for (int i = 0; i < n && !r; i++)
		r = term_place(p, t, i, c, used, why, whylen);
	free(t);
	if (!r)
		memcpy(cfg, c, sizeof(c));
	return r;
}

int pfs_set(const struct pfs_pmu *p, const char *field, uint64_t value,
	    uint64_t cfg[3], char *why, size_t whylen)
{
	const struct pfs_format *f = pfs_field(p, field);
	char bits[160];

	if (!f)
		return fail(ENOENT, why, whylen, "PMU %s has no format field "
			    "\"%s\"", p->name, field);
	if (pfs_format_put(f, value, &cfg[f->word]))
		return fail(ERANGE, why, whylen, "0x%" PRIx64 " does not fit "
			    "the %u-bit field %s (%s) of PMU %s", value,
			    f->width, field, format_str(f, bits, sizeof(bits)),
			    p->name);
	return 0;
}

/* ---- loading a PMU ------------------------------------------------------ */

void pfs_pmu_free(struct pfs_pmu *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->nformat; i++)
		free(p->format[i].name);
	for (unsigned i = 0; i < p->nalias; i++) {
		free(p->alias[i].name);
		free(p->alias[i].terms);
		free(p->alias[i].unit);
		free(p->alias[i].scale_text);
	}
	free(p->format);
	free(p->alias);
	pfs_cpus_free(&p->cpus);
	free(p->name);
	free(p->dir);
	free(p);
}

/* DIR/type: a decimal uint32. */
static int load_type(struct pfs_pmu *p, char *buf, char *why, size_t whylen)
{
	uint64_t v;
	int r = read_in(p->dir, "type", buf, why, whylen);

	if (r == -ENOENT)
		return fail(EINVAL, why, whylen, "%s/type: missing (every perf "
			    "PMU has one)", p->dir);
	if (r)
		return r;
	if (parse_dec(buf, UINT32_MAX, &v))
		return fail(EINVAL, why, whylen, "%s/type: \"%.40s\" is not a "
			    "perf type number", p->dir, buf);
	p->type = (uint32_t)v;
	return 0;
}

/* DIR/cpumask, else DIR/cpus; neither: any CPU. */
static int load_cpus(struct pfs_pmu *p, char *buf, char *why, size_t whylen)
{
	static const char *const files[] = { "cpumask", "cpus" };
	char msg[160];
	int r;

	for (unsigned i = 0; i < 2; i++) {
		r = read_in(p->dir, files[i], buf, why, whylen);
		if (r == -ENOENT)
			continue;
		if (r)
			return r;
		r = pfs_cpulist_parse(buf, &p->cpus, msg, sizeof(msg));
		if (r)
			return fail(-r, why, whylen, "%s/%s: %s", p->dir,
				    files[i], msg);
		p->cpus_file = files[i];
		return 0;
	}
	return 0;
}

/* One format/NAME file into p->format[p->nformat++]. */
static int load_field(struct pfs_pmu *p, const char *dir, const char *name,
		      char *buf, char *why, size_t whylen)
{
	struct pfs_format *f = &p->format[p->nformat];
	char msg[192];
	int r = read_in(dir, name, buf, why, whylen);

	if (r)
		return r;
	r = pfs_format_parse(buf, f, msg, sizeof(msg));
	if (r)
		return fail(-r, why, whylen, "%s/%s: %s", dir, name, msg);
	f->name = strdup(name);
	if (!f->name)
		return fail(ENOMEM, why, whylen, "out of memory");
	p->nformat++;
	return 0;
}

/* Lists the sub-directory sub of p's directory (its path into dir,
 * PATH_MAX bytes) into *l: the number of entries, 0 (and no list) when
 * it is empty or absent, or -errno with why. */
static int list_sub(const struct pfs_pmu *p, const char *sub, char *dir,
		    struct dirent ***l, char *why, size_t whylen)
{
	int n;

	if (path_fmt(dir, PATH_MAX, "%s/%s", p->dir, sub))
		return fail(ENAMETOOLONG, why, whylen, "%s: path too long",
			    p->dir);
	n = list_dir(dir, l, why, whylen);
	if (n == 0)
		free(*l);
	return n == -ENOENT ? 0 : n;
}

static int load_formats(struct pfs_pmu *p, char *buf, char *why,
			size_t whylen)
{
	char dir[PATH_MAX];
	struct dirent **l;
	int n, r = 0;

	n = list_sub(p, "format", dir, &l, why, whylen);
	if (n <= 0)
		return n;	/* none (also no directory), or -errno */
	p->format = calloc((size_t)n + 1, sizeof(*p->format));
	if (!p->format)
		r = fail(ENOMEM, why, whylen, "out of memory");
	for (int i = 0; i < n && !r; i++)
		r = load_field(p, dir, l[i]->d_name, buf, why, whylen);
	free_list(l, n);
	return r;
}

/* The suffix of an events/ file that is not an alias: ".scale", ".unit",
 * ".per-pkg", ".snapshot" (the last two only the perf tool uses). */
static const char *attr_suffix(const char *name)
{
	static const char *const sfx[] = { ".scale", ".unit", ".per-pkg",
					   ".snapshot" };
	size_t len = strlen(name);

	for (unsigned i = 0; i < 4; i++) {
		size_t sl = strlen(sfx[i]);

		if (len > sl && !strcmp(name + len - sl, sfx[i]))
			return sfx[i];
	}
	return NULL;
}

/* events/NAME, an alias: its terms, checked for syntax. */
static int load_alias(struct pfs_pmu *p, const char *dir, const char *name,
		      char *buf, char *why, size_t whylen)
{
	struct pfs_alias *a = &p->alias[p->nalias];
	struct term *t;
	char msg[192];
	int r = read_in(dir, name, buf, why, whylen);

	if (r)
		return r;
	t = malloc(PFS_MAX_TERMS * sizeof(*t));
	if (!t)
		return fail(ENOMEM, why, whylen, "out of memory");
	r = terms_split(buf, t, msg, sizeof(msg));
	free(t);
	if (r < 0)
		return fail(-r, why, whylen, "%s/%s: %s", dir, name, msg);
	*a = (struct pfs_alias){ .name = strdup(name), .terms = strdup(buf),
				 .scale = 1.0, .unit = strdup(""),
				 .scale_text = strdup("") };
	p->nalias++;
	if (!a->name || !a->terms || !a->unit || !a->scale_text)
		return fail(ENOMEM, why, whylen, "out of memory");
	return 0;
}

/* ALIAS.scale's text: a finite number > 0 in C-locale notation. */
static int parse_scale(const char *s, double *v)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	char *end;

	if (!c)
		return -ENOMEM;
	errno = 0;
	*v = strtod_l(s, &end, c);
	freelocale(c);
	if (end == s || *end || errno || !isfinite(*v) || *v <= 0 ||
	    *s == ' ' || *s == '\t' || *s == '\n')
		return -EINVAL;
	return 0;
}

static int set_unit(struct pfs_alias *a, const char *s, const char *path,
		    char *why, size_t whylen)
{
	size_t len = strlen(s);

	if (!len || len > PFS_UNIT_MAX)
		return fail(EINVAL, why, whylen, "%s: a unit of 1 to %d "
			    "characters expected, not %zu", path, PFS_UNIT_MAX,
			    len);
	for (size_t i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return fail(EINVAL, why, whylen, "%s: unit holds the "
				    "non-printable byte 0x%02x", path,
				    (unsigned char)s[i]);
	free(a->unit);
	a->unit = strdup(s);
	return a->unit ? 0 : fail(ENOMEM, why, whylen, "out of memory");
}

/* events/ALIAS.scale or .unit: onto its alias, which must exist. */
static int load_attr(struct pfs_pmu *p, const char *dir, const char *name,
		     const char *sfx, char *buf, char *why, size_t whylen)
{
	char alias[PFS_NAME_MAX + 1], path[PATH_MAX];
	size_t alen = strlen(name) - strlen(sfx);
	struct pfs_alias *a;
	int r;

	if (!strcmp(sfx, ".per-pkg") || !strcmp(sfx, ".snapshot"))
		return 0;
	if (alen > PFS_NAME_MAX ||
	    path_fmt(path, sizeof(path), "%s/%s", dir, name))
		return fail(ENAMETOOLONG, why, whylen, "%s/%s: name too long",
			    dir, name);
	memcpy(alias, name, alen);
	alias[alen] = '\0';
	a = (struct pfs_alias *)pfs_alias(p, alias);
	if (!a)
		return fail(EINVAL, why, whylen, "%s: there is no event \"%s\" "
			    "it belongs to", path, alias);
	r = read_file(path, buf, why, whylen);
	if (r)
		return r;
	if (!strcmp(sfx, ".unit"))
		return set_unit(a, buf, path, why, whylen);
	r = parse_scale(buf, &a->scale);
	if (r)
		return fail(-r, why, whylen, "%s: \"%.40s\" is not a positive "
			    "finite number", path, buf);
	a->has_scale = true;
	free(a->scale_text);
	if (!(a->scale_text = strdup(buf)))
		return fail(ENOMEM, why, whylen, "out of memory");
	return 0;
}

static int load_events(struct pfs_pmu *p, char *buf, char *why,
		       size_t whylen)
{
	char dir[PATH_MAX];
	struct dirent **l;
	int n, r = 0;

	n = list_sub(p, "events", dir, &l, why, whylen);
	if (n <= 0)
		return n;	/* none (also no directory), or -errno */
	p->alias = calloc((size_t)n + 1, sizeof(*p->alias));
	if (!p->alias)
		r = fail(ENOMEM, why, whylen, "out of memory");
	/* aliases first (sorted, as l is), then their attributes */
	for (int i = 0; i < n && !r; i++)
		if (!attr_suffix(l[i]->d_name))
			r = load_alias(p, dir, l[i]->d_name, buf, why, whylen);
	for (int i = 0; i < n && !r; i++)
		if (attr_suffix(l[i]->d_name))
			r = load_attr(p, dir, l[i]->d_name,
				      attr_suffix(l[i]->d_name), buf, why,
				      whylen);
	free_list(l, n);
	return r;
}

/* A PMU name is one path component. */
static bool pmu_name_ok(const char *name)
{
	return name[0] && strlen(name) <= PFS_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* The PMU's directory: p->dir, which must exist. */
static int pmu_dir(struct pfs_pmu *p, const char *root, const char *name,
		   char *why, size_t whylen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!pmu_name_ok(name))
		return fail(EINVAL, why, whylen, "\"%s\" is not a PMU name",
			    name);
	if (path_fmt(dir, sizeof(dir), "%s" DEVICES "/%s", root, name))
		return fail(ENAMETOOLONG, why, whylen, "%s: path too long",
			    root);
	if (stat(dir, &st))
		return fail(errno == ENOENT ? ENOENT : errno, why, whylen,
			    "no perf PMU %s under %s" DEVICES " (%s)", name,
			    root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(ENOENT, why, whylen, "no perf PMU %s under %s"
			    DEVICES " (not a directory)", name, root);
	p->name = strdup(name);
	p->dir = strdup(dir);
	return p->name && p->dir ? 0 : fail(ENOMEM, why, whylen,
					    "out of memory");
}

int pfs_pmu_load(const char *root, const char *name, struct pfs_pmu **out,
		 char *why, size_t whylen)
{
	struct pfs_pmu *p = calloc(1, sizeof(*p));
	char *buf = malloc(PFS_FILE_MAX + 1);
	int r;

	*out = NULL;
	if (!p || !buf) {
		free(p);
		free(buf);
		return fail(ENOMEM, why, whylen, "out of memory");
	}
	r = pmu_dir(p, root, name, why, whylen);
	if (!r)
		r = load_type(p, buf, why, whylen);
	if (!r)
		r = load_cpus(p, buf, why, whylen);
	if (!r)
		r = load_formats(p, buf, why, whylen);
	if (!r)
		r = load_events(p, buf, why, whylen);
	free(buf);
	if (r) {
		pfs_pmu_free(p);
		return r;
	}
	*out = p;
	return 0;
}

/* ---- CPU topology ------------------------------------------------------- */

/* Is cpu online?  ROOT/devices/system/cpu/online, else cpuN/online,
 * else (neither file: a kernel without CPU hotplug) yes. */
static int cpu_online(const char *root, const char *cpudir, unsigned cpu,
		      char *buf, char *why, size_t whylen)
{
	char path[PATH_MAX], msg[160];
	struct pfs_cpus on = { 0 };
	uint64_t v;
	int r;

	snprintf(path, sizeof(path), "%s" CPUDIR "/online", root);
	r = read_file(path, buf, why, whylen);
	if (!r) {
		r = pfs_cpulist_parse(buf, &on, msg, sizeof(msg));
		if (r)
			return fail(-r, why, whylen, "%s: %s", path, msg);
		v = 0;
		for (unsigned i = 0; i < on.n; i++)
			v |= on.cpu[i] == cpu;
		pfs_cpus_free(&on);
		return v ? 1 : 0;
	}
	if (r != -ENOENT)
		return r;
	r = read_in(cpudir, "online", buf, why, whylen);
	if (r == -ENOENT)
		return 1;
	if (r)
		return r;
	if (parse_dec(buf, 1, &v))
		return fail(EINVAL, why, whylen, "%s/online: \"%.20s\" is "
			    "neither 0 nor 1", cpudir, buf);
	return (int)v;
}

/* cpudir/topology/NAME: a decimal id >= 0 (missing: -ENOENT). */
static int topo_id(const char *cpudir, const char *name, unsigned *id,
		   char *buf, char *why, size_t whylen)
{
	char file[64];
	uint64_t v;
	int r;

	snprintf(file, sizeof(file), "topology/%s", name);
	r = read_in(cpudir, file, buf, why, whylen);
	if (r)
		return r;
	if (parse_dec(buf, UINT_MAX, &v))
		return fail(EINVAL, why, whylen, "%s/%s: \"%.20s\" is not an "
			    "id >= 0", cpudir, file, buf);
	*id = (unsigned)v;
	return 0;
}

int pfs_cpu_topology(const char *root, unsigned cpu, unsigned *package,
		     unsigned *die, char *why, size_t whylen)
{
	char cpudir[PATH_MAX], *buf;
	unsigned pkg = 0, d = 0;
	struct stat st;
	int r;

	if (path_fmt(cpudir, sizeof(cpudir), "%s" CPUDIR "/cpu%u", root, cpu))
		return fail(ENAMETOOLONG, why, whylen, "%s: path too long",
			    root);
	if (stat(cpudir, &st) || !S_ISDIR(st.st_mode))
		return fail(ENOENT, why, whylen, "no CPU %u (%s does not exist)",
			    cpu, cpudir);
	buf = malloc(PFS_FILE_MAX + 1);
	if (!buf)
		return fail(ENOMEM, why, whylen, "out of memory");
	r = cpu_online(root, cpudir, cpu, buf, why, whylen);
	if (r == 0)
		r = fail(ENODEV, why, whylen, "CPU %u is offline (%s" CPUDIR
			 "/online)", cpu, root);
	r = r < 0 ? r : topo_id(cpudir, "physical_package_id", &pkg, buf, why,
				whylen);
	if (!r) {
		r = topo_id(cpudir, "die_id", &d, buf, why, whylen);
		if (r == -ENOENT)
			r = 0;	/* a kernel before die_id: one die a package */
	}
	free(buf);
	if (!r) {
		*package = pkg;
		*die = d;
	}
	return r;
}
