// The packaged VS Code extension, run in Node: its compiled activation code
// and the vscode-languageclient inside the .vsix, with `vscode` replaced by
// vscode_shim.js (VS Code itself is not here). Activating it must start the
// real `charter lsp` named by `charter.path`, pass `charter.schemas` as
// initializationOptions (a policy is then validated against the schema:
// diagnostics with exact ranges reach the diagnostic collection) with
// `charter.entities` (its ids are completed), send a
// changed `charter.schemas` as workspace/didChangeConfiguration (the
// validation diagnostics go, and come back), format through the server,
// report a `charter.path` that cannot start, restart on the command, and stop
// the server (exit status 0) on deactivate.
//
// First the package itself: its manifest contributes the three languages,
// their grammars (in the package, valid JSON), the settings and the command,
// and it carries vscode-languageclient and the compiled code, not the sources.
//
//   node extension_test.js EXTENSION_DIR CHARTER_BINARY [VERSION]
// EXTENSION_DIR is the .vsix's `extension/` folder, extracted; VERSION is
// Charter's (CMake's PROJECT_VERSION), which the extension's must equal.

'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');
const { execFileSync } = require('child_process');

const [extensionDir, charter] = process.argv.slice(2, 4).map((p) => p && path.resolve(p));
const projectVersion = process.argv[4];
if (!extensionDir || !charter) {
  console.error('usage: node extension_test.js EXTENSION_DIR CHARTER_BINARY');
  process.exit(2);
}

const shimPath = path.join(__dirname, 'vscode_shim.js');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? shimPath : resolve.call(this, request, ...rest);
};
const vscode = require(shimPath);
const { harness } = vscode;

let failures = 0;
function check(ok, message) {
  if (ok) { console.log(`ok   ${message}`); } else { failures++; console.error(`FAIL ${message}`); }
}

// Waits (bounded) for a condition the server's messages make true.
async function until(what, condition, seconds = 60) {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  console.error(`timed out after ${seconds}s waiting for ${what}`);
  return false;
}

function textDocument(file, languageId, text) {
  const lines = text.split('\n');
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return {
    uri: vscode.Uri.file(file), fileName: file, languageId, version: 1,
    isClosed: false, isDirty: false, isUntitled: false, eol: vscode.EndOfLine.LF, lineCount: lines.length,
    getText: () => text,
    lineAt: (n) => ({ text: lines[typeof n === 'number' ? n : n.line] }),
    positionAt(offset) {
      let line = 0;
      while (line + 1 < starts.length && starts[line + 1] <= offset) line++;
      return new vscode.Position(line, offset - starts[line]);
    },
    offsetAt: (p) => starts[p.line] + p.character,
    save: async () => true,
  };
}

function configurationChange(...keys) {
  const event = { affectsConfiguration: (s) => keys.some((k) => k === s || k.startsWith(s + '.')) };
  for (const l of [...harness.configurationListeners]) l(event);
}

const range = (d) => d && `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character}`;

