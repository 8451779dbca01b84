// What the extension asks of VS Code's language client, as plain functions of
// the `charter.*` settings: the command that starts `charter lsp`, the files
// it serves, and the settings the server reads (cli/lsp_server.cc,
// ReadSettings). Nothing here imports `vscode`, so tests load it in Node.

import * as path from 'path';
import type { Executable, LanguageClientOptions } from 'vscode-languageclient/node';

// The extension's settings (package.json, contributes.configuration).
export interface Settings {
  path: string;
  schemas: string[];
  entities: string;
}

// The part of a WorkspaceConfiguration that reads settings.
export interface SettingsSource {
  get<T>(section: string): T | undefined;
}

// The `charter` section of the configuration, with the defaults of
// package.json where a value is missing or of the wrong type.
export function readSettings(config: SettingsSource): Settings {
  const p = config.get<unknown>('path');
  const schemas = config.get<unknown>('schemas');
  const entities = config.get<unknown>('entities');
  return {
    path: typeof p === 'string' && p.trim() !== '' ? p.trim() : 'charter',
    schemas: Array.isArray(schemas) ? schemas.filter((s): s is string => typeof s === 'string' && s !== '') : [],
    entities: typeof entities === 'string' ? entities : '',
  };
}

// The executable: a bare name is looked up on PATH when it is started; a
// relative path with a directory in it is taken from the first workspace
// folder, as the schema and entities paths are (by the server).
export function serverCommand(settings: Settings, workspaceFolder?: string): string {
  const p = settings.path;
  if (path.isAbsolute(p) || !p.includes('/') || workspaceFolder === undefined) return p;
  return path.join(workspaceFolder, p);
}

// `charter lsp` over stdio (no transport: the client then adds no
// `--stdio` argument, which the server would accept as well).
export function serverOptions(settings: Settings, workspaceFolder?: string): Executable {
  const options: Executable = { command: serverCommand(settings, workspaceFolder), args: ['lsp'] };
  if (workspaceFolder !== undefined) options.options = { cwd: workspaceFolder };
  return options;
}

// The settings as the server reads them, in `initializationOptions` and in
// `workspace/didChangeConfiguration`'s `settings`: `schemas` and, when set,
// `entities`. The server resolves their paths against the workspace folder.
export interface ServerSettings {
  schemas: string[];
  entities?: string;
}

export function serverSettings(settings: Settings): ServerSettings {
  const out: ServerSettings = { schemas: [...settings.schemas] };
  if (settings.entities !== '') out.entities = settings.entities;
  return out;
}

// The documents the server is given: the three languages the extension
// registers, in files and unsaved editors, and schemas in Cedar's JSON
// format, which stay VS Code's `json` language (the server knows them by
// their name, `*.cedarschema.json`), and `charter test` files
// (`*.test.json`, also `json`), for the code lens on each case.
export const documentSelector = [
  { language: 'cedar' },
  { language: 'charter' },
  { language: 'cedarschema' },
  { language: 'json', pattern: '**/*.cedarschema.json' },
  { language: 'json', pattern: '**/*.test.json' },
];

export function clientOptions(settings: Settings): LanguageClientOptions {
  return {
    documentSelector: documentSelector.map((s) => ({ ...s })),
    initializationOptions: serverSettings(settings),
  };
}

// Whether a configuration change needs a new server process (the
// executable changed) rather than a didChangeConfiguration notification.
export function needsRestart(before: Settings, after: Settings): boolean {
  return before.path !== after.path;
}

// Whether the settings the server reads changed.
export function serverSettingsChanged(before: Settings, after: Settings): boolean {
  return JSON.stringify(serverSettings(before)) !== JSON.stringify(serverSettings(after));
}
