#!/usr/bin/env node
// The performance report: every target of issue 5 measured in one command,
// printed as a Markdown table of figures against targets, CPU time beside
// wall time. `make perf-report` builds the Release tree and runs this; the
// figures go into docs/performance.md.
//
//   node bench/perf/report.js [--build DIR] [--runs R] [--wasm-seconds S]
//        [--peer-sets 'governance 10 10000'] [--json FILE] [--callgrind auto|yes|no]
//
// What it runs, all from DIR (a Release build with charter_cli,
// charter_workload and workload_bench):
//   charter_workload --policies N          the generated workloads, N = 10, 1000, 10000
//   charter bench --format json            R times each: the governance example and the
//                                          three generated sets (evaluation only, one
//                                          EvalContext, the entity store built once)
//   bench/workload_bench                   R repetitions: decisions with allocation
//                                          counts, bundle load + verify, compile, entity JSON
//   node bench/peer/peer.js --format json  once per peer set: cedar-wasm and Charter in one run
//   valgrind --tool=callgrind              instructions per decision (when valgrind is there)
// Every figure is the median of the R runs (peer ratios: of one run each).
// Status is judged on CPU time, the figure a contended machine does not
// distort; the wall figure is printed beside it and the status says when the
// wall figure misses where the CPU figure meets.
'use strict';

const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.join(__dirname, '..', '..');

function usage(message) {
  if (message) process.stderr.write(`report.js: ${message}\n`);
  process.stderr.write('usage: node bench/perf/report.js [--build DIR] [--runs R] [--wasm-seconds S] ' +
    "[--peer-sets 'governance 10 10000'] [--json FILE] [--callgrind auto|yes|no]\n");
  process.exit(2);
}

function parseArgs(argv) {
  const flags = { build: 'build-bench', runs: '3', 'wasm-seconds': '5', 'peer-sets': 'governance 10 10000', json: '',
    callgrind: 'auto' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--help' || argv[i] === '-h') usage();
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !(m[1] in flags)) usage(`unknown argument \`${argv[i]}\``);
    const v = m[2] !== undefined ? m[2] : argv[++i];
    if (v === undefined) usage(`\`--${m[1]}\` needs a value`);
    flags[m[1]] = v;
  }
  if (!/^[1-9]\d*$/.test(flags.runs)) usage('`--runs` must be a positive number');
  if (!['auto', 'yes', 'no'].includes(flags.callgrind)) usage('`--callgrind` is auto, yes or no');
  if (!/^\d+(\.\d+)?$/.test(flags['wasm-seconds'])) usage('`--wasm-seconds` must be a number');
  flags.runs = Number(flags.runs);
  flags.build = path.resolve(flags.build);
  flags['peer-sets'] = flags['peer-sets'].split(/\s+/).filter(Boolean);
  for (const s of flags['peer-sets']) {
    if (s !== 'governance' && !/^[1-9]\d*$/.test(s)) usage(`peer set \`${s}\` is neither governance nor a number`);
  }
  return flags;
}

function fail(message) {
  process.stderr.write(`report.js: ${message}\n`);
  process.exit(1);
}

