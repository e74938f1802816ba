#!/usr/bin/env python3
"""
gen_formulas.py - builds uncored's formula catalog, src/plat/formulas_<id>.c
(one table per platform) and src/plat/formulas_index.c, from three sources:

  - the "Common Metrics (Derived Events)" tables of the Intel Xeon Processor
    E5 and E7 v3 Family Uncore Performance Monitoring Reference Manual
    (331051-002), as tests/data/hsx-manual-metrics.tsv carries them
    (contrib/formulas/extract_manual_metrics.py);
  - Intel's metric files, tests/data/intel-perfmon/<P>/metrics/
    <name>_metrics.json: every metric whose events are all uncore events;
  - AMD's recommended metrics, tests/data/amd-perf/amdzen<N>/recommended.json:
    every metric whose events are all uncore (L3PMC, DFPMC, UMCPMC) events.

  gen_formulas.py --write     regenerate the C files (and --tsv's table)
  gen_formulas.py --check     exit 1 with a diff if a committed file differs
  gen_formulas.py --report    counts per source and platform, every refusal
  gen_formulas.py --dump      the catalog as JSON (the tests' evaluator reads
                              the sources itself; this is for people)

Each entry keeps the name as its source writes it, the source, its
description, the formula as written, and what uncored makes of it: the
events, resolved in uncored's event catalog (src/plat/events_<id>.c) with
every modifier in uncored's grammar, a normalised expression over them
(src/core/formula.h says its grammar), the unit served (a base unit) and
the conversion from the source's unit; or, where it cannot count, why.
Where a source is wrong, CORRECTIONS below says what is done and why
(doc/hardware-notes.md, "Formula catalog decisions", says the same for
readers); a correction that no longer applies to its source is an error.

Bad input is an error naming the file and the place: a malformed JSON file
(file:line:column), a metric without a name or formula, a row of the TSV
without its five fields, an expression that does not parse (the formula
and the offset).

Standard library only.
"""
import argparse
import difflib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(TOP, "tests", "data")
PLAT = os.path.join(TOP, "src", "plat")


class GenError(Exception):
    pass


def die(msg):
    sys.stderr.write("gen_formulas: %s\n" % msg)
    sys.exit(1)


# ---------------------------------------------------------------------------
# Sources per platform
# ---------------------------------------------------------------------------

INTEL = {  # platform id -> [(perfmon dir, metrics file, cpu note)]
    "hsx": [("HSX", "haswellx_metrics.json", None)],
    "skx": [("SKX", "skylakex_metrics.json", None)],
    "icx": [("ICX", "icelakex_metrics.json", None)],
    "spr": [("SPR", "sapphirerapids_metrics.json", None)],
    "gnr": [("GNR", "graniterapids_metrics.json", None),
            ("SRF", "sierraforest_metrics.json", "srf")],
}
AMD = {"zen3": "amdzen3", "zen4": "amdzen4", "zen5": "amdzen5"}
MANUAL_TSV = os.path.join(DATA, "hsx-manual-metrics.tsv")
MANUAL_SRC = "331051-002"
PLATFORMS = ["hsx", "skx", "icx", "spr", "gnr", "zen3", "zen4", "zen5"]

# ---------------------------------------------------------------------------
# uncored's event catalogs, read from the generated C
# ---------------------------------------------------------------------------

_EV_RE = re.compile(
    r'\{ \.name = "([^"]+)", \.unit = "([^"]+)",\s*\.code = (0x[0-9a-f]+), '
    r'\.umask = (0x[0-9a-f]+)(.*?)\n\t  \.source', re.S)


def load_catalog(plat):
    path = os.path.join(PLAT, "events_%s.c" % plat)
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise GenError("%s: %s" % (path, e.strerror))
    cat = {}
    for m in _EV_RE.finditer(text):
        rest = m.group(5)
        cat[m.group(1)] = {
            "unit": m.group(2), "code": int(m.group(3), 16),
            "umask": int(m.group(4), 16),
            "fixed": "EVF_FIXED" in rest or "EVF_FREERUN" in rest,
            "thresh": "thresh" in rest.split(".desc")[0],
        }
    if not cat:
        raise GenError("%s: no catalog entry found" % path)
    return cat


# ---------------------------------------------------------------------------
# Expressions: one tokenizer and parser for the three sources' notations.
# An AST is ("num", v) | ("var", name) | ("bin", op, l, r) | ("neg", x) |
# ("call", fn, [args]).
# ---------------------------------------------------------------------------

_TOK = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+)"
                  r"|(?P<id>[A-Za-z_][A-Za-z0-9_.\[\]:=]*)"
                  r"|(?P<op>[-+*/(),]))")


def tokenize(s, where):
    out, i = [], 0
    s = s.rstrip()
    while i < len(s):
        m = _TOK.match(s, i)
        if not m or m.end() == i:
            raise GenError("%s: cannot read \"%s\" at offset %d of \"%s\"" %
                           (where, s[i:i + 12], i, s))
        if m.group("num"):
            out.append(("num", m.group("num"), m.start("num")))
        elif m.group("id"):
            out.append(("id", m.group("id"), m.start("id")))
        else:
            out.append(("op", m.group("op"), m.start("op")))
        i = m.end()
    return out


class Parser:
    def __init__(self, text, where):
        self.toks = tokenize(text, where)
        self.i = 0
        self.text, self.where = text, where

    def err(self, what):
        off = self.toks[self.i][2] if self.i < len(self.toks) else \
            len(self.text)
        raise GenError("%s: %s at offset %d of \"%s\"" % (self.where, what,
                                                         off, self.text))

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None,
                                                                    None)

    def take(self, kind=None, val=None):
        t = self.peek()
        if t[0] is None or (kind and t[0] != kind) or (val and t[1] != val):
            self.err("expected %s" % (val or kind or "more"))
        self.i += 1
        return t

    def parse(self):
        e = self.expr()
        if self.i != len(self.toks):
            self.err("unexpected \"%s\"" % self.peek()[1])
        return e

    def expr(self):
        e = self.term()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.take()[1]
            e = ("bin", op, e, self.term())
        return e

    def term(self):
        e = self.unary()
        while self.peek()[1] in ("*", "/") and self.peek()[0] == "op":
            op = self.take()[1]
            e = ("bin", op, e, self.unary())
        return e

    def unary(self):
        if self.peek()[:2] == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        return self.primary()

    def primary(self):
        t = self.peek()
        if t[0] == "num":
            self.take()
            v = float(int(t[1], 16)) if t[1].startswith("0x") else float(t[1])
            return ("num", v)
        if t[0] == "op" and t[1] == "(":
            self.take()
            e = self.expr()
            self.take("op", ")")
            return e
        if t[0] == "id":
            self.take()
            if self.peek()[:2] == ("op", "("):
                self.take()
                args = [self.expr()]
                while self.peek()[:2] == ("op", ","):
                    self.take()
                    args.append(self.expr())
                self.take("op", ")")
                return ("call", t[1], args)
            return ("var", t[1])
        self.err("expected a number, a name or \"(\"")


