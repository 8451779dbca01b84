#!/usr/bin/env node
// The table of refusals: every code with which Charter refuses a policy set
// without a schema (CH01xx, CH02xx), checked against both engines.
//
//   node refusals.js --charter build/cli/charter [--table refusals.txt]
//        [--codes engine/core/src/common/diagnostics.def] [--doc docs/conformance.md]
//
// For each row of the table (refusals.txt, whose header says its format):
// `charter check` must report the row's code for the text (or accept it,
// for `-`), and cedar-wasm must treat the text as the row says (refused by
// its parser, an evaluation error, or accepted). Then every CH01xx and
// CH02xx code of diagnostics.def must have a row, and the section
// `## Refusals without a schema` of docs/conformance.md must list every
// code once, with the treatment of the code's first row. Exits 1 on any
// difference, printing each one.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { loadCedar, cedarVersion } = require('./lib/oracle');

const TREATMENTS = ['parser', 'evaluation', 'accepted', 'internal', 'limit', 'bundle'];
// The words of docs/conformance.md's table for each treatment.
const DOC_WORDS = {
  parser: 'refused by its parser',
  evaluation: 'accepted, then an evaluation error',
  accepted: 'accepted',
  internal: 'cannot be produced from text',
  limit: 'a limit',
  bundle: 'accepted: Cedar has no such limit',
};

