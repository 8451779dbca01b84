#!/usr/bin/env node
// The schema-directed data campaign: entities and requests written for a
// schema, in every form Cedar's schema-based parsing allows (entities as
// `{type, id}`, `{"__entity": …}` or `["T", "id"]`; extension values as
// their string, `{"__extn": {fn, arg}}` or `{fn, arg}`), now and then with a
// fault (a value of the wrong type, a missing or undeclared attribute, an
// id outside an enumerated type, a parent the schema does not allow, tags on
// a type without them, an action in the entities that differs from the
// schema's, a principal or a context the action does not take). Charter
// (`charter authorize --schema … --format jsonl`) and Cedar (cedar-wasm's
// checkParseEntities and isAuthorized with the schema) must agree on
// whether the input is accepted and, when it is, on every decision, its
// determining policies and its erroring policies.
//
//   node schema_data.js --charter build/cli/charter --seed S --count N [--start K]
//        [--jobs J] [--out DIR] [--verbose]
//
// The schemas are gen_schema.js's (those Cedar reads), the policies gen.js's.
// Prints each disagreement (and saves the case into --out), then the mix of
// answers and `A agreed, D disagreed`; exits 1 on any disagreement.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { Rng } = require('./lib/rng');
const { parseFeatures } = require('./lib/features');
const { policySetText } = require('./lib/print');
const { Generator, ENTITY_TYPES } = require('./gen');
const { SchemaGen } = require('./gen_schema');
const { OraclePool } = require('./lib/pool');
const { loadCedar } = require('./lib/oracle');

const IDS = {
  User: ['alice', 'bob', 'carol', "o'neil"],
  Group: ['admins', 'devs', 'all'],
  Team: ['red', 'blue', 'green'],
  Namespace: ['root', 'prod', 'dev'],
  Task: ['t1', 't2', 'build'],
  'Acme::Doc': ['d1', 'd2'],
  'Acme::Sub::Folder': ['f1', 'f2'],
};
const STRINGS = ['alice', '', 'a b', 'é', 'x"y', 'admin', 'prod'];
const IPS = ['10.0.0.1', '10.0.0.0/8', '192.168.1.7', '::1', '2001:db8::/32'];
const DECIMALS = ['1.0', '0.5', '-12.3456', '100.25'];
const DATETIMES = ['2024-01-01', '2024-01-01T10:00:00Z', '2024-01-01T10:00:00.500-0800'];
const DURATIONS = ['1h', '-90m', '1d2h3m4s5ms', '0ms'];
const CTOR = { ipaddr: 'ip', decimal: 'decimal', datetime: 'datetime', duration: 'duration' };
const EXAMPLES = { ipaddr: IPS, decimal: DECIMALS, datetime: DATETIMES, duration: DURATIONS };
const BAD_EXT = { ipaddr: '10.0.0.256', decimal: '1.23456', datetime: '2024-13-01', duration: '1x' };
const PRIMS = { Long: 'Long', String: 'String', Bool: 'Boolean', Boolean: 'Boolean' };

function parseArgs(argv) {
  const out = { seed: '1', count: 50, start: 0, charter: null, out: null, verbose: false, jobs: 2 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seed') out.seed = argv[++i];
    else if (a === '--count') out.count = Number(argv[++i]);
    else if (a === '--start') out.start = Number(argv[++i]);
    else if (a === '--charter') out.charter = argv[++i];
    else if (a === '--out') out.out = argv[++i];
    else if (a === '--jobs') out.jobs = Math.max(1, Number(argv[++i]));
    else if (a === '--verbose') out.verbose = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.charter) throw new Error('--charter PATH is required');
  return out;
}

// --- the schema as data ---------------------------------------------------------

// The schema of cedar-wasm's schemaToJsonWithResolvedTypes, with common types
// inlined: {entities: {T: {parents, attrs, tags, enum}}, actions: [{uid,
// principals, resources, context, ancestors}]}.
class Model {
  constructor(json) {
    this.json = json;
    this.entities = {};
    this.actions = [];
    for (const [ns, def] of Object.entries(json)) {
      const q = (n) => (ns ? `${ns}::${n}` : n);
      for (const [name, e] of Object.entries(def.entityTypes || {})) {
        this.entities[q(name)] = {
          name: q(name),
          parents: e.memberOfTypes || [],
          enum: e.enum || null,
          attrs: e.shape ? this.resolve(e.shape, ns) : { kind: 'Record', attrs: {} },
          tags: e.tags ? this.resolve(e.tags, ns) : null,
        };
      }
      for (const [id, a] of Object.entries(def.actions || {})) {
        const type = q('Action');
        this.actions.push({
          uid: { type, id },
          memberOf: (a.memberOf || []).map((m) => ({ type: m.type || type, id: m.id })),
          principals: a.appliesTo ? a.appliesTo.principalTypes : [],
          resources: a.appliesTo ? a.appliesTo.resourceTypes : [],
          context: a.appliesTo && a.appliesTo.context ? this.resolve(a.appliesTo.context, ns)
            : { kind: 'Record', attrs: {} },
        });
      }
    }
    // Transitive groups of each action.
    const byKey = new Map(this.actions.map((a) => [`${a.uid.type}::${a.uid.id}`, a]));
    for (const a of this.actions) {
      const seen = new Map();
      const stack = [...a.memberOf];
      while (stack.length) {
        const m = stack.pop();
        const k = `${m.type}::${m.id}`;
        if (seen.has(k)) continue;
        seen.set(k, m);
        const b = byKey.get(k);
        if (b) stack.push(...b.memberOf);
      }
      a.ancestors = [...seen.values()];
    }
  }

