/*
 * owner.h - the owner file: which uncored holds the uncore PMU.
 *
 * At start the daemon reads the file (/run/uncored/owner, or on
 * the simulator beside the sim state, so that side-by-side simulated
 * daemons never collide): a running uncored of this boot holds the PMU
 * (refused, unless takeover), one that is gone left it to be cleaned.
 * The file is written through mkostemp() and rename() and kept open, so
 * that the daemon, unprivileged by then, can empty it at stop where it
 * may not remove it (doc/design.md section 4, "Ownership").
 */
#ifndef UNCORED_OWNER_H
#define UNCORED_OWNER_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/daemon.h"

/* The pid the owner file at path names if it was written in this boot;
 * 0 for none ("" path, no file, no pid, another boot's). */
long owner_pid(const char *path);

/* Is pid a running uncored (by its name)? */
bool owner_alive(pid_t pid);

/* Decides whether d may take the PMU: exits with EXIT_BUSY when another
 * uncored or agent holds it and takeover is off; with takeover, or after
 * a crashed uncored, clears the PMU (d->took_over, d->recovered_stale).
 * Then writes the owner file (d->owner_path, unless ""), or exits 1. */
void owner_take(struct daemon *d, bool takeover);

/* Removes the owner file at path, or empties it where its directory is
 * not writable any more; closes it. */
void owner_release(const char *path);

#endif
