import assert from "node:assert/strict";
import { test } from "node:test";
import { serverPayload } from "../src/settings";

const reader = (values: Record<string, unknown>) => (key: string) => values[key];

test("only the server's keys are sent, under its section", () => {
  const payload = serverPayload(reader({
    enable: true, path: "/x", "trace.server": "verbose", select: ["TCP001"], ignore: ["TCP9"], unsafeFixes: true,
  }));
  assert.deepEqual(payload, { "flake8-tensorcopy": { select: ["TCP001"], ignore: ["TCP9"], unsafeFixes: true } });
});

test("defaults: nothing selected or ignored, no unsafe fixes", () => {
  assert.deepEqual(serverPayload(reader({})), { "flake8-tensorcopy": { select: [], ignore: [], unsafeFixes: false } });
});

test("a comma-separated string of codes is split as the CLI splits it", () => {
  assert.deepEqual(serverPayload(reader({ ignore: "TCP005, TCP009" }))["flake8-tensorcopy"].ignore, ["TCP005", "TCP009"]);
});

test("a value of the wrong type reaches the server, which names it in its error", () => {
  assert.deepEqual(serverPayload(reader({ select: [1] }))["flake8-tensorcopy"].select, [1]);
  assert.equal(serverPayload(reader({ unsafeFixes: "yes" }))["flake8-tensorcopy"].unsafeFixes, "yes");
});
