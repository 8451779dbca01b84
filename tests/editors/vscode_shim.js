// A stand-in for the `vscode` module, so that the packaged extension and the
// real vscode-languageclient it carries run in Node, outside VS Code: the
// classes and functions the client calls while it starts a server, syncs
// documents, takes diagnostics and registers providers, implemented plainly;
// anything else is a stub that answers "nothing". What VS Code would show is
// recorded in `harness` for extension_test.js to assert on. It is not VS
// Code: it shows that the extension starts the real `charter lsp` with its
// settings and that the language client talks to it, not how VS Code
// renders the results.

'use strict';
const path = require('path');

const harness = {
  diagnostics: new Map(),   // uri string -> array of Diagnostic, as the client last set them
  providers: {},            // registerXProvider name -> [{selector, provider}]
  commands: new Map(),
  messages: [],             // [kind, text] of showXMessage
  output: [],               // lines written to output channels
  configuration: {},        // section.key -> value
  configurationListeners: [],
  documents: [],
  openListeners: [],
  closeListeners: [],
  changeListeners: [],
  folders: [],
};

class Disposable {
  constructor(fn) { this._fn = fn; }
  static from(...items) { return new Disposable(() => items.forEach((i) => i && i.dispose && i.dispose())); }
  dispose() { if (this._fn) { const f = this._fn; this._fn = undefined; f(); } }
}

class EventEmitter {
  constructor() { this._listeners = []; this.event = (fn, thisArg) => {
    const l = thisArg ? fn.bind(thisArg) : fn;
    this._listeners.push(l);
    return new Disposable(() => { this._listeners = this._listeners.filter((x) => x !== l); });
  }; }
  fire(e) { for (const l of [...this._listeners]) l(e); }
  dispose() { this._listeners = []; }
}

function listen(list) {
  return (fn, thisArg) => {
    const l = thisArg ? fn.bind(thisArg) : fn;
    list.push(l);
    return new Disposable(() => { const i = list.indexOf(l); if (i >= 0) list.splice(i, 1); });
  };
}

class Uri {
  constructor(scheme, authority, p, query, fragment) {
    this.scheme = scheme; this.authority = authority || ''; this.path = p || ''; this.query = query || ''; this.fragment = fragment || '';
  }
  static file(p) { return new Uri('file', '', p); }
  static parse(s) {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
    if (!m) throw new Error(`not a URI: ${s}`);
    return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4], m[5]);
  }
  static joinPath(base, ...parts) { return base.with({ path: path.posix.join(base.path, ...parts) }); }
  get fsPath() { return this.path; }
  with(change) {
    return new Uri(change.scheme ?? this.scheme, change.authority ?? this.authority, change.path ?? this.path,
      change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString() {
    const p = this.path.split('/').map(encodeURIComponent).join('/');
    return `${this.scheme}:${this.scheme === 'file' || this.authority ? '//' + this.authority : ''}${p}` +
      (this.query ? `?${this.query}` : '') + (this.fragment ? `#${this.fragment}` : '');
  }
  toJSON() { return { scheme: this.scheme, path: this.path }; }
}

class Position {
  constructor(line, character) { this.line = line; this.character = character; }
  isBefore(o) { return this.line < o.line || (this.line === o.line && this.character < o.character); }
  isEqual(o) { return this.line === o.line && this.character === o.character; }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') { this.start = new Position(a, b); this.end = new Position(c, d); }
    else { this.start = a; this.end = b; }
  }
}
class Selection extends Range {}
class Location { constructor(uri, range) { this.uri = uri; this.range = range; } }
class Diagnostic {
  constructor(range, message, severity) { this.range = range; this.message = message; this.severity = severity; }
}
class DiagnosticRelatedInformation { constructor(location, message) { this.location = location; this.message = message; } }
class TextEdit {
  constructor(range, newText) { this.range = range; this.newText = newText; }
  static replace(range, newText) { return new TextEdit(range, newText); }
}
class MarkdownString { constructor(value) { this.value = value || ''; } appendMarkdown(v) { this.value += v; return this; } }
class Hover { constructor(contents, range) { this.contents = Array.isArray(contents) ? contents : [contents]; this.range = range; } }
class CompletionItem { constructor(label, kind) { this.label = label; this.kind = kind; } }
class CompletionList { constructor(items, isIncomplete) { this.items = items || []; this.isIncomplete = !!isIncomplete; } }
class SnippetString { constructor(value) { this.value = value || ''; } }
class DocumentSymbol {
  constructor(name, detail, kind, range, selectionRange) {
    Object.assign(this, { name, detail, kind, range, selectionRange, children: [] });
  }
}
class SymbolInformation { constructor(name, kind, containerName, location) { Object.assign(this, { name, kind, containerName, location }); } }
class CodeAction { constructor(title, kind) { this.title = title; this.kind = kind; } }
class WorkspaceEdit {
  constructor() { this._edits = []; }
  replace(uri, range, newText) { this._edits.push({ uri, range, newText }); }
  set(uri, edits) { for (const e of edits) this._edits.push({ uri, ...e }); }
  entries() { return this._edits.map((e) => [e.uri, [e]]); }
}
class CodeActionKind {
  constructor(value) { this.value = value; }
  append(part) { return new CodeActionKind(this.value ? `${this.value}.${part}` : part); }
  contains(other) { return this.value === other.value || other.value.startsWith(this.value + '.'); }
  intersects(other) { return this.contains(other) || other.contains(this); }
}
for (const k of ['Empty:', 'QuickFix:quickfix', 'Refactor:refactor', 'RefactorExtract:refactor.extract',
  'RefactorInline:refactor.inline', 'RefactorRewrite:refactor.rewrite', 'Source:source',
  'SourceOrganizeImports:source.organizeImports', 'SourceFixAll:source.fixAll']) {
  const [name, value] = k.split(':');
  CodeActionKind[name] = new CodeActionKind(value);
}
class CodeLens { constructor(range, command) { this.range = range; this.command = command; } }
class DocumentLink { constructor(range, target) { this.range = range; this.target = target; } }
class InlayHint { constructor(position, label, kind) { Object.assign(this, { position, label, kind }); } }
class CallHierarchyItem { constructor(kind, name, detail, uri, range, selectionRange) { Object.assign(this, { kind, name, detail, uri, range, selectionRange }); } }
class TypeHierarchyItem extends CallHierarchyItem {}
class RelativePattern { constructor(base, pattern) { this.base = base; this.pattern = pattern; } }
class CancellationError extends Error {}
class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
    this._emitter = emitter;
  }
  cancel() { this.token.isCancellationRequested = true; this._emitter.fire(); }
  dispose() {}
}

