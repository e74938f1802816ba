/*
 * http_tls.h - TLS on the HTTP server's TCP listeners (http.c): the
 * options a listener's MHD daemon gets from the web config, the client
 * certificate policy libmicrohttpd cannot enforce itself, and one TCP
 * transmission per TLS answer (its header sent with its body).
 */
#ifndef UNCORED_HTTP_TLS_H
#define UNCORED_HTTP_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include <microhttpd.h>

#include "webcfg.h"

/* Room tls_options() needs, MHD_OPTION_END not counted. */
#define TLS_OPTIONS 5

/*
 * Writes w's TLS options as MHD_OPTION_ARRAY items into o (room for
 * TLS_OPTIONS + 1), ending with MHD_OPTION_END; none for a control
 * socket or without TLS.  Returns true if the listener serves TLS.
 */
bool tls_options(const struct webcfg *w, bool control,
		 struct MHD_OptionItem *o);
/* A connection started on a TLS listener with web config w: its records
 * are pushed by tls_more()'s rule, and its handshake enforces w's client
 * certificate policy. */
void tls_started(const struct webcfg *w, struct MHD_Connection *c);
/* Why the client certificate of c is not acceptable under w, or NULL. */
const char *tls_cert_problem(const struct webcfg *w,
			     struct MHD_Connection *c);
/* The request this thread answers next is a HEAD one, or not. */
void tls_request(bool head);
/* The answer just queued on c has a body of len bytes (status): its
 * header goes out with it on a TLS connection. */
void tls_more(struct MHD_Connection *c, size_t len, unsigned status);

#endif
