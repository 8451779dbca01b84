// `charter lsp` driven by a real client: vscode-jsonrpc, the JSON-RPC
// transport under VS Code's language client, over the server's stdin and
// stdout. Each feature is asserted with exact positions and results:
// initialize's capabilities, didOpen/didChange (incremental, UTF-16
// columns)/didClose with the diagnostics `charter check` gives, formatting
// as `charter fmt` formats (and its refusal), document symbols, completion,
// hover (declarations, expressions' types, the entities file's entities),
// go-to-definition, and the lifecycle's exit statuses; over the project:
// find-references, rename (types, attributes, queues, cohorts, flavors),
// semantic tokens, a test file's diagnostics and its code lenses (cases
// run, invariants proved). A second part
// writes raw bytes (a bad header, a body that is not JSON, one too deep, an
// unknown method) and checks the JSON-RPC errors and that the server goes on.
//
//   node tests/lsp/lsp_test.js build/cli/charter
'use strict';

const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');

const charter = path.resolve(process.argv[2] || 'build/cli/charter');
const fixtures = path.join(__dirname, 'fixtures');
const uriOf = (p) => 'file://' + p.split('/').map(encodeURIComponent).join('/');
const rootUri = uriOf(fixtures);
const policiesUri = uriOf(path.join(fixtures, 'open.cedar'));  // never on disk: the editor's text only
const schemaPath = path.join(fixtures, 'model.cedarschema');
const schemaUri = uriOf(schemaPath);

// Every wait is bounded (generously: the sanitizer build is slow), and says what it waited for.
const WAIT_MS = 60000;
function within(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timed out waiting for ' + what)), WAIT_MS); }),
  ]).finally(() => clearTimeout(timer));
}

function start() {
  const child = spawn(charter, ['lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited };
}

// The client: diagnostics kept as they come, awaited by uri and version.
function connect(child) {
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const published = [];
  const waiters = [];
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    published.push(params);
    for (const w of waiters.splice(0)) {
      if (!w.match(params)) waiters.push(w); else w.resolve(params);
    }
  });
  const messages = [];
  connection.onNotification('window/showMessage', (params) => messages.push(params));
  connection.listen();
  const diagnostics = (uri, version) => within(new Promise((resolve) => {
    const match = (p) => p.uri === uri && (version === undefined || p.version === version);
    const seen = published.find(match);
    if (seen) { published.splice(published.indexOf(seen), 1); resolve(seen); return; }
    waiters.push({ match, resolve: (p) => { published.splice(published.indexOf(p), 1); resolve(p); } });
  }), `diagnostics of ${uri} version ${version}`);
  return { connection, diagnostics, messages };
}

const range = (l1, c1, l2, c2) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

