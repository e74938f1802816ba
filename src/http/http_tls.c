/*
 * http_tls.c - TLS on the HTTP server's TCP listeners (see http_tls.h).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include "http_tls.h"

/*
 * One TCP transmission per TLS answer.  libmicrohttpd sends an answer's
 * header and its body with two gnutls_record_send() calls: two records,
 * two sendmsg(2), each a whole TCP transmission (on loopback the
 * receiver's path too, and a wake-up of the client per record).  Under
 * wrk that was 61 % of the HTTP thread's CPU against 36 % in nginx's one
 * write(2) an answer, and most of the gap to it.  So when an answer with
 * a body is queued on a TLS connection (tls_more()), the push function
 * below sends that connection's next record, the header's, with
 * MSG_MORE: the kernel holds it and sends it with the body's record, at
 * the body's sendmsg(2).  Only the serving thread pushes TLS records, so
 * the one pending connection is that thread's.  A header whose body
 * never follows (a HEAD answer) is not held: tls_more() is not called
 * for one.
 */
static _Thread_local int tls_more_fd = -1;
/* The request being answered is not a HEAD one (its answer has a body). */
static _Thread_local bool tls_not_head;

static ssize_t tls_push(gnutls_transport_ptr_t ptr, const giovec_t *iov,
			int iovcnt)
{
	int fd = (int)(intptr_t)ptr, flags = MSG_NOSIGNAL;
	struct msghdr m = { .msg_iov = (struct iovec *)(uintptr_t)iov,
			    .msg_iovlen = (size_t)iovcnt };

	if (fd == tls_more_fd) {
		flags |= MSG_MORE;
		tls_more_fd = -1;
	}
	return sendmsg(fd, &m, flags);
}

/* The header of the answer just queued on c, whose body of len bytes
 * MHD sends next, goes out with that body (above). */
void tls_more(struct MHD_Connection *c, size_t len, unsigned status)
{
	const union MHD_ConnectionInfo *ci;

	if (!tls_not_head || !len || status < 200 || status == 204 ||
	    status == 304)
		return;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci)
		tls_more_fd = ci->connect_fd;
}

/* Sets up tls_push() on c's TLS session, if it has one. */
static void tls_push_setup(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (ci && ci->tls_session)
		gnutls_transport_set_vec_push_function(ci->tls_session,
						       tls_push);
}

/* Does the client certificate policy ask for a certificate at all? */
static bool wants_client_cert(const struct webcfg *w)
{
	return w && w->tls && w->client_auth != WEBCFG_NO_CLIENT_CERT;
}

/* Must the handshake fail without a (verified) client certificate? */
static bool requires_client_cert(const struct webcfg *w)
{
	return w && w->tls &&
	       (w->client_auth == WEBCFG_REQUIRE_ANY_CLIENT_CERT ||
		w->client_auth == WEBCFG_REQUIRE_AND_VERIFY);
}

/*
 * libmicrohttpd only *requests* a client certificate (when it has CAs to
 * offer) and never verifies one.  When a connection starts, its GnuTLS
 * session exists but has not shaken hands yet: make the handshake
 * require the certificate and, for the verifying policies, check it
 * against client_ca_file, so that a client without one fails at the TLS
 * level, as Go's exporters do.  tls_cert_problem() checks again per
 * request, and is the only check of a certificate given under
 * VerifyClientCertIfGiven (a 403 answer rather than a failed handshake).
 */
static void on_connect(const struct webcfg *w, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	gnutls_session_t sess;

	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return;
	sess = ci->tls_session;
	if (requires_client_cert(w))
		gnutls_certificate_server_set_request(sess,
						      GNUTLS_CERT_REQUIRE);
	/* Not for VerifyClientCertIfGiven: GnuTLS would then fail a
	   handshake without a certificate too. */
	if (w->client_auth == WEBCFG_REQUIRE_AND_VERIFY)
		gnutls_session_set_verify_cert(sess, NULL, 0);
}

const char *tls_cert_problem(const struct webcfg *w,
			     struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	unsigned n = 0, status = 0;
	gnutls_session_t sess;

	if (!wants_client_cert(w) ||
	    w->client_auth == WEBCFG_REQUEST_CLIENT_CERT)
		return NULL;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return "no TLS session";
	sess = ci->tls_session;
	if (!gnutls_certificate_get_peers(sess, &n) || n == 0)
		return w->client_auth == WEBCFG_VERIFY_IF_GIVEN ? NULL :
		       "a client certificate is required";
	if (w->client_auth == WEBCFG_REQUIRE_ANY_CLIENT_CERT)
		return NULL;
	if (gnutls_certificate_verify_peers2(sess, &status) < 0 || status)
		return "the client certificate is not signed by a CA of "
		       "client_ca_file";
	return NULL;
}

void tls_started(const struct webcfg *w, struct MHD_Connection *c)
{
	tls_push_setup(c);
	if (wants_client_cert(w))
		on_connect(w, c);
}

void tls_request(bool head)
{
	tls_not_head = !head;
}

/* (The client-certificate setup of each new connection, tls_started(),
 * is called by http.c's on_connection(): MHD keeps one connection
 * callback.) */
bool tls_options(const struct webcfg *w, bool control,
		 struct MHD_OptionItem *o)
{
	unsigned n = 0;

	if (!control && w && w->tls) {
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						  w->cert_pem };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						  w->key_pem };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES,
						  0, (void *)w->priorities };
		if (w->ca_pem)
			o[n++] = (struct MHD_OptionItem){
				MHD_OPTION_HTTPS_MEM_TRUST, 0, w->ca_pem };
	}
	o[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return n > 0;
}
