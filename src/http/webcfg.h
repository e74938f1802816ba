/*
 * webcfg.h - TLS and basic auth for the TCP listeners, configured with the
 * Prometheus exporters' web configuration file (--web-config FILE, [http]
 * web_config; the format of node_exporter's --web.config.file).
 *
 *   tls_server_config:
 *     cert_file: server.crt        # PEM; relative paths are taken from
 *     key_file: server.key         #   the directory of this file
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: clients.crt
 *     min_version: TLS12           # TLS10, TLS11, TLS12 (default), TLS13
 *   basic_auth_users:
 *     prometheus: $2y$10$...       # bcrypt hash
 *
 * The YAML is parsed with libyaml; every unknown key, wrong type or bad
 * value is an error "FILE:LINE: ...".  The certificate, key and CA files
 * are read into memory and checked (the key must match the certificate)
 * when the file is loaded, so a daemon that later drops root never needs
 * to open them again.  Nothing here starts a server: http.c applies the
 * result, and webcfg_auth() checks one set of credentials.
 */
#ifndef UNCORED_WEBCFG_H
#define UNCORED_WEBCFG_H

#include <crypt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* tls_server_config.client_auth_type, Go's crypto/tls names. */
enum webcfg_client_auth {
	WEBCFG_NO_CLIENT_CERT,		/* NoClientCert (default) */
	WEBCFG_REQUEST_CLIENT_CERT,	/* RequestClientCert */
	WEBCFG_REQUIRE_ANY_CLIENT_CERT,	/* RequireAnyClientCert */
	WEBCFG_VERIFY_IF_GIVEN,		/* VerifyClientCertIfGiven */
	WEBCFG_REQUIRE_AND_VERIFY,	/* RequireAndVerifyClientCert */
};

/*
 * The costliest bcrypt hash accepted.  One check doubles with each step
 * of cost: about 50 ms at cost 10 here (test_webcfg measures it; the
 * exporter toolkit's docs/web-configuration.md says ~70 ms at 10 and "a
 * few seconds" at 18), so 0.7-1.1 s at 14 and twice that at 15, more
 * than the 1 s sampling interval a scraper may poll at.  Each new
 * password pays one check, and an unknown user is checked at the
 * highest cost in the file.
 */
#define WEBCFG_MAX_COST		14
/* Costs above this one are accepted with a warning: the exporter
 * toolkit's documentation makes its hashes with htpasswd -nBC 10. */
#define WEBCFG_ADVISED_COST	10

struct webcfg_user {
	char *name;
	char *hash;			/* "$2y$10$..." as written */
	unsigned cost;			/* 4..WEBCFG_MAX_COST */
	unsigned line;			/* in the file, for messages */
};

/* What a file was when it was read: a reload that finds every file as it
 * was need not (and, after the privilege drop, may not) read them again. */
struct webcfg_stamp {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};
#define WEBCFG_MAX_STAMPS 4		/* the config, cert, key, CA */

struct webcfg {
	char *path;			/* the file, as given */
	bool tls;			/* tls_server_config present */
	char *cert_file, *key_file, *client_ca_file;	/* resolved paths */
	char *cert_pem, *key_pem, *ca_pem;	/* contents; ca_pem may be NULL */
	enum webcfg_client_auth client_auth;
	const char *priorities;		/* GnuTLS priority string (static) */
	struct webcfg_user *users;	/* basic_auth_users, in file order */
	unsigned nusers;
	unsigned decoy;			/* users[decoy]: the costliest hash */
	char decoy_hash[64];		/* what an unknown user is checked
					   against: a random salt and digest
					   at users[decoy]'s cost, made at
					   load (no user's hash) */
	/* Warnings about a file that loaded ("FILE:LINE: ..."), for the
	 * caller to log: costs above WEBCFG_ADVISED_COST, users whose
	 * costs differ (their names can be told from unknown ones by the
	 * response time), a server certificate out of its validity. */
	char **advice;
	unsigned nadvice;
	struct webcfg_stamp stamp[WEBCFG_MAX_STAMPS];	/* files read */
	unsigned nstamps;
	struct webcfg_cache *cache;	/* recent webcfg_auth() verdicts */
};

/*
 * Loads and checks the file at path into *w (which must own nothing).
 * Returns 0, or -1 with "PATH:LINE: what is wrong (what is accepted)" or
 * "PATH: cannot open: REASON" in err; *w then owns nothing.  Reads the
 * TLS files named in it, so call it while they are readable (as root).
 */
int webcfg_load(struct webcfg *w, const char *path, char *err, size_t errlen);