def subst(ast, f):
    """ast with every ("var", n) replaced by f(n) (an AST)."""
    k = ast[0]
    if k == "var":
        return f(ast[1])
    if k == "bin":
        return ("bin", ast[1], subst(ast[2], f), subst(ast[3], f))
    if k == "neg":
        return ("neg", subst(ast[1], f))
    if k == "call":
        return ("call", ast[1], [subst(a, f) for a in ast[2]])
    return ast


def fmt_num(v):
    if v == int(v) and abs(v) < 1e15:
        return "%d" % int(v)
    return repr(v)


def emit(ast, prec=0):
    """The normalised expression text (src/core/formula.h's grammar)."""
    k = ast[0]
    if k == "num":
        return fmt_num(ast[1])
    if k == "ref":
        return ast[1]
    if k == "neg":
        return "-" + emit(ast[1], 3)
    if k == "call":
        return "%s(%s)" % (ast[1], ", ".join(emit(a) for a in ast[2]))
    op = ast[1]
    p = 1 if op in "+-" else 2
    s = "%s %s %s" % (emit(ast[2], p), op, emit(ast[3], p + 1))
    return "(%s)" % s if p < prec else s


# ---------------------------------------------------------------------------
# Units: what each source's unit becomes (served value = source value x k)
# ---------------------------------------------------------------------------

UNITS = {
    # source unit: (base unit served, factor, conversion as recorded)
    "percent": ("ratio", 0.01, "percent / 100"),
    "%": ("ratio", 0.01, "percent / 100"),
    "ns": ("seconds", 1e-9, "ns x 1e-9"),
    "MB/sec": ("bytes_per_second", 1e6, "MB/s x 1e6 (MB = 10^6 bytes)"),
    "MB/s": ("bytes_per_second", 1e6, "MB/s x 1e6 (MB = 10^6 bytes)"),
    "GB/sec": ("bytes_per_second", 1e9, "GB/s x 1e9 (GB = 10^9 bytes)"),
    "GHz": ("hertz", 1e9, "GHz x 1e9"),
    "per second": ("per_second", 1.0, "none"),
    "MiB": ("bytes", 1048576.0, "MiB x 2^20"),
    "ratio": ("ratio", 1.0, "none (the formula is a fraction 0..1)"),
    "bytes": ("bytes", 1.0, "none"),
    "MB": ("bytes", 1e6, "MB x 1e6"),
    "count": ("", 1.0, "none (a count over the counting window)"),
    "cycles": ("cycles", 1.0, "none"),
    "core clocks": ("cycles", 1.0, "none (core clock cycles)"),
    "per 1000 memclk": ("ratio", 0.001,
                        "per 1000 memory clocks / 1000 (events per memory "
                        "clock)"),
    "transfers per second (GT/s)": ("transfers_per_second", 1e9,
                                    "GT/s x 1e9"),
    "entries": ("", 1.0, "none (an average number of entries)"),
    "cores": ("", 1.0, "none (an average number of cores)"),
}

# Intel's Info_System_* (and spr's cpu_cstate_*) metrics carry no UnitOfMeasure: their unit, from
# their formula and Intel's TMA description (doc/hardware-notes.md).
INTEL_INFO_UNITS = {
    "Info_System_Uncore_Frequency": "GHz",
    "Info_System_DRAM_BW_Use": "GB/sec",
    "Info_System_MEM_Read_Latency": "ns",
    "Info_System_MEM_Parallel_Reads": "entries",
    "Info_System_MEM_DRAM_Read_Latency": "ns",
    "Info_System_IO_Read_BW": "GB/sec",
    "Info_System_IO_Write_BW": "GB/sec",
    "Info_System_UPI_Data_Transmit_BW": "MB/sec",
    "Info_System_Socket_CLKS": "count",
    "Info_System_Time": "count",
    "cpu_cstate_c0": "cores",
    "cpu_cstate_c6": "cores",
}

# ---------------------------------------------------------------------------
# Entries
# ---------------------------------------------------------------------------


class Entry:
    def __init__(self, plat, name, source, desc, formula):
        self.plat, self.name, self.source = plat, name, source
        self.desc, self.formula = desc, formula
        self.events = []	# [(spec, scope)] scope 0 sum, 1 first box
        self.expr = None
        self.unit = ""
        self.src_unit = ""
        self.conv = "none"
        self.reason = None	# None: counts here
        self.per_box = None	# the unit it is per box of (manual rows)
        self.note = None	# the correction or decision applied, if any
        self.overlaps = None	# the built-in family it overlaps
        self.cpu = None		# "srf": that CPU's own entry on its platform

    def event_index(self, spec, scope=0):
        for i, (s, sc) in enumerate(self.events):
            if s == spec and sc == scope:
                return i
        self.events.append((spec, scope))
        return len(self.events) - 1

    def refuse(self, why):
        if self.reason is None:
            self.reason = why


def set_unit(e, src_unit):
    if src_unit not in UNITS:
        raise GenError("%s %s: unknown unit \"%s\" (add it to UNITS)" %
                       (e.source, e.name, src_unit))
    e.src_unit = src_unit
    e.unit, k, e.conv = UNITS[src_unit]
    return k


def scale(ast, k):
    return ast if k == 1.0 else ("bin", "*", ast, ("num", k))


# Built-in families a formula computes too (its HELP says so).
OVERLAPS = {
    "memory_bandwidth_read": "uncore_dram_bandwidth_bytes_per_second{direction=\"read\"}",
    "memory_bandwidth_write": "uncore_dram_bandwidth_bytes_per_second{direction=\"write\"}",
    "memory_bandwidth_total": "uncore_dram_total_bandwidth_bytes_per_second",
    "Info_System_DRAM_BW_Use": "uncore_dram_total_bandwidth_bytes_per_second",
    "uncore_frequency": "uncore_clock_hertz",
    "Info_System_Uncore_Frequency": "uncore_clock_hertz",
    "MEM_BW_READS": "uncore_dram_read_bytes_total",
    "MEM_BW_WRITES": "uncore_dram_write_bytes_total",
    "MEM_BW_TOTAL": "uncore_dram_bytes_total",
    "PCT_RD_REQUESTS": "uncore_ha_read_requests_ratio",
    "QPI_DATA_BW": "uncore_qpi_data_bytes_total",
    "QPI_LINK_BW": "uncore_qpi_link_bytes_total",
    "upi_data_transmit_bw": "uncore_upi_data_bandwidth_bytes_per_second",
    "umc_mem_read_bandwidth": "uncore_dram_bandwidth_bytes_per_second{direction=\"read\"}",
    "umc_mem_write_bandwidth": "uncore_dram_bandwidth_bytes_per_second{direction=\"write\"}",
    "umc_mem_bandwidth": "uncore_dram_total_bandwidth_bytes_per_second",
}

