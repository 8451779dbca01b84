#!/usr/bin/env node
// A seeded generator of schemas for the worlds gen.js draws policies from:
// the same entity types (User, Group, Team, Namespace, Task, Acme::Doc,
// Acme::Sub::Folder), the same attribute names with the types gen.js
// intends for them (sometimes optional, sometimes missing, now and then of
// another type), hierarchies, tags of every kind, enumerated types (whose
// literals gen.js's scopes and conditions name, valid or not), common types
// (in namespaces too, referred to qualified or not), contexts inline, as a
// common type or absent, and the actions of ACTIONS with their groups and
// `appliesTo`. Policies come from gen.js with every feature, templates
// included. Policies generated against such a schema are valid often
// enough, and invalid in every way often enough, for a differential
// validation campaign.
//
// About one schema in twenty has a deliberate fault (a JSON-only type name
// in the text format, an `appliesTo` without principal or resource, an empty
// type list, a context that is not a record, `additionalAttributes: true`,
// an unknown JSON field), so that both readers' refusals are compared too.
//
// Cases with an odd index pass the schema in the JSON format: cedar-wasm's
// schemaToJson of the text, then edited (jsonEdits) into the other
// spellings the format allows: explicit `Long`/`String`/`Boolean`,
// `Entity` and `Extension` types, common-type references by name, entity
// shapes as common types, `additionalAttributes: false`, actions' `type`
// in `memberOf`, `principalTypes: []`.
//
//   node gen_schema.js --seed S [--index I]     prints the case as JSON
'use strict';

const { Rng } = require('./lib/rng');
const { parseFeatures } = require('./lib/features');
const { policySetText, quote, isIdent } = require('./lib/print');
const { Generator, ENTITY_TYPES, ACTIONS, IDS, widened } = require('./gen');

const ACTION_LEAVES = 6;
const PARENT_TYPES = {
  User: ['Group', 'Team'],
  Group: ['Group', 'Team', 'Namespace'],
  Team: ['Team', 'Group', 'Namespace'],
  Namespace: ['Namespace'],
  Task: ['Namespace', 'Task', 'Acme::Sub::Folder'],
  'Acme::Doc': ['Acme::Sub::Folder', 'Namespace'],
  'Acme::Sub::Folder': ['Acme::Sub::Folder', 'Namespace'],
};
// gen.js's attributes and the types it means them to have.
const ATTRS = [
  ['name', 'string'], ['email', 'string'], ['full name', 'string'], ['dept', 'string'], ['', 'string'],
  ['type', 'string'], ['id', 'string'],
  ['age', 'long'], ['level', 'long'], ['x-y', 'long'], ['count', 'long'],
  ['active', 'bool'], ['admin', 'bool'], ['if', 'bool'],
  ['owner', 'entity'], ['manager', 'entity'],
  ['roles', 'set:string'], ['readers', 'set:entity'], ['scores', 'set:long'],
  ['profile', 'record'], ['meta', 'record'],
  ['addr', 'ip'], ['budget', 'decimal'], ['created', 'datetime'], ['ttl', 'duration'],
];
const NAMESPACES = { 'Acme::Doc': 'Acme', 'Acme::Sub::Folder': 'Acme::Sub' };
// Types that may be enumerated, and the choices they draw from: gen.js's ids
// of that type (so that its literals are valid or not) and a few more,
// repeats and the empty id included (Cedar accepts both).
const ENUMS = {
  Team: { p: 0.2, ids: ['red', 'blue', 't"q', 'green', ''] },
  Namespace: { p: 0.08, ids: ['root', 'prod', 'dev', 'kube-system', 'staging'] },
  'Acme::Sub::Folder': { p: 0.08, ids: ['f1', 'f2', 'f3'] },
  Group: { p: 0.04, ids: ['admins', 'devs', 'all', 'g1'] },
};
const EXT = ['ipaddr', 'decimal', 'datetime', 'duration'];

