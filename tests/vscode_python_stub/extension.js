// A stand-in for the Python extension (ms-python.python), whose marketplace this machine
// cannot reach: the environments API as @vscode/python-extension declares it, as far as
// flake8-tensorcopy uses it, and "Python: Select Interpreter", where a person types the
// interpreter's path (the real command's "Enter interpreter path..."). The interpreter
// selected at start is python.defaultInterpreterPath.
const vscode = require("vscode");

exports.activate = function activate(context) {
  let selected = vscode.workspace.getConfiguration("python").get("defaultInterpreterPath", "python");
  const changed = new vscode.EventEmitter();
  context.subscriptions.push(changed, vscode.commands.registerCommand("python.setInterpreter", async () => {
    const path = await vscode.window.showInputBox({ prompt: "Enter interpreter path", value: selected });
    if (path) {
      selected = path;
      changed.fire({ id: path, path, resource: undefined });
    }
  }));
  return {
    ready: Promise.resolve(),
    environments: {
      getActiveEnvironmentPath: () => ({ id: selected, path: selected }),
      resolveEnvironment: async (environment) => {
        const path = typeof environment === "string" ? environment : environment.path;
        return { id: path, path, executable: { uri: vscode.Uri.file(path) } };
      },
      onDidChangeActiveEnvironmentPath: changed.event,
    },
  };
};
