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
#include <stdint.h>
#include <sys/types.h>

#include "lib/lconn.h"
#include "lib/lproto.h"
#include "uncored.h"

#define LIB_ID_MAX 33		/* a claim id, NUL included */
#define LIB_ERR_MAX 512

struct regions;
struct lib_region_ops;

/*
 * A claim made through a connection.  The connection keeps it alive: a
 * thread of the connection's own renews it at a third of its lease (and
 * reads it, so that its last reading is never older than that), until
 * it is released or the connection is closed.  A claim the daemon no
 * longer knows (a restart, a release by root) is lost: it stays on the
 * list, no longer read, with why, and regions keep what it counted up
 * to its last reading.
 */
struct lib_claim {
	char id[LIB_ID_MAX];
	char *events;		/* as claimed (for the messages) */
	char *evs;		/* its events as the daemon named them, a
				   line each: its answers must name the
				   same */
	unsigned ttl_s;		/* the lease the daemon gave it */
	uint64_t due_ns;	/* CLOCK_MONOTONIC: its next renewal */
	struct lproto_counts last;	/* its last reading (nev 0: none) */
	bool lost;
	char why[200];		/* what lost it */
	pid_t pid;		/* the process that made it: only its
				   renewing thread renews it, and only its
				   end (uncored_disconnect(), exit) ends it */
	bool keep;		/* UNCORED_KEEP: outlives the connection and
				   the process, for its lease */
};

struct uncored {
	pthread_mutex_t lock;	/* every call holds it (lib_lock()) */
	_Atomic pid_t pid;	/* the process lock is valid in: after
				   fork(), the child makes it anew */
	struct lconn conn;
	char err[LIB_ERR_MAX];	/* the last failure's message */
	char label[64];		/* of the claims made from now on */
	/* the claims made through this connection (regions read the ones
	 * not lost), in the order they were made */
	struct lib_claim *cl;
	size_t ncl, capcl;
	/* the renewing thread: started with the first claim, by process
	 * renew_pid (a child of fork() has none) */
	pthread_t renewer;
	pid_t renew_pid;
	bool renewing, stop;
	pthread_cond_t wake;	/* CLOCK_MONOTONIC; stop, or a new claim */
	/* the thread met the daemon's restart (-ECONNRESET, said once):
	 * the program's next call is told it, with this message */
	bool reset_unseen;
	char reset_msg[LIB_ERR_MAX];
	/* what reading a claim costs, for the report: the last
	 * LIB_NLAT readings' round trips (ns), nreads of them so far */
#define LIB_NLAT 64
	uint64_t lat[LIB_NLAT];
	uint64_t nreads;
	struct regions *reg;	/* region.c's; NULL until a region */
	/* what region.c does with them when the connection is reported
	 * or closed (set with reg; the public calls never name region.c) */
	const struct lib_region_ops *reg_ops;
	bool reported;		/* on the list printed at exit */
	struct uncored *next;	/* that list */
	struct uncored *next_open;	/* the open connections, whose
					   claims end at exit */
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
 * 0 or -errno (u->err set).  A claim of u's: its last reading kept, or
 * on -ENOENT, -ECONNRESET or -ENOTCONN, marked lost (said on stderr). */
int lib_read_locked(struct uncored *u, const char *id,
		    struct lproto_counts *c);
/* u's claim id, or NULL. */
struct lib_claim *lib_claim_of(struct uncored *u, const char *id);
/* A deep copy of a into *b (b cleared first); 0 or -ENOMEM. */
int lib_counts_copy(struct lproto_counts *b, const struct lproto_counts *a);
/* CLOCK_MONOTONIC in ns. */
uint64_t lib_mono_ns(void);
/* uncored_claim() with u->lock held.  0 or -errno. */
int lib_claim_locked(struct uncored *u, const char *events, unsigned ttl_s,
		     unsigned flags, char *id, size_t idlen);
/* lib_claim_locked() with formulas too (uncored_claim_formulas()):
 * either list may be NULL, not both. */
int lib_claim_f_locked(struct uncored *u, const char *events,
		       const char *formulas, unsigned ttl_s, unsigned flags,
		       char *id, size_t idlen);
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