function key(name) { return isIdent(name) ? name : quote(name); }

class SchemaGen {
  constructor(rng) {
    this.r = rng;
    this.commons = { '': [], Acme: [], 'Acme::Sub': [] };
    this.commonNames = new Set();
    this.faults = [];
    this.enumChoices = {};
    // Now and then a schema with a fault: `Boolean` is JSON's name, not the text's.
    this.badBool = rng.chance(0.02);
  }

  fault(name, p) {
    if (!this.r.chance(p)) return false;
    this.faults.push(name);
    return true;
  }

  // A type in Cedar's schema text, written from namespace `ns`.
  typeFor(kind, depth, ns) {
    const r = this.r;
    if (r.chance(0.04)) kind = r.pick(ATTRS)[1];  // a type other than the intended one
    switch (kind) {
      case 'string': return r.chance(0.05) ? '__cedar::String' : 'String';
      case 'long': return r.chance(0.1) ? '__cedar::Long' : 'Long';
      case 'bool':
        if (this.badBool && r.chance(0.3)) return 'Boolean';
        return r.chance(0.05) ? '__cedar::Bool' : 'Bool';
      case 'entity': return this.entityRef(r.chance(0.7) ? 'User' : r.pick(this.declared), ns);
      case 'set:string': return r.chance(0.05) ? 'Set<Set<String>>' : 'Set<String>';
      case 'set:long': return 'Set<Long>';
      case 'set:entity': return `Set<${this.entityRef(r.chance(0.7) ? 'User' : r.pick(this.declared), ns)}>`;
      case 'record': return r.chance(0.05) ? `Set<${this.record(depth + 1, ns)}>` : this.record(depth + 1, ns);
      case 'ip': return r.chance(0.05) ? '__cedar::ipaddr' : 'ipaddr';
      case 'decimal': return 'decimal';
      case 'datetime': return 'datetime';
      case 'duration': return 'duration';
      default: return 'String';
    }
  }

  // A reference to a declared entity type, from namespace `ns`.
  entityRef(type, ns) {
    if (ns && type.startsWith(`${ns}::`) && !type.slice(ns.length + 2).includes('::') && this.r.chance(0.5)) {
      return type.slice(ns.length + 2);
    }
    return type;
  }

  // A common type of namespace `home` named for `text`, referred to from `ns`.
  common(prefix, text, home, ns) {
    const name = `${prefix}${this.commonNames.size}`;
    this.commonNames.add(name);
    this.commons[home].push(`type ${name} = ${text};`);
    if (home === ns && this.r.chance(0.7)) return name;
    return home ? `${home}::${name}` : name;
  }

  record(depth, ns) {
    const r = this.r;
    if (depth > 2) return '{}';
    // Now and then a common type, in this namespace or the empty one.
    const home = depth === 1 && r.chance(0.15) ? (r.chance(0.6) ? ns : '') : null;
    const fields = [];
    const inner = [['level', 'long'], ['name', 'string'], ['active', 'bool'], ['age', 'long'],
      ['profile', 'record'], ['meta', 'record'], ['x y', 'string']];
    for (const [n, t] of r.sample(inner, r.int(0, 4))) {
      fields.push(`${key(n)}${r.chance(0.25) ? '?' : ''}: ${this.typeFor(t, depth, home ?? ns)}`);
    }
    const text = `{ ${fields.join(', ')} }`;
    return home === null ? text : this.common('Rec', text, home, ns);
  }

  attrs(p, ns) {
    const r = this.r;
    const fields = [];
    for (const [n, t] of ATTRS) {
      if (!r.chance(p)) continue;
      fields.push(`${key(n)}${r.chance(0.3) ? '?' : ''}: ${this.typeFor(t, 0, ns)}`);
    }
    return fields;
  }

  tagsType(ns) {
    const r = this.r;
    return r.weighted([[12, 'String'], [3, 'Long'], [2, 'Set<String>'], [2, 'Bool'],
      [1, this.entityRef('User', ns)], [1, '{ level: Long, name?: String }'], [1, 'ipaddr']]);
  }