function run(file, args) {
  try {
    return execFileSync(file, args, { encoding: 'utf8', maxBuffer: 1 << 30, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    fail(`${path.basename(file)} ${args.join(' ')} failed: ${(e.stderr || e.message).toString().trim()}`);
  }
  return '';
}

function progress(text) { process.stderr.write(`report.js: ${text}\n`); }

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// ---- formatting ----
function ns(v) {
  if (v < 1e4) return `${v.toFixed(0)} ns`;
  if (v < 1e7) return `${(v / 1e3).toFixed(1)} µs`;
  if (v < 1e10) return `${(v / 1e6).toFixed(v < 1e8 ? 2 : 0)} ms`;
  return `${(v / 1e9).toFixed(2)} s`;
}
function times(r) { return `${r >= 100 ? r.toFixed(0) : r.toFixed(r >= 10 ? 1 : 2)}x`; }
function num(v, digits = 1) { return v.toLocaleString('en-US', { maximumFractionDigits: digits }); }
function status(cpuMet, wallMet) {
  if (cpuMet && wallMet) return 'met';
  if (cpuMet) return 'met by CPU time; not by wall time here';
  return '**not met**';
}

// ---- the measurements ----
function workloadDir(flags, n) { return path.join(flags.build, 'workloads', String(n)); }

function setFiles(flags, set) {
  const dir = set === 'governance' ? path.join(root, 'examples', 'governance') : workloadDir(flags, set);
  return {
    policies: path.join(dir, 'policies.cedar'), entities: path.join(dir, 'entities.json'),
    requests: path.join(dir, 'requests.json'),
  };
}

function charterBench(flags, set) {
  const f = setFiles(flags, set);
  const runs = [];
  for (let i = 0; i < flags.runs; i++) {
    runs.push(JSON.parse(run(path.join(flags.build, 'cli', 'charter'), ['bench', '--policies', f.policies,
      '--entities', f.entities, '--requests', f.requests, '--format', 'json'])));
  }
  return {
    runs,
    cpu: median(runs.map((r) => r.cpu_ns_per_request)),
    pass: median(runs.map((r) => r.pass_ns_per_request.median)),
    latency: median(runs.map((r) => r.latency_ns.median)),
    p99: median(runs.map((r) => r.latency_ns.p99)),
    policies: runs[0].policies, entities: runs[0].entities, requests: runs[0].requests,
    allow: runs[0].decisions.allow,
  };
}

// Google Benchmark, R repetitions; returns {name: {cpu_ns, real_ns, counters}} from the medians.
// Each family runs in a process of its own: what one leaves in the heap
// changes what the next costs (an entity load in a fresh heap page-faults
// far less than one after glibc has returned freed memory to the system).
function googleBench(flags) {
  const families = ['GovernanceDecision|GovernanceDecisionOwned|PolicySetDecision/.*', 'BundleLoadVerify/.*',
    'Compile/.*', 'EntitiesFromJson/.*'];
  const unit = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
  const results = {};
  const byName = {};
  for (const family of families) {
    const out = run(path.join(flags.build, 'bench', 'workload_bench'), [`--benchmark_filter=^BM_(${family})$`,
      `--benchmark_repetitions=${flags.runs}`, '--benchmark_format=json', '--benchmark_min_time=0.3']);
    // Aggregates of a counter that is 0 in every repetition (its coefficient
    // of variation) are printed as NaN, which is not JSON.
    const data = JSON.parse(out.replace(/(:\s*)-?(nan|NaN|inf|Infinity)\b/g, '$1null'));
    for (const b of data.benchmarks) {
      if (b.error_occurred) fail(`${b.name}: ${b.error_message}`);
      if (b.run_type !== 'iteration') continue;
      (byName[b.run_name] = byName[b.run_name] || []).push(b);
    }
  }
  for (const [name, reps] of Object.entries(byName)) {
    const k = unit[reps[0].time_unit];
    const counters = {};
    for (const c of ['allocs_per_decision', 'json_bytes', 'bundle_bytes', 'policies', 'policy_bytes']) {
      if (reps[0][c] !== undefined) counters[c] = median(reps.map((r) => r[c]));
    }
    results[name] = {
      cpu_ns: median(reps.map((r) => r.cpu_time * k)), real_ns: median(reps.map((r) => r.real_time * k)),
      reps: reps.length, counters,
    };
  }
  return results;
}

// Instructions per decision, counted by callgrind inside Engine::Authorize
// only (the loads are not counted): `charter bench --iterations 10` decides
// every request 21 times (warm-up, 10 timed passes, 10 latency passes), so
// the warm-up's growing of the context weighs little.
// Generated sets are read as bundles, so that valgrind does not compile them.
function instructions(flags, set) {
  const f = setFiles(flags, set);
  const charterPath = path.join(flags.build, 'cli', 'charter');
  let source = ['--policies', f.policies];
  if (set !== 'governance') {
    const bundle = path.join(workloadDir(flags, set), 'bundle.charter');
    run(charterPath, ['build', '--policies', f.policies, '-o', bundle]);
    source = ['--bundle', bundle];
  }
  const out = path.join(flags.build, `callgrind-${set}.out`);
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`,
    '--toggle-collect=charter::Engine::Authorize(charter::Request const&, charter::Entities const&, charter::EvalContext*) const',
    charterPath, 'bench', ...source, '--entities', f.entities, '--requests', f.requests, '--iterations', '10',
    '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 30, cwd: root });
  try { fs.unlinkSync(out); } catch (e) { /* not written */ }
  const m = /Collected : (\d+)/.exec(r.stderr || '');
  if (r.status !== 0 || !m) fail(`valgrind on ${set} failed: ${(r.stderr || String(r.error)).trim().slice(-500)}`);
  const b = JSON.parse(r.stdout);
  const decisions = b.requests * (1 + b.iterations + b.latency_ns.passes);
  return Number(m[1]) / decisions;
}

function peer(flags, set) {
  const f = setFiles(flags, set);
  return JSON.parse(run(process.execPath, [path.join(root, 'bench', 'peer', 'peer.js'), '--charter',
    path.join(flags.build, 'cli', 'charter'), '--policies', f.policies, '--entities', f.entities,
    '--requests', f.requests, '--wasm-seconds', flags['wasm-seconds'], '--format', 'json']));
}

function machine() {
  const cpus = os.cpus();
  let commit = '';
  try {
    commit = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
    if (dirty.trim()) commit += ' (with uncommitted changes)';
  } catch (e) {
    commit = 'unknown';
  }
  return {
    cpu: `${cpus.length} x ${cpus[0].model.trim()}`, memory_gib: (os.totalmem() / 2 ** 30).toFixed(0),
    os: `${os.type()} ${os.release()}`, node: process.version, commit,
  };
}

function main() {
  const flags = parseArgs(process.argv.slice(2));
  for (const bin of ['cli/charter', 'bench/charter_workload', 'bench/workload_bench']) {
    if (!fs.existsSync(path.join(flags.build, bin))) fail(`${path.join(flags.build, bin)} is missing: run \`make perf-report\``);
  }
  const started = new Date();
  const loadBefore = os.loadavg();
  const m = machine();

  const sizes = [10, 1000, 10000];
  for (const n of new Set([...sizes, ...flags['peer-sets'].filter((s) => s !== 'governance').map(Number)])) {
    fs.mkdirSync(workloadDir(flags, n), { recursive: true });
    run(path.join(flags.build, 'bench', 'charter_workload'), ['--policies', String(n), '--out', workloadDir(flags, n)]);
  }

  progress(`charter bench, ${flags.runs} runs each: governance, ${sizes.join(', ')} policies`);
  const gov = charterBench(flags, 'governance');
  const scaled = {};
  for (const n of sizes) scaled[n] = charterBench(flags, n);

  progress(`workload_bench, ${flags.runs} repetitions`);
  const gb = googleBench(flags);
  const need = (name) => gb[name] || fail(`workload_bench reported no ${name}`);

  const peers = {};
  for (const s of flags['peer-sets']) {
    progress(`peer benchmark (cedar-wasm for ${flags['wasm-seconds']} s, then charter bench): ${s}`);
    peers[s] = peer(flags, s);
  }
  const loadAfter = os.loadavg();

  let ir = null;
  const haveValgrind = spawnSync('valgrind', ['--version']).status === 0;
  if (flags.callgrind === 'yes' || (flags.callgrind === 'auto' && haveValgrind)) {
    progress('callgrind: instructions per decision');
    ir = {};
    for (const set of ['governance', ...sizes]) ir[set] = instructions(flags, set);
  }

  // ---- the table ----
  const rows = [];
  const govCpuMet = gov.cpu < 500;
  rows.push(['governance example, median per decision', '< 500 ns',
    `${ns(gov.cpu)} CPU a decision (charter bench); ${ns(need('BM_GovernanceDecision').cpu_ns)} CPU (workload_bench)`,
    `pass median ${ns(gov.pass)}; single-call median ${ns(gov.latency)}, p99 ${ns(gov.p99)}`,
    status(govCpuMet, gov.pass < 500 && gov.latency < 500)]);

  const r10k = scaled[10000].cpu / scaled[10].cpu;
  const r10kWall = scaled[10000].pass / scaled[10].pass;
  rows.push(['10 / 1,000 / 10,000 policies over 10,000 entities: 10,000 within 2x of 10', '≤ 2x',
    `${sizes.map((n) => ns(scaled[n].cpu)).join(' / ')} CPU a decision: **${times(r10k)}**`,
    `${sizes.map((n) => ns(scaled[n].pass)).join(' / ')} (pass medians): ${times(r10kWall)}`,
    status(r10k <= 2, r10kWall <= 2)]);

  for (const s of flags['peer-sets']) {
    const p = peers[s];
    const label = s === 'governance' ? 'governance example' : `${s} policies, 10,000 entities`;
    rows.push([`cedar-wasm ÷ Charter, ${label}, evaluation only`, '≥ 100x',
      `${times(p.ratio.cpu_evaluation_only)} (${ns(p.cedar_wasm.cpu_ns)} ÷ ${ns(p.charter.cpu_ns_per_request)})`,
      `${times(p.ratio.evaluation_only)} (${ns(p.cedar_wasm.median_ns)} ÷ ${ns(p.charter.median_pass_ns_per_request)})`,
      status(p.ratio.cpu_evaluation_only >= 100, p.ratio.evaluation_only >= 100)]);
    rows.push([`cedar-wasm ÷ Charter, ${label}, with one entity load a request`, '≥ 100x',
      `${times(p.ratio.cpu_with_entity_load)} (${ns(p.cedar_wasm.cpu_ns)} ÷ ${ns(p.charter.with_entity_load_cpu_ns_per_request)})`,
      `${times(p.ratio.with_entity_load)} (${ns(p.cedar_wasm.median_ns)} ÷ ${ns(p.charter.with_entity_load_ns_per_request)})`,
      status(p.ratio.cpu_with_entity_load >= 100, p.ratio.with_entity_load >= 100)]);
  }

  const load = need('BM_BundleLoadVerify/10000');
  rows.push(['bundle load + verify, 10,000 policies', '< 10 ms',
    `${ns(load.cpu_ns)} CPU (${num(load.counters.bundle_bytes / 1e6)} MB bundle)`, ns(load.real_ns),
    status(load.cpu_ns < 1e7, load.real_ns < 1e7)]);
  const compile = need('BM_Compile/10000');
  rows.push(['compile 10,000 policies', '< 1 s', `${ns(compile.cpu_ns)} CPU`, ns(compile.real_ns),
    status(compile.cpu_ns < 1e9, compile.real_ns < 1e9)]);
  const ent = need('BM_EntitiesFromJson/10000');
  const mbCpu = ent.counters.json_bytes / ent.cpu_ns * 1e3;
  const mbWall = ent.counters.json_bytes / ent.real_ns * 1e3;
  rows.push(['entities from JSON (10,000 entities)', '≥ 100 MB/s',
    `${num(mbCpu, 0)} MB/s by CPU time (${num(ent.counters.json_bytes / 1e6, 2)} MB in ${ns(ent.cpu_ns)})`,
    `${num(mbWall, 0)} MB/s`, status(mbCpu >= 100, mbWall >= 100)]);

  const allocSets = [['governance', 'BM_GovernanceDecision'], ...sizes.map((n) => [String(n), `BM_PolicySetDecision/${n}`])];
  const allocs = allocSets.map(([label, name]) => [label, need(name).counters.allocs_per_decision]);
  const owned = need('BM_GovernanceDecisionOwned');
  rows.push(['heap allocations per steady-state decision (EvalContext)', '0',
    allocs.map(([l, a]) => `${l}: ${num(a, 3)}`).join('; '),
    `(an owning Decision, governance: ${num(owned.counters.allocs_per_decision, 2)} a call, ${ns(owned.cpu_ns)} CPU)`,
    allocs.every(([, a]) => a === 0) ? 'met' : '**not met**']);

  const lines = [];
  lines.push(`## Performance report, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  lines.push('');
  lines.push(`Commit ${m.commit}; ${m.cpu}, ${m.memory_gib} GiB, ${m.os}, Node.js ${m.node}; ` +
    `cedar-wasm ${Object.values(peers)[0] ? Object.values(peers)[0].cedar_wasm.version : '(not run)'}.`);
  lines.push(`Load average (1, 5, 15 min): ${loadBefore.map((v) => v.toFixed(2)).join(', ')} at the start, ` +
    `${loadAfter.map((v) => v.toFixed(2)).join(', ')} at the end, on ${os.cpus().length} cores.`);
  lines.push(`Figures are medians of ${flags.runs} runs (peer ratios: one run each, cedar-wasm for ` +
    `${flags['wasm-seconds']} s); status is judged on CPU time.`);
  lines.push('');
  lines.push('| target | goal | figure (CPU time) | wall time | status |');
  lines.push('|---|---|---|---|---|');
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  lines.push('');
  if (ir) {
    lines.push(`Instructions per decision (callgrind, inside Engine::Authorize with an EvalContext): governance ` +
      `${num(ir.governance, 0)}; ${sizes.map((n) => `${n} policies ${num(ir[n], 0)}`).join('; ')}; ` +
      `10,000 ÷ 10: ${times(ir[10000] / ir[10])}.`);
    lines.push('');
  }
  lines.push('Per set (charter bench, medians): ' + ['governance', ...sizes].map((s) => {
    const b = s === 'governance' ? gov : scaled[s];
    return `${s === 'governance' ? 'governance' : `${s} policies`}: ${b.policies} policies, ${b.entities} entities, ` +
      `${b.requests} requests (${b.allow} allowed), ${num(b.runs[0].policies_evaluated_per_request)} evaluated a request, ` +
      `${ns(b.cpu)} CPU, ${ns(b.pass)} wall`;
  }).join('; ') + '.');
  process.stdout.write(`${lines.join('\n')}\n`);

  if (flags.json) {
    fs.writeFileSync(flags.json, `${JSON.stringify({ machine: m, started, loadBefore, loadAfter,
      governance: gov, scaled, google_benchmark: gb, peers, instructions_per_decision: ir }, null, 1)}\n`);
    progress(`raw figures in ${flags.json}`);
  }
}

main();
