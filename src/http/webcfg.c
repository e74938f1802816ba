/*
 * webcfg.c - the exporters' web configuration file (see webcfg.h).
 *
 * libyaml loads the file as a document (nodes carry their line), which is
 * walked against two small tables of keys.  The keys are those of the
 * Prometheus exporter-toolkit, so a file written for node_exporter works
 * here; keys of that format that uncored does not implement (cipher_suites,
 * http_server_config, ...) are refused by name rather than ignored, so a
 * setting an operator relies on is never silently dropped.
 *
 * TLS is GnuTLS underneath libmicrohttpd; the certificate and key are
 * checked with GnuTLS at load time so that `uncored -n` catches a key that
 * does not match its certificate.  bcrypt is libxcrypt's crypt_rn(), the
 * system's password hashing (what PAM uses), which understands $2a$, $2b$
 * and $2y$; no bcrypt of our own.
 */
#include "config.h"

#include <crypt.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include <gnutls/crypto.h>
#include <gnutls/x509.h>
#include <gnutls/gnutls.h>
#include <yaml.h>

#include "webcfg.h"

#define WEBCFG_MAX_FILE		(1024 * 1024)	/* PEM files and the config */
#define WEBCFG_GOOD_SLOTS	16
#define WEBCFG_BAD_SLOTS	64
#define WEBCFG_DIGEST_LEN	32		/* SHA-256 */

/* A remembered verdict: SHA-256(user, password, hash). */
struct verdict {
	unsigned char digest[WEBCFG_DIGEST_LEN];
	bool used;
	uint64_t last;			/* cache clock at its last use */
};

/*
 * Accepted and refused verdicts live in separate tables, so that a flood
 * of wrong passwords (each one new) replaces only other refusals and can
 * never push a scraper's accepted credentials out: an accepted verdict
 * is replaced only by another accepted one, least recently used first.
 */
struct webcfg_cache {
	pthread_mutex_t lock;		/* the tables and clock */
	struct verdict good[WEBCFG_GOOD_SLOTS];
	struct verdict bad[WEBCFG_BAD_SLOTS];
	unsigned next_bad;		/* replaced next (round robin) */
	uint64_t clock;			/* lookups so far */
	pthread_mutex_t crypt_lock;	/* cd; one bcrypt at a time */
	struct crypt_data cd;		/* crypt_rn() scratch, ~32 KiB */
};

/* Parse state: the file, its document and the first error. */
struct wstate {
	struct webcfg *w;
	yaml_document_t *doc;
	char *dir;			/* directory of the file, for paths */
	char *err;
	size_t errlen;
	bool failed;
};

/* Adds a warning "FILE:LINE: ..." to st->w->advice; out of memory it is
 * dropped (it is advice). */
__attribute__((format(printf, 3, 4)))
static void advise(struct wstate *st, unsigned line, const char *fmt, ...)
{
	struct webcfg *w = st->w;
	char msg[512], **a;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	a = realloc(w->advice, (w->nadvice + 1) * sizeof(*a));
	if (!a)
		return;
	w->advice = a;
	if (asprintf(&a[w->nadvice], "%s:%u: %s", w->path, line, msg) >= 0)
		w->nadvice++;
}

__attribute__((format(printf, 3, 4)))
static void fail_at(struct wstate *st, const yaml_node_t *n,
		    const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (st->failed)
		return;
	st->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		snprintf(st->err, st->errlen, "%s:%lu: %s", st->w->path,
			 (unsigned long)n->start_mark.line + 1, msg);
	else
		snprintf(st->err, st->errlen, "%s: %s", st->w->path, msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
						: NULL;
}

/* A plain empty, "~" or "null" scalar: a key given without a value. */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0);
}

/* The value of a mapping key as a non-empty string, or NULL (failed). */
static char *string_value(struct wstate *st, const char *key,
			  const yaml_node_t *v)
{
	const char *s = scalar(v);
	char *r;

	if (!s || is_null(v) || !*s) {
		fail_at(st, v, "%s: expected a non-empty string", key);
		return NULL;
	}
	r = strdup(s);
	if (!r)
		fail_at(st, v, "out of memory");
	return r;
}

/* Records what the file open as f is, in w's stamps. */
static void stamp(struct webcfg *w, const char *path, FILE *f)
{
	struct webcfg_stamp *t = &w->stamp[w->nstamps];
	struct stat sb;

	if (w->nstamps >= WEBCFG_MAX_STAMPS || fstat(fileno(f), &sb) < 0 ||
	    !(t->path = strdup(path)))
		return;		/* not stamped: a reload reads it again */
	t->dev = sb.st_dev;
	t->ino = sb.st_ino;
	t->size = sb.st_size;
	t->mtime = sb.st_mtim;
	t->ctime = sb.st_ctim;
	w->nstamps++;
}

