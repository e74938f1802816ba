/*
 * bcrypt-hash.c - prints a bcrypt hash of a password, for the test web
 * configs (what `htpasswd -nBC COST user` would give, without apache2-utils).
 *
 *   bcrypt-hash PASSWORD [COST]     (cost 4..31, default 10)
 */
#include "config.h"

#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data cd;
	unsigned long cost = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
	const char *h;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bcrypt-hash PASSWORD [COST]\n");
		return 64;
	}
	memset(&cd, 0, sizeof(cd));
	if (!crypt_gensalt_rn("$2y$", cost, NULL, 0, salt, sizeof(salt)) ||
	    !(h = crypt_rn(argv[1], salt, &cd, (int)sizeof(cd)))) {
		fprintf(stderr, "bcrypt-hash: %s\n", strerror(errno));
		return 1;
	}
	printf("%s\n", h);
	return 0;
}
