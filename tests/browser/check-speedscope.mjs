// SPDX-License-Identifier: GPL-3.0-or-later
//
// Opens symprof's --format=speedscope file in speedscope itself (the npm
// package's page, node_modules/speedscope/dist/release/index.html) in
// headless Chromium, as a person would: "Browse" for the file, look at the
// flame chart, then the Sandwich view, whose table lists every frame with
// its total and self value. Checks that speedscope imports the file without
// an error or a network request, that the table shows exactly the function
// names of symprof's --format=folded output of the same profile, and that
// each one's self value is its share of the folded values.
//
//   node check-speedscope.mjs FILE.json FOLDED.txt OUTDIR NAME
//
// Exit status: 0 pass, 1 fail, 77 Chromium cannot start (ctest: skipped).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [file, foldedPath, outDir, name] = process.argv.slice(2);
if (!file || !foldedPath || !outDir || !name) {
	console.error('usage: check-speedscope.mjs FILE.json FOLDED.txt OUTDIR NAME');
	process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const app = path.join(here, 'node_modules/speedscope/dist/release/index.html');
fs.mkdirSync(outDir, { recursive: true });

let failures = 0;
function check(ok, what) {
	console.log(`${ok ? 'ok' : 'FAIL'}: ${name}: ${what}`);
	if (!ok) failures++;
}

// self value per function name from the folded stacks, and their total
const selfOf = new Map();
let foldedTotal = 0;
for (const line of fs.readFileSync(foldedPath, 'utf8').split('\n')) {
	const m = line.match(/^(.*) (\S+)$/);
	if (!m) continue;
	const frames = m[1].split(';');
	const v = Number(m[2]);
	foldedTotal += v;
	for (const f of frames) if (!selfOf.has(f)) selfOf.set(f, 0);
	selfOf.set(frames[frames.length - 1], selfOf.get(frames[frames.length - 1]) + v);
}
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
const total = doc.profiles[0].endValue;
const unit = doc.profiles[0].unit;

// speedscope's own formatting of a value: "459.00ms (79%)", "1.20K (3%)"
const SCALE = { ns: 1e-9, 'µs': 1e-6, us: 1e-6, ms: 1e-3, s: 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, K: 1e3, M: 1e6, B_: 1e9 };
function valueOf(text) {
	const m = text.replace(/,/g, '').trim().match(/^([0-9.]+)\s*([a-zA-Zµ]*)/);
	if (!m) return NaN;
	const u = m[2];
	if (u === '') return Number(m[1]);
	if (unit === 'seconds') {
		if (u === 'min') return Number(m[1]) * 60;
		return u in SCALE ? Number(m[1]) * SCALE[u] : NaN;
	}
	if (unit === 'bytes') return u in SCALE ? Number(m[1]) * SCALE[u] : NaN;
	return Number(m[1]) * ({ K: 1e3, M: 1e6, B: 1e9 }[u] ?? NaN);
}

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'symprof-chromium-'));
let context;
try {
	context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		viewport: { width: 1400, height: 2400 },
		// speedscope draws with WebGL: Chromium's software renderer
		args: ['--headless', '--no-sandbox', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync',
			'--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
	});
} catch (e) {
	console.log(`SKIP: Chromium cannot start: ${String(e.message).split('\n')[0]}`);
	fs.rmSync(userDataDir, { recursive: true, force: true });
	process.exit(77);
}

const problems = [];
const requests = [];
try {
	const page = await context.newPage();
	page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
	page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
	page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url()); });
	const imported = new Promise((resolve) => page.on('console', (m) => { if (/^import/.test(m.text())) resolve(); }));
	await page.goto(pathToFileURL(app).href, { waitUntil: 'load' });
	await page.setInputFiles('input[type=file]', path.resolve(file));
	await Promise.race([imported, page.waitForTimeout(10000)]);
	await page.getByText('Sandwich').waitFor({ timeout: 10000 });
	const title = await page.evaluate(() => document.body.innerText);
	check(title.includes(doc.name), `speedscope shows the profile's name (${doc.name})`);
	await page.setViewportSize({ width: 1400, height: 900 });
	await page.screenshot({ path: path.join(outDir, `${name}-speedscope.png`) });
	await page.setViewportSize({ width: 1400, height: 2400 });
	await page.getByText('Sandwich').click();
	await page.waitForSelector('table tr td', { timeout: 10000 });
	await page.screenshot({ path: path.join(outDir, `${name}-speedscope-sandwich.png`) });
	// the table's rows: total, self, name (it draws the rows in view only:
	// scroll until every one has been seen)
	const rows = new Map();
	let still = 0; // reads in a row at the bottom that found nothing new
	for (let pass = 0; pass < 400; pass++) {
		const seen = await page.$$eval('table tr', (trs) => trs
			.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText))
			.filter((t) => t.length === 3));
		const before = rows.size;
		for (const [, self, fn] of seen) rows.set(fn.trim(), self);
		const moved = await page.evaluate(() => {
			const box = [...document.querySelectorAll('div')].find((d) => d.scrollHeight > d.clientHeight + 4 && d.querySelector('table'));
			if (!box || box.scrollTop + box.clientHeight >= box.scrollHeight) return false;
			box.scrollTop += box.clientHeight / 2;
			return true;
		});
		// the rows of the last scroll may be drawn late on a busy machine:
		// stop only after a few quiet reads at the bottom
		still = !moved && rows.size === before ? still + 1 : 0;
		if (still >= 5) break;
		await page.waitForTimeout(still ? 200 : 50);
	}
	const want = [...selfOf.keys()].sort();
	const got = [...rows.keys()].sort();
	const missing = want.filter((n) => !rows.has(n));
	const extra = got.filter((n) => !selfOf.has(n));
	check(!missing.length && !extra.length,
		`the Sandwich table lists the ${want.length} functions of --format=folded` +
		(missing.length ? `; missing ${missing.slice(0, 5).join(', ')}` : '') +
		(extra.length ? `; extra ${extra.slice(0, 5).join(', ')}` : ''));
	const bad = [];
	for (const [fn, self] of rows) {
		if (!selfOf.has(fn)) continue;
		const want = (selfOf.get(fn) / foldedTotal) * total;
		const shown = valueOf(self.split('(')[0]);
		// speedscope prints 2 decimals or 3 significant digits
		if (!(Math.abs(shown - want) <= Math.max(0.006 * want, 0.01 * total / 1000 + 1e-9)))
			bad.push(`${fn}: shows ${self.trim()}, ${want} expected`);
	}
	check(!bad.length, `every function's self value is its share of the folded stacks (${unit})` +
		(bad.length ? `; ${bad.slice(0, 3).join('; ')}` : ''));
} catch (e) {
	check(false, `speedscope: ${String(e.message).split('\n')[0]}`);
} finally {
	await context.close();
	fs.rmSync(userDataDir, { recursive: true, force: true });
}
check(!problems.length, `no errors in the page${problems.length ? ': ' + problems.slice(0, 3).join('; ') : ''}`);
check(!requests.length, `no network requests${requests.length ? ': ' + requests.slice(0, 3).join(', ') : ''}`);
process.exit(failures ? 1 : 0);
