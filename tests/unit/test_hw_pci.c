/*
 * test_hw_pci.c - unit tests for the libpci wrapper (hw_pci.c).
 *
 * Uses libpci's "dump" access method on tests/fixtures/lspci-skl.txt, an
 * `lspci -xxx` listing of a Skylake desktop: the host bridge 8086:191f at
 * 00:00.0 with MCHBAR (offset 0x48) = 0xfed10001, graphics at 00:02.0,
 * xHCI at 00:14.0 and a Samsung NVMe drive at 03:00.0.  Besides reading
 * known values, the tests drive libpci into its fatal-error paths (missing
 * or malformed dump, writes to a dump), whose default handling is exit():
 * each must come back as -errno and a message, with this process alive.
 *
 * The fixture directory is $top_srcdir/tests/fixtures (set by `make
 * check`), else FIXTURE_DIR.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/hw.h"
#include "tests/tap.h"

#ifndef FIXTURE_DIR
#define FIXTURE_DIR "../tests/fixtures"
#endif

static char fixture[4096];
static char dump_param[4200];

static struct hw_addr cfg(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off,
			  uint8_t width)
{
	return hw_pci(0, bus, dev, fn, off, width);
}

static int open_dump(struct hw_pcicfg **p, const char *param)
{
	const char *params[] = { param, NULL };

	return hw_pcicfg_open(p, "dump", params);
}

static void test_reads(struct hw_pcicfg *p)
{
	struct hw_addr a;
	uint64_t v = 0;
	int r;

	a = cfg(0, 0, 0, 0x00, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, 0, "read vendor/device of 00:00.0");
	is_u64(v, 0x191f8086, "00:00.0 is 8086:191f");

	a = cfg(0, 0, 0, 0x48, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, 0, "32-bit read of MCHBAR (0x48)");
	is_u64(v, 0xfed10001, "MCHBAR low dword");

	v = ~0ull;
	a = cfg(0, 0, 0, 0x48, 8);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, 0, "64-bit read of MCHBAR");
	is_u64(v, 0xfed10001, "MCHBAR as 64 bits (high dword 0)");

	/* Dword order: low dword at off, high at off + 4. */
	a = cfg(0, 0, 0, 0x00, 8);
	r = hw_pcicfg_read(p, &a, &v);
	is_u64(v, 0x20900006191f8086ull, "64-bit read at 0: status/command "
	       "in the high dword (r=%d)", r);
	a = cfg(0, 0, 0, 0xa0, 8);
	r = hw_pcicfg_read(p, &a, &v);
	is_u64(v, 0x0000000230000001ull, "64-bit TOM with a non-zero high "
	       "dword (r=%d)", r);

	/* Last dword of the 256 bytes lspci -xxx printed. */
	a = cfg(0, 0x14, 0, 0xfc, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, 0, "read of offset 0xfc");
	is_u64(v, 0, "0xfc of 00:14.0 is 0");

	/* Other devices, including another bus and vendor. */
	a = cfg(0, 2, 0, 0x00, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_u64(v, 0x19128086, "00:02.0 is 8086:1912 (r=%d)", r);
	a = cfg(3, 0, 0, 0x00, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_u64(v, 0xa802144d, "03:00.0 is 144d:a802 (r=%d)", r);
	a = cfg(3, 0, 0, 0x08, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_u64(v, 0x01080201, "03:00.0 class NVMe, rev 01 (r=%d)", r);

	/* A second read of a cached device gives the same answer. */
	a = cfg(0, 0, 0, 0x48, 4);
	v = 0;
	r = hw_pcicfg_read(p, &a, &v);
	is_u64(v, 0xfed10001, "cached handle reads again (r=%d)", r);
}

static void test_bad_reads(struct hw_pcicfg *p)
{
	struct hw_addr a;
	uint64_t v = 0x1234;
	int r;

	a = cfg(0, 0x1f, 3, 0x00, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -ENODEV, "absent 00:1f.3 is -ENODEV");
	like(hw_last_error(), "0000:00:1f.3", "message names the device");
	like(hw_last_error(), "dump", "message names the access method");
	is_u64(v, 0x1234, "*v untouched on failure");
	a = cfg(0, 0x1f, 3, 0x48, 4);
	r = hw_pcicfg_write(p, &a, 0);
	is_int(r, -ENODEV, "write to absent device is -ENODEV");

	/* The dump holds 256 bytes; 0x100 exists in PCIe but not here. */
	a = cfg(0, 0, 0, 0x100, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -EIO, "offset 0x100 beyond the dump is -EIO");
	like(hw_last_error(), "0x100", "message names the offset");
	/* 64-bit read whose high dword is beyond the dump also fails. */
	a = cfg(0, 0, 0, 0xfc, 8);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -EIO, "64-bit read straddling the end is -EIO");
	is_u64(v, 0x1234, "*v untouched on partial failure");

	a = cfg(0, 0, 0, 0x1000, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -EINVAL, "offset 0x1000 is -EINVAL");
	a = cfg(0, 0, 0, 0xffc, 8);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -EINVAL, "8 bytes at 0xffc cross 4096: -EINVAL");
	a = cfg(0, 0, 0, 0x4a, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -EINVAL, "unaligned offset 0x4a is -EINVAL");
	like(hw_last_error(), "aligned", "message says why");
	a = cfg(0, 0, 0, 0x48, 2);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -EINVAL, "width 2 is -EINVAL");
	a = cfg(0, 32, 0, 0x00, 4);
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, -EINVAL, "device 32 is -EINVAL");
}

