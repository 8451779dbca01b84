#!/usr/bin/env node
// The differential campaign: generated cases answered by Charter and by
// Cedar (cedar-wasm, in process), compared on decision, reasons (as a set)
// and erroring policy ids (as a set). A disagreement is minimised and saved
// as a reproducer that --replay runs again.
//
//   node differential.js --charter PATH --seed S --count N [--features LIST]
//                        [--out DIR] [--start K] [--jobs J] [--max-saved M]
//                        [--charter-batch PATH]
//   node differential.js --charter PATH --replay FILE|DIR
//   node differential.js --charter PATH --case DIR [--out DIR]
//
// --case compares one hand-written case (DIR/policies.cedar, entities.json,
// requests.json and optionally links.json, as `gen.js --out` writes them) and saves it as a reproducer
// (not minimised) when the engines disagree.
//
// With --charter-batch (the charter_oracle_batch test tool), the campaign asks
// one long-lived Charter process through the same public API instead of
// running `charter authorize` once per case; a disagreement is still checked
// again, minimised and replayed through the CLI at --charter.
//
// LIST is `a,b,c`, `all` or `@FILE` (default: @features.txt beside this
// script). Exit status 0 when everything agrees, 1 on any disagreement, 2 on
// bad usage.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { generateCase } = require('./gen');
const features = require('./lib/features');
const oracle = require('./lib/oracle');
const { writeCase, runCharter, compare, runBoth } = require('./lib/compare');
const { minimize } = require('./lib/minimize');
const { OraclePool } = require('./lib/pool');
const { CharterBatch } = require('./lib/batch');

const DEFAULT_OUT = path.join(__dirname, 'regressions');

function usage(message) {
  if (message) process.stderr.write(`differential.js: ${message}\n`);
  process.stderr.write(
    'usage: node differential.js --charter PATH --seed S --count N [--features LIST] [--out DIR]\n' +
    '                            [--start K] [--jobs J] [--max-saved M] [--charter-batch PATH]\n' +
    '       node differential.js --charter PATH --replay FILE|DIR\n' +
    '       node differential.js --charter PATH --case DIR [--out DIR]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const flags = { seed: '1', count: '100', start: '0', jobs: '2', 'max-saved': '20', out: DEFAULT_OUT };
  const known = new Set(['charter', 'seed', 'count', 'features', 'out', 'replay', 'case', 'start', 'jobs',
    'max-saved', 'charter-batch']);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--help' || argv[i] === '-h') usage();
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !known.has(m[1])) usage(`unknown argument \`${argv[i]}\``);
    const v = m[2] !== undefined ? m[2] : argv[++i];
    if (v === undefined) usage(`\`--${m[1]}\` needs a value`);
    flags[m[1]] = v;
  }
  if (!flags.charter) usage('`--charter` is required');
  if (!fs.existsSync(flags.charter)) usage(`no Charter binary at ${flags.charter}`);
  if (flags['charter-batch'] !== undefined && !fs.existsSync(flags['charter-batch'])) {
    usage(`no charter_oracle_batch at ${flags['charter-batch']}`);
  }
  for (const k of ['count', 'start', 'jobs', 'max-saved']) {
    if (!/^\d+$/.test(flags[k])) usage(`\`--${k}\` must be a number`);
    flags[k] = Number(flags[k]);
  }
  if (flags.features === undefined) flags.features = `@${features.DEFAULT_FILE}`;
  return flags;
}

// ----------------------------------------------------------------- reporting

function contentName(kind, c) {
  const h = crypto.createHash('sha256')
    .update(JSON.stringify(c.links && c.links.length ? [c.policies, c.entities, c.requests, c.links]
      : [c.policies, c.entities, c.requests]))
    .digest('hex');
  return `${kind}-${h.slice(0, 16)}.json`;
}

function describe(verdict, charter, cedar, c) {
  const lines = [];
  lines.push(`  ${verdict.kind}: ${verdict.detail}`);
  lines.push('  policies:');
  for (const l of c.policies.trimEnd().split('\n')) lines.push(`    ${l}`);
  if (c.links && c.links.length) lines.push(`  links: ${JSON.stringify(c.links)}`);
  lines.push(`  entities: ${JSON.stringify(c.entities)}`);
  const r = verdict.request !== undefined ? verdict.request : 0;
  if (c.requests.length === 1 || verdict.request !== undefined) {
    lines.push(`  request: ${JSON.stringify(c.requests[r])}`);
  } else {
    lines.push(`  requests: ${JSON.stringify(c.requests)}`);
  }
  const side = (x) => (x.error !== undefined ? `error: ${x.error}`
    : JSON.stringify(verdict.request !== undefined ? x.answers[r] : x.answers));
  lines.push(`  charter: ${side(charter)}`);
  lines.push(`  cedar:   ${side(cedar)}`);
  return lines.join('\n');
}

