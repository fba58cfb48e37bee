// The Grafana dashboard queries metrics that exist, shows every metric the sidecar declares,
// its per-rule series exist before the first event, and its PromQL parses with Prometheus's
// own parser (promtool check rules).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { stringify } from "yaml";
import { configSchema, type Config } from "../../src/config/schema.js";
import { createMetrics, initialiseRuleMetrics } from "../../src/ops/metrics.js";
import { declaredMetricNames } from "./declared-metrics.js";
import { promtool, skipWithout } from "./prometheus-tools.js";

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}

const dashboardText = readFileSync(new URL("../../dashboards/pattern-sidecar.json", import.meta.url), "utf8");
const dashboard = JSON.parse(dashboardText) as { uid: string; panels: Panel[] };
const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
// The sidecar's own metrics, and prom-client's process and Node.js ones (standard names).
const METRIC_NAME = /\b(?:pattern_sidecar|process|nodejs)_[a-z0-9_]+/g;
const queried = new Set(expressions.flatMap((expr) => expr.match(METRIC_NAME) ?? []));

/** Series names a metric is exposed under: histograms add _bucket, _sum and _count. */
async function exposedSeriesNames(): Promise<Map<string, string>> {
  const families = await createMetrics().registry.getMetricsAsJSON();
  const names = new Map<string, string>();
  for (const family of families) {
    names.set(family.name, family.name);
    if (String(family.type) === "histogram") {
      for (const suffix of ["_bucket", "_sum", "_count"]) names.set(`${family.name}${suffix}`, family.name);
    }
  }
  return names;
}

/**
 * Panels whose metric has no series on a quiet system by design: only a streaming leader
 * has a lag and a token age, and only an owned partition being streamed a lag.
 */
const EMPTY_UNTIL_USED = new Set([
  "pattern_sidecar_stream_lag_seconds",
  "pattern_sidecar_resume_token_age_seconds",
  "pattern_sidecar_partition_lag_seconds",
]);

/** Dashboard variables replaced by values Prometheus itself would accept. */
function asPlainPromql(expr: string): string {
  return expr.replaceAll("$__rate_interval", "5m").replaceAll("$pod", ".*");
}

void test("every metric a panel queries is one the sidecar exposes", async () => {
  const exposed = await exposedSeriesNames();
  assert.deepEqual(
    [...queried].filter((name) => !exposed.has(name)),
    [],
  );
});

void test("every metric declared in src/ops/metrics.ts is shown on the dashboard", async () => {
  const exposed = await exposedSeriesNames();
  const shown = new Set([...queried].map((name) => exposed.get(name)));
  const declared = declaredMetricNames();
  assert.ok(declared.length >= 14);
  assert.deepEqual(
    declared.filter((name) => !shown.has(name)),
    [],
  );
});

void test("every series a panel queries exists at start, before any event, once the rules are known", async () => {
  const metrics = createMetrics();
  initialiseRuleMetrics(metrics, (configSchema.parse({}) as Config).rules);
  const exposed = await exposedSeriesNames();
  const families = await metrics.registry.getMetricsAsJSON();
  const withValues = new Set(
    families.filter((family) => family.values.length > 0).map((family) => family.name),
  );
  const empty = [...queried].filter(
    (name) => !withValues.has(exposed.get(name)!) && !EMPTY_UNTIL_USED.has(name),
  );
  assert.deepEqual(empty, []);
});

void test(
  "every panel expression parses as PromQL (promtool check rules)",
  { skip: skipWithout("promtool") },
  () => {
    const dir = mkdtempSync(join(tmpdir(), "pattern-sidecar-dashboard-"));
    try {
      const rules = expressions.map((expr, index) => ({
        record: `dashboard:panel_${index}`,
        expr: asPlainPromql(expr),
      }));
      const file = join(dir, "rules.yml");
      writeFileSync(file, stringify({ groups: [{ name: dashboard.uid, rules }] }));
      const checked = promtool(["check", "rules", file]);
      assert.equal(checked.status, 0, checked.output);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

void test("every query reads from the dashboard's own data source variable, so the import asks for no inputs", () => {
  const dataSourceUids = [...dashboardText.matchAll(/"datasource":\s*\{[^}]*"uid":\s*"([^"]*)"/g)].map(
    (match) => match[1],
  );
  assert.ok(dataSourceUids.length > expressions.length);
  assert.deepEqual(new Set(dataSourceUids), new Set(["${datasource}"]));
  assert.equal("__inputs" in dashboard, false);
});
