/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * symprof's HTML report (report/html.c writes the page and the data): the
 * summary, the flat profile (sortable, filterable, one row per function),
 * callers and callees of the selected function, the flame graph, annotated
 * source, the differences against a base profile and, for aprof, the cost
 * of routines against their input size. Everything is in the
 * page; nothing is fetched. The data are the JSON document in
 * <script id="sp-data">, described in html.c.
 */
'use strict';

(function () {
	var D = JSON.parse(document.getElementById('sp-data').textContent);
	var F = D.functions, A = D.arcs;
	var callers = F.map(function () { return []; });
	var callees = F.map(function () { return []; });
	var sortKey = 'self', sortDesc = true, filterText = '', selected = -1;
	var $ = function (id) { return document.getElementById(id); };

	A.forEach(function (a, i) {
		callers[a[1]].push(i);
		callees[a[0]].push(i);
	});

	function esc(s) {
		return String(s).replace(/[&<>"']/g, function (c) {
			return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
		});
	}
	function num(v) {
		if (D.unit === 'seconds')
			return v.toFixed(2);
		return Math.abs(v) >= 1000 || v === Math.round(v) ? Math.round(v).toLocaleString('en-US') : v.toPrecision(4);
	}
	function pct(v, t) { return t > 0 ? (100 * v / t).toFixed(2) : '0.00'; }
	function total(i) { return F[i][3] + F[i][4]; }
	function fnLink(i) {
		return '<a class="fn" data-fn="' + i + '">' + esc(F[i][0]) + '</a>' +
			(F[i][7] ? ' <span class="muted">&lt;cycle ' + F[i][7] + '&gt;</span>' : '');
	}

	/* ---- tabs ---- */
	function show(tab) {
		var links = document.querySelectorAll('header nav a');
		Array.prototype.forEach.call(links, function (a) {
			a.classList.toggle('active', a.getAttribute('href') === '#' + tab);
		});
		Array.prototype.forEach.call(document.querySelectorAll('main > section'), function (s) {
			s.classList.toggle('active', s.id === tab);
		});
	}
	window.addEventListener('hashchange', function () {
		var t = location.hash.slice(1);
		if ($(t) && $(t).tagName === 'SECTION')
			show(t);
	});

	/* ---- summary ---- */
	function summary() {
		var bySelf = F.map(function (f, i) { return i; }).sort(function (a, b) { return F[b][3] - F[a][3]; });
		var byTotal = F.map(function (f, i) { return i; }).sort(function (a, b) { return total(b) - total(a); });
		var html = '<div class="cards">' +
			card(num(D.total) + ' ' + esc(D.unit), 'total ' + esc(D.metric)) +
			card(F.length.toLocaleString('en-US'), 'functions') +
			card(A.length.toLocaleString('en-US'), 'call arcs') +
			card(esc(D.format), 'input format') + '</div>';
		html += '<p class="muted">' + esc(D.executable || '') + ' &middot; ' + D.files.map(esc).join(', ') + '</p>';
		if (D.estimated)
			html += '<p class="note">Times of callers (children, arcs, flame graph) are estimates: gprof assumes every call of a function costs the same, so a function\'s time is shared among its callers in proportion to their calls.</p>';
		html += '<h3>Hottest functions (self)</h3>' + topTable(bySelf.slice(0, 10), function (i) { return F[i][3]; }, D.total);
		html += '<h3>Largest totals (self + children)</h3>' + topTable(byTotal.slice(0, 10), total, D.graph_total);
		$('summary-body').innerHTML = html;
	}
	function card(v, k) { return '<div class="card"><div class="v">' + v + '</div><div class="k">' + k + '</div></div>'; }
	function topTable(list, val, whole) {
		list = list.filter(function (i) { return val(i) > 0; });
		if (!list.length)
			return '<p class="muted">nothing</p>';
		var max = list.length ? val(list[0]) : 0;
		return '<table><thead><tr><th>' + esc(D.unit) + '</th><th>%</th><th class="name">function</th></tr></thead><tbody>' +
			list.map(function (i) {
				var w = max > 0 ? Math.round(200 * val(i) / max) : 0;
				return '<tr><td>' + num(val(i)) + '</td><td>' + pct(val(i), whole) + '</td><td class="name"><span class="bar" style="width:' + w + 'px"></span>' + fnLink(i) + '</td></tr>';
			}).join('') + '</tbody></table>';
	}

	/* ---- flat profile ---- */
	var columns = [
		{key: 'self%', get: function (i) { return F[i][3]; }, fmt: function (i) { return pct(F[i][3], D.total); }},
		{key: 'self', get: function (i) { return F[i][3]; }, fmt: function (i) { return num(F[i][3]); }},
		{key: 'total%', get: total, fmt: function (i) { return pct(total(i), D.graph_total); }},
		{key: 'total', get: total, fmt: function (i) { return num(total(i)); }},
		{key: 'calls', get: function (i) { return F[i][5]; }, fmt: function (i) { return F[i][5] ? F[i][5].toLocaleString('en-US') + (F[i][6] ? '+' + F[i][6] : '') : ''; }},
		{key: 'name', get: function (i) { return F[i][0]; }, fmt: fnLink, name: true}
	];
	function matcher() {
		var t = filterText.toLowerCase();
		return function (i) { return !t || F[i][0].toLowerCase().indexOf(t) >= 0 || (F[i][1] || '').toLowerCase().indexOf(t) >= 0; };
	}
	var rowHtml = [];
	function row(i) {
		if (rowHtml[i] === undefined)
			rowHtml[i] = '<tr data-fn="' + i + '">' + columns.map(function (c) {
				return '<td' + (c.name ? ' class="name" title="' + esc(F[i][0]) + '"' : '') + '>' + c.fmt(i) + '</td>';
			}).join('') + '</tr>';
		return rowHtml[i];
	}
	/* The first rows at once, the rest in chunks between events, so that a
	 * table of thousands of functions answers a click at once; #flat gets
	 * data-complete="1" when every row is in. A newer fill stops an older. */
	var fillGen = 0, trOf = [];
	function fill(rows) {
		var gen = ++fillGen, tb = $('flat').tBodies[0], at = 0;
		function mark() {
			var sel = document.querySelector('#flat tr[data-fn="' + selected + '"]');
			if (sel)
				sel.classList.add('selected');
		}
		/* rows already built are moved, the others parsed once */
		function put(list) {
			var frag = document.createDocumentFragment(), html = [], fresh = [], tmp;
			list.forEach(function (i) {
				if (!trOf[i]) {
					html.push(row(i));
					fresh.push(i);
				}
			});
			if (html.length) {
				tmp = document.createElement('tbody');
				tmp.innerHTML = html.join('');
				Array.prototype.forEach.call(tmp.rows, function (tr, k) { trOf[fresh[k]] = tr; });
			}
			list.forEach(function (i) { frag.appendChild(trOf[i]); });
			tb.appendChild(frag);
		}
		$('flat').setAttribute('data-complete', '0');
		while (tb.lastChild)
			tb.removeChild(tb.lastChild);
		put(rows.slice(0, 300));
		at = 300;
		mark();
		(function more() {
			if (gen !== fillGen)
				return;
			if (at >= rows.length) {
				$('flat').setAttribute('data-complete', '1');
				return;
			}
			put(rows.slice(at, at + 1000));
			at += 1000;
			mark();
			setTimeout(more, 0);
		})();
	}
	function flat() {
		var col = columns.filter(function (c) { return c.key === sortKey; })[0] || columns[1];
		var rows = F.map(function (f, i) { return i; }).filter(matcher());
		var keys = F.map(function (f, i) { return col.get(i); });
		var sel;
		rows.sort(function (a, b) {
			var x = keys[a], y = keys[b];
			var c = x < y ? -1 : x > y ? 1 : a - b;
			return sortDesc ? -c : c;
		});
		fill(rows);
		$('flat-count').textContent = rows.length === F.length ? F.length + ' functions' : rows.length + ' of ' + F.length + ' functions';
		Array.prototype.forEach.call($('flat').tHead.rows[0].cells, function (th) {
			th.classList.toggle('sorted-desc', th.getAttribute('data-key') === sortKey && sortDesc);
			th.classList.toggle('sorted-asc', th.getAttribute('data-key') === sortKey && !sortDesc);
		});
	}
	function flatHead() {
		$('flat').insertAdjacentHTML('afterbegin', '<colgroup>' + columns.map(function (c) {
			return '<col class="c-' + c.key.replace('%', 'p') + '">';
		}).join('') + '</colgroup>');
		$('flat').tHead.innerHTML = '<tr>' + columns.map(function (c) {
			return '<th data-key="' + c.key + '"' + (c.name ? ' class="name"' : '') + '>' + c.key + '</th>';
		}).join('') + '</tr>';
		$('flat').tHead.addEventListener('click', function (e) {
			var k = e.target.getAttribute('data-key');
			if (!k)
				return;
			sortDesc = k === sortKey ? !sortDesc : k !== 'name';
			sortKey = k;
			flat();
		});
		$('filter').addEventListener('input', function () { filterText = this.value; flat(); });
	}

	/* ---- callers and callees ---- */
	function arcTable(list, end, title) {
		var head = '<h3>' + title + ' (' + list.length + ')</h3>';
		if (!D.call_graph)
			return head + '<p class="muted">unknown: the profile records no call graph' + (D.format === 'aprof' ? ' (aprof writes a calling-context tree with --collect-cct=yes)' : '') + '</p>';
		if (!list.length)
			return head + '<p class="muted">none' + (title === 'Callers' ? ' recorded (spontaneous, or called from outside the profiled code)' : '') + '</p>';
		list = list.slice().sort(function (x, y) { return (A[y][3] + A[y][4]) - (A[x][3] + A[x][4]) || A[y][2] - A[x][2]; });
		return head + '<table><thead><tr><th>' + (D.counts ? 'calls' : '') + '</th><th>' + esc(D.unit) + '</th><th>%</th><th class="name">function</th></tr></thead><tbody>' +
			list.map(function (a) {
				var t = A[a][3] + A[a][4];
				return '<tr><td>' + (D.counts ? A[a][2].toLocaleString('en-US') : '') + '</td><td>' + num(t) + '</td><td>' + pct(t, D.graph_total) + '</td><td class="name">' + fnLink(A[a][end]) + '</td></tr>';
			}).join('') + '</tbody></table>';
	}
	function select(i, scroll) {
		var f = F[i], row;
		selected = i;
		Array.prototype.forEach.call(document.querySelectorAll('#flat tr.selected'), function (r) { r.classList.remove('selected'); });
		row = document.querySelector('#flat tr[data-fn="' + i + '"]');
		if (row) {
			row.classList.add('selected');
			if (scroll)
				row.scrollIntoView({block: 'nearest'});
		}
		$('detail').innerHTML = '<h2 id="detail-name">' + esc(f[0]) + '</h2>' +
			(f[1] ? '<p class="muted">' + esc(f[1]) + ':' + f[2] + '</p>' : '') +
			'<p>self ' + num(f[3]) + ' ' + esc(D.unit) + ' (' + pct(f[3], D.total) + '%), total ' + num(total(i)) + ' (' + pct(total(i), D.total) + '%)' +
			(D.counts ? ', ' + f[5].toLocaleString('en-US') + ' calls' + (f[6] ? ' + ' + f[6] + ' recursive' : '') : '') + '</p>' +
			'<p><a class="fn" data-flame="' + i + '">show in the flame graph</a></p>' +
			'<div id="callers">' + arcTable(callers[i], 0, 'Callers') + '</div>' +
			'<div id="callees">' + arcTable(callees[i], 1, 'Callees') + '</div>';
	}
	document.addEventListener('click', function (e) {
		var a = e.target.closest && e.target.closest('a.fn');
		var svg = document.querySelector('#flame svg.sp-flame');
		if (!a)
			return;
		e.preventDefault();
		if (a.hasAttribute('data-flame')) {
			location.hash = '#flame';
			if (svg && svg.spFlame) {
				var name = F[+a.getAttribute('data-flame')][0];
				var box = svg.querySelector('input.search');
				box.value = '^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
				svg.spFlame.search(box.value);
			}
			return;
		}
		if (location.hash !== '#functions')
			location.hash = '#functions';
		select(+a.getAttribute('data-fn'), true);
	});

	/* ---- annotated source ---- */
	function sources() {
		if (!$('source-body'))
			return;
		if (!D.sources || !D.sources.length) {
			$('source-body').innerHTML = '<p class="muted">No source: the hottest functions\' files were not found (use -I DIR) or the executable has no line information.</p>';
			return;
		}
		$('source-body').innerHTML = D.sources.map(function (s) {
			var max = Math.max.apply(null, s.lines.map(function (l) { return l[1]; }).concat([0]));
			return '<h3>' + fnLink(s.fn) + ' <span class="muted">' + esc(s.path) + '</span></h3><table class="src"><tbody>' +
				s.lines.map(function (l) {
					return '<tr' + (l[1] > 0 && l[1] >= max / 4 ? ' class="hot"' : '') + '><td>' + (l[1] > 0 ? num(l[1]) : '') + '</td><td class="muted">' + l[0] + '</td><td class="code">' + esc(l[2]) + '</td></tr>';
				}).join('') + '</tbody></table>';
		}).join('');
	}

	/* ---- differences ---- */
	function diff() {
		var d = D.diff, html;
		if (!d) {
			return;
		}
		function ch(v, noise) {
			var cls = v > 0 ? 'pos' : v < 0 ? 'neg' : '';
			if (d.sampled && v !== 0 && Math.abs(v) <= 2 * noise)
				cls = 'noise';
			return '<td class="' + cls + '">' + (v > 0 ? '+' : '') + num(v) + '</td>';
		}
		function rel(c, b) { return b ? ((c - b) / Math.abs(b) * 100).toFixed(1) + '%' : c ? 'new' : '0.0%'; }
		html = '<p>' + esc(D.files.join(' + ')) + ' minus ' + esc(d.base_files.join(' + ')) + ': total ' + num(D.total) + ', base ' + num(d.base_total) +
			', change ' + (D.total - d.base_total >= 0 ? '+' : '') + num(D.total - d.base_total) + (d.sampled ? ' (noise ' + num(d.noise_total) + ')' : '') + '</p>';
		if (d.sampled)
			html += '<p class="muted">Noise is one standard deviation of a change from sampling alone (the square root of the samples in both profiles). A change is significant only outside both runs\' sampling error, more than twice its noise: grey changes are within it.</p>';
		html += '<table id="difftable"><thead><tr><th>self</th><th>base</th><th>change</th><th>%</th>' + (d.sampled ? '<th>noise</th>' : '') +
			'<th>total</th><th>change</th><th>calls</th><th>change</th><th class="name">function</th></tr></thead><tbody>' +
			d.rows.map(function (r) {
				return '<tr><td>' + num(r[1]) + '</td><td>' + num(r[2]) + '</td>' + ch(r[1] - r[2], r[7]) + '<td>' + rel(r[1], r[2]) + '</td>' +
					(d.sampled ? '<td class="muted">' + num(r[7]) + '</td>' : '') + '<td>' + num(r[3]) + '</td>' + ch(r[3] - r[4], r[8]) +
					'<td>' + r[5].toLocaleString('en-US') + '</td><td>' + (r[5] - r[6] > 0 ? '+' : '') + (r[5] - r[6]) + '</td><td class="name">' + esc(r[0]) + '</td></tr>';
			}).join('') + '</tbody></table>';
		$('diff-body').innerHTML = html;
	}

	/* ---- cost against input size (aprof) ---- */
	function plots() {
		var log = $('plot-log') && $('plot-log').checked;
		if (!D.plots || !D.plots.length)
			return;
		$('plots-body').innerHTML = D.plots.map(function (p) { return plot(p, log); }).join('');
	}
	/* One routine: its measured points (circles, one class per curve),
	 * the bands of the fits (polygons) and the fitted curves (polylines),
	 * a legend under it. On log axes the points
	 * at 0 are left out. */
	function plot(p, log) {
		var W = 560, H = 340, L = 70, R = 24, T = 28, B = 46;
		var ok = function (q) { return !log || (q[0] > 0 && q[1] > 0); };
		var all = [];
		p.curves.forEach(function (c) { all = all.concat(c.points.filter(ok)); });
		var tx = log ? Math.log10 : function (v) { return v; };
		var xs = all.map(function (q) { return tx(q[0]); }), ys = all.map(function (q) { return tx(q[1]); });
		var x0 = Math.min.apply(null, xs.concat(log ? [] : [0])), x1 = Math.max.apply(null, xs);
		var y0 = Math.min.apply(null, ys.concat(log ? [] : [0])), y1 = Math.max.apply(null, ys);
		if (!all.length) { x0 = y0 = 0; x1 = y1 = 1; }
		if (x1 <= x0) x1 = x0 + 1;
		if (y1 <= y0) y1 = y0 + 1;
		function px(v) { return L + (tx(v) - x0) / (x1 - x0) * (W - L - R); }
		function py(v) { return H - B - (tx(v) - y0) / (y1 - y0) * (H - T - B); }
		function tick(v) { return log ? '1e' + v.toFixed(1).replace(/\.0$/, '') : Math.abs(v) >= 1e4 ? v.toExponential(1) : +v.toPrecision(3) + ''; }
		var svg = '<svg class="plot" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">' +
			'<text x="' + (W / 2) + '" y="16" text-anchor="middle" class="ptitle">' + esc(p.name) + '</text>' +
			'<line x1="' + L + '" y1="' + (H - B) + '" x2="' + (W - R) + '" y2="' + (H - B) + '" class="axis"/>' +
			'<line x1="' + L + '" y1="' + T + '" x2="' + L + '" y2="' + (H - B) + '" class="axis"/>';
		[0, 0.5, 1].forEach(function (f) {
			var vx = x0 + f * (x1 - x0), vy = y0 + f * (y1 - y0);
			var gx = L + f * (W - L - R), gy = H - B - f * (H - T - B);
			svg += '<text x="' + gx + '" y="' + (H - B + 16) + '" text-anchor="middle" class="tick">' + tick(vx) + '</text>' +
				'<text x="' + (L - 6) + '" y="' + (gy + 4) + '" text-anchor="end" class="tick">' + tick(vy) + '</text>';
		});
		svg += '<text x="' + ((L + W - R) / 2) + '" y="' + (H - 8) + '" text-anchor="middle" class="alabel">' + esc(p.x_label) + '</text>' +
			'<text x="14" y="' + ((T + H - B) / 2) + '" text-anchor="middle" class="alabel" transform="rotate(-90 14 ' + ((T + H - B) / 2) + ')">' + esc(p.y_label) + '</text>';
		p.curves.forEach(function (c) {
			if (c.band && c.points.length)
				svg += '<polygon class="band ' + esc(c.kind) + '" points="' + c.points.filter(ok)
					.map(function (q) { return px(q[0]).toFixed(1) + ',' + py(q[1]).toFixed(1); }).join(' ') + '"><title>' + esc(c.label) + '</title></polygon>';
		});
		p.curves.forEach(function (c) {
			if (c.line && c.points.length)
				svg += '<polyline class="fit ' + esc(c.kind) + '" points="' + c.points.filter(ok)
					.map(function (q) { return px(q[0]).toFixed(1) + ',' + py(q[1]).toFixed(1); }).join(' ') + '"><title>' + esc(c.label) + '</title></polyline>';
		});
		p.curves.forEach(function (c) {
			if (!c.line && !c.band)
				svg += c.points.filter(ok).map(function (q) {
					return '<circle class="' + esc(c.kind) + '" cx="' + px(q[0]).toFixed(1) + '" cy="' + py(q[1]).toFixed(1) + '" r="3"><title>' +
						esc(c.label) + ': ' + esc(p.x_label) + ' ' + q[0] + ', ' + esc(p.y_label) + ' ' + num(q[1]) + '</title></circle>';
				}).join('');
		});
		var keys = p.curves.map(function (c) {
			return '<span class="key"><span class="sw ' + (c.band ? 'band ' : c.line ? 'line ' : 'dot ') + esc(c.kind) + '"></span>' + esc(c.label) + '</span>';
		}).join('');
		return '<figure class="plotbox">' + svg + '</svg><figcaption>' + keys + (p.note ? '<div>' + esc(p.note) + '</div>' : '') + '</figcaption></figure>';
	}
	if ($('plot-log'))
		$('plot-log').addEventListener('change', plots);

	flatHead();
	summary();
	flat();
	sources();
	diff();
	plots();
	var svg = document.querySelector('#flame svg.sp-flame');
	if (svg)
		spFlameInit(svg);
	var first = F.map(function (f, i) { return i; }).sort(function (a, b) { return total(b) - total(a); })[0];
	if (first !== undefined)
		select(first, false);
	show(location.hash && $(location.hash.slice(1)) ? location.hash.slice(1) : 'summary');
})();
