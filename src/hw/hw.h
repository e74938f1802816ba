/*
 * hw.h - one interface for reading and writing uncore registers.
 *
 * Three address spaces are reachable: MSRs (per logical CPU), PCI
 * configuration space (per domain:bus:dev.fn) and MMIO (by physical
 * address).  A backend implements them behind struct hw_ops; two exist:
 * hw_real_ops (the kernel's msr driver, libpci, /dev/mem) and hw_sim_ops
 * (the register-accurate simulator in hw_sim.c).  Everything above this
 * layer (platform code, sampler, arbiter) is the same for both, so every
 * test exercises the code production runs.
 *
 * Errors are returned as -errno; nothing here exits or prints.  A
 * human-readable explanation of the last failure on the calling thread
 * (what failed, on which register, and what to do about it) is available
 * from hw_last_error().
 */
#ifndef UNCORED_HW_H
#define UNCORED_HW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hw_space {
	HW_MSR,
	HW_PCI,
	HW_MMIO,
};

/* One register address.  Which fields matter depends on the space. */
struct hw_addr {
	enum hw_space space;
	uint8_t width;		/* bytes: MSR always 8; PCI and MMIO 4 or 8 */
	uint8_t bus, dev, fn;	/* PCI */
	uint16_t domain;	/* PCI */
	uint32_t cpu;		/* MSR: logical CPU the access is made on */
	uint64_t reg;		/* MSR index, PCI config offset, MMIO phys addr */
};

static inline struct hw_addr hw_msr(uint32_t cpu, uint32_t msr)
{
	return (struct hw_addr){ .space = HW_MSR, .width = 8, .cpu = cpu,
				 .reg = msr };
}

static inline struct hw_addr hw_pci(uint16_t domain, uint8_t bus, uint8_t dev,
				    uint8_t fn, uint16_t off, uint8_t width)
{
	return (struct hw_addr){ .space = HW_PCI, .width = width,
				 .domain = domain, .bus = bus, .dev = dev,
				 .fn = fn, .reg = off };
}

static inline struct hw_addr hw_mmio(uint64_t phys, uint8_t width)
{
	return (struct hw_addr){ .space = HW_MMIO, .width = width,
				 .reg = phys };
}

/* A PCI function found by hw_pci_scan(). */
struct hw_pci_dev {
	uint16_t domain;
	uint8_t bus, dev, fn;
	uint16_t vendor, device;
};

/* Options for hw_open().  Unset (NULL/0) fields take the defaults. */
struct hw_opts {
	/* real backend */
	const char *msr_path;	/* printf format with one %u for the CPU;
				   default "/dev/cpu/%u/msr" */
	const char *pci_method;	/* libpci access method name ("linux-sysfs",
				   "dump", ...); default: libpci's choice */
	const char *pci_params[8]; /* "name=value" libpci parameters, e.g.
				   "dump.name=/path/lspci-x.txt"; NULL-ended */
	const char *mem_path;	/* default "/dev/mem" */
	const char *pci_config_dir; /* where DDDD:BB:DD.F/config files are
				   opened once and kept (hw_pcicfg_set_cfgdir);
				   default "/sys/bus/pci/devices" with the
				   linux-sysfs method (or libpci's default),
				   none with others */
	/* simulator */
	const char *sim_platform;	/* "skl", "hsx"; default from workload */
	const char *sim_workload;	/* JSON file; NULL = built-in */
	bool sim_selftest;	/* no sim_workload: the built-in self-test
				   workload (wl_builtin_selftest) */
	const char *sim_state;		/* file-backed register state; NULL =
					   private memory, reset at start */
	/* No register model: the workload, clock and topology only, for
	 * the simulated kernel (src/sim/sim_kernel.h) of --backend=perf.
	 * Register accesses then fail with -ENODEV.  The only way to
	 * simulate a platform without direct access (perf-only: no
	 * PLAT_BE_DIRECT), which the register model refuses. */
	bool sim_no_registers;
	/* A platform description to simulate instead of looking
	 * sim_platform up in plat_all[] (unit tests of platform-generic
	 * code); NULL: none. */
	const struct platform *sim_plat;
};

