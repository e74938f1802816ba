/*
 * conf.c - the configuration file (see conf.h and uncored.conf(5)).
 *
 * libinih splits the file into sections and "key = value" pairs; every key
 * is then looked up in one table (keys[] below) that gives its section,
 * type, place in struct conf, range and default, so adding a key is adding
 * a line there.  [baseline] is the one section whose keys are not fixed:
 * they are unit names.
 *
 * inih does not tell its handler the line number, so the file is fed to
 * ini_parse_stream() through our own reader, which counts lines and also
 * classifies each line exactly as inih will (comment, section header,
 * continuation, key line).  That lets the reader report what inih would
 * only count as a bare error line (unknown or empty sections, a line
 * without '=', "key: value"), reject lines longer than inih's buffer
 * instead of letting inih split them silently into two lines, and tell
 * the handler whether a call is a continuation line (inih calls the
 * handler again with the same key for an indented line).  Only the first
 * problem is reported; after it the reader stops the parse.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/un.h>

#include "conf.h"
#include "resctrl/resctrl_cg.h"
#include "plat/plat.h"

enum sect { S_NONE = -1, S_DAEMON, S_HTTP, S_CLAIMS, S_BASELINE, S_SIM,
	    S_RESCTRL, S_FORMULAS, S_COUNT };

static const char *const sect_names[S_COUNT] = {
	[S_DAEMON] = "daemon", [S_HTTP] = "http", [S_CLAIMS] = "claims",
	[S_BASELINE] = "baseline", [S_SIM] = "sim", [S_RESCTRL] = "resctrl",
	[S_FORMULAS] = "formulas",
};

enum ktype {
	KT_UINT,        /* unsigned, decimal, min..max */
	KT_BOOL,        /* bool: yes/no/true/false/on/off/1/0 */
	KT_ENUM,        /* enum conf_policy: index into choices */
	KT_CHOICE,      /* char *: one of choices, stored as a string */
	KT_STR,         /* char *: checked by check(), maybe empty */
	KT_LISTEN,      /* listen[]/nlisten: repeatable ADDR:PORT or none */
};

/* Checks a non-empty string value; on failure writes why (no key name). */
typedef bool str_check_fn(const char *v, char *why, size_t n);

struct key {
	enum sect sect;
	const char *name;
	enum ktype type;
	size_t off;                     /* offsetof(struct conf, field) */
	unsigned min, max;              /* KT_UINT */
	unsigned def;                   /* KT_UINT, KT_BOOL, KT_ENUM */
	const char *defstr;             /* KT_CHOICE, KT_STR: static default */
	const char *const *choices;     /* KT_ENUM, KT_CHOICE; NULL-ended */
	str_check_fn *check;            /* KT_STR */
	bool empty_ok;                  /* KT_STR: "" is a valid value */
};

static str_check_fn check_sockpath, check_group, check_user, check_platform,
	check_path, check_abspath, check_cgroups, check_formulas;

static const char *const policy_names[] = { "reclaim", "yield", NULL };
static const char *const backend_names[] = { "auto", "direct", "perf", NULL };
static const char *const unavailable_names[] = { "exit", "serve", NULL };
/* [baseline] memory_latency, frequency_limits: auto, or a yes/no word as
 * bool keys take */
static const char *const latency_names[] = {
	"auto", "yes", "no", "true", "false", "on", "off", "1", "0", NULL };
static const char *const level_names[] = {
	"error", "warning", "notice", "info", "debug", NULL };

static const char listen_default[] = "0.0.0.0:9464";
static const char empty_default[] = "";

#define F(field) offsetof(struct conf, field)
#define K_UINT(s, n, f, lo, hi, d) { .sect = s, .name = n, .type = KT_UINT, \
	.off = F(f), .min = lo, .max = hi, .def = d }
#define K_BOOL(s, n, f, d) { .sect = s, .name = n, .type = KT_BOOL, \
	.off = F(f), .def = d }
#define K_STR(s, n, f, d, fn, e) { .sect = s, .name = n, .type = KT_STR, \
	.off = F(f), .defstr = d, .check = fn, .empty_ok = e }