  // The context of an action: inline, a common type, empty or absent.
  context(ns) {
    const r = this.r;
    const inline = (from) => `{ ${this.attrs(0.3, from).join(', ')} }`;
    const kind = r.weighted([[60, 'inline'], [15, 'common'], [8, 'empty'], [17, 'none']]);
    if (kind === 'inline') return inline(ns);
    if (kind === 'common') {
      const home = r.chance(0.7) ? ns : '';
      const text = this.fault('context is not a record', 0.01) ? r.pick(['Long', 'Set<String>', 'User']) : inline(home);
      return this.common('Ctx', text, home, ns);
    }
    if (kind === 'empty') return '{}';
    return null;
  }

  typeList(types, ns) {
    const list = types.map((t) => this.entityRef(t, ns));
    if (list.length === 1 && this.r.chance(0.5)) return list[0];
    return `[${list.join(', ')}]`;
  }

  schema() {
    const r = this.r;
    this.declared = ENTITY_TYPES.filter(() => r.chance(0.93));
    if (!this.declared.includes('User')) this.declared.push('User');
    this.enums = new Set(Object.keys(ENUMS).filter((t) => this.declared.includes(t) && r.chance(ENUMS[t].p)));
    const decls = { '': [], Acme: [], 'Acme::Sub': [] };
    for (const t of this.declared) {
      const ns = NAMESPACES[t] || '';
      const base = ns ? t.slice(ns.length + 2) : t;
      if (this.enums.has(t)) {
        const choices = r.sample(ENUMS[t].ids, r.int(1, 4));
        this.enumChoices[t] = choices;
        if (r.chance(0.05)) choices.push(choices[0]);  // a repeat, which Cedar accepts
        decls[ns].push(`entity ${base} enum [${choices.map((c) => quote(c)).join(', ')}];`);
        continue;
      }
      // Enumerated types may be parents; they have none themselves.
      const parents = PARENT_TYPES[t].filter((p) => this.declared.includes(p) && r.chance(0.6))
        .map((p) => this.entityRef(p, ns));
      let text = `entity ${base}`;
      if (parents.length) text += ` in ${parents.length === 1 && r.chance(0.3) ? parents[0] : `[${parents.join(', ')}]`}`;
      const fields = this.attrs(0.35, ns);
      if (fields.length || r.chance(0.3)) text += `${r.chance(0.5) ? ' =' : ''} { ${fields.join(', ')} }`;
      if (r.chance(0.3)) text += ` tags ${this.tagsType(ns)}`;
      decls[ns].push(`${r.chance(0.1) ? '@doc("generated") ' : ''}${text};`);
    }
    // Actions: ACTIONS[i] may be in ACTIONS[j] for j > i, j >= ACTION_LEAVES.
    ACTIONS.forEach((a, i) => {
      const ns = a.type === 'Action' ? '' : a.type.slice(0, -'::Action'.length);
      const parents = [];
      for (let j = Math.max(i + 1, ACTION_LEAVES); j < ACTIONS.length; j++) {
        const b = ACTIONS[j];
        if (!r.chance(0.4)) continue;
        if (b.type === a.type) parents.push(quote(b.id));
        else parents.push(`${b.type}::${quote(b.id)}`);
      }
      let text = `action ${isIdent(a.id) && r.chance(0.5) ? a.id : quote(a.id)}`;
      if (parents.length) text += ` in ${parents.length === 1 && r.chance(0.3) ? parents[0] : `[${parents.join(', ')}]`}`;
      if (i < ACTION_LEAVES ? r.chance(0.9) : r.chance(0.25)) {
        const principals = r.sample(this.declared, r.int(1, 3));
        if (r.chance(0.6) && !principals.includes('User')) principals.push('User');
        const resources = r.sample(this.declared, r.int(1, 3));
        const entries = [];
        if (!this.fault('appliesTo without principal', 0.003)) {
          entries.push(`principal: ${this.fault('empty principal list', 0.003) ? '[]' : this.typeList(principals, ns)}`);
        }
        if (!this.fault('appliesTo without resource', 0.003)) {
          entries.push(`resource: ${this.typeList(resources, ns)}`);
        }
        const ctx = this.context(ns);
        if (ctx !== null) entries.push(`context: ${ctx}`);
        if (entries.length) text += ` appliesTo { ${r.shuffle(entries).join(', ')}${r.chance(0.1) ? ',' : ''} }`;
      }
      decls[ns].push(`${text};`);
    });
    const out = [...this.commons[''], ...decls['']];
    for (const ns of ['Acme', 'Acme::Sub']) {
      const body = [...this.commons[ns], ...decls[ns]];
      if (body.length) out.push(`namespace ${ns} {\n  ${body.join('\n  ')}\n}`);
    }
    return out.join('\n') + '\n';
  }
}

