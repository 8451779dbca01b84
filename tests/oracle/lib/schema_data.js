// Cedar's side of the schema-directed data campaign (schema_data.js): entities
// and requests read with a schema by cedar-wasm, then the requests decided.
// With a schema, cedar-wasm reads every attribute, tag and context value for
// its declared type (plain `{type, id}` entities and extension strings
// allowed), checks entities and requests against the schema, and adds the
// schema's actions to the entities.
'use strict';

const { loadCedar, preparePolicySet, dropPolicySet } = require('./oracle');

function messages(errors) {
  return (errors || []).map((e) => e.message).join('; ') || 'unknown error';
}

function byPolicy(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

let nextSchema = 0;

// One case {schema (text), policies, entities, requests}: {answers} with one
// {decision, reasons, errors: [policy ids]} per request, or {rejected:
// message} when Cedar refuses the entities or a request (as `charter
// authorize --requests` refuses the whole batch), or {error} when the case
// itself is broken (a policy set or schema Cedar cannot read).
function schemaDataCase(c) {
  const cedar = loadCedar();
  const set = preparePolicySet(c.policies, []);
  if (!set.ok) return { error: `policies: ${set.error}` };
  const schemaName = `schema-data-${process.pid}-${nextSchema++}`;
  try {
    const s = cedar.preparseSchema(schemaName, c.schema);
    if (s.type !== 'success') return { error: `schema: ${messages(s.errors)}` };
    const check = cedar.checkParseEntities({ entities: c.entities, schema: c.schema });
    if (check.type !== 'success') return { rejected: messages(check.errors) };
    const answers = [];
    for (const r of c.requests) {
      const a = cedar.statefulIsAuthorized({
        principal: r.principal, action: r.action, resource: r.resource, context: r.context || {},
        preparsedPolicySetId: set.handle, preparsedSchemaName: schemaName, validateRequest: true,
        entities: c.entities,
      });
      if (a.type !== 'success') return { rejected: messages(a.errors) };
      answers.push({
        decision: a.response.decision,
        reasons: a.response.diagnostics.reason.slice().sort(byPolicy),
        errors: a.response.diagnostics.errors.map((e) => e.policyId).sort(byPolicy),
      });
    }
    return { answers };
  } finally {
    dropPolicySet(set.handle);
    cedar.preparseSchema(schemaName, '');
  }
}

function schemaDataBatch(cases) {
  return { answers: cases.map(schemaDataCase) };
}

module.exports = { schemaDataCase, schemaDataBatch };
