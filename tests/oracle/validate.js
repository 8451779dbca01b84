#!/usr/bin/env node
// The differential validation campaign: schemas from gen_schema.js with
// policy sets from gen.js (templates included), validated by Cedar's
// validator (cedar-wasm, strict mode) and by Charter (schema_tool batch).
// The two must agree, for every policy of every case, on whether it has
// validation errors; a schema that one rejects the other must reject too.
// Odd-numbered cases pass the schema in Cedar's JSON format (as cedar-wasm's
// schemaToJson writes it, then edited by gen_schema.js's jsonEdits), so both
// readers are exercised.
//
//   node validate.js --tool build/tests/core/schema/schema_tool --seed S --count N
//        [--start K] [--jobs J] [--out DIR] [--verbose]
//   node validate.js --tool … --replay DIR     (saved cases: DIR/*/ or one case)
//
// Cedar answers in --jobs child processes (lib/pool.js: --no-opt, recycled,
// a crashed one replaced and its batch retried), Charter in one schema_tool
// process per chunk of cases. Prints each disagreement, then `N cases (P
// policies …) in T s` and `A agreed, D disagreed`; exits 1 on any
// disagreement. A saved case is a directory with `schema.cedarschema` or
// `schema.json`, and `policies.cedar`.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { generateSchemaCase } = require('./gen_schema');
const { OraclePool } = require('./lib/pool');
const { loadCedar } = require('./lib/oracle');

const CHUNK = 400;  // cases a schema_tool process answers
const BATCH = 20;   // cases an oracle job answers

function parseArgs(argv) {
  const out = { seed: '1', count: 100, start: 0, tool: null, out: null, verbose: false, jobs: 2, replay: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seed') out.seed = argv[++i];
    else if (a === '--count') out.count = Number(argv[++i]);
    else if (a === '--start') out.start = Number(argv[++i]);
    else if (a === '--tool') out.tool = argv[++i];
    else if (a === '--out') out.out = argv[++i];
    else if (a === '--jobs') out.jobs = Math.max(1, Number(argv[++i]));
    else if (a === '--replay') out.replay = argv[++i];
    else if (a === '--verbose') out.verbose = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.tool) throw new Error('--tool PATH is required');
  return out;
}

// Byte offsets where each policy of the text starts (policies end at a `;`
// outside brackets, strings and comments).
function policyStarts(text) {
  const starts = [];
  let depth = 0;
  let i = 0;
  let start = 0;
  let seen = false;
  while (i < text.length) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      if (!seen) { seen = true; starts.push(start); }
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (!/\s/.test(c) && !seen) { seen = true; starts.push(start); }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ';' && depth === 0) { start = i + 1; seen = false; }
    i++;
  }
  return starts.map((s) => Buffer.byteLength(text.slice(0, s), 'utf8'));
}

function policyOf(starts, offset) {
  let k = 0;
  while (k + 1 < starts.length && starts[k + 1] <= offset) k++;
  return k;
}

// Charter's answers for `cases`, from one schema_tool process.
function charterAnswers(tool, cases) {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, ['batch'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`schema_tool exited with ${signal || code}: ${Buffer.concat(err).toString()}`));
        return;
      }
      const lines = Buffer.concat(out).toString().split('\n').filter((l) => l.length > 0);
      if (lines.length !== cases.length) {
        reject(new Error(`schema_tool answered ${lines.length} of ${cases.length}`));
        return;
      }
      resolve(lines.map((l, i) => {
        const a = JSON.parse(l);
        if (a.input_error) return { error: 'schema_tool could not read its input line' };
        const linkError = a.link_error;
        if (!a.schema_ok) return { schemaOk: false, linkError, messages: a.errors.map((e) => `${e.code} ${e.message}`) };
        if (linkError !== undefined) return { linkError };
        const starts = policyStarts(cases[i].policies);
        // An error of a link (CH0521) is placed at its template; its message names the link.
        const owner = (e) => {
          const m = /^link `(.*)` binds `\?(principal|resource)`/s.exec(e.message);
          return e.code === 'CH0521' && m ? `link:${m[1]}` : `policy${policyOf(starts, e.begin)}`;
        };
        const bad = new Set(a.errors.map(owner));
        return {
          schemaOk: true,
          bad: [...bad].sort(),
          messages: a.errors.map((e) => `${owner(e)} @${e.begin} ${e.code} ${e.message}`),
        };
      }));
    });
    child.stdin.end(cases.map((c) => JSON.stringify(c.linksForCharter !== undefined
      ? { schema: c.schemaForCharter, policies: c.policies, links: c.linksForCharter }
      : { schema: c.schemaForCharter, policies: c.policies })).join('\n'));
  });
}