/* Reads a whole file (at most WEBCFG_MAX_FILE bytes), NUL-terminated,
 * stamping it in w. */
static char *read_file(struct webcfg *w, const char *path, size_t *len,
		       char *why, size_t n)
{
	FILE *f = fopen(path, "re");
	char *b = NULL;
	size_t got = 0;

	if (!f) {
		snprintf(why, n, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	stamp(w, path, f);
	b = malloc(WEBCFG_MAX_FILE + 1);
	if (b)
		got = fread(b, 1, WEBCFG_MAX_FILE + 1, f);
	if (!b || ferror(f) || got > WEBCFG_MAX_FILE) {
		snprintf(why, n, "cannot read %s: %s", path,
			 !b ? "out of memory" : got > WEBCFG_MAX_FILE
			 ? "larger than 1 MiB" : strerror(errno));
		free(b);
		fclose(f);
		return NULL;
	}
	fclose(f);
	b[got] = '\0';
	if (len)
		*len = got;
	return b;
}

/* A path value, taken from the directory of the config file if relative. */
static char *path_value(struct wstate *st, const char *key,
			const yaml_node_t *v)
{
	char *s = string_value(st, key, v), *r;

	if (!s || s[0] == '/')
		return s;
	if (asprintf(&r, "%s/%s", st->dir, s) < 0) {
		r = NULL;
		fail_at(st, v, "out of memory");
	}
	free(s);
	return r;
}

static const struct {
	const char *name;
	enum webcfg_client_auth v;
} client_auth_names[] = {
	{ "NoClientCert", WEBCFG_NO_CLIENT_CERT },
	{ "RequestClientCert", WEBCFG_REQUEST_CLIENT_CERT },
	{ "RequireAnyClientCert", WEBCFG_REQUIRE_ANY_CLIENT_CERT },
	{ "VerifyClientCertIfGiven", WEBCFG_VERIFY_IF_GIVEN },
	{ "RequireAndVerifyClientCert", WEBCFG_REQUIRE_AND_VERIFY },
};

/*
 * min_version: GnuTLS priority strings.  Each allows the named version
 * and every later one; Debian's GnuTLS may still refuse TLS 1.0/1.1 by
 * its system policy, which wins.
 */
static const struct {
	const char *name;
	const char *prio;
} versions[] = {
	{ "TLS10", "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1:"
		   "+VERS-TLS1.0" },
	{ "TLS11", "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1" },
	{ "TLS12", "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2" },
	{ "TLS13", "NORMAL:-VERS-ALL:+VERS-TLS1.3" },
};
#define DEFAULT_PRIORITIES (versions[2].prio)

/* exporter-toolkit keys uncored does not implement: refused by name. */
static const char *const unsupported_tls[] = {
	"cert", "key", "client_ca", "max_version", "cipher_suites",
	"curve_preferences", "prefer_server_cipher_suites",
	"client_allowed_sans", NULL,
};
static const char *const unsupported_top[] = {
	"http_server_config", NULL,
};

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

/* Calls fn for each (key, value) of mapping m; refuses repeated keys. */
typedef void pair_fn(struct wstate *st, const yaml_node_t *k,
		     const char *key, const yaml_node_t *v);

static void each_pair(struct wstate *st, const yaml_node_t *m,
		      const char *what, pair_fn *fn)
{
	yaml_node_pair_t *p, *q;

	if (is_null(m))
		return;
	if (m->type != YAML_MAPPING_NODE) {
		fail_at(st, m, "%s: expected a mapping of keys", what);
		return;
	}
	for (p = m->data.mapping.pairs.start;
	     p < m->data.mapping.pairs.top && !st->failed; p++) {
		yaml_node_t *k = yaml_document_get_node(st->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(st->doc, p->value);
		const char *key = scalar(k);

		if (!key) {
			fail_at(st, k, "%s: keys must be strings", what);
			return;
		}
		for (q = m->data.mapping.pairs.start; q < p; q++) {
			const char *prev = scalar(yaml_document_get_node(
						st->doc, q->key));

			if (prev && strcmp(prev, key) == 0) {
				fail_at(st, k, "%s: %s is given twice", what,
					key);
				return;
			}
		}
		fn(st, k, key, v);
	}
}

static void tls_pair(struct wstate *st, const yaml_node_t *k,
		     const char *key, const yaml_node_t *v)
{
	struct webcfg *w = st->w;
	const char *s;
	size_t i;

	if (strcmp(key, "cert_file") == 0) {
		w->cert_file = path_value(st, key, v);
	} else if (strcmp(key, "key_file") == 0) {
		w->key_file = path_value(st, key, v);
	} else if (strcmp(key, "client_ca_file") == 0) {
		w->client_ca_file = path_value(st, key, v);
	} else if (strcmp(key, "client_auth_type") == 0) {
		s = scalar(v);
		for (i = 0; s && i < sizeof(client_auth_names) /
				      sizeof(client_auth_names[0]); i++)
			if (strcmp(s, client_auth_names[i].name) == 0)
				break;
		if (!s || i == sizeof(client_auth_names) /
			       sizeof(client_auth_names[0]))
			fail_at(st, v, "client_auth_type: \"%s\" is not one of "
				"NoClientCert, RequestClientCert, "
				"RequireAnyClientCert, VerifyClientCertIfGiven, "
				"RequireAndVerifyClientCert", s ? s : "");
		else
			w->client_auth = client_auth_names[i].v;
	} else if (strcmp(key, "min_version") == 0) {
		s = scalar(v);
		for (i = 0; s && i < sizeof(versions) / sizeof(versions[0]); i++)
			if (strcmp(s, versions[i].name) == 0)
				break;
		if (!s || i == sizeof(versions) / sizeof(versions[0]))
			fail_at(st, v, "min_version: \"%s\" is not one of "
				"TLS10, TLS11, TLS12, TLS13", s ? s : "");
		else
			w->priorities = versions[i].prio;
	} else if (in_list(unsupported_tls, key)) {
		fail_at(st, k, "tls_server_config: %s is not supported by "
			"uncored (supported: cert_file, key_file, "
			"client_auth_type, client_ca_file, min_version)", key);
	} else {
		fail_at(st, k, "tls_server_config: unknown key %s (known: "
			"cert_file, key_file, client_auth_type, client_ca_file, "
			"min_version)", key);
	}
}

/* bcrypt: $2a$, $2b$ or $2y$, a two-digit cost 04..31, 53 characters. */
static bool bcrypt_syntax(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' ||
	    !strchr("aby", h[2]) || h[3] != '$' || h[6] != '$' ||
	    h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9')
		return false;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	return cost >= 4 && cost <= 31 && strspn(h + 7, b64) == 53;
}

static void user_pair(struct wstate *st, const yaml_node_t *k,
		      const char *key, const yaml_node_t *v)
{
	struct webcfg *w = st->w;
	struct webcfg_user *u;
	const char *h = scalar(v);
	unsigned cost;

	if (!*key || strchr(key, ':')) {
		fail_at(st, k, "basic_auth_users: \"%s\" cannot be a user name "
			"(empty, or contains ':')", key);
		return;
	}
	if (!h || !bcrypt_syntax(h)) {
		fail_at(st, v, "basic_auth_users: %s: expected a bcrypt hash "
			"($2y$, $2b$ or $2a$, cost 04..31, 60 characters; "
			"e.g. from htpasswd -nBC 10 %s)", key, key);
		return;
	}
	cost = (unsigned)((h[4] - '0') * 10 + (h[5] - '0'));
	if (cost > WEBCFG_MAX_COST) {
		fail_at(st, v, "basic_auth_users: %s: bcrypt cost %u is above "
			"%d, the most uncored accepts: a check doubles with "
			"each step (about 50-70 ms at cost 10), so one at cost "
			"%u takes over %u s, longer than a 1 s scrape interval; "
			"make a cost-10 hash (htpasswd -nBC 10 %s)", key, cost,
			WEBCFG_MAX_COST, cost, 1u << (cost - 15), key);
		return;
	}
	u = realloc(w->users, (w->nusers + 1) * sizeof(*u));
	if (!u) {
		fail_at(st, v, "out of memory");
		return;
	}
	w->users = u;
	u[w->nusers].name = strdup(key);
	u[w->nusers].hash = strdup(h);
	u[w->nusers].cost = cost;
	u[w->nusers].line = (unsigned)v->start_mark.line + 1;
	w->nusers++;
	if (!u[w->nusers - 1].name || !u[w->nusers - 1].hash)
		fail_at(st, v, "out of memory");
}

static void top_pair(struct wstate *st, const yaml_node_t *k,
		     const char *key, const yaml_node_t *v)
{
	if (strcmp(key, "tls_server_config") == 0) {
		st->w->tls = !is_null(v);
		each_pair(st, v, key, tls_pair);
	} else if (strcmp(key, "basic_auth_users") == 0) {
		each_pair(st, v, key, user_pair);
	} else if (in_list(unsupported_top, key)) {
		fail_at(st, k, "%s is not supported by uncored (supported: "
			"tls_server_config, basic_auth_users)", key);
	} else {
		fail_at(st, k, "unknown key %s (known: tls_server_config, "
			"basic_auth_users)", key);
	}
}

/*
 * The key node `key` of mapping m (value: false) or its value node (value:
 * true), for errors about it; m itself if there is no such key.
 */
static const yaml_node_t *find_key(struct wstate *st, const yaml_node_t *m,
				   const char *key, bool value)
{
	yaml_node_pair_t *p;

	if (!m || m->type != YAML_MAPPING_NODE)
		return m;
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(st->doc, p->key);

		if (scalar(k) && strcmp(scalar(k), key) == 0)
			return value ? yaml_document_get_node(st->doc, p->value)
				     : k;
	}
	return m;
}

#define key_node(st, m, key) find_key(st, m, key, false)

/* Reads the file named by key of the tls section into *pem. */
static void read_pem(struct wstate *st, const yaml_node_t *sect,
		     const char *key, const char *path, char **pem,
		     size_t *len)
{
	char why[PATH_MAX + 64];

	if (st->failed || !path)
		return;
	*pem = read_file(st->w, path, len, why, sizeof(why));
	if (!*pem)
		fail_at(st, key_node(st, sect, key), "tls_server_config: %s",
			why);
}

/* A time as "2020-01-02 00:00:00 UTC". */
static void utc(time_t t, char *out, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S UTC",
					    &tm))
		snprintf(out, len, "%lld", (long long)t);
}