/* Every fixed key.  Order within a section is the order conf_dump() writes. */
static const struct key keys[] = {
	K_UINT(S_DAEMON, "interval_ms", interval_ms, 10, 60000, 1000),
	K_UINT(S_DAEMON, "ring_capacity", ring_capacity, 2, 1000000, 3600),
	K_BOOL(S_DAEMON, "takeover", takeover, false),
	{ .sect = S_DAEMON, .name = "interference_policy", .type = KT_ENUM,
	  .off = F(interference_policy), .def = CONF_POLICY_RECLAIM,
	  .choices = policy_names },
	K_UINT(S_DAEMON, "interference_check_ticks", interference_check_ticks,
	     1, 3600, 10),
	{ .sect = S_DAEMON, .name = "log_level", .type = KT_CHOICE,
	  .off = F(log_level), .defstr = "info", .choices = level_names },
	K_STR(S_DAEMON, "user", user, "uncored", check_user, false),
	{ .sect = S_DAEMON, .name = "backend", .type = KT_CHOICE,
	  .off = F(backend), .defstr = "auto", .choices = backend_names },
	K_STR(S_DAEMON, "sysfs", sysfs, "/sys", check_abspath, false),
	{ .sect = S_DAEMON, .name = "unavailable", .type = KT_CHOICE,
	  .off = F(unavailable), .defstr = "exit",
	  .choices = unavailable_names },

	{ .sect = S_HTTP, .name = "listen", .type = KT_LISTEN,
	  .off = F(listen) },
	K_STR(S_HTTP, "control_socket", control_socket,
	    "/run/uncored/uncored.sock", check_sockpath, false),
	K_STR(S_HTTP, "control_group", control_group, empty_default,
	    check_group, true),
	K_UINT(S_HTTP, "timeout_s", http_timeout_s, 1, 3600, 10),
	K_UINT(S_HTTP, "max_connections", http_max_connections, 1, 10000, 64),
	K_UINT(S_HTTP, "max_per_ip", http_max_per_ip, 1, 10000, 16),
	K_UINT(S_HTTP, "control_max_connections", http_ctl_max, 1, 10000,
	    128),
	K_UINT(S_HTTP, "control_max_per_uid", http_ctl_per_uid, 0, 10000, 0),
	K_STR(S_HTTP, "web_config", web_config, empty_default, check_path,
	    true),

	K_UINT(S_CLAIMS, "max_per_uid", max_per_uid, 1, 1000, 8),
	K_UINT(S_CLAIMS, "max_total", max_total, 1, 10000, 64),
	K_UINT(S_CLAIMS, "default_ttl_s", default_ttl_s, 1, 86400, 60),
	K_UINT(S_CLAIMS, "max_ttl_s", max_ttl_s, 1, 86400, 3600),
	K_BOOL(S_CLAIMS, "allow_raw_events", allow_raw_events, false),
	K_UINT(S_CLAIMS, "max_pinned_per_box", max_pinned_per_box, 0, 7, 7),
	K_UINT(S_CLAIMS, "max_pinned_s", max_pinned_s, 1, 86400, 600),

	/* the keys of [baseline] that are no unit (issues 41 §2, 43 §2) */
	{ .sect = S_BASELINE, .name = "memory_latency", .type = KT_CHOICE,
	  .off = F(memory_latency), .defstr = "auto",
	  .choices = latency_names },
	{ .sect = S_BASELINE, .name = "frequency_limits", .type = KT_CHOICE,
	  .off = F(frequency_limits), .defstr = "auto",
	  .choices = latency_names },
	K_STR(S_SIM, "platform", sim_platform, empty_default, check_platform,
	    true),
	K_STR(S_SIM, "workload", sim_workload, empty_default, check_path, true),

	K_BOOL(S_RESCTRL, "enabled", resctrl_enabled, false),
	K_STR(S_RESCTRL, "path", resctrl_path, "/sys/fs/resctrl", check_abspath,
	    false),
	K_UINT(S_RESCTRL, "interval_s", resctrl_interval_s, 1, 3600, 5),
	K_STR(S_RESCTRL, "cgroups", resctrl_cgroups, empty_default,
	    check_cgroups, true),
	K_STR(S_RESCTRL, "cgroup_path", resctrl_cgroup_path, "/sys/fs/cgroup",
	    check_abspath, false),
	K_UINT(S_RESCTRL, "max_groups", resctrl_max_groups, 1, 4096, 64),
	K_BOOL(S_RESCTRL, "simulated", resctrl_simulated, false),

	/* formula names of the catalog; whether each is one of this
	 * platform's is checked at start (uncored.c), naming the line */
	K_STR(S_FORMULAS, "export", formulas_export, empty_default,
	    check_formulas, true),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* Pairs checked after the parse: the value of lo must be <= that of hi. */
static const struct order {
	const char *lo, *hi;
} orders[] = {
	{ "max_per_uid", "max_total" },
	{ "default_ttl_s", "max_ttl_s" },
};

static const struct {
	const char *word;
	bool val;
} bool_words[] = {
	{ "yes", true }, { "no", false }, { "true", true },
	{ "false", false }, { "on", true }, { "off", false },
	{ "1", true }, { "0", false },
};
#define BOOL_EXPECT "expected yes, no, true, false, on, off, 1 or 0"

#define UNIT_MAX (sizeof(((struct conf_baseline *)0)->unit) - 1)
#define EVENTS_MAX (sizeof(((struct conf_baseline *)0)->events) / \
		    sizeof(char *))
#define EVENT_NAME_MAX 63
#define SUN_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
/* The longest line conf_dump() may write: inih's buffer minus the NUL. */
#define DUMP_LINE_MAX (INI_MAX_LINE - 1)

static void *field(struct conf *c, const struct key *k)
{
	return (char *)c + k->off;
}

static const void *cfield(const struct conf *c, const struct key *k)
{
	return (const char *)c + k->off;
}

static const struct key *key_find(enum sect s, const char *name)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (keys[i].sect == s && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* The first key of that name in any section, for "it belongs in [x]". */
static const struct key *key_find_any(const char *name)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* ---- defaults and ownership --------------------------------------------- */

void conf_init(struct conf *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];

		switch (k->type) {
		case KT_UINT:
			*(unsigned *)field(c, k) = k->def;
			break;
		case KT_BOOL:
			*(bool *)field(c, k) = k->def;
			break;
		case KT_ENUM:
			*(enum conf_policy *)field(c, k) = k->def;
			break;
		case KT_CHOICE:
		case KT_STR:
			*(char **)field(c, k) = (char *)k->defstr;
			break;
		case KT_LISTEN:
			c->listen[0] = (char *)listen_default;
			c->nlisten = 1;
			break;
		}
	}
}

static void free_str(char **p, const char *def)
{
	if (*p != def)
		free(*p);
	*p = NULL;
}

static enum conf_latency auto_yes_no(const char *v)
{
	if (strcmp(v, "auto") == 0)
		return CONF_LATENCY_AUTO;
	return strcmp(v, "yes") == 0 || strcmp(v, "true") == 0 ||
	       strcmp(v, "on") == 0 || strcmp(v, "1") == 0
	       ? CONF_LATENCY_YES : CONF_LATENCY_NO;
}

enum conf_latency conf_memory_latency(const struct conf *c)
{
	return auto_yes_no(c->memory_latency ? c->memory_latency : "auto");
}

enum conf_latency conf_frequency_limits(const struct conf *c)
{
	return auto_yes_no(c->frequency_limits ? c->frequency_limits : "auto");
}

void conf_free(struct conf *c)
{
	size_t i, j;

	free(c->path);
	c->path = NULL;
	for (i = 0; i < NKEYS; i++)
		if (keys[i].type == KT_CHOICE || keys[i].type == KT_STR)
			free_str(field(c, &keys[i]), keys[i].defstr);
	for (i = 0; i < CONF_MAX_LISTEN; i++)
		free_str(&c->listen[i], listen_default);
	for (i = 0; i < CONF_MAX_BASELINE; i++)
		for (j = 0; j < EVENTS_MAX; j++) {
			free(c->baseline[i].events[j]);
			c->baseline[i].events[j] = NULL;
		}
	conf_init(c);
}

/* ---- value checks shared by the parser and conf_dump() ------------------ */

