// Cedar's strict validator (cedar-wasm) on one validation case: a schema
// (Cedar text, or JSON as an object) and a policy set in Cedar text that may
// hold templates. Policies are named by position, `policy<i>`, whatever
// their `@id`, so that Charter's answers (positions in the text) and
// Cedar's (policy ids) can be compared.
'use strict';

const { loadCedar, splitPolicies } = require('./oracle');

function messages(errors) {
  return (errors || []).map((e) => e.message).join('; ') || 'unknown error';
}

// Returns {schemaOk: false, messages} when Cedar refuses the schema,
// {schemaOk: true, bad: [indices of policies with validation errors],
// messages}, or {error} when the policy text itself is refused (the
// generator must not write such text).
function validateCase(schema, policiesText) {
  const c = loadCedar();
  const pieces = splitPolicies(policiesText);
  if (pieces === null) return { error: 'cannot split the policy set into policies' };
  const staticPolicies = {};
  const templates = {};
  for (let i = 0; i < pieces.length; i++) {
    if (c.policyToJson(pieces[i]).type === 'success') {
      staticPolicies[`policy${i}`] = pieces[i];
    } else if (c.templateToJson(pieces[i]).type === 'success') {
      templates[`policy${i}`] = pieces[i];
    } else {
      return { error: `policy ${i} does not parse: ${messages(c.policyToJson(pieces[i]).errors)}` };
    }
  }
  const r = c.validate({ schema, policies: { staticPolicies, templates }, validationSettings: { mode: 'strict' } });
  if (r.type !== 'success') return { schemaOk: false, messages: r.errors.map((e) => e.message) };
  const bad = new Set();
  const out = [];
  for (const e of r.validationErrors) {
    const m = /^policy(\d+)$/.exec(e.policyId);
    if (!m) return { error: `unexpected policy id ${e.policyId}` };
    bad.add(Number(m[1]));
    out.push(`${e.policyId}: ${e.error.message}`);
  }
  return { schemaOk: true, bad: [...bad].sort((a, b) => a - b), messages: out };
}

// A batch of cases [{schema, policies}], answered in order. (A throw, such
// as a wasm trap, ends the oracle process: see pool.js.)
function validateBatch(cases) {
  return { answers: cases.map((k) => validateCase(k.schema, k.policies)) };
}

module.exports = { validateCase, validateBatch };
