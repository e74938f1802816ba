/*
 * test_gz.c - gzip for HTTP responses (src/gz.c): which Accept-Encoding
 * values accept gzip (RFC 9110 12.5.3, q=0 included), and that
 * gz_compress() output inflates back to the input (checked with zlib's
 * inflate, not with our own code) and is much smaller on an exposition.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "gz.h"
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

int main(void)
{
	test_accepted();
	test_compress();
	return tap_done();
}