static void test_writes(struct hw_pcicfg *p)
{
	struct hw_addr a = cfg(0, 0, 0, 0x48, 4);
	uint64_t v = 0;
	int r;

	/* libpci's dump write raises a fatal error; it must not exit. */
	r = hw_pcicfg_write(p, &a, 0xfed20001);
	is_int(r, -EROFS, "write to a dump is -EROFS");
	like(hw_last_error(), "not supported", "libpci's reason is kept");
	like(hw_last_error(), "0000:00:00.0+0x48", "message names the "
	     "register");
	a.width = 8;
	r = hw_pcicfg_write(p, &a, 0);
	is_int(r, -EROFS, "64-bit write to a dump is -EROFS");

	a.width = 4;
	r = hw_pcicfg_read(p, &a, &v);
	is_int(r, 0, "reads still work after a refused write");
	is_u64(v, 0xfed10001, "value unchanged");
}

struct scan_seen {
	int n;
	struct hw_pci_dev d[8];
};

static int scan_cb(void *ctx, const struct hw_pci_dev *d)
{
	struct scan_seen *s = ctx;

	if (s->n < 8)
		s->d[s->n] = *d;
	s->n++;
	return 0;
}

static int stop_cb(void *ctx, const struct hw_pci_dev *d)
{
	int *n = ctx;

	(void)d;
	return ++*n == 2 ? 42 : 0;
}

/* The callback may read config space (the lock is not held). */
static int reading_cb(void *ctx, const struct hw_pci_dev *d)
{
	struct hw_pcicfg *p = ctx;
	struct hw_addr a = hw_pci(d->domain, d->bus, d->dev, d->fn, 0, 4);
	uint64_t v;

	if (hw_pcicfg_read(p, &a, &v))
		return -1;
	return v == ((uint64_t)d->device << 16 | d->vendor) ? 0 : -2;
}

static void test_scan(struct hw_pcicfg *p)
{
	static const struct hw_pci_dev want[] = {
		{ 0, 0x00, 0x00, 0, 0x8086, 0x191f },
		{ 0, 0x00, 0x02, 0, 0x8086, 0x1912 },
		{ 0, 0x00, 0x14, 0, 0x8086, 0xa12f },
		{ 0, 0x03, 0x00, 0, 0x144d, 0xa802 },
	};
	struct scan_seen s = { 0 };
	int r, i, n = 0;

	r = hw_pcicfg_scan(p, scan_cb, &s);
	is_int(r, 0, "scan succeeds");
	is_int(s.n, 4, "scan finds the 4 devices of the dump");
	for (i = 0; i < 4 && i < s.n; i++) {
		const struct hw_pci_dev *g = &s.d[i], *w = &want[i];

		ok(g->domain == w->domain && g->bus == w->bus &&
		   g->dev == w->dev && g->fn == w->fn &&
		   g->vendor == w->vendor && g->device == w->device,
		   "device %d: %04x:%02x:%02x.%x %04x:%04x (want %02x:%02x.%x "
		   "%04x:%04x)", i, g->domain, g->bus, g->dev, g->fn,
		   g->vendor, g->device, w->bus, w->dev, w->fn, w->vendor,
		   w->device);
	}

	s.n = 0;
	r = hw_pcicfg_scan(p, scan_cb, &s);
	is_int(s.n, 4, "second scan lists them again, not twice (r=%d)", r);

	r = hw_pcicfg_scan(p, stop_cb, &n);
	is_int(r, 42, "callback's non-zero return stops the walk");
	is_int(n, 2, "after two devices");

	r = hw_pcicfg_scan(p, reading_cb, p);
	is_int(r, 0, "callback can read config space; ids match the scan");
}

/* Readers on several threads share one handle (mutex + thread-local
 * error-callback state). */
struct thr_arg {
	struct hw_pcicfg *p;
	int bad;
};

