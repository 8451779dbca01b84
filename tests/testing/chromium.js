// Debian's Chromium for the browser tests (tests/cli/report/browser_test.js,
// tests/serve/ui_browser.js), headless through playwright-core, which
// downloads no browser: a fresh profile of its own, the flags that keep it
// from reaching the network, and `close()` that removes the profile.
//
//   const { launch } = require('../../testing/chromium');
//   const browser = await launch(require('playwright-core').chromium, { width: 1300, height: 900 });
//   const page = await browser.context.newPage(); ... await browser.close();
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CHROMIUM = process.env.CHARTER_CHROMIUM || '/usr/bin/chromium';
// Generous: Chromium starts slowly on a loaded machine (and the sanitizer
// build serves slowly).
const TIMEOUT_MS = 60000;

async function launch(chromium, viewport) {
  assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: run \`make deps\` (Debian's chromium)`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: TIMEOUT_MS,
      viewport,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
        '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    return {
      context,
      async close() {
        await context.close();
        fs.rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (e) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw e;
  }
}

module.exports = { launch, TIMEOUT_MS };