# ---------------------------------------------------------------------------
# Intel's metric files
# ---------------------------------------------------------------------------

# The box a count-per-box constant stands for, per platform.
BOXES_CONST = {
    "hsx": {"CORES_PER_SOCKET": "cbo", "CHAS_PER_SOCKET": "cbo"},
    "skx": {"CORES_PER_SOCKET": "cha", "CHAS_PER_SOCKET": "cha"},
}


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise GenError("%s: %s" % (path, e.strerror))
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise GenError("%s:%d:%d: malformed JSON: %s" % (path, e.lineno,
                                                         e.colno, e.msg))


def intel_event(plat, cat, name, e):
    """uncored's spec and scope for one of Intel's event names, or refuses
    e and returns None."""
    parts = name.split(":")
    base, mods = parts[0], parts[1:]
    ev = cat.get(base)
    if ev is None:
        e.refuse("event %s is not in uncored's %s catalog" % (base, plat))
        return None
    scope, thresh = 0, 0
    filt = {}
    for m in mods:
        if m == "one_unit":
            scope = 1
        elif m == "c1":
            thresh = 1
        elif plat == "hsx" and m.startswith("opc="):
            filt[1] = filt.get(1, 0) | int(m[4:], 16) << 20
        elif plat == "hsx" and m.startswith("tid="):
            filt[0] = filt.get(0, 0) | int(m[4:], 16)
        elif plat == "skx" and m.startswith("filter1="):
            # CHA FILTER1 is config1 bits 63:32 (plat_skx.c)
            filt[0] = filt.get(0, 0) | int(m[8:], 16) << 32
        else:
            raise GenError("%s %s: modifier \"%s\" of %s has no meaning on "
                           "%s (add it to intel_event())" %
                           (e.source, e.name, m, name, plat))
    return spec_of(cat, base, ev, filt, thresh=thresh), scope


def spec_of(cat, base, ev, filt, thresh=0, edge=False, umask=None):
    """uncored's event text: the catalog name with :filterN=, or, where the
    encoding needs a threshold or edge the catalog entry has not (or a
    unit mask of its own), the raw encoding (formulas may use raw
    encodings whatever allow_raw_events says: they are the daemon's)."""
    f = "".join(":filter%d=0x%x" % (k, v) for k, v in sorted(filt.items()))
    if not thresh and not edge and umask is None:
        return base + f
    raw = "%s:0x%02x:0x%02x" % (ev["unit"], ev["code"],
                                ev["umask"] if umask is None else umask)
    if thresh:
        raw += ":thresh=%d" % thresh
    if edge:
        raw += ":edge"
    return raw + f


def intel_entries(plat, cat):
    out, skipped = [], {}
    for pdir, fname, cpu in INTEL.get(plat, []):
        path = os.path.join(DATA, "intel-perfmon", pdir, "metrics", fname)
        d = load_json(path)
        hdr = d.get("Header", {})
        src = "Intel %s/metrics/%s %s (%s)" % (pdir, fname,
                                               hdr.get("Version", "?"),
                                               hdr.get("DatePublished", "?"))
        ms = d.get("Metrics")
        if not isinstance(ms, list):
            raise GenError("%s: no \"Metrics\" array" % path)
        nall = 0
        for k, m in enumerate(ms):
            for key in ("MetricName", "Formula", "Events"):
                if key not in m:
                    raise GenError("%s: metric %d has no \"%s\"" %
                                   (path, k, key))
            evs = m["Events"]
            if not evs or not all(x["Name"].startswith("UNC_") for x in evs):
                continue
            nall += 1
            e = Entry(plat, m["MetricName"], src,
                      m.get("BriefDescription", ""), m["Formula"])
            e.cpu = cpu
            unit = m.get("UnitOfMeasure") or INTEL_INFO_UNITS.get(e.name)
            if unit is None:
                raise GenError("%s: %s has no UnitOfMeasure and no entry in "
                               "INTEL_INFO_UNITS" % (path, e.name))
            k = set_unit(e, unit)
            alias = {}
            for x in evs:
                r = intel_event(plat, cat, x["Name"], e)
                alias[x["Alias"]] = r
            consts = {c["Alias"]: c["Name"] for c in m.get("Constants", [])}
            ast = Parser(e.formula, "%s %s" % (src, e.name)).parse()

            def var(n, e=e, alias=alias, consts=consts):
                first = None
                mm = re.match(r"^([a-z])\[0\]$", n)
                if mm and mm.group(1) in alias:
                    r = alias[mm.group(1)]
                    if r is None:
                        return ("num", 0)
                    return ("ref", "$%d" % e.event_index(r[0], 1))
                if n in alias:
                    r = alias[n]
                    if r is None:
                        return ("num", 0)
                    return ("ref", "$%d" % e.event_index(*r))
                c = consts.get(n, n).upper()
                if c == "SOCKET_COUNT":
                    return ("num", 1)
                if c == "DURATIONTIMEINSECONDS":
                    return ("ref", "T")
                if c == "DURATIONTIMEINMILLISECONDS":
                    return ("bin", "*", ("ref", "T"), ("num", 1000))
                if c in ("CHAS_PER_SOCKET", "CORES_PER_SOCKET"):
                    box = BOXES_CONST.get(plat, {}).get(c, "cha")
                    for i, (s, sc) in enumerate(e.events):
                        u = s.split(":")[0] if ":" in s and \
                            s.split(":")[0] in UNITS_OF[plat] else \
                            cat.get(s.split(":")[0], {}).get("unit")
                        if u == box and first is None:
                            first = i
                    if first is None:
                        e.refuse("%s counts %s boxes, and the formula has no "
                                 "%s event to count them by" % (c, box, box))
                        return ("num", 1)
                    return ("ref", "#%d" % first)
                raise GenError("%s %s: unknown name \"%s\" in \"%s\"" %
                               (src, e.name, n, e.formula))
            # first pass makes the event indices follow the aliases' order
            for x in evs:
                r = alias[x["Alias"]]
                if r is not None and x["Alias"] not in \
                        re.findall(r"([a-z])\[0\]", e.formula):
                    e.event_index(*r)
            ast = subst(ast, var)
            e.expr = emit(scale(ast, k))
            e.overlaps = OVERLAPS.get(e.name)
            out.append(e)
        skipped[(plat, pdir)] = (len(ms), nall)
    return out, skipped


