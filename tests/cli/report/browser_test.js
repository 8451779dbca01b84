// `charter report`'s index.html in a real browser: Debian's Chromium,
// headless, driven by Playwright's core package (which downloads no
// browser). The report of this directory's fixture is opened from a file://
// URL and checked for what a person sees: a bar per team with its figures,
// the legend, the usage table, the pending list with the reasons `charter
// schedule` gives, the decisions per policy with the top denial reasons,
// and that the page asked for nothing but its own file.
// A screenshot of the page is kept in the build tree.
//
//   node tests/cli/report/browser_test.js CHARTER OUT_DIR
'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { launch, TIMEOUT_MS } = require('../../testing/chromium');

const charter = path.resolve(process.argv[2] || 'build/cli/charter');
const out = path.resolve(process.argv[3] || 'build/report-browser');

async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  execFileSync(charter, ['report', '--policies', path.join(__dirname, 'cluster.charter'),
    '--workloads', path.join(__dirname, 'workloads.yaml'), '--now', '2026-03-02T12:00:00Z',
    '--decision-log', path.join(__dirname, 'decisions.jsonl'), '-o', out],
  { stdio: ['ignore', 'inherit', 'pipe'], timeout: TIMEOUT_MS });

  const browser = await launch(chromium, { width: 1300, height: 900 });
  try {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(TIMEOUT_MS);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    const url = 'file://' + path.join(out, 'index.html');
    const response = await page.goto(url, { waitUntil: 'load' });
    assert.ok(response === null || response.ok(), 'the page loads');

    assert.equal(await page.title(), 'Charter report');
    // A bar per team, with its figures as a person reads them.
    const bars = page.locator('#quota-tree g.bar');
    assert.equal(await bars.count(), 2, 'a bar per team');
    const teamA = page.locator('#quota-tree g.bar[data-queue="team-a"] text.figures');
    assert.equal(await teamA.textContent(), 'used 4 of nominal 4: 4 own; borrow limit 4; lend limit 2');
    assert.ok(await teamA.isVisible(), "team-a's figures are visible");
    const teamB = page.locator('#quota-tree g.bar[data-queue="team-b"] text.figures');
    assert.equal(await teamB.textContent(),
      'used 0 of nominal 4: 0 own; borrow no limit; lend no limit; 4 idle to lend');
    // Each bar's scale is its nominal quota plus its borrowing limit where
    // there is one: team-a's 4 own of 4 + 4 fill half its bar; team-b's 4
    // idle of 4 fill all of it.
    const box = (q, cls) => page.locator(`#quota-tree g.bar[data-queue="${q}"] rect.${cls}`).boundingBox();
    const [frameA, ownA, frameB, idleB] =
      await Promise.all([box('team-a', 'frame'), box('team-a', 'own'), box('team-b', 'frame'), box('team-b', 'idle')]);
    assert.ok(frameA.width > 100 && Math.abs(ownA.width - frameA.width / 2) < 1, `team-a: ${ownA.width} of ${frameA.width}`);
    assert.ok(Math.abs(idleB.width - frameB.width) < 1, `team-b: ${idleB.width} of ${frameB.width}`);

    // The legend.
    const legend = (await page.locator('#quota-tree g.legend text').allTextContents()).join(' ');
    assert.ok(await page.locator('#quota-tree g.legend').isVisible(), 'the legend is visible');
    for (const word of ['own quota in use', 'borrowed from the cohort', "lent to the cohort's borrowers", 'nominal quota',
      'nominal + borrowing limit']) {
      assert.ok(legend.includes(word), `the legend shows "${word}": ${legend}`);
    }

    // The usage table (GPU-hours over the period, as report_test.py works them out).
    const teamRow = page.locator('#teams tr[data-queue="team-a"] td');
    assert.deepEqual(await teamRow.allInnerTexts(), ['team-a', 'research', 'nvidia.com/gpu', '108', '12', '120']);

    // The pending list with the reasons `charter schedule` gives.
    const schedule = execFileSync(charter, ['schedule', '--policies', path.join(__dirname, 'cluster.charter'),
      '--workloads', path.join(__dirname, 'workloads.yaml'), '--now', '2026-03-02T12:00:00Z'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS });
    const p2Message = schedule.split('PENDING  p2')[1].split('\n')[1].trim();
    const p2 = await page.locator('#pending tr[data-workload="p2"] td').allInnerTexts();
    assert.deepEqual(p2.slice(0, 4), ['p2', 'team-a', 'WaitingForQuota', 'no_fit, inadmissible']);
    assert.equal(p2[5], p2Message);
    const p3 = await page.locator('#pending tr[data-workload="p3"] td').allInnerTexts();
    assert.equal(p3[2], 'PendingEvaluation');
    assert.ok(await page.locator('#pending').isVisible(), 'the pending list is visible');

    // Waiting: the percentiles as text.
    const waitA = await page.locator('#waiting g.wait[data-queue="team-a"] text.figures').textContent();
    assert.equal(waitA, 'p50 1h, p90 2h, max 2h (2 admitted); 0 evictions, 0 preempted');

    // Authorization: a row a policy with its totals, its bars where its
    // decisions fall, and the top denial reasons.
    const kueueRow = page.locator('#decisions g.policy-row[data-policy="gpu-work-goes-through-kueue"]');
    assert.ok(await kueueRow.isVisible(), 'the policy row is visible');
    assert.equal(await kueueRow.locator('text.figures').textContent(), '0 allow, 2 deny (peak 1 an hour)');
    assert.equal(await kueueRow.locator('rect.deny').count(), 2, 'a deny bar at each of its two hours');
    assert.equal(await page.locator('#decisions g.policy-row').count(), 6, 'a row a policy and outcome');
    const decisionLegend = (await page.locator('#decisions g.legend text').allTextContents()).join(' ');
    for (const word of ['allow', 'deny', 'no opinion', 'a bar an hour']) {
      assert.ok(decisionLegend.includes(word), `the decisions legend shows "${word}": ${decisionLegend}`);
    }
    const topDenial = await page.locator('#denials tr[data-reason] td').first().innerText();
    assert.equal(topDenial, 'gpu-work-goes-through-kueue');

    fs.mkdirSync(out, { recursive: true });
    await page.screenshot({ path: path.join(out, 'screenshot.png'), fullPage: true });
    // Nothing but the page itself was requested.
    assert.deepEqual(requests, [url], `requests: ${requests.join(', ')}`);
    console.log(`browser_test: ok (screenshot ${path.join(out, 'screenshot.png')})`);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