/*
 * Warns about a server certificate outside its validity (the first one
 * of cert_file): GnuTLS serves it, and clients that verify it - as
 * Prometheus does - refuse the connection, so say it where an operator
 * looks (-n, start-up) rather than let scrapes fail.
 */
static void cert_validity(struct wstate *st, const yaml_node_t *sect,
			  size_t clen)
{
	struct webcfg *w = st->w;
	gnutls_x509_crt_t crt;
	gnutls_datum_t d = { (unsigned char *)w->cert_pem, (unsigned)clen };
	unsigned line = (unsigned)key_node(st, sect, "cert_file")
				->start_mark.line + 1;
	time_t now = time(NULL), t;
	char when[64];

	if (gnutls_x509_crt_init(&crt) < 0)
		return;
	if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM) == 0) {
		if ((t = gnutls_x509_crt_get_expiration_time(crt)) !=
		    (time_t)-1 && t < now) {
			utc(t, when, sizeof(when));
			advise(st, line, "tls_server_config: cert_file %s "
			       "expired on %s: clients that verify it refuse "
			       "to connect; renew it", w->cert_file, when);
		} else if ((t = gnutls_x509_crt_get_activation_time(crt)) !=
			   (time_t)-1 && t > now) {
			utc(t, when, sizeof(when));
			advise(st, line, "tls_server_config: cert_file %s is "
			       "not valid before %s: clients that verify it "
			       "refuse to connect until then", w->cert_file,
			       when);
		}
	}
	gnutls_x509_crt_deinit(crt);
}

