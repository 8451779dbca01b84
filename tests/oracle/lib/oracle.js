// Cedar's own authorizer (cedar-wasm) behind the interface Charter's CLI
// offers: a policy set in Cedar text, Cedar JSON entities, and requests,
// answered as {decision, reasons, errors:[{policy, message}]}.
//
// Policy ids follow Charter's rule (and the Cedar CLI's): the i-th policy in
// the text is `policy<i>` unless it carries `@id("...")`.
'use strict';

const path = require('path');

let cedar = null;

// Loads cedar-wasm from tests/oracle/node_modules; throws a readable error
// when `make deps` has not installed it.
function loadCedar() {
  if (cedar !== null) return cedar;
  const dir = path.join(__dirname, '..', 'node_modules', '@cedar-policy', 'cedar-wasm', 'nodejs');
  try {
    cedar = require(dir);
  } catch (e) {
    throw new Error(`cannot load @cedar-policy/cedar-wasm from ${dir} (run \`make deps\`): ${e.message}`);
  }
  return cedar;
}

function cedarVersion() { return loadCedar().getCedarVersion(); }

// Splits Cedar policy text into the text of each policy (annotations
// included), in source order. Understands `//` comments and string literals;
// a policy ends at a `;` outside brackets. Returns null when the text does
// not split cleanly (the caller lets Cedar report the parse error).
function splitPolicies(text) {
  const pieces = [];
  let start = 0;
  let depth = 0;
  let i = 0;
  let sawCode = false;
  while (i < text.length) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      sawCode = true;
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) return null;
      i++;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ';' && depth === 0) {
      pieces.push(text.slice(start, i + 1));
      start = i + 1;
      sawCode = false;
      i++;
      continue;
    }
    if (!/\s/.test(c)) sawCode = true;
    i++;
  }
  if (sawCode || depth !== 0) return null;
  return pieces;
}

function messages(errors) {
  return (errors || []).map((e) => e.message).join('; ') || 'unknown error';
}

let nextSetId = 0;

// An entity in a link, `{type, id}` or the string `Type::"id"` (Cedar's own
// parser reads the string, escapes and all).
function linkEntity(c, v) {
  if (typeof v !== 'string') return v && v.__entity ? v.__entity : v;
  const j = c.policyToJson(`permit(principal == ${v}, action, resource);`);
  if (j.type !== 'success' || !j.json.principal.entity) return null;
  const e = j.json.principal.entity;
  return e.__entity ? e.__entity : e;
}

// Parses a policy set (and template links, in the Cedar CLI's
// --template-linked form: [{template_id, link_id, args: {"?principal": ..}}])
// once. Returns {ok:true, handle, ids} or {ok:false, error}. Release the
// handle with dropPolicySet when done.
function preparePolicySet(text, links = []) {
  const c = loadCedar();
  // Cedar's own parse of the whole text (templates included) reports syntax
  // errors; the split below only assigns ids.
  const whole = c.policySetTextToParts(text);
  if (whole.type !== 'success') return { ok: false, error: messages(whole.errors) };
  const pieces = splitPolicies(text);
  if (pieces === null) return { ok: false, error: 'cannot split the policy set into policies' };
  const statics = {};
  const templates = {};
  const ids = [];
  const seen = new Set();
  for (let i = 0; i < pieces.length; i++) {
    let json = c.policyToJson(pieces[i]);
    let into = statics;
    if (json.type !== 'success') {
      json = c.templateToJson(pieces[i]);
      into = templates;
    }
    if (json.type !== 'success') return { ok: false, error: messages(json.errors) };
    const annotations = json.json.annotations || {};
    // `@id` without a value is the empty id, as in the Cedar CLI (cedar-wasm
    // reports a valueless annotation as null).
    const id = Object.prototype.hasOwnProperty.call(annotations, 'id') ? annotations.id ?? '' : `policy${i}`;
    if (seen.has(id)) return { ok: false, error: `duplicate policy id \`${id}\`` };
    seen.add(id);
    into[id] = pieces[i];
    ids.push(id);
  }
  const templateLinks = [];
  for (const l of links || []) {
    const values = {};
    for (const [slot, v] of Object.entries(l.args || {})) {
      const e = linkEntity(c, v);
      if (e === null) return { ok: false, error: `link \`${l.link_id}\`: bad entity for \`${slot}\`` };
      values[slot] = e;
    }
    templateLinks.push({ templateId: l.template_id, newId: l.link_id, values });
    ids.push(l.link_id);
  }
  const handle = `charter-oracle-${process.pid}-${nextSetId++}`;
  const r = c.preparsePolicySet(handle, { staticPolicies: statics, templates, templateLinks });
  if (r.type !== 'success') return { ok: false, error: messages(r.errors) };
  return { ok: true, handle, ids };
}

// cedar-wasm keeps preparsed sets in a thread-local map with no delete
// call; replacing the entry with an empty set keeps memory flat over a long
// campaign.
function dropPolicySet(handle) {
  loadCedar().preparsePolicySet(handle, { staticPolicies: {} });
}

function byPolicy(a, b) { return a.policy < b.policy ? -1 : a.policy > b.policy ? 1 : 0; }

// Decides one request: {principal, action, resource, context} as in the
// requests file. Returns {decision, reasons, errors} or {error}.
function authorize(handle, entities, request) {
  const c = loadCedar();
  const answer = c.statefulIsAuthorized({
    principal: request.principal,
    action: request.action,
    resource: request.resource,
    context: request.context || {},
    preparsedPolicySetId: handle,
    entities,
  });
  if (answer.type !== 'success') return { error: messages(answer.errors) };
  const r = answer.response;
  return {
    decision: r.decision,
    reasons: r.diagnostics.reason.slice().sort(),
    errors: r.diagnostics.errors
      .map((e) => ({ policy: e.policyId, message: e.error.message }))
      .sort(byPolicy),
  };
}

// Decides a batch the way `charter authorize --requests` does: every request
// or, if any input is bad, one {error}.
function authorizeBatch(policiesText, entities, requests, links = []) {
  const set = preparePolicySet(policiesText, links);
  if (!set.ok) return { error: set.error };
  try {
    // Every request parses the entities again and fails on bad ones, so the
    // separate check (as costly as one request) is needed only for an empty
    // batch.
    if (!requests.length) {
      const check = loadCedar().checkParseEntities({ entities });
      if (check.type !== 'success') return { error: messages(check.errors) };
    }
    const answers = [];
    for (const request of requests) {
      const a = authorize(set.handle, entities, request);
      if (a.error !== undefined) return { error: a.error };
      answers.push(a);
    }
    return { answers };
  } finally {
    dropPolicySet(set.handle);
  }
}

module.exports = {
  loadCedar, cedarVersion, splitPolicies, preparePolicySet, dropPolicySet, authorize,
  authorizeBatch,
};