// Enumerations: numbered in declaration order from 0, or from 1 where
// VS Code's are (a stand-in only needs them distinct and stable).
function enumOf(names, first = 0) {
  const e = {};
  names.forEach((n, i) => { e[n] = i + first; e[i + first] = n; });
  return e;
}
const DiagnosticSeverity = enumOf(['Error', 'Warning', 'Information', 'Hint']);
const SymbolKind = enumOf(['File', 'Module', 'Namespace', 'Package', 'Class', 'Method', 'Property', 'Field',
  'Constructor', 'Enum', 'Interface', 'Function', 'Variable', 'Constant', 'String', 'Number', 'Boolean', 'Array',
  'Object', 'Key', 'Null', 'EnumMember', 'Struct', 'Event', 'Operator', 'TypeParameter']);
const CompletionItemKind = enumOf(['Text', 'Method', 'Function', 'Constructor', 'Field', 'Variable', 'Class',
  'Interface', 'Module', 'Property', 'Unit', 'Value', 'Enum', 'Keyword', 'Snippet', 'Color', 'File', 'Reference',
  'Folder', 'EnumMember', 'Constant', 'Struct', 'Event', 'Operator', 'TypeParameter', 'User', 'Issue']);

// A plain object whose every missing member is a stub: a function returning
// a Disposable, usable as an enum member, or a nested stub.
function stub(name) {
  const fn = function () { return new Disposable(); };
  return new Proxy(fn, {
    get(target, prop) {
      if (prop === 'then') return undefined;  // not a promise
      if (prop === Symbol.toPrimitive) return () => 1;
      if (!(prop in target)) target[prop] = stub(`${name}.${String(prop)}`);
      return target[prop];
    },
    construct() { return stub(`new ${name}`); },
  });
}
function withStubs(name, object) {
  return new Proxy(object, {
    get(target, prop) {
      if (prop in target || typeof prop === 'symbol' || prop === 'then') return target[prop];
      target[prop] = stub(`${name}.${prop}`);
      return target[prop];
    },
  });
}

function matchOne(selector, document) {
  if (typeof selector === 'string') return selector === document.languageId ? 10 : 0;
  if (selector.language && selector.language !== '*' && selector.language !== document.languageId) return 0;
  if (selector.scheme && selector.scheme !== '*' && selector.scheme !== document.uri.scheme) return 0;
  if (selector.pattern) {
    const p = typeof selector.pattern === 'string' ? selector.pattern : selector.pattern.pattern;
    const m = /^\*\*\/\*(\.[\w.]+)$/.exec(p);
    if (!m) throw new Error(`the shim matches only **/*.ext patterns, not ${p}`);
    if (!document.uri.path.endsWith(m[1])) return 0;
  }
  return 10;
}

