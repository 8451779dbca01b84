#!/usr/bin/env node
// The standard governance model and its example, checked against Cedar
// itself (cedar-wasm):
//
//   - Cedar reads stdlib/governance.cedarschema, and its strict validator
//     finds neither error nor warning in stdlib/governance.cedar or in
//     examples/governance/policies.cedar;
//   - Cedar reads examples/governance/entities.json against the schema;
//   - every case of examples/governance/governance.test.json gets from Cedar
//     the decision, determining policies and erring policies the case pins
//     (Charter's own answers are pinned by `charter test`), and every policy
//     of the example has an allow case and a deny case among them;
//   - Cedar and `charter authorize --schema` agree on which of those requests
//     conform to the schema;
//   - every request of requests.json (the demo's) is one of those cases, so
//     its decision is pinned;
//   - every policy of stdlib/governance.cedar is in the example, unchanged:
//     the example starts from the standard rules.
//
//   node tests/oracle/governance_model.js --charter build/cli/charter
//
// Run from the repository root. Prints each fault and exits 1 on any.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const oracle = require('./lib/oracle');

const schemaPath = 'stdlib/governance.cedarschema';
const rulesPath = 'stdlib/governance.cedar';
const dir = 'examples/governance';
const policiesPath = `${dir}/policies.cedar`;
const entitiesPath = `${dir}/entities.json`;
const testsPath = `${dir}/governance.test.json`;
const requestsPath = `${dir}/requests.json`;

let faults = 0;
function fault(message) {
  process.stderr.write(`governance_model: ${message}\n`);
  faults++;
}

function messages(errors) {
  return (errors || []).map((e) => (e.error ? e.error.message : e.message)).join('; ');
}

// A request's entity reference as cedar-wasm takes it, {type, id}.
function uid(v) {
  if (v && typeof v === 'object') return v.__entity || v;
  const m = /^(.*)::"((?:[^"\\]|\\.)*)"$/s.exec(String(v));
  if (!m) throw new Error(`cannot read the entity reference ${JSON.stringify(v)}`);
  return { type: m[1], id: JSON.parse(`"${m[2]}"`) };
}

function forCedar(r) {
  return { principal: uid(r.principal), action: uid(r.action), resource: uid(r.resource), context: r.context || {} };
}

// A policy's text without comments and with runs of blanks made one space.
function normalized(text) {
  return text.split('\n').map((l) => l.replace(/\/\/.*$/, '')).join(' ').replace(/\s+/g, ' ').trim();
}

function policiesById(cedar, text, file) {
  const out = new Map();
  const pieces = oracle.splitPolicies(text);
  if (pieces === null) {
    fault(`${file}: cannot split into policies`);
    return out;
  }
  for (const p of pieces) {
    const j = cedar.policyToJson(p);
    if (j.type !== 'success') {
      fault(`${file}: Cedar cannot read a policy: ${messages(j.errors)}`);
      continue;
    }
    out.set((j.json.annotations || {}).id, normalized(p));
  }
  return out;
}

