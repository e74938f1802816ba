/*
 * errmsg.h - the message a lower layer hands back with its -errno: the
 * modules that never log (STYLE: errors) write it into their caller's
 * buffer, char *err of size_t errlen, with errmsg().
 */
#ifndef UNCORED_ERRMSG_H
#define UNCORED_ERRMSG_H

#include <stddef.h>

/* Formats a message into err[0..errlen), cut to fit; nothing when err is
 * NULL or errlen 0. */
void errmsg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
