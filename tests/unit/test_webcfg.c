/*
 * test_webcfg.c - the exporters' web config parser and basic-auth check
 * (src/http/webcfg.c): a file with users loads; every malformed file in a table
 * is refused with the exact "file:line:" and the right words; a relative
 * path is taken from the file's directory; webcfg_auth() accepts the right
 * password only, for known users only, and a repeated check is served from
 * the cache (timed: one bcrypt at cost 10 against one cached check, the
 * figures doc/performance.md quotes).  TLS files are checked by the
 * scenario test web_tls.sh, which makes certificates with openssl.
 */
#include "config.h"

#include <crypt.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "http/webcfg.h"
#include "tests/tap.h"

static char tmpdir[PATH_MAX];

static const char *write_file(const char *name, const char *text)
{
	static char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return path;
}

/* A bcrypt hash of pw at the given cost, made by libxcrypt. */
static char *bcrypt(const char *pw, unsigned long cost)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data cd;
	const char *h;

	memset(&cd, 0, sizeof(cd));
	if (!crypt_gensalt_rn("$2y$", cost, NULL, 0, salt, sizeof(salt)) ||
	    !(h = crypt_rn(pw, salt, &cd, (int)sizeof(cd)))) {
		printf("Bail out! crypt_gensalt/crypt_rn: %s\n",
		       strerror(errno));
		exit(1);
	}
	return strdup(h);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_users(void)
{
	char *h1 = bcrypt("s3cret", 10), *h2 = bcrypt("other", 4);
	char text[512], err[512];
	struct webcfg w;
	double t0, t1, t2;
	const char *path;

	snprintf(text, sizeof(text),
		 "# basic auth only\nbasic_auth_users:\n  prom: %s\n"
		 "  \"second\": '%s'\n", h1, h2);
	path = write_file("users.yml", text);
	is_int(webcfg_load(&w, path, err, sizeof(err)), 0, "users file loads");
	is_int(w.nusers, 2, "two users");
	ok(!w.tls, "no TLS without tls_server_config");
	is_str(w.users[0].name, "prom", "first user");
	is_str(w.users[1].hash, h2, "quoted hash kept as written");

	is_int(webcfg_auth_cached(&w, "prom", "s3cret"), -1,
	       "not cached yet: only bcrypt can tell");
	t0 = now_ms();
	ok(webcfg_auth(&w, "prom", "s3cret"), "right password accepted");
	t1 = now_ms();
	ok(webcfg_auth(&w, "prom", "s3cret"), "accepted again (cached)");
	t2 = now_ms();
	/* that the second answer came from the cache is what
	 * webcfg_auth_cached() says below; the times are printed, not
	 * held to a ratio that a loaded machine can break */
	printf("# one bcrypt check at cost 10: %.1f ms; a cached check: "
	       "%.3f ms\n", t1 - t0, t2 - t1);
	is_int(webcfg_auth_cached(&w, "prom", "s3cret"), 1, "cached: accepted");
	ok(!webcfg_auth(&w, "prom", "s3cre"), "wrong password refused");
	is_int(webcfg_auth_cached(&w, "prom", "s3cre"), 0, "cached: refused");
	is_int(webcfg_auth_cached(&w, "prom", "other"), -1,
	       "another password is not cached");
	is_int(webcfg_auth_cached(&w, NULL, "x"), 0, "no user: refused");
	ok(!webcfg_auth(&w, "prom", "s3cret "), "longer password refused");
	ok(!webcfg_auth(&w, "prom", "s3cre"), "wrong password refused again "
	   "(cached failure)");
	ok(!webcfg_auth(&w, "nobody", "s3cret"), "unknown user refused");
	ok(!webcfg_auth(&w, "second", "s3cret"), "another user's password "
	   "refused");
	ok(webcfg_auth(&w, "second", "other"), "second user accepted");
	ok(!webcfg_auth(&w, NULL, NULL), "no credentials refused");
	ok(!webcfg_auth(&w, "prom", ""), "empty password refused");
	webcfg_free(&w);
	webcfg_free(&w);
	ok(w.path == NULL && w.users == NULL, "free zeroes, twice is safe");
	free(h1);
	free(h2);
}

