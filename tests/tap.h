/*
 * tap.h - a minimal TAP producer for the unit tests.
 *
 * Each check prints "ok N - desc" or "not ok N - desc" with a diagnostic;
 * tap_done() prints the plan and returns the exit status.  Automake's
 * tap-driver counts every check, so `make check` reports assertions, not
 * just programs.
 */
#ifndef UNCORED_TAP_H
#define UNCORED_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)

#define is_u64(got, want, ...)                                          \
	do {                                                            \
		uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);   \
		if (!tap_ok(g_ == w_, __VA_ARGS__))                     \
			printf("#   got 0x%" PRIx64 " (%" PRIu64 "), "     \
			       "want 0x%" PRIx64 " (%" PRIu64 ")\n  at %s:%d\n", \
			       g_, g_, w_, w_, __FILE__, __LINE__);     \
	} while (0)

#define is_int(got, want, ...)                                          \
	do {                                                            \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (!tap_ok(g_ == w_, __VA_ARGS__))                     \
			printf("#   got %lld, want %lld\n#   at %s:%d\n",   \
			       g_, w_, __FILE__, __LINE__);             \
	} while (0)

#define is_str(got, want, ...)                                          \
	do {                                                            \
		const char *g_ = (got), *w_ = (want);                   \
		if (!tap_ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__)) \
			printf("#   got \"%s\", want \"%s\"\n#   at %s:%d\n", \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)",  \
			       __FILE__, __LINE__);                     \
	} while (0)

/* Passes when needle occurs in hay. */
#define like(hay, needle, ...)                                          \
	do {                                                            \
		const char *h_ = (hay), *n_ = (needle);                 \
		if (!tap_ok(h_ && n_ && strstr(h_, n_) != NULL, __VA_ARGS__)) \
			printf("#   \"%s\"\n#   does not contain \"%s\"\n#   at %s:%d\n", \
			       h_ ? h_ : "(null)", n_ ? n_ : "(null)",  \
			       __FILE__, __LINE__);                     \
	} while (0)

#define is_near(got, want, relerr, ...)                                 \
	do {                                                            \
		double g_ = (got), w_ = (want);                         \
		double d_ = g_ > w_ ? g_ - w_ : w_ - g_;                \
		double lim_ = (relerr) * (w_ < 0 ? -w_ : w_);           \
		if (!tap_ok(d_ <= lim_, __VA_ARGS__))                   \
			printf("#   got %.6g, want %.6g +- %.3g%%\n#   at %s:%d\n", \
			       g_, w_, (relerr) * 100, __FILE__, __LINE__); \
	} while (0)

__attribute__((unused))
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
