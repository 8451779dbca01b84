#!/usr/bin/env node
// A seeded generator of schemas for the worlds gen.js draws policies from:
// the same entity types (User, Group, Team, Namespace, Task, Acme::Doc,
// Acme::Sub::Folder), the same attribute names with the types gen.js
// intends for them (sometimes optional, sometimes missing, now and then of
// another type), hierarchies, tags, an enumerated type now and then, common
// types, and the actions of ACTIONS with their groups and `appliesTo`.
// Policies generated against such a schema are valid often enough, and
// invalid in every way often enough, for a differential validation campaign.
//
//   node gen_schema.js --seed S [--index I]     prints {schema, policies}
'use strict';

const { Rng } = require('./lib/rng');
const { parseFeatures } = require('./lib/features');
const { policySetText, quote, isIdent } = require('./lib/print');
const { Generator, ENTITY_TYPES, ACTIONS } = require('./gen');

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

function key(name) { return isIdent(name) ? name : quote(name); }

class SchemaGen {
  constructor(rng) {
    this.r = rng;
    this.commons = [];
    // Now and then a schema with a fault: `Boolean` is JSON's name, not the text's.
    this.badBool = rng.chance(0.03);
  }

  // A type in Cedar's schema text, written from namespace `ns`.
  typeFor(kind, depth, ns) {
    const r = this.r;
    if (r.chance(0.04)) kind = r.pick(ATTRS)[1];  // a type other than the intended one
    switch (kind) {
      case 'string': return 'String';
      case 'long': return r.chance(0.1) ? '__cedar::Long' : 'Long';
      case 'bool': return this.badBool && r.chance(0.3) ? 'Boolean' : 'Bool';
      case 'entity': return this.entityRef(r.chance(0.7) ? 'User' : r.pick(this.declared), ns);
      case 'set:string': return 'Set<String>';
      case 'set:long': return 'Set<Long>';
      case 'set:entity': return `Set<${this.entityRef(r.chance(0.7) ? 'User' : r.pick(this.declared), ns)}>`;
      case 'record': return this.record(depth + 1, ns);
      case 'ip': return 'ipaddr';
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

  record(depth, ns) {
    const r = this.r;
    if (depth > 2) return '{}';
    const fields = [];
    const inner = [['level', 'long'], ['name', 'string'], ['active', 'bool'], ['age', 'long'],
      ['profile', 'record'], ['meta', 'record'], ['x y', 'string']];
    for (const [n, t] of r.sample(inner, r.int(0, 4))) {
      fields.push(`${key(n)}${r.chance(0.25) ? '?' : ''}: ${this.typeFor(t, depth, ns)}`);
    }
    const text = `{ ${fields.join(', ')} }`;
    if (depth === 1 && r.chance(0.15) && !ns) {
      const name = `Rec${this.commons.length}`;
      this.commons.push(`type ${name} = ${text};`);
      return name;
    }
    return text;
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

  schema() {
    const r = this.r;
    this.declared = ENTITY_TYPES.filter(() => r.chance(0.93));
    if (!this.declared.includes('User')) this.declared.push('User');
    const enumTeam = this.declared.includes('Team') && r.chance(0.1);
    const decls = { '': [], Acme: [], 'Acme::Sub': [] };
    for (const t of this.declared) {
      const ns = NAMESPACES[t] || '';
      const base = ns ? t.slice(ns.length + 2) : t;
      if (t === 'Team' && enumTeam) {
        decls[ns].push(`entity Team enum [${r.sample(['red', 'blue', 't"q', 'green'], r.int(1, 4)).map(quote).join(', ')}];`);
        continue;
      }
      const parents = PARENT_TYPES[t].filter((p) => this.declared.includes(p) && !(p === 'Team' && enumTeam)
        && r.chance(0.6)).map((p) => this.entityRef(p, ns));
      let text = `entity ${base}`;
      if (parents.length) text += ` in [${parents.join(', ')}]`;
      const fields = this.attrs(0.35, ns);
      if (fields.length || r.chance(0.3)) text += `${r.chance(0.5) ? ' =' : ''} { ${fields.join(', ')} }`;
      if (r.chance(0.3)) text += ` tags ${r.chance(0.7) ? 'String' : r.pick(['Long', 'Set<String>', 'Bool'])}`;
      decls[ns].push(`${r.chance(0.1) ? '@doc("generated") ' : ''}${text};`);
    }
    // Actions: ACTIONS[i] may be in ACTIONS[j] for j > i, j >= ACTION_LEAVES.
    const actionNames = ACTIONS.map((a) => a.id);
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
      if (parents.length) text += ` in [${parents.join(', ')}]`;
      if (i < ACTION_LEAVES ? r.chance(0.9) : r.chance(0.2)) {
        const principals = r.sample(this.declared, r.int(1, 3));
        if (r.chance(0.6) && !principals.includes('User')) principals.push('User');
        const resources = r.sample(this.declared, r.int(1, 3));
        const entries = [`principal: [${principals.map((t) => this.entityRef(t, ns)).join(', ')}]`,
          `resource: [${resources.map((t) => this.entityRef(t, ns)).join(', ')}]`];
        if (r.chance(0.7)) entries.push(`context: { ${this.attrs(0.3, ns).join(', ')} }`);
        text += ` appliesTo { ${r.shuffle(entries).join(', ')} }`;
      }
      decls[ns].push(`${text};`);
    });
    void actionNames;
    const out = [...this.commons, ...decls['']];
    for (const ns of ['Acme', 'Acme::Sub']) {
      if (decls[ns].length) out.push(`namespace ${ns} {\n  ${decls[ns].join('\n  ')}\n}`);
    }
    return out.join('\n') + '\n';
  }
}

// Features for the validation campaign: everything but templates.
function campaignFeatures() {
  const f = parseFeatures('all');
  f.delete('templates');
  return f;
}

// The case for (seed, index): a schema and a policy set.
function generateSchemaCase(seed, index, features = campaignFeatures()) {
  const rng = new Rng(`schema/${seed}/${index}`);
  const schema = new SchemaGen(rng).schema();
  const g = new Generator(new Rng(`${seed}/${index}`), features);
  g.world();  // the store the policies draw their entity literals from
  const policies = g.policies();
  const count = rng.int(1, 4);
  const chosen = policies.slice(0, count);
  return { schema, policies: policySetText(chosen, chosen.map(() => null)) };
}

function main() {
  const args = process.argv.slice(2);
  const get = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const c = generateSchemaCase(get('--seed', '1'), Number(get('--index', '0')));
  process.stdout.write(`${JSON.stringify(c, null, 1)}\n`);
}

if (require.main === module) main();

module.exports = { generateSchemaCase, SchemaGen };
