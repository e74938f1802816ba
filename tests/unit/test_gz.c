/*
 * test_gz.c - gzip for HTTP responses (src/base/gz.c): which Accept-Encoding
 * values accept gzip (RFC 9110 12.5.3, q=0 included), and that
 * gz_compress() output inflates back to the input (checked with zlib's
 * inflate, not with our own code) and is much smaller on an exposition;
 * gz_stream_read() over a source that trickles 7 bytes at a time into
 * odd-sized windows inflates to exactly what the source produced, and a
 * failing source ends the stream with an error.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/gz.h"
#include "tests/tap.h"

static void test_accepted(void)
{
	static const struct {
		const char *ae;
		bool want;
	} t[] = {
		{ NULL, false },
		{ "", false },
		{ "gzip", true },
		{ "GZip", true },
		{ "x-gzip", true },
		{ "deflate, gzip", true },
		{ "gzip;q=0", false },
		{ "gzip; q=0.000", false },
		{ "gzip;q=0.001", true },
		{ "gzip;q=1.0", true },
		{ "gzip ; q=0.5", true },
		{ "identity", false },
		{ "br, deflate", false },
		{ "*", true },
		{ "*;q=0", false },
		{ "*, gzip;q=0", false },
		{ "gzip;q=0, *", false },
		{ "identity;q=1, *;q=0.1", true },
		{ "gzip;q=2", false },		/* malformed q: as q=0 */
		{ "gzip;q=abc", false },
		{ "gzip;level=9", true },	/* other parameters ignored */
		{ "gzipx", false },
		{ "xgzip, deflate", false },
		{ ",,gzip,,", true },
		{ "deflate;q=0.5,gzip;q=0.8", true },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		is_int(gz_accepted(t[i].ae), t[i].want, "Accept-Encoding: %s",
		       t[i].ae ? t[i].ae : "(absent)");
}

static void test_compress(void)
{
	char *text, *z = NULL, *back;
	size_t len = 0, zlen = 0, cap = 64 * 1024;
	z_stream s;
	int rc;

	text = malloc(cap);
	for (int i = 0; len + 200 < cap; i++)
		len += (size_t)snprintf(text + len, cap - len,
			"uncore_event_total{socket=\"0\",unit=\"cbo\","
			"instance=\"%d\",event=\"UNC_CBO_CACHE_LOOKUP.ANY\"} "
			"%d\n", i % 4, i * 7919);
	is_int(gz_compress(text, len, &z, &zlen), 0, "gz_compress");
	ok(z && zlen > 18 && zlen < len / 4, "compressed %zu -> %zu bytes",
	   len, zlen);
	ok(z && (unsigned char)z[0] == 0x1f && (unsigned char)z[1] == 0x8b,
	   "gzip magic (RFC 1952)");

	back = malloc(len + 1);
	memset(&s, 0, sizeof(s));
	ok(inflateInit2(&s, 15 + 16) == Z_OK, "inflateInit2 (gzip only)");
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)zlen;
	s.next_out = (Bytef *)back;
	s.avail_out = (uInt)len + 1;
	rc = inflate(&s, Z_FINISH);
	is_int(rc, Z_STREAM_END, "inflates to the end of the stream");
	is_int(s.total_out, len, "same length back");
	ok(memcmp(back, text, len) == 0, "same bytes back");
	inflateEnd(&s);

	free(z);
	z = NULL;
	is_int(gz_compress("", 0, &z, &zlen), 0, "empty input compresses");
	ok(z && zlen == 20, "empty gzip stream is 20 bytes (got %zu)", zlen);
	free(z);
	free(back);
	free(text);
}

/* A source handing out `len` bytes of `text` in pieces of at most 7
 * bytes (so every refill path runs), then an error if `fail` is set. */
struct src {
	const char *text;
	size_t len, off;
	bool fail;
};

static long piecewise(void *arg, char *buf, size_t size)
{
	struct src *s = arg;
	size_t n = s->len - s->off;

	if (n == 0)
		return s->fail ? GZ_STREAM_ERROR : GZ_STREAM_END;
	if (n > 7)
		n = 7;
	if (n > size)
		n = size;
	memcpy(buf, s->text + s->off, n);
	s->off += n;
	return (long)n;
}

static void test_stream(void)
{
	size_t len = 0, zlen = 0, cap = 200 * 1024;
	char *text = malloc(cap), *z = malloc(cap), *back = malloc(cap);
	struct src src = { 0 };
	struct gz_stream *g;
	unsigned calls = 0;
	z_stream s;
	long n;

	for (int i = 0; len + 200 < cap; i++)
		len += (size_t)snprintf(text + len, cap - len,
			"{\"seq\":%d,\"delta\":%d},", i, i * 7919 % 100003);
	src = (struct src){ .text = text, .len = len };
	g = gz_stream_new(piecewise, &src);
	ok(g != NULL, "gz_stream_new");
	/* read into small, odd windows, as an HTTP server's buffer */
	while ((n = gz_stream_read(g, z + zlen, 1000 + calls % 3)) > 0) {
		zlen += (size_t)n;
		calls++;
	}
	is_int(n, GZ_STREAM_END, "the stream ends with GZ_STREAM_END");
	is_int(gz_stream_read(g, z + zlen, 100), GZ_STREAM_END,
	       "... and stays ended");
	ok(zlen > 18 && zlen < len / 3, "%zu bytes streamed to %zu in %u reads",
	   len, zlen, calls);
	gz_stream_free(g);

	memset(&s, 0, sizeof(s));
	inflateInit2(&s, 15 + 16);
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)zlen;
	s.next_out = (Bytef *)back;
	s.avail_out = (uInt)cap;
	is_int(inflate(&s, Z_FINISH), Z_STREAM_END,
	       "the streamed gzip inflates to its end");
	ok(s.total_out == len && memcmp(back, text, len) == 0,
	   "... to the bytes the source produced");
	inflateEnd(&s);

	src = (struct src){ .text = text, .len = 5000, .fail = true };
	g = gz_stream_new(piecewise, &src);
	while ((n = gz_stream_read(g, z, 1000)) > 0)
		;
	is_int(n, GZ_STREAM_ERROR, "a failing source ends the stream with "
	       "GZ_STREAM_ERROR");
	gz_stream_free(g);
	gz_stream_free(NULL);
	free(text);
	free(z);
	free(back);
}

int main(void)
{
	test_accepted();
	test_compress();
	test_stream();
	return tap_done();
}