enum numres { NUM_OK, NUM_EMPTY, NUM_NOTNUM, NUM_HEX, NUM_RANGE };

/*
 * A decimal integer in min..max: digits only (no sign, no hex, no suffix).
 * "-5" is well-formed but out of range; an overflow is out of range.
 */
static enum numres parse_num(const char *v, unsigned long min,
			     unsigned long max, unsigned long *out)
{
	const char *d = v;
	unsigned long long x;
	char *end;

	if (!*v)
		return NUM_EMPTY;
	if (v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		return NUM_HEX;
	if (*d == '-')
		d++;
	if (!isdigit((unsigned char)*d))
		return NUM_NOTNUM;
	for (; *d; d++)
		if (!isdigit((unsigned char)*d))
			return NUM_NOTNUM;
	if (v[0] == '-')
		return NUM_RANGE;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (*end || end == v)
		return NUM_NOTNUM;
	if (errno == ERANGE || x < min || x > max)
		return NUM_RANGE;
	*out = (unsigned long)x;
	return NUM_OK;
}

static bool has_ctrl(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return true;
	return false;
}

static bool check_sockpath(const char *v, char *why, size_t n)
{
	if (v[0] != '/')
		snprintf(why, n, "\"%s\" is not an absolute path", v);
	else if (strlen(v) > SUN_PATH_MAX)
		snprintf(why, n, "path is too long for a Unix socket "
			 "(%zu bytes, at most %zu)", strlen(v), SUN_PATH_MAX);
	else if (v[strlen(v) - 1] == '/')
		snprintf(why, n, "\"%s\" names a directory, not a socket", v);
	else if (has_ctrl(v))
		snprintf(why, n, "path contains a control character");
	else
		return true;
	return false;
}

/* A portable group name: [A-Za-z0-9_][A-Za-z0-9_.-]*, at most 32. */
/* A user or group name as useradd(8) accepts it. */
static bool check_name(const char *v, const char *what, char *why, size_t n)
{
	size_t i, len = strlen(v);

	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)v[i]) && v[i] != '_' &&
		    (i == 0 || (v[i] != '.' && v[i] != '-')))
			break;
	if (i == len && len <= 32)
		return true;
	snprintf(why, n, "\"%s\" is not a valid %s name (letters, digits, "
		 "'_', '.', '-', at most 32 characters)", v, what);
	return false;
}

static bool check_group(const char *v, char *why, size_t n)
{
	return check_name(v, "group", why, n);
}

static bool check_user(const char *v, char *why, size_t n)
{
	return check_name(v, "user", why, n);
}

static bool check_platform(const char *v, char *why, size_t n)
{
	char list[128];

	if (plat_by_id(v))
		return true;
	snprintf(why, n, "unknown platform \"%.32s\" (supported: %s)", v,
		 plat_list(list, sizeof(list), false));
	return false;
}

static bool check_path(const char *v, char *why, size_t n)
{
	if (strlen(v) >= PATH_MAX)
		snprintf(why, n, "path is too long (at most %d bytes)",
			 PATH_MAX - 1);
	else if (has_ctrl(v))
		snprintf(why, n, "path contains a control character");
	else
		return true;
	return false;
}

/* An absolute path (the sysfs root). */
static bool check_abspath(const char *v, char *why, size_t n)
{
	if (v[0] != '/') {
		snprintf(why, n, "\"%s\" is not an absolute path", v);
		return false;
	}
	return check_path(v, why, n);
}

/* [resctrl] cgroups: cgroup v2 path patterns separated by blanks or
   commas (resctrl_cg.h), each checked; says which one is wrong. */
static bool check_cgroups(const char *v, char *why, size_t n)
{
	const char *p = v;

	for (;;) {
		char pat[256];
		size_t l;
		const char *e;

		p += strspn(p, " \t,");
		if (!*p)
			return true;
		l = strcspn(p, " \t,");
		if (l >= sizeof(pat)) {
			snprintf(why, n, "pattern \"%.40s...\" is longer than "
				 "%zu bytes", p, sizeof(pat) - 1);
			return false;
		}
		memcpy(pat, p, l);
		pat[l] = '\0';
		if ((e = rdtcg_pattern_error(pat)) != NULL) {
			snprintf(why, n, "pattern \"%s\": %s", pat, e);
			return false;
		}
		p += l;
	}
}

/* [formulas] export: formula names ([A-Za-z0-9_.-], with one '/' after a
   box name: "ha/PCT_RD_REQUESTS") separated by commas or blanks. */
static bool check_formulas(const char *v, char *why, size_t n)
{
	const char *p = v;
	unsigned count = 0;

	for (;;) {
		size_t l;

		p += strspn(p, " \t,");
		if (!*p)
			return true;
		l = strcspn(p, " \t,");
		if (l >= CONF_FORMULA_NAME_MAX) {
			snprintf(why, n, "formula name \"%.40s...\" is longer "
				 "than %d bytes", p, CONF_FORMULA_NAME_MAX - 1);
			return false;
		}
		for (size_t i = 0; i < l; i++)
			if (!isalnum((unsigned char)p[i]) &&
			    !strchr("_.-/", p[i])) {
				snprintf(why, n, "formula name \"%.*s\" has a "
					 "'%c' (names are letters, digits, "
					 "'_', '.', '-' and one '/'; see "
					 "`uncorectl formulas`)", (int)l, p,
					 p[i]);
				return false;
			}
		if (++count > CONF_MAX_FORMULAS) {
			snprintf(why, n, "more than %d formulas",
				 CONF_MAX_FORMULAS);
			return false;
		}
		p += l;
	}
}

/* "ADDR:PORT": IPv4 dotted quad, [IPv6], localhost or nothing (every
   address); port 1..65535. */
