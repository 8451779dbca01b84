#!/usr/bin/env node
// The differential validation campaign: schemas from gen_schema.js with
// policy sets from gen.js, validated by Cedar's validator (cedar-wasm,
// strict mode) and by Charter (schema_tool batch). The two must agree, for
// every policy of every case, on whether it has validation errors; a schema
// that one rejects the other must reject too. Half of the cases pass the
// schema in Cedar's JSON format (as cedar-wasm's schemaToJson writes it), so
// both readers are exercised.
//
//   node validate.js --tool build/tests/schema/schema_tool --seed S --count N
//        [--start K] [--out DIR] [--verbose]
//
// Prints each disagreement, then `N cases (P policies): A agreed, D
// disagreed` and the accept/reject mix; exits 1 on any disagreement.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { generateSchemaCase } = require('./gen_schema');

function loadCedar() {
  const dir = path.join(__dirname, 'node_modules', '@cedar-policy', 'cedar-wasm', 'nodejs');
  return require(dir);
}

function parseArgs(argv) {
  const out = { seed: '1', count: 100, start: 0, tool: null, out: null, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seed') out.seed = argv[++i];
    else if (a === '--count') out.count = Number(argv[++i]);
    else if (a === '--start') out.start = Number(argv[++i]);
    else if (a === '--tool') out.tool = argv[++i];
    else if (a === '--out') out.out = argv[++i];
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

function cedarAnswer(cedar, c) {
  const r = cedar.validate({ schema: c.schemaForCedar, policies: { staticPolicies: c.policies },
    validationSettings: { mode: 'strict' } });
  if (r.type !== 'success') {
    return { schemaOk: false, messages: r.errors.map((e) => e.message) };
  }
  const bad = new Set();
  const messages = [];
  for (const e of r.validationErrors) {
    const m = /^policy(\d+)$/.exec(e.policyId);
    bad.add(m ? Number(m[1]) : e.policyId);
    messages.push(`${e.policyId}: ${e.error.message}`);
  }
  return { schemaOk: true, bad, messages };
}

function charterAnswers(tool, cases) {
  const input = cases.map((c) => JSON.stringify({ schema: c.schemaForCharter, policies: c.policies })).join('\n');
  const r = spawnSync(tool, ['batch'], { input, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`schema_tool failed: ${r.stderr}`);
  const lines = r.stdout.toString().split('\n').filter((l) => l.length > 0);
  if (lines.length !== cases.length) throw new Error(`schema_tool answered ${lines.length} of ${cases.length}`);
  return lines.map((l, i) => {
    const a = JSON.parse(l);
    if (!a.schema_ok) return { schemaOk: false, messages: a.errors.map((e) => `${e.code} ${e.message}`) };
    const starts = policyStarts(cases[i].policies);
    const bad = new Set(a.errors.map((e) => policyOf(starts, e.begin)));
    return { schemaOk: true, bad, messages: a.errors.map((e) => `@${e.begin} ${e.code} ${e.message}`) };
  });
}

function same(a, b) {
  if (a.schemaOk !== b.schemaOk) return false;
  if (!a.schemaOk) return true;
  if (a.bad.size !== b.bad.size) return false;
  for (const x of a.bad) if (!b.bad.has(x)) return false;
  return true;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const cedar = loadCedar();
  const t0 = Date.now();
  let agreed = 0;
  let disagreed = 0;
  let policies = 0;
  let validPolicies = 0;
  let schemaRejected = 0;
  const chunk = 500;
  for (let base = opts.start; base < opts.start + opts.count; base += chunk) {
    const n = Math.min(chunk, opts.start + opts.count - base);
    const cases = [];
    for (let i = base; i < base + n; i++) {
      const c = generateSchemaCase(opts.seed, i);
      c.index = i;
      c.schemaForCedar = c.schema;
      c.schemaForCharter = c.schema;
      if (i % 2 === 1) {
        const j = cedar.schemaToJson(c.schema);
        if (j.type === 'success') {
          c.schemaForCedar = j.json;
          c.schemaForCharter = JSON.stringify(j.json, null, 1);
        }
      }
      cases.push(c);
    }
    const ours = charterAnswers(opts.tool, cases);
    cases.forEach((c, k) => {
      const theirs = cedarAnswer(cedar, c);
      const mine = ours[k];
      if (same(theirs, mine)) {
        agreed++;
        if (!theirs.schemaOk) schemaRejected++;
        else {
          const count = policyStarts(c.policies).length;
          policies += count;
          validPolicies += count - theirs.bad.size;
        }
        return;
      }
      disagreed++;
      if (disagreed <= 20 || opts.verbose) {
        process.stdout.write(`--- disagreement: --seed ${opts.seed} --start ${c.index} --count 1\n`);
        process.stdout.write(`schema:\n${c.schemaForCharter}\npolicies:\n${c.policies}\n`);
        process.stdout.write(`cedar: ${JSON.stringify({ schemaOk: theirs.schemaOk, bad: theirs.bad ? [...theirs.bad] : null })}\n  ${theirs.messages.join('\n  ')}\n`);
        process.stdout.write(`charter: ${JSON.stringify({ schemaOk: mine.schemaOk, bad: mine.bad ? [...mine.bad] : null })}\n  ${mine.messages.join('\n  ')}\n`);
      }
      if (opts.out) {
        fs.mkdirSync(opts.out, { recursive: true });
        const dir = path.join(opts.out, `validate-${opts.seed}-${c.index}`);
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'schema.cedarschema'), c.schema);
        fs.writeFileSync(path.join(dir, 'policies.cedar'), c.policies);
      }
    });
  }
  const secs = (Date.now() - t0) / 1000;
  process.stdout.write(`${opts.count} cases (${policies} policies, ${validPolicies} valid, `
    + `${schemaRejected} schemas rejected) in ${secs.toFixed(1)} s\n`);
  process.stdout.write(`${agreed} agreed, ${disagreed} disagreed\n`);
  process.exit(disagreed === 0 ? 0 : 1);
}

main();
