import assert from "node:assert/strict";
import { test } from "node:test";
import { findOnPath, Probes, resolveServer, shellQuote } from "../src/serverCommand";

/** Probes over a made-up machine: the executable files, and the interpreters that have the server. */
function machine(executables: string[], withServer: string[] = []): Probes & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isExecutable: async (file) => {
      asked.push(file);
      return executables.includes(file);
    },
    hasServer: async (python) => withServer.includes(python),
  };
}

const ENV = { PATH: "/home/me/.local/bin:/usr/bin" };

test("the path setting wins over the interpreter and PATH", async () => {
  const probes = machine(["/opt/tc/bin/flake8-tensorcopy", "/usr/bin/flake8-tensorcopy"], ["/venv/bin/python"]);
  const result = await resolveServer(" /opt/tc/bin/flake8-tensorcopy ", "/venv/bin/python", ENV, "linux", probes);
  assert.deepEqual(result, {
    found: { command: "/opt/tc/bin/flake8-tensorcopy", args: ["server"], origin: "the flake8-tensorcopy.path setting" },
  });
});

test("a path setting that is not executable is said, not skipped", async () => {
  const result = await resolveServer("/nope/flake8-tensorcopy", "/venv/bin/python", ENV, "linux", machine([], ["/venv/bin/python"]));
  assert.ok("missing" in result);
  assert.match(result.missing.message, /flake8-tensorcopy\.path setting names \/nope\/flake8-tensorcopy, which is not an executable file/);
  assert.equal(result.missing.install, undefined);
});

test("the selected interpreter runs the module when it has the server", async () => {
  const probes = machine(["/usr/bin/flake8-tensorcopy"], ["/venv/bin/python"]);
  const result = await resolveServer("", "/venv/bin/python", ENV, "linux", probes);
  assert.ok("found" in result);
  assert.deepEqual(result.found.command, "/venv/bin/python");
  assert.deepEqual(result.found.args, ["-m", "flake8_tensorcopy", "server"]);
  assert.deepEqual(probes.asked, [], "PATH is not searched once the interpreter has the server");
});

test("PATH is the last resort, searched in order", async () => {
  const probes = machine(["/home/me/.local/bin/flake8-tensorcopy", "/usr/bin/flake8-tensorcopy"]);
  const result = await resolveServer("", "/venv/bin/python", ENV, "linux", probes);
  assert.deepEqual(result, { found: { command: "/home/me/.local/bin/flake8-tensorcopy", args: ["server"], origin: "PATH" } });
});

test("nothing found: one message with the pip command for the selected interpreter", async () => {
  const result = await resolveServer("", "/home/me/my env/bin/python", ENV, "linux", machine([]));
  assert.ok("missing" in result);
  assert.equal(result.missing.install, `"/home/me/my env/bin/python" -m pip install 'flake8-tensorcopy[server]'`);
  assert.equal(
    result.missing.message,
    "flake8-tensorcopy: the language server was not found (it is not installed for the selected interpreter " +
      `/home/me/my env/bin/python nor on PATH). Install it with: "/home/me/my env/bin/python" -m pip install 'flake8-tensorcopy[server]'`,
  );
});

test("nothing found and no interpreter selected: python3's pip command", async () => {
  const result = await resolveServer("", undefined, {}, "linux", machine([]));
  assert.ok("missing" in result);
  assert.equal(result.missing.install, "python3 -m pip install 'flake8-tensorcopy[server]'");
  assert.match(result.missing.message, /no Python interpreter is selected and it is not on PATH/);
});

test("Windows: PATH entries with PATHEXT's extensions", async () => {
  const probes = machine(["C:\\Py\\Scripts\\flake8-tensorcopy.EXE"]);
  const env = { PATH: "C:\\Windows;;C:\\Py\\Scripts", PATHEXT: ".COM;.EXE" };
  assert.equal(await findOnPath("flake8-tensorcopy", env, "win32", probes), "C:\\Py\\Scripts\\flake8-tensorcopy.EXE");
  assert.deepEqual(probes.asked, [
    "C:\\Windows\\flake8-tensorcopy.COM", "C:\\Windows\\flake8-tensorcopy.EXE",
    "C:\\Py\\Scripts\\flake8-tensorcopy.COM", "C:\\Py\\Scripts\\flake8-tensorcopy.EXE",
  ], "the empty entry (the current folder) is skipped");
});

test("shell words are quoted only when needed", () => {
  assert.equal(shellQuote("/usr/bin/python3"), "/usr/bin/python3");
  assert.equal(shellQuote("C:\\Program Files\\Python\\python.exe"), '"C:\\\\Program Files\\\\Python\\\\python.exe"');
  assert.equal(shellQuote('/a "b"/$x'), '"/a \\"b\\"/\\$x"');
});
