#!/usr/bin/env python3
"""formula_eval.py - the tests' own evaluator of uncored's formulas.

Computes a formula's value from a claim answer's event counts and the
catalog entry of GET /api/v1/formulas, independently of the daemon's C
code (src/core/formula.c): the catalog's expression ($N the N-th event's
`scaled` count of the socket, #N its box count, T the claim's
time_enabled_s, dratio() a division that is 0 over 0, round(x, n)),
evaluated by Python.  A `first_box` event is the count of the socket's
lowest box, scaled as the socket's.

As a program:  formula_eval.py CATALOG.json CLAIM.json [NAME=V0/V1[~TOL]]...
prints "fine", or one line per difference: a formula of the claim whose
value differs from the evaluator's (to rounding), has another unit or
window than the catalog's, or misses a known answer NAME=V0/V1 (socket
0 and 1, within 1 % or TOL).
"""
import json
import re
import sys


def dratio(a, b):
    return 0.0 if b == 0 else a / b


def rnd(a, b):
    return round(a * 10 ** b) / 10 ** b


def value(entry, claim, socket):
    """The evaluator's value of catalog entry on socket of the claim
    answer, or None where an event has not counted (no `scaled`) or the
    expression divides by zero.  LookupError: a first_box event in an
    answer without boxes; KeyError: an event the claim does not have."""
    evs = {e["event"]: e for e in claim["events"]}
    ev, bx = [], []
    for fe in entry["events"]:
        e = evs.get(fe["event"])
        if e is None:
            raise KeyError("event %s of %s not in the claim" % (fe["event"], entry["name"]))
        so = [x for x in e["sockets"] if x["socket"] == socket][0]
        if so.get("scaled") is None:
            return None
        sc = so["scaled"]
        if fe["scope"] == "first_box":
            if "instances" not in so:
                raise LookupError("no boxes in this answer")
            first = min(so["instances"], key=lambda i: i["box"])
            sc = first["count"] * (sc / so["count"] if so["count"] else 1)
        ev.append(float(sc))
        bx.append(float(len(so["instances"]) if "instances" in so else so["boxes"]))
    py = re.sub(r"\$(\d+)", r"ev[\1]", entry["expression"])
    py = re.sub(r"#(\d+)", r"bx[\1]", py).replace("round(", "rnd(")
    try:
        return eval(py, {"ev": ev, "bx": bx, "T": claim["time_enabled_s"],
                         "dratio": dratio, "rnd": rnd})
    except ZeroDivisionError:
        return None


def differences(catalog, claim, want=None, need_value=False):
    """What differs between the claim answer's formulas and the
    evaluator's (a list of lines; empty: nothing).  want: {name: "V0/V1[~TOL]"}.
    need_value: a formula with no value (null) is a difference too."""
    want = want or {}
    # two entries may share a name where one is unavailable (gnr serves
    # Granite Rapids' formula, not Sierra Forest's of the same name)
    cat = {}
    for f in catalog["formulas"]:
        if f["name"] not in cat or f["available"]:
            cat[f["name"]] = f
    bad = []
    T = claim["time_enabled_s"]
    if not claim.get("formulas"):
        bad.append("no formulas in the answer")
    for f in claim.get("formulas", []):
        c = cat[f["name"]]
        if f["unit"] != c["unit"]:
            bad.append("%s: unit %s, the catalog's %s" % (f["name"], f["unit"], c["unit"]))
        if abs(f["window_s"] - T) > 1e-9:
            bad.append("%s: window %s, the claim's %s" % (f["name"], f["window_s"], T))
        for so in f["sockets"]:
            s, got = so["socket"], so["value"]
            try:
                exp = value(c, claim, s)
            except LookupError:     # a first box the now answer does not show
                exp = got
            if need_value and got is None:
                bad.append("%s socket %d: no value" % (f["name"], s))
            if (got is None) != (exp is None) or (got is not None and
                    abs(got - exp) > 1e-9 * max(1.0, abs(exp))):
                bad.append("%s socket %d: daemon %r, evaluator %r" % (f["name"], s, got, exp))
            if f["name"] in want:
                spec, _, tol = want[f["name"]].partition("~")
                k = float(spec.split("/")[s])
                if got is None or abs(got - k) > float(tol or 1e-2) * abs(k):
                    bad.append("%s socket %d: %r, known answer %g" % (f["name"], s, got, k))
    for n in want:
        if n not in [f["name"] for f in claim.get("formulas", [])]:
            bad.append("%s: not in the answer" % n)
    return bad


def main(argv):
    catalog = json.load(open(argv[1]))
    claim = json.load(open(argv[2]))
    bad = differences(catalog, claim, dict(a.split("=", 1) for a in argv[3:]))
    print("\n".join(bad) if bad else "fine")


if __name__ == "__main__":
    main(sys.argv)