UNITS_OF = {}

# ---------------------------------------------------------------------------
# AMD's recommended metrics
# ---------------------------------------------------------------------------

AMD_UNCORE_UNITS = ("L3PMC", "DFPMC", "UMCPMC")


def amd_unit(scale_unit, e):
    """(source unit, factor) from a ScaleUnit such as "6.1e-5MiB", "100%",
    "1ns", "1MB/s", "1per_memclk", "1core clocks"."""
    m = re.match(r"^([0-9.eE+-]+)(.*)$", scale_unit or "1")
    if not m:
        raise GenError("%s %s: ScaleUnit \"%s\" unreadable" %
                       (e.source, e.name, scale_unit))
    k, u = float(m.group(1)), m.group(2)
    if u == "%":
        # the expression is a fraction; "100%" prints it as a percent
        return "ratio", 1.0
    if u == "per_memclk":
        return "per 1000 memclk", k
    if u == "":
        return "count", k
    return u, k


def amd_entries(plat, cat):
    out, skipped = [], {}
    d = os.path.join(DATA, "amd-perf", AMD[plat])
    uncore = set()
    for fn in sorted(os.listdir(d)):
        if fn == "recommended.json" or not fn.endswith(".json"):
            continue
        for x in load_json(os.path.join(d, fn)):
            if x.get("Unit") in AMD_UNCORE_UNITS and "EventName" in x:
                uncore.add(x["EventName"])
    path = os.path.join(d, "recommended.json")
    ms = load_json(path)
    src = "AMD %s/recommended.json (Linux tools/perf/pmu-events; " \
          "tests/data/amd-perf/SOURCES.md)" % AMD[plat]
    nall = 0
    for k, m in enumerate(ms):
        if "MetricExpr" not in m:
            continue
        if "MetricName" not in m:
            raise GenError("%s: metric %d has no \"MetricName\"" % (path, k))
        names = set(t[1] for t in tokenize(m["MetricExpr"], path)
                    if t[0] == "id") - {"duration_time", "d_ratio"}
        if not names or not names <= uncore:
            continue
        nall += 1
        e = Entry(plat, m["MetricName"], src, m.get("BriefDescription", ""),
                  m["MetricExpr"])
        su, f = amd_unit(m.get("ScaleUnit"), e)
        k2 = set_unit(e, su)
        ast = Parser(e.formula, "%s %s" % (path, e.name)).parse()

        def var(n, e=e):
            if n == "duration_time":
                return ("ref", "T")
            if n not in cat:
                e.refuse("event %s is not in uncored's %s catalog" % (n, plat))
                return ("num", 0)
            return ("ref", "$%d" % e.event_index(n, 0))
        ast = subst(ast, var)

        def fn(a):
            if a[0] == "call":
                if a[1] != "d_ratio" or len(a[2]) != 2:
                    raise GenError("%s %s: function %s/%d unknown" %
                                   (path, e.name, a[1], len(a[2])))
                return ("call", "dratio", [fn(x) for x in a[2]])
            if a[0] == "bin":
                return ("bin", a[1], fn(a[2]), fn(a[3]))
            if a[0] == "neg":
                return ("neg", fn(a[1]))
            return a
        ast = fn(ast)
        e.expr = emit(scale(ast, f * k2))
        if f != 1.0:
            e.conv = "ScaleUnit %s: x %s, then %s" % (m.get("ScaleUnit"),
                                                      fmt_num(f), e.conv)
        e.overlaps = OVERLAPS.get(e.name)
        out.append(e)
    skipped[(plat, AMD[plat])] = (len(ms), nall)
    return out, skipped


# ---------------------------------------------------------------------------
# The manual's tables
# ---------------------------------------------------------------------------

BOX_PREFIX = {"cbo": "UNC_C_", "sbox": "UNC_S_", "ha": "UNC_H_",
              "imc": "UNC_M_", "pcu": "UNC_P_", "qpi": "UNC_Q_",
              "r2pcie": "UNC_R2_", "r3qpi": "UNC_R3_"}

# Text corrections applied to the manual's equations before parsing:
# name -> [(old, new)], with the reason.  PDF artefacts first (a space the
# extraction put inside a register name or number), then the manual's own
# errors.  Each must apply; doc/hardware-notes.md lists them.
ARTEFACTS = [("PMO N_", "PMON_"), ("Q_Py _PCI", "Q_Py_PCI"),
             ("0x1C 00", "0x1C00"), ("0x18 00", "0x1800"),
             ("0x19 00", "0x1900"), ("my_n ode", "my_node"),
             ("other_ nodes", "other_nodes"), ("COUNTERO_", "COUNTER0_")]

