// package.json's contributions and the code that serves them must name the same things.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { RESTARTING, SECTION, SENT } from "../src/settings";

const ROOT = path.join(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
const extension = readFileSync(path.join(ROOT, "src", "extension.ts"), "utf8");

test("every setting is either sent to the server, restarts it, or is the client's trace", () => {
  const contributed = Object.keys(manifest.contributes.configuration.properties).sort();
  const handled = [...RESTARTING, ...SENT, "trace.server"].map((key) => `${SECTION}.${key}`).sort();
  assert.deepEqual(contributed, handled);
});

test("every contributed command is registered, and only those", () => {
  const contributed = manifest.contributes.commands.map((command: { command: string }) => command.command).sort();
  const registered = [...extension.matchAll(/registerCommand\("([^"]+)"/g)].map((match) => match[1]).sort();
  assert.deepEqual(registered, contributed);
});

test("it activates on Python files and Jupyter notebooks", () => {
  assert.deepEqual(manifest.activationEvents, ["onLanguage:python", "onNotebook:jupyter-notebook"]);
});

test("dependencies are pinned exactly (the lock file holds the rest)", () => {
  for (const [name, version] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
    assert.match(String(version), /^\d+\.\d+\.\d+$/, name);
  }
});
