// The README documents every top-level configuration key, environment variable and command,
// docs/configuration.md every rule key, and docs/metrics.md every metric the sidecar declares,
// so that the documentation stays true as the code grows; no link in them leads nowhere.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ENV_OVERRIDES, loadConfig } from "../../src/config/load.js";
import { configSchema, IGNORED_KEYS } from "../../src/config/schema.js";
import { builtInRuleSchema } from "../../src/patterns/registry.js";
import { COMMANDS } from "../../src/cli/args.js";
import { declaredMetricNames, METRIC_PREFIX } from "./declared-metrics.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const metricsPage = readFileSync(join(ROOT, "docs/metrics.md"), "utf8");

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  assert.notEqual(start, -1, `README.md has a ## ${title} section`);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

function undocumented(names: readonly string[], text: string): string[] {
  return names.filter((name) => !text.includes(`\`${name}\``));
}

/** The first cell of every row of the Markdown tables in `text`. */
function firstCells(text: string): string[] {
  return [...text.matchAll(/^\| ([^|]*?) +\|/gm)].map((row) => row[1]!);
}

void test("docs/metrics.md's table lists every metric src/ops/metrics.ts declares, one row each", () => {
  const names = declaredMetricNames().map((name) => name.slice(METRIC_PREFIX.length));
  const rows = firstCells(metricsPage);
  assert.deepEqual(
    names.filter((name) => !rows.includes(`\`${name}\``)),
    [],
  );
});

void test("the README's configuration table lists every top-level key that does something, and every environment variable", () => {
  const http = configSchema.shape.http.unwrap();
  const keys = [
    ...Object.keys(configSchema.shape).filter((key) => key !== "http" && !(key in IGNORED_KEYS)),
    ...Object.keys(http.shape).map((key) => `http.${key}`),
    ...ENV_OVERRIDES.map((override) => override.variable),
  ];
  assert.deepEqual(undocumented(keys, section("Configuration")), []);
});

void test("docs/configuration.md's table lists every key of every pattern's rules", () => {
  const page = readFileSync(join(ROOT, "docs/configuration.md"), "utf8");
  const keys = builtInRuleSchema.options.flatMap((rule) => Object.keys(rule.shape));
  assert.deepEqual(undocumented([...new Set(keys)], page), []);
});

void test("the README's command table lists every command", () => {
  const documented = COMMANDS.filter((command) => section("Commands").includes(`| \`${command}`));
  assert.deepEqual(documented, [...COMMANDS]);
});

/** Relative link targets of a Markdown file, without their #anchors. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((link) => link[1]!.split("#")[0]!)
    .filter((target) => target !== "" && !/^[a-z]+:/i.test(target));
}

void test("every relative link in README.md and docs/ leads to a file of the repository", () => {
  const pages = ["README.md", ...readdirSync(join(ROOT, "docs")).map((name) => `docs/${name}`)];
  const broken = pages.flatMap((page) => {
    const text = readFileSync(join(ROOT, page), "utf8");
    return relativeLinks(text)
      .map((target) => join(dirname(join(ROOT, page)), target))
      .filter((target) => !existsSync(target) || relative(ROOT, target).startsWith(".."))
      .map((target) => `${page} -> ${relative(ROOT, target)}`);
  });
  assert.ok(relativeLinks(readme).length >= 5);
  assert.deepEqual(broken, []);
});

void test("the configuration docs/deployment.md's docker run mounts is in the repository and loads", () => {
  const deployment = readFileSync(join(ROOT, "docs/deployment.md"), "utf8");
  const mounted = /-v "\$PWD\/([^:"]+):\/etc\/pattern-sidecar\/config\.yaml/.exec(deployment)?.[1];
  assert.ok(mounted, "docs/deployment.md mounts a file of the repository as config.yaml");
  const config = loadConfig({ file: join(ROOT, mounted), env: {} });
  assert.deepEqual(
    config.rules.map((rule) => rule.pattern),
    ["outlier", "bucket", "subset"],
  );
});
