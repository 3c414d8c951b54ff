// SPDX-License-Identifier: GPL-3.0-or-later
//
// Opens symprof's HTML report in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) and checks what a person would: the page loads
// without a console error and without any network request, the flat profile
// has one row per function, clicking a function shows its callers and callees
// (compared with symprof's --format=json of the same profile), sorting and
// filtering work, the flame graph zooms and searches. Screenshots go to OUTDIR
// for a person to look at.
//
//   node check-report.mjs REPORT.html PROFILE.json OUTDIR [NAME] [--flame FILE.svg]
//                         [--plots]
//
// With --plots (aprof reports) the "Cost plots" tab must show one plot per
// plot in the page's data, each routine one of PROFILE.json's with a fit,
// its points and its two fitted curves drawn, on linear and on log axes.
//
// Times (loading, selecting, sorting, filtering) are printed as "info:"
// lines and never fail the check: bench/bench-html.sh reports them.
//
// Exit status: 0 pass, 1 fail, 77 Chromium cannot start (ctest: skipped).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name) => {
	const i = args.indexOf(name);
	if (i < 0) return null;
	const v = args[i + 1];
	args.splice(i, 2);
	return v;
};
const flameSvg = opt('--flame');
const plotsAt = args.indexOf('--plots');
const wantPlots = plotsAt >= 0;
if (wantPlots) args.splice(plotsAt, 1);
const [reportPath, jsonPath, outDir, name = path.basename(reportPath, '.html')] = args;
if (!reportPath || !jsonPath || !outDir) {
	console.error('usage: check-report.mjs REPORT.html PROFILE.json OUTDIR [NAME] [--flame FILE.svg] [--plots]');
	process.exit(2);
}
const expected = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
fs.mkdirSync(outDir, { recursive: true });

