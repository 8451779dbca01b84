#!/usr/bin/env node
// Checks the shape of `charter bench --format json` output read from stdin:
// one JSON object on one line with the keys the issue promises
// (ns_per_request, requests, iterations) and the extra figures, every number
// finite and the timings positive. The figures themselves are timings and
// cannot be golden; this is what tests/cli/golden_test.sh checks instead.
//
//   charter bench ... --format json | node bench_shape.js REQUESTS ITERATIONS
'use strict';

const fs = require('fs');

const [requests, iterations] = process.argv.slice(2).map(Number);
const text = fs.readFileSync(0, 'utf8');
const faults = [];
const lines = text.split('\n');
if (lines.length !== 2 || lines[1] !== '') faults.push('not exactly one line');
let r = {};
try {
  r = JSON.parse(text);
} catch (e) {
  faults.push(`not JSON: ${e.message}`);
}

function get(path) {
  return path.split('.').reduce((o, k) => (o === undefined || o === null ? undefined : o[k]), r);
}
function positive(path) {
  const v = get(path);
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) faults.push(`${path} is not a positive number: ${v}`);
}
function count(path, want) {
  const v = get(path);
  if (!Number.isInteger(v) || v < 0) faults.push(`${path} is not a count: ${v}`);
  else if (want !== undefined && v !== want) faults.push(`${path} is ${v}, expected ${want}`);
}

positive('ns_per_request');
positive('cpu_ns_per_request');
count('requests', requests);
count('iterations', iterations);
for (const k of ['min', 'median', 'max']) positive(`pass_ns_per_request.${k}`);
for (const k of ['median', 'p99', 'max', 'clock']) positive(`latency_ns.${k}`);
count('latency_ns.passes', iterations);
count('policies');
count('entities');
count('entities_bytes');
for (const k of ['allow', 'deny', 'with_errors']) count(`decisions.${k}`);
if (get('decisions.allow') + get('decisions.deny') !== requests) faults.push('allow + deny is not the request count');
const load = get('load_ns') || {};
if (('compile' in load) === ('bundle' in load)) faults.push('load_ns has neither or both of compile and bundle');
positive(`load_ns.${'compile' in load ? 'compile' : 'bundle'}`);
positive('load_ns.entities');
positive('load_ns.requests');
positive('entities_mb_per_s');
if (get('pass_ns_per_request.min') > get('pass_ns_per_request.max')) faults.push('pass min > max');
if (get('latency_ns.median') > get('latency_ns.p99')) faults.push('latency median > p99');

if (faults.length) {
  for (const f of faults) process.stderr.write(`bench_shape: ${f}\n`);
  process.stderr.write(`bench_shape: output was: ${text.slice(0, 500)}\n`);
  process.exit(1);
}
process.stdout.write('shape ok\n');
