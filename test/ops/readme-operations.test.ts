// The README's Operations section documents every metric the sidecar declares.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { declaredMetricNames, METRIC_PREFIX } from "./declared-metrics.js";

function operationsSection(): string {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const start = readme.indexOf("\n## Operations\n");
  assert.notEqual(start, -1, "README.md has a ## Operations section");
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

void test("the README's metrics table lists every metric src/metrics.ts declares", () => {
  const section = operationsSection();
  const missing = declaredMetricNames().filter(
    (name) => !section.includes(`\`${name.slice(METRIC_PREFIX.length)}\``),
  );
  assert.deepEqual(missing, []);
});
