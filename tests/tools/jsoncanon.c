/*
 * jsoncanon - reads one JSON document on stdin and writes it back the way
 * the daemon has json-c serialize a tree built from its values
 * (JSON_C_TO_STRING_PLAIN | NOSLASHESCAPE, then a newline): every number
 * is rebuilt from its value (doubles with jnum_new(), src/base/jnum.h), so the
 * daemon's number formatting is used rather than the text it parsed.  The daemon streams /api/v1/samples without json-c; a test
 * compares its bytes with this tool's output to show nothing changed for
 * clients.  Exit status 1 on a parse error.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/jnum.h"

static struct json_object *rebuild(struct json_object *o)
{
	struct json_object *n;

	switch (json_object_get_type(o)) {
	case json_type_null:
		return NULL;
	case json_type_boolean:
		return json_object_new_boolean(json_object_get_boolean(o));
	case json_type_double:
		return jnum_new(json_object_get_double(o));
	case json_type_int:
		/* json-c keeps integers above INT64_MAX as uint64 */
		if (json_object_get_int64(o) == INT64_MAX)
			return json_object_new_uint64(json_object_get_uint64(o));
		return json_object_new_int64(json_object_get_int64(o));
	case json_type_string:
		return json_object_new_string(json_object_get_string(o));
	case json_type_array:
		n = json_object_new_array();
		for (size_t i = 0; i < json_object_array_length(o); i++)
			json_object_array_add(n, rebuild(
				json_object_array_get_idx(o, i)));
		return n;
	case json_type_object:
		n = json_object_new_object();
		json_object_object_foreach(o, k, v)
			json_object_object_add(n, k, rebuild(v));
		return n;
	}
	return NULL;
}

int main(void)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *o = NULL, *n;
	enum json_tokener_error e = json_tokener_continue;
	char buf[65536];
	size_t len;

	while (e == json_tokener_continue &&
	       (len = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		o = json_tokener_parse_ex(tok, buf, (int)len);
		e = json_tokener_get_error(tok);
	}
	if (!o || (e != json_tokener_success)) {
		fprintf(stderr, "jsoncanon: %s\n", json_tokener_error_desc(e));
		return 1;
	}
	n = rebuild(o);
	fputs(json_object_to_json_string_ext(n, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE),
	      stdout);
	putchar('\n');
	json_object_put(n);
	json_object_put(o);
	json_tokener_free(tok);
	return 0;
}