function main() {
  const args = process.argv.slice(2);
  if (args.length !== 2 || args[0] !== '--charter') {
    process.stderr.write('usage: node tests/oracle/governance_model.js --charter CHARTER\n');
    process.exit(2);
  }
  const charter = args[1];
  const cedar = oracle.loadCedar();
  const schema = fs.readFileSync(schemaPath, 'utf8');
  const rules = fs.readFileSync(rulesPath, 'utf8');
  const policies = fs.readFileSync(policiesPath, 'utf8');
  const entities = JSON.parse(fs.readFileSync(entitiesPath, 'utf8'));
  const tests = JSON.parse(fs.readFileSync(testsPath, 'utf8'));
  const requests = JSON.parse(fs.readFileSync(requestsPath, 'utf8'));

  const s = cedar.checkParseSchema(schema);
  if (s.type !== 'success') fault(`${schemaPath}: Cedar cannot read it: ${messages(s.errors)}`);
  for (const [file, text] of [[rulesPath, rules], [policiesPath, policies]]) {
    const v = cedar.validate({ schema, policies: { staticPolicies: text }, validationSettings: { mode: 'strict' } });
    if (v.type !== 'success') {
      fault(`${file}: Cedar cannot validate it: ${messages(v.errors)}`);
      continue;
    }
    for (const e of v.validationErrors) fault(`${file}: Cedar: ${e.policyId}: ${e.error.message}`);
    for (const e of v.validationWarnings) fault(`${file}: Cedar warns: ${e.policyId}: ${e.error.message}`);
  }
  const e = cedar.checkParseEntities({ entities, schema });
  if (e.type !== 'success') fault(`${entitiesPath}: Cedar rejects them against the schema: ${messages(e.errors)}`);

  // The example starts from the standard rules.
  const standard = policiesById(cedar, rules, rulesPath);
  const example = policiesById(cedar, policies, policiesPath);
  for (const [id, text] of standard) {
    if (!example.has(id)) fault(`${policiesPath}: the standard rule \`${id}\` is missing`);
    else if (example.get(id) !== text) fault(`${policiesPath}: \`${id}\` differs from ${rulesPath}`);
  }

  // Every case: Cedar's answer, and whether the request conforms to the schema.
  const set = oracle.preparePolicySet(policies);
  if (!set.ok) throw new Error(`cedar-wasm cannot parse ${policiesPath}: ${set.error}`);
  const conforming = [];
  const other = [];
  try {
    tests.cases.forEach((c, i) => {
      const name = c.name || `case ${i + 1}`;
      const r = forCedar(c.request);
      const a = oracle.authorize(set.handle, entities, r);
      if (a.error !== undefined) {
        fault(`${name}: cedar-wasm: ${a.error}`);
        return;
      }
      const want = { decision: c.decision, reasons: (c.reasons || []).slice().sort(), errors: (c.errors || []).slice().sort() };
      const got = { decision: a.decision, reasons: a.reasons, errors: a.errors.map((x) => x.policy) };
      if (JSON.stringify(want) !== JSON.stringify(got)) {
        fault(`${name}: Cedar answers ${JSON.stringify(got)}, the case pins ${JSON.stringify(want)}`);
      }
      const check = cedar.isAuthorized({ ...r, schema, validateRequest: true, policies: { staticPolicies: '' }, entities });
      (check.type === 'success' ? conforming : other).push({ name, request: c.request });
    });
  } finally {
    oracle.dropPolicySet(set.handle);
  }
  // Charter must accept, in one batch, the requests Cedar finds conforming,
  // and refuse each of the others.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'governance-model-'));
  try {
    const authorize = (file, flag) => spawnSync(charter, ['authorize', '--policies', policiesPath,
      '--entities', entitiesPath, flag, file, '--schema', schemaPath], { encoding: 'utf8' });
    const batch = path.join(tmp, 'requests.json');
    fs.writeFileSync(batch, JSON.stringify(conforming.map((c) => c.request)));
    const run = authorize(batch, '--requests');
    if (run.status !== 0) fault(`charter authorize --schema refuses requests that Cedar finds conforming: ${run.stderr.trim()}`);
    for (const c of other) {
      const one = path.join(tmp, 'request.json');
      fs.writeFileSync(one, JSON.stringify(c.request));
      const r = authorize(one, '--request-json');
      if (r.status !== 1) fault(`${c.name}: Cedar finds the request not conforming, charter authorize --schema exits ${r.status}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const valid = conforming.length;

  // Every policy has an allow case and a deny case: for a permit, an allow
  // it determines and a deny where its scope matches; for a forbid, a deny
  // it determines and an allow where its scope matches and it does not hold.
  // (Charter's explanation tells whether a policy's scope matched.)
  const cover = new Map();
  const dirE = fs.mkdtempSync(path.join(os.tmpdir(), 'governance-model-'));
  try {
    const file = path.join(dirE, 'request.json');
    for (const c of tests.cases) {
      fs.writeFileSync(file, JSON.stringify(c.request));
      const run = spawnSync(charter, ['explain', '--policies', policiesPath, '--entities', entitiesPath,
        '--request-json', file, '--format', 'json'], { encoding: 'utf8' });
      if (run.status !== 0 && run.status !== 2) {
        fault(`${c.name}: charter explain exits ${run.status}: ${run.stderr.trim()}`);
        continue;
      }
      const x = JSON.parse(run.stdout);
      for (const p of x.policies) {
        if (!cover.has(p.id)) cover.set(p.id, new Set());
        if (p.outcome === 'not-applicable') continue;
        const permit = p.effect === 'permit';
        if (x.decision === 'allow' && (permit ? p.determining : p.outcome === 'not-satisfied')) cover.get(p.id).add('allow');
        if (x.decision === 'deny' && (permit || p.determining)) cover.get(p.id).add('deny');
      }
    }
  } finally {
    fs.rmSync(dirE, { recursive: true, force: true });
  }
  for (const [id, kinds] of cover) {
    for (const k of ['allow', 'deny']) if (!kinds.has(k)) fault(`${testsPath}: no ${k} case for \`${id}\``);
  }

  // The demo's requests are pinned.
  const pinned = new Set(tests.cases.map((c) => JSON.stringify(forCedar(c.request))));
  for (const r of requests) {
    if (!pinned.has(JSON.stringify(forCedar(r)))) fault(`${requestsPath}: no case pins \`${r.description}\``);
  }

  if (faults > 0) process.exit(1);
  console.log(`governance_model: ok: ${tests.cases.length} cases agree with Cedar ${oracle.cedarVersion()} ` +
    `(${valid} conform to the schema), ${requests.length} demo requests pinned, ` +
    `${standard.size} standard rules in the example, an allow and a deny case for each of ${cover.size} policies`);
}

main();
