// For the typed-code differential (interp_differential --typed): a schema
// that a generated case's data conforms to, inferred from the data, and the
// data made to conform. An attribute (context attribute, entity tags) whose
// values have no common type is removed from the data; action entities are
// dropped (the schema declares the actions, without groups). Every request
// then conforms by construction: an action applies to the principal and
// resource types it is requested with, and its context type is inferred
// from its requests' contexts. The policies are left as they are: those that
// do not validate against the schema are dropped by the C++ side.
'use strict';

const CONFLICT = { conflict: true };

function uidOf(x) {
  return x && x.__entity ? x.__entity : x;
}

function isActionType(t) {
  return t === 'Action' || t.endsWith('::Action');
}

// The schema type of a JSON attribute value; an empty set's element is null.
function typeOf(v) {
  if (typeof v === 'boolean') return { type: 'Boolean' };
  if (typeof v === 'number' || typeof v === 'bigint') return { type: 'Long' };
  if (typeof v === 'string') return { type: 'String' };
  if (Array.isArray(v)) {
    let elem = null;
    for (const x of v) {
      elem = merge(elem, typeOf(x));
      if (elem === CONFLICT) return CONFLICT;
    }
    return { type: 'Set', element: elem };
  }
  if (v && typeof v === 'object') {
    if (v.__entity) return { type: 'Entity', name: v.__entity.type };
    if (v.__extn) return { type: 'Extension', name: v.__extn.fn === 'ip' ? 'ipaddr' : v.__extn.fn };
    const attributes = {};
    for (const [k, x] of Object.entries(v)) {
      const t = typeOf(x);
      if (t === CONFLICT) return CONFLICT;
      attributes[k] = Object.assign({}, t, { required: true });
    }
    return { type: 'Record', attributes };
  }
  return CONFLICT;
}

// The common type of two (null: no information yet), or CONFLICT.
function merge(a, b) {
  if (a === CONFLICT || b === CONFLICT) return CONFLICT;
  if (a === null) return b;
  if (b === null) return a;
  if (a.type !== b.type) return CONFLICT;
  switch (a.type) {
    case 'Entity':
    case 'Extension':
      return a.name === b.name ? a : CONFLICT;
    case 'Set': {
      const e = merge(a.element, b.element);
      return e === CONFLICT ? CONFLICT : { type: 'Set', element: e };
    }
    case 'Record': {
      const attributes = {};
      for (const k of new Set([...Object.keys(a.attributes), ...Object.keys(b.attributes)])) {
        const x = a.attributes[k];
        const y = b.attributes[k];
        const t = merge(x ? strip(x) : null, y ? strip(y) : null);
        if (t === CONFLICT) return CONFLICT;
        attributes[k] = Object.assign({}, t, { required: !!(x && y && x.required && y.required) });
      }
      return { type: 'Record', attributes };
    }
    default:
      return a;
  }
}

function strip(attr) {
  const t = Object.assign({}, attr);
  delete t.required;
  return t;
}

// Unknown set elements (only empty sets seen) become Long: any type fits.
function finish(t, types) {
  if (t.type === 'Set') return { type: 'Set', element: t.element ? finish(t.element, types) : { type: 'Long' } };
  if (t.type === 'Record') {
    const attributes = {};
    for (const [k, a] of Object.entries(t.attributes)) {
      attributes[k] = Object.assign(finish(strip(a), types), { required: a.required });
    }
    return { type: 'Record', attributes };
  }
  if (t.type === 'Entity') types.add(t.name);
  return t;
}

// A record type for a set of records (attribute -> value), with the
// attributes of conflicting types removed from the records themselves.
function recordFor(records, types) {
  const seen = new Map();
  for (const r of records) {
    for (const [k, v] of Object.entries(r)) {
      const t = seen.has(k) ? seen.get(k) : null;
      seen.set(k, merge(t, typeOf(v)));
    }
  }
  const attributes = {};
  for (const [k, t] of seen) {
    if (t === CONFLICT || t === null) {
      for (const r of records) delete r[k];
      continue;
    }
    const required = records.every((r) => Object.prototype.hasOwnProperty.call(r, k));
    attributes[k] = Object.assign(finish(t, types), { required });
  }
  return { type: 'Record', attributes };
}

function split(name) {
  const at = name.lastIndexOf('::');
  return at < 0 ? ['', name] : [name.slice(0, at), name.slice(at + 2)];
}

// Returns {schema, entities, requests}: the schema as Cedar's JSON schema
// text, the data (deep copies) made to conform.
function typedCase(c) {
  const entities = JSON.parse(JSON.stringify(c.entities)).filter((e) => !isActionType(uidOf(e.uid).type));
  const requests = JSON.parse(JSON.stringify(c.requests));
  const types = new Set();
  const byType = new Map();
  for (const e of entities) {
    const t = uidOf(e.uid).type;
    types.add(t);
    if (!byType.has(t)) byType.set(t, []);
    byType.get(t).push(e);
  }
  const ns = new Map();
  const nsOf = (name) => {
    if (!ns.has(name)) ns.set(name, { entityTypes: {}, actions: {} });
    return ns.get(name);
  };
  const asUid = (x) => (typeof x === 'string' ? null : uidOf(x));
  // Requests name entities as objects or as `Type::"id"` strings.
  const requestUid = (x) => {
    if (typeof x !== 'string') return uidOf(x);
    const m = /^(.*)::"(.*)"$/s.exec(x);
    return m ? { type: m[1], id: m[2] } : null;
  };
  const declared = new Map();
  for (const [t, list] of byType) {
    for (const e of list) e.attrs = e.attrs || {};
    const shape = recordFor(list.map((e) => e.attrs), types);
    const parents = new Set();
    for (const e of list) for (const p of e.parents || []) parents.add(asUid(p).type);
    let tags = null;
    for (const e of list) for (const v of Object.values(e.tags || {})) tags = merge(tags, typeOf(v));
    if (tags === CONFLICT) for (const e of list) delete e.tags;
    const decl = { memberOfTypes: [...parents].sort(), shape };
    if (tags && tags !== CONFLICT) decl.tags = finish(tags, types);
    declared.set(t, decl);
    for (const p of parents) types.add(p);
  }
  const actions = new Map();
  for (const r of requests) {
    const p = requestUid(r.principal);
    const a = requestUid(r.action);
    const res = requestUid(r.resource);
    if (!p || !a || !res) return null;
    types.add(p.type);
    types.add(res.type);
    const key = `${a.type}\u0000${a.id}`;
    if (!actions.has(key)) actions.set(key, { uid: a, principals: new Set(), resources: new Set(), contexts: [] });
    const entry = actions.get(key);
    entry.principals.add(p.type);
    entry.resources.add(res.type);
    r.context = r.context || {};
    entry.contexts.push(r.context);
  }
  for (const [, a] of actions) {
    const [space, ] = split(a.uid.type);
    nsOf(space).actions[a.uid.id] = {
      appliesTo: {
        principalTypes: [...a.principals].sort(),
        resourceTypes: [...a.resources].sort(),
        context: recordFor(a.contexts, types),
      },
    };
  }
  for (const t of types) {
    if (isActionType(t)) continue;
    const [space, base] = split(t);
    nsOf(space).entityTypes[base] = declared.get(t) || { memberOfTypes: [], shape: { type: 'Record', attributes: {} } };
  }
  // Fully qualify entity type names so that they mean the same in every namespace.
  const schema = {};
  for (const [name, body] of ns) schema[name] = body;
  return { schema: JSON.stringify(schema, null, 1), entities, requests };
}

module.exports = { typedCase };