struct hw;
struct platform;
/*
 * Where the CPUs of each package are: platform discovery needs one logical
 * CPU per socket to reach its MSRs, and a backend with a CPU numbering of
 * its own (the simulator) says so through hw_cpu_map_of().  Zero-initialised
 * = the real machine's sysfs.
 */
struct hw_cpu_map {
	/* Directory holding cpu<N>/topology/physical_package_id; NULL =
	 * "/sys/devices/system/cpu".  A CPU without that file (offline) is
	 * skipped; each package gets its lowest-numbered CPU. */
	const char *sysfs_cpu_root;
	/* Non-zero: do not read sysfs; CPU c is in package
	 * c / cpus_per_package and a package's CPU is pkg * cpus_per_package
	 * (the simulator's numbering, 8). */
	unsigned cpus_per_package;
	/* With cpus_per_package: the package's cores are its first
	 * cores_per_package CPUs (one thread each); 0 = all of them. */
	unsigned cores_per_package;
	/* With cpus_per_package: bit c set = CPU c is offline (not a core
	 * to read, not the package's CPU; its MSRs do not answer). */
	uint64_t offline;
	/* The cores of a package as the hardware enumerates them, online or
	 * not (CPUID leaf 0xB: hw_cpuid_cores(); the simulator's
	 * "cores"); 0: unknown, the online cores stand in. */
	unsigned hw_cores;
};


struct hw_played_phase {
	double start_s, len_s, period_s;
};

struct hw_ops {
	const char *name;
	int (*open)(struct hw *hw, const struct hw_opts *opts);
	void (*close)(struct hw *hw);
	int (*read)(struct hw *hw, const struct hw_addr *a, uint64_t *val);
	int (*write)(struct hw *hw, const struct hw_addr *a, uint64_t val);
	/* Calls cb for every PCI function present; stops early and returns
	 * cb's value if it is non-zero.  Returns 0 or -errno. */
	int (*pci_scan)(struct hw *hw,
			int (*cb)(void *ctx, const struct hw_pci_dev *d),
			void *ctx);
	/* No device is opened from now on (hw_seal); NULL: nothing to do. */
	int (*seal)(struct hw *hw, const char *why);
	/* 0 if an access to a needs no new device handle (hw_reachable);
	 * NULL: always 0. */
	int (*reachable)(struct hw *hw, const struct hw_addr *a);
	/* The platform the backend models (plat_of_hw(), plat.h); NULL: the
	 * CPU's, which the caller identifies (CPUID).  Opaque here: the
	 * backends are below the platform tables. */
	const struct platform *(*models)(const struct hw *hw);
	/* Fills where each package's CPUs are, for a backend with a CPU
	 * numbering of its own, and how many cores the hardware gives a
	 * package (hw_cpu_map); NULL: the machine's sysfs, no hardware
	 * core count. */
	void (*cpu_map)(const struct hw *hw, struct hw_cpu_map *m);
	/* ---- a backend that plays a known load (the simulator's workload);
	 * NULL: none (the real machine).  Through hw_played_*(). ---- */
	/* The backend's clock in seconds (the load's time base). */
	double (*played_time)(struct hw *hw);
	/* Phase ph of the load's cycle: its start within the cycle, its
	 * length and the cycle's length, in seconds.  0 or -ENOENT. */
	int (*played_phase)(const struct hw *hw, unsigned ph,
			    struct hw_played_phase *out);
	/* Events per second the load gives, in phase ph and summed over
	 * the sockets, to a counter of unit (platform unit index) counting
	 * free-running counter freerun (>= 0) or encoding code/umask. */
	double (*played_rate)(const struct hw *hw, unsigned ph, int unit,
			      int freerun, uint8_t code, uint8_t umask);
	/* The machine's CPUID (hw_cpuid()): leaf, subleaf sub into
	 * r[0..3] = EAX..EDX; 0 or -errno.  NULL: the CPU's own. */
	int (*cpuid)(const struct hw *hw, uint32_t leaf, uint32_t sub,
		     uint32_t r[4]);
};