CORRECTIONS = {  # "NAME" or "box/NAME" (a name two tables share)
    "cbo/CYC_USED_DN": (
        [("RING_BL_USED.CCW", "RING_BL_USED.DOWN_EVEN")],
        "the CBo rows name the R2PCIe's sub-events CCW and CW; the CBo event "
        "list has DOWN_EVEN and UP_EVEN, which the rows' definitions (Down "
        "or Up direction, Even polarity) describe"),
    "cbo/CYC_USED_UP": (
        [("RING_BL_USED.CW", "RING_BL_USED.UP_EVEN")], "see cbo/CYC_USED_DN"),
    "cbo/RING_THRU_DN_BYTES": (
        [("RING_BL_USED.CCW", "RING_BL_USED.DOWN_EVEN")],
        "see cbo/CYC_USED_DN"),
    "cbo/RING_THRU_UP_BYTES": (
        [("RING_BL_USED.CW", "RING_BL_USED.UP_EVEN")], "see cbo/CYC_USED_DN"),
    "sbox/RING_THRU_DNEVEN_BYTES": (
        [("RING_BL_USED.DN_EVEN", "RING_BL_USED.DOWN_EVEN")],
        "the SBo event list spells the sub-events DOWN_EVEN and DOWN_ODD"),
    "sbox/RING_THRU_DNODD_BYTES": (
        [("RING_BL_USED.DN_ODD", "RING_BL_USED.DOWN_ODD")],
        "see sbox/RING_THRU_DNEVEN_BYTES"),
    "AVG_TOR_DRDS_MISS_WHEN_NE": (
        [("{edge_det,thresh=0x1}))", "{edge_det,thresh=0x1})")],
        "one closing parenthesis too many"),
    "DRS_FULL_CACHELINE_MSGS_FROM_QPI": (
        [("0x1F00}) * 64)", "0x1F00}) * 64")],
        "one closing parenthesis too many"),
    "DRS_WbE_FROM_QPI": ([("=0x1FE0)", "=0x1FE0})")], "unclosed \"{\""),
    "DRS_WbI_FROM_QPI": ([("=0x1FE0)", "=0x1FE0})")], "unclosed \"{\""),
    "DRS_WbS_FROM_QPI": ([("=0x1FE0)", "=0x1FE0})")], "unclosed \"{\""),
    "DRS_DataC_M_FROM_QPI": (
        [("0x1FE0}, Q_Py", "0x1FE0, Q_Py")],
        "a \"}\" closes the register list after its second entry"),
    "PCT_CYC_FREQ_THERMAL_LTD": (
        [("FREQ_MAX_CURRENT_CYCLES", "FREQ_MAX_LIMIT_THERMAL_CYCLES")],
        "the equation names FREQ_MAX_CURRENT_CYCLES (the current limit, and "
        "an event the hsx PCU event list does not have) for the thermal "
        "limit; the PCU's thermal-limit event is FREQ_MAX_LIMIT_THERMAL_CYCLES"
        " (2.8.6)"),
    "IO_READ_BW": (
        [("opc=0x1C8}", "opc=0x19E}"), ("opc=0x1E6", "opc=0x1E4")],
        "the manual's IO_READ_BW and IO_WRITE_BW have each other's opcodes: "
        "0x19E (PCIRdCur) is a read and 0x1C8 (ItoM) a write (Intel's "
        "haswellx metrics agree: io_bandwidth_read opc=0x19e, "
        "io_bandwidth_write opc=0x1c8 with tid=0x3e); uncored gives each the "
        "other's equation, the tid=0x3E filter with the ItoM term"),
    "IO_WRITE_BW": (
        [("(TOR_INSERTS.OPCODE with:Cn_MSR_PMON_BOX_FILTER1.opc=0x19E",
          "(TOR_INSERTS.OPCODE with:{Cn_MSR_PMON_BOX_FILTER0.tid=0x3E, "
          "Cn_MSR_PMON_BOX_FILTER1.opc=0x1C8}"),
         ("opc=0x1E4", "opc=0x1E6")],
        "see IO_READ_BW"),
    "MMIO_PARTIAL_READS_CPU": (
        [("FILTER0.nc=1", "FILTER1.nc=1")],
        "the equation sets nc in Cn_MSR_PMON_BOX_FILTER0, which has no such "
        "field: nc is bit 30 of FILTER1 (Table 2-19)"),
    "MMIO_WRITES_CPU": (
        [("FILTER0.nc=1", "FILTER1.nc=1")],
        "as MMIO_PARTIAL_READS_CPU: nc is a FILTER1 field (Table 2-19)"),
    "QPI_SPEED": (
        [("ROUND (( CLOCKTICKS / TSC ) * TSC_SPEED, 0 )",
          "ROUND(CLOCKTICKS / SECONDS / 1000000, 0)")],
        "(CLOCKTICKS / TSC) * TSC_SPEED is the QPI clock in MHz: uncored "
        "divides by its counting window instead of a TSC count"),
}

# Rows uncored refuses, with the reason (a core event, a per-socket value
# its modifiers cannot express, a formula the manual prints garbled).
MANUAL_REFUSE = {
    "LLC_MPI": "its denominator INST_RETIRED.ALL is a core event, which "
               "uncored does not own",
    "CYC_USED_DNEVEN": "its denominator TOTAL_CORE_CYCLES is a core "
                       "count, which uncored does not own",
    "CYC_USED_DNODD": "its denominator TOTAL_CORE_CYCLES is a core count, "
                      "which uncored does not own",
    "CYC_USED_UPEVEN": "its denominator TOTAL_CORE_CYCLES is a core "
                       "count, which uncored does not own",
    "CYC_USED_UPODD": "its denominator TOTAL_CORE_CYCLES is a core count, "
                      "which uncored does not own",
    "AVG_TOR_DRD_LOC_MISS_LATENCY": "its filter nid=my_node differs per "
                                    "socket (each socket's own node), and "
                                    "uncored's :filterN= is one value for "
                                    "every socket",
    "AVG_TOR_DRD_REM_MISS_LATENCY": "its filter nid=other_nodes differs "
                                    "per socket, and uncored's :filterN= is "
                                    "one value for every socket",
    "DRS_F_OR_E_FROM_QPI": "the manual prints it garbled (MASK0 set twice "
                           "in one list, MATCH registers missing from six "
                           "of its nine terms): no equation to program",
    "HITME_INSERTS": "it names HITME_HITS.ALLOCS, which the hsx HA event "
                     "list does not have (HITME_HIT has no ALLOCS unit "
                     "mask)",
    "DATA_FROM_QPI_TO_NODEx": "its terms match a destination node id in "
                              "the QPI packet-match registers, one per "
                              "node; the manual gives no bit position "
                              "for dnid in Q_Py_PCI_PMON_PKT_z_MATCH0 "
                              "that uncored's register table has",
    "DRS_DataC_FROM_QPI_TO_NODEx": "see DATA_FROM_QPI_TO_NODEx",
    "DRS_WRITE_FROM_QPI_TO_NODEx": "see DATA_FROM_QPI_TO_NODEx",
    "NCB_DATA_FROM_QPI_TO_NODEx": "see DATA_FROM_QPI_TO_NODEx",
}

# Unit of each row: from its name and definition (the manual gives none).
# PCT_* and the ratios are fractions 0..1 as the equations compute them.


def manual_unit(name, desc):
    if name in ("QPI_SPEED",):
        return "transfers per second (GT/s)"
    if name in ("IO_READ_BW", "IO_WRITE_BW"):
        return "MB"
    if re.search(r"in bytes|expressed in bytes|in Bytes", desc, re.I) or \
            name.endswith("_BYTES") or name.startswith("MEM_BW"):
        return "bytes"
    if name.startswith("PCT_") or name.startswith("CYC_") or \
            re.search(r"\bratio\b", desc, re.I) or name.endswith("_PCT") or \
            name == "INGRESS_REJ_V_INS" or name == "QPI_LINK_UTIL":
        return "ratio"
    if "LATENCY" in name:
        return "cycles"
    if name.startswith("AVG_"):
        return "entries"
    return "count"


