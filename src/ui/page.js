/*
 * page.js - the live page at / (src/ui/index.html).
 *
 * Back-fills every socket's charts from the ring (api/v1/samples with
 * deltas=0: the derived values of each sample), then polls ?since=SEQ
 * once per sampling interval together with api/v1/status and healthz.
 * Every URL is relative, so the page works on any listener and under any
 * path a reverse proxy mounts it at.  A sample marked invalid, a missing
 * sequence number or a stretch without ticks is drawn as a gap, never as
 * zero.  Plain DOM and SVG; no framework, nothing from another host.
 */
'use strict';
(function () {
	const SVGNS = 'http://www.w3.org/2000/svg';
	/* k: factor from the API's base unit to the unit shown */
	const METRICS = [
		{ key: 'dram_read_bytes_per_second', id: 'rd', title: 'DRAM read', unit: 'GB/s', k: 1e-9 },
		{ key: 'dram_write_bytes_per_second', id: 'wr', title: 'DRAM write', unit: 'GB/s', k: 1e-9 },
		/* reads and writes together: every platform with DRAM figures
		 * (zen3 has only this one: its data fabric does not split them) */
		{ key: 'dram_bytes_per_second', id: 'tot', title: 'DRAM total', unit: 'GB/s', k: 1e-9 },
		{ key: 'llc_hit_ratio', id: 'hit', title: 'LLC hit', unit: '%', k: 100, max: 100 },
		{ key: 'clock_hertz', id: 'clk', title: 'Uncore clock', unit: 'GHz', k: 1e-9 },
	];
	const QPI = { key: 'qpi', id: 'qpi', title: 'QPI data sent', unit: 'GB/s', k: 1e-9 };
	/* skx, icx, spr: UPI links (data only), drawn in QPI's colour */
	const UPI = { key: 'upi', id: 'upi', cls: 'qpi', title: 'UPI data sent', unit: 'GB/s', k: 1e-9 };
	/* the bandwidth-latency plot (issue 41): DRAM GB/s (x) against the
	 * mean read latency of each interval (y; doc/metrics.md "Memory
	 * read latency"), one point per sample of the ring */
	const LAT = { key: 'memory_read_latency_all_seconds', id: 'lat', title: 'Read latency against DRAM bandwidth',
		unit: 'ns', k: 1e9 };
	const LATX = { key: 'dram_bytes_per_second', unit: 'GB/s', k: 1e-9 };
	const FLIGHT = 'memory_reads_in_flight_all';
	const CHUNK = 600;		/* samples per back-fill request */

	let interval = 1;		/* s */
	let cap = 3600;			/* ring capacity */
	let lastSeq = 0;
	let status = null, health = null, failure = null;
	let samples = [];		/* oldest first; {gap: true} between runs */
	let sockets = null;		/* per socket: its elements */
	let drawQueued = false;
	/* per socket: the kernel's uncore clock limits (api/v1/metrics
	 * clock_limits, where it has intel_uncore_frequency), or null */
	let limits = null;
	/* per socket: resctrl from api/v1/metrics ({groups, sum}), or null */
	let rdt = null;
	const RDT_TOP = 8;		/* workload groups shown per socket */
	/* energy (api/v1/status "energy"): per socket, the last reads of
	 * its RAPL domains, oldest first: {dom: [read_s, read_time, J]} */
	let energy = null, eHist = [];

	function $(id) { return document.getElementById(id); }

	function el(tag, attrs, text) {
		const e = document.createElement(tag);
		for (const k in attrs || {})
			e.setAttribute(k, attrs[k]);
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function sv(tag, attrs, parent) {
		const e = document.createElementNS(SVGNS, tag);
		for (const k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	/* A value in its display unit, as text. */
	function fmt(v, m) {
		if (v === null || !isFinite(v))
			return '\u2014';
		if (m.unit === '%')
			return v.toFixed(1);
		return v.toFixed(Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
	}

	/* "-40 s", "-2.5 min", "-1.5 h": s seconds ago, in the unit that
	 * suits a window of win seconds (one unit per axis) */
	function ago(s, win) {
		if (s < 0.5)
			return 'now';
		const u = win < 180 ? [1, ' s'] : win < 10800 ? [60, ' min'] : [3600, ' h'];
		const v = s / u[0];
		return '\u2212' + String(Number(v.toFixed(v < 10 && u[0] > 1 ? 1 : 0))) + u[1];
	}

	function clock(t) {
		return new Date(t * 1000).toLocaleTimeString();
	}

	function span(s) {
		if (s < 90)
			return Math.round(s) + ' s';
		if (s < 5400)
			return Math.round(s / 60) + ' min';
		return (s / 3600).toFixed(1) + ' h';
	}

	async function get(url) {
		const r = await fetch(url, { cache: 'no-store', headers: { Accept: 'application/json' } });
		let body = null;
		try {
			body = await r.json();
		} catch (e) {
			body = null;
		}
		return { code: r.status, body: body };
	}

	async function getJSON(url) {
		const r = await get(url);
		if (r.code !== 200 || !r.body) {
			const msg = r.body && r.body.error ? r.body.error.message : 'HTTP ' + r.code;
			throw new Error(url.split('?')[0] + ': ' + msg);
		}
		return r.body;
	}

	/* Appends the samples of one api/v1/samples answer. */
	function add(resp) {
		if (resp.head < lastSeq) {	/* a new program: a new ring */
			lastSeq = 0;
			samples.push({ gap: true });
		}
		for (const s of resp.samples) {
			if (lastSeq && s.seq !== lastSeq + 1)
				samples.push({ gap: true });
			samples.push(s);
			lastSeq = s.seq;
		}
		let real = 0;
		for (const s of samples)
			real += s.gap ? 0 : 1;
		while (real > cap || (samples.length && samples[0].gap)) {
			real -= samples[0].gap ? 0 : 1;
			samples.shift();
		}
	}

	/* The value of metric m on socket sk in sample s (display unit), or null. */
	function value(s, sk, m) {
		if (s.gap || s.first || !s.sockets || !s.sockets[sk])
			return null;
		const so = s.sockets[sk];
		let v;
		if (m.key === 'qpi' || m.key === 'upi') {
			if (!so.ports)
				return null;
			v = 0;
			for (const p of so.ports) {
				const x = p[m.key + '_data_bytes_per_second'];
				if (x === null || x === undefined)
					return null;
				v += x;
			}
		} else {
			v = so[m.key];
		}
		return v === null || v === undefined ? null : v * m.k;
	}

	function newest() {
		for (let i = samples.length - 1; i >= 0; i--)
			if (!samples[i].gap)
				return samples[i];
		return null;
	}

	/* ---- building the page ------------------------------------------ */

	function card(parent, sk, m) {
		const id = 's' + sk + '-' + m.id;
		const c = el('section', { class: 'card m-' + (m.cls || m.id), id: id, 'aria-labelledby': id + '-h' });
		c.appendChild(el('h3', { id: id + '-h' }, m.title));
		const now = el('p', { class: 'now' });
		const num = el('span', { class: 'num' }, '\u2014');
		now.appendChild(num);
		now.appendChild(el('span', { class: 'unit' }, m.unit));
		c.appendChild(now);
		const stats = el('p', { class: 'stats' }, '');
		c.appendChild(stats);
		const chart = sv('svg', { class: 'chart', role: 'img', tabindex: '0',
			'data-points': '0', 'aria-label': m.title });
		c.appendChild(chart);
		parent.appendChild(c);
		return { m: m, num: num, stats: stats, chart: chart };
	}

	function table(parent, caption, cols) {
		const t = el('table');
		t.appendChild(el('caption', {}, caption));
		const hr = el('tr');
		for (const c of cols)
			hr.appendChild(el('th', { scope: 'col' }, c));
		const head = el('thead');
		head.appendChild(hr);
		t.appendChild(head);
		const body = el('tbody');
		t.appendChild(body);
		const wrap = el('section', { class: 'card' });
		wrap.appendChild(t);
		parent.appendChild(wrap);
		return body;
	}

	/* The bandwidth-latency card of socket sk: a plot where the family
	 * is served, else what it would need and why it is not there. */
	function latCard(parent, sk, so) {
		if (LAT.key in so && LATX.key in so) {
			const c = card(parent, sk, LAT);
			c.chart.classList.add('xy');
			return c;
		}
		const id = 's' + sk + '-lat';
		const c = el('section', { class: 'card m-lat', id: id, 'aria-labelledby': id + '-h' });
		c.appendChild(el('h3', { id: id + '-h' }, LAT.title));
		c.appendChild(el('p', { class: 'stats absent' }, !(LATX.key in so) ?
			'No DRAM bandwidth on this platform to plot the read latency against.' :
			'Read latency is not served here: the platform has no read-latency events in uncored, ' +
			'they do not fit beside the LLC events ([baseline] memory_latency = auto; yes counts them in turns), ' +
			'or memory_latency = no (doc/metrics.md, \u201cMemory read latency\u201d).'));
		parent.appendChild(c);
		return null;
	}

	function build(s) {
		const root = $('sockets');
		root.textContent = '';
		sockets = [];
		s.sockets.forEach(function (so, sk) {
			const sec = el('section', { class: 'socket', id: 'socket' + sk, 'aria-labelledby': 'socket' + sk + '-h' });
			sec.appendChild(el('h2', { id: 'socket' + sk + '-h' }, 'Socket ' + sk));
			const ui = { lim: el('p', { class: 'stats', id: 's' + sk + '-lim' }) };
			sec.appendChild(ui.lim);
			const grid = el('div', { class: 'grid' });
			sec.appendChild(grid);
			/* a card for each headline family the platform has: zen4
			 * has no uncore clock, and says so instead of drawing an
			 * empty chart */
			const has = METRICS.filter(function (m) { return m.key in so; });
			ui.cards = has.map(function (m) { return card(grid, sk, m); });
			const none = METRICS.filter(function (m) { return !(m.key in so); });
			if (none.length)
				sec.appendChild(el('p', { class: 'stats none' }, 'Not on this platform: ' +
					none.map(function (m) { return m.title; }).join(', ') + '.'));
			if (so.channels || so.ports) {
				const g2 = el('div', { class: 'grid' });
				sec.appendChild(g2);
				if (so.channels)
					ui.channels = table(g2, 'Memory channels, socket ' + sk + ' (GB/s)', ['Channel', 'Read', 'Write', '']);
				ui.upi = !!(so.ports && so.ports.length && 'upi_data_bytes_per_second' in so.ports[0]);
				if (so.ports && ui.upi) {
					ui.ports = table(g2, 'UPI links, socket ' + sk + ' (GB/s sent)', ['Link', 'Data', '']);
					ui.cards.push(card(g2, sk, UPI));
				} else if (so.ports) {
					ui.ports = table(g2, 'QPI ports, socket ' + sk + ' (GB/s sent)', ['Port', 'Data', 'Link', '']);
					ui.cards.push(card(g2, sk, QPI));
				}
			}
			/* I/O stacks (skx, icx, spr): only where the platform has
			 * them; the out column only where it counts outbound */
			if (so.stacks && so.stacks.length) {
				const g3 = el('div', { class: 'grid' });
				sec.appendChild(g3);
				ui.ioOut = 'io_out_bytes_per_second' in so.stacks[0];
				ui.stacks = table(g3, 'I/O stacks, socket ' + sk + ' (GB/s; in: devices writing memory' +
					(ui.ioOut ? ', out: reading it)' : ')'),
					ui.ioOut ? ['Stack', 'In', 'Out', ''] : ['Stack', 'In', '']);
			}
			const g4 = el('div', { class: 'grid' });
			sec.appendChild(g4);
			ui.lat = latCard(g4, sk, so);
			ui.pwr = pwrCard(g4, sk);
			root.appendChild(sec);
			sockets.push(ui);
		});
	}

	/* ---- drawing ---------------------------------------------------- */

	function niceStep(x) {
		const p = Math.pow(10, Math.floor(Math.log10(x)));
		const f = x / p;
		return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
	}

	/* Draws pts ([t, v|null] oldest first) into svg, bands ([from, to,
	 * what, s]) shaded under it; returns how many points have a value. */
	function chart(svg, pts, m, tnow, lines, bands) {
		const [W, H] = frame(svg), L = 40, R = 8, T = 18, B = 18, w = W - L - R, h = H - T - B;
		let vmax = 0, n = 0;
		for (const p of pts)
			if (p[1] !== null) {
				vmax = Math.max(vmax, p[1]);
				n++;
			}
		for (const l of lines)
			vmax = Math.max(vmax, l.v);
		const [step, top] = m.max ? [m.max / 4, m.max] : scale(vmax);
		const tmin = Math.min(pts.length ? pts[0][0] : tnow, tnow - 60 * interval);
		const x = function (t) { return L + (t - tmin) / Math.max(tnow - tmin, 1e-9) * w; };
		const y = function (v) { return T + h - v / top * h; };
		yAxis(svg, L, w, y, [step, top], m.unit);
		[0, 0.5, 1].forEach(function (f) {
			const t = sv('text', { class: 'axis', x: L + f * w, y: H - 4,
				'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle' }, svg);
			t.textContent = ago((tnow - tmin) * (1 - f), tnow - tmin);
		});
		for (const b of bands) {
			const a = Math.max(b[0], tmin);
			if (b[1] > a)
				sv('title', {}, sv('rect', { class: 'lim', x: x(a), y: T, width: Math.max(x(b[1]) - x(a), 1),
					height: h, 'data-from': b[0], 'data-to': b[1] }, svg)).textContent =
					b[2] + ' limit: ' + b[3].toFixed(2) + ' s of ' + clock(b[0]) + '\u2013' + clock(b[1]);
		}
		/* the kernel's limits: dashed levels under the series */
		for (const l of lines)
			sv('line', { class: 'limit ' + l.cls, x1: L, x2: L + w, y1: y(l.v), y2: y(l.v) }, svg);
		/* runs of consecutive values; a gap breaks a run */
		const runs = [];
		let run = null, prevT = null;
		for (const p of pts) {
			if (p[1] === null || (prevT !== null && p[0] - prevT > 3 * interval + 0.5))
				run = null;
			if (p[1] !== null) {
				if (!run)
					runs.push(run = []);
				run.push(p);
			}
			prevT = p[0] === null ? prevT : p[0];
		}
		for (const r of runs) {
			/* at most the lowest and highest value per pixel column:
			 * a full ring is thousands of samples on a few hundred
			 * pixels */
			let d = '', col = null, lo = null, hi = null;
			const line = function (px, v) {
				d += (d ? 'L' : 'M') + px + ' ' + y(v).toFixed(1);
			};
			const flush = function () {
				if (col === null)
					return;
				const a = lo[0] <= hi[0] ? lo : hi, b = a === lo ? hi : lo;
				line(col, a[1]);
				if (b !== a)
					line(col, b[1]);
			};
			for (const p of r) {
				const px = Math.round(x(p[0]));
				if (px !== col) {
					flush();
					col = px;
					lo = hi = p;
				} else if (p[1] < lo[1]) {
					lo = p;
				} else if (p[1] > hi[1]) {
					hi = p;
				}
			}
			flush();
			if (r.length === 1)
				d += 'h1.5';
			const a = d + 'L' + x(r[r.length - 1][0]).toFixed(1) + ' ' + y(0) +
				'L' + x(r[0][0]).toFixed(1) + ' ' + y(0) + 'Z';
			sv('path', { class: 'area ' + (m.cls || m.id), d: a }, svg);
			sv('path', { class: 'series ' + (m.cls || m.id), d: d }, svg);
		}
		const last = pts.length ? pts[pts.length - 1] : null;
		if (last && last[1] !== null)
			sv('circle', { class: 'dot ' + (m.cls || m.id), cx: x(last[0]), cy: y(last[1]), r: 3 }, svg);
		svg.setAttribute('data-points', String(n));
		svg.setAttribute('data-runs', String(runs.length));
		return n;
	}

	/* The intervals in which a limit held socket sk's frequency back
	 * (the samples' frequency_limited, seconds > 0): [from, to, what,
	 * seconds], a reason's adjoining intervals merged. */
	function limited(sk) {
		const r = [], open = {};
		for (const s of samples)
			for (const e of !s.gap && s.sockets[sk] && s.sockets[sk].frequency_limited || []) {
				const a = e.from || s.time - s.interval_s, w = e.reason + ' (' + e.domain + ')', l = open[w];
				if (!(e.seconds > 0))
					continue;
				if (l && a - l[1] < interval / 10) {
					l[1] = e.to || s.time;
					l[3] += e.seconds;
				} else {
					r.push(open[w] = [a, e.to || s.time, w, e.seconds]);
				}
			}
		return r;
	}

	function drawCard(c, sk, tnow, bands) {
		const m = c.m;
		const pts = [];
		let lo = Infinity, hi = -Infinity, sum = 0, n = 0;
		for (const s of samples) {
			const v = value(s, sk, m);
			pts.push([s.gap ? null : s.time, v]);
			if (v !== null) {
				lo = Math.min(lo, v);
				hi = Math.max(hi, v);
				sum += v;
				n++;
			}
		}
		/* a gap marker takes the time of what follows it */
		for (let i = pts.length - 2; i >= 0; i--)
			if (pts[i][0] === null)
				pts[i][0] = pts[i + 1][0];
		const cur = newest() ? value(newest(), sk, m) : null;
		c.num.textContent = fmt(cur, m);
		const win = pts.length ? tnow - pts[0][0] : 0;
		let stats = n ? 'min ' + fmt(lo, m) + ' \u00b7 avg ' + fmt(sum / n, m) +
			' \u00b7 max ' + fmt(hi, m) + ' ' + m.unit + ' over ' + span(win) : 'no valid sample yet';
		/* the uncore clock against the kernel's limits: the socket's
		 * lowest min and highest max over its dies */
		const lim = m.id === 'clk' && limits && limits[sk] ? limits[sk] : null;
		const lines = [];
		if (lim) {
			const lmin = Math.min.apply(null, lim.map(function (d) { return 'min_hz' in d ? d.min_hz : Infinity; }));
			const lmax = Math.max.apply(null, lim.map(function (d) { return 'max_hz' in d ? d.max_hz : -Infinity; }));
			if (isFinite(lmin))
				lines.push({ v: lmin * m.k, cls: 'min' });
			if (isFinite(lmax))
				lines.push({ v: lmax * m.k, cls: 'max' });
			if (lines.length)
				stats += ' \u00b7 kernel limits ' + (isFinite(lmin) ? fmt(lmin * m.k, m) : '?') + '\u2013' +
					(isFinite(lmax) ? fmt(lmax * m.k, m) : '?') + ' ' + m.unit;
			c.chart.setAttribute('data-limit-min', isFinite(lmin) ? String(lmin) : '');
			c.chart.setAttribute('data-limit-max', isFinite(lmax) ? String(lmax) : '');
		}
		c.stats.textContent = stats;
		chart(c.chart, pts.filter(function (p) { return p[0] !== null; }), m, tnow, lines, bands);
		c.chart.setAttribute('aria-label', m.title + ', socket ' + sk + ': ' +
			(cur === null ? 'no current value' : fmt(cur, m) + ' ' + m.unit + ' now') + '; ' + stats);
	}

	/* Empties svg for a drawing at its size: [width, height]. */
	function frame(svg) {
		const W = Math.max(svg.clientWidth, 200), H = Math.max(svg.clientHeight, 100);
		svg.textContent = '';
		svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
		return [W, H];
	}

	/* Grid lines and labels of 0..top by step (st: [step, top]) across
	 * w from L, y(v) their height, the unit above. */
	function yAxis(svg, L, w, y, st, unit) {
		for (let v = 0; v <= st[1] + st[0] / 2; v += st[0]) {
			sv('line', { class: 'gridline', x1: L, x2: L + w, y1: y(v), y2: y(v) }, svg);
			sv('text', { class: 'axis', x: L - 5, y: y(v) + 4, 'text-anchor': 'end' }, svg)
				.textContent = String(Number(v.toPrecision(6)));
		}
		sv('text', { class: 'axis', x: L - 5, y: 10, 'text-anchor': 'end' }, svg).textContent = unit;
	}

	/* Axis ticks of 0..top for values up to vmax: [step, top]. */
	function scale(vmax) {
		const v = Math.max(vmax * 1.1, 1e-3);
		const step = niceStep(v / 5);
		return [step, step * Math.ceil(v / step)];
	}

	/* The bandwidth-latency plot of socket sk: every sample of the ring
	 * with both values is a point (DRAM GB/s, read latency ns), the
	 * last minute's darker, the newest circled.  A point per pixel is
	 * enough: a full ring is thousands of samples. */
	function drawLat(c, sk) {
		const svg = c.chart;
		const [W, H] = frame(svg), L = 40, R = 8, T = 18, B = 30, w = W - L - R, h = H - T - B;
		const pts = [];
		let cur = null;
		for (const s of samples) {
			const bx = value(s, sk, LATX), ly = value(s, sk, LAT);
			if (bx === null || ly === null)
				continue;
			const f = s.sockets[sk][FLIGHT];
			pts.push({ x: bx, y: ly, t: s.time, seq: s.seq, f: f === undefined ? null : f });
		}
		const s = newest();
		if (s && pts.length && pts[pts.length - 1].seq === s.seq)
			cur = pts[pts.length - 1];
		let xmax = 0, ymax = 0, ylo = Infinity;
		for (const p of pts) {
			xmax = Math.max(xmax, p.x);
			ymax = Math.max(ymax, p.y);
			ylo = Math.min(ylo, p.y);
		}
		const sx = scale(xmax), sy = scale(ymax);
		const x = function (v) { return L + v / sx[1] * w; };
		const y = function (v) { return T + h - v / sy[1] * h; };
		yAxis(svg, L, w, y, sy, LAT.unit);
		for (let v = 0; v <= sx[1] + sx[0] / 2; v += sx[0])
			sv('text', { class: 'axis', x: x(v), y: H - 16, 'text-anchor': 'middle' }, svg)
				.textContent = String(Number(v.toPrecision(6)));
		sv('text', { class: 'axis', x: L + w, y: H - 3, 'text-anchor': 'end' }, svg).textContent =
			'DRAM ' + LATX.unit;
		/* one path of zero-length round-capped segments per age */
		const seen = {};
		const d = ['', ''];
		const tnew = s ? s.time : 0;
		for (const p of pts) {
			const px = Math.round(x(p.x)), py = Math.round(y(p.y)), k = px + ',' + py;
			const recent = tnew - p.t <= Math.max(60, 60 * interval) ? 1 : 0;
			if (seen[k] !== undefined && seen[k] >= recent)
				continue;
			seen[k] = recent;
			d[recent] += 'M' + px + ' ' + py + 'h0';
		}
		if (d[0])
			sv('path', { class: 'pts old', d: d[0] }, svg);
		if (d[1])
			sv('path', { class: 'pts', d: d[1] }, svg);
		if (cur) {
			const m = sv('circle', { class: 'cur', cx: x(cur.x), cy: y(cur.y), r: 5 }, svg);
			m.setAttribute('data-seq', String(cur.seq));
			m.setAttribute('data-gbs', String(cur.x));
			m.setAttribute('data-ns', String(cur.y));
		}
		svg.setAttribute('data-points', String(pts.length));
		c.num.textContent = fmt(cur ? cur.y : null, LAT);
		const win = pts.length && s ? s.time - pts[0].t : 0;
		const stats = pts.length ? (cur ? 'at ' + fmt(cur.x, LATX) + ' GB/s' +
			(cur.f !== null ? ', ' + fmt(cur.f, LAT) + ' reads in flight' : '') + ' \u00b7 ' : '') +
			'lowest ' + fmt(ylo, LAT) + ', highest ' + fmt(ymax, LAT) + ' ns over ' +
			pts.length + ' intervals (' + span(win) + ')' : 'no interval with reads yet';
		c.stats.textContent = stats;
		svg.setAttribute('aria-label', 'Read latency against DRAM bandwidth, socket ' + sk + ': ' +
			(cur ? fmt(cur.y, LAT) + ' ns now' : 'no current value') + '; ' + stats);
	}

	/* ---- power (issue 43): W per RAPL domain, DRAM pJ per byte ----- */

	function pwrCard(parent, sk) {
		const id = 's' + sk + '-pwr';
		const c = el('section', { class: 'card m-pwr', id: id });
		c.appendChild(el('h3', {}, 'Power'));
		const ui = { ps: [] };
		for (const k of [['pkg', 'W package'], ['dram', 'W DRAM'], ['pj', 'pJ/byte DRAM']]) {
			const p = el('p', { class: 'now' });
			ui.ps.push(p);
			p.appendChild(ui[k[0]] = el('span', { class: 'num', id: id + '-' + k[0] }, '\u2014'));
			p.appendChild(el('span', { class: 'unit' }, k[1]));
			c.appendChild(p);
		}
		c.appendChild(ui.stats = el('p', { class: 'stats' }));
		parent.appendChild(c);
		return ui;
	}

	/* Keeps each socket's last reads: {domain: [read_s, read_time, J]}. */
	function addEnergy(e) {
		energy = e || null;
		for (const d of e && e.domains || []) {
			if (!('joules' in d))
				continue;
			const h = eHist[d.socket] || (eHist[d.socket] = []);
			let l = h[h.length - 1];
			if (!l || (d.domain in l && l[d.domain][0] !== d.read_s))
				h.push(l = {});
			l[d.domain] = [d.read_s, d.read_time, d.joules];
			if (h.length > 16)
				h.shift();
		}
	}

	/* Socket sk's joules over its newest two reads a sampling interval
	 * apart; pJ/byte: the DRAM joules over the DRAM bytes of the samples
	 * that ended between those reads. */
	function drawPwr(ui, sk, s) {
		const set = function (k, v, d) { ui[k].textContent = v === null ? '\u2014' : v.toFixed(d); };
		const no = !energy || !energy.present;
		for (const p of ui.ps)
			p.hidden = no;
		if (no) {	/* absent, and why: never 0 W */
			ui.stats.textContent = 'Energy is not served here: ' + (energy ? energy.absent :
				'no energy monitor') + ' (doc/metrics.md, \u201cEnergy\u201d).';
			return;
		}
		const h = eHist[sk] || [], b = h[h.length - 1];
		let a = null;
		for (let i = h.length - 2; i >= 0; i--)
			if ((a = h[i]).package && b.package && b.package[0] - a.package[0] >= interval * 0.9)
				break;
		/* no read for 3 intervals: the last figures are not now's */
		const old = !a || !b.package || !a.package || !s ||
			s.time - b.package[1] > 3 * Math.max(interval, energy.interval_ms / 1000) + 1;
		const w = function (d) {
			return !old && a[d] && b[d] && b[d][0] > a[d][0] ? (b[d][2] - a[d][2]) / (b[d][0] - a[d][0]) : null;
		};
		const dr = w('dram'), ps = w('psys');
		let by = 0, secs = 0;
		for (const x of dr === null ? [] : samples) {
			const v = value(x, sk, LATX);	/* GB/s */
			if (v !== null && x.time > a.dram[1] && x.time <= b.dram[1]) {
				by += v * x.counted_s;
				secs += x.counted_s;
			}
		}
		const bps = secs ? by / secs : null;
		set('pkg', w('package'), 1);
		set('dram', dr, 1);
		if (bps === 0)
			ui.pj.textContent = 'n/a';
		else
			set('pj', bps ? dr / bps * 1e3 : null, 0);
		ui.stats.textContent = (old ? 'no two energy reads yet' : 'over ' +
			(b.package[0] - a.package[0]).toFixed(2) + ' s') + (b && !b.dram ? ' \u00b7 no DRAM domain' : '') +
			(bps !== null ? ' \u00b7 DRAM ' + fmt(bps, QPI) + ' GB/s' : '') +
			(ps !== null ? ' \u00b7 psys ' + ps.toFixed(1) + ' W' : '') + ' \u00b7 ' + energy.source;
	}

	function bar(cell, cls, v, vmax) {
		const b = el('span', { class: cls });
		b.style.width = (vmax > 0 && v !== null ? Math.max(v / vmax * 100, 0.5) : 0) + '%';
		cell.appendChild(b);
	}

	/* Table rows of per-instance rates: fa/fb give a row's two values
	 * in bytes per second (or null); fb null: one value a row.  key:
	 * the instance's label in the JSON. */
	function rows(body, list, label, key, fa, fb, cls) {
		body.textContent = '';
		const gb = function (x) { return x === null || x === undefined ? null : x * 1e-9; };
		const vals = list.map(function (r) { return [gb(fa(r)), fb ? gb(fb(r)) : null]; });
		let vmax = 0;
		for (const v of vals)
			vmax = Math.max(vmax, v[0] || 0, v[1] || 0);
		list.forEach(function (r, i) {
			const tr = el('tr');
			tr.appendChild(el('th', { scope: 'row' }, label + ' ' + r[key]));
			tr.appendChild(el('td', {}, fmt(vals[i][0], QPI)));
			if (fb)
				tr.appendChild(el('td', {}, fmt(vals[i][1], QPI)));
			const cell = el('td', { class: 'bar', 'aria-hidden': 'true' });
			bar(cell, cls[0], vals[i][0], vmax);
			if (fb)
				bar(cell, cls[1], vals[i][1], vmax);
			tr.appendChild(cell);
			body.appendChild(tr);
		});
	}

	/* resctrl: the workload groups moving the most bytes on socket sk,
	 * and the share of the socket's DRAM bytes they explain (doc/resctrl.md;
	 * api/v1/metrics resctrl_groups).  The table is made the first time
	 * the socket has groups. */
	function drawRdt(ui, sk, s) {
		const r = rdt && rdt[sk];
		if (!r)
			return;
		if (!ui.rdt) {
			const g = el('div', { class: 'grid' });
			$('socket' + sk).appendChild(g);
			ui.rdt = table(g, 'Memory bandwidth per workload (resctrl), socket ' + sk + ' (GB/s)',
				['Group', 'GB/s', 'Share', '']);
			ui.rdtNote = el('p', { class: 'stats', id: 'rdt-share' + sk });
			g.lastChild.appendChild(ui.rdtNote);
		}
		const so = s && !s.first ? s.sockets[sk] : null;
		const dram = so ? so.dram_bytes_per_second : null;
		const top = r.groups.filter(function (g) { return g.workload; })
			.slice(0, RDT_TOP);
		const name = function (g) {
			return g.cgroup ? g.cgroup + ' (' + g.group + ')' : g.group;
		};
		ui.rdt.textContent = '';
		let vmax = 0;
		for (const g of top)
			vmax = Math.max(vmax, (g.bytes_per_second || 0) * 1e-9);
		for (const g of top) {
			const gbs = g.bytes_per_second === null ? null : g.bytes_per_second * 1e-9;
			const tr = el('tr');
			tr.appendChild(el('th', { scope: 'row' }, name(g)));
			tr.appendChild(el('td', {}, fmt(gbs, QPI)));
			tr.appendChild(el('td', {}, gbs !== null && dram > 0 ?
				(100 * g.bytes_per_second / dram).toFixed(1) + ' %' : '\u2013'));
			const cell = el('td', { class: 'bar', 'aria-hidden': 'true' });
			bar(cell, 'rd', gbs, vmax);
			tr.appendChild(cell);
			ui.rdt.appendChild(tr);
		}
		ui.rdtNote.textContent = r.sum !== null && r.sum !== undefined && dram > 0 ?
			'The groups explain ' + (100 * r.sum / dram).toFixed(1) +
			' % of the socket\u2019s DRAM bandwidth (' + fmt(r.sum * 1e-9, QPI) + ' of ' +
			fmt(dram * 1e-9, QPI) + ' GB/s).' :
			'The share the groups explain shows after two resctrl passes.';
	}

	function healthItem(dl, label, v, warn) {
		const d = el('div', warn ? { class: 'warn' } : {});
		d.appendChild(el('dt', {}, label));
		d.appendChild(el('dd', {}, String(v)));
		dl.appendChild(d);
	}

	function drawHealth() {
		const dl = $('health-list');
		dl.textContent = '';
		if (!status)
			return;
		healthItem(dl, 'Ticks', status.ticks);
		healthItem(dl, 'Interval', status.interval_ms + ' ms');
		healthItem(dl, 'Overruns', status.overruns, status.overruns > 0);
		healthItem(dl, 'Interference', status.interference, status.interference > 0);
		healthItem(dl, 'Invalid samples', status.invalid_samples);
		healthItem(dl, 'Hardware errors', status.hw_errors, status.hw_errors > 0);
		healthItem(dl, 'Live claims', status.claims);
		healthItem(dl, 'PMU owned', status.ownership && status.ownership.owned ? 'yes' : 'no',
			!(status.ownership && status.ownership.owned));
		healthItem(dl, 'Uptime', span(status.uptime_s));
		healthItem(dl, 'Ring', Math.min(status.ring_head || 0, status.ring_capacity || 0) + ' / ' + status.ring_capacity);
	}

	/* A counter that stops advancing reads as exactly zero while the
	 * sampler carries on: flag a headline rate that was non-zero in the
	 * window and has been exactly 0 for the last STUCK samples. */
	const STUCK = 5;
	function stuck(msgs) {
		if (!sockets)
			return;
		const real = samples.filter(function (x) { return !x.gap && !x.first; });
		if (real.length <= STUCK)
			return;
		const tail = real.slice(-STUCK), head = real.slice(0, -STUCK);
		sockets.forEach(function (ui, sk) {
			for (const m of METRICS) {
				if (m.id === 'hit' || !tail.every(function (x) { return value(x, sk, m) === 0; }))
					continue;
				let was = null;
				for (const x of head) {
					const v = value(x, sk, m);
					if (v)
						was = v;
				}
				if (was)
					msgs.push(m.title + ' on socket ' + sk + ' has read exactly 0 for the last ' + STUCK +
						' samples after ' + fmt(was, m) + ' ' + m.unit + ': is its counter stuck?');
			}
		});
	}

	function drawBanner() {
		const msgs = [];
		if (failure)
			msgs.push('The daemon is not answering: ' + failure + '. The charts stop at the last sample received.');
		if (health && health.code !== 200)
			msgs.push('The sampler has stalled (healthz ' + health.code + '): ' +
				(health.body && health.body.error ? health.body.error.message : 'no reason given') + '.');
		/* invalid samples of the last 30 s (at least 10 samples) */
		const s = newest(), win = Math.max(30, 10 * interval);
		const recent = s ? samples.filter(function (x) { return !x.gap && !x.first && x.time >= s.time - win; }) : [];
		const bad = recent.filter(function (x) { return !x.valid; });
		if (bad.length) {
			const w = bad[bad.length - 1];
			msgs.push((bad.length === 1 ? 'Sample #' + w.seq + ' at ' + clock(w.time) + ' was' :
				bad.length + ' samples of the last ' + span(win) + ' were') + ' marked invalid (' +
				(w.interference ? 'interference: another agent changed the PMU' : 'a counter read failed') +
				'); invalid values are drawn as gaps, never as zero.');
		}
		stuck(msgs);
		const b = $('banner');
		b.textContent = '';
		for (const t of msgs)
			b.appendChild(el('p', {}, t));
		b.hidden = msgs.length === 0;
	}

	function draw() {
		drawQueued = false;
		const s = newest();
		if (s && (!sockets || sockets.length !== s.sockets.length))
			build(s);
		const tnow = s ? s.time : Date.now() / 1000;
		if (sockets) {
			sockets.forEach(function (ui, sk) {
				const b = limited(sk), w = {};
				for (const x of b)
					w[x[2]] = (w[x[2]] || 0) + x[3];
				ui.lim.textContent = b.length ? 'Shaded: a frequency limit was active (' + Object.keys(w).map(function (k) {
					return k + ' ' + w[k].toFixed(1) + ' s';
				}).join(', ') + ').' : '';
				for (const c of ui.cards)
					drawCard(c, sk, tnow, b);
				if (ui.lat)
					drawLat(ui.lat, sk);
				const so = s && !s.first ? s.sockets[sk] : null;
				if (ui.channels && so && so.channels)
					rows(ui.channels, so.channels, 'Channel', 'channel',
						function (r) { return r.dram_read_bytes_per_second; },
						function (r) { return r.dram_write_bytes_per_second; }, ['rd', 'wr']);
				if (ui.stacks && so && so.stacks)
					rows(ui.stacks, so.stacks, 'Stack', 'stack',
						function (r) { return r.io_in_bytes_per_second; },
						ui.ioOut ? function (r) { return r.io_out_bytes_per_second; } : null,
						['rd', 'wr']);
				if (ui.ports && so && so.ports && ui.upi)
					rows(ui.ports, so.ports, 'Link', 'port',
						function (r) { return r.upi_data_bytes_per_second; }, null, ['qpi']);
				else if (ui.ports && so && so.ports)
					rows(ui.ports, so.ports, 'Port', 'port',
						function (r) { return r.qpi_data_bytes_per_second; },
						function (r) { return r.qpi_link_bytes_per_second; },
						['qpi', 'qpi']);
			});
		}
		if (sockets)
			sockets.forEach(function (ui, sk) {
				drawRdt(ui, sk, s);
				drawPwr(ui.pwr, sk, s);
			});
		drawHealth();
		drawBanner();
		const live = $('live');
		const stalled = failure || (health && health.code !== 200);
		live.className = stalled ? 'bad' : 'ok';
		live.textContent = (stalled ? 'stalled' : 'live') + (s ? ' \u00b7 sample #' + s.seq + ' at ' +
			clock(s.time) : '');
	}

	function queueDraw() {
		if (!drawQueued) {
			drawQueued = true;
			requestAnimationFrame(draw);
		}
	}

	/* ---- data ------------------------------------------------------- */

	function about() {
		const d = status.dram;
		$('about').textContent = status.platform_name + ' \u00b7 ' +
			(status.simulated ? 'simulator' : 'hardware') + ', ' + status.backend +
			(d ? ' \u00b7 DRAM from ' + (d.kernel_pmu || d.unit) +
			 (d.in_turns ? ' (' + d.events + ' events in turn)' : '') : '') +
			' \u00b7 uncored ' + status.version + ' \u00b7 a sample every ' + status.interval_ms + ' ms';
		document.title = 'uncored \u00b7 ' + status.platform;
	}

	function useStatus(st) {
		status = st;
		interval = st.interval_ms / 1000;
		cap = st.ring_capacity || cap;
		addEnergy(st.energy);
		about();
	}

	/* The kernel's uncore clock limits per socket from api/v1/metrics
	 * (asked once there is a sample: before, it answers 503); none is
	 * not a failure. */
	async function getLimits() {
		try {
			const r = await getJSON('api/v1/metrics');
			limits = r.sockets.map(function (so) { return so.clock_limits || null; });
			rdt = r.sockets.map(function (so) {
				return so.resctrl_groups ? { groups: so.resctrl_groups,
					sum: so.resctrl_workload_bytes_per_second } : null;
			});
		} catch (e) {
			limits = null;
			rdt = null;
		}
	}

	async function backfill() {
		useStatus(await getJSON('api/v1/status'));
		const first = await getJSON('api/v1/samples?deltas=0&limit=1');
		let since = first.tail ? first.tail - 1 : 0;
		for (;;) {
			const r = await getJSON('api/v1/samples?deltas=0&limit=' + Math.min(CHUNK, cap) + '&since=' + since);
			add(r);
			if (r.samples.length < Math.min(CHUNK, cap))
				break;
			since = lastSeq;
		}
		if (lastSeq)
			await getLimits();
	}

	async function poll() {
		try {
			const res = await Promise.all([
				getJSON('api/v1/samples?deltas=0&limit=' + cap + '&since=' + lastSeq),
				getJSON('api/v1/status'),
				get('healthz'),
				lastSeq ? getLimits() : null,
			]);
			add(res[0]);
			useStatus(res[1]);
			health = res[2];
			failure = null;
		} catch (e) {
			failure = e.message;
		}
		queueDraw();
		setTimeout(poll, Math.max(interval * 1000, 250));
	}

	async function start() {
		try {
			await backfill();
			failure = null;
		} catch (e) {
			failure = e.message;
		}
		queueDraw();
		setTimeout(poll, Math.max(interval * 1000, 250));
	}

	window.addEventListener('resize', queueDraw);
	start();
}());