function parseArgs(argv) {
  const root = path.join(__dirname, '..', '..');
  const out = {
    charter: null,
    table: path.join(__dirname, 'refusals.txt'),
    codes: path.join(root, 'engine', 'core', 'src', 'common', 'diagnostics.def'),
    doc: path.join(root, 'docs', 'conformance.md'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--charter') out.charter = argv[++i];
    else if (a === '--table') out.table = argv[++i];
    else if (a === '--codes') out.codes = argv[++i];
    else if (a === '--doc') out.doc = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.charter) throw new Error('--charter PATH is required');
  return out;
}

// The rows of the table: {line, code, cedar, note, text}.
function readTable(file) {
  const rows = [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let row = null;
  const finish = () => {
    if (row === null) return;
    row.text = row.lines.join('\n').replace(/\s+$/, '');
    if (row.text !== '') row.text += '\n';
    delete row.lines;
    rows.push(row);
  };
  lines.forEach((l, i) => {
    if (l.startsWith('@@ ')) {
      finish();
      const m = /^@@ (CH\d{4}|-) (\S+)(?: (.*))?$/.exec(l);
      if (!m || !TREATMENTS.includes(m[2])) throw new Error(`${file}:${i + 1}: malformed row header: ${l}`);
      row = { line: i + 1, code: m[1], cedar: m[2], note: m[3] || '', lines: [] };
    } else if (row !== null) {
      row.lines.push(l);
    } else if (l.trim() !== '' && !l.startsWith('#')) {
      throw new Error(`${file}:${i + 1}: text before the first row`);
    }
  });
  finish();
  return rows;
}

// The codes of the CH01xx and CH02xx families still in use.
function readCodes(file) {
  const codes = [];
  for (const m of fs.readFileSync(file, 'utf8').matchAll(/^CHARTER_DIAGNOSTIC\((CH0[12]\d\d),/gm)) codes.push(m[1]);
  return codes;
}

// code -> treatment words of docs/conformance.md's table.
function readDoc(file) {
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf('\n## Refusals without a schema\n');
  if (start < 0) return null;
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? text.length : end);
  const out = new Map();
  for (const line of section.split('\n')) {
    const m = /^\| \[(CH\d{4})\]\([^)]*\) \|[^|]*\|[^|]*\| ([^|]*?) \|/.exec(line);
    if (m) out.set(m[1], (out.get(m[1]) || []).concat([m[2]]));
  }
  return out;
}

const REQUEST = {
  principal: { type: 'User', id: 'alice' },
  action: { type: 'Action', id: 'view' },
  resource: { type: 'Task', id: 't' },
  context: {},
  entities: [],
};

// How cedar-wasm treats the text: 'parser', 'evaluation' or 'accepted', and
// the message that says why.
function cedarTreatment(c, text) {
  const parsed = c.checkParsePolicySet({ staticPolicies: text });
  if (parsed.type !== 'success') {
    // A template is no static policy: read the text as a set of both.
    const parts = c.policySetTextToParts(text);
    if (parts.type !== 'success') {
      return { treatment: 'parser', why: parsed.errors.map((e) => e.message).join('; ') };
    }
    return { treatment: 'accepted', why: 'a template set' };
  }
  const answer = c.isAuthorized({ ...REQUEST, policies: { staticPolicies: text } });
  if (answer.type !== 'success') {
    return { treatment: 'parser', why: answer.errors.map((e) => e.message).join('; ') };
  }
  const errors = answer.response.diagnostics.errors;
  if (errors.length > 0) return { treatment: 'evaluation', why: errors.map((e) => e.error.message).join('; ') };
  return { treatment: 'accepted', why: `decision ${answer.response.decision}` };
}

// The codes `charter check` reports for the text, or [] when it says ok.
function charterCodes(charter, dir, index, text) {
  const file = path.join(dir, `row${index}.cedar`);
  fs.writeFileSync(file, text);
  const r = spawnSync(charter, ['check', '--policies', file], { encoding: 'utf8' });
  if (r.error) throw r.error;
  const codes = [...new Set([...(r.stdout + r.stderr).matchAll(/error\[(CH\d{4})\]/g)].map((m) => m[1]))];
  if (r.status === 0 && codes.length > 0) codes.push('(exit 0)');
  if (r.status !== 0 && codes.length === 0) codes.push(`(exit ${r.status}: ${r.stderr.trim()})`);
  return codes;
}

// Charter's decision for the text, in Cedar's terms: {decision, reasons,
// errors} with the policies as sets (sorted ids).
function charterDecision(charter, dir, index) {
  const file = path.join(dir, `row${index}.cedar`);
  const entities = path.join(dir, 'entities.json');
  fs.writeFileSync(entities, '[]');
  const request = JSON.stringify({
    principal: REQUEST.principal, action: REQUEST.action, resource: REQUEST.resource, context: REQUEST.context,
  });
  const requestFile = path.join(dir, 'request.json');
  fs.writeFileSync(requestFile, request);
  const r = spawnSync(charter, ['authorize', '--policies', file, '--entities', entities,
                                '--request-json', requestFile, '--format', 'json'], { encoding: 'utf8' });
  if (r.error) throw r.error;
  // Exit 0 for allow, 2 for deny; anything else is a failure.
  if ((r.status !== 0 && r.status !== 2) || r.stdout.trim() === '') return `exit ${r.status}: ${r.stderr.trim()}`;
  const a = JSON.parse(r.stdout);
  return JSON.stringify({ decision: a.decision, reasons: [...a.reasons].sort(),
                          errors: a.errors.map((e) => e.policy).sort() });
}

function cedarDecision(c, text) {
  const answer = c.isAuthorized({ ...REQUEST, policies: { staticPolicies: text } });
  const d = answer.response.diagnostics;
  return JSON.stringify({ decision: answer.response.decision, reasons: [...d.reason].sort(),
                          errors: d.errors.map((e) => e.policyId).sort() });
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const rows = readTable(args.table);
  const c = loadCedar();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-refusals-'));
  const failures = [];
  const fail = (row, what) => failures.push(`${args.table}:${row.line}: ${row.code}: ${what}`);
  try {
    rows.forEach((row, i) => {
      if (row.cedar === 'internal' || row.cedar === 'bundle') {
        if (row.text !== '') fail(row, `a row of ${row.cedar} has no text`);
        return;
      }
      if (row.text === '') return fail(row, 'no policy text');
      const codes = charterCodes(args.charter, dir, i, row.text);
      if (row.cedar === 'limit') {
        // Past Charter's default limits the text is refused with an input
        // check (CH00xx), and the row's code needs a raised limit.
        if (!codes.some((x) => /^CH00/.test(x))) fail(row, `charter check reported ${codes.join(', ') || 'nothing'}, not a limit (CH00xx)`);
        return;
      }
      const want = row.code === '-' ? [] : [row.code];
      if (codes.join(',') !== want.join(',')) {
        fail(row, `charter check reported ${codes.join(', ') || 'nothing (ok)'}, expected ${want.join(', ') || 'nothing (ok)'}`);
      }
      const got = cedarTreatment(c, row.text);
      if (got.treatment !== row.cedar) {
        fail(row, `Cedar: ${got.treatment} (${got.why}), the table says ${row.cedar}`);
      } else if (row.code === '-') {
        // Accepted by both: the same decision, reasons and erring policies.
        const mine = charterDecision(args.charter, dir, i);
        const cedars = cedarDecision(c, row.text);
        if (mine !== cedars) fail(row, `charter authorize: ${mine}; Cedar: ${cedars}`);
      }
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const covered = new Set(rows.map((r) => r.code));
  for (const code of readCodes(args.codes)) {
    if (!covered.has(code)) failures.push(`${args.table}: ${code} (in ${args.codes}) has no row`);
  }

  const doc = readDoc(args.doc);
  if (doc === null) {
    failures.push(`${args.doc}: no section \`## Refusals without a schema\``);
  } else {
    const first = new Map();
    for (const r of rows) if (r.code !== '-' && !first.has(r.code)) first.set(r.code, r.cedar);
    for (const [code, cedar] of first) {
      const words = doc.get(code);
      if (!words) failures.push(`${args.doc}: ${code} has no row in the table of refusals`);
      else if (words.length !== 1) failures.push(`${args.doc}: ${code} has ${words.length} rows in the table of refusals`);
      else if (!words[0].startsWith(DOC_WORDS[cedar])) {
        failures.push(`${args.doc}: ${code} reads "${words[0]}", the test table says ${cedar} ("${DOC_WORDS[cedar]}")`);
      }
    }
    for (const code of doc.keys()) if (!first.has(code)) failures.push(`${args.doc}: ${code} is not in ${args.table}`);
  }

  for (const f of failures) console.log(f);
  const n = rows.length;
  console.log(`${n} rows (${covered.has('-') ? rows.filter((r) => r.code === '-').length : 0} accepted by Charter), ` +
              `Cedar ${cedarVersion()}: ${failures.length === 0 ? 'all agree' : `${failures.length} differences`}`);
  process.exit(failures.length === 0 ? 0 : 1);
}

main();