function checkPackage(manifest) {
  const has = (p) => fs.existsSync(path.join(extensionDir, p));
  const c = manifest.contributes || {};
  const languages = (c.languages || []).map((l) => `${l.id}:${l.extensions.join(',')}`).join(' ');
  check(languages === 'cedar:.cedar charter:.charter cedarschema:.cedarschema',
    `contributes.languages: ${languages}`);
  check((c.languages || []).every((l) => has(l.configuration) && JSON.parse(fs.readFileSync(path.join(extensionDir, l.configuration), 'utf8')).comments.lineComment === '//'),
    'each language has its language-configuration.json in the package, with // comments');
  const grammars = (c.grammars || []).map((g) => `${g.language}:${g.scopeName}`).join(' ');
  check(grammars === 'cedar:source.cedar charter:source.charter cedarschema:source.cedarschema',
    `contributes.grammars: ${grammars}`);
  check((c.grammars || []).every((g) => has(g.path) && JSON.parse(fs.readFileSync(path.join(extensionDir, g.path), 'utf8')).scopeName === g.scopeName),
    'each grammar is in the package, as JSON with its scopeName');
  const settings = Object.keys((c.configuration || {}).properties || {}).join(' ');
  check(settings === 'charter.path charter.schemas charter.entities charter.trace.server',
    `contributes.configuration: ${settings}`);
  check(c.configuration.properties['charter.path'].default === 'charter', 'charter.path defaults to charter on PATH');
  check((c.commands || []).some((x) => x.command === 'charter.restartServer'), 'contributes the restart command');
  check(has(manifest.main) && has('node_modules/vscode-languageclient/package.json'),
    `the package holds ${manifest.main} and vscode-languageclient`);
  check(!has('src') && !has('tsconfig.json') && !has('node_modules/typescript') && !has('node_modules/@vscode/vsce'),
    'and neither the TypeScript sources nor the development packages');
  check(projectVersion === undefined || manifest.version === projectVersion,
    `the extension's version ${manifest.version} is Charter's (${projectVersion})`);

  // The settings as options.js reads them (no `vscode` needed).
  const options = require(path.join(extensionDir, 'out/options.js'));
  const read = (values) => options.readSettings({ get: (k) => values[k] });
  check(JSON.stringify(read({})) === '{"path":"charter","schemas":[],"entities":""}' &&
    JSON.stringify(read({ path: ' ', schemas: 'a.cedarschema', entities: 7 })) === '{"path":"charter","schemas":[],"entities":""}',
    'settings missing or of the wrong type read as the defaults');
  check(options.serverCommand(read({ path: 'build/cli/charter' }), '/w') === '/w/build/cli/charter' &&
    options.serverCommand(read({ path: 'charter' }), '/w') === 'charter' &&
    options.serverCommand(read({ path: '/opt/charter' }), '/w') === '/opt/charter',
    'charter.path: a relative path from the workspace folder, a bare name from PATH, an absolute path as it is');
  check(JSON.stringify(options.serverSettings(read({ schemas: ['s.cedarschema', ''], entities: '' }))) === '{"schemas":["s.cedarschema"]}',
    'the server is sent `schemas`, and `entities` only when set');

  // docs/editors.md's VS Code section names these settings and this package.
  const page = fs.readFileSync('docs/editors.md', 'utf8');
  const section = page.slice(page.indexOf('\n## VS Code\n'), page.indexOf('\n## ', page.indexOf('\n## VS Code\n') + 1));
  const documented = [...section.matchAll(/^\| `(charter\.[\w.]+)` \|/gm)].map((m) => m[1]).join(' ');
  check(documented === settings, `docs/editors.md's VS Code section documents the settings: ${documented}`);
  check(section.includes(`code --install-extension build/vscode/charter-${manifest.version}.vsix`),
    `and installs build/vscode/charter-${manifest.version}.vsix`);
}

