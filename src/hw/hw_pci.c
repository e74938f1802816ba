/*
 * hw_pci.c - PCI configuration space through libpci (pciutils).
 *
 * libpci gives one interface over many access methods: linux-sysfs in
 * production, "dump" (a saved `lspci -xxx` listing) in tests, and the
 * direct port/ECAM methods elsewhere.  Two properties of libpci shape this
 * file:
 *
 *  - Its error callback must not return.  The default one prints and calls
 *    exit(), which a daemon cannot allow, so every libpci call that can
 *    fail goes through pci_call(): it sets a thread-local jump buffer, and
 *    our error callback records the message and longjmp()s back there, to
 *    become -errno and an hw_fail() message.  Warnings are recorded the
 *    same way and added to the next error message; nothing is printed.
 *
 *  - It is not thread-safe: a pci_access caches the open config file of
 *    the last device touched.  One mutex per hw_pcicfg serialises all
 *    libpci calls on it.
 *
 * Config reads use pci_read_block() rather than pci_read_long(): the
 * latter turns a failed read into 0xffffffff, indistinguishable from a
 * register that reads all ones, while the former reports the failure.
 * Device handles from pci_get_dev() are cached in a list for the life of
 * the hw_pcicfg; a device is cached only once it answered a vendor-ID read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

#include "hw/hw.h"


struct pcicfg_dev {
	struct pcicfg_dev *next;
	struct pci_dev *dev;
	uint16_t domain;
	uint8_t bus, devno, fn;
	int fd;			/* kept config file, -1: through libpci */
	int rw_errno;		/* why O_RDWR was refused (fd read-only) */
};

struct hw_pcicfg {
	pthread_mutex_t lock;	/* guards the fields below and libpci */
	struct pci_access *acc;
	const char *method;	/* libpci's name of the method in use */
	struct pcicfg_dev *devs;	/* cached device handles */
	bool scanned;		/* pci_scan_bus() has run */
	char *cfgdir;		/* NULL, or where DDDD:BB:DD.F/config are */
	char *sealed;		/* NULL, or why no device may be opened */
};

/*
 * The error callback has no context argument, so where it jumps to and
 * what it reports are thread-local; pci_call() sets them around each call
 * (under the hw_pcicfg mutex, on the calling thread).
 */
static _Thread_local jmp_buf *pci_catch;
static _Thread_local char pci_errmsg[256];
static _Thread_local int pci_errno;	/* errno when libpci gave up */
static _Thread_local char pci_warnmsg[256];

static void pcicfg_error(char *msg, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
static void pcicfg_warning(char *msg, ...)
	__attribute__((format(printf, 1, 2)));
static void pcicfg_debug(char *msg, ...)
	__attribute__((format(printf, 1, 2)));

static void pcicfg_error(char *msg, ...)
{
	va_list ap;
	size_t n;

	pci_errno = errno;
	va_start(ap, msg);
	vsnprintf(pci_errmsg, sizeof(pci_errmsg), msg, ap);
	va_end(ap);
	/* Some libpci messages end in '.'; ours continue after them. */
	n = strlen(pci_errmsg);
	while (n && (pci_errmsg[n - 1] == '.' || pci_errmsg[n - 1] == '\n'))
		pci_errmsg[--n] = '\0';
	/*
	 * Every libpci call that can reach this is made through pci_call(),
	 * so there is always somewhere to go; returning would let libpci run
	 * on after a failure it assumes is fatal.  Reaching here otherwise is
	 * a bug in this file.
	 */
	if (!pci_catch)
		abort();
	longjmp(*pci_catch, 1);
}

static void pcicfg_warning(char *msg, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, msg);
	vsnprintf(pci_warnmsg, sizeof(pci_warnmsg), msg, ap);
	va_end(ap);
	errno = saved;
}

static void pcicfg_debug(char *msg, ...)
{
	(void)msg;
}

