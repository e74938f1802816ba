/*
 * gz.h - gzip for HTTP responses (zlib): does the client accept it, and
 * the compression itself.  /metrics and the JSON routes are compressed
 * when the request's Accept-Encoding allows gzip, as Prometheus' does
 * ("Accept-Encoding: gzip").
 */
#ifndef UNCORED_GZ_H
#define UNCORED_GZ_H

#include <stdbool.h>
#include <stddef.h>

/* Bodies shorter than this are sent as they are: gzip's 18-byte frame
   and the CPU would not pay off. */
#define GZ_MIN_SIZE	256

/*
 * True when the Accept-Encoding value ae (NULL: absent) accepts gzip with
 * a non-zero weight (RFC 9110 section 12.5.3): "gzip" or "x-gzip" with
 * q > 0, or, when neither is named, "*" with q > 0.  "gzip;q=0" refuses
 * it even if "*" is accepted.  Codings are case-insensitive; a malformed
 * q-value makes its element count as q=0.
 */
bool gz_accepted(const char *ae);

/*
 * Compresses len bytes at in into a gzip stream (RFC 1952) in a new
 * malloc()ed buffer, which the caller owns: *out, *outlen.  Returns 0,
 * or -ENOMEM / -EIO (*out untouched).
 */
int gz_compress(const void *in, size_t len, char **out, size_t *outlen);

#endif
