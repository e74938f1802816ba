/*
 * jtext.h - a JSON request body as the client wrote it, beside json-c's
 * tree of it.
 *
 * json-c keeps only the last of two members with one name, and clamps an
 * integer past 64 bits to the nearest 64-bit value as it parses.  A
 * request must refuse the first and, for the second, say what was sent:
 * both need the text.  These functions walk text that json-c has already
 * accepted as one valid JSON value (api_claims.c's parse_body()); they
 * stay within len bytes whatever the text holds, and never allocate more
 * than the names of one object's members.
 */
#ifndef UNCORED_JTEXT_H
#define UNCORED_JTEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The first member name given twice in one object anywhere in text (len
 * bytes): returns the byte offset of its second occurrence (its opening
 * quote) and copies the name, decoded as json-c decodes it, into name
 * (namelen bytes, truncated, NUL-terminated); -1 if every object's names
 * are distinct (or the text is not a JSON value, or out of memory: the
 * parse that came first says so).
 */
long jtext_dup_key(const char *text, size_t len, char *name, size_t namelen);

/*
 * The text of the value of member key of the top-level object in text
 * (len bytes), as sent: true with *val pointing into text and *vlen its
 * length (for a string, quotes included); false if there is no such
 * member.
 */
bool jtext_member(const char *text, size_t len, const char *key,
		  const char **val, size_t *vlen);

struct buf;

/*
 * Appends JSON text that json-c (or the same escaping) wrote to b, with
 * every byte that is not part of well-formed UTF-8 written as \ufffd.
 * json-c copies a string's bytes as they are, so a cgroup named with
 * the bytes FF FE made the whole answer invalid JSON (issue 39 §6);
 * outside strings its text is ASCII, so the escape lands inside a
 * string, where it is valid.  Control characters json-c already writes
 * as \u00XX.
 */
void jtext_put_valid(struct buf *b, const char *json);

#endif