/* One libpci operation, made by pci_call(). */
struct pci_op {
	enum {
		OP_SET_PARAM, OP_INIT, OP_CLEANUP, OP_SCAN, OP_GET_DEV,
		OP_FREE_DEV, OP_READ, OP_WRITE,
	} op;
	struct pci_access *acc;
	struct pci_dev *dev;	/* in for OP_FREE/READ/WRITE, out for GET */
	char *name, *value;	/* OP_SET_PARAM */
	int domain, bus, devno, fn;	/* OP_GET_DEV */
	int pos;		/* OP_READ, OP_WRITE: config offset */
	uint32_t val;		/* OP_READ out, OP_WRITE in */
	int ret;		/* libpci's return value, where it has one */
	int err;		/* errno after the call */
};

/*
 * Makes the libpci call described by o with the error callback armed.
 * Returns 0 if libpci returned (its result in o->ret, errno in o->err), or
 * -1 if it raised an error: the message is in pci_errmsg and the errno at
 * that moment (often 0: libpci's own checks do not set it) in pci_errno.
 * Any warning issued during the call is left in pci_warnmsg.
 */
static int pci_call(struct pci_op *o)
{
	jmp_buf env;
	uint8_t b[4] = { 0 };

	pci_errmsg[0] = '\0';
	pci_warnmsg[0] = '\0';
	pci_errno = 0;
	if (setjmp(env)) {
		pci_catch = NULL;
		return -1;
	}
	pci_catch = &env;
	errno = 0;
	switch (o->op) {
	case OP_SET_PARAM:
		o->ret = pci_set_param(o->acc, o->name, o->value);
		break;
	case OP_INIT:
		pci_init(o->acc);
		break;
	case OP_CLEANUP:
		pci_cleanup(o->acc);
		break;
	case OP_SCAN:
		pci_scan_bus(o->acc);
		for (struct pci_dev *d = o->acc->devices; d; d = d->next)
			pci_fill_info(d, PCI_FILL_IDENT);
		break;
	case OP_GET_DEV:
		o->dev = pci_get_dev(o->acc, o->domain, o->bus, o->devno,
				     o->fn);
		break;
	case OP_FREE_DEV:
		pci_free_dev(o->dev);
		break;
	case OP_READ:
		o->ret = pci_read_block(o->dev, o->pos, b, 4);
		o->val = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		break;
	case OP_WRITE:
		o->ret = pci_write_long(o->dev, o->pos, o->val);
		break;
	}
	o->err = errno;
	pci_catch = NULL;
	return 0;
}

/* Formats " (libpci: <last warning>)" into buf, or "" if there was none. */
static const char *warn_suffix(char *buf, size_t len)
{
	if (pci_warnmsg[0])
		snprintf(buf, len, " (libpci: %s)", pci_warnmsg);
	else
		buf[0] = '\0';
	return buf;
}