static void *reader(void *arg)
{
	struct thr_arg *t = arg;
	struct hw_addr mch = cfg(0, 0, 0, 0x48, 8), nv = cfg(3, 0, 0, 0, 4);
	struct hw_addr wr = cfg(0, 0, 0, 0x48, 4);
	uint64_t v;
	int i;

	for (i = 0; i < 500; i++) {
		if (hw_pcicfg_read(t->p, &mch, &v) || v != 0xfed10001)
			t->bad++;
		if (hw_pcicfg_read(t->p, &nv, &v) || v != 0xa802144d)
			t->bad++;
		/* Exercises the longjmp path concurrently. */
		if (i % 50 == 0 && hw_pcicfg_write(t->p, &wr, 0) != -EROFS)
			t->bad++;
	}
	return NULL;
}

static void test_threads(struct hw_pcicfg *p)
{
	struct thr_arg a[4];
	pthread_t t[4];
	int i, bad = 0;

	for (i = 0; i < 4; i++) {
		a[i] = (struct thr_arg){ .p = p };
		pthread_create(&t[i], NULL, reader, &a[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		bad += a[i].bad;
	}
	is_int(bad, 0, "4 threads x 500 reads and refused writes");
}

static void test_open_errors(void)
{
	struct hw_pcicfg *p = (struct hw_pcicfg *)1;
	const char *two[] = { dump_param, "dump.name", NULL };
	char tmp[] = "/tmp/test_hw_pci.XXXXXX";
	char tmp2[] = "/tmp/test_hw_pci.XXXXXX";
	char param[64];
	FILE *f;
	int r, fd;

	r = open_dump(&p, "dump.name=/nonexistent/lspci.txt");
	is_int(r, -ENOENT, "missing dump file is -ENOENT");
	ok(p == NULL, "*out is NULL on failure");
	like(hw_last_error(), "cannot open PCI access method dump",
	     "message says what failed");
	like(hw_last_error(), "/nonexistent/lspci.txt", "and names the file");
	ok(1, "process survived libpci's fatal error");

	/* A malformed dump makes libpci's parser give up. */
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fputs("00:00.0 Host bridge: Intel Corporation Device 191f\n"
		      "00: 86 80 1f 19 zz\n", f);
		fclose(f);
	}
	snprintf(param, sizeof(param), "dump.name=%s", tmp);
	r = open_dump(&p, param);
	ok(r < 0, "malformed dump fails (r=%d)", r);
	like(hw_last_error(), "Malformed", "libpci's reason is kept");
	unlink(tmp);

	/*
	 * A function listed but answering all ones (what a conf1 access to
	 * an empty slot returns) counts as absent too.
	 */
	fd = mkstemp(tmp2);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		fputs("00:1f.3 Audio device: Intel Corporation Device a170\n"
		      "00: ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff\n",
		      f);
		fclose(f);
	}
	snprintf(param, sizeof(param), "dump.name=%s", tmp2);
	r = open_dump(&p, param);
	is_int(r, 0, "open a dump with an all-ones function");
	if (r == 0) {
		struct hw_addr a = cfg(0, 0x1f, 3, 0x00, 4);
		uint64_t v;

		r = hw_pcicfg_read(p, &a, &v);
		is_int(r, -ENODEV, "vendor id 0xffff is -ENODEV");
		hw_pcicfg_close(p);
	}
	unlink(tmp2);

	r = hw_pcicfg_open(&p, "no-such-method", NULL);
	is_int(r, -EINVAL, "unknown method is -EINVAL");
	like(hw_last_error(), "linux-sysfs", "message lists the methods");

	r = open_dump(&p, "dump.nmae=/x");
	is_int(r, -EINVAL, "unknown parameter is -EINVAL");
	like(hw_last_error(), "dump.nmae", "message names it");
	r = hw_pcicfg_open(&p, "dump", two);
	is_int(r, -EINVAL, "parameter without '=' is -EINVAL");
	like(hw_last_error(), "name=value", "message says the form");

	r = hw_pcicfg_open(&p, "dump", NULL);
	ok(r < 0, "dump method without dump.name fails (r=%d)", r);
	like(hw_last_error(), "dump.name", "message says to set dump.name");
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	struct hw_pcicfg *p;
	int r;

	if (top && *top)
		snprintf(fixture, sizeof(fixture), "%s/tests/fixtures/"
			 "lspci-skl.txt", top);
	else
		snprintf(fixture, sizeof(fixture), "%s/lspci-skl.txt",
			 FIXTURE_DIR);
	snprintf(dump_param, sizeof(dump_param), "dump.name=%s", fixture);

	r = open_dump(&p, dump_param);
	if (!ok(r == 0, "open dump %s", fixture)) {
		printf("# %s\n", hw_last_error());
		return tap_done();
	}
	test_reads(p);
	test_bad_reads(p);
	test_writes(p);
	test_scan(p);
	test_threads(p);
	hw_pcicfg_close(p);
	test_open_errors();
	return tap_done();
}