  common(name, ns) {
    const parts = name.split('::');
    const base = parts.pop();
    const home = parts.join('::');
    for (const n of home ? [home] : [ns, '']) {
      const def = this.json[n];
      if (def && def.commonTypes && def.commonTypes[base]) return { def: def.commonTypes[base], ns: n };
    }
    return null;
  }

  resolve(t, ns, depth = 0) {
    if (depth > 20) throw new Error('type nesting');
    switch (t.type) {
      case 'Set': return { kind: 'Set', elem: this.resolve(t.element, ns, depth + 1) };
      case 'Record': {
        const attrs = {};
        for (const [k, v] of Object.entries(t.attributes || {})) {
          attrs[k] = { type: this.resolve(v, ns, depth + 1), required: v.required !== false };
        }
        return { kind: 'Record', attrs };
      }
      case 'Entity': return { kind: 'Entity', name: t.name };
      case 'Extension': return { kind: 'Extension', name: t.name };
      default: {
        const c = this.common(t.type, ns);
        if (c) return this.resolve(c.def, c.ns, depth + 1);
        const base = t.type.replace(/^__cedar::/, '');
        if (PRIMS[base]) return { kind: PRIMS[base] };
        if (CTOR[base]) return { kind: 'Extension', name: base };
        throw new Error(`cannot resolve type ${t.type}`);
      }
    }
  }
}

// --- data for a schema ------------------------------------------------------------

class DataGen {
  constructor(rng, model) {
    this.r = rng;
    this.m = model;
    this.faults = [];
    // About one case in five has one fault somewhere.
    this.faultBudget = rng.chance(0.2) ? 1 : 0;
  }

  fault(name, p) {
    if (this.faultBudget === 0 || !this.r.chance(p)) return false;
    this.faultBudget--;
    this.faults.push(name);
    return true;
  }

  idsOf(type) {
    const e = this.m.entities[type];
    if (e && e.enum) return e.enum;
    return IDS[type] || ['x1', 'x2'];
  }

  uidOf(type) {
    const ids = this.idsOf(type);
    let id = this.r.pick(ids);
    if (this.m.entities[type] && this.m.entities[type].enum && this.fault('id outside the enum', 0.05)) id = 'purple';
    return { type, id };
  }

  entityRef(type) {
    const r = this.r;
    if (this.fault('entity of another type', 0.02)) type = r.pick(Object.keys(this.m.entities));
    const u = this.uidOf(type);
    if (this.fault('entity as text', 0.01)) return `${u.type}::"${u.id}"`;
    return r.weighted([[50, () => ({ ...u })], [25, () => ({ __entity: { ...u } })], [8, () => [u.type, u.id]],
      [5, () => ({ ...u, note: 1 })]])();
  }

  extValue(name) {
    const r = this.r;
    let arg = r.pick(EXAMPLES[name]);
    if (this.fault('bad extension string', 0.03)) arg = BAD_EXT[name];
    const fn = CTOR[name];
    return r.weighted([[55, () => arg], [25, () => ({ __extn: { fn, arg } })], [10, () => ({ fn, arg })],
      [5, () => ({ __extn: { fn, args: [arg] } })]])();
  }

  value(t, depth = 0) {
    const r = this.r;
    if (this.fault('value of the wrong type', 0.01)) {
      return r.pick([5, 'str', true, [1], {}, { __extn: { fn: 'ip', arg: '10.0.0.1' } }, { __entity: { type: 'User', id: 'alice' } }]);
    }
    switch (t.kind) {
      case 'Long': return r.int(-5, 100);
      case 'String': return r.pick(STRINGS);
      case 'Boolean': return r.chance(0.5);
      case 'Entity': return this.entityRef(t.name);
      case 'Extension': return this.extValue(t.name);
      case 'Set': return depth > 3 ? [] : Array.from({ length: r.int(0, 3) }, () => this.value(t.elem, depth + 1));
      case 'Record': return this.record(t, depth + 1);
      default: throw new Error(`no value of ${t.kind}`);
    }
  }