static bool check_listen(const char *v, char *why, size_t n)
{
	char host[INET6_ADDRSTRLEN];
	unsigned char addr[sizeof(struct in6_addr)];
	const char *h, *hend, *port;
	unsigned long p;
	size_t hlen;
	bool v6 = v[0] == '[', good;

	if (v6) {
		h = v + 1;
		hend = strchr(h, ']');
		if (!hend) {
			snprintf(why, n, "\"%s\": missing ']' after the IPv6 "
				 "address", v);
			return false;
		}
		if (hend[1] != ':') {
			snprintf(why, n, "\"%s\" has no port (expected "
				 "[ADDR]:PORT, e.g. [::1]:9464)", v);
			return false;
		}
		port = hend + 2;
	} else {
		h = v;
		hend = strrchr(h, ':');
		if (!hend) {
			snprintf(why, n, "\"%s\" has no port (expected "
				 "ADDR:PORT, e.g. 127.0.0.1:9464)", v);
			return false;
		}
		if (memchr(h, ':', (size_t)(hend - h))) {
			snprintf(why, n, "\"%s\": an IPv6 address must be in "
				 "brackets, e.g. [::1]:9464", v);
			return false;
		}
		port = hend + 1;
	}
	hlen = (size_t)(hend - h);
	/* ":PORT" is every address, IPv4 and IPv6. */
	good = hlen < sizeof(host) && (hlen > 0 || !v6);
	if (good && hlen > 0) {
		memcpy(host, h, hlen);
		host[hlen] = '\0';
		if (v6)
			good = inet_pton(AF_INET6, host, addr) == 1;
		else
			good = strcmp(host, "localhost") == 0 ||
			       inet_pton(AF_INET, host, addr) == 1;
	}
	if (!good) {
		snprintf(why, n, "\"%s\": \"%.*s\" is not an %s", v,
			 (int)(hlen < 64 ? hlen : 64), h,
			 v6 ? "IPv6 address" :
			 "IPv4 address, [IPv6] address or localhost");
		return false;
	}
	switch (parse_num(port, 1, 65535, &p)) {
	case NUM_OK:
		return true;
	case NUM_EMPTY:
		snprintf(why, n, "\"%s\" has no port (expected ADDR:PORT)", v);
		break;
	case NUM_RANGE:
		snprintf(why, n, "\"%s\": port %s is out of range (1..65535)",
			 v, port);
		break;
	default:
		snprintf(why, n, "\"%s\": \"%s\" is not a port number "
			 "(1..65535)", v, port);
		break;
	}
	return false;
}

static bool valid_unit(const char *u)
{
	size_t i, len = strlen(u);

	for (i = 0; i < len; i++)
		if (!islower((unsigned char)u[i]) &&
		    !isdigit((unsigned char)u[i]) && u[i] != '_')
			return false;
	return len >= 1 && len <= UNIT_MAX;
}

/* Catalog names (UNC_CBO_CACHE_LOOKUP.ANY_I) and raw cbo:0x34:0x88. */
static bool valid_event(const char *e, size_t len)
{
	size_t i;

	/* '=' and '/': the modifiers :filterN=V and :split=K/N
	 * (doc/design.md section 5), which the claim parser checks */
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)e[i]) && e[i] != '_' &&
		    e[i] != '.' && e[i] != ':' && e[i] != '=' && e[i] != '/')
			return false;
	return len >= 1 && len <= EVENT_NAME_MAX;
}

/* ---- parser state and messages ------------------------------------------ */

struct pstate {
	struct conf *c;
	const char *path;
	FILE *f;
	char *buf;                      /* getline() buffer */
	size_t cap;
	unsigned lineno;                /* line the reader handed inih last */
	int read_errno;
	char *err;
	size_t errlen;
	bool failed;
	enum sect sect;                 /* current section, S_NONE before any */
	bool in_key;                    /* mirrors inih's prev_name != "" */
	bool cont;                      /* current line is a continuation */
	const struct key *last_key;     /* key the current value belongs to */
	struct conf_baseline *last_bl;  /* or the [baseline] entry */
	bool bl_none;                   /* last_bl was given as "none" */
	unsigned bl_commas;             /* commas since the last event */
	bool listen_given, listen_none;
	unsigned listen_none_line;
	unsigned listen_line[CONF_MAX_LISTEN];
	unsigned key_line[NKEYS];       /* where each key was set, 0 = not */
};

__attribute__((format(printf, 3, 4)))
static int fail_at(struct pstate *st, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (st->failed)
		return 0;
	st->failed = true;
	if (!st->err || !st->errlen)
		return 0;
	if (line)
		n = snprintf(st->err, st->errlen, "%s:%u: ", st->path, line);
	else
		n = snprintf(st->err, st->errlen, "%s: ", st->path);
	if (n < 0 || (size_t)n >= st->errlen)
		return 0;
	va_start(ap, fmt);
	vsnprintf(st->err + n, st->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return 0;
}

#define fail(st, ...) fail_at((st), (st)->lineno, __VA_ARGS__)

static char *st_strdup(struct pstate *st, const char *s)
{
	char *d = strdup(s);

	if (!d)
		fail(st, "out of memory");
	return d;
}

/* Levenshtein distance, for "did you mean"; large for long names. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[64], i, j, la = (unsigned)strlen(a),
		 lb = (unsigned)strlen(b);

	if (la >= 64 || lb >= 64)
		return UINT_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned up = row[j], best;

			best = diag + (tolower((unsigned char)a[i - 1]) !=
				       tolower((unsigned char)b[j - 1]));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

static int fail_unknown_key(struct pstate *st, const char *name)
{
	const struct key *other = key_find_any(name), *best = NULL;
	unsigned d, bestd = 3;
	size_t i;

	if (other)
		return fail(st, "unknown key \"%s\" in [%s] (it belongs in "
			    "[%s])", name, sect_names[st->sect],
			    sect_names[other->sect]);
	for (i = 0; i < NKEYS; i++) {
		if (keys[i].sect != st->sect)
			continue;
		d = edit_distance(name, keys[i].name);
		if (d < bestd) {
			bestd = d;
			best = &keys[i];
		}
	}
	if (best)
		return fail(st, "unknown key \"%s\" in [%s]; did you mean "
			    "\"%s\"?", name, sect_names[st->sect], best->name);
	return fail(st, "unknown key \"%s\" in [%s]", name,
		    sect_names[st->sect]);
}

static int fail_num(struct pstate *st, const char *what, const char *v,
		    enum numres r, unsigned long min, unsigned long max)
{
	switch (r) {
	case NUM_EMPTY:
		return fail(st, "%s: empty value (expected an integer in "
			    "%lu..%lu)", what, min, max);
	case NUM_HEX:
		return fail(st, "%s: \"%s\" is not a decimal integer "
			    "(hexadecimal is not accepted; expected %lu..%lu)",
			    what, v, min, max);
	case NUM_RANGE:
		return fail(st, "%s: %s is out of range (%lu..%lu)", what, v,
			    min, max);
	default:
		return fail(st, "%s: \"%s\" is not a decimal integer "
			    "(expected %lu..%lu)", what, v, min, max);
	}
}

/* "a, b or c" */
static void choice_list(const char *const *ch, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; ch[i]; i++) {
		const char *sep = i == 0 ? "" : ch[i + 1] ? ", " : " or ";
		int w = snprintf(buf + len, n - len, "%s%s", sep, ch[i]);

		if (w < 0 || (size_t)w >= n - len)
			return;
		len += (size_t)w;
	}
}

