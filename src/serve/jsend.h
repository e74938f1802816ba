/*
 * jsend.h - a JSON answer of the routes: the object as compact text,
 * checked to be valid UTF-8 (base/jtext), a newline, application/json.
 */
#ifndef UNCORED_SERVE_JSEND_H
#define UNCORED_SERVE_JSEND_H

#include "http/http.h"

struct json_object;

/* Writes o into resp's body and drops the caller's reference to it. */
void send_json(struct http_resp *resp, struct json_object *o);

#endif
