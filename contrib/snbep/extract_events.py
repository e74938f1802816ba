#!/usr/bin/env python3
"""
extract_events.py - builds the Xeon E5-2600/4600 v1 ("snbep", Jaketown)
uncore event catalog, src/plat/events_snbep.c and src/plat/events_snbep.h,
from Intel's published event data for the part
(tests/data/intel-perfmon-jaketown-uncore.json, "Performance Monitoring
Events for Intel(R) Xeon(R) processor E5 family Based on the Sandy Bridge-EP
Microarchitecture - V24", 08/21/2023).

  extract_events.py [--data FILE] --write     regenerate both files
  extract_events.py [--data FILE] --check     exit 1 with a diff if the
                                              committed files differ
  extract_events.py [--data FILE] --report    list every correction applied

One catalog entry per JSON event (the data already has one entry per event
and unit mask), in the data's order within each box, then the fixed and
free-running counters.  Unit names follow the hsx platform (cbo, not the
kernel's "cbox"); the mapping from the data's "Unit" is UNITS below.

Everything in the data that is wrong or does not apply to this part is
corrected only through the explicit tables below, each entry with its
reason.  The reader is strict: an unknown key, unit, filter, counter list
or number format is an error, and a correction that no longer applies to
the data is an error too, so the tables cannot silently rot.
doc/hardware-notes.md ("Xeon E5-2600/4600 v1 (snbep)", "Event catalog
corrections") lists the same decisions for readers.

Standard library only.  The description and C-literal helpers (short,
c_str, wrap_str) are the hsx generator's, loaded from
contrib/hsx/extract_events.py, so both catalogs are written alike.
"""
import argparse
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))