async function main() {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));
  checkPackage(manifest);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-vscode-'));
  fs.writeFileSync(path.join(work, 'schema.cedarschema'),
    'entity User { name: String };\nentity Doc;\naction view appliesTo { principal: User, resource: Doc };\n');
  const policyText =
    'permit (principal == User::"a", action == Action::"view", resource)\nwhen { principal.nmae == "x" };\n';
  const policyFile = path.join(work, 'policy.cedar');
  fs.writeFileSync(policyFile, policyText);
  const policy = textDocument(policyFile, 'cedar', policyText);
  const policyUri = policy.uri.toString();

  harness.folders = [{ uri: vscode.Uri.file(work), name: 'work', index: 0 }];
  fs.writeFileSync(path.join(work, 'entities.json'),
    '[{"uid": {"type": "User", "id": "alice"}, "attrs": {"name": "Alice"}, "parents": []}]\n');
  harness.configuration = {
    'charter.path': charter, 'charter.schemas': ['schema.cedarschema'], 'charter.entities': 'entities.json' };
  harness.documents.push(policy);

  const extension = require(path.join(extensionDir, manifest.main));
  const subscriptions = [];
  await extension.activate({ subscriptions, extensionPath: extensionDir, extensionUri: vscode.Uri.file(extensionDir) });
  const client = extension.runningClient();
  check(client !== undefined && client.isRunning(), 'activate starts the language client');
  const server = client && client._serverProcess;
  check(server !== undefined && server.spawnfile === charter && server.spawnargs.slice(1).join(' ') === 'lsp',
    `the client runs \`${server && server.spawnargs.join(' ')}\` (charter.path, then lsp)`);
  check(client.initializeResult && client.initializeResult.serverInfo.name === 'charter',
    `the server answered initialize as ${client.initializeResult && JSON.stringify(client.initializeResult.serverInfo)}`);

  // The schema came in initializationOptions: `nmae` is validated against it.
  await until('diagnostics with the schema', () => (harness.diagnostics.get(policyUri) || []).length > 0);
  let diags = harness.diagnostics.get(policyUri) || [];
  const nmae = diags.find((d) => /nmae/.test(d.message));
  check(nmae !== undefined && range(nmae) === '1:7-1:21' && nmae.severity === vscode.DiagnosticSeverity.Error &&
    /^CH05/.test(String(nmae.code && nmae.code.value !== undefined ? nmae.code.value : nmae.code)),
    `the policy is validated against charter.schemas: ${diags.map((d) => `${d.code} ${range(d)} ${d.message}`).join('; ')}`);

  // The entities came in initializationOptions too: their ids complete after `User::"`.
  const completion = (harness.providers.registerCompletionItemProvider || [])[0];
  const at = new vscode.Position(0, policyText.indexOf('User::"') + 'User::"'.length);
  const completed = completion &&
    await completion.provider.provideCompletionItems(policy, at, new vscode.CancellationTokenSource().token,
      { triggerKind: 1, triggerCharacter: '"' });
  const labels = (completed ? (Array.isArray(completed) ? completed : completed.items) : []).map((i) => i.label);
  check(labels.includes('alice'), `charter.entities: after User::" the completions are ${JSON.stringify(labels)}`);

  // A schema dropped from the settings reaches the server as didChangeConfiguration.
  harness.configuration['charter.schemas'] = [];
  configurationChange('charter.schemas');
  check(await until('the diagnostics without the schema', () => (harness.diagnostics.get(policyUri) || []).length === 0),
    'charter.schemas emptied: the validation diagnostic is gone');
  harness.configuration['charter.schemas'] = ['schema.cedarschema'];
  configurationChange('charter.schemas');
  check(await until('the diagnostics with the schema again', () => (harness.diagnostics.get(policyUri) || []).length > 0),
    'charter.schemas set again: it is back');

  // A document opened later is synced, and formatting goes to the server.
  const messyText = 'permit(principal,action,resource)when{true};\n';
  const messyFile = path.join(work, 'messy.cedar');
  fs.writeFileSync(messyFile, messyText);
  const messy = textDocument(messyFile, 'cedar', messyText);
  harness.documents.push(messy);
  for (const l of [...harness.openListeners]) l(messy);
  await until('diagnostics of the opened document', () => harness.diagnostics.has(messy.uri.toString()));
  check(harness.diagnostics.has(messy.uri.toString()), 'a document opened after start gets its diagnostics');
  const formatting = (harness.providers.registerDocumentFormattingEditProvider || [])[0];
  const edits = formatting &&
    await formatting.provider.provideDocumentFormattingEdits(messy, { tabSize: 2, insertSpaces: true },
      new vscode.CancellationTokenSource().token);
  const expected = execFileSync(charter, ['fmt', messyFile], { encoding: 'utf8' });
  check(Array.isArray(edits) && edits.length === 1 && edits[0].newText === expected,
    `Format Document gives charter fmt's text: ${JSON.stringify(edits && edits[0] && edits[0].newText)}`);

  // A charter.path that cannot start is reported; the restart command recovers.
  harness.configuration['charter.path'] = path.join(work, 'no-such-charter');
  configurationChange('charter.path');
  check(await until('the error message', () => harness.messages.some(([k, m]) => k === 'error' && /could not start/.test(m)), 30),
    `a charter.path that does not exist is reported: ${JSON.stringify(harness.messages.map(([, m]) => m).filter((m) => /could not start/.test(m)))}`);
  check(extension.runningClient() === undefined, 'and no client runs');
  harness.configuration['charter.path'] = charter;
  harness.diagnostics.clear();
  await harness.commands.get('charter.restartServer')();
  const again = extension.runningClient();
  check(again !== undefined && again.isRunning(), 'Charter: Restart the language server starts it again');
  check(await until('diagnostics after the restart', () => (harness.diagnostics.get(policyUri) || []).length > 0),
    'with the schema and the open documents');

  // Deactivating stops the server the way the protocol says: exit status 0.
  const process2 = again._serverProcess;
  await extension.deactivate();
  await until('the server to exit', () => process2.exitCode !== null, 30);
  check(process2.exitCode === 0, `deactivate stops charter lsp (exit status ${process2.exitCode})`);
  for (const d of subscriptions) d.dispose();

  fs.rmSync(work, { recursive: true, force: true });
  if (failures > 0) {
    console.error(`${failures} failures`);
    process.exit(1);
  }
  console.log('extension: the packaged extension starts charter lsp, passes its settings, formats, restarts and stops it');
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