/* Reads and checks the TLS files; errors point at the tls section. */
static void load_tls(struct wstate *st, const yaml_node_t *sect)
{
	struct webcfg *w = st->w;
	gnutls_certificate_credentials_t cred = NULL;
	gnutls_datum_t c, k;
	size_t clen = 0, klen = 0, alen = 0;
	int rc;

	if (!w->cert_file || !w->key_file) {
		fail_at(st, sect, "tls_server_config: cert_file and key_file "
			"are both required");
		return;
	}
	if (w->client_ca_file && w->client_auth == WEBCFG_NO_CLIENT_CERT) {
		fail_at(st, key_node(st, sect, "client_ca_file"),
			"tls_server_config: client_ca_file is set but "
			"client_auth_type is NoClientCert (set it, e.g. to "
			"RequireAndVerifyClientCert)");
		return;
	}
	if (!w->client_ca_file && w->client_auth != WEBCFG_NO_CLIENT_CERT) {
		/* libmicrohttpd asks for a client certificate only when it
		   has CAs to offer, so even "any certificate" needs them. */
		fail_at(st, key_node(st, sect, "client_auth_type"),
			"tls_server_config: client_auth_type %s needs "
			"client_ca_file", client_auth_names[w->client_auth].name);
		return;
	}
	read_pem(st, sect, "cert_file", w->cert_file, &w->cert_pem, &clen);
	read_pem(st, sect, "key_file", w->key_file, &w->key_pem, &klen);
	read_pem(st, sect, "client_ca_file", w->client_ca_file, &w->ca_pem,
		 &alen);
	if (st->failed)
		return;
	if (gnutls_certificate_allocate_credentials(&cred) < 0) {
		fail_at(st, sect, "out of memory");
		return;
	}
	c.data = (unsigned char *)w->cert_pem;
	c.size = (unsigned)clen;
	k.data = (unsigned char *)w->key_pem;
	k.size = (unsigned)klen;
	rc = gnutls_certificate_set_x509_key_mem2(cred, &c, &k,
						  GNUTLS_X509_FMT_PEM, NULL, 0);
	if (rc < 0)
		fail_at(st, key_node(st, sect, "key_file"), "tls_server_config: "
			"cannot use cert_file %s with key_file %s: %s (both must "
			"be PEM, the key unencrypted and matching the "
			"certificate)", w->cert_file, w->key_file,
			gnutls_strerror(rc));
	else
		cert_validity(st, sect, clen);
	if (!st->failed && w->ca_pem) {
		c.data = (unsigned char *)w->ca_pem;
		c.size = (unsigned)alen;
		rc = gnutls_certificate_set_x509_trust_mem(cred, &c,
							   GNUTLS_X509_FMT_PEM);
		if (rc <= 0)
			fail_at(st, key_node(st, sect, "client_ca_file"),
				"tls_server_config: client_ca_file %s: %s",
				w->client_ca_file, rc < 0 ? gnutls_strerror(rc)
				: "no PEM certificate in it");
	}
	gnutls_certificate_free_credentials(cred);
}

