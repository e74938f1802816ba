/*
 * buf.h - a growable output buffer for renderers.
 *
 * Renderers (Prometheus text, JSON) append to a struct buf without checking
 * every call: when an allocation fails the buffer sets `oom`, drops that
 * write and every later one, and never crashes.  The renderer checks `oom`
 * once at the end and answers 503/500 instead of sending a truncated body.
 *
 * Invariant: once anything has been allocated, p[len] == '\0', so the
 * contents can be used as a C string (the NUL is not counted in len).
 * A zeroed struct buf (or BUF_INIT) is a valid empty buffer.
 */
#ifndef UNCORED_BUF_H
#define UNCORED_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *p;	/* contents, owned by the buffer; NULL until first use */
	size_t len;	/* bytes used, excluding the terminating NUL */
	size_t cap;	/* bytes allocated at p */
	bool oom;	/* an allocation failed: contents are incomplete */
};

#define BUF_INIT { NULL, 0, 0, false }

/*
 * Grows the array *p of elements of size bytes, *cap of them allocated,
 * to hold at least need (doubling: amortised O(1) appends).  *p and *cap
 * are updated; true, or false on ENOMEM with *p and *cap unchanged.
 */
bool buf_grow_array(void **p, unsigned *cap, unsigned need, size_t size);

/* Makes b an empty buffer without allocating. */
void buf_init(struct buf *b);

/* Frees the contents; b is empty (and reusable) afterwards. */
void buf_free(struct buf *b);

/* Empties b and clears oom, keeping the allocation for reuse. */
void buf_reset(struct buf *b);

/*
 * Makes room for n more bytes (plus the NUL).  Returns 0, or -ENOMEM
 * (and sets oom) when the allocation fails or the size would overflow.
 * After an earlier failure it fails at once: a buffer with a hole in it
 * must not grow further.
 */
int buf_reserve(struct buf *b, size_t n);

/* Append; each returns 0 or -ENOMEM (oom set, nothing appended). */
int buf_put(struct buf *b, const void *data, size_t n);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);

/*
 * Appends printf-style output.  Returns 0, -ENOMEM (oom set), or -EINVAL
 * if vsnprintf reports an encoding error; nothing is appended on error.
 */
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * Hands the NUL-terminated contents to the caller, who must free() them;
 * b is left empty.  Returns NULL only when b is (or, allocating the NUL of
 * an empty buffer, becomes) oom; the incomplete contents are freed then.
 * *len, if given, receives the length (0 with NULL).
 */
char *buf_steal(struct buf *b, size_t *len);

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF; 1 for an ASCII
 * byte), or 0 when s does not start one (a cut one included: s is
 * NUL-terminated).
 */
size_t buf_utf8_len(const char *s);

/*
 * Appends s as the inside of a JSON string: '"', '\\' and control
 * characters escaped, and U+FFFD for each byte that is not part of
 * well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF; a URL may carry any byte, and JSON text must be UTF-8:
 * RFC 8259 section 8.1).  Errors as buf_put() (b->oom).
 */
void buf_json_escape(struct buf *b, const char *s);

#endif