/*
 * True when w was loaded from path and every file it read (the config and
 * its TLS files) still has the device, inode, size, modification and
 * change time it had then: stat() only, which needs no read permission,
 * so it works after the daemon dropped the privilege to read a key.
 */
bool webcfg_unchanged(const struct webcfg *w, const char *path);

/* Frees what *w owns and zeroes it; a zeroed struct is a no-op. */
void webcfg_free(struct webcfg *w);

/*
 * True when a and b configure the same TLS settings, files (by content)
 * and users: what a SIGHUP compares to tell whether a change was made.
 */
bool webcfg_same(const struct webcfg *a, const struct webcfg *b);

/* One line for logs: "TLS (TLS12+, client certificates: ...), 2 users". */
void webcfg_describe(const struct webcfg *w, char *out, size_t outlen);

/*
 * Checks a user name and password against basic_auth_users.  Returns true
 * when they match.  The comparison of the bcrypt output runs in constant
 * time, an unknown user costs one bcrypt like a known one, and recent
 * verdicts are remembered by a SHA-256 digest of (user, password, hash)
 * so that a scraper presenting the same credentials every few seconds
 * pays one bcrypt, not one per scrape: accepted ones in 16 slots that
 * only other accepted credentials replace (least recently used first),
 * refused ones in 64 slots of their own, so that no number of wrong
 * passwords can push a scraper's credentials out.  A bcrypt takes tens of
 * milliseconds (the caller bounds how often it pays one: see
 * webcfg_auth_cached()).  Thread-safe (bcrypts run one at a time).  user
 * or pass NULL: false.
 */
bool webcfg_auth(struct webcfg *w, const char *user, const char *pass);

/*
 * Parses an Authorization header value as HTTP basic credentials (RFC
 * 7617): the scheme "Basic" in any letter case, one or more spaces, then
 * the base64 (RFC 4648, padded) of "user:password".  Returns 0 with
 * *user and *pass set (malloc()ed; the caller frees both, wiping pass
 * first); -ENOENT when header is NULL or names another scheme; -EINVAL
 * when it is malformed: bad base64, no ':', or a control character
 * (a NUL included: "secret\0junk" must not pass for "secret", as C's
 * strings would make it); -ENOMEM.
 */
int webcfg_parse_basic(const char *header, char **user, char **pass);

/*
 * webcfg_auth() in three steps, so that the bcrypt can run on another
 * thread: begin (cheap: the cache), run (the bcrypt; touches nothing
 * but the check and its scratch space, so it may outlive w), end
 * (remembers the verdict).
 */
struct webcfg_check {
	char hash[64];		/* the hash pass is checked against */
	char *pass;		/* a copy (malloc()ed, wiped when freed) */
	unsigned char digest[32];	/* the cache key */
	bool known;		/* the user exists (else a decoy hash) */
	bool ok;		/* the verdict, after webcfg_check_run() */
	uint64_t cpu_ns;	/* CPU time the bcrypt took, after run */
};

enum {
	WEBCFG_REFUSED = 0,
	WEBCFG_ACCEPTED = 1,
	WEBCFG_NEEDS_CHECK = 2,
};

/*
 * Looks the credentials up in the cache.  Returns WEBCFG_ACCEPTED or
 * WEBCFG_REFUSED (remembered, or user/pass NULL, or no users), or
 * WEBCFG_NEEDS_CHECK with *chk filled in and owning a copy of pass
 * (the caller must pass it to webcfg_auth_end() or webcfg_check_free()),
 * or -ENOMEM.  Thread-safe.
 */
int webcfg_auth_begin(struct webcfg *w, const char *user, const char *pass,
		      struct webcfg_check *chk);

/* Runs the bcrypt of chk with scratch space cd (one per thread), setting
 * chk->ok and chk->cpu_ns (the calling thread's CPU time,
 * CLOCK_THREAD_CPUTIME_ID).  Any thread; uses no webcfg. */
void webcfg_check_run(struct webcfg_check *chk, struct crypt_data *cd);

/* Remembers chk's verdict in w's cache and frees what chk owns. */
void webcfg_auth_end(struct webcfg *w, struct webcfg_check *chk);

/* Frees what chk owns (wiping the password) without remembering. */
void webcfg_check_free(struct webcfg_check *chk);

/*
 * The cheap part of webcfg_auth(): 1 if these credentials were accepted
 * recently, 0 if refused (or user/pass NULL), -1 if only a bcrypt can
 * tell.  Thread-safe; one SHA-256 and a table lookup.
 */
int webcfg_auth_cached(struct webcfg *w, const char *user, const char *pass);

#endif