// --- edits of the JSON form ---------------------------------------------------

const PRIMITIVE = { Long: 'Long', '__cedar::Long': 'Long', String: 'String', '__cedar::String': 'String',
  Bool: 'Boolean', '__cedar::Bool': 'Boolean' };

// Rewrites cedar-wasm's JSON schema (every name as `EntityOrCommon`) into the
// other spellings the format allows, and now and then adds a fault.
function jsonEdits(rng, json, commonNames, faults) {
  const isCommon = (name) => commonNames.has(name.split('::').pop());
  let openRecordFault = rng.chance(0.01);
  if (openRecordFault) faults.push('additionalAttributes: true');
  const closeRecords = rng.chance(0.15);
  const explicit = rng.chance(0.7) ? 0.5 : 0;
  const type = (t) => {
    if (t === null || typeof t !== 'object') return t;
    if (t.type === 'EntityOrCommon' && rng.chance(explicit)) {
      const rest = {};
      for (const [k, v] of Object.entries(t)) if (k !== 'type' && k !== 'name') rest[k] = v;
      if (PRIMITIVE[t.name]) return { type: PRIMITIVE[t.name], ...rest };
      if (EXT.includes(t.name) || EXT.includes(t.name.replace(/^__cedar::/, ''))) {
        return { type: 'Extension', name: t.name.replace(/^__cedar::/, ''), ...rest };
      }
      if (isCommon(t.name)) return { type: t.name, ...rest };
      return { type: 'Entity', name: t.name, ...rest };
    }
    if (t.type === 'Set') return { ...t, element: type(t.element) };
    if (t.type === 'Record') {
      const attributes = {};
      for (const [k, v] of Object.entries(t.attributes || {})) attributes[k] = type(v);
      const out = { ...t, attributes };
      if (openRecordFault && rng.chance(0.3)) {
        out.additionalAttributes = true;
        openRecordFault = false;
      } else if (closeRecords && rng.chance(0.3)) {
        out.additionalAttributes = false;
      }
      return out;
    }
    return t;
  };
  let shapeCommons = 0;
  for (const [nsName, ns] of Object.entries(json)) {
    if (ns.commonTypes) for (const k of Object.keys(ns.commonTypes)) ns.commonTypes[k] = type(ns.commonTypes[k]);
    for (const e of Object.values(ns.entityTypes || {})) {
      if (e.shape) {
        e.shape = type(e.shape);
        // An entity's shape given as a common type (a record, or now and then not).
        if (rng.chance(0.08)) {
          const name = `Shape${shapeCommons++}`;
          ns.commonTypes = ns.commonTypes || {};
          ns.commonTypes[name] = rng.chance(0.1) ? { type: 'Long' } : e.shape;
          if (ns.commonTypes[name].type === 'Long') faults.push('shape is not a record');
          e.shape = { type: name };
        }
      }
      if (e.tags) e.tags = type(e.tags);
    }
    for (const a of Object.values(ns.actions || {})) {
      if (a.memberOf && rng.chance(0.2)) {
        a.memberOf = a.memberOf.map((m) => (m.type ? m : { ...m, type: nsName ? `${nsName}::Action` : 'Action' }));
      }
      if (!a.appliesTo) continue;
      if (a.appliesTo.context) a.appliesTo.context = type(a.appliesTo.context);
      if (rng.chance(0.01)) {
        a.appliesTo.principalTypes = [];  // applies to nothing: valid JSON
      }
      if (rng.chance(0.005)) {
        delete a.appliesTo.resourceTypes;
        faults.push('appliesTo without resourceTypes');
      }
    }
  }
  if (rng.chance(0.005)) {
    const ns = json[rng.pick(Object.keys(json))];
    ns.bogus = {};
    faults.push('unknown field');
  }
  return json;
}

