/*
 * lib.h - libuncored's insides shared by its public calls (libuncored.c)
 * and its regions (region.c): the connection object behind struct
 * uncored, and the calls made with its lock held.
 */
#ifndef UNCORED_LIB_H
#define UNCORED_LIB_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/lconn.h"
#include "lib/lproto.h"
#include "uncored.h"

#define LIB_ID_MAX 33		/* a claim id, NUL included */
#define LIB_ERR_MAX 512

struct regions;
struct lib_region_ops;

struct uncored {
	pthread_mutex_t lock;	/* every call holds it (lib_lock()) */
	_Atomic pid_t pid;	/* the process lock is valid in: after
				   fork(), the child makes it anew */
	struct lconn conn;
	char err[LIB_ERR_MAX];	/* the last failure's message */
	char label[64];		/* of the claims made from now on */
	/* the live claims made through this connection (regions read
	 * them), in the order they were made */
	char (*ids)[LIB_ID_MAX];
	char **evs;		/* each one's events as the daemon named
				   them, a line each: its answers must
				   name the same */
	size_t nids, capids;
	struct regions *reg;	/* region.c's; NULL until a region */
	/* what region.c does with them when the connection is reported
	 * or closed (set with reg; the public calls never name region.c) */
	const struct lib_region_ops *reg_ops;
	bool reported;		/* on the list printed at exit */
	struct uncored *next;	/* that list */
};

struct uncored_counts {
	struct lproto_counts c;
};

/* Takes u->lock: in a fork()ed child, first made anew (a thread of the
 * parent may have held it, and that thread is not in the child). */
void lib_lock(struct uncored *u);
void lib_unlock(struct uncored *u);
/* Sets u->err from fmt and returns rc (a negative errno). */
int lib_fail(struct uncored *u, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reads claim id now into *c (lproto_counts_clear() it); u->lock held.
 * 0 or -errno (u->err set). */
int lib_read_locked(struct uncored *u, const char *id,
		    struct lproto_counts *c);
/* uncored_claim() with u->lock held.  0 or -errno. */
int lib_claim_locked(struct uncored *u, const char *events, unsigned ttl_s,
		     unsigned flags, char *id, size_t idlen);
/* Is the environment variable name set to something other than "" or
 * "0"? */
bool lib_env_on(const char *name);

/* What region.c hands the connection with its first region: how to
 * print the report (u->lock held; 0 or -errno) and free the regions. */
struct lib_region_ops {
	int (*report_locked)(struct uncored *u, FILE *f);
	void (*free)(struct uncored *u);
};
/* The calling thread's message for failures without a connection. */
void lib_set_tls_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* The default connection (u NULL in region calls), made on first use:
 * NULL after a failure, with errno and the thread's message set. */
struct uncored *lib_default(void);

#endif
