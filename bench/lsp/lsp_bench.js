// The targets of issue 38 for `charter lsp`, measured through a real
// client (vscode-jsonrpc, from tests/lsp's packages):
//   - diagnostics after an edit of a 1,000-policy file (validated against
//     the standard model): the time from didChange to the diagnostics of
//     that version, target 50 ms, for edits that leave the file parsing and
//     for edits that leave a syntax error;
//   - completion after `principal.` in that file, target 20 ms;
//   - the server's peak memory (VmHWM) with the governance model and
//     10,000 entities loaded, target 100 MB.
// The policies and entities are generated worlds (bench/gen:
// charter_governance_workload --policies 1000 --entities 10000).
//
//   node bench/lsp/lsp_bench.js CHARTER WORLD_DIR [EDITS]
//
// `make bench-lsp` builds the Release charter and the generator and runs it.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const rpc = require(path.join(__dirname, '../../tests/lsp/node_modules/vscode-jsonrpc/node'));

const [charter, world] = [path.resolve(process.argv[2]), path.resolve(process.argv[3])];
const edits = Number(process.argv[4] || 30);
const root = path.resolve(__dirname, '../..');
const uriOf = (p) => 'file://' + p.split('/').map(encodeURIComponent).join('/');
const WAIT_MS = 120000;

function within(promise, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out waiting for ' + what)), WAIT_MS);
  })]).finally(() => clearTimeout(timer));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function peakKb(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

async function main() {
  const child = spawn(charter, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const waiters = new Map();  // version -> resolve
  connection.onNotification('textDocument/publishDiagnostics', (p) => {
    const w = waiters.get(p.version);
    if (w) { waiters.delete(p.version); w(p); }
  });
  connection.onNotification('window/showMessage', (p) => { throw new Error('server: ' + p.message); });
  connection.listen();
  const diagnosticsOf = (version) => within(new Promise((resolve) => waiters.set(version, resolve)),
    `diagnostics of version ${version}`);

  await within(connection.sendRequest('initialize', {
    processId: process.pid, rootUri: uriOf(root), capabilities: {},
    initializationOptions: {
      schemas: ['stdlib/governance.cedarschema'], entities: path.join(world, 'entities.json'),
    },
  }), 'initialize');
  connection.sendNotification('initialized', {});

  const file = path.join(world, 'policies.cedar');
  const uri = uriOf(file);
  let text = fs.readFileSync(file, 'utf8');
  const policies = (text.match(/@id\(/g) || []).length;
  // A policy to edit and complete in, at the end of the file.
  text += '\n@id("bench")\npermit (principal, action, resource) when { principal. };\n';
  const lines = text.split('\n');
  const line = lines.length - 2;  // the `when` line
  const dot = lines[line].indexOf('principal.') + 'principal.'.length;
  let version = 1;
  let start = process.hrtime.bigint();
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'cedar', version, text } });
  await diagnosticsOf(version);
  const openMs = Number(process.hrtime.bigint() - start) / 1e6;

  // Edits: type a character into the `when` clause, then take it out.
  const diag = [];
  for (let i = 0; i < edits; ++i) {
    const insert = i % 2 === 0;
    const change = insert
      ? { range: { start: { line, character: dot }, end: { line, character: dot } }, text: 'x' }
      : { range: { start: { line, character: dot }, end: { line, character: dot + 1 } }, text: '' };
    version += 1;
    start = process.hrtime.bigint();
    connection.sendNotification('textDocument/didChange',
      { textDocument: { uri, version }, contentChanges: [change] });
    await diagnosticsOf(version);
    diag.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  if (edits % 2 === 1) throw new Error('EDITS must be even, to end on the text as opened');

  const completion = [];
  let items = 0;
  for (let i = 0; i < edits; ++i) {
    start = process.hrtime.bigint();
    const r = await within(connection.sendRequest('textDocument/completion',
      { textDocument: { uri }, position: { line, character: dot } }), 'completion');
    completion.push(Number(process.hrtime.bigint() - start) / 1e6);
    items = Array.isArray(r) ? r.length : (r && r.items ? r.items.length : 0);
  }
  const peak = peakKb(child.pid);

  await within(connection.sendRequest('shutdown'), 'shutdown');
  connection.sendNotification('exit');
  const code = await within(exited, 'exit');
  connection.dispose();
  const entities = (fs.readFileSync(path.join(world, 'entities.json'), 'utf8').match(/"uid"/g) || []).length;
  console.log(`world: ${policies} policies, ${entities} entities, the standard model`);
  console.log(`open: diagnostics in ${openMs.toFixed(1)} ms`);
  // Even edits leave the file valid (`principal.x`: one validation fault);
  // odd ones leave `principal.`, a syntax error, which the parser recovers from.
  const valid = diag.filter((_, i) => i % 2 === 0);
  const broken = diag.filter((_, i) => i % 2 === 1);
  console.log(`edit -> diagnostics, the file parses: median ${median(valid).toFixed(1)} ms, max ${Math.max(...valid).toFixed(1)} ms over ${valid.length} edits (target 50 ms)`);
  console.log(`edit -> diagnostics, a syntax error: median ${median(broken).toFixed(1)} ms, max ${Math.max(...broken).toFixed(1)} ms over ${broken.length} edits (target 50 ms)`);
  console.log(`completion after \`principal.\`: median ${median(completion).toFixed(2)} ms, max ${Math.max(...completion).toFixed(2)} ms, ${items} items (target 20 ms)`);
  console.log(`server peak memory: ${(peak / 1024).toFixed(1)} MB (target 100 MB); exit status ${code}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
