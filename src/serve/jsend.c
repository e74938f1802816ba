/*
 * jsend.c - a JSON answer of the routes (see jsend.h): one place for
 * what api.c, unavail.c, api_formulas.c and api_groups.c each wrote.
 */
#include "config.h"

#include <json-c/json.h>

#include "base/buf.h"
#include "base/jtext.h"
#include "jsend.h"

void send_json(struct http_resp *resp, struct json_object *o)
{
	resp->ctype = "application/json";
	jtext_put_valid(&resp->body, json_object_to_json_string_ext(
				o, JSON_C_TO_STRING_PLAIN |
				   JSON_C_TO_STRING_NOSLASHESCAPE));
	buf_putc(&resp->body, '\n');
	json_object_put(o);
}
