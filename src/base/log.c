/*
 * log.c - journal-friendly logging to stderr (see log.h).
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static const char *log_prog = "uncored";
/* Changed on SIGHUP while other threads log: atomics. */
static _Atomic int log_max = LOG_LVL_INFO;
/* Set once by log_init() (or on first use), before threads start. */
static _Atomic int log_journal = -1;

/*
 * Is stderr the journal's stream?  systemd exports JOURNAL_STREAM as
 * "DEVICE:INODE" of the stream it connected to stderr; a match (not just
 * the variable, which a child whose stderr was redirected inherits) means
 * journald reads "<N>" prefixes as priorities (systemd.exec(5),
 * "$JOURNAL_STREAM").
 */
bool log_stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (!js || sscanf(js, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(const char *progname, enum log_level max)
{
	if (progname)
		log_prog = progname;
	atomic_store(&log_max, (int)max);
	atomic_store(&log_journal, log_stderr_is_journal());
}

void log_set_journal(bool journal)
{
	atomic_store(&log_journal, journal);
}

void log_set_level(enum log_level max)
{
	atomic_store(&log_max, (int)max);
}

static const char *level_name(enum log_level lvl)
{
	switch (lvl) {
	case LOG_LVL_ERR: return "error";
	case LOG_LVL_WARN: return "warning";
	case LOG_LVL_NOTICE: return "notice";
	case LOG_LVL_INFO: return "info";
	default: return "debug";
	}
}

/*
 * One fprintf per message so concurrent threads do not interleave.  To
 * the journal: "<N>message" (journald adds the time and the unit).
 * Anywhere else (a terminal, a file, a pipe): the local time with its
 * UTC offset, the program and the level as a word.
 */
static void emit(enum log_level lvl, const char *fmt, va_list ap,
		 const char *suffix)
{
	char body[1024], when[48] = "";
	int journal;

	if ((int)lvl > atomic_load_explicit(&log_max, memory_order_relaxed))
		return;
	vsnprintf(body, sizeof(body), fmt, ap);
	journal = atomic_load_explicit(&log_journal, memory_order_relaxed);
	if (journal < 0) {
		journal = log_stderr_is_journal();
		atomic_store_explicit(&log_journal, journal,
				      memory_order_relaxed);
	}
	if (journal) {
		fprintf(stderr, "<%d>%s%s%s\n", (int)lvl, body,
			suffix ? ": " : "", suffix ? suffix : "");
		return;
	}
	{
		struct timespec ts;
		struct tm tm;
		char zone[8];

		clock_gettime(CLOCK_REALTIME, &ts);
		if (localtime_r(&ts.tv_sec, &tm) &&
		    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm) &&
		    strftime(zone, sizeof(zone), "%z", &tm))
			snprintf(when + strlen(when), sizeof(when) - strlen(when),
				 ".%03ld%s ", ts.tv_nsec / 1000000L, zone);
	}
	fprintf(stderr, "%s%s: %s: %s%s%s\n", when, log_prog, level_name(lvl),
		body, suffix ? ": " : "", suffix ? suffix : "");
}

void log_vmsg(enum log_level lvl, const char *fmt, va_list ap)
{
	int saved = errno;

	emit(lvl, fmt, ap, NULL);
	errno = saved;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	emit(lvl, fmt, ap, NULL);
	va_end(ap);
	errno = saved;
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;
	char ebuf[128];
	const char *e = strerror_r(saved, ebuf, sizeof(ebuf));

	va_start(ap, fmt);
	emit(LOG_LVL_WARN, fmt, ap, e);
	va_end(ap);
	errno = saved;
}

#define LOG_SIMPLE(fn, lvl)                        \
	void fn(const char *fmt, ...)              \
	{                                          \
		va_list ap;                        \
		int saved = errno;                 \
		va_start(ap, fmt);                 \
		emit(lvl, fmt, ap, NULL);          \
		va_end(ap);                        \
		errno = saved;                     \
	}

LOG_SIMPLE(log_warnx, LOG_LVL_WARN)
LOG_SIMPLE(log_info, LOG_LVL_INFO)
LOG_SIMPLE(log_debug, LOG_LVL_DEBUG)
LOG_SIMPLE(log_err, LOG_LVL_ERR)

void log_fatalx(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(LOG_LVL_ERR, fmt, ap, NULL);
	va_end(ap);
	exit(status);
}

void log_warnx_limited(struct log_limit *l, const char *fmt, ...)
{
	struct timespec ts;
	char msg[1024];
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (l->next_s && ts.tv_sec < l->next_s) {
		l->held++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (l->held)
		log_warnx("%s (%u more like it in the last %d s not logged)", msg,
			  l->held, LOG_LIMIT_S);
	else
		log_warnx("%s", msg);
	l->held = 0;
	l->next_s = (long long)ts.tv_sec + LOG_LIMIT_S;
}
