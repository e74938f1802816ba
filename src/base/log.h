/*
 * log.h - journal-friendly logging.
 *
 * Messages go to stderr.  When stderr is the journal's stream (systemd's
 * JOURNAL_STREAM names it), each line has a sd-daemon priority prefix
 * ("<3>"), which journald turns into the message priority; anywhere else
 * a line reads "TIME uncored: LEVEL: message" (local time, ISO 8601 with
 * milliseconds and the UTC offset; LEVEL a word such as "warning").  log_warn() appends strerror(errno) (saved
 * on entry, so the caller's errno survives); log_warnx() does not.  Only
 * start-up code may exit; log_fatal*() are for it alone.
 */
#ifndef UNCORED_LOG_H
#define UNCORED_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARN = 4, LOG_LVL_NOTICE = 5,
		 LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

/* Sets the most verbose level printed (default LOG_LVL_INFO). */
void log_init(const char *progname, enum log_level max);
void log_set_level(enum log_level max);
/* Is stderr the stream systemd connected to the journal? */
bool log_stderr_is_journal(void);
/* Forces the "<N>" form (journal true) or the timestamped one (false),
 * instead of choosing by JOURNAL_STREAM.  Call before threads start. */
void log_set_journal(bool journal);

#define LOG_FMT(a, b) __attribute__((format(printf, a, b)))
void log_msg(enum log_level lvl, const char *fmt, ...) LOG_FMT(2, 3);
void log_vmsg(enum log_level lvl, const char *fmt, va_list ap)
	LOG_FMT(2, 0);
void log_warn(const char *fmt, ...) LOG_FMT(1, 2);
void log_warnx(const char *fmt, ...) LOG_FMT(1, 2);
void log_info(const char *fmt, ...) LOG_FMT(1, 2);
void log_debug(const char *fmt, ...) LOG_FMT(1, 2);
void log_err(const char *fmt, ...) LOG_FMT(1, 2);
/*
 * Rate limiting for a message that may repeat every tick: the first one
 * is logged, then at most one per LOG_LIMIT_S seconds, saying how many
 * were held back.  One struct per message kind, used by one thread.
 */
#define LOG_LIMIT_S 60
struct log_limit {
	long long next_s;	/* CLOCK_MONOTONIC seconds; 0: log now */
	unsigned held;		/* occurrences not logged since */
};
/* A warning through l: logged (with a held-back count appended) or
 * held back. */
void log_warnx_limited(struct log_limit *l, const char *fmt, ...)
	LOG_FMT(2, 3);
_Noreturn void log_fatalx(int status, const char *fmt, ...) LOG_FMT(2, 3);

#endif