/*
 * Issue 39 finding 10: an unknown user costs what a known user's wrong
 * password costs, one bcrypt at the same cost, against a decoy hash that
 * is no user's (it was checked against the costliest user's own hash).
 */
static void test_unknown_user(void)
{
	char *h = bcrypt("s3cret", 6);
	char text[256], err[512];
	struct webcfg w;
	struct webcfg_check a, b;
	struct crypt_data *cd = calloc(1, sizeof(*cd));

	snprintf(text, sizeof(text), "basic_auth_users:\n  prom: %s\n", h);
	is_int(webcfg_load(&w, write_file("decoy.yml", text), err,
			   sizeof(err)), 0, "users file loads");
	ok(strncmp(w.decoy_hash, h, 7) == 0 &&
	   strlen(w.decoy_hash) == 60, "a decoy hash at the user's cost (%s)",
	   w.decoy_hash);
	ok(strcmp(w.decoy_hash + 7, h + 7) != 0, "... not the user's hash");
	is_int(webcfg_auth_begin(&w, "prom", "wrong", &a), WEBCFG_NEEDS_CHECK,
	       "a known user's wrong password needs one check");
	is_int(webcfg_auth_begin(&w, "nosuch", "wrong", &b), WEBCFG_NEEDS_CHECK,
	       "an unknown user needs one check too");
	ok(strncmp(a.hash, b.hash, 7) == 0, "... at the same cost (%.7s)",
	   b.hash);
	webcfg_check_run(&a, cd);
	webcfg_check_run(&b, cd);
	ok(!a.ok && !b.ok, "both refused");
	printf("# CPU time of the checks: known user %.2f ms, unknown %.2f ms\n",
	       a.cpu_ns / 1e6, b.cpu_ns / 1e6);
	webcfg_auth_end(&w, &a);
	webcfg_auth_end(&w, &b);
	ok(!webcfg_auth(&w, "nosuch", "s3cret"), "an unknown user with the "
	   "user's password: refused");
	webcfg_free(&w);
	free(cd);
	free(h);
}

/*
 * Issue 20 item 1: wrong passwords, each one new, shared the accepted
 * credentials' table and pushed them out after 64; the scraper then had
 * to wait for the bcrypt budget the flood had used up.
 */
static void test_flood(void)
{
	char *h = bcrypt("s3cret", 4);
	char text[256], err[512], pw[32];
	struct webcfg w;
	int kept = 1;

	snprintf(text, sizeof(text), "basic_auth_users:\n  prom: %s\n", h);
	is_int(webcfg_load(&w, write_file("flood.yml", text), err,
			   sizeof(err)), 0, "flood: file loads");
	ok(webcfg_auth(&w, "prom", "s3cret"), "flood: the scraper is accepted");
	for (int i = 0; i < 300; i++) {
		snprintf(pw, sizeof(pw), "wrong%d", i);
		if (webcfg_auth(&w, "prom", pw))
			kept = 0;
		if (webcfg_auth_cached(&w, "prom", "s3cret") != 1)
			kept = 0;
	}
	ok(kept, "300 new wrong passwords: all refused, and the scraper's "
	   "verdict stays cached after every one");
	is_int(webcfg_auth_cached(&w, "prom", "wrong299"), 0,
	       "the newest refusal is remembered");
	webcfg_free(&w);
	free(h);
}

/*
 * Issue 20 item 7: the 22nd salt character holds 2 salt bits and 4
 * ignored ones; a hash with ignored bits set passed the load and then
 * refused the right password.  Go's bcrypt compares the digest only.
 */
