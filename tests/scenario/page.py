#!/usr/bin/env python3
"""page.py - loads the live page in headless Chromium and checks it.

Used by tests/scenario/page.sh, which starts the daemon on the simulator
with a phased workload and passes what the page must show.  Chromium is
driven over its DevTools protocol on a pipe (--remote-debugging-pipe):
the standard library is enough (no npm, no WebSocket client, no port), it
sees what --dump-dom cannot (console messages, every network request,
screenshots) and it uses Debian's own browser.

Each check is written to RESULTS as "STATUS DESCRIPTION" (0 = pass) for
the shell test to report; diagnostics go to stdout as TAP comments.
"""
import argparse
import base64
import ctypes
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class Browser:
    """A headless Chromium with one page, spoken to over fds 3/4."""

    def __init__(self, exe, userdir, width, height):
        to_child, self.wfd = os.pipe()
        self.rfd, from_child = os.pipe()

        def fds():
            a, b = os.dup(to_child), os.dup(from_child)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-default-apps", "--mute-audio",
             # nothing may leave the machine, whatever the page asks for
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--user-data-dir=" + userdir, "--remote-debugging-pipe",
             "--window-size=%d,%d" % (width, height), "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.errors = []      # console errors and uncaught exceptions
        self.requests = []    # every URL the page asked for

    def close(self):
        try:
            self.call("Browser.close", timeout=5, session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _event(self, m):
        meth, p = m.get("method"), m.get("params", {})
        if meth == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            self.errors.append("exception: " + d.get("exception", {}).get(
                "description", d.get("text", "")))
        elif meth == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            self.errors.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p["args"])))
        elif meth == "Log.entryAdded" and p["entry"]["level"] == "error":
            e = p["entry"]
            self.errors.append("%s: %s %s" % (e["source"], e["text"], e.get("url", "")))
        elif meth == "Network.requestWillBeSent":
            self.requests.append(p["request"]["url"])

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, timeout=30, session=True):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        os.write(self.wfd, json.dumps(m).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            r = self._read(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r["result"]
            if "method" in r:
                self._event(r)

    def pump(self, secs):
        """Handles events for secs seconds."""
        deadline = time.monotonic() + secs
        try:
            while True:
                m = self._read(deadline)
                if "method" in m:
                    self._event(m)
        except TimeoutError:
            pass

    def open(self, url):
        t = self.call("Target.createTarget", {"url": "about:blank"})
        a = self.call("Target.attachToTarget",
                      {"targetId": t["targetId"], "flatten": True})
        self.session = a["sessionId"]
        for dom in ("Runtime", "Log", "Network", "Page"):
            self.call(dom + ".enable")
        self.call("Page.navigate", {"url": url})

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr,
                                           "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait(self, expr, secs):
        """Polls expr until it is truthy; returns its last value."""
        deadline = time.monotonic() + secs
        v = None
        while time.monotonic() < deadline:
            v = self.js(expr)
            if v:
                return v
            self.pump(0.1)
        return v

    def screenshot(self, path):
        m = self.call("Page.getLayoutMetrics")["cssContentSize"]
        r = self.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": m["width"],
                     "height": m["height"], "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))


class Results:
    def __init__(self, path):
        self.f = open(path, "w")

    def check(self, cond, desc, why=""):
        self.f.write("%d %s\n" % (0 if cond else 1, desc))
        self.f.flush()
        if not cond and why:
            print("#   " + str(why).replace("\n", "\n#   "))

    def skip(self, desc, why):
        self.f.write("2 %s # %s\n" % (desc, why))
        self.f.flush()

    def near(self, got, want, rel, desc):
        ok = got is not None and abs(got - want) <= rel * abs(want)
        self.check(ok, desc, "got %s, want %s +- %g%%" % (got, want, rel * 100))


def stop_thread(pid, name):
    """Stops one thread of pid (by its comm) with ptrace, leaving the
    others running; returns a function that lets it go again."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                            ctypes.c_void_p]
    PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 17, 0x4206, 0x4207
    tids = [int(t) for t in os.listdir("/proc/%d/task" % pid)
            if open("/proc/%d/task/%s/comm" % (pid, t)).read().strip() == name]
    if len(tids) != 1:
        raise RuntimeError("no single thread named %s in %d" % (name, pid))
    tid = tids[0]
    for req in (PTRACE_SEIZE, PTRACE_INTERRUPT):
        if libc.ptrace(req, tid, None, None) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "ptrace %d on thread %d: %s" % (req, tid, os.strerror(e)))

    def resume():
        # waitpid(__WALL) for the stop before detaching
        os.waitpid(tid, 0x40000000)
        libc.ptrace(PTRACE_DETACH, tid, None, None)
    return resume


# What the page shows, read from its DOM.
READ = """(() => {
  const v = (id) => { const e = document.querySelector('#' + id + ' .num');
                      return e ? parseFloat(e.textContent) : null; };
  const c = (id) => { const e = document.querySelector('#' + id + ' svg.chart');
                      return e ? { points: +e.dataset.points, runs: +e.dataset.runs,
                                   paths: e.querySelectorAll('path.series').length,
                                   stats: e.parentNode.querySelector('.stats').textContent } : null; };
  const b = document.getElementById('banner');
  return { rd: v('s0-rd'), wr: v('s0-wr'), hit: v('s0-hit'), clk: v('s0-clk'),
           crd: c('s0-rd'), chit: c('s0-hit'),
           banner: b.hidden ? '' : b.textContent,
           live: document.getElementById('live').textContent,
           health: document.getElementById('health-list').textContent };
})()"""


def proxy(upstream, prefix):
    """A reverse proxy on 127.0.0.1 that serves upstream under prefix
    (as a site would mount the daemon); returns its base URL."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if not self.path.startswith(prefix):
                self.send_error(404)
                return
            try:
                r = urllib.request.urlopen(upstream + "/" + self.path[len(prefix):], timeout=10)
            except urllib.error.HTTPError as e:
                r = e
            body = r.read()
            self.send_response(r.status if hasattr(r, "status") else r.code)
            for h in ("Content-Type", "Content-Security-Policy"):
                if r.headers.get(h):
                    self.send_header(h, r.headers[h])
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d%s" % (srv.server_address[1], prefix)


# Per socket headline values and the rows of the channel/port tables.
READ_HSX = """(() => {
  const v = (id) => { const e = document.querySelector('#' + id + ' .num');
                      return e ? parseFloat(e.textContent) : null; };
  const out = [];
  for (const sec of document.querySelectorAll('section.socket')) {
    const k = sec.id.replace('socket', 's');
    const rows = (i) => { const t = sec.querySelectorAll('table')[i];
      return t ? [...t.tBodies[0].rows].map((r) => [r.cells[0].textContent,
        parseFloat(r.cells[1].textContent), parseFloat(r.cells[2].textContent)]) : []; };
    const q = sec.querySelector('#' + k + '-qpi svg.chart');
    out.push({ rd: v(k + '-rd'), wr: v(k + '-wr'), hit: v(k + '-hit'), clk: v(k + '-clk'),
               qpi: v(k + '-qpi'), qpi_points: q ? +q.dataset.points : 0,
               channels: rows(0), ports: rows(1) });
  }
  return out;
})()"""


def hsx(b, res, expect):
    """Two sockets, per-channel DRAM and per-port QPI (hsx)."""
    got = b.wait("(() => { const r = %s; return r.length === %d && "
                 "r.every((s) => s.qpi_points >= 2 && s.channels.length) ? r : null; })()"
                 % (READ_HSX, len(expect)), 30)
    print("# hsx view: %s" % json.dumps(got))
    res.check(bool(got), "hsx: %d sockets, each with channel and port tables "
              "and a QPI chart" % len(expect), b.js(READ_HSX))
    if not got:
        return
    for sk, (e, g) in enumerate(zip(expect, got)):
        for k, unit in (("rd", "GB/s"), ("wr", "GB/s"), ("clk", "GHz"), ("qpi", "GB/s")):
            res.near(g[k], e[k], 0.02, "hsx s%d: %s %.2f %s" % (sk, k, e[k], unit))
        res.near(g["hit"], e["hit"], 0.002, "hsx s%d: LLC hit %.1f %%" % (sk, e["hit"]))
        chans = g["channels"]
        res.check(len(chans) == e["channels"] and
                  all(abs(c[1] - e["rd"] / e["channels"]) <= 0.02 * e["rd"] / e["channels"]
                      for c in chans),
                  "hsx s%d: %d channels of %.2f GB/s read each" %
                  (sk, e["channels"], e["rd"] / e["channels"]), chans)
        res.check(len(g["ports"]) == e["ports"] and
                  abs(sum(p[1] for p in g["ports"]) - e["qpi"]) <= 0.03 * e["qpi"],
                  "hsx s%d: %d QPI ports add up to the chart's %.2f GB/s" %
                  (sk, e["ports"], e["qpi"]), g["ports"])


# Per socket: the headline values, whether the clock card is there and
# what the "not on this platform" note says, the UPI chart, the channel
# and link tables (skx, zen4).
READ_SOCKETS = """(() => {
  const v = (id) => { const e = document.querySelector('#' + id + ' .num');
                      return e ? parseFloat(e.textContent) : null; };
  const out = [];
  for (const sec of document.querySelectorAll('section.socket')) {
    const k = sec.id.replace('socket', 's');
    const tab = (cap) => { const t = [...sec.querySelectorAll('table')].find(
        (x) => x.caption.textContent.startsWith(cap));
      return t ? [...t.tBodies[0].rows].map((r) => [r.cells[0].textContent,
        parseFloat(r.cells[1].textContent)]) : []; };
    const u = sec.querySelector('#' + k + '-upi svg.chart');
    const none = sec.querySelector('p.none');
    out.push({ rd: v(k + '-rd'), wr: v(k + '-wr'), hit: v(k + '-hit'),
               tot: v(k + '-tot'),
               clk: v(k + '-clk'), clk_card: !!sec.querySelector('#' + k + '-clk'),
               lim: (() => { const c = sec.querySelector('#' + k + '-clk svg.chart');
                 return c && c.dataset.limitMax ? [+c.dataset.limitMin, +c.dataset.limitMax] : null; })(),
               none: none ? none.textContent : '', upi: v(k + '-upi'),
               upi_points: u ? +u.dataset.points : 0,
               channels: tab('Memory channels'), links: tab('UPI links'),
               qpi_ports: tab('QPI ports'),
               rdt: tab('Memory bandwidth per workload'),
               rdt_note: (() => { const n = sec.querySelector('p[id^=rdt-share]');
                 return n ? n.textContent : null; })() });
  }
  const ab = document.getElementById('about'), bn = document.getElementById('banner');
  return { sockets: out, about: ab ? ab.textContent : '',
           banner: bn && !bn.hidden ? bn.textContent : '' };
})()"""


def sockets(b, res, name, expect):
    """Every socket of a platform with the right values: the headline
    cards, the clock card only where the platform has a clock (else the
    page says it has none), per-channel rows and UPI links where it has
    them.  expect: {"about": substring, "sockets": [{rd, wr (null: none,
    zen3), tot, hit (null: none, the clients since Alder Lake), clk (null:
    none), channels, links, upi, lim ([min, max] Hz: the kernel's uncore
    clock limits drawn on the clock chart)}]}."""
    want = expect["sockets"]
    got = b.wait("(() => { const r = %s; return r.sockets.length === %d && "
                 "r.sockets.every((s) => s.tot !== null && !isNaN(s.tot) && "
                 "((s.rd !== null && !isNaN(s.rd) && s.wr !== null) || "
                 "s.none.includes('DRAM read')) && "
                 "(s.links.length === 0 || s.upi_points >= 2)) "
                 "? r : null; })()" % (READ_SOCKETS, len(want)), 45)
    print("# %s view: %s" % (name, json.dumps(got)))
    res.check(bool(got), "%s: %d sockets with DRAM values" % (name, len(want)),
              b.js(READ_SOCKETS))
    if not got:
        return
    res.check(expect["about"] in got["about"], "%s: the header says %s" %
              (name, expect["about"]), got["about"])
    res.check(got["banner"] == "", "%s: no banner" % name, got["banner"])
    for sk, (e, g) in enumerate(zip(want, got["sockets"])):
        for k in ("rd", "wr"):
            if e[k] is None:    # zen3: only the total
                res.check(g[k] is None and "DRAM read, DRAM write" in g["none"],
                          "%s s%d: no DRAM %s card; the page says the platform has none"
                          % (name, sk, k), g)
            else:
                res.near(g[k], e[k], 0.02, "%s s%d: DRAM %s %.2f GB/s" % (name, sk, k, e[k]))
        if "tot" in e:
            res.near(g["tot"], e["tot"], 0.02, "%s s%d: DRAM total %.2f GB/s" % (name, sk, e["tot"]))
        if e["hit"] is None:
            res.check(g["hit"] is None and "LLC" in g["none"],
                      "%s s%d: no LLC hit card; the page says the platform has none"
                      % (name, sk), g)
        else:
            res.near(g["hit"], e["hit"], 0.002, "%s s%d: LLC hit %.1f %%" % (name, sk, e["hit"]))
        if e["clk"] is None:
            res.check(not g["clk_card"] and "Uncore clock" in g["none"],
                      "%s s%d: no uncore clock card; the page says the platform has none"
                      % (name, sk), g)
        else:
            res.near(g["clk"], e["clk"], 0.02, "%s s%d: uncore %.2f GHz" % (name, sk, e["clk"]))
        if "lim" in e:
            # the kernel's limits (intel_uncore_frequency) under the clock
            res.check(g["lim"] == e["lim"], "%s s%d: uncore clock limits %s Hz drawn"
                      % (name, sk, e["lim"]), g["lim"])
        chans = g["channels"]
        per = e["rd"] / e["channels"] if e["channels"] else 0
        res.check(len(chans) == e["channels"] and
                  all(abs(c[1] - per) <= 0.02 * per for c in chans),
                  "%s s%d: %d memory channels%s" % (name, sk, e["channels"],
                  " of %.2f GB/s read each" % per if per else ""), chans)
        if "rdt" in e:
            rdt_check(b, res, name, sk, e["rdt"])
        res.check(len(g["links"]) == e["links"] and not g["qpi_ports"] and
                  (not e["links"] or (abs(sum(x[1] for x in g["links"]) - e["upi"]) <= 0.03 * e["upi"]
                                      and abs(g["upi"] - e["upi"]) <= 0.02 * e["upi"])),
                  "%s s%d: %d UPI links adding up to the chart's %.2f GB/s" %
                  (name, sk, e["links"], e.get("upi", 0)), g)


# The bandwidth-latency card of every socket (issue 41 section 4): its
# point count, the current point's sample and coordinates, the big number
# and the note of a socket without the family.
READ_LAT = """(() => {
  const out = [];
  for (const sec of document.querySelectorAll('section.socket')) {
    const k = sec.id.replace('socket', 's');
    const c = sec.querySelector('#' + k + '-lat');
    if (!c) { out.push(null); continue; }
    const svg = c.querySelector('svg.chart'), cur = c.querySelector('circle.cur');
    const n = c.querySelector('.num'), a = c.querySelector('p.absent');
    out.push({ points: svg ? +svg.dataset.points : 0,
               paths: svg ? svg.querySelectorAll('path.pts').length : 0,
               num: n ? parseFloat(n.textContent) : null,
               cur: cur ? { seq: +cur.dataset.seq, gbs: +cur.dataset.gbs, ns: +cur.dataset.ns } : null,
               absent: a ? a.textContent : null });
  }
  return out;
})()"""
LAT_KEY = "memory_read_latency_all_seconds"


def api(url, path):
    return json.load(urllib.request.urlopen(url.rstrip("/") + path, timeout=10))


def served_latency(url):
    """Per socket, whether the daemon serves the read latency family
    (the newest sample carries the mean of the last interval)."""
    s = api(url, "/api/v1/samples?deltas=0&limit=1")["samples"]
    return [LAT_KEY in so for so in s[-1]["sockets"]] if s else []


def lat_absent(b, res, name, url):
    """On a platform without the family, each socket's card says why
    instead of drawing; with it, the card draws points (the family's
    presence is read from the API, not from a platform list)."""
    want = served_latency(url)
    got = b.wait("(() => { const r = %s; return r.length === %d && r.every((x, i) => x && "
                 "(%s[i] ? x.points >= 2 && x.cur : x.absent)) ? r : null; })()"
                 % (READ_LAT, len(want), json.dumps(want)), 30)
    print("# %s latency cards: %s (served: %s)" % (name, json.dumps(got), want))
    for sk, w in enumerate(want):
        if w:
            res.check(bool(got) and got[sk]["points"] >= 2 and got[sk]["cur"] is not None,
                      "%s s%d: the read latency family is served; its plot has points" % (name, sk),
                      b.js(READ_LAT))
        else:
            why = (got[sk] or {}).get("absent") or "" if got else ""
            res.check("not served" in why or "No DRAM" in why,
                      "%s s%d: no read latency family; its card says why" % (name, sk),
                      b.js(READ_LAT))


def latency(b, res, url, expect):
    """The bandwidth-latency plot on every socket: points for the ring's
    intervals, the current point marked at the API's values of its own
    sample, and over the workload's phases the current point visits each
    (GB/s, ns) of the curve.  expect: per socket a list of [GB/s, ns]."""
    got = b.wait("(() => { const r = %s; return r.length === %d && "
                 "r.every((x) => x && x.points >= 8 && x.paths >= 1 && x.cur) ? r : null; })()"
                 % (READ_LAT, len(expect)), 45)
    print("# latency view: %s" % json.dumps(got))
    res.check(bool(got), "latency: %d sockets, each plot with points and the current one marked"
              % len(expect), b.js(READ_LAT))
    if not got:
        return
    # the current point is the API's sample of the same seq, both axes
    for sk, g in enumerate(got):
        seq = g["cur"]["seq"]
        s = api(url, "/api/v1/samples?deltas=0&limit=1&since=%d" % (seq - 1))["samples"]
        so = s[0]["sockets"][sk] if s and s[0]["seq"] == seq else None
        res.check(so is not None and
                  abs(g["cur"]["gbs"] - so["dram_bytes_per_second"] * 1e-9) <= 1e-9 * g["cur"]["gbs"] and
                  abs(g["cur"]["ns"] - so[LAT_KEY] * 1e9) <= 1e-9 * g["cur"]["ns"],
                  "latency s%d: the marked point is sample #%d's DRAM GB/s and read latency"
                  % (sk, seq), [g["cur"], so])
        res.check(g["num"] is not None and abs(g["num"] - g["cur"]["ns"]) <= 0.01 * g["cur"]["ns"],
                  "latency s%d: the card's number is the marked point's latency" % sk, g)
        # the ring's samples up to the marked one with both values (the
        # first of a program has no deltas), read when the page drew it
        n = sum(1 for x in api(url, "/api/v1/samples?deltas=0&limit=3600")["samples"]
                if x["seq"] <= seq and not x.get("first") and
                x["sockets"][sk].get(LAT_KEY) is not None and
                x["sockets"][sk].get("dram_bytes_per_second") is not None)
        res.check(g["points"] == n,
                  "latency s%d: a point per interval of the ring up to #%d (%d points, the ring has %d)"
                  % (sk, seq, g["points"], n), g)
    # the curve: the current point at each phase's (GB/s, ns)
    seen = [set() for _ in expect]
    deadline = time.monotonic() + 45
    while time.monotonic() < deadline and not all(len(x) == len(e) for x, e in zip(seen, expect)):
        for sk, g in enumerate(b.js(READ_LAT)):
            if not g or not g["cur"]:
                continue
            for i, (gbs, ns) in enumerate(expect[sk]):
                if abs(g["cur"]["gbs"] - gbs) <= 0.02 * gbs and abs(g["cur"]["ns"] - ns) <= 0.02 * ns:
                    seen[sk].add(i)
        b.pump(0.1)
    for sk, e in enumerate(expect):
        res.check(len(seen[sk]) == len(e), "latency s%d: the marked point went through %s "
                  "(GB/s, ns)" % (sk, e), sorted(seen[sk]))
    g = b.js(READ_LAT)
    for sk, e in enumerate(expect):
        res.check(g[sk]["points"] > got[sk]["points"],
                  "latency s%d: the plot gains points as intervals arrive" % sk, g[sk])


# The power card of every socket (issue 43): its three figures as shown,
# whether they are shown at all, and its line of text.
READ_PWR = """(() => [...document.querySelectorAll('section.socket')].map((sec) => {
  const k = sec.id.replace('socket', 's'), c = sec.querySelector('#' + k + '-pwr');
  if (!c) return null;
  const t = (x) => c.querySelector('#' + k + '-pwr-' + x).textContent;
  return { pkg: t('pkg'), dram: t('dram'), pj: t('pj'),
           shown: [...c.querySelectorAll('p.now')].filter((p) => p.getClientRects().length).length,
           stats: c.querySelector('p.stats').textContent };
}))()"""


def num(t):
    try:
        return float(t)
    except (TypeError, ValueError):
        return None


def power(b, res, name, url, want, tot):
    """Each socket's power card against the workload's watts.  want per
    socket: "absent" (no RAPL: the card says why, from the API, and shows
    no figure), or {"pkg": W, "dram": W or null (no DRAM domain), "pj":
    "n/a" (optional: no DRAM byte moved), "psys": W (optional)}; tot:
    per socket the DRAM GB/s on the page, for pJ/byte = W / (B/s)."""
    if all(w == "absent" for w in want):
        why = api(url, "/api/v1/status").get("energy", {}).get("absent")
        got = b.wait("(() => { const r = %s; return r.length === %d && r.every((x) => x && "
                     "x.stats.startsWith('Energy is not served')) ? r : null; })()"
                     % (READ_PWR, len(want)), 30)
        print("# %s power cards: %s" % (name, json.dumps(got)))
        for sk in range(len(want)):
            g = got[sk] if got else None
            res.check(bool(why) and g is not None and g["shown"] == 0 and
                      g["stats"].startswith("Energy is not served here: " + why),
                      "%s s%d: no RAPL; the power card shows no watts and says why (%s)"
                      % (name, sk, why), [g, why])
        return
    got = b.wait("(() => { const r = %s; return r.length === %d && r.every((x) => x && "
                 "!isNaN(parseFloat(x.pkg)) && x.stats.includes(' s \u00b7')) ? r : null; })()"
                 % (READ_PWR, len(want)), 45)
    print("# %s power cards: %s" % (name, json.dumps(got)))
    res.check(bool(got), "%s: every socket's power card has its watts" % name, b.js(READ_PWR))
    if not got:
        return
    for sk, (w, g) in enumerate(zip(want, got)):
        res.near(num(g["pkg"]), w["pkg"], 0.02, "%s s%d: package %g W" % (name, sk, w["pkg"]))
        if w["dram"] is None:
            res.check(g["dram"] == g["pj"] == "\u2014" and "no DRAM domain" in g["stats"],
                      "%s s%d: no DRAM domain: no DRAM watts, no pJ/byte, and the card says so"
                      % (name, sk), g)
            continue
        res.near(num(g["dram"]), w["dram"], 0.02, "%s s%d: DRAM %g W" % (name, sk, w["dram"]))
        if "psys" in w:
            m = re.search(r"psys ([0-9.]+) W", g["stats"])
            res.near(float(m.group(1)) if m else None, w["psys"], 0.02,
                     "%s s%d: platform (psys) %g W in the card's text" % (name, sk, w["psys"]))
        if w.get("pj") == "n/a":
            res.check(g["pj"] == "n/a" and "DRAM 0.00 GB/s" in g["stats"],
                      "%s s%d: no DRAM byte moved: pJ/byte n/a, not a number" % (name, sk), g)
            continue
        res.near(num(g["pj"]), w["dram"] / tot[sk] * 1e3, 0.02, "%s s%d: DRAM %.0f pJ/byte "
                 "(%g W over %g GB/s)" % (name, sk, w["dram"] / tot[sk] * 1e3, w["dram"], tot[sk]))
        m = re.search(r"DRAM ([0-9.]+) GB/s", g["stats"])
        res.check(m is not None and num(g["pj"]) is not None and num(g["dram"]) and
                  abs(num(g["pj"]) - num(g["dram"]) / float(m.group(1)) * 1e3) <= 0.02 * num(g["pj"]),
                  "%s s%d: pJ/byte is the card's DRAM W over its DRAM GB/s" % (name, sk), g)


READ_LIM = """(() => { const l = document.getElementById('live'), m = l && l.textContent.match(/#([0-9]+)/);
  return { seq: m ? +m[1] : 0, sockets: [...document.querySelectorAll('section.socket')].map((sec, sk) => ({
    note: document.getElementById('s' + sk + '-lim').textContent,
    charts: [...sec.querySelectorAll('svg.chart:not(.xy)')].map((c) => [...c.querySelectorAll('rect.lim')]
      .map((r) => [+r.dataset.from, +r.dataset.to, r.querySelector('title').textContent])) })) }; })()"""


def limits(b, res, url, want):
    """The intervals in which a frequency limit was active, shaded on
    every time chart of their socket.  want: {"rd": [throttled phase's
    DRAM read GB/s, the other phase's], "ratio": the throttled share,
    "sockets": [true where the socket is throttled in that phase]}.  A
    sample's phase is read from its DRAM read rate in the API; a sample
    deep in a phase (every sample within 1.6 s, a throttle window and
    more, in the same phase) must be shaded in the throttled phase and
    must not be in the other (the decoy); an unthrottled socket has no
    shade at all."""
    got = b.wait("(() => { const r = %s; return r.seq && r.sockets.length === %d && r.sockets[0].charts.length && "
                 "r.sockets[0].charts[0].length ? r : null; })()" % (READ_LIM, len(want["sockets"])), 45)
    res.check(bool(got), "limits: the throttled socket's charts have shaded intervals", b.js(READ_LIM))
    if not got:
        return
    b.pump(1.0)
    got = b.js(READ_LIM)
    ring = api(url, "/api/v1/samples?deltas=0&limit=%d" % api(url, "/api/v1/status")["ring_capacity"])
    smp = [x for x in ring["samples"] if x["seq"] <= got["seq"] and not x.get("first")
           and x["sockets"][0].get("dram_read_bytes_per_second") is not None]
    def phase(x):
        v = x["sockets"][0]["dram_read_bytes_per_second"] * 1e-9
        for k, r in enumerate(want["rd"]):
            if abs(v - r) <= 0.02 * r:
                return k
        return None
    ph = [phase(x) for x in smp]
    deep = [[], []]
    for i, x in enumerate(smp):
        near = [ph[j] for j, y in enumerate(smp) if abs(y["time"] - x["time"]) <= 1.6]
        if ph[i] is not None and all(p == ph[i] for p in near):
            deep[ph[i]].append(x)
    print("# limits: %d samples to #%d, deep in the throttled phase %d, in the other %d; "
          "socket 0's shading: %s" % (len(smp), got["seq"], len(deep[0]), len(deep[1]),
                                       json.dumps(got["sockets"][0]["charts"][0][:6])))
    res.check(len(deep[0]) >= 8 and len(deep[1]) >= 8,
              "limits: the ring holds both phases (%d and %d samples deep in them)"
              % (len(deep[0]), len(deep[1])), [len(smp), ph])

    def covered(rects, x, part):
        a, z = x["time"] - x["interval_s"], x["time"]
        if part:        # its middle is inside a shade
            return any(r[0] <= (a + z) / 2 <= r[1] for r in rects)
        return any(r[0] < z - 0.01 and r[1] > a + 0.01 for r in rects)
    for sk, (lim, so) in enumerate(zip(want["sockets"], got["sockets"])):
        charts = so["charts"]
        res.check(len(charts) >= 3 and all(c == charts[0] for c in charts),
                  "limits s%d: every time chart of the socket has the same shading (%d charts)"
                  % (sk, len(charts)), charts)
        rects = charts[0] if charts else []
        if not lim:
            res.check(rects == [] and so["note"] == "",
                      "limits s%d: a socket never limited has no shade and no note (decoy: "
                      "another socket is)" % sk, so)
            continue
        # the intervals the kernel's reads (windows) the page has cover:
        # none before its first read, none the next read has not closed
        w = [e for x in smp for e in x["sockets"][sk].get("frequency_limited", [])
             if e["domain"] == "package"]
        due = [x for x in deep[0] if w and x["time"] - x["interval_s"] >= min(e["from"] for e in w)
               and x["time"] <= max(e["to"] for e in w)]
        hit = sum(covered(rects, x, True) for x in due)
        res.check(len(due) >= 8 and hit == len(due),
                  "limits s%d: the throttled phase's intervals are shaded (%d of %d)"
                  % (sk, hit, len(due)), [[x["seq"], x["time"]] for x in due if not covered(rects, x, True)])
        bad = [x["seq"] for x in deep[1] if covered(rects, x, False)]
        res.check(deep[1] and not bad,
                  "limits s%d: no interval of the unthrottled phase is shaded (decoy)" % sk,
                  [bad, rects])
        res.check(all(r[2].startswith("thermal (package) limit: ") for r in rects) and
                  "thermal (package)" in so["note"] and so["note"].startswith("Shaded:"),
                  "limits s%d: each shade's tooltip and the socket's note name the reason"
                  % sk, [so["note"], rects[:3]])
    # the API's windows: inside the throttled phase, limited for the
    # workload's share of their length
    wins = [e for x in smp for e in x["sockets"][0].get("frequency_limited", [])
            if e["domain"] == "package"]

    def inside(e, d):   # the samples the window overlaps: some, all in d
        o = [x for x in smp if x["time"] > e["from"] + 0.01 and x["time"] - x["interval_s"] < e["to"] - 0.01]
        return o and all(x in d for x in o)
    full = [e for e in wins if inside(e, deep[0])]
    # a window's ends are the reads' instants, each a little late on a
    # loaded machine; the windows of a run adjoin, so over the run only
    # its two ends are: 3 %
    res.check(len(full) >= 2 and all(0 < e["seconds"] < e["to"] - e["from"] for e in full) and
              abs(sum(e["seconds"] for e in full) / sum(e["to"] - e["from"] for e in full)
                  - want["ratio"]) <= 0.03 * want["ratio"],
              "limits: the API's package windows in the throttled phase are limited %g of "
              "their length, within 3 %% (%d windows)" % (want["ratio"], len(full)), full)
    none = [e for e in wins if inside(e, deep[1])]
    res.check(len(none) >= 2 and all(e["seconds"] == 0 for e in none),
              "limits: the API's windows in the unthrottled phase are 0 s (%d windows)" % len(none),
              none[:5])

def sampler_stalls(url):
    """How many times consecutive samples in the daemon's ring are more
    than 3 sampling intervals + 0.5 s apart (the page's rule for a gap)."""
    get = lambda path: json.load(urllib.request.urlopen(url.rstrip("/") + path, timeout=10))
    iv = get("/api/v1/status")["interval_ms"] / 1000
    t = [x["time"] for x in get("/api/v1/samples?deltas=0&limit=3600")["samples"]]
    return sum(1 for a, b in zip(t, t[1:]) if b - a > 3 * iv + 0.5)


def rdt_check(b, res, name, sk, e):
    """The resctrl table of socket sk: the workload groups, highest rate
    first, their rates and the share they explain.  The simulated tree is
    synced by another process on the simulated clock: on a loaded machine
    its syncs come late and unevenly, and a rate between two of the
    reader's passes is off by as much as a sync is late - for every group
    alike, unless a sync falls between two groups' reads of one pass.  So
    the ratios between groups are close (10 %%), the rates only near (50
    %%: a unit or scale error is 1000 %%), and the share must be what the
    page's own figures give.  e: {"groups": [[name, GB/s], ...],
    "share": percent}."""
    got = b.wait("(() => { const s = %s.sockets[%d]; return s && s.rdt.length === %d && "
                 "s.rdt.every((r) => !isNaN(r[1])) && s.rdt_note && "
                 "s.rdt_note.startsWith('The groups explain') ? s : null; })()"
                 % (READ_SOCKETS, sk, len(e["groups"])), 45)
    res.check(bool(got), "%s s%d: the resctrl table has %d workload groups and the share"
              % (name, sk, len(e["groups"])), b.js(READ_SOCKETS))
    if not got:
        return
    # the ratios from five passes (the page polls each interval; a pass
    # every 2 s): the median, so that two passes read across a sync of
    # the tree cannot decide it.  A sync rewrites every group's files one
    # by one; beside `stress-ng --io 2` the median of three passes read
    # 0.146 for 0.125, as if batch were read 0.34 s of traffic apart
    # from web in two of them
    reads = [got["rdt"]]
    deadline = time.monotonic() + 25
    while len(reads) < 5 and time.monotonic() < deadline:
        b.pump(0.2)
        s = b.js(READ_SOCKETS)["sockets"][sk]
        if len(s["rdt"]) == len(e["groups"]) and s["rdt"] != reads[-1]:
            reads.append(s["rdt"])
    names = [r[0] for r in got["rdt"]]
    res.check(names == [g[0] for g in e["groups"]],
              "%s s%d: resctrl groups, heaviest first: %s" % (name, sk, [g[0] for g in e["groups"]]),
              names)
    for i, ((gn, gbs), r) in enumerate(zip(e["groups"], got["rdt"])):
        res.near(r[1], gbs, 0.5, "%s s%d: resctrl group %s near %.2f GB/s" % (name, sk, gn, gbs))
        if i == 0:
            continue
        ratios = sorted(rd[i][1] / rd[0][1] for rd in reads
                        if len(rd) > i and rd[0][0] == e["groups"][0][0] and rd[0][1])
        res.near(ratios[len(ratios) // 2] if ratios else None, gbs / e["groups"][0][1], 0.1,
                 "%s s%d: %s at %.3f of %s's rate (median of %d passes)" %
                 (name, sk, gn, gbs / e["groups"][0][1], e["groups"][0][0], len(ratios)))
    m = re.search(r"explain ([0-9.]+) % .*\(([0-9.]+) of ([0-9.]+) GB/s\)", got["rdt_note"])
    res.check(bool(m), "%s s%d: the share note has its figures" % (name, sk), got["rdt_note"])
    if not m:
        return
    share, part, whole = float(m.group(1)), float(m.group(2)), float(m.group(3))
    res.near(part, sum(r[1] for r in got["rdt"]), 0.02,
             "%s s%d: the explained bytes are the groups' sum" % (name, sk))
    res.near(share, 100 * part / whole, 0.02,
             "%s s%d: the share is that sum over the DRAM bandwidth" % (name, sk))
    res.near(whole, got["tot"], 0.02,
             "%s s%d: ... the DRAM total of the socket's card" % (name, sk))
    res.near(share, e["share"], 0.5,
             "%s s%d: the groups explain near %.1f %% of the DRAM bandwidth" % (name, sk, e["share"]))


def stall(b, res, a):
    """Stops the sampler thread alone: /healthz turns 503, the banner
    says so, and goes away once the thread runs again."""
    try:
        resume = stop_thread(a.pid, "uncored-sample")
    except PermissionError as e:
        res.skip("a stalled sampler raises the banner",
                 "cannot stop the sampler thread here: %s" % e)
        return
    try:
        d = b.wait("(() => { const r = %s; return r.banner.includes('stalled') ? r : null; })()"
                   % READ, 20)
        print("# stalled: %s" % json.dumps(d))
        res.check(bool(d) and "stalled" in d["live"],
                  "a stalled sampler raises the banner", b.js(READ))
        if d:
            b.screenshot(a.screenshot.replace(".png", "-stalled.png"))
    finally:
        resume()
    d = b.wait("(() => { const r = %s; return r.banner.includes('stalled') ? null : r; })()"
               % READ, 20)
    res.check(bool(d), "the banner goes away when the sampler ticks again", b.js(READ))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--userdir", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--phases",
                    help="JSON list of {rd, wr, hit, clk} per phase")
    ap.add_argument("--hsx",
                    help="JSON list per socket of {rd, wr, hit, clk, qpi, "
                    "channels, ports}: only the hsx checks")
    ap.add_argument("--latency",
                    help="JSON list per socket of [[GB/s, ns], ...], the "
                    "workload's bandwidth-latency points: only those checks")
    ap.add_argument("--power", nargs=2, metavar=("NAME", "JSON"),
                    help="a platform's name and per socket {pkg, dram, pj, "
                    "psys, tot}: only the power card's checks")
    ap.add_argument("--limits",
                    help="JSON {rd: [GB/s of the throttled phase, of the "
                    "other], ratio, sockets: [throttled?]}: only the checks "
                    "of the frequency limits' shading")
    ap.add_argument("--sockets", nargs=2, metavar=("NAME", "JSON"),
                    help="a platform's name and {about, sockets: [{rd, wr, "
                    "hit, clk, channels, links, upi}]}: only those checks")
    a = ap.parse_args()
    res = Results(a.results)
    host = urlsplit(a.url).netloc
    b = Browser(a.chromium, a.userdir, 1280, 1000)
    if a.hsx:
        # through a reverse proxy that mounts the daemon under a path
        url = proxy(a.url.rstrip("/"), "/some/path/uncored/")
        host = urlsplit(url).netloc
        try:
            b.open(url)
            hsx(b, res, json.loads(a.hsx))
            b.screenshot(a.screenshot)
            res.check(not b.errors, "hsx: no console errors", "\n".join(b.errors))
            inside = [u for u in b.requests
                      if urlsplit(u).netloc == host and urlsplit(u).path.startswith("/some/path/uncored/")]
            res.check(len(b.requests) > 3 and inside == b.requests,
                      "behind a reverse proxy under /some/path/uncored/, every request stays under it",
                      b.requests)
        finally:
            b.close()
        return 0
    if a.latency:
        try:
            b.open(a.url)
            latency(b, res, a.url, json.loads(a.latency))
            b.screenshot(a.screenshot)
            res.check(not b.errors, "latency: no console errors", "\n".join(b.errors))
        finally:
            b.close()
        return 0
    if a.limits:
        try:
            b.open(a.url)
            limits(b, res, a.url, json.loads(a.limits))
            b.screenshot(a.screenshot)
            res.check(not b.errors, "limits: no console errors", "\n".join(b.errors))
        finally:
            b.close()
        return 0
    if a.power:
        try:
            b.open(a.url)
            want = json.loads(a.power[1])
            power(b, res, a.power[0], a.url, want,
                  [x.get("tot") if isinstance(x, dict) else None for x in want])
            b.screenshot(a.screenshot)
            res.check(not b.errors, "%s: no console errors" % a.power[0], "\n".join(b.errors))
        finally:
            b.close()
        return 0
    if a.sockets:
        try:
            b.open(a.url)
            want = json.loads(a.sockets[1])
            sockets(b, res, a.sockets[0], want)
            lat_absent(b, res, a.sockets[0], a.url)
            power(b, res, a.sockets[0], a.url,
                  [x.get("pwr", "absent") for x in want["sockets"]],
                  [x.get("tot") for x in want["sockets"]])
            b.screenshot(a.screenshot)
            res.check(not b.errors, "%s: no console errors" % a.sockets[0],
                      "\n".join(b.errors))
        finally:
            b.close()
        return 0
    phases = json.loads(a.phases)
    try:
        b.open(a.url)
        b.wait("document.readyState === 'complete' && "
               "!!document.querySelector('#s0-rd svg.chart')", 30)
        d = b.js(READ)
        print("# first view: %s" % json.dumps(d))
        res.check(d["crd"] is not None and d["crd"]["points"] >= 3,
                  "back-filled chart has points", d)

        # the values of each phase, then the change to the other one
        seen = []
        deadline = time.monotonic() + 45
        i = None
        while time.monotonic() < deadline and len(seen) < 2:
            d = b.js(READ)
            for k, ph in enumerate(phases):
                if (d["rd"] is not None and abs(d["rd"] - ph["rd"]) <= 0.02 * ph["rd"]
                        and d["hit"] is not None and abs(d["hit"] - ph["hit"]) <= 0.15
                        and k != i):
                    i = k
                    seen.append((k, d))
            b.pump(0.1)
        print("# phases seen: %s" % [k for k, _ in seen])
        res.check(len(seen) >= 2, "a phase change shows up on the page",
                  "saw phases %s" % [k for k, _ in seen])
        for k, d in seen[:2]:
            ph = phases[k]
            res.near(d["rd"], ph["rd"], 0.02, "phase %d: DRAM read %.2f GB/s" % (k, ph["rd"]))
            res.near(d["wr"], ph["wr"], 0.02, "phase %d: DRAM write %.2f GB/s" % (k, ph["wr"]))
            res.near(d["hit"], ph["hit"], 0.002, "phase %d: LLC hit %.1f %%" % (k, ph["hit"]))
            res.near(d["clk"], ph["clk"], 0.02, "phase %d: uncore %.2f GHz" % (k, ph["clk"]))
        d = b.js(READ)
        lo = min(p["rd"] for p in phases)
        hi = max(p["rd"] for p in phases)
        m = re.search(r"min ([0-9.]+) .* max ([0-9.]+) GB/s", d["crd"]["stats"])
        res.check(m and abs(float(m.group(1)) - lo) <= 0.02 * lo and
                  abs(float(m.group(2)) - hi) <= 0.02 * hi,
                  "the chart's text summary spans both phases", d["crd"]["stats"])
        res.check(d["crd"]["points"] > seen[0][1]["crd"]["points"] if seen else False,
                  "the chart gains points as samples arrive", d["crd"])
        # The page breaks a line where ticks are more than 3 intervals
        # + 0.5 s apart: a stalled sampler, which a loaded machine can
        # cause.  Those stalls are read from the ring itself; any other
        # break would be a gap the page invented.
        stalls = sampler_stalls(a.url)
        res.check(d["crd"]["runs"] <= 1 + stalls,
                  "no gap while every sample is valid (the ring shows %d stall%s of "
                  "the sampler)" % (stalls, "" if stalls == 1 else "s"), d["crd"])
        res.check(d["banner"] == "", "no banner while healthy", d["banner"])
        res.check("live" in d["live"], "the status line says live", d["live"])
        ax = b.js("""(() => { const c = document.querySelector('#s0-rd svg.chart');
          c.focus(); return [c.getAttribute('role'), c.getAttribute('aria-label'),
          document.activeElement === c, document.querySelector('#s0-rd .num').textContent]; })()""")
        res.check(ax[0] == "img" and ax[2] and ax[1].startswith("DRAM read, socket 0: " + ax[3] + " GB/s now;"),
                  "a chart takes keyboard focus and reads as text: " + ax[1].split(";")[0], ax)
        b.screenshot(a.screenshot)
        res.check(os.path.getsize(a.screenshot) > 10000, "screenshot saved")

        # phone width, dark mode
        b.call("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        b.call("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": "dark"}]})
        b.pump(1.0)
        w = b.js("[document.documentElement.scrollWidth, innerWidth, "
                 "getComputedStyle(document.body).backgroundColor]")
        res.check(w[0] <= w[1], "no horizontal scrolling at phone width (390 px)", w)
        res.check(w[2] == "rgb(13, 17, 23)", "dark background under prefers-color-scheme: dark", w)
        b.screenshot(a.screenshot.replace(".png", "-phone-dark.png"))
        b.call("Emulation.clearDeviceMetricsOverride")
        b.call("Emulation.setEmulatedMedia", {"features": []})

        res.check(not b.errors, "no console errors", "\n".join(b.errors))
        foreign = [u for u in b.requests if urlsplit(u).netloc != host]
        res.check(len(b.requests) > 5 and not foreign,
                  "every request goes to the daemon (%d requests)" % len(b.requests),
                  foreign or b.requests)
        # a request elsewhere is refused by the policy ...
        b.js("fetch('http://192.0.2.1/x').catch(() => 0), 1")
        b.pump(0.5)
        res.check(any("Content Security Policy" in e and "192.0.2.1" in e for e in b.errors),
                  "the policy refuses a request to another host", b.errors)
        b.errors = []

        # a sample marked invalid (the workload's eio fault) is a gap and
        # raises the banner
        d = b.wait("(() => { const r = %s; return r.banner.includes('invalid') && "
                   "r.chit.runs >= 2 ? r : null; })()" % READ, 90)
        print("# after the fault: %s" % json.dumps(d))
        res.check(bool(d), "invalid samples: banner, and a gap in the chart", b.js(READ))

        # a stuck counter: DRAM write reads exactly 0 while the rest goes on
        d = b.wait("(() => { const r = %s; return r.banner.includes('DRAM write on socket 0 "
                   "has read exactly 0') && r.wr === 0 ? r : null; })()" % READ, 60)
        print("# stuck: %s" % json.dumps(d))
        res.check(bool(d), "a stuck DRAM write counter raises the banner", b.js(READ))

        # a stalled sampler: healthz turns 503 and the banner says so
        stall(b, res, a)

        # ... and the request check above does see one: from a page
        # without the policy, the same request shows up as foreign
        b.call("Page.navigate", {"url": "about:blank"})
        b.pump(0.5)
        n = len(b.requests)
        b.js("fetch('http://192.0.2.1/x').catch(() => 0), 1")
        b.pump(0.5)
        foreign = [u for u in b.requests[n:] if urlsplit(u).netloc != host]
        res.check(foreign == ["http://192.0.2.1/x"],
                  "the request check sees a request to another host", b.requests[n:])
    finally:
        b.close()


if __name__ == "__main__":
    sys.exit(main())