def _hsx_generator():
    """The hsx catalog generator, for the text and C-literal helpers both
    catalogs share (its main() only runs as a script)."""
    path = os.path.join(HERE, "..", "hsx", "extract_events.py")
    # no __pycache__ in the source tree: `make dist` ships contrib/ whole
    sys.dont_write_bytecode = True
    spec = importlib.util.spec_from_file_location("hsx_extract_events", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_hsx = _hsx_generator()
short = _hsx.short            # first sentence(s) of a description
c_str = _hsx.c_str            # a C string literal
wrap_str = _hsx.wrap_str      # a C string literal wrapped at 79 columns
DATA_DEFAULT = os.path.join(TOP, "tests", "data",
                            "intel-perfmon-jaketown-uncore.json")
OUT_C = os.path.join(TOP, "src", "plat", "events_snbep.c")
OUT_H = os.path.join(TOP, "src", "plat", "events_snbep.h")

# The data's version this script was written against: a new version may
# add or fix events, so it is refused until someone reviews the tables.
DATA_INFO = ("Performance Monitoring Events for Intel(R) Xeon(R) processor "
             "E5 family Based on the Sandy Bridge-EP Microarchitecture - V24")
DATA_VERSION = "24"
SOURCE = "jaketown-uncore V24"     # struct event.source of JSON entries

# ---------------------------------------------------------------------------
# Boxes.  data "Unit" -> (catalog unit, name prefix, programmable counters).
# Counter counts: Linux arch/x86/events/intel/uncore_snbep.c
# (snbep_uncore_ubox .num_counters = 2, cbox 4, pcu 4, ha 4, imc 4, qpi 4,
# r2pcie 4, r3qpi 3) and 327043-001 (Intel Xeon Processor E5-2600 Product
# Family Uncore Performance Monitoring Guide; the UBox pages are
# the E5-2600 v1 uncore guide (327043-001), Table 2-2 U_MSR_PMON_CTL{1-0}).
# ---------------------------------------------------------------------------
UNITS = {
    "UBOX": ("ubox", "UNC_U_", 2),
    "CBO": ("cbo", "UNC_C_", 4),
    "HA": ("ha", "UNC_H_", 4),
    "iMC": ("imc", "UNC_M_", 4),
    "PCU": ("pcu", "UNC_P_", 4),
    "QPI LL": ("qpi", "UNC_Q_", 4),
    "R2PCIe": ("r2pcie", "UNC_R2_", 4),
    "R3QPI": ("r3qpi", "UNC_R3_", 3),
}
UNIT_ORDER = ["ubox", "cbo", "ha", "imc", "pcu", "qpi", "r2pcie", "r3qpi"]

# Units of the data that have no PMON box on this part: every event of
# theirs is left out (and listed in the report).  name -> reason.
NOT_APPLICABLE_UNITS = {
    "IRP": "E5-2600 v1 has no IRP PMON box: the manual's box list "
           "(327043 Table 1-1, sections 2.2-2.9) has UBox, CBo, HA, iMC, "
           "PCU, QPI, R2PCIe and R3QPI only, the Linux kernel's SNB-EP "
           "uncore (uncore_snbep.c snbep_pci_uncores[]) has HA, iMC, QPI, "
           "R2PCIe and R3QPI and no IRP (IRP appears with IvyTown, "
           "ivbep_uncore_irp), and perf's own Jaketown event "
           "list (tools/perf/pmu-events/arch/x86/jaketown/uncore-io.json) "
           "has only R2PCIe events.  The 37 UNC_I_ events match the "
           "IvyTown IRP's event list.",
}
# How many events the data has in each left-out unit (a change means the
# data changed and the decision must be reviewed).
NOT_APPLICABLE_COUNT = {"IRP": 37}

# EVF_* flag values, as in src/plat/plat.h.
EVF = {
    "EVF_FILTER0": 0x0001, "EVF_FILTER1": 0x0002, "EVF_HA_MATCH": 0x0004,
    "EVF_PCU_BAND": 0x0008, "EVF_QPI_MATCH": 0x0010,
    "EVF_IRP_FILTER": 0x0020, "EVF_FIXED": 0x0100, "EVF_FREERUN": 0x0200,
}
# Register of a "Filter" item -> flag.  E5-2600 v1 has one CBo filter
# register, Cn_MSR_PMON_BOX_FILTER (MSR 0xD14 + 0x20 * n; fields tid 4:0,
# nid 17:10, state 22:18, opc 31:23: uncore_snbep.c
# SNBEP_C0_MSR_PMON_BOX_FILTER and SNBEP_CB0_MSR_PMON_BOX_FILTER_*), so
# every CBo filter need is EVF_FILTER0.  The UBox filter is the UBox's
# own box filter 0 (see doc/hardware-notes.md: no public source here
# gives its address).  PCUFilter is PCU_MSR_PMON_BOX_FILTER (MSR 0xC34).
FILTER_FLAGS = {
    "CBoFilter": "EVF_FILTER0",
    "UBoxFilter": "EVF_FILTER0",
    "PCUFilter": "EVF_PCU_BAND",
    "HA_AddrMatch0": "EVF_HA_MATCH",
    "HA_AddrMatch1": "EVF_HA_MATCH",
    "HA_OpcodeMatch": "EVF_HA_MATCH",
}
FILTER_ITEM = re.compile(r"^([A-Za-z_0-9]+?)\[(\d+):(\d+)\]$")

# ===========================================================================
# Corrections.  Each table is keyed by event name; each value carries the
# reason.  All are listed in doc/hardware-notes.md.
# ===========================================================================

# Events the data lists as programmable that are the box's fixed counter:
# name -> (unit, flag, source, desc, reason).  They keep their name (the
# hsx catalog uses the same names for the same fixed counters) and get
# code/umask/ctr_mask 0.
TO_FIXED = {
    "UNC_U_CLOCKTICKS": (
        "ubox_fixed", "EVF_FIXED",
        "327043 Tables 2-4/2-5",
        "UBox fixed counter U_MSR_PMON_UCLK_FIXED_CTR (MSR 0xC09; enable: "
        "bit 22 of U_MSR_PMON_UCLK_FIXED_CTL, 0xC08): count of uncore "
        "clocks (UCLK).",
        "data: code 0x00 on counters 0,1 with description \"tbd\"; the "
        "manual (327043 2.2.3.2, Tables 2-4/2-5) gives the UBox a fixed "
        "counter that increments at UCLK, the kernel counts UBox clockticks "
        "only there (snbep_uncore_ubox .fixed_ctr 0xc09, .fixed_ctl 0xc08), "
        "and the manual's UBox event table (Table 2-6) and every other "
        "source list no code-0 event for the programmable counters"),
    "UNC_M_CLOCKTICKS": (
        "imc_fixed", "EVF_FIXED",
        "327043 Table 2-59",
        "iMC channel fixed counter MC_CHy_PCI_PMON_FIXED_CTR (config "
        "0xD0+0xD4; control MC_CHy_PCI_PMON_FIXED_CTL, 0xF0): count of "
        "DRAM clocks (DCLK).",
        "data: code 0x00 on counters 0-3, but its own description says "
        "\"Uncore Fixed Counter - uclks\" (and MSRValue is spelt \"0x0\", "
        "the only such entry); the kernel's imc \"clockticks\" is the fixed "
        "counter (event=0xff, snbep_uncore_imc .fixed_ctr 0xd0, .fixed_ctl "
        "0xf0), the register 327043 Table 2-59 lists"),
}

# Free-running counters the data does not list: (name, unit, flag,
# source, desc).  PCU core C-state residency: 327043 2.6.3.1 (p.73) "Fixed
# (Non-PMON) Counters" PCU_MSR_CORE_C3_CTR 0x3FC and PCU_MSR_CORE_C6_CTR
# 0x3FD, 64 bits, outside PMON ("can't be frozen or reset", 2.6.3.1);
# the kernel defines the same (SNBEP_PCU_MSR_CORE_C3_CTR/_C6_CTR).
# Package C-state residency: the kernel's cstate.c reads package C2, C3,
# C6 and C7 on SANDYBRIDGE_X (intel_cstates_match -> snb_cstates,
# pkg_events) from MSR_PKG_C2_RESIDENCY 0x60D, MSR_PKG_C3_RESIDENCY 0x3F8,
# MSR_PKG_C6_RESIDENCY 0x3F9 and MSR_PKG_C7_RESIDENCY 0x3FA (msr-index.h),
# "Scope: Package".  Names as the hsx catalog's for the same MSRs
# (UNC_P_CORE_PC7_CTR after them).
CSTATE_SRC = "kernel cstate.c snb_cstates"
EXTRA_COUNTERS = [
    ("UNC_P_CORE_CC3_CTR", "pcu_cstate", "EVF_FREERUN", "327043 2.6.3.1",
     "Free-running 64-bit MSR 0x3FC (PCU_MSR_CORE_C3_CTR): cycles one of "
     "the cores is in C3."),
    ("UNC_P_CORE_CC6_CTR", "pcu_cstate", "EVF_FREERUN", "327043 2.6.3.1",
     "Free-running 64-bit MSR 0x3FD (PCU_MSR_CORE_C6_CTR): cycles one of "
     "the cores is in C6."),
    ("UNC_P_CORE_PC2_CTR", "pcu_cstate", "EVF_FREERUN", CSTATE_SRC,
     "Free-running 64-bit MSR 0x60D (MSR_PKG_C2_RESIDENCY): cycles the "
     "package is in C2."),
    ("UNC_P_CORE_PC3_CTR", "pcu_cstate", "EVF_FREERUN", CSTATE_SRC,
     "Free-running 64-bit MSR 0x3F8 (MSR_PKG_C3_RESIDENCY): cycles the "
     "package is in C3."),
    ("UNC_P_CORE_PC6_CTR", "pcu_cstate", "EVF_FREERUN", CSTATE_SRC,
     "Free-running 64-bit MSR 0x3F9 (MSR_PKG_C6_RESIDENCY): cycles the "
     "package is in C6."),
    ("UNC_P_CORE_PC7_CTR", "pcu_cstate", "EVF_FREERUN", CSTATE_SRC,
     "Free-running 64-bit MSR 0x3FA (MSR_PKG_C7_RESIDENCY): cycles the "
     "package is in C7."),
]

# Maximum increment per cycle (the data states none): (unit, code) ->
# (increment, source), for the events that can add more than one a cycle
# and whose figure a source gives.  327043's "Events Ordered By Code"
# tables where their pages were read (public copies, see
# doc/hardware-notes.md "Maximum increments"); for the QPI RxQ occupancy
# events, whose 327043 entries were not, the E5 v2 guide's table of the
# same events (329468-002 2.8.5), which the E5 v3 manual repeats
# (331051 RxL_OCCUPANCY, 128).  Every other event keeps 0 ("not
# stated"): its box's bound (plat_snbep.c) applies.
T214 = "327043 Table 2-14"
T2122 = "327043 Table 2-122"
Q128 = "329468-002 2.8.5 (331051: 128)"
MAX_INC = {
    ("cbo", 0x11): (20, T214),     # RxR_OCCUPANCY
    ("cbo", 0x1F): (20, T214),     # COUNTER0_OCCUPANCY
    ("cbo", 0x21): (20, T214),     # ISMQ_DRD_MISS_OCC
    ("r3qpi", 0x13): (32, T2122),  # RxR_OCCUPANCY
    ("r3qpi", 0x33): (4, T2122),   # VNA_CREDITS_ACQUIRED
    ("qpi", 0x38): (2, "327043 2.7.7"),  # CTO_COUNT
    ("qpi", 0x0B): (128, Q128),    # RxL_OCCUPANCY
    ("qpi", 0x15): (128, Q128),    # RxL_OCCUPANCY_DRS
    ("qpi", 0x16): (128, Q128),    # RxL_OCCUPANCY_NCB
    ("qpi", 0x17): (128, Q128),    # RxL_OCCUPANCY_NCS
    ("qpi", 0x18): (128, Q128),    # RxL_OCCUPANCY_HOM
    ("qpi", 0x19): (128, Q128),    # RxL_OCCUPANCY_SNP
    ("qpi", 0x1A): (128, Q128),    # RxL_OCCUPANCY_NDR
}

# ExtSel values that the box's control register cannot carry:
# name -> (value used, reason).
UBOX_NO_EXT = ("327043 Table 2-2: U_MSR_PMON_CTL bits 21:20 are reserved, "
               "\"SW must write to 0\"; the kernel's UBox raw-event mask "
               "(SNBEP_U_MSR_PMON_RAW_EVENT_MASK) has no bit 21 either; the "
               "v3 manual lists PHOLD_CYCLES 0x45 and RACU_REQUESTS 0x46 "
               "without the extra select bit")
EXTSEL_FIXES = {
    "UNC_U_MSG_CHNL_SIZE_COUNT.4B": (0, UBOX_NO_EXT),
    "UNC_U_MSG_CHNL_SIZE_COUNT.8B": (0, UBOX_NO_EXT),
    "UNC_U_PHOLD_CYCLES.ACK_TO_DEASSERT": (0, UBOX_NO_EXT),
    "UNC_U_PHOLD_CYCLES.ASSERT_TO_ACK": (0, UBOX_NO_EXT),
    "UNC_U_RACU_REQUESTS.COUNT": (0, UBOX_NO_EXT),
}

# Filter needs the data leaves out: name -> (filter text, reason).
FILTER_FIXES = {
    "UNC_P_DEMOTIONS_CORE2": (
        "PCUFilter[7:0]",
        "the seven sibling events DEMOTIONS_CORE0..7 (same description, "
        "consecutive codes 0x1e..0x25) all need PCUFilter[7:0]; only "
        "CORE2 has \"null\""),
}
# Box-level matches the data does not name in "Filter": name ->
# (flag, filter text, reason).
MATCH_FIXES = {
    "UNC_Q_CTO_COUNT": (
        "EVF_QPI_MATCH",
        "Q_Py_PCI_PMON_PKT_MATCH0/1, Q_Py_PCI_PMON_PKT_MASK0/1",
        "CTO (cluster trigger out) is the output of the QPI packet "
        "match/mask: the kernel programs PKT_MATCH0/1 (0x228/0x22c) and "
        "PKT_MASK0/1 (0x238/0x23c) of the port's filter device (0x3c86 / "
        "0x3c96) exactly for event 0x38 (snbep_qpi_hw_config), and the v3 "
        "manual's CTO_COUNT depends on QPIMask0/QPIMatch registers; the "
        "data's Filter is \"null\""),
}

# Descriptions that contradict the event's own name (the data's
# BriefDescription is "Title; unit mask"): name -> [(old, new)], applied
# to the composed description, with the reason.
NAME_WINS = "the unit-mask text names another sub-event than the event name"
CX_FOR_C0 = ("both descriptions of CORES_C3/CORES_C6 are copies of "
             "CORES_C0's")
DESC_FIXES = {
    "UNC_C_RxR_EXT_STARVED.IPQ": ([("; IRQ.", "; IPQ.")], NAME_WINS +
                                  " (IRQ and IPQ swapped; the v3 manual "
                                  "has IRQ 0x01, IPQ 0x02 as the names)"),
    "UNC_C_RxR_EXT_STARVED.IRQ": ([("; IPQ.", "; IRQ.")], NAME_WINS +
                                  " (IRQ and IPQ swapped)"),
    "UNC_P_POWER_STATE_OCCUPANCY.CORES_C3": (
        [("cores in C0. This", "cores in C3. This"),
         ("cores that are in C0.", "cores that are in C3.")], CX_FOR_C0),
    "UNC_P_POWER_STATE_OCCUPANCY.CORES_C6": (
        [("cores in C0. This", "cores in C6. This"),
         ("cores that are in C0.", "cores that are in C6.")], CX_FOR_C0),
    "UNC_Q_RxL_STALLS.BGF_DRS": ([("BGF Stall - HOM.", "BGF Stall - DRS.")],
                                 NAME_WINS),
    "UNC_Q_RxL_STALLS.BGF_HOM": ([("BGF Stall - DRS.", "BGF Stall - HOM.")],
                                 NAME_WINS),
    "UNC_Q_RxL_STALLS.BGF_NCB": ([("BGF Stall - SNP.", "BGF Stall - NCB.")],
                                 NAME_WINS),
    "UNC_Q_RxL_STALLS.BGF_NCS": ([("BGF Stall - NDR.", "BGF Stall - NCS.")],
                                 NAME_WINS),
    "UNC_Q_RxL_STALLS.BGF_NDR": ([("BGF Stall - NCS.", "BGF Stall - NDR.")],
                                 NAME_WINS),
    "UNC_Q_RxL_STALLS.BGF_SNP": ([("BGF Stall - NCB.", "BGF Stall - SNP.")],
                                 NAME_WINS),
}

# ---------------------------------------------------------------------------
# Cross-check: the kernel's event constraints (uncore_snbep.c
# snbep_uncore_cbox_constraints, snbep_uncore_r2pcie_constraints,
# snbep_uncore_r3qpi_constraints; event code -> counter mask; an event
# without a constraint may use every counter).  Every catalog ctr_mask must
# be within the kernel's; where the data is stricter the pair is listed
# here (the catalog keeps the data's, the stricter, mask) - anything else
# is an error.
# ---------------------------------------------------------------------------
KERNEL_CONSTRAINTS = {
    "cbo": {0x01: 0x1, 0x02: 0x3, 0x04: 0x3, 0x05: 0x3, 0x07: 0x3,
            0x09: 0x3, 0x11: 0x1, 0x12: 0x3, 0x13: 0x3, 0x1b: 0xc,
            0x1c: 0xc, 0x1d: 0xc, 0x1e: 0xc, 0x1f: 0xe, 0x21: 0x3,
            0x23: 0x3, 0x31: 0x3, 0x32: 0x3, 0x33: 0x3, 0x34: 0x3,
            0x35: 0x3, 0x36: 0x1, 0x37: 0x3, 0x38: 0x3, 0x39: 0x3,
            0x3b: 0x1},
    "r2pcie": {0x10: 0x3, 0x11: 0x3, 0x12: 0x1, 0x23: 0x3, 0x24: 0x3,
               0x25: 0x3, 0x26: 0x3, 0x32: 0x3, 0x33: 0x3, 0x34: 0x3},
    "r3qpi": {0x10: 0x3, 0x11: 0x3, 0x12: 0x3, 0x13: 0x1, 0x20: 0x3,
              0x21: 0x3, 0x22: 0x3, 0x23: 0x3, 0x24: 0x3, 0x25: 0x3,
              0x26: 0x3, 0x28: 0x3, 0x29: 0x3, 0x2a: 0x3, 0x2b: 0x3,
              0x2c: 0x3, 0x2d: 0x3, 0x2e: 0x3, 0x2f: 0x3, 0x30: 0x3,
              0x31: 0x3, 0x32: 0x3, 0x33: 0x3, 0x34: 0x3, 0x36: 0x3,
              0x37: 0x3, 0x38: 0x3, 0x39: 0x3},
}
# (unit, code) -> (data mask, kernel mask): the data is stricter.
STRICTER_THAN_KERNEL = {
    ("cbo", 0x03): (0x3, 0xf),      # TxR_STARVED
    ("cbo", 0x06): (0x3, 0xf),      # RING_SINK_STARVED
    ("cbo", 0x14): (0x3, 0xf),      # RxR_INT_STARVED
    ("r2pcie", 0x23): (0x1, 0x3),   # TxR_CYCLES_NE
    ("r2pcie", 0x25): (0x1, 0x3),   # TxR_CYCLES_FULL
}

# The keys every data entry has, and nothing else.
KEYS = {"Unit", "EventCode", "UMask", "EventName", "BriefDescription",
        "PublicDescription", "Counter", "MSRValue", "Filter", "ExtSel"}
NO_DESC = "tbd"

# ===========================================================================
# Reading the data
# ===========================================================================


class DataError(Exception):
    pass


def fail(msg):
    raise DataError(msg)


_applied = []


def use(table, key, what):
    _applied.append((table, key, what))


def hexbyte(e, key):
    s = e[key]
    if not re.fullmatch(r"0x[0-9a-fA-F]{1,2}", s):
        fail("%s: %s %r is not a 0x byte" % (e["EventName"], key, s))
    return int(s, 16)


def parse_ctrs(e, nctr):
    s = e["Counter"]
    if not re.fullmatch(r"\d(,\d)*", s):
        fail("%s: Counter %r is not a list of counters" %
             (e["EventName"], s))
    mask = 0
    for c in s.split(","):
        bit = 1 << int(c)
        if int(c) >= nctr or mask & bit:
            fail("%s: Counter %r: counter %s does not exist or is repeated "
                 "(the box has %d)" % (e["EventName"], s, c, nctr))
        mask |= bit
    return mask


def filter_flags(name, text):
    flags = set()
    for item in text.split(", "):
        m = FILTER_ITEM.match(item)
        if not m or m.group(1) not in FILTER_FLAGS:
            fail("%s: unknown filter item %r" % (name, item))
        hi, lo = int(m.group(2)), int(m.group(3))
        if hi < lo or hi > 31:
            fail("%s: filter item %r: bad bit range" % (name, item))
        flags.add(FILTER_FLAGS[m.group(1)])
    return flags


def describe(e):
    """The entry's description: the data's BriefDescription ("Title;
    unit mask"), then the first sentence(s) of its PublicDescription when
    there is one ("tbd" is none)."""
    brief, public = e["BriefDescription"].strip(), \
        e["PublicDescription"].strip()
    parts = []
    if brief != NO_DESC:
        parts.append(brief.rstrip(".") + ".")
    if public != NO_DESC:
        parts.append(short(public))
    if not parts:
        return "No description in Intel's event data (\"tbd\")."
    out = " ".join(parts)
    if re.search(r"[^\x20-\x7e]", out):
        fail("%s: non-ASCII description %r" % (e["EventName"], out))
    return out


def build(doc):
    hdr = doc.get("Header", {})
    if hdr.get("Info") != DATA_INFO or hdr.get("Version") != DATA_VERSION:
        fail("data header %r / version %r: this script was written for "
             "%r version %s; review its correction tables for the new data"
             % (hdr.get("Info"), hdr.get("Version"), DATA_INFO,
                DATA_VERSION))
    events = doc.get("Events")
    if not isinstance(events, list) or not events:
        fail("no \"Events\" list")
    seen, enc_seen = {}, {}
    skipped = {u: [] for u in NOT_APPLICABLE_UNITS}
    per_unit = {u: [] for u in UNIT_ORDER}
    fixed = []
    pending = {t: set(d) for t, d in (("TO_FIXED", TO_FIXED),
                                       ("EXTSEL_FIXES", EXTSEL_FIXES),
                                       ("FILTER_FIXES", FILTER_FIXES),
                                       ("MATCH_FIXES", MATCH_FIXES),
                                       ("DESC_FIXES", DESC_FIXES))}
    stricter_seen, inc_seen = set(), set()
    for idx, e in enumerate(events):
        if set(e) != KEYS:
            fail("entry %d: keys %s, expected %s" %
                 (idx, sorted(e), sorted(KEYS)))
        name = e["EventName"]
        if name in seen:
            fail("%s: listed twice (entries %d and %d)" %
                 (name, seen[name], idx))
        seen[name] = idx
        if e["Unit"] in NOT_APPLICABLE_UNITS:
            skipped[e["Unit"]].append(name)
            continue
        if e["Unit"] not in UNITS:
            fail("%s: unknown unit %r" % (name, e["Unit"]))
        unit, prefix, nctr = UNITS[e["Unit"]]
        if not name.startswith(prefix):
            fail("%s: unit %s events start with %s" % (name, unit, prefix))
        if e["MSRValue"] not in ("0", "0x0"):
            fail("%s: MSRValue %r (no uncore event here uses one)" %
                 (name, e["MSRValue"]))
        if e["ExtSel"] not in ("0", "1"):
            fail("%s: ExtSel %r" % (name, e["ExtSel"]))
        code, umask = hexbyte(e, "EventCode"), hexbyte(e, "UMask")
        ctr_mask = parse_ctrs(e, nctr)
        ext = int(e["ExtSel"])
        if e["MSRValue"] != "0" and name not in TO_FIXED:
            fail("%s: MSRValue %r" % (name, e["MSRValue"]))
        if name in TO_FIXED:
            funit, flag, source, desc, why = TO_FIXED[name]
            pending["TO_FIXED"].discard(name)
            if code or umask or ext or e["Filter"] != "null":
                fail("%s: TO_FIXED expects code 0, umask 0, no ExtSel and "
                     "no filter" % name)
            use("TO_FIXED", name, "%s -> %s (%s)" % (name, funit, why))
            fixed.append(dict(name=name, unit=funit, code=0, umask=0,
                              ext=0, occ=0, ctr_mask=0, flags={flag},
                              filter=None, max_inc=0, desc=desc,
                              source=source))
            continue
        if name in EXTSEL_FIXES:
            new, why = EXTSEL_FIXES[name]
            pending["EXTSEL_FIXES"].discard(name)
            if ext == new:
                fail("%s: EXTSEL_FIXES no longer needed" % name)
            use("EXTSEL_FIXES", name, "%s: ExtSel %d -> %d (%s)" %
                (name, ext, new, why))
            ext = new
        if ext and unit not in ("pcu", "qpi"):
            fail("%s: ExtSel 1 on a %s event (only the PCU and QPI "
                 "controls have the extension bit 21)" % (name, unit))
        ftext = None if e["Filter"] == "null" else e["Filter"]
        if name in FILTER_FIXES:
            new, why = FILTER_FIXES[name]
            pending["FILTER_FIXES"].discard(name)
            if ftext is not None:
                fail("%s: FILTER_FIXES no longer needed (data has %r)" %
                     (name, ftext))
            use("FILTER_FIXES", name, "%s: Filter null -> %s (%s)" %
                (name, new, why))
            ftext = new
        flags = filter_flags(name, ftext) if ftext else set()
        if name in MATCH_FIXES:
            flag, text, why = MATCH_FIXES[name]
            pending["MATCH_FIXES"].discard(name)
            if ftext is not None:
                fail("%s: MATCH_FIXES no longer needed (data has %r)" %
                     (name, ftext))
            use("MATCH_FIXES", name, "%s: + %s %s (%s)" %
                (name, flag, text, why))
            flags.add(flag)
            ftext = text
        # PCU occupancy events (ev_sel bit 7): umask bits 7:6 are the
        # control's occ_sel field (bits 15:14, uncore_snbep.c
        # SNBEP_PCU_MSR_PMON_CTL_OCC_SEL_MASK 0xc000).
        occ = 0
        if unit == "pcu":
            if umask & 0x3f:
                fail("%s: PCU umask 0x%02x has bits below occ_sel" %
                     (name, umask))
            if code & 0x80:
                occ = umask >> 6
                if not occ:
                    fail("%s: PCU occupancy event without occ_sel" % name)
            elif umask:
                fail("%s: umask on a PCU event that is not an "
                     "occupancy event" % name)
        # constraints cross-check
        kmask = KERNEL_CONSTRAINTS.get(unit, {}).get(code, (1 << nctr) - 1)
        if ctr_mask & ~kmask:
            fail("%s: counters 0x%x outside the kernel's 0x%x" %
                 (name, ctr_mask, kmask))
        if ctr_mask != kmask:
            want = STRICTER_THAN_KERNEL.get((unit, code))
            if want != (ctr_mask, kmask):
                fail("%s: counters 0x%x, kernel 0x%x: not in "
                     "STRICTER_THAN_KERNEL" % (name, ctr_mask, kmask))
            stricter_seen.add((unit, code))
        key = (unit, code, umask, ext)
        if key in enc_seen:
            fail("%s: same encoding as %s" % (name, enc_seen[key]))
        enc_seen[key] = name
        desc = describe(e)
        if name in DESC_FIXES:
            pairs, why = DESC_FIXES[name]
            pending["DESC_FIXES"].discard(name)
            for old, repl in pairs:
                if old not in desc:
                    fail("%s: DESC_FIXES text %r not found" % (name, old))
                desc = desc.replace(old, repl)
            use("DESC_FIXES", name, "%s: %s (%s)" % (
                name, ", ".join("%r -> %r" % p for p in pairs), why))
        max_inc, src = MAX_INC.get((unit, code), (0, None))
        if src:
            inc_seen.add((unit, code))
        per_unit[unit].append(dict(
            name=name, unit=unit, code=code, umask=umask, ext=ext, occ=occ,
            ctr_mask=ctr_mask, flags=flags, filter=ftext, max_inc=max_inc,
            desc=desc, source=SOURCE + ("; max inc " + src if src else "")))
    for k in sorted(MAX_INC):
        if k not in inc_seen:
            fail("MAX_INC %s 0x%02x: no such event in the data" % k)
        use("MAX_INC", k, "%s event 0x%02x: max %d a cycle (%s)" %
            (k + MAX_INC[k]))
    for table, left in pending.items():
        if left:
            fail("%s: %s not in the data any more" %
                 (table, ", ".join(sorted(left))))
    for k in STRICTER_THAN_KERNEL:
        if k not in stricter_seen:
            fail("STRICTER_THAN_KERNEL %s 0x%02x: no longer differs" % k)
        use("STRICTER_THAN_KERNEL", k, "%s event 0x%02x: data counters "
            "0x%x, kernel 0x%x; catalog keeps the data's" %
            ((k[0], k[1]) + STRICTER_THAN_KERNEL[k]))
    for u, names in skipped.items():
        if len(names) != NOT_APPLICABLE_COUNT[u]:
            fail("unit %s: %d events, expected %d; review "
                 "NOT_APPLICABLE_UNITS" % (u, len(names),
                                           NOT_APPLICABLE_COUNT[u]))
        use("NOT_APPLICABLE_UNITS", u, "%d %s events left out (%s): %s" %
            (len(names), u, NOT_APPLICABLE_UNITS[u], " ".join(names)))
    for name, unit, flag, source, desc in EXTRA_COUNTERS:
        if name in seen:
            fail("%s: EXTRA_COUNTERS entry is in the data now" % name)
        use("EXTRA_COUNTERS", name, "%s (%s, %s) added" % (name, unit,
                                                            source))
        fixed.append(dict(name=name, unit=unit, code=0, umask=0, ext=0,
                          occ=0, ctr_mask=0, flags={flag}, filter=None,
                          max_inc=0, desc=desc, source=source))
    catalog, counts = [], {}
    for u in UNIT_ORDER:
        if not per_unit[u]:
            fail("no events for unit %s" % u)
        counts[u] = len(per_unit[u])
        catalog += per_unit[u]
    catalog += fixed
    return catalog, counts, len(events)

# ===========================================================================
# Writing C
# ===========================================================================


def flags_expr(flags):
    return " | ".join(sorted(flags, key=lambda f: EVF[f])) if flags else None


def render_c(catalog, counts):
    o = []
    w = o.append
    w("/*")
    w(" * events_snbep.c - the snbep (Xeon E5-2600/4600 v1, Sandy Bridge-EP,")
    w(" * \"Jaketown\") uncore event catalog: every event of Intel's published")
    w(" * event data that applies to the part, then its fixed and")
    w(" * free-running counters.")
    w(" *")
    w(" * GENERATED by contrib/snbep/extract_events.py from")
    w(" * tests/data/intel-perfmon-jaketown-uncore.json (version %s)."
      % DATA_VERSION)
    w(" * Do not edit: change the script (its correction tables) and run")
    w(" *   python3 contrib/snbep/extract_events.py --write")
    w(" * `--check` (tests/scenario/snbep_catalog_check.sh) fails when this")
    w(" * file and the data disagree.  Every correction the script applies")
    w(" * is listed in doc/hardware-notes.md.")
    w(" *")
    w(" * The data gives no maximum increment per cycle: max_inc is 0 (not")
    w(" * stated) but where MAX_INC gives a source's figure (the source")
    w(" * says which).  For the PCU occupancy event (ev_sel bit 7)")
    w(" * umask bits 7:6 are occ_sel and the entry carries both.")
    w(" */")
    w('#include "config.h"')
    w("")
    w('#include "plat/plat.h"')
    w('#include "plat/events_snbep.h"')
    w("")
    w("const struct event snbep_events[] = {")
    last = None
    for e in catalog:
        if e["unit"] != last:
            if last is not None:
                w("")
            w("\t/* %s%s */" % (e["unit"], "" if e["ctr_mask"]
                                else " (not an event select)"))
            last = e["unit"]
        parts = ["\t{ .name = %s, .unit = %s," % (c_str(e["name"]),
                                                  c_str(e["unit"]))]
        enc = "\t  .code = 0x%02x, .umask = 0x%02x" % (e["code"], e["umask"])
        if e["ext"]:
            enc += ", .ev_sel_ext = %d" % e["ext"]
        if e["occ"]:
            enc += ", .occ_sel = %d" % e["occ"]
        enc += ", .ctr_mask = 0x%x," % e["ctr_mask"]
        parts.append(enc)
        if e["max_inc"]:
            parts.append("\t  .max_inc = %d," % e["max_inc"])
        fx = flags_expr(e["flags"])
        if fx:
            parts.append("\t  .flags = %s," % fx)
        if e["filter"]:
            parts.append(wrap_str(".filter = ", e["filter"]) + ",")
        parts.append(wrap_str(".desc = ", e["desc"]) + ",")
        parts.append("\t  .source = %s }," % c_str(e["source"]))
        w("\n".join(parts))
    w("};")
    w("")
    w("_Static_assert(sizeof(snbep_events) / sizeof(snbep_events[0]) ==")
    w("\t       SNBEP_NEVENTS,")
    w('\t       "SNBEP_NEVENTS in events_snbep.h does not match '
      'snbep_events[]");')
    w("")
    w("const size_t snbep_nevents = SNBEP_NEVENTS;")
    return "\n".join(o) + "\n"


def render_h(catalog, counts, ndata):
    o = []
    w = o.append
    w("/*")
    w(" * events_snbep.h - the snbep (Xeon E5-2600/4600 v1) uncore event")
    w(" * catalog.")
    w(" *")
    w(" * GENERATED with events_snbep.c by contrib/snbep/extract_events.py;")
    w(" * do not edit.  snbep_events[] lists, box by box in the data's order,")
    w(" * one entry per event of Intel's Jaketown uncore event data that")
    w(" * applies, then the fixed and free-running counters (ctr_mask 0,")
    w(" * EVF_FIXED / EVF_FREERUN, units ubox_fixed, imc_fixed, pcu_cstate).")
    w(" */")
    w("#ifndef UNCORED_EVENTS_SNBEP_H")
    w("#define UNCORED_EVENTS_SNBEP_H")
    w("")
    w("#include <stddef.h>")
    w("")
    w('#include "plat/plat.h"')
    w("")
    w("/* Entries per unit (the data has %d events; the IRP's are left out):"
      % ndata)
    total = 0
    for u in UNIT_ORDER:
        total += counts[u]
        w(" *   %-7s %4d entries" % (u, counts[u]))
    w(" *   fixed and free-running counters: %d" % (len(catalog) - total))
    w(" * A constant so that a platform can be initialised statically;")
    w(" * events_snbep.c asserts that it matches the array. */")
    w("#define SNBEP_NEVENTS %d" % len(catalog))
    w("")
    w("extern const struct event snbep_events[SNBEP_NEVENTS];")
    w("extern const size_t snbep_nevents;")
    w("")
    w("#endif")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=DATA_DEFAULT)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    g.add_argument("--report", action="store_true")
    ap.add_argument("--out-c", default=OUT_C)
    ap.add_argument("--out-h", default=OUT_H)
    args = ap.parse_args()
    try:
        with open(args.data, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("extract_events: %s: %s" % (args.data, e), file=sys.stderr)
        return 2
    try:
        catalog, counts, ndata = build(doc)
    except DataError as e:
        print("extract_events: %s: %s" % (args.data, e), file=sys.stderr)
        return 1
    outs = [(args.out_c, render_c(catalog, counts)),
            (args.out_h, render_h(catalog, counts, ndata))]
    if args.report:
        for u in UNIT_ORDER:
            print("%-7s %4d entries" % (u, counts[u]))
        print("fixed/free-running %d" % (len(catalog) - sum(counts.values())))
        print("total %d (of %d data events)" % (len(catalog), ndata))
        for table, key, what in sorted(_applied, key=lambda x: (x[0],
                                                               str(x[1]))):
            print("%-21s %s" % (table, what))
        return 0
    return _hsx.write_or_check(outs, args.write, len(catalog), "the data")


if __name__ == "__main__":
    sys.exit(main())
