#!/usr/bin/env node
// Writes oracle_pairs.jsonl: one line {"text": T, "json": J} per policy,
// where J is what Cedar itself (cedar-wasm's policyToJson / templateToJson)
// makes of the policy text T. policy_json_test checks that Charter reads J
// into the same AST as it parses T.
//
//   node tests/core/policy_json/data/make_oracle_pairs.js [--count N] > tests/core/policy_json/data/oracle_pairs.jsonl
//
// The texts: hand-written ones covering every construct of the JSON format
// (hand_policies.cedar), the policy parser's fuzz seeds, the examples, and
// policies from the oracle generator (tests/oracle/gen.js, all features).
// Policies Cedar rejects are dropped, and so are those whose JSON holds an
// integer beyond 2^53: cedar-wasm hands JSON to JavaScript, which rounds it.
'use strict';

const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..', '..', '..', '..');
const oracleDir = path.join(root, 'tests', 'oracle');
const cedar = require(path.join(oracleDir, 'node_modules', '@cedar-policy', 'cedar-wasm', 'nodejs'));
const { generateCase } = require(path.join(oracleDir, 'gen.js'));
const { parseFeatures } = require(path.join(oracleDir, 'lib', 'features.js'));

let count = 40;  // generated policy sets
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--count') count = Number(process.argv[++i]);
}

// Splits policy-set text into single policies with Cedar's own parser.
function split(text) {
  const parts = cedar.policySetTextToParts(text);
  if (parts.type !== 'success') return [];
  return parts.policies.concat(parts.policy_templates);
}

function safe(v) {
  if (typeof v === 'number') return Number.isSafeInteger(v);
  if (Array.isArray(v)) return v.every(safe);
  if (v !== null && typeof v === 'object') return Object.values(v).every(safe);
  return true;
}

const texts = [];
texts.push(...split(fs.readFileSync(path.join(__dirname, 'hand_policies.cedar'), 'utf8')));
const seeds = path.join(root, 'fuzz', 'corpus', 'policy_parser');
for (const f of fs.readdirSync(seeds).sort()) texts.push(...split(fs.readFileSync(path.join(seeds, f), 'utf8')));
const example = path.join(root, 'examples', 'governance', 'policies.cedar');
if (fs.existsSync(example)) texts.push(...split(fs.readFileSync(example, 'utf8')));
const features = parseFeatures('all');
for (let i = 0; i < count; i++) texts.push(...split(generateCase('policy-json', i, features).policies));

const seen = new Set();
let dropped = 0;
for (const text of texts) {
  if (seen.has(text)) continue;
  seen.add(text);
  let answer = cedar.policyToJson(text);
  if (answer.type !== 'success') answer = cedar.templateToJson(text);
  if (answer.type !== 'success' || !safe(answer.json)) {
    ++dropped;
    continue;
  }
  process.stdout.write(JSON.stringify({ text, json: answer.json }) + '\n');
}
process.stderr.write(`${seen.size - dropped} pairs, ${dropped} dropped\n`);