// `a` is Cedar's answer, `b` Charter's. Charter reports a link fault even
// when it refuses the schema too, so that either order of the checks agrees.
function same(a, b) {
  if (a.error !== undefined || b.error !== undefined) return false;
  if (a.linkError !== undefined) return b.linkError !== undefined;
  if (b.linkError !== undefined && b.schemaOk !== false) return false;
  if (a.schemaOk !== b.schemaOk) return false;
  if (!a.schemaOk) return true;
  return a.bad.length === b.bad.length && a.bad.every((x, i) => x === b.bad[i]);
}

function summary(a) {
  if (a.error !== undefined) return `error: ${a.error}`;
  if (a.linkError !== undefined && a.schemaOk !== false) return `links refused: ${a.linkError}`;
  return `${JSON.stringify({ schemaOk: a.schemaOk, bad: a.bad || null })}\n  ${a.messages.join('\n  ')}`;
}

// The case for index i of the seed, with the schema as each side reads it.
function makeCase(cedar, seed, i) {
  const c = generateSchemaCase(seed, i, cedar);
  c.index = i;
  return c;
}

// A saved case: DIR with schema.cedarschema or schema.json, and policies.cedar.
function loadSaved(dir) {
  const policies = fs.readFileSync(path.join(dir, 'policies.cedar'), 'utf8');
  const text = path.join(dir, 'schema.cedarschema');
  const json = path.join(dir, 'schema.json');
  const c = { name: dir, policies };
  if (fs.existsSync(text)) {
    const s = fs.readFileSync(text, 'utf8');
    Object.assign(c, { schemaForCedar: s, schemaForCharter: s });
  } else {
    const s = fs.readFileSync(json, 'utf8');
    Object.assign(c, { schemaForCedar: JSON.parse(s), schemaForCharter: s });
  }
  // links.json: the links as Charter reads them; links.cedar.json: as the oracle passes them.
  if (fs.existsSync(path.join(dir, 'links.json'))) {
    c.linksForCharter = fs.readFileSync(path.join(dir, 'links.json'), 'utf8');
    c.linksForCedar = JSON.parse(fs.readFileSync(path.join(dir, 'links.cedar.json'), 'utf8'));
  }
  return c;
}

function save(outDir, name, c) {
  const dir = path.join(outDir, name);
  fs.mkdirSync(dir, { recursive: true });
  if (typeof c.schemaForCedar === 'string') fs.writeFileSync(path.join(dir, 'schema.cedarschema'), c.schemaForCharter);
  else fs.writeFileSync(path.join(dir, 'schema.json'), c.schemaForCharter);
  fs.writeFileSync(path.join(dir, 'policies.cedar'), c.policies);
  if (c.linksForCharter !== undefined) {
    fs.writeFileSync(path.join(dir, 'links.json'), c.linksForCharter);
    fs.writeFileSync(path.join(dir, 'links.cedar.json'), `${JSON.stringify(c.linksForCedar, null, 1)}\n`);
  }
  return dir;
}