// Template links for the chosen policies' templates (about half the cases
// with templates): slots bound to declared types, undeclared ones, ids
// outside an enumerated type's values, actions; and in about one case with
// links in twelve a link Cedar refuses as a whole (a missing template, a
// static policy as template, an id already taken, a slot too few or too
// many). Returns [{charter, cedar, kind}]: the link as Charter reads it
// (--template-linked form, policy ids as the text gives them) and as the
// oracle passes it (templateLinks, policies named by position).
function schemaLinks(rng, sg, chosen) {
  const ids = chosen.map((p, i) => {
    const a = p.annotations.find((x) => x.key === 'id');
    return a ? (a.value === null ? '' : a.value) : `policy${i}`;
  });
  const templates = chosen.map((p, i) => i).filter((i) => chosen[i].principal.slot || chosen[i].resource.slot);
  if (!templates.length || !rng.chance(0.5)) return [];
  const statics = chosen.map((p, i) => i).filter((i) => !templates.includes(i));
  const undeclared = ENTITY_TYPES.filter((t) => !sg.declared.includes(t));
  const entity = (kind) => {
    switch (kind) {
      case 'undeclared-type': {
        const t = undeclared.length && rng.chance(0.5) ? rng.pick(undeclared) : rng.pick(['Nope', 'Acme::Nope', 'Acme::Sub']);
        return { type: t, id: rng.pick(IDS[t] || ['x', 'é']) };
      }
      case 'enum-violating': {
        const t = rng.pick(Object.keys(sg.enumChoices));
        const outside = ['green', 'staging', 'f3', 'g1', 'nope', ''].filter((x) => !sg.enumChoices[t].includes(x));
        return { type: t, id: rng.pick(outside) };
      }
      case 'action': return rng.pick(ACTIONS);
      default: {
        const t = rng.pick(sg.declared);
        if (sg.enumChoices[t]) return { type: t, id: rng.pick(sg.enumChoices[t]) };
        return { type: t, id: rng.pick(IDS[t]) };
      }
    }
  };
  const form = (u) => (rng.chance(0.3) ? `${u.type}::${quote(u.id)}` : { type: u.type, id: u.id });
  const out = [];
  for (const t of templates) {
    const n = rng.int(1, 3);
    for (let j = 0; j < n; j++) {
      const kind = rng.weighted([[6, 'declared-type'], [3, 'undeclared-type'],
        [Object.keys(sg.enumChoices).length ? 2 : 0, 'enum-violating'], [1, 'action']]);
      const args = {};
      for (const v of ['principal', 'resource']) {
        if (chosen[t][v].slot) args[`?${v}`] = entity(rng.chance(0.7) ? kind : 'declared-type');
      }
      const id = rng.chance(0.8) ? `link-${out.length}` : `link "${out.length}" é`;
      out.push({ t, id, args, kind });
    }
  }
  if (rng.chance(1 / 12)) {
    const kind = rng.weighted([[2, 'missing-template'], [statics.length ? 2 : 0, 'static-as-template'],
      [2, 'duplicate-link-id'], [2, 'id-of-a-policy'], [1, 'missing-slot'], [1, 'extra-slot']]);
    const t = rng.pick(templates);
    const args = {};
    for (const v of ['principal', 'resource']) if (chosen[t][v].slot) args[`?${v}`] = entity('declared-type');
    const l = { t, id: `odd-${out.length}`, args, kind };
    if (kind === 'missing-template') l.missing = rng.pick(['missing', 'link-0']);
    if (kind === 'static-as-template') l.t = rng.pick(statics);
    if (kind === 'duplicate-link-id') l.id = rng.pick(out).id;
    if (kind === 'id-of-a-policy') l.policy = rng.int(0, chosen.length - 1);
    if (kind === 'missing-slot') delete args[rng.pick(Object.keys(args))];
    // A slot the template does not have (cedar-wasm's API takes no slot
    // names but these two); with both slots taken, one slot too few.
    if (kind === 'extra-slot') {
      const other = ['?principal', '?resource'].find((x) => !(x in args));
      if (other) args[other] = entity('declared-type');
      else delete args[rng.pick(Object.keys(args))];
    }
    out.splice(rng.int(0, out.length), 0, l);
  }
  return out.map((l) => ({
    kind: l.kind,
    charter: {
      template_id: l.missing !== undefined ? l.missing : ids[l.t],
      link_id: l.policy !== undefined ? ids[l.policy] : l.id,
      args: Object.fromEntries(Object.entries(l.args).map(([k, v]) => [k, form(v)])),
    },
    cedar: {
      templateId: l.missing !== undefined ? l.missing : `policy${l.t}`,
      newId: l.policy !== undefined ? `policy${l.policy}` : l.id,
      values: l.args,
    },
  }));
}

