/*
 * fake_dump.h - the platform tests' backend and discovery check
 * (test_plat_hsx, test_plat_snbep):
 * MSRs from the test's own fake_read()/fake_write() (declared here,
 * defined by the test), PCI configuration space from an `lspci -xxx` dump in
 * tests/fixtures read through the real libpci backend ("dump" method).
 * The fixture directory is $top_srcdir/tests/fixtures (set by `make
 * check`), else FIXTURE_DIR.
 */
#ifndef UNCORED_TEST_FAKE_DUMP_H
#define UNCORED_TEST_FAKE_DUMP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hw.h"
#include "plat/plat.h"
#include "tests/tap.h"

#ifndef FIXTURE_DIR
#define FIXTURE_DIR "../tests/fixtures"
#endif

static int fake_read(struct hw *hw, const struct hw_addr *a, uint64_t *v);
static int fake_write(struct hw *hw, const struct hw_addr *a, uint64_t v);

static int fake_open(struct hw *hw, const struct hw_opts *o)
{
	struct hw *inner = calloc(1, sizeof(*inner));
	int r;

	if (!inner)
		return -ENOMEM;
	r = hw_open(inner, &hw_real_ops, o);
	if (r < 0) {
		free(inner);
		return r;
	}
	hw->priv = inner;
	return 0;
}

static void fake_close(struct hw *hw)
{
	struct hw *inner = hw->priv;

	if (inner) {
		hw_close(inner);
		free(inner);
	}
}

static int fake_scan(struct hw *hw, int (*cb)(void *, const struct hw_pci_dev *),
		     void *ctx)
{
	return hw_pci_scan(hw->priv, cb, ctx);
}

static const struct hw_ops fake_ops = {
	.name = "fake-msr+dump",
	.open = fake_open,
	.close = fake_close,
	.read = fake_read,
	.write = fake_write,
	.pci_scan = fake_scan,
};

static char fixture_dir[4096];

/* Sets fixture_dir from $top_srcdir (else FIXTURE_DIR). */
static void fixture_dir_init(void)
{
	const char *top = getenv("top_srcdir");

	if (top && *top)
		snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures", top);
	else
		snprintf(fixture_dir, sizeof(fixture_dir), "%s", FIXTURE_DIR);
}

/* Opens the fake backend with PCI from fixture file name. */
static int open_fixture(struct hw *hw, const char *name)
{
	static char param[4400];
	struct hw_opts o;

	memset(&o, 0, sizeof(o));
	snprintf(param, sizeof(param), "dump.name=%s/%s", fixture_dir, name);
	o.pci_method = "dump";
	o.pci_params[0] = param;
	return hw_open(hw, &fake_ops, &o);
}

/* The test's unit lookup (by name, with its index). */
static const struct unit_type *unit(const char *name, unsigned *index);

/* What discovery should find of a unit on a socket. */
struct want_unit {
	const char *u;
	unsigned ninst;
	uint32_t absent;	/* instances 0..31 */
};

static void check_units(const struct topology *t, unsigned s,
			const struct want_unit *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned ui;

		unit(w[i].u, &ui);
		ok(t->sock[s].ninst[ui] == w[i].ninst &&
		   t->sock[s].absent[ui].w[0] == w[i].absent,
		   "socket %u: %s %u instances, absent 0x%x (got %u, 0x%llx)", s,
		   w[i].u, w[i].ninst, w[i].absent, t->sock[s].ninst[ui],
		   (unsigned long long)t->sock[s].absent[ui].w[0]);
	}
}

#endif
