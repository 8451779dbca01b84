#!/usr/bin/env node
// The peer benchmark: Cedar's own authorizer (@cedar-policy/cedar-wasm, the
// oracle's copy in tests/oracle/node_modules) and `charter bench` on the same
// policies, entities and requests, in one run, with both figures and their
// ratio.
//
//   node bench/peer/peer.js --charter PATH --policies P --entities E --requests R
//        [--wasm-seconds S] [--charter-iterations N] [--format text|json]
//
// Cedar: the policy set is parsed once (`preparsePolicySet`), then each
// request is one `statefulIsAuthorized` call. That API takes the entities
// with every call and builds Cedar's entity store from them each time (it
// has no way to keep one), so its figure includes entity loading. Requests
// are taken in file order, cycling, until S seconds (default 5) have passed
// and at least 3 calls were made.
//
// Charter: `charter bench --format json` (evaluation only, the store built
// once), and the same plus one entity load per request (`load_ns.entities`,
// Entities::FromJson of the whole file), which is the work cedar-wasm does
// per call. Ratios are given by wall time (medians) and by CPU time (the
// process's CPU time over cedar-wasm's calls against Charter's thread CPU
// time), the steadier figure on a busy machine.
//
// Before timing, the decisions of both engines are compared on the requests
// Cedar will be timed on; a disagreement is an error (exit 1): the two must
// be doing the same work.
'use strict';

const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const oracle = require(path.join(__dirname, '..', '..', 'tests', 'oracle', 'lib', 'oracle'));

function usage(message) {
  if (message) process.stderr.write(`peer.js: ${message}\n`);
  process.stderr.write(
    'usage: node bench/peer/peer.js --charter PATH --policies P --entities E --requests R\n' +
    '                               [--wasm-seconds S] [--charter-iterations N] [--format text|json]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const flags = { 'wasm-seconds': '5', format: 'text' };
  const known = new Set(['charter', 'policies', 'entities', 'requests', 'wasm-seconds', 'charter-iterations',
    'format']);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--help' || argv[i] === '-h') usage();
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !known.has(m[1])) usage(`unknown argument \`${argv[i]}\``);
    const v = m[2] !== undefined ? m[2] : argv[++i];
    if (v === undefined) usage(`\`--${m[1]}\` needs a value`);
    flags[m[1]] = v;
  }
  for (const k of ['charter', 'policies', 'entities', 'requests']) {
    if (!flags[k]) usage(`\`--${k}\` is required`);
  }
  if (!/^\d+(\.\d+)?$/.test(flags['wasm-seconds'])) usage('`--wasm-seconds` must be a number');
  if (flags['charter-iterations'] !== undefined && !/^[1-9]\d*$/.test(flags['charter-iterations'])) {
    usage('`--charter-iterations` must be a positive number');
  }
  if (!['text', 'json'].includes(flags.format)) usage('`--format` is text or json');
  return flags;
}

function fail(message) {
  process.stderr.write(`peer.js: ${message}\n`);
  process.exit(1);
}

function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// A request's entity reference as cedar-wasm takes it, {type, id}: Charter
// also reads the `Type::"id"` string form and the {"__entity": ...} escape.
function uidObject(v) {
  if (v && typeof v === 'object') return v.__entity || v;
  const m = /^(.*)::"((?:[^"\\]|\\.)*)"$/s.exec(String(v));
  if (!m) fail(`cannot read the entity reference ${JSON.stringify(v)}`);
  return { type: m[1], id: JSON.parse(`"${m[2]}"`) };
}

function forCedar(r) {
  return {
    principal: uidObject(r.principal), action: uidObject(r.action), resource: uidObject(r.resource),
    context: r.context || {},
  };
}

function nowNs() { return Number(process.hrtime.bigint()); }