static void test_salt_bits(void)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	char *h = bcrypt("s3cret", 4);
	char text[256], err[512];
	struct webcfg w;
	int v = (int)(strchr(b64, h[28]) - b64);

	h[28] = b64[(v & 0x30) | ((v + 1) & 0x0f)];	/* low bits only */
	snprintf(text, sizeof(text), "basic_auth_users:\n  prom: %s\n", h);
	is_int(webcfg_load(&w, write_file("salt.yml", text), err,
			   sizeof(err)), 0, "salt's ignored bits set: loads");
	ok(webcfg_auth(&w, "prom", "s3cret"), "... and the right password is "
	   "accepted");
	ok(!webcfg_auth(&w, "prom", "s3creT"), "... a wrong one refused");
	webcfg_free(&w);
	free(h);
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Issue 20 item 6: with users of cost 4 and 8, an unknown name was
 * checked against the first user's hash (cost 4), so the cost-8 user's
 * name stood out by its time.  An unknown name now takes the time of
 * the costliest user, and differing costs (and costs above 10) are
 * reported at load.
 */
static void test_costs(void)
{
	char *h4 = bcrypt("a", 4), *h8 = bcrypt("b", 8), *h12 = bcrypt("c", 12);
	char text[512], err[512];
	struct webcfg w;
	double t0, t_low, t_unknown;

	snprintf(text, sizeof(text), "basic_auth_users:\n  low: %s\n"
		 "  high: %s\n", h4, h8);
	is_int(webcfg_load(&w, write_file("costs.yml", text), err,
			   sizeof(err)), 0, "costs 4 and 8: loads");
	is_int(w.nadvice, 1, "... with one warning");
	if (w.nadvice)
		like(w.advice[0], "costs.yml:2: basic_auth_users: the users' "
		     "bcrypt costs differ (4 to 8)", "... that the costs "
		     "differ, at the first user's line");
	t0 = cpu_ms();
	ok(!webcfg_auth(&w, "low", "x1"), "cost-4 user, wrong password");
	t_low = cpu_ms() - t0;
	t0 = cpu_ms();
	ok(!webcfg_auth(&w, "nosuch", "x2"), "unknown user");
	t_unknown = cpu_ms() - t0;
	printf("# CPU time: cost-4 user %.2f ms, unknown user %.2f ms\n",
	       t_low, t_unknown);
	ok(t_unknown > 4 * t_low, "an unknown user is checked at cost 8, the "
	   "highest (16x the work of cost 4), not at the first user's cost");
	webcfg_free(&w);

	snprintf(text, sizeof(text), "basic_auth_users:\n  c: %s\n", h12);
	is_int(webcfg_load(&w, write_file("costs.yml", text), err,
			   sizeof(err)), 0, "cost 12: loads");
	is_int(w.nadvice, 1, "... with one warning");
	if (w.nadvice)
		like(w.advice[0], "costs.yml:2: basic_auth_users: c: bcrypt cost "
		     "12: each new password takes a check 4 times as long as "
		     "at cost 10", "... saying what it costs");
	webcfg_free(&w);
	free(h4);
	free(h8);
	free(h12);
}

/*
 * The Authorization header (issue 20 items 8 and 11): the scheme in any
 * case (RFC 7617 2.1: "basic" got 401), and no NUL or other control
 * character in the credentials ("prom:secret\0junk" got 200).
 */
