#!/usr/bin/env node
// Writes the formatter's corpus into DIR: the policy sets of COUNT cases of
// the oracle's generator (tests/oracle/gen.js, every construct family) for
// SEED, and those of every saved oracle reproducer.
//
//   node tests/tools/format/gen_corpus.js DIR SEED COUNT
'use strict';

const fs = require('fs');
const path = require('path');
const { generateCase } = require('../../oracle/gen');
const { parseFeatures } = require('../../oracle/lib/features');

const [dir, seed, count] = process.argv.slice(2);
if (!dir || !seed || !count) {
  process.stderr.write('usage: node gen_corpus.js DIR SEED COUNT\n');
  process.exit(2);
}
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const features = parseFeatures('all');
for (let i = 0; i < Number(count); i++) {
  const c = generateCase(seed, i, features);
  fs.writeFileSync(path.join(dir, `gen-${i}.cedar`), c.policies);
}
const regressions = path.join(__dirname, '..', '..', 'oracle', 'regressions');
for (const name of fs.readdirSync(regressions)) {
  if (!name.endsWith('.json')) continue;
  const r = JSON.parse(fs.readFileSync(path.join(regressions, name), 'utf8'));
  if (typeof r.policies === 'string') {
    fs.writeFileSync(path.join(dir, `${name.replace(/\.json$/, '')}.cedar`), r.policies);
  }
}