# What the manual's special terms mean in uncored (doc/hardware-notes.md).
SAMPLE_INTERVAL = "CLOCKTICKS"	# the box's own clock over the window
FIXED_DCLK = "UNC_M_CLOCKTICKS"	# MC_Chy_PCI_PMON_CTR_FIXED
QPI_FILTERS = {"MATCH0": 0, "MATCH1": 1, "MASK0": 2, "MASK1": 3}


class ManualParser:
    """The manual's notation (1.7): EVENT[.SUB][{bit[=v],...}], terms and
    parenthesised groups followed by "with:" register settings, references
    to other rows of the same table, and the special terms above.  Produces
    an AST whose ("ev", name, mods, filters) leaves get their filters from
    the innermost "with:" around them."""

    def __init__(self, text, where):
        self.s, self.i, self.where = text, 0, where

    def err(self, what):
        raise GenError("%s: %s at offset %d of \"%s\"" % (self.where, what,
                                                         self.i, self.s))

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def peek(self):
        self.ws()
        return self.s[self.i] if self.i < len(self.s) else ""

    def parse(self):
        e = self.expr()
        if self.peek():
            self.err("unexpected \"%s\"" % self.s[self.i:self.i + 10])
        return e

    def expr(self):
        e = self.term()
        while self.peek() in ("+", "-"):
            op = self.s[self.i]
            self.i += 1
            e = ("bin", op, e, self.term())
        return e

    def term(self):
        e = self.primary()
        while self.peek() in ("*", "/"):
            op = self.s[self.i]
            self.i += 1
            e = ("bin", op, e, self.primary())
        return e

    def primary(self):
        c = self.peek()
        if c == "(":
            self.i += 1
            e = self.expr()
            if self.peek() != ")":
                self.err("expected \")\"")
            self.i += 1
        else:
            m = re.compile(r"0x[0-9A-Fa-f]+|\d+(\.\d+)?").match(self.s, self.i)
            if m:
                self.i = m.end()
                t = m.group(0)
                return ("num", float(int(t, 16) if t.startswith("0x")
                                     else float(t)))
            m = re.compile(r"[A-Za-z][A-Za-z0-9_.]*").match(self.s, self.i)
            if not m:
                self.err("expected an event, a number or \"(\"")
            self.i = m.end()
            name = m.group(0)
            if name == "ROUND" and self.peek() == "(":
                self.i += 1
                a = self.expr()
                if self.peek() != ",":
                    self.err("expected \",\" in ROUND")
                self.i += 1
                b = self.expr()
                if self.peek() != ")":
                    self.err("expected \")\"")
                self.i += 1
                return ("call", "round", [a, b])
            mods = {}
            if self.i < len(self.s) and self.s[self.i] == "{":
                j = self.s.index("}", self.i)
                for f in self.s[self.i + 1:j].split(","):
                    k, _, v = f.strip().partition("=")
                    mods[k] = int(v, 16) if v.startswith("0x") else \
                        int(v or "1")
                self.i = j + 1
            e = ("ev", name, mods, {})
        if self.s.startswith("with:", self.i + (len(self.s[self.i:]) -
                                                len(self.s[self.i:].lstrip()))):
            self.ws()
            self.i += 5
            e = self.with_clause(e)
        return e

    def with_clause(self, e):
        self.ws()
        if self.s[self.i] == "{":
            j = self.s.index("}", self.i)
            items = [x.strip() for x in self.s[self.i + 1:j].split(",")]
            self.i = j + 1
        else:
            m = re.compile(r"[A-Za-z_0-9]+\.(\{[a-z,]+\}=\{[^}]*\}|"
                           r"[a-z]+=[0-9A-Fa-fx]+)").match(self.s, self.i)
            if not m:
                self.err("unreadable \"with:\" clause")
            self.i = m.end()
            items = [m.group(0)]
        sets = []
        for it in items:
            m = re.match(r"^([A-Za-z_0-9]+)\.\{([a-z,]+)\}=\{([^}]*)\}$", it)
            if m:
                for f, v in zip(m.group(2).split(","), m.group(3).split(",")):
                    sets.append((m.group(1), f, v.strip()))
                continue
            m = re.match(r"^([A-Za-z_0-9]+)\.([a-z]+)=(\S+)$", it)
            if m:
                sets.append(m.groups())
                continue
            m = re.match(r"^([A-Za-z_0-9]+)\[(\d+):(\d+)\]=(0x[0-9A-Fa-f]+)$",
                         it)
            if m:
                sets.append((m.group(1), "[%s:%s]" % (m.group(2), m.group(3)),
                             m.group(4)))
                continue
            raise GenError("%s: unreadable register setting \"%s\"" %
                           (self.where, it))
        return ("with", sets, e)


def manual_entries(cat, tsv):
    try:
        lines = open(tsv, encoding="utf-8").read().split("\n")
    except OSError as e:
        raise GenError("%s: %s" % (tsv, e.strerror))
    if not lines or lines[0] != "section\tbox\tname\tdefinition\tequation":
        raise GenError("%s:1: not the header the extractor writes" % tsv)
    rows = []
    for n, l in enumerate(lines[1:], 2):
        if not l:
            continue
        f = l.split("\t")
        if len(f) != 5 or not all(f[:3]) or not f[4]:
            raise GenError("%s:%d: expected section, box, name, definition "
                           "and equation, tab-separated (%d fields)" %
                           (tsv, n, len(f)))
        rows.append(f)
    used = set()
    by_name = {}
    for sec, box, name, desc, eq in rows:
        by_name[(box, name)] = (sec, desc, eq)
    out = []
    for sec, box, name, desc, eq in rows:
        names = [name]
        if "RANKx" in name:
            names = [name.replace("RANKx", "RANK%d" % r) for r in range(8)]
        for nm in names:
            e = Entry("hsx", nm, "%s %s" % (MANUAL_SRC, sec), desc, eq)
            e.per_box = box
            if nm != name:
                e.note = ("one row of %s, the manual's \"RANKx\" row, per "
                          "rank x = 0..7" % name)
            k = set_unit(e, manual_unit(name, desc))
            if name in MANUAL_REFUSE:
                e.refuse(MANUAL_REFUSE[name])
                out.append(e)
                continue
            text = eq
            for old, new in ARTEFACTS:
                text = text.replace(old, new)
            ck = box + "/" + name if box + "/" + name in CORRECTIONS \
                else name
            if ck in CORRECTIONS:
                for old, new in CORRECTIONS[ck][0]:
                    if old not in text:
                        raise GenError("%s: correction of %s (\"%s\") no "
                                       "longer applies" % (tsv, ck, old))
                    text = text.replace(old, new)
                used.add(ck)
                e.note = CORRECTIONS[ck][1]
            if nm != name:
                text = text.replace("RANKx", nm[nm.index("RANK"):
                                                nm.index("RANK") + 5])
            ast = ManualParser(text, "%s %s" % (tsv, name)).parse()
            ast = manual_resolve(e, cat, box, ast, by_name, {}, 0)
            e.expr = emit(scale(ast, k))
            e.overlaps = OVERLAPS.get(name)
            out.append(e)
    for name in CORRECTIONS:
        if name not in used:
            raise GenError("%s: correction of %s applies to no row" %
                           (tsv, name))
    return out


