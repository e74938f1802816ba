/*
 * ctl_top.c - `uncorectl top`: the daemon's metrics per socket (DRAM
 * GB/s, read latency, LLC hit ratio, uncore clock) from GET
 * /api/v1/metrics, refreshed in place on a terminal, where a key
 * refreshes at once and q quits.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "uncorectl.h"

/* Terminal keys for `top`: no line buffering, no echo; signals intact. */
struct keys {
	bool on;
	struct termios saved;
};

static void keys_on(struct keys *k)
{
	struct termios t;

	k->on = false;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) ||
	    tcgetattr(STDIN_FILENO, &k->saved) < 0)
		return;
	t = k->saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	k->on = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

static void keys_off(struct keys *k)
{
	if (k->on)
		tcsetattr(STDIN_FILENO, TCSANOW, &k->saved);
	k->on = false;
}

#define TOP_LAT "memory_read_latency_all_seconds"

static void top_frame(struct json_object *m, const char *platform, bool tty,
		      double every)
{
	size_t ns;
	struct json_object *socks = jarr(m, "sockets", &ns);
	struct table t;
	char ts[32] = "?";
	double tm;
	bool lat = false;

	if (jnum(m, "time", &tm)) {
		time_t s = (time_t)tm;
		struct tm lt;

		localtime_r(&s, &lt);
		strftime(ts, sizeof(ts), "%H:%M:%S", &lt);
	}
	/* the read latency column where the daemon serves the family
	 * (doc/metrics.md "Memory read latency"): the last interval's
	 * mean over all the socket's reads, "-" for a socket without one */
	for (size_t s = 0; s < ns; s++)
		if (json_object_object_get_ex(json_object_array_get_idx(socks, s),
					      TOP_LAT, NULL))
			lat = true;
	printf("uncored on %s, sample %" PRIu64 " at %s", platform,
	       ju64(m, "seq"), ts);
	if (tty)
		printf("  (every %g s; q quits)", every);
	putchar('\n');
	tbl_init(&t, lat ? "rrrrrr" : "rrrrr");
	tbl_cell(&t, "SOCKET");
	tbl_cell(&t, "DRAM READ GB/s");
	tbl_cell(&t, "DRAM WRITE GB/s");
	if (lat)
		tbl_cell(&t, "READ LATENCY ns");
	tbl_cell(&t, "LLC HIT %%");
	tbl_cell(&t, "UNCORE GHz");
	for (size_t s = 0; s < ns; s++) {
		struct json_object *so = json_object_array_get_idx(socks, s);
		double v;

		tbl_cell(&t, "%" PRIu64, ju64(so, "socket"));
		if (jnum(so, "dram_read_bytes_per_second", &v))
			tbl_cell(&t, "%.2f", v / 1e9);
		else
			tbl_cell(&t, "-");
		if (jnum(so, "dram_write_bytes_per_second", &v))
			tbl_cell(&t, "%.2f", v / 1e9);
		else
			tbl_cell(&t, "-");
		if (lat && jnum(so, TOP_LAT, &v))
			tbl_cell(&t, "%.1f", v * 1e9);
		else if (lat)
			tbl_cell(&t, "-");
		if (jnum(so, "llc_hit_ratio", &v))
			tbl_cell(&t, "%.2f", v * 100);
		else
			tbl_cell(&t, "-");
		if (jnum(so, "clock_hertz", &v))
			tbl_cell(&t, "%.3f", v / 1e9);
		else
			tbl_cell(&t, "-");
	}
	tbl_print(&t, 0, 0);
}

int cmd_top(struct ctl *c, int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ 0 }
	};
	const struct command *cmd = find_command("top");
	bool tty = isatty(STDOUT_FILENO);
	unsigned long count = 0, n = 0;
	double every = 1, next;
	char platform[64];
	struct keys keys = { 0 };
	struct reply r;
	int opt, rc;

	getopt_reset();
	while ((opt = getopt_long(argc, argv, ":" COMMON_SHORT "i:c:", lo, NULL)) != -1) {
		if (opt == 'i') {
			if ((rc = parse_secs(cmd, "--interval", optarg, 0.01, 3600, &every)))
				return rc;
		} else if (opt == 'c') {
			if ((rc = parse_uint(cmd, "--count", optarg, 1, 1000000000, &count)))
				return rc;
		} else {
			PARSE_COMMON(c, cmd, argc, argv, opt);
		}
	}
	if ((rc = no_args(cmd, argc, argv)) || (rc = ctl_open(c)))
		return rc;
	if ((rc = api(c, "GET", "/api/v1/status", NULL, &r, 0))) {
		reply_free(&r);
		return rc;
	}
	snprintf(platform, sizeof(platform), "%s", jstr(r.json, "platform", "?"));
	reply_free(&r);
	live_signals();
	if (!c->json)
		keys_on(&keys);
	next = mono_s();
	while (!g_stop) {
		int k = wait_until(next, keys.on ? STDIN_FILENO : -1);

		if (k == 'q' || k == 'Q' || g_stop)
			break;
		if (k)	/* any other key: refresh now */
			next = mono_s();
		if (mono_s() < next)
			continue;
		if ((rc = http(c, "GET", "/api/v1/metrics", NULL, &r, 0)))
			break;
		if (r.status == 503 && !c->json) {
			/* no sample yet: say so and keep waiting */
			if (tty)
				fputs("\033[H\033[2J", stdout);
			printf("uncored on %s: %s\n", platform,
			       jstr(jget(r.json, "error"), "message", "not ready"));
		} else if (r.status < 200 || r.status > 299 ||
			   !json_object_is_type(r.json, json_type_object)) {
			report_error(c, "GET", "/api/v1/metrics", &r);
			reply_free(&r);
			rc = EXIT_DAEMON;
			break;
		} else if (c->json) {
			print_raw(&r);
		} else {
			if (tty)
				fputs("\033[H\033[2J", stdout);
			else if (n)
				putchar('\n');
			top_frame(r.json, platform, tty, every);
		}
		reply_free(&r);
		if (!flush_out())
			break;
		if (++n == count)
			break;
		next += every;
		if (next < mono_s())
			next = mono_s() + every;
	}
	keys_off(&keys);
	return rc;
}
