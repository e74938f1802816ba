/*
 * uncorectl.c - the command-line client of uncored (doc/design.md section 8).
 *
 * Every command is one or a few requests to the daemon's control socket
 * (--url talks to a TCP listener instead, which serves only the
 * read-only routes) and a rendering of the JSON answer (json-c) as an
 * aligned table, or, with --json, the daemon's JSON as it came.  It is a
 * client of libuncored (include/uncored.h), so the command line and the
 * library cannot drift: the connection, its error messages and the
 * errno of every refusal are the library's, claims are made and renewed
 * with uncored_claim() and uncored_renew(), a watched claim is read as
 * uncored_read() reads it (GET /api/v1/claims/ID/now), and every other
 * route goes through uncored_request().  The two live commands, `claim
 * --watch` and `top`, poll on a timer; they block SIGINT/SIGTERM/SIGHUP
 * and take them only while waiting (ppoll), so a signal can never cut a
 * request in half and a watched claim is always released.  `run` claims,
 * runs a program and reports the whole run through the library's region
 * report (one region for the run), with the sums over sockets, a named
 * group's figures (GET /api/v1/groups) and a time line beside it.
 *
 * This file has main(), the command table and help; the commands are
 * one family per file, on the helpers of ctl_common.c (uncorectl.h).
 *
 * Exit status: 0 success, 1 the daemon refused or failed (its message is
 * printed), 2 usage, 3 the daemon cannot be reached; `run` exits with the
 * program's status, or 125/126/127 (as env(1)) when it could not run it.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build-info.h"
#include "uncorectl.h"

#ifndef RUNSTATEDIR
#define RUNSTATEDIR "/run"
#endif
#define DEFAULT_SOCKET RUNSTATEDIR "/uncored/uncored.sock"

/* ---- commands, main ------------------------------------------------------- */

static int cmd_help(struct ctl *c, int argc, char **argv);

