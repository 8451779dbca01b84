#!/usr/bin/env node
// Writes generated cases for the VM-versus-interpreter differential test
// (interp_differential), one JSON object a line on stdout:
//
//   {"name": "S/I", "policies": "<policy text>", "entities": "<JSON text>",
//    "requests": "<JSON text>", "links": "<JSON text>"}   (links with templates)
//
// Case I of seed S is the case `node tests/oracle/gen.js --seed S --index I`
// writes (same features), so a reported case can be written out as files:
//   node tests/oracle/gen.js --seed S --index I --features all --out DIR
//
//   node tests/core/interp/gen_cases.js --seed S --count N [--start K] [--features LIST] [--typed]
//
// With --typed each line also has "schema": a schema inferred from the
// case's data, with the entities and requests made to conform to it
// (typed_schema.js), for the check of typed code against untyped code.
'use strict';

const path = require('path');
const { generateCase } = require(path.join(__dirname, '..', '..', 'oracle', 'gen.js'));
const { parseFeatures } = require(path.join(__dirname, '..', '..', 'oracle', 'lib', 'features.js'));
const { typedCase } = require(path.join(__dirname, 'typed_schema.js'));

function main() {
  const flags = { seed: '1', count: '100', start: '0', features: 'all', typed: false };
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--typed') {
      flags.typed = true;
      continue;
    }
    const m = /^--(seed|count|start|features)(?:=(.*))?$/.exec(args[i]);
    if (!m) {
      process.stderr.write('usage: node gen_cases.js --seed S --count N [--start K] [--features LIST] [--typed]\n');
      process.exit(2);
    }
    flags[m[1]] = m[2] !== undefined ? m[2] : args[++i];
  }
  const features = parseFeatures(flags.features);
  const start = Number(flags.start);
  const count = Number(flags.count);
  for (let i = start; i < start + count; i++) {
    const c = generateCase(flags.seed, i, features);
    const line = {
      name: `${flags.seed}/${i}`,
      policies: c.policies,
      entities: JSON.stringify(c.entities),
      requests: JSON.stringify(c.requests),
    };
    if (c.links) line.links = JSON.stringify(c.links);
    if (flags.typed && !(c.links && c.links.length)) {
      const t = typedCase(c);
      if (t) {
        line.schema = t.schema;
        line.typed_entities = JSON.stringify(t.entities);
        line.typed_requests = JSON.stringify(t.requests);
      }
    }
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
}

main();