async function features() {
  const { child, exited } = start();
  const { connection, diagnostics, messages } = connect(child);

  // ---- initialize ----
  const init = await within(connection.sendRequest('initialize', {
    processId: process.pid, rootUri, capabilities: {},
    initializationOptions: { schemas: ['model.cedarschema'], entities: 'entities.json' },
  }), 'initialize');
  assert.deepEqual(init.capabilities.textDocumentSync, { openClose: true, change: 2 });
  assert.equal(init.capabilities.documentFormattingProvider, true);
  assert.equal(init.capabilities.documentSymbolProvider, true);
  assert.equal(init.capabilities.hoverProvider, true);
  assert.equal(init.capabilities.definitionProvider, true);
  assert.deepEqual(init.capabilities.codeActionProvider, { codeActionKinds: ['quickfix'] });
  assert.deepEqual(init.capabilities.completionProvider.triggerCharacters, ['.', ':', '"']);
  assert.equal(init.serverInfo.name, 'charter');
  connection.sendNotification('initialized', {});

  // ---- didOpen: what `charter check --schema` reports, at its place ----
  // Line 1 holds a character outside the BMP (two UTF-16 code units), so
  // that a column counted in bytes or in code points would be off.
  const text = [
    '@id("readers")',
    'permit (principal, action == Org::Action::"view", resource) // 😀 ok',
    'when { principal.levle > 2 };',
    'permit(principal,action,resource) when { resource.owner == principal };',
    '',
  ].join('\n');
  connection.sendNotification('textDocument/didOpen',
    { textDocument: { uri: policiesUri, languageId: 'cedar', version: 1, text } });
  let d = await diagnostics(policiesUri, 1);
  assert.equal(d.diagnostics.length, 1);
  assert.deepEqual(d.diagnostics[0], {
    range: range(2, 7, 2, 22), severity: 1, code: 'CH0512', source: 'charter',
    message: '`Org::User` has no attribute `levle`',
    relatedInformation: [{ location: { uri: policiesUri, range: range(2, 7, 2, 22) }, message: 'help: did you mean `level`?' }],
  });
  // Its quick fix: the did-you-mean, on the misspelt name alone.
  const actions = await within(connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri: policiesUri }, range: range(2, 19, 2, 19), context: { diagnostics: d.diagnostics },
  }), 'code actions');
  assert.deepEqual(actions, [{
    title: 'Change `levle` to `level`', kind: 'quickfix', isPreferred: true, diagnostics: d.diagnostics,
    edit: { changes: { [policiesUri]: [{ range: range(2, 17, 2, 22), newText: 'level' }] } },
  }]);
  // The same as `charter check` on the same text.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-lsp-'));
  const onDisk = path.join(tmp, 'open.cedar');
  fs.writeFileSync(onDisk, text);
  let check = '';
  try {
    execFileSync(charter, ['check', '--policies', onDisk, '--schema', schemaPath], { stdio: 'pipe' });
  } catch (e) { check = e.stderr.toString(); }
  assert.match(check, /open\.cedar:3:8: error\[CH0512\]: `Org::User` has no attribute `levle`/);

  // ---- didChange, incremental: the fix clears the diagnostic ----
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: policiesUri, version: 2 },
    contentChanges: [{ range: range(2, 17, 2, 22), text: 'level' }],
  });
  d = await diagnostics(policiesUri, 2);
  assert.deepEqual(d.diagnostics, []);
  // Two changes in one notification: one after the emoji (JavaScript's
  // string indices are UTF-16 code units, as LSP's columns: `ok` becomes
  // `fine`, which the formatting below shows), and one that drops the last `;`.
  const lines = text.split('\n');
  const ok = lines[1].indexOf('ok');
  assert.equal(ok, 66);  // 65 in code points, 68 in bytes
  const last = lines[3].length - 1;
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: policiesUri, version: 3 },
    contentChanges: [
      { range: range(1, ok, 1, ok + 2), text: 'fine' },
      { range: range(3, last, 3, last + 1), text: '' },
    ],
  });
  d = await diagnostics(policiesUri, 3);
  assert.equal(d.diagnostics.length, 1);
  assert.equal(d.diagnostics[0].code, 'CH0101');
  assert.deepEqual(d.diagnostics[0].range, range(4, 0, 4, 0));
  assert.equal(d.diagnostics[0].message, 'unexpected end of input');
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: policiesUri, version: 4 },
    contentChanges: [{ range: range(3, last, 3, last), text: ';' }],
  });
  d = await diagnostics(policiesUri, 4);
  assert.deepEqual(d.diagnostics, []);

  // ---- documentSymbol ----
  const symbols = await within(connection.sendRequest('textDocument/documentSymbol', { textDocument: { uri: policiesUri } }), 'symbols');
  assert.deepEqual(symbols.map((s) => [s.name, s.detail, s.kind, s.range, s.selectionRange]), [
    ['readers', 'permit', 12, range(0, 0, 2, 29), range(1, 0, 1, 6)],
    ['policy1', 'permit', 12, range(3, 0, 3, 71), range(3, 0, 3, 6)],
  ]);

  // ---- completion ----
  const complete = async (line, character) => (await within(connection.sendRequest('textDocument/completion',
    { textDocument: { uri: policiesUri }, position: { line, character } }), 'completion')).items;
  // After `principal.` (line 2, `when { principal.` ends at column 17).
  let items = await complete(2, 17);
  assert.deepEqual(items.map((i) => i.label), ['level', 'manager']);
  // Inside `Org::Action::"` (line 1, column 43): the actions' ids.
  items = await complete(1, 43);
  assert.deepEqual(items.map((i) => i.label), ['view']);
  // At the start of a line: keywords, snippets, types and actions.
  items = await complete(4, 0);
  const labels = items.map((i) => i.label);
  for (const want of ['permit', 'forbid', 'when', 'unless', 'Org::User', 'Org::Doc', 'Org::Action::"view"']) {
    assert.ok(labels.includes(want), 'completion lacks ' + want);
  }
  const snippet = items.find((i) => i.label === 'permit' && i.kind === 15);
  assert.equal(snippet.insertTextFormat, 2);
  assert.match(snippet.insertText, /^permit \(\n  principal\$\{1\},/);

  // ---- hover and definition: to the schema's declaration ----
  let hover = await within(connection.sendRequest('textDocument/hover',
    { textDocument: { uri: policiesUri }, position: { line: 2, character: 19 } }), 'hover');
  assert.deepEqual(hover.range, range(2, 17, 2, 22));
  assert.equal(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, /^`principal.level`: `Long`\n\n---\nattribute of `Org::User`\n```cedarschema\nlevel: Long\n```/);
  hover = await within(connection.sendRequest('textDocument/hover',
    { textDocument: { uri: policiesUri }, position: { line: 3, character: 52 } }), 'hover');
  assert.match(hover.contents.value, /attribute of `Org::Doc`\n```cedarschema\nowner: User\n```/);
  assert.match(hover.contents.value, /Something to read; its owner may always read it\./);
  // An expression's type, as the schema's checker gives it; an entity of
  // the entities file, its attributes and parents.
  const typesUri = uriOf(path.join(fixtures, 'types.cedar'));  // never on disk
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri: typesUri, languageId: 'cedar', version: 1, text: [
    'permit (principal == Org::User::"alice", action == Org::Action::"view", resource)',
    'when { resource.owner.level > 2 && resource.title == "t" && [1, 2].contains(principal.level) };',
    '',
  ].join('\n') } });
  assert.deepEqual((await diagnostics(typesUri, 1)).diagnostics, []);
  const hoverAt = (line, character) => within(connection.sendRequest('textDocument/hover',
    { textDocument: { uri: typesUri }, position: { line, character } }), 'hover');
  assert.deepEqual(await hoverAt(1, 9), { contents: { kind: 'markdown', value: '`resource`: `Org::Doc`\n' }, range: range(1, 7, 1, 15) });
  assert.deepEqual(await hoverAt(1, 30), { contents: { kind: 'markdown', value: '`2`: `Long`\n' }, range: range(1, 30, 1, 31) });
  assert.deepEqual(await hoverAt(1, 54), { contents: { kind: 'markdown', value: '`"t"`: `String`\n' }, range: range(1, 53, 1, 56) });
  assert.deepEqual(await hoverAt(1, 60), { contents: { kind: 'markdown', value: '`[1, 2]`: `Set<Long>`\n' }, range: range(1, 60, 1, 66) });
  hover = await hoverAt(1, 24);
  assert.deepEqual(hover.range, range(1, 22, 1, 27));
  assert.match(hover.contents.value, /^`resource.owner.level`: `Long`\n\n---\nattribute of `Org::User`\n/);
  hover = await hoverAt(0, 34);
  assert.deepEqual(hover.range, range(0, 32, 0, 39));
  assert.equal(hover.contents.value.split('\n---\n').slice(0, 2).join('\n---\n'), [
    '`Org::User::"alice"`: `Org::User`\n',
    'entity `Org::User::"alice"` in entities.json\n```json\n{\n  "attrs": {\n    "level": 3\n  },\n  "parents": [\n'
      + '    {\n      "id": "ml",\n      "type": "Org::Team"\n    }\n  ]\n}\n```\n',
  ].join('\n---\n'));
  connection.sendNotification('textDocument/didClose', { textDocument: { uri: typesUri } });
  await diagnostics(typesUri);

  let definition = await within(connection.sendRequest('textDocument/definition',
    { textDocument: { uri: policiesUri }, position: { line: 1, character: 31 } }), 'definition');
  assert.deepEqual(definition, []);  // `Org` alone names nothing
  definition = await within(connection.sendRequest('textDocument/definition',
    { textDocument: { uri: policiesUri }, position: { line: 1, character: 45 } }), 'definition');
  assert.deepEqual(definition, [{ uri: schemaUri, range: range(7, 9, 7, 13) }]);  // action view
  definition = await within(connection.sendRequest('textDocument/definition',
    { textDocument: { uri: policiesUri }, position: { line: 2, character: 20 } }), 'definition');
  assert.deepEqual(definition, [{ uri: schemaUri, range: range(3, 26, 3, 31) }]);  // level

  // ---- formatting: `charter fmt`'s text; refused when it does not parse ----
  const edits = await within(connection.sendRequest('textDocument/formatting',
    { textDocument: { uri: policiesUri }, options: { tabSize: 2, insertSpaces: true } }), 'formatting');
  assert.equal(edits.length, 1);
  assert.deepEqual(edits[0].range, range(0, 0, 4, 0));
  fs.writeFileSync(onDisk, text.replace('levle', 'level').replace('// 😀 ok', '// 😀 fine'));
  assert.equal(edits[0].newText, execFileSync(charter, ['fmt', onDisk]).toString());
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: policiesUri, version: 5 },
    contentChanges: [{ range: range(4, 0, 4, 0), text: 'permit (' }],
  });
  d = await diagnostics(policiesUri, 5);
  assert.equal(d.diagnostics[0].code, 'CH0101');
  await assert.rejects(within(connection.sendRequest('textDocument/formatting',
    { textDocument: { uri: policiesUri }, options: { tabSize: 2, insertSpaces: true } }), 'formatting'),
  (e) => e.code === -32803 && /^not formatted: .*open\.cedar:5:9: unexpected end of input$/.test(e.message));

  // ---- a schema document: its outline, its faults; edits re-validate the policies ----
  const schemaText = fs.readFileSync(schemaPath, 'utf8');
  connection.sendNotification('textDocument/didOpen',
    { textDocument: { uri: schemaUri, languageId: 'cedarschema', version: 1, text: schemaText } });
  d = await diagnostics(schemaUri, 1);
  assert.deepEqual(d.diagnostics, []);
  const outline = await within(connection.sendRequest('textDocument/documentSymbol', { textDocument: { uri: schemaUri } }), 'symbols');
  assert.equal(outline.length, 1);
  assert.deepEqual([outline[0].name, outline[0].kind, outline[0].range], ['Org', 3, range(1, 0, 8, 1)]);
  assert.deepEqual(outline[0].children.map((s) => [s.name, s.detail, s.kind, s.selectionRange]), [
    ['User', 'entity', 5, range(3, 9, 3, 13)],
    ['Team', 'entity', 5, range(4, 9, 4, 13)],
    ['Doc', 'entity', 5, range(6, 9, 6, 12)],
    ['view', 'action', 24, range(7, 9, 7, 13)],
  ]);
  assert.deepEqual(outline[0].children[0].children.map((s) => [s.name, s.detail, s.kind]),
    [['level', 'Long', 8], ['manager', 'User', 8]]);
  // Renaming `level` in the open schema makes the policy's `level` unknown.
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: schemaUri, version: 2 },
    contentChanges: [{ range: range(3, 26, 3, 31), text: 'rank' }],
  });
  d = await diagnostics(policiesUri);
  assert.deepEqual(d.diagnostics.map((x) => x.code), ['CH0101']);  // still the syntax fault; validation needs a parse
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: policiesUri, version: 6 },
    contentChanges: [{ range: range(4, 0, 4, 8), text: '' }],
  });
  d = await diagnostics(policiesUri, 6);
  assert.deepEqual(d.diagnostics.map((x) => [x.code, x.range]), [['CH0512', range(2, 7, 2, 22)]]);
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: schemaUri, version: 3 },
    contentChanges: [{ range: range(3, 40, 3, 40), text: ' oops' }],
  });
  d = await diagnostics(schemaUri, 3);
  assert.equal(d.diagnostics.length >= 1, true);
  assert.match(d.diagnostics[0].code, /^CH04/);
  // While the schema does not parse, the last good one stays in force.
  d = await diagnostics(policiesUri, 6);
  assert.deepEqual(d.diagnostics.map((x) => [x.code, x.message]), [['CH0512', '`Org::User` has no attribute `level`']]);

  // ---- didClose: its diagnostics cleared ----
  connection.sendNotification('textDocument/didClose', { textDocument: { uri: schemaUri } });
  d = await diagnostics(schemaUri);
  assert.deepEqual(d.diagnostics, []);
  // Back to the schema on disk: `level` is declared again.
  d = await diagnostics(policiesUri, 6);
  assert.deepEqual(d.diagnostics, []);

  // ---- a queue against the Allocation it implements (CH0810), with the entities setting ----
  const entitiesPath = path.join(tmp, 'allocations.json');
  fs.writeFileSync(entitiesPath, JSON.stringify([{
    uid: { type: 'Governance::Allocation', id: 'x' }, attrs: { gpus: 8, borrowLimitGpus: 4 }, parents: [] }]));
  connection.sendNotification('workspace/didChangeConfiguration',
    { settings: { schemas: ['model.cedarschema'], entities: entitiesPath } });
  const queueUri = uriOf(path.join(tmp, 'queues.charter'));
  const queueText = [
    'cohort c;',
    'flavor a;',
    'queue q {',
    '  cohort: c;',
    '  implements: Governance::Allocation::"x";',
    '  resources "nvidia.com/gpu" { flavor a { "nvidia.com/gpu": 16 borrow 4; } }',
    '}',
    '',
  ].join('\n');
  connection.sendNotification('textDocument/didOpen',
    { textDocument: { uri: queueUri, languageId: 'charter', version: 1, text: queueText } });
  d = await diagnostics(queueUri, 1);
  assert.deepEqual(d.diagnostics.map((x) => [x.code, x.range]), [['CH0810', range(5, 60, 5, 62)]]);
  assert.equal(d.diagnostics[0].message,
    'cluster queue `q` guarantees 16 GPUs (`nvidia.com/gpu` in flavor `a`) where '
    + '`Governance::Allocation::"x"` (' + entitiesPath + ':1:2) says 8 (`gpus`)');
  // Agreeing, the diagnostic is gone.
  connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: queueUri, version: 2 }, contentChanges: [{ range: range(5, 60, 5, 62), text: '8' }],
  });
  d = await diagnostics(queueUri, 2);
  assert.deepEqual(d.diagnostics, []);
  connection.sendNotification('textDocument/didClose', { textDocument: { uri: queueUri } });
  d = await diagnostics(queueUri);
  assert.deepEqual(d.diagnostics, []);

  // ---- an unknown method: MethodNotFound, and the server goes on ----
  await assert.rejects(within(connection.sendRequest('charter/nothing', {}), 'an unknown method'),
    (e) => e.code === -32601);
  await assert.rejects(within(connection.sendRequest('textDocument/hover', { textDocument: { uri: 'file:///nowhere.cedar' }, position: { line: 0, character: 0 } }), 'hover'),
    (e) => e.code === -32602);
  assert.deepEqual(messages, []);

  // ---- shutdown and exit: status 0 ----
  assert.equal(await within(connection.sendRequest('shutdown'), 'shutdown'), null);
  connection.sendNotification('exit');
  const status = await within(exited, 'the server to exit');
  assert.deepEqual(status, { code: 0, signal: null });
  connection.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
}

