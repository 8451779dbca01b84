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

// Template links (`links`, cedar-wasm's templateLinks form, templates named
// `policy<i>`) are validated with the policies.
// Returns {schemaOk: false, messages} when Cedar refuses the schema,
// {linkError: message} when it refuses the links (a missing template, an id
// taken...), {schemaOk: true, bad: [ids with validation errors: `policy<i>`,
// or `link:<id>` for a link], messages}, or {error} when the policy text
// itself is refused (the generator must not write such text).
function validateCase(schema, policiesText, links = []) {
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
  const policies = { staticPolicies, templates };
  if (links && links.length) policies.templateLinks = links;
  const r = c.validate({ schema, policies, validationSettings: { mode: 'strict' } });
  if (r.type !== 'success') {
    const msgs = r.errors.map((e) => e.message);
    if (msgs.some((m) => /^(unable to link template|expected a template)/.test(m))) return { linkError: msgs.join('; ') };
    return { schemaOk: false, messages: msgs };
  }
  const linkIds = new Set((links || []).map((l) => l.newId));
  const bad = new Set();
  const out = [];
  for (const e of r.validationErrors) {
    if (linkIds.has(e.policyId)) bad.add(`link:${e.policyId}`);
    else if (/^policy\d+$/.test(e.policyId)) bad.add(e.policyId);
    else return { error: `unexpected policy id ${e.policyId}` };
    out.push(`${e.policyId}: ${e.error.message}`);
  }
  return { schemaOk: true, bad: [...bad].sort(), messages: out };
}

// A batch of cases [{schema, policies}], answered in order. (A throw, such
// as a wasm trap, ends the oracle process: see pool.js.)
function validateBatch(cases) {
  return { answers: cases.map((k) => validateCase(k.schema, k.policies, k.links)) };
}

module.exports = { validateCase, validateBatch };