let failures = 0;
function check(ok, what) {
	console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
	if (!ok) failures++;
}

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'symprof-chromium-'));
let context;
try {
	context = await chromium.launchPersistentContext(userDataDir, {
		executablePath,
		headless: true,
		viewport: { width: 1400, height: 900 },
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
} catch (e) {
	console.log(`SKIP: Chromium (${executablePath}) cannot start: ${String(e.message).split('\n')[0]}`);
	fs.rmSync(userDataDir, { recursive: true, force: true });
	process.exit(77);
}

const problems = [];
const requests = [];
function watch(page) {
	page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
	page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
	page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
}

// expected callers and callees of each function, by name
const names = expected.functions.map((f) => f.name);
// the flat profile's calls are gprof's, from other functions; aprof's JSON
// counts the recursive activations too
const aprof = expected.format === 'aprof';
// stack profiles (gperftools) record no calls: null, shown as 0
const outsideCalls = (f) => (aprof ? f.calls - f.recursive_calls : f.calls ?? 0);
const callers = names.map(() => new Set());
const callees = names.map(() => new Set());
for (const a of expected.arcs) {
	if (a.caller === a.callee) continue;
	callers[a.callee].add(names[a.caller]);
	callees[a.caller].add(names[a.callee]);
}

async function checkReport() {
	const page = await context.newPage();
	watch(page);
	const t0 = Date.now();
	await page.goto(pathToFileURL(path.resolve(reportPath)).href, { waitUntil: 'load' });
	await page.waitForSelector('#flat tbody tr', { state: 'attached' });
	const loadMs = Date.now() - t0;
	console.log(`info: loaded in ${loadMs} ms`);
	await page.screenshot({ path: path.join(outDir, `${name}-summary.png`), fullPage: false });

	await page.click('header nav a[href="#functions"]');
	const complete = () => page.waitForFunction(() => document.getElementById('flat').getAttribute('data-complete') === '1');
	await complete();
	console.log(`info: every row in after ${Date.now() - t0} ms`);
	const rows = await page.$$eval('#flat tbody tr', (r) => r.length);
	check(rows === expected.functions.length,
		`the flat profile has one row per function (${rows} rows, ${expected.functions.length} functions)`);

	// the function with the most callers and callees
	let pick = -1, best = -1;
	names.forEach((n, i) => {
		const s = Math.min(callers[i].size, 3) * 10 + Math.min(callees[i].size, 3);
		if (callers[i].size && callees[i].size && s > best) { best = s; pick = i; }
	});
	if (pick < 0) pick = 0;
	const t1 = Date.now();
	await page.click(`#flat tbody tr[data-fn="${pick}"] a.fn`);
	await page.waitForFunction((n) => document.getElementById('detail-name')?.textContent === n, names[pick]);
	const clickMs = Date.now() - t1;
	console.log(`info: selecting a function took ${clickMs} ms`);
	const shown = async (id) => new Set(await page.$$eval(`#${id} a.fn`, (a) => a.map((x) => x.textContent)));
	const gotCallers = await shown('callers'), gotCallees = await shown('callees');
	const same = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));
	check(same(gotCallers, callers[pick]),
		`clicking ${names[pick]} shows its callers [${[...callers[pick]].join(', ')}] (shown: [${[...gotCallers].join(', ')}])`);
	check(same(gotCallees, callees[pick]),
		`clicking ${names[pick]} shows its callees [${[...callees[pick]].join(', ')}] (shown: [${[...gotCallees].join(', ')}])`);
	if (!expected.arcs.length && aprof) {
		const said = await page.$eval('#callers', (d) => d.textContent);
		check(/no call graph/.test(said), `without a calling-context tree the callers are unknown ("${said}")`);
	}
	await page.screenshot({ path: path.join(outDir, `${name}-functions.png`) });

	// a caller is one click away
	if (gotCallers.size) {
		const c = [...gotCallers][0];
		await page.click(`#callers a.fn >> text="${c}"`);
		await page.waitForFunction((n) => document.getElementById('detail-name')?.textContent === n, c);
		check(true, `clicking the caller ${c} shows it`);
	}

	// sorting by calls, then filtering (timed: a person waits for these)
	const t2 = Date.now();
	await page.click('#flat th[data-key="calls"]');
	await page.waitForFunction(() => document.querySelector('#flat th[data-key="calls"]').classList.contains('sorted-desc'));
	const sortMs = Date.now() - t2;
	await complete();
	console.log(`info: sorting ${rows} rows took ${sortMs} ms (the first rows), ${Date.now() - t2} ms (all)`);
	const firstCalls = await page.$eval('#flat tbody tr', (r) => +r.getAttribute('data-fn'));
	const maxCalls = Math.max(...expected.functions.map(outsideCalls));
	check(outsideCalls(expected.functions[firstCalls]) === maxCalls, `sorting by calls puts ${names[firstCalls]} (${maxCalls} calls) first`);
	const t3 = Date.now();
	await page.fill('#filter', names[pick]);
	await complete();
	const filterMs = Date.now() - t3;
	console.log(`info: filtering took ${filterMs} ms`);

	const filtered = await page.$$eval('#flat tbody tr', (r) => r.map((x) => +x.getAttribute('data-fn')));
	check(filtered.includes(pick) && filtered.length <= rows, `filtering by "${names[pick]}" keeps it (${filtered.length} rows)`);
	await page.fill('#filter', '');
	await complete();

	// the flame graph: search for the picked function
	await page.click('header nav a[href="#flame"]');
	const flame = await page.$('#flame svg.sp-flame');
	check(flame !== null, 'the report has a flame graph');
	if (flame) {
		await page.fill('#flame input.search', names[pick].replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
		const matched = await page.$eval('#flame .matched', (t) => t.textContent);
		check(/^Matched: [0-9.]+%$/.test(matched), `searching the flame graph reports "${matched}"`);
		await page.screenshot({ path: path.join(outDir, `${name}-flame.png`) });
	}
	if (await page.$('header nav a[href="#source"]')) {
		await page.click('header nav a[href="#source"]');
		await page.screenshot({ path: path.join(outDir, `${name}-source.png`) });
	}
	if (wantPlots)
		await checkPlots(page);
	if (await page.$('header nav a[href="#diff"]')) {
		await page.click('header nav a[href="#diff"]');
		const drows = await page.$$eval('#difftable tbody tr', (r) => r.length);
		check(drows > 0, `the differences table has ${drows} rows`);
		await page.screenshot({ path: path.join(outDir, `${name}-diff.png`) });
	}
	await page.close();
}

// Every plot of the page's data is drawn: a dot per measured point, a
// dashed line per fitted curve and a shaded band around each (the 95%
// interval of its exponent); each routine has a fit in PROFILE.json,
// and its worst-case points are its (size, max) points there.
async function checkPlots(page) {
	const data = await page.evaluate(() => JSON.parse(document.getElementById('sp-data').textContent).plots);
	check(data.length > 0, `the page has ${data.length} cost plots`);
	await page.click('header nav a[href="#plots"]');
	const drawn = async () => page.$$eval('#plots svg.plot', (p) => p.map((x) => [x.querySelectorAll('circle').length, x.querySelectorAll('polyline.fit').length, x.querySelectorAll('polygon.band').length]));
	const count = (p, line, log) => p.curves.filter((c) => c.line === line && !c.band)
		.reduce((n, c) => n + (line ? 1 : c.points.filter((q) => !log || (q[0] > 0 && q[1] > 0)).length), 0);
	let got = await drawn();
	const bands = (p) => p.curves.filter((c) => c.band).length;
	check(got.length === data.length && data.every((p, i) => got[i][0] === count(p, false, false) && got[i][1] === count(p, true, false) &&
		got[i][2] === bands(p) && got[i][2] === got[i][1]),
		`each plot has its points, fitted curves and their bands (${JSON.stringify(got.slice(0, 4))}...)`);
	const byName = new Map(expected.functions.map((f) => [f.name, f]));
	const bad = data.filter((p) => {
		const f = byName.get(p.name), worst = p.curves.find((c) => c.kind === 'worst');
		const fits = p.curves.filter((c) => c.line).map((c) => c.kind).sort().join(',');
		return !f || !f.fit || !worst || fits !== (f.fit_avg ? 'fit-avg,fit-worst' : 'fit-worst') ||
			worst.points.length !== f.points.length || worst.points.some((q, i) => q[0] !== f.points[i].size || q[1] !== f.points[i].max);
	}).map((p) => p.name);
	check(bad.length === 0, `every plot is a routine with a fit, its worst case and both fits as in the JSON ${bad.slice(0, 3)}`);
	await page.screenshot({ path: path.join(outDir, `${name}-plots.png`) });
	await page.check('#plot-log');
	got = await drawn();
	check(got.length === data.length && data.every((p, i) => got[i][0] === count(p, false, true) && got[i][1] === count(p, true, true)),
		'logarithmic axes redraw the plots (the points at 0 left out)');
	await page.screenshot({ path: path.join(outDir, `${name}-plots-log.png`) });
}

async function checkFlame() {
	const page = await context.newPage();
	watch(page);
	await page.goto(pathToFileURL(path.resolve(flameSvg)).href, { waitUntil: 'load' });
	const frames = await page.$$('g.f');
	check(frames.length > 1, `the flame graph ${path.basename(flameSvg)} has ${frames.length} frames`);
	// hover the widest frame above the root, then click it
	const target = await page.evaluate(() => {
		const fs = [...document.querySelectorAll('g.f')].filter((g) => +g.getAttribute('data-d') === 1);
		fs.sort((a, b) => b.getAttribute('data-v') - a.getAttribute('data-v'));
		const r = fs[0].querySelector('rect').getBoundingClientRect();
		return { x: r.x + 3, y: r.y + r.height / 2, name: fs[0].getAttribute('data-n') };
	});
	await page.mouse.move(target.x, target.y);
	const details = await page.$eval('.details', (t) => t.textContent);
	check(details.startsWith(target.name) && /%/.test(details), `hovering ${target.name} shows "${details}"`);
	await page.mouse.click(target.x, target.y);
	const reset = await page.$eval('.reset', (t) => getComputedStyle(t).display);
	check(reset !== 'none', 'clicking a frame zooms (the reset button shows)');
	await page.fill('input.search', target.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
	const matched = await page.$eval('.matched', (t) => t.textContent);
	check(/^Matched: [0-9.]+%$/.test(matched), `the search box reports "${matched}"`);
	await page.screenshot({ path: path.join(outDir, `${path.basename(flameSvg, '.svg')}.png`) });
	await page.close();
}

try {
	await checkReport();
	if (flameSvg) await checkFlame();
} catch (e) {
	check(false, `browser session: ${e.message.split('\n')[0]}`);
}
await context.close();
fs.rmSync(userDataDir, { recursive: true, force: true });
check(problems.length === 0, `no console or page error${problems.length ? ': ' + problems.join('; ') : ''}`);
check(requests.length === 0, `no network request${requests.length ? ': ' + requests.join(', ') : ''}`);
console.log(`screenshots: ${path.resolve(outDir)}`);
process.exit(failures ? 1 : 0);
