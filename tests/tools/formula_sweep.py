#!/usr/bin/env python3
"""formula_sweep.py - every formula a daemon serves, checked against the
tests' evaluator (formula_eval.py), issue 42 section 4.

    formula_sweep.py SOCKET [WAIT_S]

Over the control socket SOCKET: takes the catalog (GET /api/v1/formulas),
claims every available formula in a claim of its own (shared, so they
take turns where they must), waits until each claim's events have all
counted on every socket (at most WAIT_S seconds, default 120), reads each
claim (its last tick, and now) and compares its formulas' values with the
evaluator's over the same answer's counts.  Run it against a simulator whose workload has
"distinct_rates": every event then counts at a rate of its own, so a
formula that takes a wrong event, box or socket gets another value.

Prints "#" lines of detail, then one line:
    available A claimed C refused R counted K checked N differ D null Z
and exits 0 (the caller judges the figures).
"""
import http.client
import json
import socket
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import formula_eval  # noqa: E402


class UnixConn(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("uncored", timeout=30)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(self.path)


def call(path, method, url, body=None):
    """One request; a 503 (a read now the sampling thread could not take
    within its 2 s, on a loaded machine) is asked again, up to 10 times."""
    for _ in range(10):
        st, ans = call_once(path, method, url, body)
        if st != 503:
            break
        time.sleep(0.5)
    return st, ans


def call_once(path, method, url, body=None):
    c = UnixConn(path)
    try:
        c.request(method, url, body=json.dumps(body) if body is not None else None,
                  headers={"Content-Type": "application/json"} if body is not None else {})
        r = c.getresponse()
        data = r.read()
        return r.status, (json.loads(data) if data else None)
    finally:
        c.close()


def counted(ans):
    """Has every event of the claim answer counted on every socket?"""
    return all(so.get("scaled") is not None
               for e in ans["events"] for so in e["sockets"])


def main(argv):
    path = argv[1]
    wait_s = float(argv[2]) if len(argv) > 2 else 120.0
    st, catalog = call(path, "GET", "/api/v1/formulas")
    if st != 200:
        print("# GET /api/v1/formulas: %d" % st)
        print("available 0 claimed 0 refused 0 counted 0 checked 0 differ 0 null 0")
        return
    avail = [f["name"] for f in catalog["formulas"] if f["available"]]
    print("# %s (%s): %d formulas, %d available" % (catalog["platform"], catalog["backend"],
                                                   len(catalog["formulas"]), len(avail)))
    claims, refused = {}, 0
    for name in avail:
        st, ans = call(path, "POST", "/api/v1/claims", {"formulas": [name], "ttl_s": 900})
        if st == 201:
            claims[name] = ans["id"]
        else:
            refused += 1
            print("# %s: %d %s" % (name, st, (ans or {}).get("error", "")))
    left, deadline = dict(claims), time.monotonic() + wait_s
    while left and time.monotonic() < deadline:
        for name, cid in list(left.items()):
            st, ans = call(path, "GET", "/api/v1/claims/%s" % cid)
            if st == 200 and counted(ans):
                del left[name]
        if left:
            time.sleep(0.2)
    for name in sorted(left):
        print("# %s: not every event counted within %g s" % (name, wait_s))
    checked = differ = null = 0
    for name, cid in sorted(claims.items()):
        if name in left:
            continue
        bad, nulls = [], []
        for url in ("/api/v1/claims/%s" % cid, "/api/v1/claims/%s/now" % cid):
            st, ans = call(path, "GET", url)
            if st != 200:
                bad.append("%s: %d %s" % (url, st, ans))
                continue
            bad += ["%s: %s" % (url, b) for b in formula_eval.differences(catalog, ans)]
            nulls += [so for f in ans["formulas"] for so in f["sockets"]
                      if so["value"] is None]
        checked += 1
        if nulls:
            null += 1
            print("# %s: no value on %d socket(s)" % (name, len(nulls)))
        if bad:
            differ += 1
            for b in bad[:3]:
                print("# %s: %s" % (name, b))
    for cid in claims.values():
        call(path, "DELETE", "/api/v1/claims/%s" % cid)
    print("available %d claimed %d refused %d counted %d checked %d differ %d null %d" %
          (len(avail), len(claims), refused, len(claims) - len(left), checked, differ, null))


if __name__ == "__main__":
    main(sys.argv)