const languages = withStubs('languages', {
  match(selector, document) {
    const all = Array.isArray(selector) ? selector : [selector];
    return Math.max(0, ...all.map((s) => matchOne(s, document)));
  },
  createDiagnosticCollection(name) {
    const mine = new Map();
    return {
      name,
      set(uri, diagnostics) {
        if (Array.isArray(uri)) { for (const [u, d] of uri) this.set(u, d); return; }
        const key = uri.toString();
        mine.set(key, diagnostics || []);
        harness.diagnostics.set(key, diagnostics || []);
        harness.onDiagnostics?.(key, diagnostics || []);
      },
      delete(uri) { mine.delete(uri.toString()); harness.diagnostics.delete(uri.toString()); },
      clear() { for (const k of mine.keys()) harness.diagnostics.delete(k); mine.clear(); },
      get(uri) { return mine.get(uri.toString()); },
      has(uri) { return mine.has(uri.toString()); },
      forEach(fn) { for (const [k, v] of mine) fn(Uri.parse(k), v, this); },
      dispose() { this.clear(); },
    };
  },
  getLanguages: async () => ['cedar', 'charter', 'cedarschema', 'json'],
});
for (const name of ['registerHoverProvider', 'registerCompletionItemProvider', 'registerDefinitionProvider',
  'registerDocumentSymbolProvider', 'registerDocumentFormattingEditProvider', 'registerCodeActionsProvider']) {
  languages[name] = (selector, provider) => {
    (harness.providers[name] ??= []).push({ selector, provider });
    return new Disposable(() => {
      harness.providers[name] = harness.providers[name].filter((p) => p.provider !== provider);
    });
  };
}

function configurationFor(section) {
  return {
    get(key, fallback) {
      const v = harness.configuration[section ? `${section}.${key}` : key];
      return v === undefined ? fallback : v;
    },
    has(key) { return harness.configuration[section ? `${section}.${key}` : key] !== undefined; },
    inspect() { return undefined; },
    update: async () => {},
  };
}

const workspace = withStubs('workspace', {
  get workspaceFolders() { return harness.folders; },
  getWorkspaceFolder(uri) { return harness.folders.find((f) => uri.path.startsWith(f.uri.path + '/')); },
  get textDocuments() { return harness.documents; },
  getConfiguration: (section) => configurationFor(section),
  onDidChangeConfiguration: listen(harness.configurationListeners),
  onDidOpenTextDocument: listen(harness.openListeners),
  onDidCloseTextDocument: listen(harness.closeListeners),
  onDidChangeTextDocument: listen(harness.changeListeners),
  createFileSystemWatcher: () => withStubs('watcher', { dispose() {} }),
  applyEdit: async () => true,
});

const window = withStubs('window', {
  createOutputChannel(name) {
    return withStubs('output', {
      name,
      append(v) { harness.output.push(v); },
      appendLine(v) { harness.output.push(v); },
      replace() {}, clear() {}, show() {}, hide() {}, dispose() {},
    });
  },
  showErrorMessage: async (m) => { harness.messages.push(['error', m]); return undefined; },
  showWarningMessage: async (m) => { harness.messages.push(['warning', m]); return undefined; },
  showInformationMessage: async (m) => { harness.messages.push(['information', m]); return undefined; },
  activeTextEditor: undefined,
  visibleTextEditors: [],
  tabGroups: withStubs('tabGroups', { all: [], onDidChangeTabs: listen([]), onDidChangeTabGroups: listen([]) }),
  onDidChangeActiveTextEditor: listen([]),
  onDidChangeVisibleTextEditors: listen([]),
});

const commands = withStubs('commands', {
  registerCommand(id, fn) { harness.commands.set(id, fn); return new Disposable(() => harness.commands.delete(id)); },
  executeCommand: async (id, ...args) => harness.commands.get(id)?.(...args),
});

module.exports = withStubs('vscode', {
  harness,
  version: '1.82.0',
  env: withStubs('env', { appName: 'charter extension_test', language: 'en', machineId: 'test', sessionId: 'test', uriScheme: 'vscode' }),
  Disposable, EventEmitter, Uri, Position, Range, Selection, Location, Diagnostic, DiagnosticRelatedInformation,
  TextEdit, MarkdownString, Hover, CompletionItem, CompletionList, SnippetString, DocumentSymbol, SymbolInformation,
  CodeAction, CodeActionKind, WorkspaceEdit, CodeLens, DocumentLink, InlayHint, CallHierarchyItem, TypeHierarchyItem, RelativePattern, CancellationError, CancellationTokenSource,
  DiagnosticSeverity, SymbolKind, CompletionItemKind,
  DiagnosticTag: enumOf(['Unnecessary', 'Deprecated'], 1),
  TextDocumentSaveReason: enumOf(['Manual', 'AfterDelay', 'FocusOut'], 1),
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ConfigurationTarget: enumOf(['Global', 'Workspace', 'WorkspaceFolder'], 1),
  EndOfLine: enumOf(['LF', 'CRLF'], 1),
  languages, workspace, window, commands,
});