/*
 * The users' costs: a warning per user above WEBCFG_ADVISED_COST, and one
 * when they differ, since an unknown user is checked against one hash
 * (users[decoy], the costliest) and so takes that user's time: a user of
 * a lower cost answers faster than an unknown name.
 */
static void user_advice(struct wstate *st)
{
	struct webcfg *w = st->w;
	unsigned lo = UINT_MAX, hi = 0;

	for (unsigned i = 0; i < w->nusers; i++) {
		const struct webcfg_user *u = &w->users[i];

		if (u->cost > WEBCFG_ADVISED_COST)
			advise(st, u->line, "basic_auth_users: %s: bcrypt cost "
			       "%u: each new password takes a check %u times "
			       "as long as at cost %d (about 50-70 ms), the cost "
			       "the exporter toolkit's documentation uses",
			       u->name, u->cost,
			       1u << (u->cost - WEBCFG_ADVISED_COST),
			       WEBCFG_ADVISED_COST);
		if (u->cost < lo)
			lo = u->cost;
		if (u->cost > hi) {
			hi = u->cost;
			w->decoy = i;
		}
	}
	if (lo < hi)
		advise(st, w->users[0].line, "basic_auth_users: the users' "
		       "bcrypt costs differ (%u to %u): how long an answer "
		       "takes tells the names of users of a lower cost from "
		       "unknown names, which are checked at cost %u; give "
		       "every user the same cost", lo, hi, hi);
}

/*
 * w->decoy_hash: a bcrypt hash at the costliest user's cost with a
 * random salt and digest, so that an unknown user costs one bcrypt of
 * the same cost as a known user's wrong password, and is never checked
 * against a real user's hash (issue 39 finding 10).  Not the hash of any
 * password one could send: its digest is random, not computed (which
 * would cost a check at load).  0, or -1 without random bytes.
 */
static int make_decoy(struct webcfg *w)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[53];
	int n;

	if (gnutls_rnd(GNUTLS_RND_NONCE, rnd, sizeof(rnd)) < 0)
		return -1;
	/* "$2y$10$" as that user's, variant and cost */
	n = snprintf(w->decoy_hash, sizeof(w->decoy_hash), "%.7s",
		     w->users[w->decoy].hash);
	for (unsigned i = 0; i < sizeof(rnd); i++)
		w->decoy_hash[n + i] = b64[rnd[i] % 64];
	/* the salt's 22nd character carries 2 bits: the others zero */
	w->decoy_hash[n + 21] = ".Oeu"[rnd[21] % 4];
	w->decoy_hash[n + 53] = '\0';
	explicit_bzero(rnd, sizeof(rnd));
	return 0;
}

/*
 * A second document in the stream: refused, since a reader that takes
 * the first one only would drop every setting after "---" and serve
 * plain, unauthenticated HTTP ("---\n---\ntls_server_config: ..." has an
 * empty first document).  Syntax errors after the first document are
 * errors too.
 */
static void only_one_document(struct wstate *st, yaml_parser_t *parser)
{
	yaml_document_t next;

	if (st->failed)
		return;
	if (!yaml_parser_load(parser, &next)) {
		snprintf(st->err, st->errlen, "%s:%lu: YAML syntax error: %s%s%s",
			 st->w->path,
			 (unsigned long)parser->problem_mark.line + 1,
			 parser->problem ? parser->problem : "unknown",
			 parser->context ? " " : "",
			 parser->context ? parser->context : "");
		st->failed = true;
		return;
	}
	if (yaml_document_get_root_node(&next)) {
		snprintf(st->err, st->errlen, "%s:%lu: a second YAML document "
			 "starts here: the web config is one document (remove "
			 "this \"---\" and merge what follows into the first)",
			 st->w->path, (unsigned long)next.start_mark.line + 1);
		st->failed = true;
	}
	yaml_document_delete(&next);
}