def box_clock(cat, box):
    n = BOX_PREFIX[box] + "CLOCKTICKS"
    return n if n in cat else None


def manual_resolve(e, cat, box, ast, by_name, filt, depth):
    """ast with the manual's leaves resolved: events to $i, references to
    other rows inlined, special terms to what they mean."""
    k = ast[0]
    if k == "with":
        f2 = dict(filt)
        for reg, field, v in ast[1]:
            add_filter(e, box, f2, reg, field, v)
        return manual_resolve(e, cat, box, ast[2], by_name, f2, depth)
    if k == "bin":
        return ("bin", ast[1],
                manual_resolve(e, cat, box, ast[2], by_name, filt, depth),
                manual_resolve(e, cat, box, ast[3], by_name, filt, depth))
    if k == "call":
        return ("call", ast[1], [manual_resolve(e, cat, box, a, by_name, filt,
                                                depth) for a in ast[2]])
    if k != "ev":
        return ast
    name, mods = ast[1], ast[2]
    if name == "SECONDS":
        return ("ref", "T")
    if (box, name) in by_name and depth < 4:
        sec, desc, eq = by_name[(box, name)]
        text = eq
        for old, new in ARTEFACTS:
            text = text.replace(old, new)
        ck = box + "/" + name if box + "/" + name in CORRECTIONS else name
        if ck in CORRECTIONS:
            for old, new in CORRECTIONS[ck][0]:
                text = text.replace(old, new)
        if name in MANUAL_REFUSE:
            e.refuse("it adds %s, which uncored refuses: %s" %
                     (name, MANUAL_REFUSE[name]))
            return ("num", 0)
        sub = ManualParser(text, "row %s" % name).parse()
        return manual_resolve(e, cat, box, sub, by_name, filt, depth + 1)
    if name == "SAMPLE_INTERVAL":
        name = SAMPLE_INTERVAL
    if name.startswith("MC_Chy_PCI_PMON_CTR_FIXED"):
        return ("ref", "$%d" % e.event_index(FIXED_DCLK, 0))
    full = BOX_PREFIX[box] + name
    ev = cat.get(full)
    umask = None
    if ev is None:
        subs = [n for n in cat if n.startswith(full + ".")]
        if subs and "." not in name:
            # an event without its unit mask: every sub-event (the union of
            # their unit masks), a decision in doc/hardware-notes.md
            ev = dict(cat[subs[0]])
            umask = 0
            for n in subs:
                umask |= cat[n]["umask"]
            e.note = (e.note + "; " if e.note else "") + \
                ("%s without a unit mask counts every sub-event: unit mask "
                 "0x%02x, the union of %s" %
                 (name, umask, ", ".join(s.split(".", 1)[1] for s in subs)))
        else:
            e.refuse("it names %s, which the hsx %s event list does not "
                     "have" % (name, box))
            return ("num", 0)
    thresh = mods.get("thresh", 0)
    edge = bool(mods.get("edge_det", 0))
    spec = spec_of(cat, full, ev, filt, thresh=thresh, edge=edge, umask=umask)
    return ("ref", "$%d" % e.event_index(spec, 0))


def add_filter(e, box, filt, reg, field, v):
    """One "with:" register setting into filt {filter index: value}."""
    if reg.startswith("Cn_MSR_PMON_BOX_FILTER"):
        layout = {"tid": (0, 0, 6), "state": (0, 17, 7), "nid": (1, 0, 16),
                  "opc": (1, 20, 9), "nc": (1, 30, 1), "isoc": (1, 31, 1)}
        if field not in layout:
            raise GenError("%s: CBo filter field \"%s\" unknown" %
                           (e.name, field))
        f, lo, w = layout[field]
        if reg[-1:] in "01" and int(reg[-1]) != f:
            raise GenError("%s: %s has no field %s" % (e.name, reg, field))
        if not re.match(r"^(0x[0-9A-Fa-f]+|\d+)$", v):
            raise GenError("%s: filter value \"%s\" is no number" %
                           (e.name, v))
        val = int(v, 0)
        if val >> w:
            raise GenError("%s: %s.%s=%s does not fit %d bits" %
                           (e.name, reg, field, v, w))
        old = filt.get(f, 0) & ~(((1 << w) - 1) << lo)
        filt[f] = old | val << lo
        return
    m = re.match(r"^Q_P[yY]_PCI_PMON_PKT_z_(MATCH[01]|MASK[01])$", reg)
    if m and field.startswith("["):
        hi, lo = [int(x) for x in field[1:-1].split(":")]
        val = int(v, 16)
        if val >> (hi - lo + 1):
            raise GenError("%s: %s%s=%s does not fit" % (e.name, reg, field,
                                                        v))
        f = QPI_FILTERS[m.group(1)]
        filt[f] = filt.get(f, 0) | val << lo
        return
    raise GenError("%s: register \"%s\" unknown" % (e.name, reg))


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def c_str(s):
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    s = "".join(c if 32 <= ord(c) < 127 else "\\%03o" % b
                for c in s for b in c.encode("utf-8")) \
        if any(ord(c) >= 127 for c in s) else s
    return '"%s"' % s


def c_lines(key, s, indent="\t  "):
    """.key = "..." split over lines of at most 78 columns."""
    first = "%s.%s = " % (indent, key)
    if len(first) + len(c_str(s)) + 1 <= 78:
        return [first + c_str(s) + ","]
    out, cur = [], ""
    for w in re.split(r"(?<= )", s):
        if cur and len(indent) + 2 + len(c_str(cur + w)) > 76:
            out.append(cur)
            cur = w
        else:
            cur += w
    out.append(cur)
    res = [first.rstrip()]
    for i, p in enumerate(out):
        res.append("%s  %s%s" % (indent, c_str(p),
                                 "," if i == len(out) - 1 else ""))
    return res


