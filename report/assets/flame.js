/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Interactivity of symprof's flame graphs (report/flame-svg.c), embedded in
 * every standalone SVG and in the HTML report. Each frame is
 *   <g class="f" data-x="START" data-v="VALUE" data-d="DEPTH">
 *     <title>name ...</title><rect .../><text ...>label</text></g>
 * with START and VALUE in the profile's unit. Hover shows a frame's details
 * at the bottom, a click zooms into it, the search box highlights frames
 * whose name matches (a regular expression, or plain text if it is not
 * one) and prints the share of the total they cover.
 */
'use strict';

function spFlameInit(svg) {
	var W = +svg.getAttribute('data-width');
	var pad = 10;
	var total = +svg.getAttribute('data-total');
	var frames = Array.prototype.slice.call(svg.querySelectorAll('g.f'));
	var details = svg.querySelector('.details');
	var matched = svg.querySelector('.matched');
	var reset = svg.querySelector('.reset');
	var input = svg.querySelector('.search');
	var info = frames.map(function (g) {
		return {
			g: g,
			x: +g.getAttribute('data-x'),
			v: +g.getAttribute('data-v'),
			d: +g.getAttribute('data-d'),
			rect: g.querySelector('rect'),
			text: g.querySelector('text'),
			name: g.getAttribute('data-n'),
			fill: g.querySelector('rect').getAttribute('fill')
		};
	});
	var byG = new Map(info.map(function (f) { return [f.g, f]; }));

	function label(f, width) {
		var chars = Math.floor((width - 6) / 7);
		if (chars < 3)
			return '';
		return f.name.length <= chars ? f.name : f.name.slice(0, chars - 2) + '..';
	}

	function place(f, x0, w0) {
		if (!(w0 > 0))
			w0 = 1; /* a profile without samples */
		var x = pad + (f.x - x0) / w0 * (W - 2 * pad);
		var w = f.v / w0 * (W - 2 * pad);
		f.rect.setAttribute('x', x.toFixed(2));
		f.rect.setAttribute('width', Math.max(w, 0).toFixed(2));
		f.text.setAttribute('x', (x + 3).toFixed(2));
		f.text.textContent = label(f, w);
	}

	function zoom(z) {
		info.forEach(function (f) {
			var inside = f.x >= z.x - 1e-9 * total && f.x + f.v <= z.x + z.v + 1e-9 * total;
			var below = f.d < z.d && f.x <= z.x + 1e-9 * total && f.x + f.v >= z.x + z.v - 1e-9 * total;
			if (f.d >= z.d && inside) {
				f.g.style.display = '';
				f.g.classList.remove('parent');
				place(f, z.x, z.v);
			} else if (below) {
				f.g.style.display = '';
				f.g.classList.add('parent');
				place(f, z.x, z.v);
			} else {
				f.g.style.display = 'none';
			}
		});
		reset.style.display = z.d > 0 ? '' : 'none';
	}

	function unzoom() {
		zoom(info.reduce(function (a, f) { return f.d < a.d ? f : a; }, info[0]));
	}

	function search(term) {
		var re = null, spans = [], cover = 0, end = -Infinity;
		if (term) {
			try {
				re = new RegExp(term);
			} catch (e) {
				re = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
			}
		}
		info.forEach(function (f) {
			var hit = re !== null && re.test(f.name);
			f.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);
			if (hit)
				spans.push([f.x, f.x + f.v]);
		});
		spans.sort(function (a, b) { return a[0] - b[0]; });
		spans.forEach(function (s) {
			if (s[1] <= end)
				return;
			cover += s[1] - Math.max(s[0], end);
			end = s[1];
		});
		matched.textContent = re ? 'Matched: ' + (total > 0 ? (100 * cover / total).toFixed(2) : '0.00') + '%' : '';
		return cover;
	}

	svg.addEventListener('mouseover', function (e) {
		var g = e.target.closest && e.target.closest('g.f');
		if (g)
			details.textContent = g.querySelector('title').textContent.replace(/\n/g, '  ');
	});
	svg.addEventListener('mouseout', function () { details.textContent = ' '; });
	svg.addEventListener('click', function (e) {
		var g = e.target.closest && e.target.closest('g.f');
		if (g)
			zoom(byG.get(g));
	});
	reset.addEventListener('click', unzoom);
	if (input)
		input.addEventListener('input', function () { search(input.value); });
	unzoom();
	svg.spFlame = { zoom: function (g) { zoom(byG.get(g)); }, unzoom: unzoom, search: search };
	return svg.spFlame;
}