struct hw {
	const struct hw_ops *ops;
	void *priv;
	atomic_uint_fast64_t nreads;	/* successful and failed accesses */
	atomic_uint_fast64_t nwrites;
	atomic_uint_fast64_t nerrors;
};

/* The real machine's backend (hw_real.c).  The simulator's, hw_sim_ops,
 * is in sim/hw_sim.h: the daemon chooses one (backend.c) and everything
 * else sees only struct hw and its ops. */
extern const struct hw_ops hw_real_ops;

/* Sets *m for plat_discover(): the backend's CPU numbering, or all
 * zero (the machine's sysfs). */
void hw_cpu_map_of(const struct hw *hw, struct hw_cpu_map *m);

/* Does the backend play a known load (the simulator)?  Then the three
 * below answer for it: its clock (s), phase ph's timing (0 or -ENOENT)
 * and the rate a counter sees in phase ph (events/s over every socket;
 * 0 when the load does not drive it). */
bool hw_played(const struct hw *hw);
double hw_played_time(struct hw *hw);
int hw_played_phase(const struct hw *hw, unsigned ph,
		    struct hw_played_phase *out);
double hw_played_rate(const struct hw *hw, unsigned ph, int unit,
		      int freerun, uint8_t code, uint8_t umask);

/* Opens the backend.  Returns 0 or -errno (message in hw_last_error()). */
int hw_open(struct hw *hw, const struct hw_ops *ops, const struct hw_opts *o);
void hw_close(struct hw *hw);

/* Reads/writes one register, counting the access.  0 or -errno. */
int hw_read(struct hw *hw, const struct hw_addr *a, uint64_t *val);
/* A read whose failure is an answer, not an error (discovery asking
 * whether a box is there): counted as a read, never in nerrors. */
int hw_probe(struct hw *hw, const struct hw_addr *a, uint64_t *val);
int hw_write(struct hw *hw, const struct hw_addr *a, uint64_t val);
int hw_pci_scan(struct hw *hw, int (*cb)(void *, const struct hw_pci_dev *),
		void *ctx);
/*
 * From now on the backend opens no device: an access that would need a
 * handle not opened yet fails with -EPERM and why in its message.  The
 * daemon seals the backend when it drops privilege (doc/design.md section 4):
 * the kernel checks privilege at open, so a later open would fail anyway,
 * and less clearly.  0 or -errno.
 */
int hw_seal(struct hw *hw, const char *why);
/*
 * Can a be accessed without opening a device?  0 if its handle is open
 * or the backend is not sealed (it may still open it); -EPERM with the
 * seal's reason in hw_last_error() otherwise.  Accesses nothing: the
 * daemon asks before a reload switches to a program that needs a device
 * it did not open at start-up, and keeps the old one then.
 */
int hw_reachable(struct hw *hw, const struct hw_addr *a);

/* Formats a into buf ("msr 0x706 on cpu 0", "pci 0000:00:00.0+0x48",
 * "mmio 0xfed15050") and returns buf. */
char *hw_addr_str(const struct hw_addr *a, char *buf, size_t len);

/* PCIe extended configuration space of one function. */
#define HW_PCI_CFG_SIZE 4096u

/*
 * Checks a PCI access's function number, width (4 or 8) and offset
 * (4-byte aligned, inside HW_PCI_CFG_SIZE): the rules every backend
 * applies alike.  Returns 0 or -EINVAL with a message.
 */
int hw_pci_check(const struct hw_addr *a);

