/*
 * ui.h - the live page at / (doc/design.md section 6): HTML, CSS, script and
 * icon from src/ui/, compiled into the binary by src/ui/embed.sh.
 */
#ifndef UNCORED_UI_H
#define UNCORED_UI_H

#include <stddef.h>

struct ui_asset {
	const char *name;		/* base name: "index.html" */
	const unsigned char *data;	/* NUL-terminated, static */
	size_t len;			/* without the NUL */
};

/* Every embedded file; ends with a NULL name. */
extern const struct ui_asset ui_assets[];

#endif
