/*
 * errmsg.c - a lower layer's error message for its caller (errmsg.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "errmsg.h"

void errmsg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