  record(t, depth) {
    const r = this.r;
    const out = {};
    for (const [k, a] of Object.entries(t.attrs)) {
      if (a.required ? this.fault('missing attribute', 0.02) : r.chance(0.5)) continue;
      out[k] = this.value(a.type, depth);
    }
    if (this.fault('undeclared attribute', 0.02)) out.undeclared = 1;
    return out;
  }

  entities() {
    const r = this.r;
    const out = [];
    const all = Object.values(this.m.entities);
    // The uids first, in an order where parents always come later (no
    // cycles); a parent may also be absent from the entities.
    const uids = [];
    for (const e of all) {
      const n = e.enum ? r.int(0, 1) : r.int(0, 3);
      for (const id of r.sample(this.idsOf(e.name), n)) uids.push({ type: e.name, id });
    }
    const order = r.shuffle(uids);
    order.forEach((uid, i) => {
      const e = this.m.entities[uid.type];
      const later = order.slice(i + 1);
      const parents = [];
      for (const pt of e.parents) {
        if (!r.chance(0.5)) continue;
        const pool = later.filter((u) => u.type === pt);
        const absent = this.m.entities[pt] && this.m.entities[pt].enum ? this.uidOf(pt) : { type: pt, id: 'absent-parent' };
        parents.push(pool.length && r.chance(0.8) ? { ...r.pick(pool) } : absent);
      }
      if (this.fault('parent of a type the schema does not allow', 0.03)) {
        parents.push({ type: r.pick(all).name, id: 'absent-parent' });
      }
      const ent = { uid: { ...uid }, attrs: e.enum ? {} : this.record(e.attrs, 0), parents };
      if (e.tags && r.chance(0.5)) {
        ent.tags = {};
        for (const k of r.sample(['env', 'tier', 'a b'], r.int(1, 2))) ent.tags[k] = this.value(e.tags, 1);
      } else if (!e.tags && this.fault('tags on a type without tags', 0.03)) {
        ent.tags = { env: 'prod' };
      }
      out.push(ent);
    });
    if (this.fault('undeclared entity type', 0.02)) out.push({ uid: { type: 'Ghost', id: 'g' }, attrs: {}, parents: [] });
    // Actions in the entities: the schema's own (accepted), or now and then
    // one with fewer groups than the schema gives it.
    if (r.chance(0.2) && this.m.actions.length) {
      for (const a of r.sample(this.m.actions, r.int(1, 3))) {
        let parents = a.ancestors.map((p) => ({ ...p }));
        if (parents.length && this.fault('action with other groups than the schema', 0.2)) parents = parents.slice(1);
        out.push({ uid: { ...a.uid }, attrs: {}, parents });
      }
    }
    return r.shuffle(out);
  }

  requests() {
    const r = this.r;
    const usable = this.m.actions.filter((a) => a.principals.length && a.resources.length);
    const n = r.int(1, 3);
    const out = [];
    for (let i = 0; i < n; i++) {
      const a = usable.length && !this.fault('action that applies to nothing', 0.03) ? r.pick(usable) : r.pick(this.m.actions);
      let ptype = a.principals.length ? r.pick(a.principals) : 'User';
      if (this.fault('principal of another type', 0.03)) ptype = r.pick(ENTITY_TYPES);
      const rtype = a.resources.length ? r.pick(a.resources) : 'User';
      out.push({
        principal: this.uidOf(ptype),
        action: this.fault('undeclared action', 0.02) ? { type: 'Action', id: 'ghost' } : { ...a.uid },
        resource: this.uidOf(rtype),
        context: this.record(a.context, 0),
      });
    }
    return out;
  }
}

// The case for (seed, index): the first schema of a few tries that Cedar
// reads, entities and requests for it, and gen.js's policies.
function generateCase(cedar, seed, index) {
  for (let attempt = 0; attempt < 10; attempt++) {
    const rng = new Rng(`schema-data/${seed}/${index}/${attempt}`);
    const schema = new SchemaGen(rng).schema();
    if (cedar.checkParseSchema(schema).type !== 'success') continue;
    const j = cedar.schemaToJsonWithResolvedTypes(schema);
    if (j.type !== 'success') continue;
    const model = new Model(j.json);
    if (!model.actions.some((a) => a.principals.length && a.resources.length)) continue;
    const dg = new DataGen(rng, model);
    const features = parseFeatures('all');
    features.delete('templates');
    const g = new Generator(new Rng(`${seed}/${index}`), features);
    g.world();
    const policies = g.policies().slice(0, rng.int(1, 6));
    return {
      index, schema, policies: policySetText(policies, policies.map(() => null)),
      entities: dg.entities(), requests: dg.requests(), faults: dg.faults,
    };
  }
  return null;
}