static const struct command commands[] = {
	{ "status", cmd_status, "[--json]", "daemon version, platform, ticks, ownership",
	  "Show the daemon's version, platform, interval, uptime, ticks and "
	  "PMU ownership.", NULL },
	{ "topology", cmd_topology, "[--json]", "units, counters and who holds them",
	  "Show sockets, units, instances and counters, with what each counter\n"
	  "counts and who holds it (baseline, a claim id, or free).", NULL },
	{ "events", cmd_events, "[PATTERN] [--unit UNIT] [--names] [--json]",
	  "the event catalog",
	  "List the event catalog; PATTERN matches names and descriptions\n"
	  "(case-insensitive substring).",
	  "Options:\n"
	  "  -U, --unit UNIT    only the events of UNIT (a unit name as\n"
	  "                     `uncorectl topology` lists them)\n"
	  "  -n, --names        only the names, one per line\n" },
	{ "formulas", cmd_formulas, "[PATTERN] [--available] [--names] [--json]",
	  "the formula catalog: every metric the manuals and vendors define",
	  "List the formulas of this platform (the uncore manuals' Common Metrics,\n"
	  "Intel's metric files, AMD's recommended metrics) with their unit and\n"
	  "whether each counts here, or why not.  PATTERN matches names and\n"
	  "descriptions (case-insensitive substring).",
	  "Options:\n"
	  "  -a, --available    only the formulas that count here\n"
	  "  -n, --names        only the names, one per line\n" },
	{ "claim", cmd_claim,
	  "[EVENT...] [--formula NAME]... [--ttl S] [--label L] [--export] [--pinned] [--watch S [--count N]]",
	  "claim counters; with --watch, live counts and rates",
	  "Claim counters for EVENTs, and for the events of each formula NAME\n"
	  "of the catalog (see `formulas`), whose values are shown beside the\n"
	  "counts.  Without --watch, print the claim id and\n"
	  "exit: the claim lives until its lease ends or `release`.  With\n"
	  "--watch, show the counts and rates every S seconds, renew the lease\n"
	  "while watching, and release the claim on Ctrl-C, SIGTERM or after N\n"
	  "refreshes, printing the final counts.",
	  "Options:\n"
	  "  -t, --ttl S        lease in seconds (default: the daemon's)\n"
	  "  -l, --label L      label shown in `claims` (default uncorectl)\n"
	  "  -e, --export       also export the counts on /metrics\n"
	  "  -p, --pinned       on counters of its own for its lease, never\n"
	  "                     multiplexed out, counting at once; refused if\n"
	  "                     it cannot have them\n"
	  "  -w, --watch S      refresh every S seconds (decimals allowed)\n"
	  "  -c, --count N      stop after N refreshes\n"
	  "  -f, --formula NAME also count formula NAME (repeatable) and show\n"
	  "                     its value per socket over the claim's life\n" },
	{ "claims", cmd_claims, "[--json]", "list the live claims",
	  "List the live claims (yours; all of them for root).", NULL },
	{ "release", cmd_release, "ID [--json]", "release a claim, print its final counts",
	  "Release a claim and print its final counts.", NULL },
	{ "top", cmd_top, "[--interval S] [--count N] [--json]",
	  "live DRAM GB/s, read latency, LLC hit % and uncore GHz per socket",
	  "Live per-socket DRAM read and write GB/s, the memory read latency\n"
	  "(where the daemon serves it), LLC hit % and uncore GHz, refreshed in\n"
	  "place on a terminal.  q or Ctrl-C quits.",
	  "Options:\n"
	  "  -i, --interval S   refresh every S seconds (default 1)\n"
	  "  -c, --count N      stop after N refreshes\n" },
	{ "groups", cmd_groups, "[--names] [--json]",
	  "named event groups (memory, LLC, latency, links) and their events",
	  "List the named groups (MEM: DRAM bytes and GB/s, and the read latency\n"
	  "where the platform counts it; LLC: lookups, misses and hit ratio;\n"
	  "MEM_LATENCY: mean read latency and reads in flight; one group per\n"
	  "interconnect, named as the platform's links are, for the bytes sent)\n"
	  "with the events they take on this machine\n"
	  "and the figures they give, the same on every platform; a group or a\n"
	  "figure that cannot count here says why.",
	  "Options:\n"
	  "  -n, --names        only the names of the groups that count here\n" },
	{ "run", cmd_run,
	  "(-e EVENTS | -g GROUP)... [--interval S] [--format F] [-o FILE] "
	  "[--pinned] [--markers] [--label L] -- PROGRAM [ARGS...]",
	  "measure a program: claim, run it, report the whole run",
	  "Claim EVENTS (or a group's events), run PROGRAM, release the claim and\n"
	  "report what it counted over the run: the region report of\n"
	  "libuncored (per socket), the counts summed over sockets, the group's\n"
	  "figures per socket and summed, and with --interval a time line.  The\n"
	  "report goes to stderr (or FILE): the program's stdout stays its own.\n"
	  "Signals that other processes send uncorectl are passed on to the\n"
	  "program; the claim ends however the run ends.  Exit status: the\n"
	  "program's (128+N if signal N killed it); 125 if uncorectl failed and\n"
	  "the program was not run; 126 not executable; 127 not found.",
	  "Options:\n"
	  "  -e, --events LIST  events to claim, comma-separated (repeatable)\n"
	  "  -g, --group NAME   a named group ('uncorectl groups')\n"
	  "  -i, --interval S   also a time line, one row every S seconds\n"
	  "  -F, --format F     table (default), csv or json (--json: json)\n"
	  "  -o, --output FILE  write the report to FILE, not stderr\n"
	  "  -p, --pinned       a pinned claim (counters of its own)\n"
	  "  -m, --markers      the program's own libuncored regions count the\n"
	  "                     same events: UNCORED_EVENTS (unless set) and\n"
	  "                     UNCORED_REPORT=1 in its environment\n"
	  "  -l, --label L      the claim's label (default \"run PROGRAM\")\n" },
	{ "help", cmd_help, "[COMMAND]", "help on a command",
	  "Show help for a command.", NULL },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static const char common_help[] =
	"  -j, --json         print the daemon's JSON instead of a table\n"
	"  -s, --socket PATH  control socket (default $UNCORED_SOCKET, else\n"
	"                     " DEFAULT_SOCKET ")\n"
	"  -u, --url URL      talk to a TCP listener, http://HOST:PORT\n"
	"                     (read-only commands only)\n"
	"  -h, --help         this help\n";

void command_help(const struct command *cmd)
{
	printf("usage: %s %s %s\n\n%s\n", prog, cmd->name, cmd->synopsis,
	       cmd->summary);
	if (cmd->details && cmd->details[0])
		printf("\n%s", cmd->details);
	printf("\nCommon options:\n%s", common_help);
}

/* The usage of uncorectl: on stdout for --help, stderr for a mistake. */
void main_help(FILE *f)
{
	fprintf(f, "usage: %s [--socket PATH | --url URL] [--json] COMMAND [ARGS]\n\n"
	       "Client of uncored, the uncore performance-monitoring daemon.\n\n"
	       "Commands:\n", prog);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].brief);
	fprintf(f, "\nOptions (before or after the command):\n%s"
	       "  -V, --version      print the version\n\n"
	       "'%s COMMAND --help' describes a command.  Exit status: 0 ok, "
	       "1 the daemon\nrefused or failed, 2 usage, 3 cannot reach the "
	       "daemon\n(run: the program's status, 125 when it did not run it).  "
	       "See uncorectl(1).\n", common_help, prog);
}

static int cmd_help(struct ctl *c, int argc, char **argv)
{
	const struct command *cmd;

	(void)c;
	if (argc < 2) {
		main_help(stdout);
		return 0;
	}
	if (!(cmd = find_command(argv[1])))
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	command_help(cmd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		COMMON_OPTS,
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct ctl c = { .socket = DEFAULT_SOCKET };
	const struct command *cmd;
	const char *env = getenv("UNCORED_SOCKET");
	int opt, rc;

	if (env && *env)		/* --socket still overrides it */
		c.socket = env;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:" COMMON_SHORT "V", lo, NULL)) != -1) {
		switch (opt) {
		case 'V':
			printf("uncorectl (%s) %s (revision %s, built %s)\n",
			       PACKAGE_NAME, PACKAGE_VERSION, UNCORED_REVISION,
			       UNCORED_BUILD_DATE);
			return 0;
		default:
			if ((rc = common_opt(&c, NULL, opt, argv)))
				return rc < 0 ? 0 : rc;
			break;
		}
	}
	if (optind >= argc) {
		main_help(stderr);
		return EXIT_USAGE;
	}
	if (!(cmd = find_command(argv[optind])))
		return usage_error(NULL, "unknown command '%s'", argv[optind]);
	rc = cmd->run(&c, argc - optind, argv + optind);
	ctl_close(&c);
	if (fflush(stdout) != 0 && errno != EPIPE && !rc) {
		warnx_("writing the output: %s", strerror(errno));
		rc = EXIT_DAEMON;
	}
	return rc;
}