/* Parses text (len bytes) into st->w: the one document, then the TLS
 * files it names.  Errors go to st. */
static void parse_text(struct wstate *st, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(st->err, st->errlen, "%s:%lu: YAML syntax error: %s%s%s",
			 st->w->path,
			 (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "unknown",
			 parser.context ? " " : "",
			 parser.context ? parser.context : "");
		st->failed = true;
		yaml_parser_delete(&parser);
		return;
	}
	st->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (root) {		/* an empty file: no TLS, no users */
		const yaml_node_t *tls = find_key(st, root,
						  "tls_server_config", true);

		each_pair(st, root, "web config", top_pair);
		only_one_document(st, &parser);
		if (!st->failed && st->w->tls)
			load_tls(st, tls);
	}
	st->doc = NULL;
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
}

int webcfg_load(struct webcfg *w, const char *path, char *err, size_t errlen)
{
	struct wstate st = { .w = w, .err = err, .errlen = errlen };
	const char *slash;
	char why[PATH_MAX + 64];
	char *text;
	size_t len;

	memset(w, 0, sizeof(*w));
	w->priorities = DEFAULT_PRIORITIES;
	w->path = strdup(path);
	slash = strrchr(path, '/');
	st.dir = slash ? strndup(path, slash == path ? 1
					: (size_t)(slash - path))
		       : strdup(".");
	if (!w->path || !st.dir) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	text = read_file(w, path, &len, why, sizeof(why));
	if (!text) {
		snprintf(err, errlen, "web config: %s", why);
		goto fail;
	}
	parse_text(&st, text, len);
	free(text);
	if (st.failed)
		goto fail;
	user_advice(&st);
	if (w->nusers && make_decoy(w) < 0) {
		snprintf(err, errlen, "%s: no random bytes for the decoy hash",
			 path);
		goto fail;
	}
	if (w->nusers) {
		w->cache = calloc(1, sizeof(*w->cache));
		if (!w->cache) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto fail;
		}
		pthread_mutex_init(&w->cache->lock, NULL);
		pthread_mutex_init(&w->cache->crypt_lock, NULL);
	}
	free(st.dir);
	return 0;
fail:
	free(st.dir);
	webcfg_free(w);
	return -1;
}