static int choice_index(const char *const *ch, const char *v)
{
	int i;

	for (i = 0; ch[i]; i++)
		if (strcmp(ch[i], v) == 0)
			return i;
	return -1;
}

/* ---- the reader: line numbers and line syntax --------------------------- */

/* inih's find_chars_or_comment(): stops at one of chars or at an inline
 * ';' comment (a ';' after white space), so we split lines as it does. */
static const char *find_chars(const char *s, const char *chars)
{
	bool was_space = false;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

static void section_line(struct pstate *st, const char *start)
{
	const char *end = find_chars(start + 1, "]"), *rest;
	size_t len;
	int i;

	if (*end != ']') {
		fail(st, "section header without a closing ']'");
		return;
	}
	for (rest = end + 1; isspace((unsigned char)*rest); rest++)
		;
	if (*rest && *rest != ';' && *rest != '#') {
		fail(st, "unexpected \"%s\" after the section header", rest);
		return;
	}
	len = (size_t)(end - (start + 1));
	for (i = 0; i < S_COUNT; i++)
		if (strlen(sect_names[i]) == len &&
		    memcmp(sect_names[i], start + 1, len) == 0) {
			st->sect = i;
			return;
		}
	fail(st, "unknown section [%.*s] (expected [daemon], [http], "
	     "[claims], [baseline], [sim], [resctrl] or [formulas])",
	     (int)(len < 64 ? len : 64), start + 1);
}

static void key_line(struct pstate *st, const char *start)
{
	const char *end = find_chars(start, "=:");

	if (*end == ':') {
		fail(st, "expected \"key = value\" (':' is not accepted as "
		     "a separator)");
		return;
	}
	if (*end != '=') {
		fail(st, "expected \"key = value\" or a [section] header");
		return;
	}
	st->in_key = true;
}

static char *reader(char *str, int num, void *stream)
{
	struct pstate *st = stream;
	const char *s, *start;
	ssize_t n;
	size_t len;

	if (st->failed)
		return NULL;            /* first error found: stop the parse */
	errno = 0;
	n = getline(&st->buf, &st->cap, st->f);
	if (n < 0) {
		st->read_errno = errno;
		return NULL;
	}
	st->lineno++;
	st->cont = false;
	len = (size_t)n;
	if (memchr(st->buf, '\0', len)) {
		fail(st, "line contains a NUL byte");
		return NULL;
	}
	while (len && (st->buf[len - 1] == '\n' || st->buf[len - 1] == '\r'))
		st->buf[--len] = '\0';

	s = st->buf;
	if (st->lineno == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;                 /* inih skips a UTF-8 BOM too */
	for (start = s; isspace((unsigned char)*start); start++)
		;
	/* Blank lines and comments: whatever their length, inih sees "". */
	str[0] = '\0';
	if (*start == '\0' || *start == ';' || *start == '#')
		return str;
	if (num < 2 || len > (size_t)num - 1) {
		fail(st, "line is too long (%zu characters, at most %d)", len,
		     num - 1);
		return NULL;
	}
	/* The order of these tests is inih's. */
	if (st->in_key && start > s) {
		st->cont = true;
	} else if (*start == '[') {
		st->in_key = false;
		section_line(st, start);
	} else {
		key_line(st, start);
	}
	if (st->failed)
		return NULL;
	memcpy(str, st->buf, len + 1);
	return str;
}

/* ---- the handler: values ------------------------------------------------ */

static int set_str(struct pstate *st, const struct key *k, const char *v)
{
	char **p = field(st->c, k), *d = st_strdup(st, v);

	if (!d)
		return 0;
	free_str(p, k->defstr);
	*p = d;
	return 1;
}

/* A continuation line of [formulas] export: more names, checked with
 * those before (a long list is written over several lines). */
static int formulas_more(struct pstate *st, const struct key *k,
			 const char *v)
{
	char **p = field(st->c, k), *joined, why[256];
	/* inih 55 leaves inline comments on continuation lines */
	int vl = (int)(find_chars(v, "") - v);
	size_t n = strlen(*p) + (size_t)vl + 3;
	int r;

	while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;

	if (!(joined = malloc(n)))
		return fail(st, "out of memory");
	snprintf(joined, n, "%s, %.*s", *p, vl, v);
	if (!check_formulas(joined, why, sizeof(why))) {
		free(joined);
		return fail(st, "%s: %s", k->name, why);
	}
	r = set_str(st, k, joined);
	free(joined);
	return r;
}

static int listen_value(struct pstate *st, const char *v)
{
	struct conf *c = st->c;
	char why[256];
	unsigned i;

	if (!*v)
		return fail(st, "listen: empty value (expected ADDR:PORT or "
			    "none)");
	if (!st->listen_given) {        /* given keys replace the default */
		for (i = 0; i < CONF_MAX_LISTEN; i++)
			free_str(&c->listen[i], listen_default);
		c->nlisten = 0;
		st->listen_given = true;
	}
	if (st->listen_none)
		return fail(st, "listen: \"%s\" cannot be combined with "
			    "\"none\" (line %u)", v, st->listen_none_line);
	if (strcmp(v, "none") == 0) {
		if (c->nlisten)
			return fail(st, "listen: \"none\" cannot be combined "
				    "with other addresses (line %u)",
				    st->listen_line[0]);
		st->listen_none = true;
		st->listen_none_line = st->lineno;
		return 1;
	}
	if (!check_listen(v, why, sizeof(why)))
		return fail(st, "listen: %s", why);
	for (i = 0; i < c->nlisten; i++)
		if (strcmp(c->listen[i], v) == 0)
			return fail(st, "listen: %s given twice (first on "
				    "line %u)", v, st->listen_line[i]);
	if (c->nlisten == CONF_MAX_LISTEN)
		return fail(st, "listen: too many addresses (at most %d)",
			    CONF_MAX_LISTEN);
	if (!(c->listen[c->nlisten] = st_strdup(st, v)))
		return 0;
	st->listen_line[c->nlisten++] = st->lineno;
	return 1;
}

static int set_value(struct pstate *st, const struct key *k, const char *v)
{
	char why[256];
	unsigned long x;
	enum numres r;
	size_t i;
	int idx;

	switch (k->type) {
	case KT_UINT:
		r = parse_num(v, k->min, k->max, &x);
		if (r != NUM_OK)
			return fail_num(st, k->name, v, r, k->min, k->max);
		*(unsigned *)field(st->c, k) = (unsigned)x;
		return 1;
	case KT_BOOL:
		for (i = 0; i < sizeof(bool_words) / sizeof(bool_words[0]); i++)
			if (strcmp(bool_words[i].word, v) == 0) {
				*(bool *)field(st->c, k) = bool_words[i].val;
				return 1;
			}
		if (!*v)
			return fail(st, "%s: empty value (" BOOL_EXPECT ")",
				    k->name);
		return fail(st, "%s: \"%s\" is not a boolean (" BOOL_EXPECT ")",
			    k->name, v);
	case KT_ENUM:
	case KT_CHOICE:
		idx = choice_index(k->choices, v);
		if (idx < 0) {
			choice_list(k->choices, why, sizeof(why));
			if (!*v)
				return fail(st, "%s: empty value (expected %s)",
					    k->name, why);
			return fail(st, "%s: \"%s\" is not valid (expected %s)",
				    k->name, v, why);
		}
		if (k->type == KT_ENUM) {
			*(enum conf_policy *)field(st->c, k) = idx;
			return 1;
		}
		return set_str(st, k, v);
	case KT_STR:
		if (!*v && !k->empty_ok)
			return fail(st, "%s: empty value", k->name);
		if (*v && !k->check(v, why, sizeof(why)))
			return fail(st, "%s: %s", k->name, why);
		return set_str(st, k, v);
	case KT_LISTEN:
		return listen_value(st, v);
	}
	return fail(st, "%s: internal error: unknown key type", k->name);
}

/* Event names separated by commas and/or white space; a continuation line
 * carries on the same list (bl_commas spans lines, so ",," is caught). */
static int baseline_events(struct pstate *st, struct conf_baseline *b,
			   const char *v, size_t vlen)
{
	const char *p = v, *q, *vend = v + vlen;
	unsigned i;
	size_t len;

	while (p < vend) {
		if (*p == ',') {
			if (++st->bl_commas > 1)
				return fail(st, "%s: empty event name between "
					    "commas", b->unit);
			p++;
			continue;
		}
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		for (q = p; q < vend && *q != ',' &&
			    !isspace((unsigned char)*q); q++)
			;
		len = (size_t)(q - p);
		st->bl_commas = 0;
		if (len == 4 && memcmp(p, "none", 4) == 0) {
			if (b->nevents || st->bl_none)
				return fail(st, "%s: \"none\" cannot be "
					    "combined with events", b->unit);
			st->bl_none = true;
			p = q;
			continue;
		}
		if (st->bl_none)
			return fail(st, "%s: \"none\" cannot be combined with "
				    "events", b->unit);
		if (!valid_event(p, len))
			return fail(st, "%s: \"%.*s\" is not an event name "
				    "(a catalog name as /api/v1/events "
				    "lists them, or "
				    "unit:0xEVENT:0xUMASK; at most %d "
				    "characters of A-Z a-z 0-9 _ . : = /)",
				    b->unit, (int)(len < 64 ? len : 64), p,
				    EVENT_NAME_MAX);
		for (i = 0; i < b->nevents; i++)
			if (strlen(b->events[i]) == len &&
			    memcmp(b->events[i], p, len) == 0)
				return fail(st, "%s: event %s listed twice",
					    b->unit, b->events[i]);
		if (b->nevents == EVENTS_MAX)
			return fail(st, "%s: too many events (at most %zu)",
				    b->unit, EVENTS_MAX);
		if (!(b->events[b->nevents] = strndup(p, len)))
			return fail(st, "out of memory");
		b->nevents++;
		p = q;
	}
	return 1;
}

static int baseline_key(struct pstate *st, const char *unit, const char *v)
{
	struct conf *c = st->c;
	struct conf_baseline *b;
	unsigned i;

	if (!valid_unit(unit))
		return fail(st, "\"%s\" is not a unit name (at most %zu "
			    "characters of a-z 0-9 _, as /api/v1/topology "
			    "names the units)", unit,
			    UNIT_MAX);
	for (i = 0; i < c->nbaseline; i++)
		if (strcmp(c->baseline[i].unit, unit) == 0)
			return fail(st, "%s given twice in [baseline] (first "
				    "on line %u)", unit, c->baseline[i].line);
	if (c->nbaseline == CONF_MAX_BASELINE)
		return fail(st, "too many [baseline] entries (at most %d)",
			    CONF_MAX_BASELINE);
	if (!*v)
		return fail(st, "%s: empty value (list event names, or write "
			    "\"none\" to count nothing on this unit)", unit);
	b = &c->baseline[c->nbaseline++];
	memcpy(b->unit, unit, strlen(unit) + 1);
	b->nevents = 0;
	b->line = st->lineno;
	c->baseline_given = true;
	st->last_bl = b;
	st->bl_none = false;
	st->bl_commas = 1;              /* no comma before the first event */
	return baseline_events(st, b, v, strlen(v));
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct pstate *st = user;
	const struct key *k;
	size_t idx;

	(void)section;                  /* st->sect, from the reader, rules */
	if (st->failed)
		return 0;
	if (st->cont) {
		/* inih 55 leaves inline comments on continuation lines (later
		 * versions cut them): cut them the same way here. */
		if (st->last_bl)
			return baseline_events(st, st->last_bl, value,
					       (size_t)(find_chars(value, "") -
							value));
		if (st->last_key && st->last_key->sect == S_FORMULAS)
			return formulas_more(st, st->last_key, value);
		return fail(st, "this indented line continues the value of "
			    "%s, which takes a single value (remove the "
			    "indentation%s)", name,
			    st->last_key && st->last_key->type == KT_LISTEN ?
			    ", and repeat \"listen =\" for another address" :
			    "");
	}
	st->last_key = NULL;
	st->last_bl = NULL;
	if (!*name)
		return fail(st, "missing key name before '='");
	if (st->sect == S_NONE) {
		k = key_find_any(name);
		if (k)
			return fail(st, "key \"%s\" is outside any section "
				    "(it belongs in [%s])", name,
				    sect_names[k->sect]);
		return fail(st, "key \"%s\" is outside any section", name);
	}
	k = key_find(st->sect, name);
	if (st->sect == S_BASELINE && !k)
		return baseline_key(st, name, value);
	if (!k)
		return fail_unknown_key(st, name);
	idx = (size_t)(k - keys);
	if (st->key_line[idx] && k->type != KT_LISTEN)
		return fail(st, "duplicate key %s (first given on line %u)",
			    name, st->key_line[idx]);
	if (!st->key_line[idx])
		st->key_line[idx] = st->lineno;
	if (k->sect == S_FORMULAS)
		st->c->formulas_export_line = st->lineno;
	st->last_key = k;
	return set_value(st, k, value);
}

/* ---- after the parse ---------------------------------------------------- */

static void check_orders(struct pstate *st)
{
	char lo_at[32], hi_at[32];
	size_t i;

	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		const struct key *lo = key_find_any(orders[i].lo);
		const struct key *hi = key_find_any(orders[i].hi);
		unsigned lv, hv, ll, hl;

		if (!lo || !hi)         /* a typo in orders[]; tests catch it */
			continue;
		lv = *(const unsigned *)cfield(st->c, lo);
		hv = *(const unsigned *)cfield(st->c, hi);
		if (lv <= hv)
			continue;
		ll = st->key_line[lo - keys];
		hl = st->key_line[hi - keys];
		if (ll)
			snprintf(lo_at, sizeof(lo_at), "line %u", ll);
		else
			snprintf(lo_at, sizeof(lo_at), "the default");
		if (hl)
			snprintf(hi_at, sizeof(hi_at), "line %u", hl);
		else
			snprintf(hi_at, sizeof(hi_at), "the default");
		/* Reported where the second of the two was set. */
		fail_at(st, ll > hl ? ll : hl, "%s = %u (%s) must not be "
			"greater than %s = %u (%s)", lo->name, lv, lo_at,
			hi->name, hv, hi_at);
		return;
	}
}

/* A relative path (workload, web_config) is taken from the directory of
   the file. */
static void resolve_path(struct pstate *st, enum sect sect, const char *name)
{
	const struct key *k = key_find(sect, name);
	char **p = field(st->c, k), *dir, *real, *joined;
	const char *slash;

	if (!**p || **p == '/')
		return;
	slash = strrchr(st->path, '/');
	if (!slash)
		dir = strdup(".");
	else
		dir = strndup(st->path, slash == st->path ? 1 :
			      (size_t)(slash - st->path));
	if (!dir) {
		fail(st, "out of memory");
		return;
	}
	real = realpath(dir, NULL);
	if (!real) {
		fail_at(st, st->key_line[k - keys], "%s: cannot resolve "
			"the directory %s: %s", name, dir, strerror(errno));
		free(dir);
		return;
	}
	free(dir);
	if (asprintf(&joined, "%s%s%s", real,
		     real[strlen(real) - 1] == '/' ? "" : "/", *p) < 0) {
		free(real);
		fail(st, "out of memory");
		return;
	}
	free(real);
	if (strlen(joined) >= PATH_MAX) {
		fail_at(st, st->key_line[k - keys], "%s: path is too "
			"long once resolved (at most %d bytes)", name,
			PATH_MAX - 1);
		free(joined);
		return;
	}
	free_str(p, k->defstr);
	*p = joined;
}

/* After a successful load every string is heap memory owned by the conf. */
static void own_strings(struct pstate *st)
{
	struct conf *c = st->c;
	size_t i;

	for (i = 0; i < NKEYS && !st->failed; i++) {
		const struct key *k = &keys[i];
		char **p = field(c, k);

		if ((k->type == KT_CHOICE || k->type == KT_STR) &&
		    *p == k->defstr)
			*p = st_strdup(st, k->defstr);
	}
	if (!st->failed && c->nlisten && c->listen[0] == listen_default)
		c->listen[0] = st_strdup(st, listen_default);
	if (!st->failed && st->f)       /* no file: defaults only, no path */
		c->path = st_strdup(st, st->path);
}

int conf_load(struct conf *c, const char *path, char *err, size_t errlen)
{
	struct pstate st;
	int r;

	conf_init(c);
	if (err && errlen)
		err[0] = '\0';
	memset(&st, 0, sizeof(st));
	st.c = c;
	st.path = path;
	st.err = err;
	st.errlen = errlen;
	st.sect = S_NONE;
	if (!path) {                    /* the defaults, as heap copies */
		st.path = "(defaults)";
		own_strings(&st);
		if (st.failed) {
			conf_free(c);
			return -1;
		}
		return 0;
	}
	if (!*path) {
		st.path = "(empty path)";
		fail_at(&st, 0, "no configuration file given");
		return -1;
	}
	st.f = fopen(path, "re");
	if (!st.f) {
		fail_at(&st, 0, "cannot open: %s", strerror(errno));
		return -1;
	}
	r = ini_parse_stream(reader, &st, handler, &st);
	if (ferror(st.f))
		fail_at(&st, 0, "cannot read: %s", strerror(st.read_errno ?
							     st.read_errno :
							     EIO));
	else if (r == -2)
		fail_at(&st, 0, "out of memory");
	else if (r != 0)                /* inih saw what we did not: a bug */
		fail_at(&st, (unsigned)r, "syntax error");
	fclose(st.f);
	free(st.buf);

	if (!st.failed)
		check_orders(&st);
	if (!st.failed)
		resolve_path(&st, S_SIM, "workload");
	if (!st.failed)
		resolve_path(&st, S_HTTP, "web_config");
	if (!st.failed)
		own_strings(&st);
	if (st.failed) {
		conf_free(c);
		return -1;
	}
	return 0;
}

/* ---- conf_dump ---------------------------------------------------------- */

/* Would "name = v" read back as v? */
static bool writable(const char *name, const char *v)
{
	size_t len = strlen(v), i;

	if (strlen(name) + 3 + len > DUMP_LINE_MAX || has_ctrl(v))
		return false;
	if (len && (isspace((unsigned char)v[0]) || v[0] == ';' ||
		    isspace((unsigned char)v[len - 1])))
		return false;
	for (i = 1; i < len; i++)
		if (v[i] == ';' && isspace((unsigned char)v[i - 1]))
			return false;
	return true;
}

/* Everything conf_load() would refuse, so the dump always loads. */
static bool dump_valid(const struct conf *c)
{
	char why[256];
	unsigned i, j;
	size_t n;

	for (n = 0; n < NKEYS; n++) {
		const struct key *k = &keys[n];
		const void *p = cfield(c, k);
		const char *s;

		switch (k->type) {
		case KT_UINT:
			if (*(const unsigned *)p < k->min ||
			    *(const unsigned *)p > k->max)
				return false;
			break;
		case KT_BOOL:
			break;
		case KT_ENUM:
			if ((unsigned)*(const enum conf_policy *)p >=
			    sizeof(policy_names) / sizeof(policy_names[0]) - 1)
				return false;
			break;
		case KT_CHOICE:
			s = *(char *const *)p;
			if (!s || choice_index(k->choices, s) < 0)
				return false;
			break;
		case KT_STR:
			s = *(char *const *)p;
			if (!s || !writable(k->name, s) ||
			    (!*s && !k->empty_ok) ||
			    (*s && !k->check(s, why, sizeof(why))))
				return false;
			break;
		case KT_LISTEN:
			if (c->nlisten > CONF_MAX_LISTEN)
				return false;
			for (i = 0; i < c->nlisten; i++) {
				if (!c->listen[i] ||
				    !writable("listen", c->listen[i]) ||
				    !check_listen(c->listen[i], why,
						  sizeof(why)))
					return false;
				for (j = 0; j < i; j++)
					if (!strcmp(c->listen[i], c->listen[j]))
						return false;
			}
			break;
		}
	}
	for (n = 0; n < sizeof(orders) / sizeof(orders[0]); n++) {
		const struct key *lo = key_find_any(orders[n].lo);
		const struct key *hi = key_find_any(orders[n].hi);

		if (lo && hi && *(const unsigned *)cfield(c, lo) >
				*(const unsigned *)cfield(c, hi))
			return false;
	}
	if (c->nbaseline > CONF_MAX_BASELINE)
		return false;
	for (i = 0; i < c->nbaseline; i++) {
		const struct conf_baseline *b = &c->baseline[i];

		if (memchr(b->unit, '\0', sizeof(b->unit)) == NULL ||
		    !valid_unit(b->unit) || b->nevents > EVENTS_MAX)
			return false;
		for (j = 0; j < i; j++)
			if (!strcmp(b->unit, c->baseline[j].unit))
				return false;
		for (j = 0; j < b->nevents; j++) {
			unsigned m;

			if (!b->events[j] ||
			    !valid_event(b->events[j], strlen(b->events[j])) ||
			    !strcmp(b->events[j], "none"))
				return false;
			for (m = 0; m < j; m++)
				if (!strcmp(b->events[j], b->events[m]))
					return false;
		}
	}
	return true;
}

static void dump_baseline(const struct conf_baseline *b, FILE *f)
{
	size_t col;
	unsigned j;

	fprintf(f, "%s =", b->unit);
	col = strlen(b->unit) + 2;
	if (!b->nevents)
		fputs(" none", f);
	for (j = 0; j < b->nevents; j++) {
		size_t w = strlen(b->events[j]) + 2;

		if (j && col + w > 76) {        /* continue on the next line */
			fputs("\n\t", f);
			col = 8;
		} else {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%s%s", b->events[j],
			j + 1 < b->nevents ? "," : "");
		col += w - 1;
	}
	fputc('\n', f);
}

int conf_dump(const struct conf *c, FILE *f)
{
	int s;
	size_t n;
	unsigned i;

	if (!dump_valid(c))
		return -EINVAL;
	if (c->path && !has_ctrl(c->path))
		fprintf(f, "# uncored.conf(5): effective configuration, "
			"loaded from %s\n", c->path);
	else
		fprintf(f, "# uncored.conf(5): effective configuration\n");
	for (s = 0; s < S_COUNT; s++) {
		fprintf(f, "\n[%s]\n", sect_names[s]);
		if (s == S_BASELINE) {
			if (!c->baseline_given || !c->nbaseline)
				fputs("; no unit given: the platform's default "
				      "events\n", f);
			else
				for (i = 0; i < c->nbaseline; i++)
					dump_baseline(&c->baseline[i], f);
		}
		for (n = 0; n < NKEYS; n++) {
			const struct key *k = &keys[n];
			const void *p = cfield(c, k);
			const char *v;

			if ((int)k->sect != s)
				continue;
			switch (k->type) {
			case KT_UINT:
				fprintf(f, "%s = %u\n", k->name,
					*(const unsigned *)p);
				break;
			case KT_BOOL:
				fprintf(f, "%s = %s\n", k->name,
					*(const bool *)p ? "yes" : "no");
				break;
			case KT_ENUM:
				fprintf(f, "%s = %s\n", k->name, k->choices[
					*(const enum conf_policy *)p]);
				break;
			case KT_CHOICE:
			case KT_STR:
				v = *(char *const *)p;
				fprintf(f, "%s =%s%s\n", k->name, *v ? " " : "",
					v);
				break;
			case KT_LISTEN:
				if (!c->nlisten)
					fprintf(f, "%s = none\n", k->name);
				for (i = 0; i < c->nlisten; i++)
					fprintf(f, "%s = %s\n", k->name,
						c->listen[i]);
				break;
			}
		}
	}
	if (fflush(f) != 0 || ferror(f))
		return -EIO;
	return 0;
}
