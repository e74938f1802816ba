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

/*
 * Streaming compression, for bodies produced while they are sent:
 * gz_stream_read() fills out with up to max bytes of the gzip stream of
 * what src(arg, buf, size) produces (src returns a byte count > 0,
 * GZ_STREAM_END after its last byte, or GZ_STREAM_ERROR).  It returns
 * the bytes written (> 0), GZ_STREAM_END once the whole stream (trailer
 * included) is out, or GZ_STREAM_ERROR (src failed, or zlib did).
 * Memory is constant: zlib's state and a 16 KiB input buffer.
 * gz_stream_new() returns NULL when out of memory; the stream is the
 * caller's to gz_stream_free() (NULL is a no-op).
 */
#define GZ_STREAM_END	(-1L)
#define GZ_STREAM_ERROR	(-2L)

typedef long (*gz_source_fn)(void *arg, char *buf, size_t size);
struct gz_stream;

struct gz_stream *gz_stream_new(gz_source_fn src, void *arg);
long gz_stream_read(struct gz_stream *g, char *out, size_t max);
void gz_stream_free(struct gz_stream *g);

#endif
