// The Charter extension: registers Cedar, Charter and Cedar schema files
// (package.json) and starts `charter lsp` for them with VS Code's language
// client. The options come from options.ts; this file ties them to VS Code:
// it starts the client, passes changed settings to the server, and restarts
// it when `charter.path` changes or on the restart command.

import * as vscode from 'vscode';
import { DidChangeConfigurationNotification, LanguageClient } from 'vscode-languageclient/node';
import { Settings, clientOptions, needsRestart, readSettings, serverOptions, serverSettings,
  serverSettingsChanged } from './options';

let client: LanguageClient | undefined;
let current: Settings | undefined;
let output: vscode.OutputChannel | undefined;

function firstWorkspaceFolder(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}

async function start(): Promise<void> {
  const settings = readSettings(vscode.workspace.getConfiguration('charter'));
  current = settings;
  const server = serverOptions(settings, firstWorkspaceFolder());
  output ??= vscode.window.createOutputChannel('Charter');
  const options = { ...clientOptions(settings), outputChannel: output };
  client = new LanguageClient('charter', 'Charter', server, options);
  try {
    await client.start();
  } catch (e) {
    client = undefined;
    const why = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(
      `Charter: could not start \`${server.command} lsp\` (${why}). Set \`charter.path\` to the charter executable.`);
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) await running.stop();
}

async function configurationChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
  if (!event.affectsConfiguration('charter') || current === undefined) return;
  const settings = readSettings(vscode.workspace.getConfiguration('charter'));
  const before = current;
  if (needsRestart(before, settings) || client === undefined) {
    await stop();
    await start();
    return;
  }
  current = settings;
  if (serverSettingsChanged(before, settings)) {
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverSettings(settings) });
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => configurationChanged(e)),
    vscode.commands.registerCommand('charter.restartServer', async () => {
      await stop();
      await start();
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

// For tests that drive the extension outside VS Code: the running client.
export function runningClient(): LanguageClient | undefined {
  return client;
}
