// The interpreter selected in the Python extension (ms-python.python), through its
// published API package. Everything here tolerates the extension being absent.

import { PythonExtension } from "@vscode/python-extension";
import * as vscode from "vscode";

export interface SelectedInterpreter {
  /** The selected interpreter's executable for `resource`; undefined when none is known. */
  executable(resource?: vscode.Uri): Promise<string | undefined>;
  /** Fires when the user selects another interpreter. */
  onDidChange(listener: () => void): vscode.Disposable;
}

export async function selectedInterpreter(log: vscode.LogOutputChannel): Promise<SelectedInterpreter | undefined> {
  if (vscode.extensions.getExtension("ms-python.python") === undefined) {
    log.info("The Python extension (ms-python.python) is not installed: looking for the server on PATH only.");
    return undefined;
  }
  let api: PythonExtension;
  try {
    api = await PythonExtension.api();
    await api.ready;
  } catch (error) {
    log.warn(`The Python extension's API is not available: ${error}`);
    return undefined;
  }
  return {
    async executable(resource) {
      const selected = api.environments.getActiveEnvironmentPath(resource);
      const resolved = await api.environments.resolveEnvironment(selected);
      return resolved?.executable.uri?.fsPath;
    },
    onDidChange(listener) {
      return api.environments.onDidChangeActiveEnvironmentPath(() => listener());
    },
  };
}