def render_c(plat, entries):
    w = []
    w.append("/*")
    w.append(" * formulas_%s.c - the %s formula catalog: every formula of "
             "its sources," % (plat, plat))
    w.append(" * served here or refused with the reason "
             "(src/plat/formula.h).")
    w.append(" *")
    w.append(" * GENERATED by contrib/formulas/gen_formulas.py from "
             "tests/data/ (the")
    w.append(" * sources it names) and src/plat/events_%s.c.  Do not edit: "
             "change the" % plat)
    w.append(" * script or its data and run")
    w.append(" *   python3 contrib/formulas/gen_formulas.py --write")
    w.append(" * doc/formulas.md says what the sources are and how each "
             "is read.")
    w.append(" */")
    w.append('#include "config.h"')
    w.append("")
    w.append('#include "plat/formula.h"')
    w.append("")
    for i, e in enumerate(entries):
        if e.events and e.reason is None:
            w.append("static const struct formula_event f_%s_%d[] = {" %
                     (plat, i))
            for s, sc in e.events:
                w.append("\t{ %s, %d }," % (c_str(s), sc))
            w.append("\t{ NULL, 0 },")
            w.append("};")
    w.append("")
    w.append("const struct formula formulas_%s[] = {" % plat)
    for i, e in enumerate(entries):
        w.append("\t{ .name = %s, .source = %s," % (c_str(e.name),
                                                   c_str(e.source)))
        w += c_lines("desc", e.desc)
        w += c_lines("formula", e.formula)
        if e.expr is not None and e.reason is None:
            w += c_lines("expr", e.expr)
            w.append("\t  .events = f_%s_%d," % (plat, i) if e.events
                     else "\t  .events = NULL,")
        w.append("\t  .unit = %s, .src_unit = %s," % (c_str(e.unit),
                                                      c_str(e.src_unit)))
        w += c_lines("conversion", e.conv)
        if e.per_box:
            w.append("\t  .per_box = %s," % c_str(e.per_box))
        if e.cpu:
            w.append("\t  .cpu = %s," % c_str(e.cpu))
        if e.note:
            w += c_lines("note", e.note)
        if e.overlaps:
            w += c_lines("overlaps", e.overlaps)
        if e.reason:
            w += c_lines("unavailable", e.reason)
        w.append("\t},")
    w.append("};")
    w.append("const size_t formulas_%s_count = %d;" % (plat, len(entries)))
    return "\n".join(w) + "\n"


def render_index(plats):
    w = ["/*",
         " * formulas_index.c - which formula table each platform has.",
         " *",
         " * GENERATED by contrib/formulas/gen_formulas.py; do not edit.",
         " */",
         '#include "config.h"', "", "#include <string.h>", "",
         '#include "plat/formula.h"', ""]
    for p in plats:
        w.append("extern const struct formula formulas_%s[];" % p)
        w.append("extern const size_t formulas_%s_count;" % p)
    w.append("")
    w.append("const struct formula *formula_table(const char *plat, "
             "size_t *n)")
    w.append("{")
    w.append("\tstatic const struct {")
    w.append("\t\tconst char *id;")
    w.append("\t\tconst struct formula *t;")
    w.append("\t\tconst size_t *n;")
    w.append("\t} idx[] = {")
    for p in plats:
        w.append('\t\t{ "%s", formulas_%s, &formulas_%s_count },' % (p, p, p))
    w.append("\t};")
    w.append("")
    w.append("\tfor (size_t i = 0; plat && i < sizeof(idx) / sizeof(idx[0]); "
             "i++)")
    w.append("\t\tif (strcmp(idx[i].id, plat) == 0) {")
    w.append("\t\t\t*n = *idx[i].n;")
    w.append("\t\t\treturn idx[i].t;")
    w.append("\t\t}")
    w.append("\t*n = 0;")
    w.append("\treturn NULL;")
    w.append("}")
    return "\n".join(w) + "\n"


def build():
    result, skipped = {}, {}
    for plat in PLATFORMS:
        cat = load_catalog(plat)
        UNITS_OF[plat] = set(v["unit"] for v in cat.values())
        entries = []
        if plat == "hsx":
            entries += manual_entries(cat, MANUAL_TSV)
        if plat in INTEL:
            es, sk = intel_entries(plat, cat)
            entries += es
            skipped.update(sk)
        if plat in AMD:
            es, sk = amd_entries(plat, cat)
            entries += es
            skipped.update(sk)
        # a later entry of a name already served is that CPU's own
        seen = set()
        for e in entries:
            if e.cpu and e.name in seen:
                e.refuse("Sierra Forest's (06_AF) own formula; on %s "
                         "uncored serves the Granite Rapids formula of the "
                         "same name" % plat)
            seen.add(e.name)
        result[plat] = entries
    return result, skipped


def outputs(result):
    files = {}
    for plat, entries in result.items():
        files[os.path.join(PLAT, "formulas_%s.c" % plat)] = \
            render_c(plat, entries)
    files[os.path.join(PLAT, "formulas_index.c")] = render_index(PLATFORMS)
    return files


def report(result, skipped):
    out = []
    for plat, entries in result.items():
        by = {}
        for e in entries:
            src = e.source.split(" ")[0] + " " + e.source.split(" ")[1] \
                if e.source.startswith(("Intel", "AMD")) else MANUAL_SRC
            s = by.setdefault(src, [0, 0])
            s[0 if e.reason is None else 1] += 1
        for src, (ok, no) in by.items():
            out.append("%-5s %-48s %3d served %3d refused" % (plat, src, ok,
                                                              no))
    for (plat, src), (n, nall) in sorted(skipped.items()):
        out.append("%-5s %-48s %3d metrics, %d all uncore" % (plat, src, n,
                                                              nall))
    for plat, entries in result.items():
        for e in entries:
            if e.reason:
                out.append("refused %s %s: %s" % (plat, e.name, e.reason))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    g.add_argument("--report", action="store_true")
    g.add_argument("--dump", action="store_true")
    ap.add_argument("--manual-tsv", default=None,
                    help="read the manual's tables from this file")
    a = ap.parse_args()
    global MANUAL_TSV
    if a.manual_tsv:
        MANUAL_TSV = a.manual_tsv
    try:
        result, skipped = build()
    except GenError as e:
        die(str(e))
    if a.report:
        sys.stdout.write(report(result, skipped))
        return 0
    if a.dump:
        json.dump({p: [vars(e) for e in es] for p, es in result.items()},
                  sys.stdout, indent=1)
        return 0
    files = outputs(result)
    bad = 0
    for path, text in sorted(files.items()):
        if a.write:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            continue
        try:
            old = open(path, encoding="utf-8").read()
        except OSError:
            old = ""
        if old != text:
            bad = 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), path,
                "generated"))
    if bad:
        die("the committed catalog is out of date; regenerate with --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
