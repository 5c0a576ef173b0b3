// The VS Code client of `flake8-tensorcopy server`: finds the server, starts it over
// stdio for Python files and Jupyter notebooks, and keeps it in step with the settings
// and the selected interpreter.

import { execFile } from "node:child_process";
import { constants as fsConstants, promises as fs } from "node:fs";
import * as vscode from "vscode";
import {
  CodeActionRequest,
  CodeActionTriggerKind,
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { SelectedInterpreter, selectedInterpreter } from "./python";
import { HAS_SERVER_PROBE, Resolution, resolveServer } from "./serverCommand";
import { RESTARTING, SECTION, SENT, serverPayload } from "./settings";

export const FIX_ALL_KIND = vscode.CodeActionKind.SourceFixAll.append("tensorcopy");

const PYTHON_DOCUMENTS = [
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "python" },
  { scheme: "vscode-notebook-cell", language: "python" },
];

let log: vscode.LogOutputChannel;
let client: LanguageClient | undefined;
let interpreter: SelectedInterpreter | undefined;
let restarting: Promise<void> = Promise.resolve();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  log = vscode.window.createOutputChannel("flake8-tensorcopy", { log: true });
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand("flake8-tensorcopy.restart", () => restart()),
    vscode.commands.registerCommand("flake8-tensorcopy.fixAll", () => fixAll()),
    vscode.commands.registerCommand("flake8-tensorcopy.showOutput", () => log.show()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTARTING.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        void restart();
      } else if (SENT.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        void client?.sendNotification(DidChangeConfigurationNotification.type, { settings: payload() });
      }
    }),
    { dispose: () => void stop() },
  );
  interpreter = await selectedInterpreter(log);
  if (interpreter !== undefined) {
    context.subscriptions.push(interpreter.onDidChange(() => {
      log.info("The selected Python interpreter changed: restarting the server.");
      void restart();
    }));
  }
  await restart();
}

export function deactivate(): Promise<void> {
  return stop();
}

/** Stops the server (if running) and starts it again as the settings now say; restarts queue. */
function restart(): Promise<void> {
  const again = async () => {
    await stop();
    await start();
  };
  restarting = restarting.then(again, again); // a failed restart does not block the next
  return restarting;
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    try {
      await running.dispose(2000);
    } catch (error) {
      log.warn(`Stopping the server: ${error}`);
    }
  }
}

async function start(): Promise<void> {
  const settings = vscode.workspace.getConfiguration(SECTION);
  if (!settings.get<boolean>("enable", true)) {
    log.info("flake8-tensorcopy.enable is false: the server is not started.");
    return;
  }
  const resolution = await findServer(settings.get<string>("path", ""));
  if ("missing" in resolution) {
    log.error(resolution.missing.message);
    void tellMissing(resolution.missing.message, resolution.missing.install);
    return;
  }
  const { command, args, origin } = resolution.found;
  log.info(`Starting the server from ${origin}: ${[command, ...args].join(" ")}`);
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: PYTHON_DOCUMENTS,
    outputChannel: log,
    traceOutputChannel: log,
    initializationOptions: payload(),
  };
  const started = new LanguageClient(SECTION, "flake8-tensorcopy", serverOptions, clientOptions);
  client = started;
  try {
    await started.start();
  } catch (error) {
    client = undefined;
    log.error(`The server did not start: ${error}`);
    void vscode.window.showErrorMessage(`flake8-tensorcopy: the language server did not start (${command}): see the output channel.`, "Show Output")
      .then((choice) => choice && log.show());
  }
}

async function findServer(pathSetting: string): Promise<Resolution> {
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  let python: string | undefined;
  try {
    python = await interpreter?.executable(resource);
  } catch (error) {
    log.warn(`Could not read the selected interpreter: ${error}`);
  }
  return resolveServer(pathSetting, python, process.env, process.platform, {
    isExecutable: async (file) => {
      try {
        await fs.access(file, fsConstants.X_OK);
        return (await fs.stat(file)).isFile();
      } catch {
        return false;
      }
    },
    hasServer: (python) =>
      new Promise((resolve) => execFile(python, ["-c", HAS_SERVER_PROBE], { timeout: 20000 }, (error) => resolve(error === null))),
  });
}

async function tellMissing(message: string, install: string | undefined): Promise<void> {
  const copy = "Copy Install Command";
  const choices = install === undefined ? ["Show Output"] : [copy, "Show Output"];
  const choice = await vscode.window.showErrorMessage(message, ...choices);
  if (choice === copy && install !== undefined) {
    await vscode.env.clipboard.writeText(install);
  } else if (choice === "Show Output") {
    log.show();
  }
}

function payload() {
  const settings = vscode.workspace.getConfiguration(SECTION);
  return serverPayload((key) => settings.get(key));
}

/** The server's `source.fixAll.tensorcopy` on the active file, or on the active notebook
 * (asked of its first Python cell: the server fixes every cell). */
async function fixAll(): Promise<void> {
  if (client === undefined) {
    void vscode.window.showInformationMessage("flake8-tensorcopy: the server is not running (see Show Output).");
    return;
  }
  const notebook = vscode.window.activeNotebookEditor?.notebook;
  const document = notebook === undefined
    ? vscode.window.activeTextEditor?.document
    : notebook.getCells().find((cell) => cell.kind === vscode.NotebookCellKind.Code && cell.document.languageId === "python")?.document;
  if (document === undefined) {
    void vscode.window.showInformationMessage("flake8-tensorcopy: open a Python file or notebook first.");
    return;
  }
  // Asked of the server itself: VS Code's code action command would also ask other
  // extensions, and it knows no model for a notebook cell that is not rendered.
  const actions = await client.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: client.code2ProtocolConverter.asUri(document.uri) },
    range: { start: { line: 0, character: 0 }, end: { line: document.lineCount, character: 0 } },
    context: { diagnostics: [], only: [FIX_ALL_KIND.value], triggerKind: CodeActionTriggerKind.Invoked },
  });
  const fix = actions?.find((action) => "kind" in action && action.kind === FIX_ALL_KIND.value && action.edit);
  if (fix === undefined || !("edit" in fix) || fix.edit === undefined) {
    void vscode.window.showInformationMessage("flake8-tensorcopy: nothing to fix here.");
    return;
  }
  await vscode.workspace.applyEdit(await client.protocol2CodeConverter.asWorkspaceEdit(fix.edit));
}
