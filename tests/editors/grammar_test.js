// The TextMate grammars of editors/vscode/syntaxes/, run by VS Code's own
// engine (vscode-textmate over vscode-oniguruma, from editors/vscode's
// node_modules) over every .cedar, .charter and .cedarschema file in the
// repository (git ls-files) and every ```cedar, ```charter and
// ```cedarschema block of its Markdown. In every file, every token that is
// not whitespace must carry a scope beyond the grammar's root and its meta.*
// regions; in every file `charter fmt` parses (the fuzz corpora and the CLI's
// bad-input fixtures hold some that it refuses on purpose), no token may be
// scoped invalid.*. Then exact scopes for a handful of tokens, so that a
// grammar that scopes everything alike fails too.
//
//   node grammar_test.js CHARTER_BINARY   (from the repository's root)

'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { createRequire } = require('module');

const charter = process.argv[2];
if (!charter) {
  console.error('usage: node grammar_test.js CHARTER_BINARY');
  process.exit(2);
}
const root = process.cwd();
const extension = path.join(root, 'editors/vscode');
const requireExt = createRequire(path.join(extension, 'package.json'));
const vsctm = requireExt('vscode-textmate');
const oniguruma = requireExt('vscode-oniguruma');

let failures = 0;
function fail(message) {
  failures++;
  if (failures <= 40) console.error('FAIL ' + message);
}

// The grammars as the manifest contributes them.
const manifest = JSON.parse(fs.readFileSync(path.join(extension, 'package.json'), 'utf8'));
const grammarFiles = {};
const scopeOfLanguage = {};
for (const g of manifest.contributes.grammars) {
  grammarFiles[g.scopeName] = path.join(extension, g.path);
  scopeOfLanguage[g.language] = g.scopeName;
}
const extensionsOf = {};
for (const l of manifest.contributes.languages) {
  for (const e of l.extensions) extensionsOf[e] = l.id;
}