function charter(flags, args) {
  try {
    return execFileSync(flags.charter, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  } catch (e) {
    fail(`charter ${args[0]} failed: ${(e.stderr || e.message).trim()}`);
  }
  return '';
}

function main() {
  const flags = parseArgs(process.argv.slice(2));
  const policiesText = fs.readFileSync(flags.policies, 'utf8');
  const entitiesText = fs.readFileSync(flags.entities, 'utf8');
  const entities = JSON.parse(entitiesText);
  const requests = JSON.parse(fs.readFileSync(flags.requests, 'utf8'));
  if (!Array.isArray(requests) || requests.length === 0) fail('the requests file holds no requests');
  const cedarRequests = requests.map(forCedar);

  // ---- Cedar (cedar-wasm) ----
  let start = nowNs();
  const set = oracle.preparePolicySet(policiesText);
  const prepareNs = nowNs() - start;
  if (!set.ok) fail(`cedar-wasm cannot parse the policies: ${set.error}`);

  // Charter's decisions, to check that both engines answer alike.
  const charterDecisions = charter(flags, ['authorize', '--policies', flags.policies, '--entities', flags.entities,
    '--requests', flags.requests, '--format', 'jsonl']).trim().split('\n').map((l) => JSON.parse(l).decision);

  const budgetNs = Number(flags['wasm-seconds']) * 1e9;
  const times = [];
  let checked = 0;
  const loopStart = nowNs();
  let cpuStart = null;
  for (let i = 0; times.length < 3 || nowNs() - loopStart < budgetNs; i++) {
    const k = i % requests.length;
    start = nowNs();
    const answer = oracle.authorize(set.handle, entities, cedarRequests[k]);
    const ns = nowNs() - start;
    if (answer.error !== undefined) fail(`cedar-wasm: request ${k}: ${answer.error}`);
    if (i < requests.length) {
      if (answer.decision !== charterDecisions[k]) {
        fail(`request ${k}: cedar-wasm says ${answer.decision}, charter says ${charterDecisions[k]}`);
      }
      checked++;
    }
    if (i > 0) times.push(ns);  // the first call warms up
    else cpuStart = process.cpuUsage();
  }
  const cpu = process.cpuUsage(cpuStart);
  oracle.dropPolicySet(set.handle);
  times.sort((a, b) => a - b);
  const wasm = {
    calls: times.length,
    median_ns: median(times),
    mean_ns: times.reduce((a, b) => a + b, 0) / times.length,
    // Process CPU time (user + system) over the timed calls; it includes
    // the comparison with Charter's decisions on the first pass, a few
    // microseconds a call.
    cpu_ns: ((cpu.user + cpu.system) * 1e3) / times.length,
    prepare_ns: prepareNs,
    decisions_checked: checked,
    version: oracle.cedarVersion(),
  };

  // ---- Charter ----
  const benchArgs = ['bench', '--policies', flags.policies, '--entities', flags.entities, '--requests', flags.requests,
    '--format', 'json'];
  if (flags['charter-iterations']) benchArgs.push('--iterations', flags['charter-iterations']);
  const b = JSON.parse(charter(flags, benchArgs));
  const evalNs = b.pass_ns_per_request.median;
  const withLoadNs = evalNs + b.load_ns.entities;
  // CPU time of one entity load (older `charter bench` builds report only
  // its wall time).
  const loadCpuNs = b.load_cpu_ns ? b.load_cpu_ns.entities : b.load_ns.entities;
  const withLoadCpuNs = b.cpu_ns_per_request + loadCpuNs;

  const result = {
    workload: { policies: b.policies, entities: b.entities, requests: b.requests, entities_bytes: b.entities_bytes },
    cedar_wasm: wasm,
    charter: {
      ns_per_request: b.ns_per_request,
      cpu_ns_per_request: b.cpu_ns_per_request,
      median_pass_ns_per_request: evalNs,
      latency_median_ns: b.latency_ns.median,
      entities_load_ns: b.load_ns.entities,
      entities_load_cpu_ns: loadCpuNs,
      with_entity_load_ns_per_request: withLoadNs,
      with_entity_load_cpu_ns_per_request: withLoadCpuNs,
      iterations: b.iterations,
    },
    ratio: {
      evaluation_only: wasm.median_ns / evalNs,
      with_entity_load: wasm.median_ns / withLoadNs,
      cpu_evaluation_only: wasm.cpu_ns / b.cpu_ns_per_request,
      cpu_with_entity_load: wasm.cpu_ns / withLoadCpuNs,
    },
  };
  if (flags.format === 'json') {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const us = (ns) => `${(ns / 1e3).toFixed(ns < 1e4 ? 3 : 1)} µs`;
  const x = (r) => `${r >= 100 ? r.toFixed(0) : r.toFixed(1)}x`;
  process.stdout.write(
    `workload      ${b.policies} policies, ${b.entities} entities (${b.entities_bytes} bytes), ` +
    `${b.requests} requests\n` +
    `cedar-wasm    ${wasm.version}: median ${us(wasm.median_ns)} per call (mean ${us(wasm.mean_ns)}, ` +
    `CPU ${us(wasm.cpu_ns)}, ${wasm.calls} calls; entities converted on every call), policy set parsed once in ${us(prepareNs)}; ` +
    `${checked} decisions agree with Charter\n` +
    `charter       ${us(evalNs)} per request, evaluation only (median of ${b.iterations} passes; ` +
    `mean ${us(b.ns_per_request)}, CPU ${us(b.cpu_ns_per_request)})\n` +
    `charter+load  ${us(withLoadNs)} per request with one entity load each (${us(b.load_ns.entities)} a load; ` +
    `CPU ${us(withLoadCpuNs)}, ${us(loadCpuNs)} a load)\n` +
    `ratio         ${x(result.ratio.evaluation_only)} evaluation only, ${x(result.ratio.with_entity_load)} ` +
    'with entity loading (medians of wall time); ' +
    `${x(result.ratio.cpu_evaluation_only)} evaluation only, ${x(result.ratio.cpu_with_entity_load)} with entity loading, by CPU time\n`);
}

main();
