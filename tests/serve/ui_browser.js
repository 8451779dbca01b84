// The live page of `charter serve` in Debian's Chromium (playwright-core,
// which downloads no browser): opened once, it shows the decisions per
// policy and the loads, then, with no reload of the page, the admission
// reviews posted meanwhile and a reload of the server's policies (SIGHUP).
// With --allocation, the page of a server given --workloads whose last
// read failed: the quota bars of the last good read, and the error.
// Run by ui_test.sh, which starts the server.
//
//   node ui_browser.js ADMIN_URL TLS_URL SERVER_PID OUT_DIR REVIEWS_DIR
//   node ui_browser.js --allocation ADMIN_URL OUT_DIR
// (NODE_EXTRA_CA_CERTS names the server's certificate.)
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { launch, TIMEOUT_MS } = require('../testing/chromium');

const allocationMode = process.argv[2] === '--allocation';
const [admin, tls, pid, out, reviews] = allocationMode
  ? [process.argv[3], null, null, process.argv[4], null] : process.argv.slice(2);

async function review(file, times) {
  const body = fs.readFileSync(path.join(reviews, file));
  for (let i = 0; i < times; i++) {
    const answer = await fetch(tls + '/v1/admission', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body,
    });
    assert.equal(answer.status, 200, `${file}: ${answer.status}`);
    await answer.text();
  }
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  const browser = await launch(chromium, { width: 1100, height: 800 });
  try {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    const requests = [];
    const errors = [];
    let navigations = 0;
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations++; });

    await page.goto(admin + '/ui', { waitUntil: 'load' });
    assert.equal(await page.title(), 'charter serve');
    await page.waitForSelector('#status[data-updates]');
    if (allocationMode) {
      await checkAllocation(page);
      assert.deepEqual(errors, [], 'no script error');
      return;
    }
    assert.ok(await page.locator('#allocation-section').isHidden(), 'no allocation without --workloads');
    // The two denials ui_test.sh made before.
    const none = page.locator('#decisions tr[data-policy="(no policy permits)"] td');
    assert.deepEqual((await none.allInnerTexts()).filter((_, i) => i !== 1), ['(no policy permits)', '0', '2', '0']);
    assert.match(await page.locator('#bundle').innerText(), /^Serving sha256:[0-9a-f]{64} \(\d+ policies\)/);
    const legend = await page.locator('p.legend').innerText();
    for (const word of ['allow', 'deny', 'no opinion', 'a bar every 10 seconds']) {
      assert.ok(legend.includes(word), `the legend shows "${word}": ${legend}`);
    }

    // More decisions while the page is open: it shows them by itself.
    await review('pod-create-bare-gpu.json', 3);   // deny: gpu-work-goes-through-kueue
    await review('pytorchjob-create.json', 2);     // allow: team-admits-in-own-namespace
    const kueue = page.locator('#decisions tr[data-policy="gpu-work-goes-through-kueue"]');
    await kueue.locator('td.deny', { hasText: /^3$/ }).waitFor();
    assert.equal(await kueue.locator('td.allow').innerText(), '0');
    assert.ok((await kueue.locator('svg.strip rect.deny').count()) >= 1, 'a deny bar in its strip');
    const team = page.locator('#decisions tr[data-policy="team-admits-in-own-namespace"]');
    await team.locator('td.allow', { hasText: /^2$/ }).waitFor();
    // Most decisions first.
    const order = await page.locator('#decisions tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.policy));
    assert.deepEqual(order, ['gpu-work-goes-through-kueue', '(no policy permits)', 'team-admits-in-own-namespace']);

    // A reload of the policies: the loads' history grows, newest first.
    const loads = page.locator('#loads tbody tr');
    assert.equal(await loads.count(), 1);
    assert.deepEqual((await loads.first().locator('td').allInnerTexts()).slice(1, 3), ['start', 'loaded']);
    process.kill(Number(pid), 'SIGHUP');
    await page.waitForFunction(() => document.querySelectorAll('#loads tbody tr').length === 2, null,
      { timeout: TIMEOUT_MS });
    assert.deepEqual((await loads.first().locator('td').allInnerTexts()).slice(1, 3), ['SIGHUP', 'loaded']);

    await page.screenshot({ path: path.join(out, 'screenshot.png'), fullPage: true });
    assert.equal(navigations, 1, 'the page was never reloaded');
    assert.deepEqual(errors, [], 'no script error');
    const foreign = requests.filter((u) => !u.startsWith(admin + '/ui'));
    assert.deepEqual(foreign, [], `requests beyond the server's /ui: ${foreign.join(', ')}`);
    assert.ok(requests.filter((u) => u === admin + '/ui/data').length >= 2, 'the data was asked for again');
    console.log(`ui_browser: ok (screenshot ${path.join(out, 'screenshot.png')})`);
  } finally {
    await browser.close();
  }
}

// The page of the governance example's server: a quota bar a queue with
// its figures, the legend, and the error of the last read.
async function checkAllocation(page) {
  const section = page.locator('#allocation-section');
  await section.waitFor({ state: 'visible' });
  const queues = await page.locator('#allocation g.bar').evaluateAll((bars) => bars.map((b) => b.dataset.queue));
  assert.equal(new Set(queues).size, 10, `a bar a queue (and resource): ${queues}`);
  const figures = page.locator('#allocation g.bar[data-queue="gpu-east-nlp-pretrain"] text.figures');
  assert.ok(await figures.isVisible(), "nlp-pretrain's figures are visible");
  assert.equal(await figures.textContent(), 'used 64 of nominal 64: 64 own; borrow limit 0; lend no limit');
  const vision = page.locator('#allocation g.bar[data-queue="gpu-east-vision-research"]');
  assert.equal(await vision.getAttribute('data-used'), '0', 'vision-train has finished');
  const legend = (await page.locator('#allocation g.legend text').allTextContents()).join(' ');
  assert.ok(legend.includes('own quota in use') && legend.includes('nominal quota'), `the legend: ${legend}`);
  const note = page.locator('#allocation-note');
  assert.equal(await note.getAttribute('class'), 'failed');
  assert.match(await note.innerText(), /workloads\.json holds, read .*The last read failed, so this is the one before: .*workloads\.json:/);
  await page.screenshot({ path: path.join(out, 'allocation.png'), fullPage: true });
  console.log(`ui_browser: allocation ok (screenshot ${path.join(out, 'allocation.png')})`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
