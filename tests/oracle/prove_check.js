#!/usr/bin/env node
// `charter prove`'s counterexamples decided by Cedar itself (cedar-wasm), as
// Charter claims (docs/proving.md, "Proving the prover"). Reads a JSON array
// of checks, as tests/cli/prove_counterexamples_test.sh writes them:
//   {"what", "policies": text, "entities", "request" (Charter's form:
//    "Type::\"id\"" strings), "decision": {decision, reasons, errors},
//    "policy"?: {"id", "outcome"}, "withoutPolicy"?: "allow" | "deny"}
// For each: Cedar's decision of the set (decision, reasons, the policies of
// the errors) must be the one claimed; with "policy", Cedar's outcome of that
// policy alone ("satisfied", "not-satisfied", "error") and its decision of the
// set without the policy too. Prints "ok: N ..." or each disagreement (exit 1).
//   node prove_check.js CHECKS.json
'use strict';

const fs = require('fs');
const oracle = require('./lib/oracle');

function uid(s) {
  const m = /^(.*)::("(?:[^"\\]|\\.)*")$/s.exec(s);
  if (!m) throw new Error(`not an entity uid: ${s}`);
  return { type: m[1], id: JSON.parse(m[2]) };
}

// Cedar's answer for one request over a policy text.
function decide(text, entities, request) {
  const set = oracle.preparePolicySet(text, []);
  if (!set.ok) throw new Error(`Cedar refuses the policies: ${set.error}`);
  try {
    const a = oracle.authorize(set.handle, entities, {
      principal: uid(request.principal), action: uid(request.action), resource: uid(request.resource),
      context: request.context || {},
    });
    if (a.error !== undefined) throw new Error(`Cedar refuses the request: ${a.error}`);
    return a;
  } finally {
    oracle.dropPolicySet(set.handle);
  }
}

function main() {
  const checks = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const failures = [];
  let policies = 0;
  for (const c of checks) {
    const got = decide(c.policies, c.entities, c.request);
    const want = c.decision;
    const same = got.decision === want.decision &&
      JSON.stringify(got.reasons) === JSON.stringify(want.reasons.slice().sort()) &&
      JSON.stringify(got.errors.map((e) => e.policy)) === JSON.stringify(want.errors.map((e) => e.policy).sort());
    if (!same) failures.push(`${c.what}: Charter claims ${JSON.stringify(want)}, Cedar says ${JSON.stringify(got)}`);
    if (!c.policy) continue;
    // The policy alone, and the set without it (Cedar's ids, as the set's).
    const pieces = oracle.splitPolicies(c.policies);
    const set = oracle.preparePolicySet(c.policies, []);
    if (!set.ok || pieces === null) throw new Error(`Cedar refuses the policies: ${set.error}`);
    oracle.dropPolicySet(set.handle);
    const at = set.ids.indexOf(c.policy.id);
    if (at < 0) throw new Error(`${c.what}: no policy \`${c.policy.id}\` in Cedar's reading of the set`);
    const alone = decide(pieces[at], c.entities, c.request);
    const parsed = oracle.loadCedar().policyToJson(pieces[at]);
    if (parsed.type !== 'success') throw new Error(`${c.what}: Cedar cannot read policy \`${c.policy.id}\``);
    const forbid = parsed.json.effect === 'forbid';
    const outcome = alone.errors.length ? 'error'
      : (forbid ? alone.reasons.length > 0 : alone.decision === 'allow') ? 'satisfied' : 'not-satisfied';
    if (outcome !== c.policy.outcome) {
      failures.push(`${c.what}: Charter says policy ${c.policy.id} is ${c.policy.outcome}, Cedar says ${outcome}`);
    }
    const rest = pieces.filter((_, i) => i !== at).join('\n');
    const without = rest.trim() === '' ? 'deny' : decide(rest, c.entities, c.request).decision;
    if (without !== c.withoutPolicy) {
      failures.push(`${c.what}: without ${c.policy.id} Charter says ${c.withoutPolicy}, Cedar says ${without}`);
    }
    policies++;
  }
  if (failures.length) {
    process.stdout.write(`${failures.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`ok: ${checks.length} counterexample decisions (${policies} with a policy's own outcome) ` +
    `decided by Cedar ${oracle.cedarVersion()} as Charter claims\n`);
}

main();
