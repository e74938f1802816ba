/*
 * conf.h - the configuration file, /etc/uncored/uncored.conf (uncored.conf(5)).
 *
 * An INI file read with libinih and checked strictly against one table of
 * keys: an unknown section or key, a repeated key, a malformed or
 * out-of-range value is an error that names the file, the line and what
 * would have been accepted.  The result is a plain struct conf; nothing
 * here touches the hardware, the network or other modules, so checks that
 * need the platform (does unit "cbo" exist, is an event in the catalog,
 * does the interval fit the counter widths, does the group exist) are left
 * to the caller, which has the line of each [baseline] entry for its
 * messages.
 *
 * Strings: after conf_init() every string field points at a built-in
 * default (static storage).  After conf_load() returns 0 every string
 * field (path, log_level, user, backend, sysfs, listen[], control_socket,
 * control_group, web_config, memory_latency, sim_platform, sim_workload,
 * baseline events) is heap memory
 * owned by the struct conf, so a caller overriding one from the command
 * line may free() the old value and assign a strdup()ed one.  conf_free() frees every
 * string that is not a built-in default, so it is safe after either.
 */
#ifndef UNCORED_CONF_H
#define UNCORED_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CONF_MAX_LISTEN 8
#define CONF_MAX_BASELINE 32

enum conf_policy { CONF_POLICY_RECLAIM, CONF_POLICY_YIELD };

/* One [baseline] entry: "unit = events". */
struct conf_baseline {
	char unit[16];                  /* [a-z0-9_]{1,15} */
	char *events[16];               /* event names as written (catalog names
					   or raw "unit:0x..:0x.." encodings) */
	unsigned nevents;               /* 0 means "none": count nothing */
	unsigned line;                  /* line in the file, for later errors */
};

struct conf {
	char *path;                     /* file it was loaded from, NULL if
					   defaults only */
	/* [daemon] */
	unsigned interval_ms;           /* 10..60000, default 1000 */
	unsigned ring_capacity;         /* 2..1000000, default 3600 */
	bool takeover;                  /* default no */
	enum conf_policy interference_policy;   /* default reclaim */
	unsigned interference_check_ticks;      /* 1..3600, default 10: every
						   N ticks all programmed
						   controls are read back */
	char *log_level;                /* error|warning|notice|info|debug,
					   default info */
	char *user;                     /* who the daemon runs as after
					   start-up, default "uncored" */
	char *backend;                  /* auto|direct|perf, default auto:
					   how the counters are reached */
	char *sysfs;                    /* absolute path, default "/sys":
					   where the perf backend finds the
					   kernel's PMUs */
	char *unavailable;              /* exit|serve, default exit: where
					   nothing can be counted (unsupported
					   CPU, no uncore PMU), exit 2 or 4,
					   or keep serving /metrics with
					   uncored_counting_available 0 */
	/* [http] */
	char *listen[CONF_MAX_LISTEN];  /* "ADDR:PORT" as written; default one
					   "0.0.0.0:9464"; "none" gives 0 */
	unsigned nlisten;
	char *control_socket;           /* absolute path, default
					   "/run/uncored/uncored.sock" */
	char *control_group;            /* group name or "", default "" */
	unsigned http_timeout_s;        /* key timeout_s, 1..3600, default 10 */
	unsigned http_max_connections;  /* key max_connections, 1..10000,
					   default 64 */
	unsigned http_max_per_ip;       /* key max_per_ip, 1..10000,
					   default 16 */
	unsigned http_ctl_max;          /* key control_max_connections,
					   1..10000, default 128 */
	unsigned http_ctl_per_uid;      /* key control_max_per_uid, 0..10000,
					   default 0: half the above */
	char *web_config;               /* TLS and basic auth (webcfg.h): ""
					   or a path, relative ones resolved
					   against the directory of the file */
	/* [claims] */
	unsigned max_per_uid;           /* 1..1000, default 8 */
	unsigned max_total;             /* 1..10000, default 64,
					   >= max_per_uid */
	unsigned default_ttl_s;         /* 1..86400, default 60, <= max_ttl_s */
	unsigned max_ttl_s;             /* 1..86400, default 3600 */
	bool allow_raw_events;          /* default no */
	unsigned max_pinned_per_box;    /* 0..7, default 7: counters of one
					   box pinned claims may hold (never
					   more than all but one) */
	unsigned max_pinned_s;          /* 1..86400, default 600: how long a
					   pinned claim keeps counters of its
					   own, renewed or not */
	/* [baseline] */
	struct conf_baseline baseline[CONF_MAX_BASELINE];
	unsigned nbaseline;
	bool baseline_given;            /* false: section empty or absent,
					   platform default for every unit */
	char *memory_latency;           /* [baseline] memory_latency: auto
					   (default), yes or no (or another
					   bool word): conf_memory_latency() */
	char *frequency_limits;         /* [baseline] frequency_limits: the
					   same: conf_frequency_limits() */
	/* [sim] */
	char *sim_platform;             /* key platform: "" or [a-z0-9]+ */
	char *sim_workload;             /* key workload: "" or a path; a
					   relative one is resolved against
					   the directory of the file */
	/* [resctrl] (doc/resctrl.md) */
	bool resctrl_enabled;           /* read resctrl groups; default no */
	char *resctrl_path;             /* absolute, default /sys/fs/resctrl */
	unsigned resctrl_interval_s;    /* seconds between passes, 1..3600 */
	char *resctrl_cgroups;          /* cgroup patterns, blank/comma
					   separated; "" (default): uncored
					   makes no group (resctrl_own.h) */
	char *resctrl_cgroup_path;      /* absolute, default /sys/fs/cgroup */
	unsigned resctrl_max_groups;    /* groups uncored may make, 1..4096 */
	bool resctrl_simulated;         /* path is a simulated (plain) tree:
					   written without the statfs check
					   (resctrl_priv.h); default no */
	/* [formulas] (doc/formulas.md) */
	char *formulas_export;          /* formula names, blank/comma
					   separated; "" (default): none */
	unsigned formulas_export_line;  /* its line, for errors at start */
};