async function answerAll(opts, pool, cases) {
  const cedarJobs = [];
  for (let k = 0; k < cases.length; k += BATCH) {
    const part = cases.slice(k, k + BATCH);
    cedarJobs.push(pool.call('validateBatch', [part.map((c) => ({ schema: c.schemaForCedar, policies: c.policies, links: c.linksForCedar }))])
      .then((r) => (r.error !== undefined ? part.map(() => ({ error: r.error })) : r.answers)));
  }
  const [ours, theirs] = await Promise.all([charterAnswers(opts.tool, cases), Promise.all(cedarJobs)]);
  return { ours, theirs: theirs.flat() };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const cedar = loadCedar();
  const pool = new OraclePool(opts.jobs);
  const t0 = Date.now();
  const stats = { cases: 0, agreed: 0, disagreed: 0, policies: 0, valid: 0, schemaRejected: 0, templates: 0,
    withLinks: 0, links: 0, linksRefused: 0, badLinks: 0 };
  const fired = {};  // the widened features: cases using each
  const linkKinds = {};

  const report = (c, mine, theirs) => {
    stats.cases++;
    if (same(theirs, mine)) {
      stats.agreed++;
      if (theirs.linkError !== undefined) stats.linksRefused++;
      else if (!theirs.schemaOk) stats.schemaRejected++;
      else {
        stats.badLinks += theirs.bad.filter((b) => b.startsWith('link:')).length;
        const count = policyStarts(c.policies).length;
        stats.policies += count;
        stats.valid += count - theirs.bad.filter((b) => !b.startsWith('link:')).length;
      }
      return;
    }
    stats.disagreed++;
    const where = c.name || `--seed ${opts.seed} --start ${c.index} --count 1`;
    if (stats.disagreed <= 20 || opts.verbose) {
      process.stdout.write(`--- disagreement: ${where}\n`);
      process.stdout.write(`schema:\n${c.schemaForCharter}\npolicies:\n${c.policies}\n`);
      process.stdout.write(`cedar: ${summary(theirs)}\n`);
      process.stdout.write(`charter: ${summary(mine)}\n`);
    }
    if (opts.out && c.name === undefined) {
      process.stdout.write(`saved in ${save(opts.out, `validate-${opts.seed}-${c.index}`, c)}\n`);
    }
  };

  try {
    if (opts.replay) {
      const root = opts.replay;
      const dirs = fs.existsSync(path.join(root, 'policies.cedar')) ? [root]
        : fs.readdirSync(root).sort().map((d) => path.join(root, d))
          .filter((d) => fs.existsSync(path.join(d, 'policies.cedar')));
      const cases = dirs.map(loadSaved);
      const { ours, theirs } = await answerAll(opts, pool, cases);
      cases.forEach((c, k) => report(c, ours[k], theirs[k]));
    } else {
      for (let base = opts.start; base < opts.start + opts.count; base += CHUNK) {
        const n = Math.min(CHUNK, opts.start + opts.count - base);
        const cases = [];
        for (let i = base; i < base + n; i++) cases.push(makeCase(cedar, opts.seed, i));
        const { ours, theirs } = await answerAll(opts, pool, cases);
        cases.forEach((c, k) => {
          if (c.hasTemplates) stats.templates++;
          for (const k of Object.keys(c.widened || {})) fired[k] = (fired[k] || 0) + 1;
          if (c.linkKinds) {
            stats.withLinks++;
            stats.links += c.linkKinds.length;
            for (const k of c.linkKinds) linkKinds[k] = (linkKinds[k] || 0) + 1;
          }
          report(c, ours[k], theirs[k]);
        });
      }
    }
  } finally {
    await pool.close();
  }
  const secs = (Date.now() - t0) / 1000;
  process.stdout.write(`${stats.cases} cases (${stats.policies} policies, ${stats.valid} valid, `
    + `${stats.schemaRejected} schemas rejected, ${stats.templates} cases with templates) in ${secs.toFixed(1)} s\n`);
  process.stdout.write(`template links: ${stats.withLinks} cases with ${stats.links} links (${JSON.stringify(linkKinds)}); `
    + `${stats.linksRefused} cases whose links Cedar refuses, ${stats.badLinks} links with validation errors\n`);
  process.stdout.write(`widened features (cases): ${JSON.stringify(fired)}\n`);
  process.stdout.write(`${stats.agreed} agreed, ${stats.disagreed} disagreed\n`);
  process.exit(stats.disagreed === 0 ? 0 : 1);
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(2);
});