async function main() {
  const wasm = fs.readFileSync(requireExt.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      const file = grammarFiles[scopeName];
      if (!file) return null;
      return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
    },
  });
  const grammars = {};
  for (const [language, scope] of Object.entries(scopeOfLanguage)) {
    grammars[language] = await registry.loadGrammar(scope);
    if (!grammars[language]) throw new Error(`grammar ${scope} did not load`);
  }

  // Each token of a text: its text and scopes.
  function tokenize(language, text) {
    const grammar = grammars[language];
    const out = [];
    let stack = vsctm.INITIAL;
    const lines = text.split(/\r?\n/);
    for (let n = 0; n < lines.length; n++) {
      const line = lines[n];
      const r = grammar.tokenizeLine(line, stack, 10000);
      if (r.stoppedEarly) fail(`${language}: line ${n + 1} took too long to tokenize`);
      for (const t of r.tokens) {
        out.push({ line: n + 1, col: t.startIndex + 1, text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
      }
      stack = r.ruleStack;
    }
    return out;
  }

  // The inputs: files, then Markdown blocks written to a scratch directory.
  const git = (args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const files = git(['ls-files', '-z', '--', '*.cedar', '*.charter', '*.cedarschema'])
    .split('\0').filter((f) => f !== '');
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'charter-grammar-'));
  const inputs = files.map((f) => ({ name: f, file: path.join(root, f) }));
  const markdown = git(['ls-files', '-z', '--', '*.md']).split('\0').filter((f) => f !== '');
  let blocks = 0;
  for (const md of markdown) {
    const lines = fs.readFileSync(path.join(root, md), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const m = /^```(\S+)/.exec(lines[i]);
      if (!m || !['cedar', 'charter', 'cedarschema'].includes(m[1])) continue;
      let j = i + 1;
      while (j < lines.length && !lines[j].startsWith('```')) j++;
      const file = path.join(scratch, `block${++blocks}.${m[1]}`);
      fs.writeFileSync(file, lines.slice(i + 1, j).join('\n') + '\n');
      inputs.push({ name: `${md}:${i + 2} (a \`\`\`${m[1]} block)`, file });
      i = j;
    }
  }

  // Which of them `charter fmt` parses: one run, its faults on stderr as
  // "charter: error: FILE:LINE:COL: ...".
  const check = spawnSync(charter, ['fmt', '--check', ...inputs.map((i) => i.file)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (check.error) throw check.error;
  if (check.status !== 0 && check.status !== 1) fail(`charter fmt --check exited ${check.status}: ${check.stderr.slice(0, 500)}`);
  const refused = new Set();
  for (const line of check.stderr.split('\n')) {
    for (const input of inputs) {
      if (line.startsWith(`charter: error: ${input.file}:`)) refused.add(input.file);
    }
  }

  const counts = { files: 0, blocks: 0, tokens: 0, refused: 0 };
  for (const input of inputs) {
    const language = extensionsOf[path.extname(input.file)];
    if (!language) throw new Error(`${input.name}: no language for its extension`);
    input.file.startsWith(scratch) ? counts.blocks++ : counts.files++;
    const valid = !refused.has(input.file);
    if (!valid) counts.refused++;
    for (const t of tokenize(language, fs.readFileSync(input.file, 'utf8'))) {
      if (t.text.trim() === '') continue;
      counts.tokens++;
      const significant = t.scopes.slice(1).filter((s) => !s.startsWith('meta.'));
      if (significant.length === 0) {
        fail(`${input.name}:${t.line}:${t.col}: \`${t.text}\` has no scope beyond ${t.scopes.join(' ')}`);
      }
      const invalid = t.scopes.find((s) => s.startsWith('invalid.'));
      if (valid && invalid) {
        fail(`${input.name}:${t.line}:${t.col}: \`${t.text}\` is ${invalid} in a file charter fmt parses`);
      }
    }
  }
  if (counts.files < 100) fail(`only ${counts.files} files found by git ls-files`);
  if (counts.blocks < 50) fail(`only ${counts.blocks} Markdown blocks found`);
  if (counts.refused === 0) fail('charter fmt refused nothing, though the fuzz corpora hold inputs it must refuse');
  if (counts.refused > 0.3 * inputs.length) fail(`charter fmt refused ${counts.refused} of ${inputs.length} inputs`);

  // Exact scopes: [language, text, the token, its occurrence, a scope it must carry].
  const cedar = `// Members of ml.
@id("ml-submit")
permit (principal in Team::"ml", action == Action::"submit", resource is Ns::Task in ?resource)
when { principal has suspended && !principal.tags.contains("a\\u{1F600}") && ip("10.0.0.1").isLoopback() }
unless { context.n >= 10 };
forbid (principal, action, resource) when { { "k": 1, key: false } == context.r };`;
  const charterText = `scheduler { fair_sharing: true; fair_sharing_strategies: [LessThanInitialShare]; }
queue "team-a" {
  cohort: "ml";
  implements: Governance::Allocation::"gpu/a";
  queueing: BestEffortFIFO;
  resources "cpu", "nvidia.com/gpu" {
    flavor "a100" { cpu: 500m; memory: 64Gi; "nvidia.com/gpu": 8 borrow 4 lend 2; }
  }
}
forbid (principal, action == Scheduling::Action::"admit", resource) when { principal.hasTag("hold") };`;
  const schema = `namespace Org {
  @doc("a user")
  entity User in [Team] { name: String, "full name"?: Set<Long>, ip: __cedar::ipaddr } tags String;
  entity Color enum ["red"];
  type Shape = { sides: Long };
  action view, "edit" in [Action::"read"] appliesTo { principal: [User], resource: Doc, context: { n: Long } };
}`;
  const cases = [
    ['cedar', cedar, 'permit', 1, 'keyword.control.effect.cedar'],
    ['cedar', cedar, 'forbid', 1, 'keyword.control.effect.cedar'],
    ['cedar', cedar, '//', 1, 'comment.line.double-slash.cedar'],
    ['cedar', cedar, ' Members of ml.', 1, 'comment.line.double-slash.cedar'],
    ['cedar', cedar, '@', 1, 'storage.type.annotation.cedar'],
    ['cedar', cedar, 'id', 1, 'storage.type.annotation.cedar'],
    ['cedar', cedar, 'ml-submit', 1, 'string.quoted.double.cedar'],
    ['cedar', cedar, 'Team', 1, 'entity.name.type.cedar'],
    ['cedar', cedar, '::', 1, 'punctuation.separator.namespace.cedar'],
    ['cedar', cedar, 'ml', 1, 'string.quoted.double.cedar'],
    ['cedar', cedar, 'Task', 1, 'entity.name.type.cedar'],
    ['cedar', cedar, 'Ns', 1, 'entity.name.type.cedar'],
    ['cedar', cedar, 'principal', 1, 'variable.language.cedar'],
    ['cedar', cedar, 'in', 1, 'keyword.operator.word.cedar'],
    ['cedar', cedar, '?resource', 1, 'variable.parameter.slot.cedar'],
    ['cedar', cedar, 'when', 1, 'keyword.control.condition.cedar'],
    ['cedar', cedar, 'unless', 1, 'keyword.control.condition.cedar'],
    ['cedar', cedar, 'suspended', 1, 'variable.other.property.cedar'],
    ['cedar', cedar, 'tags', 1, 'variable.other.property.cedar'],
    ['cedar', cedar, 'contains', 1, 'support.function.method.cedar'],
    ['cedar', cedar, '\\u{1F600}', 1, 'constant.character.escape.cedar'],
    ['cedar', cedar, 'ip', 1, 'support.function.cedar'],
    ['cedar', cedar, '&&', 1, 'keyword.operator.logical.cedar'],
    ['cedar', cedar, '>=', 1, 'keyword.operator.comparison.cedar'],
    ['cedar', cedar, '10', 1, 'constant.numeric.integer.decimal.cedar'],
    ['cedar', cedar, 'key', 1, 'variable.other.property.key.cedar'],
    ['cedar', cedar, 'false', 1, 'constant.language.boolean.cedar'],
    ['cedar', cedar, ';', 1, 'punctuation.terminator.policy.cedar'],
    ['cedar', 'permit (principal, action, resource) when { "\\q" };', '\\q', 1, 'invalid.illegal.escape.cedar'],
    ['cedar', 'queue "a";', 'queue', 1, 'invalid.illegal.character.cedar'],
    ['cedar', 'permit (principal, action, resource) when { $ };', '$', 1, 'invalid.illegal.character.cedar'],
    ['charter', charterText, 'scheduler', 1, 'keyword.other.declaration.charter'],
    ['charter', charterText, 'queue', 1, 'keyword.other.declaration.charter'],
    ['charter', charterText, 'team-a', 1, 'string.quoted.double.cedar'],
    ['charter', charterText, 'cohort', 1, 'variable.other.property.charter'],
    ['charter', charterText, 'true', 1, 'constant.language.boolean.charter'],
    ['charter', charterText, 'LessThanInitialShare', 1, 'constant.other.charter'],
    ['charter', charterText, 'Allocation', 1, 'entity.name.type.cedar'],
    ['charter', charterText, 'BestEffortFIFO', 1, 'constant.other.charter'],
    ['charter', charterText, 'resources', 1, 'keyword.other.declaration.charter'],
    ['charter', charterText, 'flavor', 1, 'keyword.other.declaration.charter'],
    ['charter', charterText, '500m', 1, 'constant.numeric.quantity.charter'],
    ['charter', charterText, '64Gi', 1, 'constant.numeric.quantity.charter'],
    ['charter', charterText, 'borrow', 1, 'keyword.other.charter'],
    ['charter', charterText, 'lend', 1, 'keyword.other.charter'],
    ['charter', charterText, ';', 1, 'punctuation.terminator.declaration.charter'],
    ['charter', charterText, 'forbid', 1, 'keyword.control.effect.cedar'],
    ['charter', charterText, 'Scheduling', 1, 'entity.name.type.cedar'],
    ['charter', charterText, 'hasTag', 1, 'support.function.method.cedar'],
    ['charter', 'queue "a" { cpu: 8 }}', '}', 2, 'invalid.illegal.character.charter'],
    ['cedarschema', schema, 'namespace', 1, 'storage.type.namespace.cedarschema'],
    ['cedarschema', schema, 'Org', 1, 'entity.name.namespace.cedarschema'],
    ['cedarschema', schema, 'doc', 1, 'storage.type.annotation.cedar'],
    ['cedarschema', schema, 'entity', 1, 'storage.type.entity.cedarschema'],
    ['cedarschema', schema, 'User', 1, 'entity.name.type.cedarschema'],
    ['cedarschema', schema, 'Team', 1, 'entity.name.type.cedarschema'],
    ['cedarschema', schema, 'name', 1, 'variable.other.property.cedarschema'],
    ['cedarschema', schema, 'String', 1, 'support.type.primitive.cedarschema'],
    ['cedarschema', schema, 'full name', 1, 'string.quoted.double.cedar'],
    ['cedarschema', schema, '?', 1, 'keyword.operator.optional.cedarschema'],
    ['cedarschema', schema, 'Set', 1, 'support.type.set.cedarschema'],
    ['cedarschema', schema, 'ipaddr', 1, 'support.type.primitive.cedarschema'],
    ['cedarschema', schema, 'tags', 1, 'keyword.other.cedarschema'],
    ['cedarschema', schema, 'enum', 1, 'keyword.other.cedarschema'],
    ['cedarschema', schema, 'type', 1, 'storage.type.type.cedarschema'],
    ['cedarschema', schema, 'Shape', 1, 'entity.name.type.cedarschema'],
    ['cedarschema', schema, 'action', 1, 'storage.type.action.cedarschema'],
    ['cedarschema', schema, 'view', 1, 'entity.name.function.action.cedarschema'],
    ['cedarschema', schema, 'appliesTo', 1, 'keyword.other.cedarschema'],
    ['cedarschema', schema, 'principal', 1, 'variable.language.cedarschema'],
    ['cedarschema', schema, 'context', 1, 'variable.language.cedarschema'],
    ['cedarschema', schema, 'n', 1, 'variable.other.property.cedarschema'],
    ['cedarschema', 'entity User; permit', 'permit', 1, 'invalid.illegal.character.cedarschema'],
  ];
  for (const [language, text, token, nth, scope] of cases) {
    const hits = tokenize(language, text).filter((t) => t.text === token);
    const t = hits[nth - 1];
    if (!t) {
      fail(`${language}: no token \`${token}\` (occurrence ${nth}) in the example`);
    } else if (!t.scopes.includes(scope)) {
      fail(`${language}: \`${token}\` is ${t.scopes.join(' ')}, not ${scope}`);
    }
  }

  fs.rmSync(scratch, { recursive: true, force: true });
  if (failures > 0) {
    console.error(`${failures} failures`);
    process.exit(1);
  }
  console.log(`grammar: ${counts.files} files and ${counts.blocks} Markdown blocks, ${counts.tokens} tokens, all scoped; ` +
    `${inputs.length - counts.refused} that charter fmt parses have no invalid token (${counts.refused} it refuses); ` +
    `${cases.length} exact scopes hold`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