/* [formulas] export: at most this many names, each shorter than this. */
#define CONF_MAX_FORMULAS 32
#define CONF_FORMULA_NAME_MAX 96

/*
 * Fills *c with the built-in defaults.  Allocates nothing: the strings
 * point at static storage.  Call it on a fresh struct or after conf_free().
 */
void conf_init(struct conf *c);

/*
 * Initialises *c (conf_init) and parses the file at path into it.
 * *c must not own anything when called (fresh, or after conf_free()).
 * With path NULL there is no file: *c gets the defaults as heap copies
 * and c->path stays NULL (for a daemon started without a config file
 * that then overrides strings with free() and strdup()).
 *
 * Returns 0 on success; *c then owns heap copies of all its strings and
 * c->path is a copy of path.  Returns -1 on the first problem, with a
 * NUL-terminated message in err (up to errlen bytes, truncated if longer;
 * err may be NULL when errlen is 0) of the form
 *     "PATH:LINE: what is wrong (what is accepted)", e.g.
 *     "uncored.conf:12: interval_ms: 5 is out of range (10..60000)",
 * or "PATH: cannot open: REASON" / "PATH: cannot read: REASON"; *c then
 * holds the defaults again and owns nothing.  Uses no global state, so a
 * reload may run beside threads that use another struct conf.
 */
int conf_load(struct conf *c, const char *path, char *err, size_t errlen);

/* [baseline] memory_latency: whether the platform's latency events
 * (platform.baseline_latency) count: auto where they fit beside the
 * unit's other default events without turns (uncored.c), yes always
 * (the unit's events then take turns where they do not fit), no never. */
enum conf_latency { CONF_LATENCY_AUTO, CONF_LATENCY_YES, CONF_LATENCY_NO };
enum conf_latency conf_memory_latency(const struct conf *c);
/* [baseline] frequency_limits: the same for the platform's frequency
 * limit events (platform.baseline_freq; hsx, snbep: the PCU's). */
enum conf_latency conf_frequency_limits(const struct conf *c);

/*
 * Frees every string *c owns and leaves *c as conf_init() does, so it may
 * be freed again, loaded again or used with the defaults.
 */
void conf_free(struct conf *c);

/*
 * Writes the effective configuration of *c to f as an INI file that
 * conf_load() accepts and that reads back to the same values (every key,
 * every section; an empty [baseline] when !c->baseline_given).
 * Returns 0; -EINVAL, writing nothing, when some value would not load
 * (a caller-set field out of range or malformed, or a string that cannot
 * be written so that it reads back: leading or trailing white space, a
 * control character, " ;", longer than one line); -EIO on a write error.
 */
int conf_dump(const struct conf *c, FILE *f);

#endif
