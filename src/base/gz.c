/*
 * gz.c - gzip for HTTP responses (see gz.h).
 *
 * zlib's deflate with a gzip wrapper (windowBits 15 + 16) at level 1
 * (Z_BEST_SPEED): on the skl simulator's 11 KB exposition level 1 gave
 * 2724 bytes in 96 us, the default level 6 2485 bytes in 160 us (Debian's
 * zlib through Python, this machine); the last 9 % of size is not worth
 * 1.7 times the CPU on every scrape.  Per-scrape figures with and without
 * gzip are in doc/performance.md (make bench).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "gz.h"

#define GZ_LEVEL	Z_BEST_SPEED

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/*
 * A qvalue (RFC 9110 12.4.2): "0", "0.xxx", "1", "1.000", in thousandths;
 * -1 if malformed.
 */
static int qvalue(const char *p, size_t n)
{
	int q, i, scale = 100;

	if (n == 0 || (p[0] != '0' && p[0] != '1') || (n > 1 && p[1] != '.') ||
	    n > 5)
		return -1;
	q = (p[0] - '0') * 1000;
	for (i = 2; i < (int)n; i++) {
		if (p[i] < '0' || p[i] > '9' || (q == 1000 && p[i] != '0'))
			return -1;
		q += (p[i] - '0') * scale;
		scale /= 10;
	}
	return q;
}

bool gz_accepted(const char *ae)
{
	int q_gzip = -1, q_star = -1;
	const char *p = ae ? ae : "";

	while (*p) {
		const char *tok, *end;
		size_t tlen;
		int q = 1000;

		p = skip_ws(p);
		tok = p;
		while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
			p++;
		tlen = (size_t)(p - tok);
		/* Parameters: only q matters. */
		for (;;) {
			p = skip_ws(p);
			if (*p != ';')
				break;
			p = skip_ws(p + 1);
			end = p;
			while (*end && *end != ',' && *end != ';' &&
			       *end != ' ' && *end != '\t')
				end++;
			if ((p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
				q = qvalue(p + 2, (size_t)(end - p - 2));
			p = end;
		}
		if (q < 0)
			q = 0;
		if ((tlen == 4 && strncasecmp(tok, "gzip", 4) == 0) ||
		    (tlen == 6 && strncasecmp(tok, "x-gzip", 6) == 0)) {
			if (q > q_gzip)
				q_gzip = q;
		} else if (tlen == 1 && *tok == '*') {
			q_star = q;
		}
		while (*p && *p != ',')	/* junk after the element */
			p++;
		if (*p == ',')
			p++;
	}
	return q_gzip >= 0 ? q_gzip > 0 : q_star > 0;
}

int gz_compress(const void *in, size_t len, char **out, size_t *outlen)
{
	z_stream z;
	uLong bound;
	char *b;
	int rc;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, GZ_LEVEL, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	/* deflateBound() includes the gzip header and trailer; the slack
	   is cheap insurance. */
	bound = deflateBound(&z, (uLong)len) + 64;
	b = malloc(bound);
	if (!b || len > (uInt)-1) {
		deflateEnd(&z);
		free(b);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)b;
	z.avail_out = (uInt)bound;
	rc = deflate(&z, Z_FINISH);
	if (rc != Z_STREAM_END) {
		deflateEnd(&z);
		free(b);
		return -EIO;
	}
	*outlen = z.total_out;
	deflateEnd(&z);
	*out = b;
	return 0;
}

/* ---- streaming ------------------------------------------------------ */

#define GZ_STREAM_IN	(16 * 1024)

struct gz_stream {
	z_stream z;
	gz_source_fn src;
	void *arg;
	bool eof;		/* src said it has no more */
	bool done;		/* the gzip trailer is out */
	unsigned char in[GZ_STREAM_IN];
};

struct gz_stream *gz_stream_new(gz_source_fn src, void *arg)
{
	struct gz_stream *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	if (deflateInit2(&g->z, GZ_LEVEL, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	g->src = src;
	g->arg = arg;
	return g;
}

long gz_stream_read(struct gz_stream *g, char *out, size_t max)
{
	if (g->done)
		return GZ_STREAM_END;
	if (max > (uInt)-1)
		max = (uInt)-1;
	g->z.next_out = (Bytef *)out;
	g->z.avail_out = (uInt)max;
	/* Deflate until some output is ready: deflate() may swallow
	   several input blocks before it emits a byte. */
	while (g->z.avail_out == max && !g->done) {
		int rc;

		if (g->z.avail_in == 0 && !g->eof) {
			long n = g->src(g->arg, (char *)g->in, sizeof(g->in));

			if (n == GZ_STREAM_END)
				g->eof = true;
			else if (n <= 0)
				return GZ_STREAM_ERROR;
			else {
				g->z.next_in = g->in;
				g->z.avail_in = (uInt)n;
			}
		}
		rc = deflate(&g->z, g->eof ? Z_FINISH : Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			g->done = true;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return GZ_STREAM_ERROR;
	}
	return (long)(max - g->z.avail_out);
}

void gz_stream_free(struct gz_stream *g)
{
	if (!g)
		return;
	deflateEnd(&g->z);
	free(g);
}
