/*
 * jtext.c - a JSON request body as the client wrote it (see jtext.h).
 *
 * One recursive walk serves both questions.  Nesting is bounded by the
 * parse that came first (api_claims.c allows 8 levels); the walk stops
 * at JTEXT_DEPTH all the same.  Each object's member names go into a
 * json-c object used as a set, decoded as json-c decodes them (a name
 * with escapes through json-c's own tokener), so "a" and "\u0061" are
 * one name here as they are in the tree.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "buf.h"
#include "jtext.h"

#define JTEXT_DEPTH 64

struct walk {
	const char *s;
	size_t len, pos;
	unsigned depth;
	/* jtext_dup_key() */
	bool dups;
	long dup_at;
	char *name;
	size_t namelen;
	/* jtext_member() */
	const char *want;
	const char *val;
	size_t vlen;
};

static void skip_ws(struct walk *w)
{
	while (w->pos < w->len && (w->s[w->pos] == ' ' || w->s[w->pos] == '\t' ||
				   w->s[w->pos] == '\r' || w->s[w->pos] == '\n'))
		w->pos++;
}

/* Past the string whose opening quote is at pos; false if unterminated. */
static bool skip_string(struct walk *w)
{
	w->pos++;
	while (w->pos < w->len) {
		char c = w->s[w->pos++];

		if (c == '\\')
			w->pos++;
		else if (c == '"')
			return true;
	}
	return false;
}

/* The decoded text of the string s[0..n) (quotes included), malloc'd;
 * NULL when out of memory or not a string. */
static char *decode(const char *s, size_t n)
{
	struct json_tokener *tok;
	struct json_object *o;
	char *r = NULL;

	if (!memchr(s, '\\', n)) {
		r = malloc(n - 1);
		if (r) {
			memcpy(r, s + 1, n - 2);
			r[n - 2] = '\0';
		}
		return r;
	}
	if (!(tok = json_tokener_new()))
		return NULL;
	o = json_tokener_parse_ex(tok, s, (int)n);
	if (o && json_object_is_type(o, json_type_string))
		r = strdup(json_object_get_string(o));
	json_object_put(o);
	json_tokener_free(tok);
	return r;
}

static bool walk_value(struct walk *w);

/* A member name at pos: noted in set (a duplicate recorded).  false to
 * stop the walk. */
static bool walk_name(struct walk *w, struct json_object *set, bool top,
		      bool *wanted)
{
	size_t a = w->pos;
	char *name;
	bool ok = true;

	*wanted = false;
	if (w->pos >= w->len || w->s[w->pos] != '"' || !skip_string(w))
		return false;
	if (!w->dups && !(top && w->want))
		return true;
	if (!(name = decode(w->s + a, w->pos - a)))
		return false;
	if (top && w->want && !w->val && strcmp(name, w->want) == 0)
		*wanted = true;
	if (w->dups) {
		if (json_object_object_get_ex(set, name, NULL)) {
			w->dup_at = (long)a;
			if (w->namelen) {
				strncpy(w->name, name, w->namelen - 1);
				w->name[w->namelen - 1] = '\0';
			}
			ok = false;
		} else if (json_object_object_add(set, name, NULL) < 0) {
			ok = false;
		}
	}
	free(name);
	return ok;
}

static bool walk_object(struct walk *w)
{
	struct json_object *set = w->dups ? json_object_new_object() : NULL;
	bool top = w->depth == 1, ok = !w->dups || set;

	w->pos++;	/* '{' */
	skip_ws(w);
	if (ok && w->pos < w->len && w->s[w->pos] == '}') {
		w->pos++;
		json_object_put(set);
		return true;
	}
	while (ok) {
		bool wanted;
		size_t v0;

		skip_ws(w);
		if (!walk_name(w, set, top, &wanted))
			break;
		skip_ws(w);
		if (w->pos >= w->len || w->s[w->pos] != ':')
			break;
		w->pos++;
		skip_ws(w);
		v0 = w->pos;
		if (!walk_value(w))
			break;
		if (wanted) {
			w->val = w->s + v0;
			w->vlen = w->pos - v0;
		}
		skip_ws(w);
		if (w->pos < w->len && w->s[w->pos] == ',') {
			w->pos++;
			continue;
		}
		if (w->pos < w->len && w->s[w->pos] == '}') {
			w->pos++;
			json_object_put(set);
			return true;
		}
		break;
	}
	json_object_put(set);
	return false;
}

static bool walk_array(struct walk *w)
{
	w->pos++;	/* '[' */
	skip_ws(w);
	if (w->pos < w->len && w->s[w->pos] == ']') {
		w->pos++;
		return true;
	}
	for (;;) {
		if (!walk_value(w))
			return false;
		skip_ws(w);
		if (w->pos < w->len && w->s[w->pos] == ',') {
			w->pos++;
			continue;
		}
		if (w->pos < w->len && w->s[w->pos] == ']') {
			w->pos++;
			return true;
		}
		return false;
	}
}

/* The value at pos (no white space before it), and past it. */
static bool walk_value(struct walk *w)
{
	bool ok;

	if (w->pos >= w->len || w->depth >= JTEXT_DEPTH)
		return false;
	switch (w->s[w->pos]) {
	case '{':
	case '[':
		w->depth++;
		ok = w->s[w->pos] == '{' ? walk_object(w) : walk_array(w);
		w->depth--;
		return ok;
	case '"':
		return skip_string(w);
	default:	/* a number, true, false or null */
		while (w->pos < w->len && w->s[w->pos] != '\0' &&
		       !strchr(",]} \t\r\n", w->s[w->pos]))
			w->pos++;
		return true;
	}
}

long jtext_dup_key(const char *text, size_t len, char *name, size_t namelen)
{
	struct walk w = { .s = text, .len = len, .dups = true, .dup_at = -1,
			  .name = name, .namelen = namelen };

	if (namelen)
		name[0] = '\0';
	skip_ws(&w);
	walk_value(&w);
	return w.dup_at;
}

bool jtext_member(const char *text, size_t len, const char *key,
		  const char **val, size_t *vlen)
{
	struct walk w = { .s = text, .len = len, .want = key };

	skip_ws(&w);
	if (w.pos < len && text[w.pos] == '{')
		walk_value(&w);
	*val = w.val;
	*vlen = w.vlen;
	return w.val != NULL;
}

void jtext_put_valid(struct buf *b, const char *json)
{
	const char *run = json, *s = json;

	while (*s) {
		size_t n = (unsigned char)*s < 0x80 ? 1 : buf_utf8_len(s);

		if (n) {
			s += n;
			continue;
		}
		buf_put(b, run, (size_t)(s - run));
		buf_put(b, "\\ufffd", 6);
		run = ++s;
	}
	buf_put(b, run, (size_t)(s - run));
}