// --- Charter's side -------------------------------------------------------------------

function charterAnswer(charter, dir, c) {
  fs.writeFileSync(path.join(dir, 'schema.cedarschema'), c.schema);
  fs.writeFileSync(path.join(dir, 'policies.cedar'), c.policies);
  fs.writeFileSync(path.join(dir, 'entities.json'), JSON.stringify(c.entities));
  fs.writeFileSync(path.join(dir, 'requests.json'), JSON.stringify(c.requests));
  const r = spawnSync(charter, ['authorize', '--schema', 'schema.cedarschema', '--policies', 'policies.cedar',
    '--entities', 'entities.json', '--requests', 'requests.json', '--format', 'jsonl'], { cwd: dir });
  if (r.status === 1) return { rejected: r.stderr.toString().trim() };
  if (r.status !== 0) return { error: `charter exited with ${r.signal || r.status}: ${r.stderr}` };
  const answers = r.stdout.toString().split('\n').filter((l) => l).map((l) => {
    const a = JSON.parse(l);
    return { decision: a.decision, reasons: a.reasons.slice().sort(), errors: a.errors.map((e) => e.policy).sort() };
  });
  return { answers };
}

function same(a, b) {
  if (a.error !== undefined || b.error !== undefined) return false;
  if ((a.rejected !== undefined) !== (b.rejected !== undefined)) return false;
  if (a.rejected !== undefined) return true;
  return JSON.stringify(a.answers) === JSON.stringify(b.answers);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  opts.charter = path.resolve(opts.charter);
  const cedar = loadCedar();
  const pool = new OraclePool(opts.jobs);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-schema-data-'));
  const t0 = Date.now();
  const stats = { cases: 0, agreed: 0, disagreed: 0, rejected: 0, requests: 0, allow: 0, deny: 0, skipped: 0 };
  const BATCH = 10;
  try {
    for (let base = opts.start; base < opts.start + opts.count; base += BATCH) {
      const cases = [];
      for (let i = base; i < Math.min(base + BATCH, opts.start + opts.count); i++) {
        const c = generateCase(cedar, opts.seed, i);
        if (c === null) stats.skipped++;
        else cases.push(c);
      }
      const theirsP = pool.call('schemaDataBatch', [cases.map((c) => ({
        schema: c.schema, policies: c.policies, entities: c.entities, requests: c.requests,
      }))]);
      const ours = cases.map((c) => charterAnswer(opts.charter, dir, c));
      const t = await theirsP;
      const theirs = t.error !== undefined ? cases.map(() => ({ error: t.error })) : t.answers;
      cases.forEach((c, k) => {
        stats.cases++;
        if (same(theirs[k], ours[k])) {
          stats.agreed++;
          if (theirs[k].rejected !== undefined) stats.rejected++;
          else {
            for (const a of theirs[k].answers) {
              stats.requests++;
              stats[a.decision]++;
            }
          }
          return;
        }
        stats.disagreed++;
        if (stats.disagreed <= 20 || opts.verbose) {
          process.stdout.write(`--- disagreement: --seed ${opts.seed} --start ${c.index} --count 1 (faults: ${c.faults.join(', ') || 'none'})\n`);
          process.stdout.write(`cedar: ${JSON.stringify(theirs[k])}\ncharter: ${JSON.stringify(ours[k])}\n`);
        }
        if (opts.out) {
          const d = path.join(opts.out, `schema-data-${opts.seed}-${c.index}`);
          fs.mkdirSync(d, { recursive: true });
          fs.writeFileSync(path.join(d, 'schema.cedarschema'), c.schema);
          fs.writeFileSync(path.join(d, 'policies.cedar'), c.policies);
          fs.writeFileSync(path.join(d, 'entities.json'), `${JSON.stringify(c.entities, null, 1)}\n`);
          fs.writeFileSync(path.join(d, 'requests.json'), `${JSON.stringify(c.requests, null, 1)}\n`);
          process.stdout.write(`saved in ${d}\n`);
        }
      });
    }
  } finally {
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const secs = (Date.now() - t0) / 1000;
  process.stdout.write(`${stats.cases} cases (${stats.rejected} rejected by both; ${stats.requests} requests: `
    + `${stats.allow} allow, ${stats.deny} deny; ${stats.skipped} without a schema Cedar reads) in ${secs.toFixed(1)} s\n`);
  process.stdout.write(`${stats.agreed} agreed, ${stats.disagreed} disagreed\n`);
  process.exit(stats.disagreed === 0 ? 0 : 1);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${e.stack || e}\n`);
    process.exit(2);
  });
}

module.exports = { generateCase, Model, DataGen };