static void free_secret(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void webcfg_free(struct webcfg *w)
{
	unsigned i;

	free(w->path);
	free(w->cert_file);
	free(w->key_file);
	free(w->client_ca_file);
	free(w->cert_pem);
	free_secret(w->key_pem);
	free(w->ca_pem);
	for (i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	for (i = 0; i < w->nadvice; i++)
		free(w->advice[i]);
	free(w->advice);
	for (i = 0; i < w->nstamps; i++)
		free(w->stamp[i].path);
	if (w->cache) {
		pthread_mutex_destroy(&w->cache->lock);
		pthread_mutex_destroy(&w->cache->crypt_lock);
		explicit_bzero(w->cache, sizeof(*w->cache));
	}
	free(w->cache);
	memset(w, 0, sizeof(*w));
}

bool webcfg_unchanged(const struct webcfg *w, const char *path)
{
	if (!w->path || !path || strcmp(w->path, path) != 0 || !w->nstamps)
		return false;
	for (unsigned i = 0; i < w->nstamps; i++) {
		const struct webcfg_stamp *t = &w->stamp[i];
		struct stat sb;

		if (stat(t->path, &sb) < 0 || sb.st_dev != t->dev ||
		    sb.st_ino != t->ino || sb.st_size != t->size ||
		    sb.st_mtim.tv_sec != t->mtime.tv_sec ||
		    sb.st_mtim.tv_nsec != t->mtime.tv_nsec ||
		    sb.st_ctim.tv_sec != t->ctime.tv_sec ||
		    sb.st_ctim.tv_nsec != t->ctime.tv_nsec)
			return false;
	}
	return true;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool webcfg_same(const struct webcfg *a, const struct webcfg *b)
{
	unsigned i;

	if (a->tls != b->tls || a->client_auth != b->client_auth ||
	    a->priorities != b->priorities || a->nusers != b->nusers ||
	    !same_str(a->cert_pem, b->cert_pem) ||
	    !same_str(a->key_pem, b->key_pem) ||
	    !same_str(a->ca_pem, b->ca_pem))
		return false;
	for (i = 0; i < a->nusers; i++)
		if (strcmp(a->users[i].name, b->users[i].name) != 0 ||
		    strcmp(a->users[i].hash, b->users[i].hash) != 0)
			return false;
	return true;
}

void webcfg_describe(const struct webcfg *w, char *out, size_t outlen)
{
	const char *v = "TLS12";
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if (w->priorities == versions[i].prio)
			v = versions[i].name;
	if (w->tls)
		snprintf(out, outlen, "TLS (min_version %s, client_auth_type "
			 "%s), %u basic-auth user%s", v,
			 client_auth_names[w->client_auth].name, w->nusers,
			 w->nusers == 1 ? "" : "s");
	else
		snprintf(out, outlen, "no TLS, %u basic-auth user%s",
			 w->nusers, w->nusers == 1 ? "" : "s");
}

/* The value of a base64 character (RFC 4648 section 4), or -1. */
static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes padded base64 s into out (room for strlen(s) / 4 * 3 + 1);
 * returns the length, or -1 if s is not padded base64. */
static long b64decode(const char *s, unsigned char *out)
{
	size_t n = strlen(s), o = 0;

	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;

		for (int k = 0; k < 4; k++) {
			bool last = i + 4 == n;

			if (s[i + k] == '=' && last && k >= 2 &&
			    (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
			} else if ((v[k] = b64val((unsigned char)s[i + k])) < 0) {
				return -1;
			}
		}
		out[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			out[o++] = (unsigned char)(v[1] << 4 | v[2] >> 2);
		if (pad < 1)
			out[o++] = (unsigned char)(v[2] << 6 | v[3]);
	}
	out[o] = '\0';
	return (long)o;
}

int webcfg_parse_basic(const char *header, char **user, char **pass)
{
	unsigned char *d;
	const char *p;
	char *colon;
	long n;
	int r = -EINVAL;

	*user = *pass = NULL;
	if (!header || strncasecmp(header, "Basic", 5) != 0 ||
	    header[5] != ' ')
		return -ENOENT;
	for (p = header + 5; *p == ' '; p++)
		;
	d = malloc(strlen(p) / 4 * 3 + 1);
	if (!d)
		return -ENOMEM;
	n = b64decode(p, d);
	for (long i = 0; n > 0 && i < n; i++)
		if (d[i] < 0x20 || d[i] == 0x7f)
			n = -1;		/* a control character (RFC 7617 2) */
	colon = n > 0 ? memchr(d, ':', (size_t)n) : NULL;
	if (colon) {
		*colon = '\0';
		*user = strdup((char *)d);
		*pass = strdup(colon + 1);
		r = *user && *pass ? 0 : -ENOMEM;
		if (r < 0) {
			free(*user);
			free(*pass);
			*user = *pass = NULL;
		}
	}
	explicit_bzero(d, strlen(p) / 4 * 3 + 1);
	free(d);
	return r;
}

/* Equal in time that depends on the lengths only, not on the contents. */
static bool ct_equal(const void *a, size_t alen, const void *b, size_t blen)
{
	const unsigned char *x = a, *y = b;
	unsigned char d = alen != blen;
	size_t i, n = alen < blen ? alen : blen;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

/*
 * Does crypt_rn()'s output match the stored hash?  Only the last 31
 * characters, the digest, are compared, as Go's bcrypt (what the
 * exporters use) does: the 22nd salt character carries 2 bits of the
 * salt and 4 ignored ones, which libxcrypt writes back as zero, so a
 * hash with those bits set ("...e" made "...f") must not turn the right
 * password away.  Both strings are 60 characters (bcrypt_syntax()).
 */
static bool same_digest(const char *out, const char *hash)
{
	size_t n = strlen(out);

	if (n != 60 || strlen(hash) != 60)
		return false;
	return ct_equal(out + 29, 31, hash + 29, 31);
}

/*
 * The user entry for user (NULL if unknown) and the hash to check a
 * password against: an unknown user is hashed against w->decoy_hash, at
 * the costliest user's cost (w->decoy), so the time taken does not
 * tell which names exist when every user has the same cost (a warning
 * at load says when they do not).  Writes
 * the cache key, SHA-256(user, password, hash), to dg.  Returns the hash,
 * or NULL if the digest could not be made.
 */
static const char *lookup(const struct webcfg *w, const char *user,
			  const char *pass, const struct webcfg_user **u,
			  unsigned char dg[WEBCFG_DIGEST_LEN])
{
	gnutls_hash_hd_t h;
	const char *hash;
	unsigned i;

	*u = NULL;
	for (i = 0; i < w->nusers; i++)
		if (strcmp(w->users[i].name, user) == 0)
			*u = &w->users[i];
	hash = *u ? (*u)->hash : w->decoy_hash;
	if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
		return NULL;
	gnutls_hash(h, user, strlen(user) + 1);
	gnutls_hash(h, pass, strlen(pass) + 1);
	gnutls_hash(h, hash, strlen(hash));
	gnutls_hash_deinit(h, dg);
	return hash;
}

/* The slot of t[n] holding dg, or NULL; constant time over the table. */
static struct verdict *find_verdict(struct verdict *t, unsigned n,
				    const unsigned char *dg)
{
	struct verdict *hit = NULL;

	for (unsigned i = 0; i < n; i++)
		if (t[i].used && ct_equal(t[i].digest, WEBCFG_DIGEST_LEN, dg,
					  WEBCFG_DIGEST_LEN))
			hit = &t[i];
	return hit;
}

/* The cached verdict for dg: 1 accepted, 0 refused, -1 not cached. */
static int cached(struct webcfg_cache *c, const unsigned char *dg)
{
	struct verdict *v;
	int r = -1;

	pthread_mutex_lock(&c->lock);
	c->clock++;
	if ((v = find_verdict(c->good, WEBCFG_GOOD_SLOTS, dg)) != NULL) {
		v->last = c->clock;
		r = 1;
	} else if (find_verdict(c->bad, WEBCFG_BAD_SLOTS, dg)) {
		r = 0;
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* Remembers a verdict: an accepted one in the least recently used good
 * slot, a refused one in the next bad slot. */
static void remember(struct webcfg_cache *c, const unsigned char *dg,
		     bool ok)
{
	struct verdict *v;

	pthread_mutex_lock(&c->lock);
	if (ok) {
		v = &c->good[0];
		for (unsigned i = 1; i < WEBCFG_GOOD_SLOTS && v->used; i++)
			if (!c->good[i].used || c->good[i].last < v->last)
				v = &c->good[i];
	} else {
		v = &c->bad[c->next_bad];
		c->next_bad = (c->next_bad + 1) % WEBCFG_BAD_SLOTS;
	}
	memcpy(v->digest, dg, WEBCFG_DIGEST_LEN);
	v->used = true;
	v->last = ++c->clock;
	pthread_mutex_unlock(&c->lock);
}

int webcfg_auth_cached(struct webcfg *w, const char *user, const char *pass)
{
	const struct webcfg_user *u;
	unsigned char dg[WEBCFG_DIGEST_LEN];
	int v;

	if (!user || !pass || !w->cache || w->nusers == 0)
		return 0;
	if (!lookup(w, user, pass, &u, dg))
		return 0;
	v = cached(w->cache, dg);
	return v == 1 && !u ? 0 : v;
}

int webcfg_auth_begin(struct webcfg *w, const char *user, const char *pass,
		      struct webcfg_check *chk)
{
	const struct webcfg_user *u;
	const char *hash;
	int v;

	memset(chk, 0, sizeof(*chk));
	if (!user || !pass || !w->cache || w->nusers == 0)
		return WEBCFG_REFUSED;
	hash = lookup(w, user, pass, &u, chk->digest);
	if (!hash)
		return -ENOMEM;
	v = cached(w->cache, chk->digest);
	if (v >= 0)
		return v == 1 && u ? WEBCFG_ACCEPTED : WEBCFG_REFUSED;
	chk->pass = strdup(pass);
	if (!chk->pass)
		return -ENOMEM;
	snprintf(chk->hash, sizeof(chk->hash), "%s", hash);
	chk->known = u != NULL;
	return WEBCFG_NEEDS_CHECK;
}

void webcfg_check_run(struct webcfg_check *chk, struct crypt_data *cd)
{
	const char *out;
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	out = crypt_rn(chk->pass, chk->hash, cd, (int)sizeof(*cd));
	chk->ok = out && chk->known && same_digest(out, chk->hash);
	explicit_bzero(cd, sizeof(*cd));
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	chk->cpu_ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull +
		      (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
}

void webcfg_check_free(struct webcfg_check *chk)
{
	if (chk->pass) {
		explicit_bzero(chk->pass, strlen(chk->pass));
		free(chk->pass);
	}
	chk->pass = NULL;
}

void webcfg_auth_end(struct webcfg *w, struct webcfg_check *chk)
{
	if (w->cache)
		remember(w->cache, chk->digest, chk->ok);
	webcfg_check_free(chk);
}

bool webcfg_auth(struct webcfg *w, const char *user, const char *pass)
{
	struct webcfg_check chk;
	int v = webcfg_auth_begin(w, user, pass, &chk);

	if (v != WEBCFG_NEEDS_CHECK)
		return v == WEBCFG_ACCEPTED;
	pthread_mutex_lock(&w->cache->crypt_lock);
	webcfg_check_run(&chk, &w->cache->cd);
	pthread_mutex_unlock(&w->cache->crypt_lock);
	webcfg_auth_end(w, &chk);
	return chk.ok;
}