/* Lists the access methods this libpci was built with, for messages. */
static void method_list(char *buf, size_t len)
{
	size_t used = 0;
	const char *name;
	int i;

	buf[0] = '\0';
	for (i = 0; (name = pci_get_method_name(i)) != NULL; i++) {
		int n;

		if (!name[0])
			continue;
		n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			     name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

/* Frees the cached devices and the pci_access; p itself stays. */
static void pcicfg_free(struct hw_pcicfg *p)
{
	struct pcicfg_dev *c, *next;
	struct pci_op o;

	for (c = p->devs; c; c = next) {
		next = c->next;
		if (c->fd >= 0)
			close(c->fd);
		o = (struct pci_op){ .op = OP_FREE_DEV, .dev = c->dev };
		pci_call(&o);
		free(c);
	}
	p->devs = NULL;
	if (p->acc) {
		o = (struct pci_op){ .op = OP_CLEANUP, .acc = p->acc };
		pci_call(&o);
		p->acc = NULL;
	}
}

/* Passes one "name=value" to libpci.  Returns 0 or -errno. */
static int set_param(struct hw_pcicfg *p, const char *nv)
{
	struct pci_op o = { .op = OP_SET_PARAM, .acc = p->acc };
	char *s, *eq;
	int err = 0;

	s = strdup(nv);
	if (!s)
		return hw_fail(ENOMEM, "out of memory");
	eq = strchr(s, '=');
	if (!eq || eq == s) {
		free(s);
		return hw_fail(EINVAL, "libpci parameter \"%s\" is not of the "
			       "form name=value", nv);
	}
	*eq = '\0';
	o.name = s;
	o.value = eq + 1;
	if (pci_call(&o))
		err = hw_fail(ENOMEM, "libpci parameter \"%s\": %s", nv,
			      pci_errmsg);
	else if (o.ret)
		err = hw_fail(EINVAL, "unknown libpci parameter \"%s\" "
			      "(`lspci -O help` lists them)", s);
	free(s);
	return err;
}

/*
 * Opens libpci with access method `method` (a libpci name such as
 * "linux-sysfs" or "dump"; NULL lets libpci choose) and the NULL-ended
 * "name=value" parameters `params` (may be NULL).  Returns 0 and sets *out
 * (free with hw_pcicfg_close()), or -errno with the reason in
 * hw_last_error(): -EINVAL for an unknown method or parameter, otherwise
 * the errno behind libpci's failure (-ENOENT for a missing dump file) or
 * -EIO when libpci gave none.
 */
int hw_pcicfg_open(struct hw_pcicfg **out, const char *method,
		   const char *const *params)
{
	struct hw_pcicfg *p;
	struct pci_op o;
	char buf[256], wbuf[300];
	int err, m = PCI_ACCESS_AUTO;

	*out = NULL;
	if (method) {
		char *name = strdup(method);

		if (!name)
			return hw_fail(ENOMEM, "out of memory");
		m = pci_lookup_method(name);
		free(name);
		if (m < 0) {
			method_list(buf, sizeof(buf));
			return hw_fail(EINVAL, "unknown PCI access method "
				       "\"%s\"; this libpci has: %s", method,
				       buf);
		}
	}

	p = calloc(1, sizeof(*p));
	if (!p)
		return hw_fail(ENOMEM, "out of memory");
	/* pci_alloc() cannot fail: out of memory, libpci exits. */
	p->acc = pci_alloc();
	p->acc->error = pcicfg_error;
	p->acc->warning = pcicfg_warning;
	p->acc->debug = pcicfg_debug;
	p->acc->debugging = 0;
	p->acc->method = (unsigned)m;

	for (; params && *params; params++) {
		err = set_param(p, *params);
		if (err)
			goto fail;
	}

	o = (struct pci_op){ .op = OP_INIT, .acc = p->acc };
	if (pci_call(&o)) {
		const char *hint;

		if (!method)
			hint = "; no access method works here: is /sys "
			       "mounted?";
		else if (m == PCI_ACCESS_DUMP)
			hint = "; set dump.name to a file saved from "
			       "`lspci -xxx`";
		else
			hint = "; the method may need root";
		err = hw_fail(pci_errno ? pci_errno : EIO,
			      "cannot open PCI access method %s: %s%s%s",
			      method ? method : "(auto)", pci_errmsg,
			      warn_suffix(wbuf, sizeof(wbuf)), hint);
		goto fail;
	}
	p->method = pci_get_method_name((int)p->acc->method);
	if (!p->method || !p->method[0])
		p->method = "(unknown)";
	pthread_mutex_init(&p->lock, NULL);
	*out = p;
	return 0;

fail:
	pcicfg_free(p);
	free(p);
	return err;
}

/* Frees every cached device and the libpci state.  NULL is ignored. */
void hw_pcicfg_close(struct hw_pcicfg *p)
{
	if (!p)
		return;
	pcicfg_free(p);
	pthread_mutex_destroy(&p->lock);
	free(p->cfgdir);
	free(p->sealed);
	free(p);
}

/*
 * From now on every device's configuration file is opened once, at its
 * first use, from dir (the linux-sysfs layout: dir/DDDD:BB:DD.F/config)
 * and kept: reads and writes are pread()/pwrite() on it.  The kernel
 * checks the opener's privilege when the file is opened (CAP_SYS_ADMIN for
 * bytes past 64, write permission for writes), so a file opened while
 * privileged keeps working after the process drops privilege.  libpci is
 * still used to find devices.  0 or -ENOMEM.
 */
int hw_pcicfg_set_cfgdir(struct hw_pcicfg *p, const char *dir)
{
	return hw_set_str(&p->lock, &p->cfgdir, dir);
}

/* After this no new device is opened: get_dev_locked() fails with why. */
int hw_pcicfg_seal(struct hw_pcicfg *p, const char *why)
{
	return hw_set_str(&p->lock, &p->sealed, why);
}

/* Has a's device been opened (found and, with a cfgdir, its file)? */
bool hw_pcicfg_is_open(struct hw_pcicfg *p, const struct hw_addr *a)
{
	bool found = false;

	pthread_mutex_lock(&p->lock);
	for (struct pcicfg_dev *c = p->devs; c && !found; c = c->next)
		found = c->domain == a->domain && c->bus == a->bus &&
			c->devno == a->dev && c->fn == a->fn;
	pthread_mutex_unlock(&p->lock);
	return found;
}

/* Opens c's config file under p->cfgdir, read-write if allowed. */
static int open_cfgfile(struct hw_pcicfg *p, struct pcicfg_dev *c,
			const char *s)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%04x:%02x:%02x.%x/config", p->cfgdir,
		 c->domain, c->bus, c->devno, c->fn);
	c->fd = open(path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		c->rw_errno = errno;
		c->fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (c->fd < 0)
		return hw_fail(errno, "%s: cannot open %s: %s", s, path,
			       strerror(errno));
	return 0;
}

/* Checks a's function address, width and offset (hw_pci_check()). */
static int check_addr(const struct hw_addr *a)
{
	return hw_pci_check(a);
}

/*
 * Finds or creates the handle of a's device and checks that the device is
 * there.  Called with p->lock held.  Returns 0 with *out set, or -errno:
 * -ENODEV if nothing answers at that address.
 */
static int get_dev_locked(struct hw_pcicfg *p, const struct hw_addr *a,
			  struct pcicfg_dev **out)
{
	struct pcicfg_dev *c;
	struct pci_op o;
	char s[64], w[300];
	int err;

	for (c = p->devs; c; c = c->next)
		if (c->domain == a->domain && c->bus == a->bus &&
		    c->devno == a->dev && c->fn == a->fn) {
			*out = c;
			return 0;
		}

	hw_addr_str(a, s, sizeof(s));
	if (p->sealed)
		return hw_fail(EPERM, "%s: %s", s, p->sealed);
	c = calloc(1, sizeof(*c));
	if (!c)
		return hw_fail(ENOMEM, "out of memory");
	c->fd = -1;
	o = (struct pci_op){ .op = OP_GET_DEV, .acc = p->acc,
			     .domain = a->domain, .bus = a->bus,
			     .devno = a->dev, .fn = a->fn };
	if (pci_call(&o)) {
		free(c);
		return hw_fail(pci_errno ? pci_errno : EIO, "%s: %s", s,
			       pci_errmsg);
	}

	/* A function that is not there does not answer its vendor ID. */
	c->dev = o.dev;
	o = (struct pci_op){ .op = OP_READ, .dev = c->dev, .pos = 0 };
	if (pci_call(&o)) {
		err = hw_fail(pci_errno ? pci_errno : EIO, "%s: %s", s,
			      pci_errmsg);
		goto fail;
	}
	if (!o.ret || (o.val & 0xffff) == 0xffff) {
		err = hw_fail(ENODEV, "%s: no such PCI device (access "
			      "method %s)%s; compare `lspci -D` with the "
			      "platform's device numbers", s, p->method,
			      warn_suffix(w, sizeof(w)));
		goto fail;
	}
	c->domain = a->domain;
	c->bus = a->bus;
	c->devno = a->dev;
	c->fn = a->fn;
	if (p->cfgdir && (err = open_cfgfile(p, c, s)) < 0)
		goto fail;
	c->next = p->devs;
	p->devs = c;
	*out = c;
	return 0;

fail:
	o = (struct pci_op){ .op = OP_FREE_DEV, .dev = c->dev };
	pci_call(&o);
	free(c);
	return err;
}

/* Explains a failed config read at offset pos of a's device. */
static int read_fail(struct hw_pcicfg *p, const struct hw_addr *a, int pos)
{
	char s[64], w[300];

	hw_addr_str(a, s, sizeof(s));
	if (pci_errmsg[0])
		return hw_fail(pci_errno ? pci_errno : EIO, "%s: read of "
			       "offset 0x%x failed: %s", s, pos, pci_errmsg);
	return hw_fail(EIO, "%s: read of offset 0x%x failed (access method "
		       "%s)%s; the method may not provide this offset: "
		       "extended config space (0x100 and up) needs a PCIe "
		       "device, linux-sysfs gives only the first 64 bytes "
		       "to an opener without CAP_SYS_ADMIN (start uncored "
		       "as root, or with the shipped unit), and a dump holds "
		       "only what lspci printed (-xxx: 256 bytes, -xxxx: "
		       "4096)", s, pos,
		       p->method, warn_suffix(w, sizeof(w)));
}

/*
 * Config access on a kept file: one pread()/pwrite() of the dword(s),
 * as the kernel's sysfs config file does them.  A read that ends early at
 * byte 64 is the kernel's rule for a file opened without CAP_SYS_ADMIN.
 */
static int fd_read(const struct pcicfg_dev *c, const struct hw_addr *a,
		   uint64_t *v)
{
	uint8_t b[8] = { 0 };
	char s[64];
	ssize_t n;

	do
		n = pread(c->fd, b, a->width, (off_t)a->reg);
	while (n < 0 && errno == EINTR);
	if (n == a->width) {
		*v = 0;
		for (int i = a->width - 1; i >= 0; i--)
			*v = *v << 8 | b[i];
		return 0;
	}
	hw_addr_str(a, s, sizeof(s));
	if (n < 0)
		return hw_fail(errno, "%s: read failed: %s", s,
			       strerror(errno));
	if (a->reg >= 64)
		return hw_fail(EACCES, "%s: the config file ends before offset "
			       "0x%" PRIx64 ": Linux gives only the first 64 "
			       "bytes of PCI config space to a file opened "
			       "without CAP_SYS_ADMIN (drivers/pci/pci-sysfs.c); "
			       "start uncored as root: it opens every config "
			       "file before it drops privileges", s, a->reg);
	return hw_fail(EIO, "%s: short read (%zd of %u bytes)", s, n,
		       a->width);
}

static int fd_write(const struct pcicfg_dev *c, const struct hw_addr *a,
		    uint64_t v)
{
	uint8_t b[8];
	char s[64];
	ssize_t n;

	hw_addr_str(a, s, sizeof(s));
	if (c->rw_errno)
		return hw_fail(EPERM, "%s: cannot write: the config file is open "
			       "read-only (read-write open failed: %s); "
			       "writing PCI config space needs root: start "
			       "uncored as root, it opens every config file "
			       "before it drops privileges", s,
			       strerror(c->rw_errno));
	for (int i = 0; i < a->width; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	do
		n = pwrite(c->fd, b, a->width, (off_t)a->reg);
	while (n < 0 && errno == EINTR);
	if (n == a->width)
		return 0;
	if (n < 0 && errno == EPERM)
		return hw_fail(EPERM, "%s: the kernel refused the write: kernel "
			       "lockdown is active (see /sys/kernel/security/"
			       "lockdown)", s);
	if (n < 0)
		return hw_fail(errno, "%s: write failed: %s", s,
			       strerror(errno));
	return hw_fail(EIO, "%s: short write (%zd of %u bytes)", s, n,
		       a->width);
}

/*
 * Reads a->width (4 or 8) bytes of PCI config space at offset a->reg of
 * device a->domain:a->bus:a->dev.a->fn into *v; an 8-byte value is two
 * dword reads, low dword at a->reg.  Returns 0, or -errno with a message:
 * -EINVAL (bad width, unaligned or out-of-range offset), -ENODEV (no such
 * device), -EIO (the access method could not read that offset).
 */
int hw_pcicfg_read(struct hw_pcicfg *p, const struct hw_addr *a, uint64_t *v)
{
	struct pcicfg_dev *dev;
	struct pci_op o;
	uint64_t val = 0;
	int err, i;

	err = check_addr(a);
	if (err)
		return err;
	pthread_mutex_lock(&p->lock);
	err = get_dev_locked(p, a, &dev);
	if (!err && dev->fd >= 0)
		err = fd_read(dev, a, &val);
	for (i = 0; !err && dev->fd < 0 && i < a->width / 4; i++) {
		o = (struct pci_op){ .op = OP_READ, .dev = dev->dev,
				     .pos = (int)a->reg + 4 * i };
		if (pci_call(&o) || !o.ret)
			err = read_fail(p, a, o.pos);
		else
			val |= (uint64_t)o.val << (32 * i);
	}
	pthread_mutex_unlock(&p->lock);
	if (!err)
		*v = val;
	return err;
}

/*
 * Writes the low a->width (4 or 8) bytes of v to PCI config space at
 * a->reg; an 8-byte value is two dword writes, low dword first (if the
 * second fails, the first has happened).  Returns 0, or
 * -errno with a message: the errors of hw_pcicfg_read(), -EROFS if the
 * access method cannot write (a dump), -EACCES/-EPERM if the kernel
 * refused (writing config space needs root), -EIO otherwise.
 */
int hw_pcicfg_write(struct hw_pcicfg *p, const struct hw_addr *a, uint64_t v)
{
	struct pcicfg_dev *dev;
	struct pci_op o;
	char s[64], w[300];
	int err, i;

	err = check_addr(a);
	if (err)
		return err;
	hw_addr_str(a, s, sizeof(s));
	pthread_mutex_lock(&p->lock);
	err = get_dev_locked(p, a, &dev);
	if (!err && dev->fd >= 0)
		err = fd_write(dev, a, v);
	for (i = 0; !err && dev->fd < 0 && i < a->width / 4; i++) {
		o = (struct pci_op){ .op = OP_WRITE, .dev = dev->dev,
				     .pos = (int)a->reg + 4 * i,
				     .val = (uint32_t)(v >> (32 * i)) };
		if (pci_call(&o)) {
			/* libpci raises an error for a read-only method. */
			err = hw_fail(pci_errno ? pci_errno : EROFS, "%s: "
				      "cannot write with access method %s: %s",
				      s, p->method, pci_errmsg);
		} else if (!o.ret) {
			int e = o.err ? o.err : EIO;

			err = hw_fail(e, "%s: write of offset 0x%x failed "
				      "(access method %s)%s%s", s, o.pos,
				      p->method, warn_suffix(w, sizeof(w)),
				      e == EACCES || e == EPERM ?
				      "; writing PCI config space needs root "
				      "(CAP_SYS_ADMIN)" : "");
		}
	}
	pthread_mutex_unlock(&p->lock);
	return err;
}

static int dev_cmp(const void *x, const void *y)
{
	const struct hw_pci_dev *a = x, *b = y;
	uint64_t ka = (uint64_t)a->domain << 24 | (uint32_t)a->bus << 16 |
		      (uint32_t)a->dev << 8 | a->fn;
	uint64_t kb = (uint64_t)b->domain << 24 | (uint32_t)b->bus << 16 |
		      (uint32_t)b->dev << 8 | b->fn;

	return ka < kb ? -1 : ka > kb;
}

/*
 * Calls cb for every PCI function the access method knows, in domain/bus/
 * device/function order.  The bus is scanned once, on the first call.  cb
 * runs without the lock held, so it may read config space.  Returns 0,
 * cb's first non-zero return (which stops the walk), or -errno if the scan
 * failed.
 */
int hw_pcicfg_scan(struct hw_pcicfg *p,
		   int (*cb)(void *, const struct hw_pci_dev *), void *ctx)
{
	struct hw_pci_dev *list = NULL;
	struct pci_dev *d;
	struct pci_op o;
	size_t n = 0, i;
	int err = 0;

	pthread_mutex_lock(&p->lock);
	if (!p->scanned) {
		o = (struct pci_op){ .op = OP_SCAN, .acc = p->acc };
		if (pci_call(&o)) {
			err = hw_fail(pci_errno ? pci_errno : EIO,
				      "cannot scan PCI buses with access "
				      "method %s: %s", p->method, pci_errmsg);
			goto out;
		}
		p->scanned = true;
	}
	for (d = p->acc->devices; d; d = d->next)
		n++;
	list = calloc(n ? n : 1, sizeof(*list));
	if (!list) {
		err = hw_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0, d = p->acc->devices; d; d = d->next, i++)
		list[i] = (struct hw_pci_dev){
			.domain = (uint16_t)d->domain, .bus = d->bus,
			.dev = d->dev, .fn = d->func,
			.vendor = d->vendor_id, .device = d->device_id,
		};
out:
	pthread_mutex_unlock(&p->lock);
	if (err)
		return err;
	qsort(list, n, sizeof(*list), dev_cmp);
	for (i = 0; i < n && !err; i++)
		err = cb(ctx, &list[i]);
	free(list);
	return err;
}
