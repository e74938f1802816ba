/*
 * cli.h - uncored's command line: its options, --help, --version and
 * --list-platforms.
 *
 * The options are kept as given; uncored.c applies them over the
 * configuration file (a command-line option replaces its key).
 */
#ifndef UNCORED_CLI_H
#define UNCORED_CLI_H

#include <stdbool.h>

#include "conf.h"

#define DEFAULT_CONF SYSCONFDIR "/uncored/uncored.conf"

struct options {
	const char *conf_path;
	bool conf_given;
	bool simulate;
	const char *sim_platform;
	const char *workload;
	const char *sim_state;
	const char *listen[CONF_MAX_LISTEN];
	unsigned nlisten;
	const char *control_socket;
	const char *web_config;
	unsigned interval_ms;
	bool foreground;
	bool check_only;
	bool self_test;
	const char *log_level;
	const char *log_format;		/* auto (NULL), journal or text */
	const char *user;
	const char *backend;		/* --backend */
	const char *sysfs;		/* --path.sysfs */
	const char *resctrl;		/* --path.resctrl */
	const char *unavailable;	/* --unavailable */
};

/* Fills o from argv.  --help, --version and --list-platforms print and
 * exit 0; a bad option or value says which on stderr and exits
 * EXIT_USAGE (64). */
void cli_parse(int argc, char **argv, struct options *o);

#endif
