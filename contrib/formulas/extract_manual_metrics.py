#!/usr/bin/env python3
"""
extract_manual_metrics.py - extracts the eight "Common Metrics (Derived
Events)" tables of the Intel Xeon Processor E5 and E7 v3 Family Uncore
Performance Monitoring Reference Manual (331051-002, June 2015) into
tests/data/hsx-manual-metrics.tsv, the file contrib/formulas/gen_formulas.py
reads (the manual's text is not the project's to carry: tests/data/README).

  extract_manual_metrics.py [--manual FILE] --write   (re)write the TSV
  extract_manual_metrics.py [--manual FILE] --check   exit 1 with a diff if
                                                      the committed TSV differs

Each row is one row of a table as the manual prints it: section, box, symbol
name, definition, equation.  Nothing is corrected here: the PDF's line-break
artefacts ("Cn_MSR_PMO N_BOX") and the manual's errors are kept, and every
correction is the generator's, listed there and in doc/hardware-notes.md.
The extraction is strict: a table row it cannot split, or a table whose row
count differs from EXPECTED, is an error naming the manual line.

Standard library only.
"""
import argparse
import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
MANUAL_DEFAULT = os.environ.get("UNCORED_HSX_MANUAL") or os.path.normpath(
    os.path.join(TOP, "..", "shared", "manuals", "004_e75f66526956f957.txt"))
OUT = os.path.join(TOP, "tests", "data", "hsx-manual-metrics.tsv")

# (section, box, heading text, rows the table has).  The R3QPI chapter prints
# the heading and its introduction but no table: 0 rows, 93 in all.
TABLES = [
    ("2.3.5", "cbo", "2.3.5 CBO Box Common Metrics (Derived Events)", 32),
    ("2.4.5", "sbox", "2.4.5 SBO Box Common Metrics (Derived Events)", 8),
    ("2.5.4", "ha", "2.5.4 HA Box Common Metrics (Derived Events)", 6),
    ("2.6.6", "imc", "2.6.6 iMC Box Common Metrics (Derived Events)", 14),
    ("2.8.5", "pcu", "2.8.5 PCU Box Common Metrics (Derived Events)", 4),
    ("2.9.5", "qpi", "2.9.5 Intel QPI LL Box Common Metrics (Derived Events)",
     25),
    ("2.10.5", "r2pcie", "2.10.5 R2PCIe Box Common Metrics (Derived Events)",
     4),
    ("2.11.5", "r3qpi", "2.11.5 R3QPI Box Common Metrics (Derived Events)",
     0),
]
HEADER = "section\tbox\tname\tdefinition\tequation"


def clean(s):
    s = s.replace("\\_", "_").replace("**", "")
    s = re.sub(r"<sup>[^<]*</sup>", "", s)
    s = s.replace("\u00ae", "")
    return re.sub(r"\s+", " ", s).strip()


def die(msg):
    sys.stderr.write("extract_manual_metrics: %s\n" % msg)
    sys.exit(1)


def extract(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    rows = []
    for sec, box, head, want in TABLES:
        start = None
        for i, l in enumerate(lines):
            if l.startswith("#") and clean(l.lstrip("# ")) == head:
                start = i
                break
        if start is None:
            die("%s: no heading \"%s\"" % (path, head))
        got = 0
        for j in range(start + 1, len(lines)):
            l = lines[j]
            c = clean(l.lstrip("# "))
            # the table ends at the box's event list or the next section
            if l.startswith("#") and ("Event List" in c or
                                      re.match(r"\d+\.\d+(\.\d+)? ", c)):
                break
            if "\t" not in l or l.startswith("Symbol Name") or \
                    not l.strip() or re.match(r"^\s*[A-Z]?\s*$", l):
                continue
            m = re.match(r"^([A-Za-z][A-Za-z0-9_]*):\s*(.*?)\t(.*)$", l)
            if not m:
                die("%s:%d: a row of table %s without \"NAME: definition"
                    "<TAB>equation\": %r" % (path, j + 1, sec, l[:60]))
            rows.append((sec, box, m.group(1), clean(m.group(2)),
                         clean(m.group(3))))
            got += 1
        if got != want:
            die("%s: table %s has %d rows, expected %d" % (path, sec, got,
                                                            want))
    return rows


def render(rows):
    out = [HEADER]
    for r in rows:
        for f in r:
            if "\t" in f or "\n" in f:
                die("a tab or newline in %r" % (f,))
        out.append("\t".join(r))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manual", default=MANUAL_DEFAULT)
    ap.add_argument("--out", default=OUT)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    a = ap.parse_args()
    text = render(extract(a.manual))
    if a.write:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    try:
        with open(a.out, encoding="utf-8") as f:
            old = f.read()
    except OSError as e:
        die("%s: %s" % (a.out, e.strerror))
    if old != text:
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), text.splitlines(True), a.out, "manual"))
        die("%s is out of date; regenerate with --write" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