/*
 * Parses an address written as "msr:0xE01[@CPU]", "pci:[DDDD:]BB:DD.F+0xOFF"
 * or "mmio:0xADDR", each optionally ending in "/4" or "/8" for the access
 * width (default: MSR 8, PCI and MMIO 4).  Returns 0, or -EINVAL with the
 * reason in why.
 */
int hw_addr_parse(const char *s, struct hw_addr *a, char *why, size_t whylen);

/* The calling thread's last error message ("" if none).  Thread-local;
 * valid until the thread's next hw call. */
const char *hw_last_error(void);
/* Sets the calling thread's error message; returns -err (err > 0) so a
 * backend can write `return hw_fail(EIO, "...", ...);`. */
int hw_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Replaces *dst (freed) with a copy of v under lock: for the backends'
 * seal reasons and paths.  0 or -ENOMEM (message set). */
int hw_set_str(pthread_mutex_t *lock, char **dst, const char *v);

/*
 * Real-backend parts, exported for hw_real.c and for their unit tests.
 * Each owns its state; *_close frees it.
 */
struct hw_msr;
int hw_msr_open(struct hw_msr **out, const char *path_fmt);
void hw_msr_close(struct hw_msr *m);
int hw_msr_read(struct hw_msr *m, uint32_t cpu, uint32_t msr, uint64_t *val);
int hw_msr_write(struct hw_msr *m, uint32_t cpu, uint32_t msr, uint64_t val);
int hw_msr_seal(struct hw_msr *m, const char *why);
bool hw_msr_is_open(struct hw_msr *m, uint32_t cpu);

struct hw_pcicfg;
int hw_pcicfg_open(struct hw_pcicfg **out, const char *method,
		   const char *const *params);
void hw_pcicfg_close(struct hw_pcicfg *p);
int hw_pcicfg_read(struct hw_pcicfg *p, const struct hw_addr *a, uint64_t *v);
int hw_pcicfg_write(struct hw_pcicfg *p, const struct hw_addr *a, uint64_t v);
int hw_pcicfg_scan(struct hw_pcicfg *p,
		   int (*cb)(void *, const struct hw_pci_dev *), void *ctx);
int hw_pcicfg_set_cfgdir(struct hw_pcicfg *p, const char *dir);
int hw_pcicfg_seal(struct hw_pcicfg *p, const char *why);
bool hw_pcicfg_is_open(struct hw_pcicfg *p, const struct hw_addr *a);

struct hw_mem;
int hw_mem_open(struct hw_mem **out, const char *path);
void hw_mem_close(struct hw_mem *m);
int hw_mem_read(struct hw_mem *m, uint64_t phys, uint8_t width, uint64_t *v);
int hw_mem_write(struct hw_mem *m, uint64_t phys, uint8_t width, uint64_t v);

/*
 * The number of cores in this CPU's package as CPUID enumerates them,
 * whether online or not: leaf 0xB (x2APIC topology), logical processors
 * at the core level over those at the SMT level - what Linux takes as the
 * package's core count (x86_max_cores, topology_num_cores_per_package())
 * - else leaf 4's EAX[31:26] + 1.  Returns the count, or 0 where CPUID
 * does not say.
 */
unsigned hw_cpuid_cores(void);

/*
 * CPUID leaf, subleaf sub of the machine hw stands for, into r[0..3] =
 * EAX, EBX, ECX, EDX: the backend's (the simulator's, from its platform
 * and workload), or where it has none - or hw is NULL or not open (the
 * perf backend on a real machine opens no hw backend) - this CPU's,
 * which is what the kernel reads at boot.  A leaf past the highest of
 * its range reads as zeros.  0, or -ENODEV where there is no CPUID.
 */
int hw_cpuid(const struct hw *hw, uint32_t leaf, uint32_t sub,
	     uint32_t r[4]);
/* hw_cpuid() as a plat_cpuid_fn (plat.h): ctx is the struct hw, or
 * NULL for this CPU. */
int hw_cpuid_fn(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4]);

#endif