// ---- a project found through charter.json: find-references and rename ----
// tests/lsp/fixtures/project: charter.json names model.cedarschema and the
// folder policies/ (read.cedar stays on disk, team.cedar is opened); the
// root is policies/, below the project file, and no settings are given.
async function project() {
  const dir = path.join(fixtures, 'project');
  const { child, exited } = start();
  const { connection, diagnostics, messages } = connect(child);
  const init = await within(connection.sendRequest('initialize', {
    processId: process.pid, rootUri: uriOf(path.join(dir, 'policies')), capabilities: {},
  }), 'initialize');
  assert.equal(init.capabilities.referencesProvider, true);
  assert.deepEqual(init.capabilities.renameProvider, { prepareProvider: true });
  connection.sendNotification('initialized', {});
  const uri = (f) => uriOf(path.join(dir, f));
  const open = async (f, languageId) => {
    connection.sendNotification('textDocument/didOpen',
      { textDocument: { uri: uri(f), languageId, version: 1, text: fs.readFileSync(path.join(dir, f), 'utf8') } });
    if (languageId !== 'json') return diagnostics(uri(f), 1);
    return null;
  };
  const team = uri('policies/team.cedar');
  const read = uri('policies/read.cedar');
  const schema = uri('model.cedarschema');
  const cluster = uri('cluster.charter');
  const links = uri('links.json');
  assert.deepEqual((await open('policies/team.cedar', 'cedar')).diagnostics, []);
  // The project's schema is in force: a misspelt attribute is found.
  const typo = uri('typo.cedar');  // never on disk
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri: typo, languageId: 'cedar', version: 1,
    text: 'permit (principal, action == Org::Action::"view", resource) when { resource.titel == "" };\n' } });
  const d = await diagnostics(typo, 1);
  assert.deepEqual(d.diagnostics.map((x) => [x.code, x.range, x.message]),
    [['CH0512', range(0, 67, 0, 81), '`Org::Doc` has no attribute `titel`']]);
  connection.sendNotification('textDocument/didClose', { textDocument: { uri: typo } });
  await diagnostics(typo);
  await open('cluster.charter', 'charter');
  await open('links.json', 'json');

  const loc = (u, l1, c1, l2, c2) => ({ uri: u, range: range(l1, c1, l2, c2) });
  const references = (u, line, character, includeDeclaration) => within(connection.sendRequest('textDocument/references',
    { textDocument: { uri: u }, position: { line, character }, context: { includeDeclaration } }), 'references');
  // An entity type, from `Org::Team::"ml"` in team.cedar: the schema's
  // declaration and `in [Team]`, and the policy's.
  assert.deepEqual(await references(team, 3, 51, true),
    [loc(schema, 3, 9, 3, 13), loc(schema, 2, 18, 2, 22), loc(team, 3, 50, 3, 54)].sort(byPlace));
  assert.deepEqual(await references(team, 3, 51, false), [loc(schema, 2, 18, 2, 22), loc(team, 3, 50, 3, 54)]);
  // `Org` alone names nothing.
  assert.equal(await references(team, 3, 46, true), null);
  // An attribute: `principal.level` is `Org::User`'s (the principal of
  // every action), so not `Org::Team`'s `level`; `resource.owner.level`
  // may be either, and is among them. read.cedar is read from the disk.
  assert.deepEqual(await references(team, 3, 20, true), [
    loc(schema, 2, 26, 2, 31), loc(team, 3, 19, 3, 24), loc(read, 1, 48, 1, 53), loc(read, 1, 76, 1, 81)]);
  // An action.
  assert.deepEqual(await references(team, 2, 43, true), [loc(schema, 6, 9, 6, 13), loc(team, 2, 42, 2, 48)]);
  // A template: its `@id` and the link that names it in links.json.
  assert.deepEqual(await references(team, 0, 6, true), [loc(links, 0, 17, 0, 30), loc(team, 0, 4, 0, 17)]);
  assert.deepEqual(await references(team, 0, 6, false), [loc(links, 0, 17, 0, 30)]);
  // A .charter file's cohort, flavor and queue, from their declarations.
  assert.deepEqual(await references(cluster, 1, 8, false), [loc(cluster, 2, 24, 2, 29)]);
  assert.deepEqual(await references(cluster, 2, 8, true), [loc(cluster, 2, 7, 2, 13), loc(cluster, 4, 10, 4, 16)]);
  assert.deepEqual(await references(cluster, 0, 8, true), [loc(cluster, 0, 7, 0, 13), loc(cluster, 5, 27, 5, 33)]);
  assert.deepEqual(await references(cluster, 3, 7, false), [loc(cluster, 7, 20, 7, 23)]);
  // Nothing under the cursor: null.
  assert.equal(await references(cluster, 0, 0, true), null);

  // ---- rename ----
  const failed = (what, pattern) => (e) => {
    assert.equal(e.code, -32803, what);
    assert.match(e.message, pattern, what);
    return true;
  };
  const prepare = (u, line, character) => within(connection.sendRequest('textDocument/prepareRename',
    { textDocument: { uri: u }, position: { line, character } }), 'prepareRename');
  const rename = (u, line, character, newName) => within(connection.sendRequest('textDocument/rename',
    { textDocument: { uri: u }, position: { line, character }, newName }), 'rename');
  const edit = (l1, c1, l2, c2, newText) => ({ range: range(l1, c1, l2, c2), newText });
  assert.deepEqual(await prepare(team, 3, 51), { range: range(3, 50, 3, 54), placeholder: 'Team' });
  assert.deepEqual(await rename(team, 3, 51, 'Group'), { changes: {
    [schema]: [edit(2, 18, 2, 22, 'Group'), edit(3, 9, 3, 13, 'Group')],
    [team]: [edit(3, 50, 3, 54, 'Group')],
  } });
  await assert.rejects(rename(team, 3, 51, 'User'), failed('a taken name', /^`Org::User` is already declared$/));
  await assert.rejects(rename(team, 3, 51, '1x'), failed('not an identifier',
    /^`1x` is not a valid name: a name is a letter or `_`, then letters, digits and `_`$/));
  await assert.rejects(rename(team, 3, 51, 'like'), failed('a reserved word', /^`like` is not a valid name: it is a reserved word$/));
  await assert.rejects(prepare(team, 2, 43), failed('an action',
    /^`Org::Action::"edit"` is an action; only an entity type, an attribute, a queue, a cohort or a flavor can be renamed$/));
  await assert.rejects(prepare(team, 0, 6), failed('a template', /^`team-access` is a template; only/));
  // A cohort, a queue, a flavor: their declarations and every reference.
  // A string stays a string; a bare name stays bare when the new one is an
  // identifier. The new name must be a DNS subdomain, and free.
  assert.deepEqual(await prepare(cluster, 1, 8), { range: range(1, 7, 1, 12), placeholder: 'org' });
  assert.deepEqual(await rename(cluster, 1, 8, 'company'), { changes: {
    [cluster]: [edit(1, 7, 1, 12, '"company"'), edit(2, 24, 2, 29, '"company"')] } });
  assert.deepEqual(await rename(cluster, 4, 12, 'eyes'), { changes: {
    [cluster]: [edit(2, 7, 2, 13, 'eyes'), edit(4, 10, 4, 16, 'eyes')] } });
  assert.deepEqual(await rename(cluster, 2, 8, 'vision-west'), { changes: {
    [cluster]: [edit(2, 7, 2, 13, '"vision-west"'), edit(4, 10, 4, 16, '"vision-west"')] } });
  assert.deepEqual(await rename(cluster, 7, 21, 'main'), { changes: {
    [cluster]: [edit(3, 6, 3, 9, '"main"'), edit(7, 20, 7, 23, '"main"')] } });
  assert.deepEqual(await rename(cluster, 0, 9, 'h100'), { changes: {
    [cluster]: [edit(0, 7, 0, 13, '"h100"'), edit(5, 27, 5, 33, '"h100"')] } });
  await assert.rejects(rename(cluster, 2, 8, 'org'), failed('a taken cohort name',
    /^there is a cohort `org` already, at .*\/cluster\.charter:2:8$/));
  await assert.rejects(rename(cluster, 3, 7, 'Big_Q'), failed('not a DNS subdomain',
    /^`Big_Q` is not a valid name: a queue's name is a DNS subdomain \(lowercase letters, digits, `-` and `\.`, at most 253, each part between dots starting and ending with a letter or digit\)$/));
  await assert.rejects(prepare(team, 3, 46), failed('a namespace', /^there is no name to rename here$/));
  // `level` of `Org::User`: `resource.owner.level` may be `Org::Team`'s.
  await assert.rejects(prepare(team, 3, 20), failed('an ambiguous attribute',
    /^`level` cannot be renamed: `Org::Team` declares an attribute `level` too, and the one at .*\/policies\/read\.cedar:2:77 may be either$/));
  // From the schema, open in the editor: an attribute, and an entity type
  // across the schema and the policy file on disk.
  assert.deepEqual((await open('model.cedarschema', 'cedarschema')).diagnostics, []);
  assert.deepEqual(await prepare(schema, 4, 17), { range: range(4, 15, 4, 20), placeholder: 'owner' });
  assert.deepEqual(await rename(schema, 4, 17, 'author'), { changes: {
    [schema]: [edit(4, 15, 4, 20, 'author')],
    [read]: [edit(1, 16, 1, 21, 'author'), edit(1, 70, 1, 75, 'author')],
  } });
  await assert.rejects(rename(schema, 4, 17, 'title'), failed('a taken attribute', /^`Org::Doc` already has an attribute `title`$/));
  assert.deepEqual(await rename(schema, 2, 10, 'Person'), { changes: {
    [schema]: [edit(2, 9, 2, 13, 'Person'), edit(2, 49, 2, 53, 'Person'), edit(4, 22, 4, 26, 'Person'),
      edit(5, 37, 5, 41, 'Person'), edit(6, 47, 6, 51, 'Person')],
    [read]: [edit(0, 26, 0, 30, 'Person')],
  } });
  // An action group in the schema, `in [view]`, refers to `view`.
  assert.deepEqual(await references(schema, 6, 19, true),
    [loc(schema, 5, 9, 5, 13), loc(schema, 6, 18, 6, 22), loc(read, 0, 55, 0, 61)]);

  // ---- semantic tokens: decoded into [line, column, text, type(+declaration)] ----
  const legend = init.capabilities.semanticTokensProvider.legend;
  assert.deepEqual(legend, { tokenTypes: ['keyword', 'type', 'event', 'property', 'string', 'number', 'comment', 'operator'],
    tokenModifiers: ['declaration'] });
  assert.equal(init.capabilities.semanticTokensProvider.full, true);
  const tokens = async (u, text) => {
    const { data } = await within(connection.sendRequest('textDocument/semanticTokens/full', { textDocument: { uri: u } }), 'semantic tokens');
    const lines = text.split('\n');
    const out = [];
    let line = 0;
    let column = 0;
    for (let i = 0; i < data.length; i += 5) {
      const [deltaLine, deltaStart, length, type, modifiers] = data.slice(i, i + 5);
      column = deltaLine === 0 ? column + deltaStart : deltaStart;
      line += deltaLine;
      out.push([line, column, lines[line].substr(column, length), legend.tokenTypes[type] + (modifiers === 1 ? '+declaration' : '')]);
    }
    return out;
  };
  // Never on disk; an action's id is an emoji (two UTF-16 code units), before `resource`.
  const tokensUri = uri('tokens.cedar');
  const tokensText = [
    '@id("r") // 😀 who',
    'permit (principal is Org::User, action == Org::Action::"😀", resource)',
    'when { principal.level >= 2 && resource.title like "x*" && resource.title.contains("y") };',
  ].join('\n');
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri: tokensUri, languageId: 'cedar', version: 1, text: tokensText } });
  await diagnostics(tokensUri, 1);
  assert.deepEqual(await tokens(tokensUri, tokensText), [
    [0, 4, '"r"', 'string'], [0, 9, '// 😀 who', 'comment'],
    [1, 0, 'permit', 'keyword'], [1, 8, 'principal', 'keyword'], [1, 18, 'is', 'keyword'], [1, 21, 'Org', 'type'],
    [1, 26, 'User', 'type'], [1, 32, 'action', 'keyword'], [1, 39, '==', 'operator'], [1, 42, 'Org', 'type'],
    [1, 47, 'Action', 'type'], [1, 55, '"😀"', 'event'], [1, 61, 'resource', 'keyword'],
    [2, 0, 'when', 'keyword'], [2, 7, 'principal', 'keyword'], [2, 17, 'level', 'property'], [2, 23, '>=', 'operator'],
    [2, 26, '2', 'number'], [2, 28, '&&', 'operator'], [2, 31, 'resource', 'keyword'], [2, 40, 'title', 'property'],
    [2, 46, 'like', 'keyword'], [2, 51, '"x*"', 'string'], [2, 56, '&&', 'operator'], [2, 59, 'resource', 'keyword'],
    [2, 68, 'title', 'property'], [2, 83, '"y"', 'string'],
  ]);
  const schemaText = fs.readFileSync(path.join(dir, 'model.cedarschema'), 'utf8');
  assert.deepEqual((await tokens(schema, schemaText)).slice(0, 13), [
    [0, 0, '// The project\'s model: found through charter.json, with no settings.', 'comment'],
    [1, 0, 'namespace', 'keyword'], [1, 10, 'Org', 'type'],
    [2, 2, 'entity', 'keyword'], [2, 9, 'User', 'type+declaration'], [2, 14, 'in', 'keyword'], [2, 18, 'Team', 'type'],
    [2, 26, 'level', 'property+declaration'], [2, 33, 'Long', 'keyword'], [2, 39, 'manager', 'property+declaration'],
    [2, 49, 'User', 'type'], [3, 2, 'entity', 'keyword'], [3, 9, 'Team', 'type+declaration'],
  ]);
  const clusterText = fs.readFileSync(path.join(dir, 'cluster.charter'), 'utf8');
  assert.deepEqual((await tokens(cluster, clusterText)).slice(4, 13), [
    [2, 0, 'cohort', 'keyword'], [2, 16, 'parent', 'property'], [2, 24, '"org"', 'string'],
    [3, 0, 'queue', 'keyword'], [3, 6, '"q"', 'string'], [4, 2, 'cohort', 'property'],
    [5, 2, 'resources', 'keyword'], [5, 12, '"cpu"', 'string'], [5, 20, 'flavor', 'keyword'],
  ]);
  assert.deepEqual(messages, []);

  // ---- code lenses: each case of a `charter test` file, run by the server ----
  assert.deepEqual(init.capabilities.executeCommandProvider, { commands: ['charter.runTest'] });
  const tests = uri('read.test.json');
  await open('read.test.json', 'json');
  const lenses = await within(connection.sendRequest('textDocument/codeLens', { textDocument: { uri: tests } }), 'code lenses');
  assert.deepEqual(lenses, [
    { range: range(8, 4, 8, 5), command: { title: 'Run test', command: 'charter.runTest', arguments: [tests, 0] } },
    { range: range(11, 4, 11, 5), command: { title: 'Run test', command: 'charter.runTest', arguments: [tests, 1] } },
  ]);
  assert.deepEqual(await within(connection.sendRequest('workspace/executeCommand', lenses[0].command), 'a test'),
    { passed: true, message: 'PASS alice reads her doc' });
  const fail = 'FAIL a case that expects the wrong decision: expected {"decision":"deny"}, '
    + 'got {"decision":"allow","errors":[],"reasons":["policy0"]}';
  assert.deepEqual(await within(connection.sendRequest('workspace/executeCommand', lenses[1].command), 'a test'),
    { passed: false, message: fail });
  assert.deepEqual(messages, [{ type: 3, message: 'PASS alice reads her doc' }, { type: 1, message: fail }]);
  // The file as saved is what runs: an edit in the editor says so.
  connection.sendNotification('textDocument/didChange', { textDocument: { uri: tests, version: 2 },
    contentChanges: [{ range: range(0, 1, 0, 1), text: ' ' }] });
  assert.deepEqual(await within(connection.sendRequest('workspace/executeCommand', lenses[0].command), 'a test'),
    { passed: true, message: 'PASS alice reads her doc (the file as saved; the editor\'s changes are not)' });
  await assert.rejects(within(connection.sendRequest('workspace/executeCommand', { command: 'charter.runTest', arguments: [tests, 2] }), 'a test'),
    (e) => e.code === -32602 && /read\.test\.json has no case 3$/.test(e.message));
  // A test file's faults, as it is edited: a policy file that does not
  // exist, an entity type and an action its schema does not declare; then
  // text that is not JSON, at the reader's place.
  const bad = uri('bad.test.json');  // never on disk
  const badText = [
    '{',
    '  "policies": ["policies/read.cedar", "policies/nope.cedar"],',
    '  "schemas": "model.cedarschema",',
    '  "cases": [',
    '    {"request": {"principal": "Org::Usr::\\"alice\\"", "action": "Org::Action::\\"read\\"", "resource": "Org::Doc::\\"d\\"", "context": {}},',
    '     "decision": "allow"}',
    '  ]',
    '}',
    '',
  ].join('\n');
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri: bad, languageId: 'json', version: 1, text: badText } });
  assert.deepEqual((await diagnostics(bad, 1)).diagnostics, [
    { range: range(1, 38, 1, 59), severity: 1, source: 'charter test',
      message: 'the policy file `policies/nope.cedar` does not exist (paths are relative to the test file\'s folder)' },
    { range: range(4, 30, 4, 51), severity: 1, source: 'charter test', message: 'case 1: unknown entity type `Org::Usr`' },
    { range: range(4, 63, 4, 86), severity: 1, source: 'charter test', message: 'case 1: unknown action `Org::Action::"read"`' },
  ]);
  // Without "schemas", the project's schema: warnings.
  connection.sendNotification('textDocument/didChange', { textDocument: { uri: bad, version: 2 },
    contentChanges: [{ range: range(2, 0, 3, 0), text: '' }, { range: range(1, 36, 1, 59), text: '' }] });
  assert.deepEqual((await diagnostics(bad, 2)).diagnostics, [
    { range: range(3, 30, 3, 51), severity: 2, source: 'charter test',
      message: 'case 1: unknown entity type `Org::Usr` (the project\'s schema; the test file names none)' },
    { range: range(3, 63, 3, 86), severity: 2, source: 'charter test',
      message: 'case 1: unknown action `Org::Action::"read"` (the project\'s schema; the test file names none)' },
  ]);
  connection.sendNotification('textDocument/didChange', { textDocument: { uri: bad, version: 3 },
    contentChanges: [{ range: range(2, 11, 2, 12), text: '}' }] });
  assert.deepEqual((await diagnostics(bad, 3)).diagnostics, [
    { range: range(2, 11, 2, 12), severity: 1, source: 'charter test',
      message: 'not JSON: expected a value (a test file is JSON: see docs/testing.md)' },
  ]);
  connection.sendNotification('textDocument/didClose', { textDocument: { uri: bad } });
  assert.deepEqual((await diagnostics(bad)).diagnostics, []);

  // Each invariant: proved alone (`charter test --invariant NAME`, or its
  // number when it has no name).
  const proofs = uri('invariants.test.json');
  await open('invariants.test.json', 'json');
  const proofLenses = await within(connection.sendRequest('textDocument/codeLens', { textDocument: { uri: proofs } }), 'code lenses');
  assert.deepEqual(proofLenses, [
    { range: range(4, 4, 4, 5), command: { title: 'Prove invariant', command: 'charter.runTest', arguments: [proofs, 0, 'invariant'] } },
    { range: range(5, 4, 5, 5), command: { title: 'Prove invariant', command: 'charter.runTest', arguments: [proofs, 1, 'invariant'] } },
  ]);
  messages.length = 0;
  assert.deepEqual(await within(connection.sendRequest('workspace/executeCommand', proofLenses[0].command), 'an invariant'),
    { passed: true, message: 'PASS invariant nobody edits: holds (1 signature)' });
  const unnamed = await within(connection.sendRequest('workspace/executeCommand', proofLenses[1].command), 'an invariant');
  assert.equal(unnamed.passed, false);
  assert.match(unnamed.message, new RegExp('^FAIL invariant .*/invariants\\.test\\.json invariant 2: does-not-hold; '
    + 'Org::User, Org::Action::"view", Org::Doc: does-not-hold, counterexample request '
    + '\\{"action":"Org::Action::\\\\"view\\\\"","context":\\{\\},"principal":"Org::User::\\\\"[^"]*\\\\"","resource":"Org::Doc::\\\\"[^"]*\\\\""\\}$'));
  assert.deepEqual(messages.map((m) => m.type), [3, 1]);
  await assert.rejects(within(connection.sendRequest('workspace/executeCommand', { command: 'charter.runTest', arguments: [proofs, 2, 'invariant'] }), 'an invariant'),
    (e) => e.code === -32602 && /invariants\.test\.json has no invariant 3$/.test(e.message));
  await assert.rejects(within(connection.sendRequest('workspace/executeCommand', { command: 'charter.nothing', arguments: [] }), 'a command'),
    (e) => e.code === -32602 && e.message === 'unknown command `charter.nothing`');

  assert.equal(await within(connection.sendRequest('shutdown'), 'shutdown'), null);
  connection.sendNotification('exit');
  assert.deepEqual(await within(exited, 'the server to exit'), { code: 0, signal: null });
  connection.dispose();
}

