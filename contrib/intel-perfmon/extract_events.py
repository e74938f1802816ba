#!/usr/bin/env python3
"""
extract_events.py - builds the uncore event catalogs of the perf-backed Xeon
Scalable platforms (src/plat/events_skx.c, events_icx.c, events_spr.c and
their headers) from Intel's perfmon data (intel-perfmon/: SKX and CLX for
skx, ICX for icx, SPR and EMR for spr, GNR and SRF with their
experimental files for gnr).

  extract_events.py [--data DIR] PLATFORM --write     regenerate the files
  extract_events.py [--data DIR] PLATFORM --check     exit 1 with a diff if
                                                      the committed files differ
  extract_events.py [--data DIR] PLATFORM --coverage  print what the catalog
                                                      covers; exit 1 below 95 %

PLATFORM is skx, icx, spr, gnr, adl, mtl or all.  adl (Alder Lake, Raptor
Lake) and mtl (Meteor Lake, Arrow Lake) are the Core clients of the
kernel's uncore_snb.c: ARB, iMC and the clock as Intel's data has them;
Intel's per-controller free-running counters (UNC_MC0_RDCAS_COUNT_FREERUN,
...) are one counter of each kernel uncore_imc_free_running_N box
(FREERUN_AS), named after the kernel's event.  DIR holds intel-perfmon/ (default: the
repository's tests/data, else ../shared/data beside the repository).

One catalog entry per event of the units the platform programs, named and
encoded as Intel's data has it: umask = UMask | UMaskExt << 8 (the kernel's
"umask" format places the bits above 7: e.g. icx CHA "config:8-15,32-57"),
valid counters from "Counter", IIO channel/function masks (PortMask,
FCMask) as the kernel terms ch_mask/fc_mask, skx CHA filters ("CHAFilter0",
"CHAFilter1") as the unit's box filter (the kernel's config1, filter
register 0 of the unit table) with FILTER_VALUE, where the data fixes one,
as kernel terms.  An event the kernel formats cannot express is left out
with its reason (the --coverage listing and doc/hardware-notes.md).  A
platform that merges two files (skx: SKX and CLX) takes each event once;
the two must agree on its encoding.  Fixed and free-running counters the
kernel offers beyond the data (KERNEL_EXTRA) come last.

Strict: an unknown key, unit, counter list or filter is an error, so a new
data version is reviewed before it is used.  Standard library only; the
C-literal helpers are the hsx generator's.
"""
import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))