function saveReproducer(dir, verdict, result, c, meta) {
  fs.mkdirSync(dir, { recursive: true });
  const name = contentName(verdict.kind, c);
  const file = path.join(dir, name);
  const body = {
    kind: verdict.kind,
    detail: verdict.detail,
    policies: c.policies,
    entities: c.entities,
    requests: c.requests,
    ...(c.links && c.links.length ? { links: c.links } : {}),
    charter: result.charter,
    cedar: result.cedar,
    found: meta,
  };
  fs.writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}

// ------------------------------------------------------------------ campaign

async function campaign(flags) {
  const feats = features.parseFeatures(flags.features);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-oracle-'));
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  let requests = 0;
  let bothError = 0;
  const decisions = { allow: 0, deny: 0, erroringPolicies: 0 };
  const fired = {};      // the widened features: cases using each
  const linkKinds = {};  // feature `links`: the odd links generated, by kind
  const saved = new Set();
  const inFlight = [];
  const pool = new OraclePool(Math.max(1, flags.jobs));
  const batch = flags['charter-batch'] !== undefined ? new CharterBatch(flags['charter-batch']) : null;

  let lastReport = started;
  const finish = async (item) => {
    const charter = await item.charterPromise;
    item.cedar = await item.cedarPromise;
    const verdict = compare(charter, item.cedar);
    requests += item.c.requests.length;
    for (const k of Object.keys(item.c.widened || {})) fired[k] = (fired[k] || 0) + 1;
    if ((item.c.linkKinds || []).length) fired.links = (fired.links || 0) + 1;
    for (const k of item.c.linkKinds || []) linkKinds[k] = (linkKinds[k] || 0) + 1;
    if (Date.now() - lastReport > 30000) {
      lastReport = Date.now();
      process.stderr.write(`... ${passed + failed + 1}/${flags.count} cases, ${failed} failed, ` +
        `${(requests / ((lastReport - started) / 1000)).toFixed(0)} requests/s\n`);
    }
    if (verdict.agree) {
      passed++;
      if (verdict.kind === 'both-error') {
        bothError++;
        process.stderr.write(`case ${flags.seed}/${item.index}: both refused the case: ${verdict.detail}\n`);
      } else {
        for (const a of item.cedar.answers) {
          decisions[a.decision]++;
          decisions.erroringPolicies += a.errors.length;
        }
      }
      fs.rmSync(item.dir, { recursive: true, force: true });
      return;
    }
    failed++;
    process.stdout.write(`DISAGREEMENT in case --seed ${flags.seed} --start ${item.index} (features ${[...feats].join(',')})\n`);
    const lines = verdict.detail.split('\n');
    const more = lines.length > 1 ? ` [+${lines.length - 1} lines]` : '';
    process.stdout.write(`  ${verdict.kind}${verdict.request !== undefined ? ` (request ${verdict.request})` : ''}: ${lines[0]}${more}\n`);
    if (saved.size >= flags['max-saved']) {
      process.stdout.write('  not minimised: --max-saved reached\n');
      return;
    }
    // A disagreement that does not come back when the case runs again is
    // not a reproducer (an engine that is not deterministic, or a machine
    // in trouble, e.g. out of memory); say so loudly, save nothing.
    const mdir = path.join(tmp, `min-${item.index}`);
    const again = runBoth(flags.charter, mdir, item.c);
    if (again.verdict.agree || again.verdict.kind !== verdict.kind) {
      process.stdout.write(`  NOT REPRODUCIBLE: running the case again gives ${again.verdict.kind}\n`);
      process.stdout.write(`${describe(verdict, charter, item.cedar, item.c)}\n`);
      return;
    }
    const fails = (cand) => {
      const r = runBoth(flags.charter, mdir, cand);
      return !r.verdict.agree && r.verdict.kind === verdict.kind;
    };
    const { case: small, tries } = minimize(item.c, fails, { request: verdict.request });
    const result = runBoth(flags.charter, mdir, small);
    if (result.verdict.agree) {
      process.stdout.write(`  NOT REPRODUCIBLE: the minimised case agrees (${tries} runs)\n`);
      return;
    }
    const file = saveReproducer(flags.out, result.verdict, result, small,
      { seed: flags.seed, index: item.index, features: [...feats], cedar: oracle.cedarVersion() });
    saved.add(file);
    process.stdout.write(`${describe(result.verdict, result.charter, result.cedar, small)}\n`);
    process.stdout.write(`  minimised in ${tries} runs; saved ${path.relative(process.cwd(), file)}\n`);
  };

  for (let i = flags.start; i < flags.start + flags.count; i++) {
    const c = generateCase(flags.seed, i, feats);
    const dir = path.join(tmp, `case-${i}`);
    // Charter runs in a child process, Cedar in a pool process; a few
    // cases are in flight at once.
    const charterPromise = batch !== null ? batch.authorize(c)
      : runCharter(flags.charter, writeCase(dir, c), c.requests.length);
    const cedarPromise = pool.authorizeBatch(c.policies, c.entities, c.requests, c.links);
    inFlight.push({ index: i, c, dir, cedarPromise, charterPromise });
    if (inFlight.length >= 2 * flags.jobs + 2) await finish(inFlight.shift());
  }
  while (inFlight.length) await finish(inFlight.shift());
  await pool.close();
  if (batch !== null) batch.close();
  fs.rmSync(tmp, { recursive: true, force: true });

  const secs = (Date.now() - started) / 1000;
  const n = passed + failed;
  process.stdout.write(
    `${n} cases, ${requests} requests in ${secs.toFixed(1)} s: ` +
    `${(n / secs).toFixed(1)} cases/s, ${(requests / secs).toFixed(0)} requests/s ` +
    `(cedar answers: ${decisions.allow} allow, ${decisions.deny} deny, ` +
    `${decisions.erroringPolicies} policy errors${bothError ? `; ${bothError} cases refused by both` : ''})\n`);
  process.stdout.write(`widened features (cases): ${JSON.stringify(fired)}; odd links: ${JSON.stringify(linkKinds)}\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

// -------------------------------------------------------------------- replay

function replay(flags) {
  const target = flags.replay;
  let files;
  if (fs.existsSync(target) && fs.statSync(target).isDirectory()) {
    files = fs.readdirSync(target).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(target, f));
  } else if (fs.existsSync(target)) {
    files = [target];
  } else {
    usage(`no reproducer at ${target}`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-replay-'));
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    let c;
    try {
      c = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      process.stdout.write(`FAIL ${file}: unreadable reproducer: ${e.message}\n`);
      failed++;
      continue;
    }
    const r = runBoth(flags.charter, tmp, c);
    if (c.cedar !== undefined && JSON.stringify(stripMessages(c.cedar)) !== JSON.stringify(stripMessages(r.cedar))) {
      process.stdout.write(`note ${file}: the oracle's answer differs from the saved one (a different cedar-wasm?)\n`);
    }
    if (r.verdict.agree) {
      passed++;
      process.stdout.write(`ok   ${path.basename(file)}\n`);
    } else {
      failed++;
      process.stdout.write(`FAIL ${path.basename(file)}\n${describe(r.verdict, r.charter, r.cedar, c)}\n`);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 ? 0 : 1;
}

function stripMessages(result) {
  if (result.error !== undefined) return { error: true };
  return result.answers.map((a) => ({
    decision: a.decision,
    reasons: [...a.reasons].sort(),
    errors: a.errors.map((e) => e.policy).sort(),
  }));
}

// ---------------------------------------------------------------------- case

function oneCase(flags) {
  const read = (name) => fs.readFileSync(path.join(flags.case, name), 'utf8');
  let c;
  try {
    c = { policies: read('policies.cedar'), entities: JSON.parse(read('entities.json')),
      requests: JSON.parse(read('requests.json')) };
    if (fs.existsSync(path.join(flags.case, 'links.json'))) c.links = JSON.parse(read('links.json'));
  } catch (e) {
    usage(`cannot read the case in ${flags.case}: ${e.message}`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-case-'));
  const r = runBoth(flags.charter, tmp, c);
  fs.rmSync(tmp, { recursive: true, force: true });
  if (r.verdict.agree) {
    process.stdout.write('1 passed, 0 failed\n');
    return 0;
  }
  const file = saveReproducer(flags.out, r.verdict, r, c, { by: 'hand (--case)', cedar: oracle.cedarVersion() });
  process.stdout.write(`${describe(r.verdict, r.charter, r.cedar, c)}\n  saved ${path.relative(process.cwd(), file)}\n`);
  process.stdout.write('0 passed, 1 failed\n');
  return 1;
}

// ---------------------------------------------------------------------- main

async function main() {
  const flags = parseArgs(process.argv.slice(2));
  try {
    oracle.loadCedar();
  } catch (e) {
    process.stderr.write(`differential.js: ${e.message}\n`);
    process.exit(1);
  }
  let status;
  if (flags.replay !== undefined) status = replay(flags);
  else if (flags.case !== undefined) status = oneCase(flags);
  else status = await campaign(flags);
  process.exit(status);
}

main().catch((e) => {
  process.stderr.write(`differential.js: ${e.stack || e}\n`);
  process.exit(1);
});