function byPlace(a, b) {
  return a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

// ---- raw bytes: the framing and JSON-RPC's errors ----
function frame(body) {
  return Buffer.concat([Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`), Buffer.from(body)]);
}

// Reads framed messages from the server's stdout as they come.
function rawReader(stream) {
  let buffer = Buffer.alloc(0);
  const messages = [];
  const waiters = [];
  stream.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) break;
      const m = /Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString());
      assert.ok(m, 'the server wrote a header without Content-Length');
      const length = Number(m[1]);
      if (buffer.length < end + 4 + length) break;
      messages.push(JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString()));
      buffer = buffer.subarray(end + 4 + length);
    }
    while (waiters.length > 0 && messages.length > 0) waiters.shift()(messages.shift());
  });
  return () => within(new Promise((resolve) => {
    if (messages.length > 0) resolve(messages.shift()); else waiters.push(resolve);
  }), 'a message from the server');
}

async function robustness() {
  const { child, exited } = start();
  const next = rawReader(child.stdout);
  const send = (bytes) => child.stdin.write(bytes);

  // Before initialize, a request is refused with ServerNotInitialized.
  send(frame('{"jsonrpc":"2.0","id":1,"method":"textDocument/documentSymbol","params":{}}'));
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'the server is not initialized' } });
  send(frame('{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}'));
  assert.equal((await next()).id, 2);
  // A body that is not JSON: ParseError.
  send(frame('{"jsonrpc": "2.0", "id": 3, "method": '));
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the message is not JSON' } });
  // A header without Content-Length: ParseError, and the next message is read.
  send('Content-Type: application/json\r\n\r\n');
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the header has no Content-Length' } });
  // JSON that is not a request.
  send(frame('[1, 2, 3]'));
  assert.equal((await next()).error.code, -32600);
  send(frame('{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}'));
  assert.equal((await next()).error.code, -32600);
  // Nested deeper than the limit.
  send(frame('['.repeat(100000) + ']'.repeat(100000)));
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'the message is nested deeper than 64' } });
  // A body over the limit (64 MiB) is refused by its header alone, and
  // skipped as it comes; the server goes on.
  send(`Content-Length: ${(64 << 20) + 1}\r\n\r\n`);
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: null, error: { code: -32600, message: `the message is ${(64 << 20) + 1} bytes, more than the limit of ${64 << 20}` } });
  send(Buffer.alloc((64 << 20) + 1, 'x'));
  // Unknown method, bad params.
  send(frame('{"jsonrpc":"2.0","id":4,"method":"nope/nothing"}'));
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'unknown method `nope/nothing`' } });
  send(frame('{"jsonrpc":"2.0","id":5,"method":"textDocument/formatting","params":{"textDocument":{"uri":7}}}'));
  assert.deepEqual(await next(), { jsonrpc: '2.0', id: 5, error: { code: -32602, message: '`uri` is not a string' } });
  // didChange out of range is clamped, never a crash.
  send(frame(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///x.cedar', languageId: 'cedar', version: 1, text: 'permit(principal, action, resource);' } } })));
  assert.deepEqual((await next()).params.diagnostics, []);
  send(frame(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didChange', params: { textDocument: { uri: 'file:///x.cedar', version: 2 }, contentChanges: [{ range: range(9, 99, 0, 3), text: '\n' }] } })));
  assert.deepEqual((await next()).params.diagnostics, []);
  // Exit without shutdown: status 1.
  send(frame('{"jsonrpc":"2.0","method":"exit"}'));
  assert.deepEqual(await within(exited, 'the server to exit'), { code: 1, signal: null });
}

(async () => {
  await features();
  await project();
  await robustness();
  console.log('lsp_test: ok');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