def _hsx_generator():
    path = os.path.join(HERE, "..", "hsx", "extract_events.py")
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location("hsx_extract_events", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_hsx = _hsx_generator()
c_str, wrap_str = _hsx.c_str, _hsx.wrap_str
write_or_check = _hsx.write_or_check

KEYS = {"Unit", "EventCode", "UMask", "UMaskExt", "PortMask", "FCMask",
        "EventName", "BriefDescription", "PublicDescription", "Counter",
        "ELLC", "Filter", "ExtSel", "Deprecated", "FILTER_VALUE",
        "CounterType"}
MIN_COVERAGE = 0.95

# skx CHA config1 (arch/x86/events/intel/uncore_snbep.c
# skx_uncore_cha_formats_attr): FILTER1 register bit i is config1 bit
# 32 + i (hswep_cbox_enable_event() writes config1 >> 32 to FILTER1).
SKX_FILTER1_FIELDS = [("filter_rem", 32, 32), ("filter_loc", 33, 33),
                      ("filter_all_op", 35, 35), ("filter_nm", 36, 36),
                      ("filter_not_nm", 37, 37), ("filter_opc0", 41, 50),
                      ("filter_opc1", 51, 60), ("filter_nc", 62, 62),
                      ("filter_isoc", 63, 63)]

# JSON "Unit" -> (catalog unit, bits of the kernel's umask format field,
# counters).  Umask widths: uncore_snbep.c format attributes of each PMU
# (umask 8; skx UPI umask_ext 31; icx CHA umask_ext2 34, UPI umask_ext4
# 32, M2M umask_ext3 16; spr CHA umask_ext5 40, the raw group umask_ext4
# 32, IIO 8).
PLATFORMS = {
    "skx": {
        "files": [("SKX", "SKX/events/skylakex_uncore.json"),
                  ("CLX", "CLX/events/cascadelakex_uncore.json")],
        "units": {"CHA": ("cha", 8, 4), "iMC": ("imc", 8, 4),
                  "UPI LL": ("upi", 31, 4), "M2M": ("m2m", 8, 4),
                  "IIO": ("iio", 8, 4), "IRP": ("irp", 8, 2),
                  "M3UPI": ("m3upi", 8, 3)},
        "iio_masks": (8, 3),
        "cha_filter": True,
    },
    "icx": {
        "files": [("ICX", "ICX/events/icelakex_uncore.json")],
        "units": {"CHA": ("cha", 34, 4), "iMC": ("imc", 8, 4),
                  "UPI LL": ("upi", 32, 4), "M2M": ("m2m", 16, 4),
                  "IIO": ("iio", 8, 4), "IRP": ("irp", 8, 2),
                  "M2PCIe": ("m2pcie", 8, 4), "M3UPI": ("m3upi", 8, 4),
                  "PCU": ("pcu", 8, 4)},
        "fixed": {("UBOX", "UNC_U_CLOCKTICKS"): "ubox_fixed",
                  ("iMC", "UNC_M_HCLOCKTICKS"): "imc_fixed"},
        "iio_masks": (12, 3),
    },
    "spr": {
        "files": [("SPR", "SPR/events/sapphirerapids_uncore.json"),
                  ("EMR", "EMR/events/emeraldrapids_uncore.json"),
                  ("SPR experimental",
                   "SPR/events/sapphirerapids_uncore_experimental.json",
                   "cxl"),
                  ("EMR experimental",
                   "EMR/events/emeraldrapids_uncore_experimental.json",
                   "cxl")],
        "units": {"CHA": ("cha", 40, 4), "iMC": ("imc", 32, 4),
                  "UPI LL": ("upi", 32, 4), "M2M": ("m2m", 32, 4),
                  "IIO": ("iio", 8, 4), "IRP": ("irp", 32, 2),
                  "M2PCIe": ("m2pcie", 32, 4), "M3UPI": ("m3upi", 32, 4),
                  "PCU": ("pcu", 8, 4), "CXLCM": ("cxlcm", 32, 8),
                  "CXLDP": ("cxldp", 32, 4)},
        "iio_masks": (12, 3),
    },
    # gnr: Granite Rapids and Sierra Forest (one kernel table, uncore_snbep.c
    # gnr_uncores).  Format widths: spr_uncore_chabox (umask_ext5, 40),
    # spr_uncore_imc / irp and the SPR_UNCORE_PCI/MMIO_COMMON_FORMAT types
    # gnr_uncore_upi, b2cmi, b2cxl, b2upi (raw umask_ext4, 32),
    # spr_uncore_iio / pcu (8); gnr_uncore_ubox, mdf_sbo and b2hot name no
    # format: uncore_discovery.c's generic one (umask config:8-15, 8).
    # Counters: the discovery table's num_regs, read from the hardware, so
    # taken from Intel's "Counter" lists: 4 per box (IRP too, unlike spr's
    # 2), UBOX 2, CXLCM 8.  Intel's MDF unit is placed on mdf_sbo (type
    # 20), the only MDF type gnr_uncores names (doc/hardware-notes.md).
    "gnr": {
        "files": [("GNR", "GNR/events/graniterapids_uncore.json"),
                  ("GNR experimental",
                   "GNR/events/graniterapids_uncore_experimental.json"),
                  ("SRF", "SRF/events/sierraforest_uncore.json"),
                  ("SRF experimental",
                   "SRF/events/sierraforest_uncore_experimental.json")],
        "units": {"CHA": ("cha", 40, 4), "IMC": ("imc", 32, 4),
                  "UPI LL": ("upi", 32, 4), "B2CMI": ("b2cmi", 32, 4),
                  "IIO": ("iio", 8, 4), "IRP": ("irp", 32, 4),
                  "PCU": ("pcu", 8, 4), "UBOX": ("ubox", 8, 2),
                  "MDF": ("mdf_sbo", 8, 4), "B2UPI": ("b2upi", 32, 4),
                  "B2HOT": ("b2hot", 8, 4), "B2CXL": ("b2cxl", 32, 4),
                  "CXLCM": ("cxlcm", 32, 8), "CXLDP": ("cxldp", 32, 4)},
        "iio_masks": (12, 3),
    },
    # Core clients (arch/x86/events/intel/uncore_snb.c): ARB 2 counters
    # (adl_uncore_arb / mtl_uncore_arb), iMC 5 (adl_uncore_imc; its
    # format has no umask: "event", "chmask", "edge"), HAC ARB and HAC
    # CBo 2 (mtl_uncore_hac_arb, mtl_uncore_hac_cbox).  The NCU's
    # UNC_CLOCK.SOCKET is the fixed counter of uncore_clock (adl) or
    # uncore_cncu (mtl: the kernel's meteorlake/uncore-other.json puts it
    # on Unit CNCU).
    "adl": {
        "files": [("ADL", "ADL/events/alderlake_uncore.json"),
                  ("ADL experimental",
                   "ADL/events/alderlake_uncore_experimental.json")],
        "units": {"ARB": ("arb", 8, 2), "iMC": ("imc", 0, 5)},
        "fixed": {("NCU", "UNC_CLOCK.SOCKET"): "clock"},
    },
    "mtl": {
        "files": [("MTL", "MTL/events/meteorlake_uncore.json"),
                  ("MTL experimental",
                   "MTL/events/meteorlake_uncore_experimental.json"),
                  ("ARL", "ARL/events/arrowlake_uncore.json"),
                  ("ARL experimental",
                   "ARL/events/arrowlake_uncore_experimental.json")],
        "units": {"ARB": ("arb", 8, 2), "iMC": ("imc", 0, 5),
                  "HAC_ARB": ("hac_arb", 8, 2),
                  "HAC_CBO": ("hac_cbox", 8, 2)},
        "fixed": {("NCU", "UNC_CLOCK.SOCKET"): "clock"},
    },
}

# Selections: a data file given as (tag, path, selection) contributes only
# the events the selection accepts; the others are neither programmed nor
# left out (the coverage line counts them in the file's total only).
# "cxl" (spr): the CXL events of Intel's SPR/EMR experimental files, the
# only place Intel publishes them for those parts (issue 31 section 5,
# doc/hardware-notes.md "CXL memory bandwidth"): every CXLCM and CXLDP
# event and the CHA TOR inserts that target CXL memory (_CXL_ACC,
# _CXL_EXP_LOCAL).  Events of those files that repeat the main files'
# must agree with them (load() checks every shared name).
SELECT = {
    "cxl": lambda e: e["Unit"] in ("CXLCM", "CXLDP") or (
        e["EventName"].startswith("UNC_CHA_TOR_INSERTS.") and
        ("_CXL_ACC" in e["EventName"] or "_CXL_EXP" in e["EventName"])),
}

# Intel's free-running counters of one memory controller each (Counter
# 0/1 of MC0, 3/4 of MC1) -> the kernel event of every
# uncore_imc_free_running_N box that reads them (uncore_snb.c
# adl_uncore_imc_freerunning: DATA_READ at +0x58, DATA_WRITE at +0xA0;
# tgl_uncore_imc_events data_read umask 0x20, data_write umask 0x30).
FREERUN_AS = {
    "UNC_MC0_RDCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_READ",
    "UNC_MC1_RDCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_READ",
    "UNC_M_MC0_RDCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_READ",
    "UNC_M_MC1_RDCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_READ",
    "UNC_MC0_WRCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_WRITE",
    "UNC_MC1_WRCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_WRITE",
    "UNC_M_MC0_WRCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_WRITE",
    "UNC_M_MC1_WRCAS_COUNT_FREERUN": "UNC_M_FREE_RUNNING.DATA_WRITE",
}

# Events of the data uncored does not count and does not count as
# programmed (listed by --coverage with the reason).
NOT_COUNTED = {
    "UNC_MC0_TOTAL_REQCOUNT_FREERUN": "requests of any size (Intel); the "
        "kernel's only other free-running counter is data_total, 64 bytes "
        "a count: that the two are one counter is not established",
}
for _n in ("UNC_MC1_TOTAL_REQCOUNT_FREERUN", "UNC_M_MC0_TOTAL_REQCOUNT_FREERUN",
           "UNC_M_MC1_TOTAL_REQCOUNT_FREERUN"):
    NOT_COUNTED[_n] = NOT_COUNTED["UNC_MC0_TOTAL_REQCOUNT_FREERUN"]

# Units of the data a platform does not program: every event of theirs is
# left out, with the reason.
NOT_PROGRAMMED = {
    ("spr", "MCHBM"): "HBM memory controller: Xeon Max (HBM) parts only; "
                      "the kernel's name for its discovery-table PMU was "
                      "not established here",
    ("spr", "M2HBM"): "mesh to HBM: Xeon Max (HBM) parts only (as MCHBM)",
    ("gnr", "CHACMS"): "CHA-to-mesh stop: no type of the kernel's "
                       "gnr_uncores names it (uncore_snbep.c), so it would "
                       "appear only as an unnamed uncore_type_<t>_<id>",
}

# Events of the data that are not counted by a programmable counter of a
# programmed unit: FREERUN entries the kernel reads through a PMU uncored
# does not model.
NOT_PROGRAMMED_EVENTS = {
    "UNC_IIO_CLOCKTICKS_FREERUN": "IIO free-running clock: the kernel's "
        "uncore_iio_free_running_N PMU (alias ioclk), not a unit uncored "
        "programs",
}

# Events whose fields in Intel's data contradict each other: left out with
# the reason (they count against coverage) rather than guessed.  GNR and
# SRF experimental UNC_IIO_NUM_OUTSTANDING_REQ_OF_CPU.*: PortMask 0x0FF
# but UMaskExt 0x700F0, whose channel bits (4-15) hold 0x00F.
DATA_CONFLICT = {"gnr": {}}
for _u in ("IOMMU_REQ", "IOMMU_HIT", "REQ_OWN", "FINAL_RD_WR", "WR", "DATA"):
    DATA_CONFLICT["gnr"]["UNC_IIO_NUM_OUTSTANDING_REQ_OF_CPU." + _u] = (
        "Intel's PortMask 0x0FF and UMaskExt 0x700F0 (channel mask 0x00F) "
        "disagree: the channel mask is not established")

# Counters the kernel offers beyond Intel's data (arch/x86/events/intel/
# uncore_snbep.c): name, unit, flag, kernel event, description.
KERNEL_EXTRA = {
    "icx": [
        ("UNC_M_FREE_RUNNING.DCLK", "imc_free", "EVF_FREERUN",
         "icx_uncore_imc_freerunning_events dclk (event=0xff,umask=0x10)",
         "Free-running DRAM clock (DCLK) cycles of one memory controller."),
        ("UNC_M_FREE_RUNNING.DATA_READ", "imc_free", "EVF_FREERUN",
         "icx_uncore_imc_freerunning_events read (event=0xff,umask=0x20)",
         "Free-running count of 64-byte DRAM reads of one memory "
         "controller (kernel scale 6.103515625e-5 MiB)."),
        ("UNC_M_FREE_RUNNING.DATA_WRITE", "imc_free", "EVF_FREERUN",
         "icx_uncore_imc_freerunning_events write (event=0xff,umask=0x21)",
         "Free-running count of 64-byte DRAM writes of one memory "
         "controller (kernel scale 6.103515625e-5 MiB)."),
    ],
}
CLIENT_FREE = [
    ("UNC_M_FREE_RUNNING.DATA_READ", "imc_free", "EVF_FREERUN",
     "uncore_snb.c tgl_uncore_imc_events data_read (event=0xff,umask=0x20)",
     "Free-running count of 64-byte DRAM reads of one memory controller "
     "(kernel scale 6.103515625e-5 MiB)."),
    ("UNC_M_FREE_RUNNING.DATA_WRITE", "imc_free", "EVF_FREERUN",
     "uncore_snb.c tgl_uncore_imc_events data_write (event=0xff,umask=0x30)",
     "Free-running count of 64-byte DRAM writes of one memory controller "
     "(kernel scale 6.103515625e-5 MiB)."),
    ("UNC_M_FREE_RUNNING.DATA_TOTAL", "imc_free", "EVF_FREERUN",
     "uncore_snb.c tgl_uncore_imc_events data_total (event=0xff,umask=0x10)",
     "Free-running count of 64-byte DRAM transfers (reads and writes) of "
     "one memory controller (kernel scale 6.103515625e-5 MiB)."),
]
KERNEL_EXTRA["adl"] = CLIENT_FREE

# IIO free-running bandwidth counters of each I/O stack (the kernel's
# uncore_iio_free_running_N, doc/hardware-notes.md "I/O bandwidth"): per
# stack, IN = data the devices send to the SoC (inbound: their writes to
# memory), OUT = data the SoC sends them.  skx: 4 ports each way, 4 bytes
# a count (skx_uncore_iio_freerunning_events, 3.814697266e-6 MiB); icx
# and spr: 8 ports IN only, 32 bytes a count (snr_uncore_iio_freerunning_
# events after 32c7f1150225 and 506f981ab40f, 2025: 3.0517578125e-5 MiB;
# Intel's SPR/EMR experimental UNC_IIO_BANDWIDTH_IN.PARTn_FREERUN "every
# 32 bytes"); spr's OUT counters have no fixed increment (506f981ab40f).
def _iio_free(direction, ports, umask0, kname, nbytes, scale):
    return [("UNC_IIO_BANDWIDTH_%s.PART%d_FREERUN" % (direction, i),
             "iio_free", "EVF_FREERUN",
             "%s bw_%s_port%d (event=0xff,umask=0x%x)" %
             (kname, direction.lower(), i, umask0 + i),
             "Free-running count of %d-byte units of data the I/O stack's "
             "port %d %s (kernel scale %s MiB)." %
             (nbytes, i, "sent to the SoC (inbound)" if direction == "IN"
              else "received from the SoC (outbound)", scale))
            for i in range(ports)]


KERNEL_EXTRA["skx"] = (
    _iio_free("IN", 4, 0x20, "skx_uncore_iio_freerunning_events", 4,
              "3.814697266e-6") +
    _iio_free("OUT", 4, 0x24, "skx_uncore_iio_freerunning_events", 4,
              "3.814697266e-6"))
KERNEL_EXTRA["icx"] += _iio_free("IN", 8, 0x20,
                                 "snr_uncore_iio_freerunning_events", 32,
                                 "3.0517578125e-5")
KERNEL_EXTRA["spr"] = _iio_free("IN", 8, 0x20,
                                "snr_uncore_iio_freerunning_events", 32,
                                "3.0517578125e-5")
KERNEL_EXTRA["mtl"] = CLIENT_FREE

EVF = {"EVF_FILTER0": 0x0001, "EVF_FIXED": 0x0100, "EVF_FREERUN": 0x0200}


class DataError(Exception):
    pass


def num(s, what):
    try:
        return int(s, 16) if s.lower().startswith("0x") else int(s, 10)
    except ValueError:
        raise DataError("%s: %r is not a number" % (what, s))


def ascii_text(s):
    t = " ".join(s.replace("\u2013", "-").replace("\u2019", "'").split())
    return "".join(c if 32 <= ord(c) < 127 else "?" for c in t)


def ctr_mask(counter, nctr, where):
    try:
        idx = [int(x) for x in counter.split(",")]
    except ValueError:
        raise DataError("%s: counter list %r" % (where, counter))
    if max(idx) >= nctr:
        raise DataError("%s: counter %d beyond the unit's %d" %
                        (where, max(idx), nctr))
    return sum(1 << i for i in idx)


def skx_filter_terms(value, where):
    """FILTER1 register value -> kernel terms of config1 (value << 32)."""
    cfg, terms, used = value << 32, [], 0
    for name, lo, hi in SKX_FILTER1_FIELDS:
        mask = ((1 << (hi - lo + 1)) - 1) << lo
        used |= mask
        if cfg & mask:
            terms.append("%s=0x%x" % (name, (cfg & mask) >> lo))
    if cfg & ~used:
        raise DataError("%s: FILTER_VALUE 0x%x sets bits no skx CHA format "
                        "field holds" % (where, value))
    return ",".join(terms)


def iio_ext(e, where):
    """The UMaskExt of an IIO event, less what it repeats of PortMask and
    FCMask.  On spr Intel's UMaskExt holds the channel mask in bits 4-15
    and the function mask in bits 16-18, i.e. config bits 36-47 and 48-50,
    which the kernel's IIO PMU takes as its own fields ch_mask and fc_mask
    (snr_uncore_iio_formats_attr: ch_mask2 config:36-47, fc_mask2
    config:48-50): those bits become terms, not umask."""
    ext = num(e.get("UMaskExt", "0"), where)
    pm = num(e.get("PortMask", "0"), where)
    fm = num(e.get("FCMask", "0"), where)
    if ext and ext != (pm << 4 | fm << 16):
        raise DataError("%s: IIO UMaskExt 0x%x is not PortMask << 4 | "
                        "FCMask << 16" % (where, ext))
    return 0


def filters(plat, cfg, e, where):
    """(flags, filter text, perf terms) of event e, or a DataError."""
    f, flags, terms = e.get("Filter", "na"), set(), []
    if f in ("na", ""):
        pass
    elif f in ("chnl", "fc, chnl"):
        chb, fcb = cfg["iio_masks"]
        pm, fm = num(e["PortMask"], where), num(e["FCMask"], where)
        if pm >> chb or fm >> fcb:
            raise DataError("%s: PortMask/FCMask beyond ch_mask/fc_mask" %
                            where)
        terms += ["ch_mask=0x%x" % pm] if pm else []
        terms += ["fc_mask=0x%x" % fm] if fm else []
    elif cfg.get("cha_filter") and f.lower().split("[")[0] in (
            "chafilter0", "chafilter1", "filter1"):
        flags.add("EVF_FILTER0")
        v = num(e["FILTER_VALUE"], where)
        if v:
            terms.append(skx_filter_terms(v, where))
    else:
        raise DataError("%s: unknown Filter %r" % (where, f))
    if f == "na":
        pm = num(e.get("PortMask", "0"), where)
        fm = num(e.get("FCMask", "0"), where)
        if (pm or fm) and e["Unit"] == "IIO":
            chb, fcb = cfg["iio_masks"]
            terms += ["ch_mask=0x%x" % pm] if pm else []
            terms += ["fc_mask=0x%x" % fm] if fm else []
    return flags, (f if flags else None), ",".join(t for t in terms if t)


def entry(plat, cfg, tag, version, e):
    where = "%s %s" % (tag, e["EventName"])
    unknown = set(e) - KEYS
    if unknown:
        raise DataError("%s: unknown keys %s" % (where, sorted(unknown)))
    if e.get("ExtSel", "0") not in ("0", ""):
        raise DataError("%s: ExtSel %r" % (where, e["ExtSel"]))
    fixed = cfg.get("fixed", {}).get((e["Unit"], e["EventName"]))
    base = dict(name=e["EventName"], desc=ascii_text(e["BriefDescription"]),
                source="%s V%s" % (tag, version),
                deprecated=e["Deprecated"] == "1", terms="", filt=None,
                flags=set())
    if fixed:
        return dict(base, unit=fixed, code=0, umask=0, ctr_mask=0,
                    flags={"EVF_FIXED"})
    if e["EventName"] in NOT_PROGRAMMED_EVENTS:
        return NOT_PROGRAMMED_EVENTS[e["EventName"]]
    if e.get("CounterType", "PGMABLE") != "PGMABLE" or e["Counter"] == "FIXED":
        raise DataError("%s: counter type %s not placed" %
                        (where, e.get("CounterType")))
    unit, ubits, nctr = cfg["units"][e["Unit"]]
    if e["EventName"] in DATA_CONFLICT.get(plat, {}):
        return DATA_CONFLICT[plat][e["EventName"]]
    ext = iio_ext(e, where) if e["Unit"] == "IIO" else \
        num(e.get("UMaskExt", "0"), where)
    umask = num(e["UMask"], where) | ext << 8
    if umask >> ubits:
        return ("umask 0x%x needs more than the %d bits of the kernel's "
                "umask format of this unit" % (umask, ubits))
    flags, filt, terms = filters(plat, cfg, e, where)
    return dict(base, unit=unit, code=num(e["EventCode"], where),
                umask=umask, ctr_mask=ctr_mask(e["Counter"], nctr, where),
                flags=flags, filt=filt, terms=terms)


def load(datadir, plat):
    cfg = PLATFORMS[plat]
    cat, left, seen, files, aliased = [], [], {}, [], {}
    for spec in cfg["files"]:
        tag, rel = spec[0], spec[1]
        pick = SELECT[spec[2]] if len(spec) > 2 else None
        with open(os.path.join(datadir, "intel-perfmon", rel)) as f:
            d = json.load(f)
        version, events = d["Header"]["Version"], d["Events"]
        total = programmed = have = 0
        for e in events:
            total += 1
            if pick and not pick(e):
                continue
            if e["EventName"] in NOT_COUNTED:
                left.append((tag, e["EventName"], NOT_COUNTED[e["EventName"]]))
                continue
            alias = FREERUN_AS.get(e["EventName"])
            if alias and e.get("CounterType") == "FREERUN":
                programmed += 1
                have += 1
                aliased.setdefault(alias, []).append(
                    "%s V%s %s" % (tag, version, e["EventName"]))
                continue
            why = NOT_PROGRAMMED.get((plat, e["Unit"]))
            if why is None and e["Unit"] not in cfg["units"] and \
               (e["Unit"], e["EventName"]) not in cfg.get("fixed", {}):
                raise DataError("%s %s: unit %r not mapped" %
                                (tag, e["EventName"], e["Unit"]))
            if why:
                left.append((tag, e["EventName"], why))
                continue
            programmed += 1
            r = entry(plat, cfg, tag, version, e)
            if isinstance(r, str):
                left.append((tag, e["EventName"], r))
                continue
            key = r["name"]
            if key in seen:
                o = seen[key]
                if any(o[k] != r[k] for k in ("unit", "code", "umask",
                                              "ctr_mask", "terms")):
                    raise DataError("%s: %s and %s disagree on the encoding"
                                    % (key, o["source"], r["source"]))
                o["source"] += ", " + r["source"]
                have += 1
                continue
            seen[key] = r
            cat.append(r)
            have += 1
        files.append((tag, version, total, programmed, have))
    cat.sort(key=lambda r: (list(u[0] for u in cfg["units"].values())
                            .index(r["unit"]) if r["unit"] in
                            [u[0] for u in cfg["units"].values()] else 99,
                            r["deprecated"]))
    for name, unit, flag, kev, desc in KERNEL_EXTRA.get(plat, []):
        src = "kernel " + kev
        if name in aliased:
            src += "; Intel " + ", ".join(aliased[name])
        cat.append(dict(name=name, unit=unit, code=0, umask=0, ctr_mask=0,
                        flags={flag}, filt=None, terms="", desc=desc,
                        source=src, deprecated=False))
    return cat, left, files


def coverage(cat, left, files):
    """Lines of the report and whether every file reaches MIN_COVERAGE."""
    out, ok = [], True
    for tag, version, total, programmed, have in files:
        frac = have / programmed if programmed else 0.0
        ok &= frac >= MIN_COVERAGE
        out.append("%s V%s: %d events, %d in programmed units, %d in the "
                   "catalog: %.1f %%" % (tag, version, total, programmed,
                                         have, 100 * frac))
    for tag, name, why in left:
        out.append("  left out %s %s: %s" % (tag, name, why))
    return out, ok


def render_c(plat, cat):
    o = ["/*",
         " * events_%s.c - the %s uncore event catalog, from Intel's perfmon" %
         (plat, plat),
         " * data (%s)." % ", ".join(f[0] for f in PLATFORMS[plat]["files"]),
         " *",
         " * GENERATED by contrib/intel-perfmon/extract_events.py; do not",
         " * edit: change the script and run",
         " *   python3 contrib/intel-perfmon/extract_events.py %s --write" % plat,
         " * (tests/scenario/intel_catalog_check.sh runs --check and",
         " * --coverage).  umask is UMask | UMaskExt << 8; source names the",
         " * data file(s) and version.",
         " */",
         '#include "config.h"', "",
         '#include "plat/plat.h"',
         '#include "plat/events_%s.h"' % plat, "",
         "const struct event %s_events[] = {" % plat]
    for r in cat:
        o.append("\t{ .name = %s, .unit = %s," % (c_str(r["name"]),
                                                  c_str(r["unit"])))
        o.append("\t  .code = 0x%02x, .umask = 0x%02x, .ctr_mask = 0x%x," %
                 (r["code"], r["umask"], r["ctr_mask"]))
        if r["flags"]:
            o.append("\t  .flags = %s," % " | ".join(
                sorted(r["flags"], key=lambda f: EVF[f])))
        if r["filt"]:
            o.append(wrap_str(".filter = ", r["filt"]) + ",")
        if r["terms"]:
            o.append(wrap_str(".perf_terms = ", r["terms"]) + ",")
        o.append(wrap_str(".desc = ", r["desc"] or "No description.") + ",")
        o.append("\t  .source = %s }," % c_str(r["source"]))
    u = plat.upper()
    o += ["};", "",
          "_Static_assert(sizeof(%s_events) / sizeof(%s_events[0]) == "
          "%s_NEVENTS," % (plat, plat, u),
          '\t       "%s_NEVENTS in events_%s.h does not match %s_events[]");'
          % (u, plat, plat)]
    return "\n".join(o) + "\n"


def render_h(plat, cat):
    u = plat.upper()
    return "\n".join([
        "/*",
        " * events_%s.h - the %s uncore event catalog (events_%s.c)." %
        (plat, plat, plat),
        " * GENERATED by contrib/intel-perfmon/extract_events.py; do not "
        "edit.",
        " */",
        "#ifndef UNCORED_EVENTS_%s_H" % u,
        "#define UNCORED_EVENTS_%s_H" % u, "",
        '#include "plat/plat.h"', "",
        "/* Entries: a constant so that the platform can be initialised",
        " * statically; events_%s.c asserts that it matches. */" % plat,
        "#define %s_NEVENTS %d" % (u, len(cat)), "",
        "extern const struct event %s_events[%s_NEVENTS];" % (plat, u), "",
        "#endif"]) + "\n"


def default_data():
    for d in (os.path.join(TOP, "tests", "data"),
              os.path.join(TOP, "..", "shared", "data")):
        if os.path.isdir(os.path.join(d, "intel-perfmon")):
            return os.path.normpath(d)
    return None


def run(plat, args, datadir):
    try:
        cat, left, files = load(datadir, plat)
    except (OSError, KeyError, DataError) as e:
        print("extract_events: %s: %s" % (plat, e), file=sys.stderr)
        return 2
    if args.coverage:
        lines, ok = coverage(cat, left, files)
        print("\n".join(lines))
        if not ok:
            print("extract_events: %s: coverage below %d %%" %
                  (plat, 100 * MIN_COVERAGE), file=sys.stderr)
        return 0 if ok else 1
    outs = [(os.path.join(TOP, "src", "plat", "events_%s.c" % plat),
             render_c(plat, cat)),
            (os.path.join(TOP, "src", "plat", "events_%s.h" % plat),
             render_h(plat, cat))]
    return write_or_check(outs, args.write, len(cat), "intel-perfmon")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("platform", choices=sorted(PLATFORMS) + ["all"])
    ap.add_argument("--data", help="directory holding intel-perfmon/")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    g.add_argument("--coverage", action="store_true")
    args = ap.parse_args()
    datadir = args.data or default_data()
    if not datadir:
        print("extract_events: no intel-perfmon/ under tests/data or "
              "../shared/data; give --data DIR", file=sys.stderr)
        return 2
    plats = sorted(PLATFORMS) if args.platform == "all" else [args.platform]
    return max(run(p, args, datadir) for p in plats)


if __name__ == "__main__":
    sys.exit(main())