// Features for the validation campaign: all of them, templates included.
function campaignFeatures() {
  return parseFeatures('all');
}

// The case for (seed, index): a schema and a policy set, and the schema as
// each engine gets it (text for even indices; JSON for odd ones, when
// `cedar`, the cedar-wasm module, is given and can convert the text).
function generateSchemaCase(seed, index, cedar = null, features = campaignFeatures()) {
  const rng = new Rng(`schema/${seed}/${index}`);
  const sg = new SchemaGen(rng);
  const schema = sg.schema();
  const g = new Generator(new Rng(`${seed}/${index}`), features);
  g.world();  // the store the policies draw their entity literals from
  const policies = g.policies();
  const count = rng.int(1, 4);
  const chosen = policies.slice(0, count);
  const c = {
    schema,
    policies: policySetText(chosen, chosen.map(() => null)),
    hasTemplates: chosen.some((p) => p.principal.slot || p.resource.slot),
    faults: sg.faults,
    schemaForCedar: schema,
    schemaForCharter: schema,
    widened: widened(chosen),
  };
  const links = features.has('links') ? schemaLinks(new Rng(`links/${seed}/${index}`), sg, chosen) : [];
  if (links.length) {
    c.linksForCharter = JSON.stringify(links.map((l) => l.charter));
    c.linksForCedar = links.map((l) => l.cedar);
    c.linkKinds = links.map((l) => l.kind);
  }
  if (cedar !== null && index % 2 === 1) {
    const j = cedar.schemaToJson(schema);
    if (j.type === 'success') {
      const json = jsonEdits(new Rng(`schema-json/${seed}/${index}`), j.json, sg.commonNames, c.faults);
      c.schemaForCedar = json;
      c.schemaForCharter = JSON.stringify(json, null, 1);
    }
  }
  return c;
}

function main() {
  const args = process.argv.slice(2);
  const get = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const { loadCedar } = require('./lib/oracle');
  const c = generateSchemaCase(get('--seed', '1'), Number(get('--index', '0')), loadCedar());
  process.stdout.write(`${JSON.stringify(c, null, 1)}\n`);
}

if (require.main === module) main();

module.exports = { generateSchemaCase, SchemaGen, jsonEdits, schemaLinks };
