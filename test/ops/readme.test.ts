// The README documents every metric the sidecar declares and every configuration key and
// environment variable it reads, so that the front door stays true as the code grows.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ENV_OVERRIDES } from "../../src/config/load.js";
import { configSchema } from "../../src/config/schema.js";
import { builtInRuleSchema } from "../../src/patterns/registry.js";
import { COMMANDS } from "../../src/cli/args.js";
import { declaredMetricNames, METRIC_PREFIX } from "./declared-metrics.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  assert.notEqual(start, -1, `README.md has a ## ${title} section`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

function undocumented(names: readonly string[], text: string): string[] {
  return names.filter((name) => !text.includes(`\`${name}\``));
}

void test("the README's metrics table lists every metric src/metrics.ts declares", () => {
  const names = declaredMetricNames().map((name) => name.slice(METRIC_PREFIX.length));
  assert.deepEqual(undocumented(names, section("Operations")), []);
});

void test("the README's configuration tables list every key and environment variable", () => {
  const http = configSchema.shape.http.unwrap();
  const keys = [
    ...Object.keys(configSchema.shape).filter((key) => key !== "http"),
    ...Object.keys(http.shape).map((key) => `http.${key}`),
    ...builtInRuleSchema.options.flatMap((rule) => Object.keys(rule.shape)),
    ...ENV_OVERRIDES.map((override) => override.variable),
  ];
  assert.deepEqual(undocumented([...new Set(keys)], section("Configuration")), []);
});

void test("the README's command table lists every command", () => {
  const documented = COMMANDS.filter((command) => section("Commands").includes(`| \`${command}`));
  assert.deepEqual(documented, [...COMMANDS]);
});