static void test_parse_basic(void)
{
	static const struct {
		const char *h;
		int r;
		const char *user, *pass;
	} t[] = {
		{ "Basic cHJvbTpzM2NyZXQ=", 0, "prom", "s3cret" },
		{ "basic cHJvbTpzM2NyZXQ=", 0, "prom", "s3cret" },
		{ "BASIC   cHJvbTpzM2NyZXQ=", 0, "prom", "s3cret" },
		{ "Basic cHJvbTo=", 0, "prom", "" },
		{ "Basic YTpiOmM=", 0, "a", "b:c" },
		{ "Basic cHJvbTpzZWNyZXQAanVuaw==", -EINVAL, NULL, NULL },
		{ "Basic cHIBb206eA==", -EINVAL, NULL, NULL },
		{ "Basic cHJvbTpzM2NyZXR/", -EINVAL, NULL, NULL },
		{ "Basic cHJvbQ==", -EINVAL, NULL, NULL },
		{ "Basic cHJvbTpzM2NyZXQ", -EINVAL, NULL, NULL },
		{ "Basic cHJvbTpz=2NyZXQ=", -EINVAL, NULL, NULL },
		{ "Basic ????", -EINVAL, NULL, NULL },
		{ "Basic ", -EINVAL, NULL, NULL },
		{ "Basic", -ENOENT, NULL, NULL },
		{ "Basicx cHJvbTpzM2NyZXQ=", -ENOENT, NULL, NULL },
		{ "Bearer cHJvbTpzM2NyZXQ=", -ENOENT, NULL, NULL },
		{ NULL, -ENOENT, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *u = (char *)1, *p = (char *)1;
		int r = webcfg_parse_basic(t[i].h, &u, &p);

		is_int(r, t[i].r, "Authorization: %s", t[i].h ? t[i].h : "(none)");
		if (t[i].user) {
			is_str(u, t[i].user, "... user");
			is_str(p, t[i].pass, "... password");
		} else {
			ok(!u && !p, "... no credentials");
		}
		free(u);
		free(p);
	}
}

static void test_empty(void)
{
	char err[512];
	struct webcfg w;

	is_int(webcfg_load(&w, write_file("empty.yml", "# nothing\n"), err,
			   sizeof(err)), 0, "an empty file loads");
	ok(!w.tls && w.nusers == 0, "empty: no TLS, no users");
	ok(!webcfg_auth(&w, "a", "b"), "no users: nobody authenticates");
	webcfg_free(&w);
}

static void test_errors(void)
{
	static const char hash[] =
		"$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";
	static const struct {
		const char *text;
		const char *want;	/* after "bad.yml:" */
	} t[] = {
		{ "tls_server_config:\n  cert_file: a\n  keyfile: b\n",
		  "3: tls_server_config: unknown key keyfile (known: cert_file, "
		  "key_file, client_auth_type, client_ca_file, min_version)" },
		{ "basic_auth_user:\n  a: b\n",
		  "1: unknown key basic_auth_user (known: tls_server_config, "
		  "basic_auth_users)" },
		{ "\nhttp_server_config:\n  http2: false\n",
		  "2: http_server_config is not supported by uncored" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n"
		  "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
		  "4: tls_server_config: cipher_suites is not supported" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n"
		  "  client_auth_type: RequireClientCert\n",
		  "4: client_auth_type: \"RequireClientCert\" is not one of "
		  "NoClientCert, RequestClientCert" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n"
		  "  min_version: TLS1.2\n",
		  "4: min_version: \"TLS1.2\" is not one of TLS10, TLS11, TLS12, "
		  "TLS13" },
		{ "tls_server_config:\n  cert_file: a\n",
		  "2: tls_server_config: cert_file and key_file are both "
		  "required" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n"
		  "  client_ca_file: c\n",
		  "4: tls_server_config: client_ca_file is set but "
		  "client_auth_type is NoClientCert" },
		{ "tls_server_config:\n  cert_file: a\n  key_file: b\n"
		  "  client_auth_type: RequireAndVerifyClientCert\n",
		  "4: tls_server_config: client_auth_type "
		  "RequireAndVerifyClientCert needs client_ca_file" },
		{ "tls_server_config:\n  cert_file: /nonexistent/a.crt\n"
		  "  key_file: b\n",
		  "2: tls_server_config: cannot open /nonexistent/a.crt: No such "
		  "file or directory" },
		{ "tls_server_config:\n  cert_file: ''\n  key_file: b\n",
		  "2: cert_file: expected a non-empty string" },
		{ "basic_auth_users:\n  prom: secret\n",
		  "2: basic_auth_users: prom: expected a bcrypt hash" },
		{ "basic_auth_users:\n  prom: $1$abc$def\n",
		  "2: basic_auth_users: prom: expected a bcrypt hash" },
		{ "basic_auth_users:\n  prom: $2y$03$QOauhQNbBCuQDKes6eFzPeMqBSj"
		  "b7Mr5DUmpZ/VcEd00UAV/LDeSi\n",
		  "2: basic_auth_users: prom: expected a bcrypt hash" },
		/* issue 20 item 2: cost 31 (hours per check) was accepted */
		{ "basic_auth_users:\n  prom: $2y$15$QOauhQNbBCuQDKes6eFzPeMqBSj"
		  "b7Mr5DUmpZ/VcEd00UAV/LDeSi\n",
		  "2: basic_auth_users: prom: bcrypt cost 15 is above 14, the "
		  "most uncored accepts" },
		{ "basic_auth_users:\n  a: $2y$10$QOauhQNbBCuQDKes6eFzPeMqBSj"
		  "b7Mr5DUmpZ/VcEd00UAV/LDeSi\n  b: $2b$31$QOauhQNbBCuQDKes6eFzP"
		  "eMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi\n",
		  "3: basic_auth_users: b: bcrypt cost 31 is above 14" },
		{ "basic_auth_users:\n  a:b: x\n",
		  "2: basic_auth_users: \"a:b\" cannot be a user name" },
		{ "basic_auth_users:\n  - prom\n",
		  "2: basic_auth_users: expected a mapping of keys" },
		{ "basic_auth_users: [\n", "2: YAML syntax error" },
		{ "tls_server_config:\n\tcert_file: a\n", "2: YAML syntax error" },
		{ "- a\n- b\n", "1: web config: expected a mapping of keys" },
		/* issue 20 item 4: only the first document was read, so
		   this file served plain HTTP without auth */
		{ "---\n---\ntls_server_config:\n  cert_file: a\n"
		  "  key_file: b\nbasic_auth_users:\n  prom: $2y$10$QOauhQNbBC"
		  "uQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi\n",
		  "2: a second YAML document starts here: the web config is "
		  "one document" },
		{ "basic_auth_users: {}\n# more\n---\n",
		  "3: a second YAML document starts here" },
		{ "basic_auth_users: {}\n---\n- [\n",
		  "4: YAML syntax error" },
	};
	char err[512], want[600], text[256];
	struct webcfg w;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *path = write_file("bad.yml", t[i].text);

		snprintf(want, sizeof(want), "%s:%s", path, t[i].want);
		err[0] = '\0';
		is_int(webcfg_load(&w, path, err, sizeof(err)), -1,
		       "bad file %zu refused", i);
		if (!ok(strncmp(err, want, strlen(want)) == 0,
			"bad file %zu: message", i))
			printf("#   got  \"%s\"\n#   want \"%s...\"\n", err, want);
		ok(w.path == NULL && w.users == NULL, "bad file %zu: nothing "
		   "owned", i);
	}
	/* A repeated key, on the line of its second occurrence. */
	snprintf(text, sizeof(text), "basic_auth_users:\n  a: %s\n  b: %s\n"
		 "  a: %s\n", hash, hash, hash);
	{
		const char *path = write_file("bad.yml", text);

		snprintf(want, sizeof(want), "%s:4: basic_auth_users: a is "
			 "given twice", path);
		is_int(webcfg_load(&w, path, err, sizeof(err)), -1,
		       "repeated user refused");
	}
	like(err, want, "repeated user: message and line");
	is_int(webcfg_load(&w, "/nonexistent/web.yml", err, sizeof(err)), -1,
	       "missing file refused");
	is_str(err, "web config: cannot open /nonexistent/web.yml: No such "
	       "file or directory", "missing file: message");
}

/* cert_file relative to the directory of the file, not the cwd. */
static void test_relative(void)
{
	char err[512], want[PATH_MAX + 32];
	struct webcfg w;

	snprintf(want, sizeof(want), "cannot open %s/certs/s.crt", tmpdir);
	is_int(webcfg_load(&w, write_file("rel.yml", "tls_server_config:\n"
					  "  cert_file: certs/s.crt\n"
					  "  key_file: certs/s.key\n"),
			   err, sizeof(err)), -1, "relative path: loads, then "
	       "fails to open");
	like(err, want, "relative cert_file taken from the file's directory");
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/test_webcfg.XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_users();
	test_unknown_user();
	test_flood();
	test_salt_bits();
	test_costs();
	test_parse_basic();
	test_empty();
	test_errors();
	test_relative();
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return tap_done();
}
