/*
 * buf.c - growable output buffer (see buf.h).
 *
 * Growth doubles the capacity (at least BUF_MIN), so appending n bytes one
 * call at a time costs O(n) amortised.  Once oom is set every append is a
 * no-op: the caller sees a prefix, never a body with a hole in the middle.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define BUF_MIN 256

void buf_init(struct buf *b)
{
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
	b->oom = false;
}

void buf_free(struct buf *b)
{
	free(b->p);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->p)
		b->p[0] = '\0';
}

int buf_reserve(struct buf *b, size_t n)
{
	size_t need, cap;
	char *np;

	if (b->oom)
		return -ENOMEM;
	if (n > SIZE_MAX - 1 - b->len)
		goto fail;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : BUF_MIN;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	np = realloc(b->p, cap);
	if (!np)
		goto fail;
	if (!b->p)
		np[0] = '\0';
	b->p = np;
	b->cap = cap;
	return 0;
fail:
	b->oom = true;
	return -ENOMEM;
}

int buf_put(struct buf *b, const void *data, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return -ENOMEM;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_put(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
	return buf_put(b, &c, 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	size_t avail;
	int n;

	if (b->oom)
		return -ENOMEM;
	avail = b->cap > b->len ? b->cap - b->len : 0;
	va_copy(ap2, ap);
	n = vsnprintf(avail ? b->p + b->len : NULL, avail, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		goto bad;
	if ((size_t)n >= avail) {
		/* Did not fit: grow to the exact need and format again. */
		if (buf_reserve(b, (size_t)n) < 0) {
			if (b->p)
				b->p[b->len] = '\0';
			return -ENOMEM;
		}
		va_copy(ap2, ap);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap2);
		va_end(ap2);
		if (n < 0)
			goto bad;
	}
	b->len += (size_t)n;
	return 0;
bad:
	if (b->p)
		b->p[b->len] = '\0';
	return -EINVAL;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *buf_steal(struct buf *b, size_t *len)
{
	char *p = NULL;

	if (buf_reserve(b, 0) == 0) {
		p = b->p;
		if (len)
			*len = b->len;
		buf_init(b);
		return p;
	}
	free(b->p);
	buf_init(b);
	if (len)
		*len = 0;
	return NULL;
}

bool buf_grow_array(void **p, unsigned *cap, unsigned need, size_t size)
{
	void *n;

	if (need <= *cap)
		return true;
	if (need > UINT_MAX / 2 || (size_t)need * 2 > SIZE_MAX / size)
		return false;
	n = realloc(*p, (size_t)need * 2 * size);
	if (!n)
		return false;
	*p = n;
	*cap = need * 2;
	return true;
}

size_t buf_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0], n, min, cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void buf_json_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t n = buf_utf8_len(s);

		if (n == 0) {
			buf_puts(b, "\\ufffd");
		} else if (n > 1) {
			buf_put(b, s, n);
			s += n - 1;
		} else if (c == '"' || c == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, (char)c);
		} else if (c == '\n') {
			buf_puts(b, "\\n");
		} else if (c == '\t') {
			buf_puts(b, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			buf_printf(b, "\\u%04x", c);
		} else {
			buf_putc(b, (char)c);
		}
	}
}
