// The alerting rules that ship (deploy/prometheus/alerts.yaml, and k8s/prometheusrule.yaml
// for the Prometheus Operator): Prometheus's own tools parse them and run their unit tests,
// they query only metrics the sidecar exposes, and each alert has a runbook in docs/alerting.md.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { IPrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule";
import { parse as parseYaml } from "yaml";
import { createMetrics } from "../../src/ops/metrics.js";
import { loadManifests, manifestsOfKind } from "./manifests.js";
import { promtool, skipWithout } from "./prometheus-tools.js";

interface AlertRule {
  alert: string;
  expr: string;
  annotations?: Record<string, string>;
}

interface AlertTest {
  alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[];
}

const RULES_FILE = fileURLToPath(new URL("../../deploy/prometheus/alerts.yaml", import.meta.url));
const RULE_TESTS_FILE = fileURLToPath(new URL("../../deploy/prometheus/alerts.test.yaml", import.meta.url));
const rulesFile = parseYaml(readFileSync(RULES_FILE, "utf8")) as { groups: { rules: AlertRule[] }[] };
const alerts = rulesFile.groups.flatMap((group) => group.rules);
const alertingDoc = readFileSync(new URL("../../docs/alerting.md", import.meta.url), "utf8");
const METRIC_NAME = /\bpattern_sidecar_[a-z0-9_]+/g;

/** The anchor GitHub gives a Markdown heading. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, "")
    .replace(/ /g, "-");
}

/** Where the repository is published, as the image's OCI source label says. */
function repositoryUrl(): string {
  const dockerfile = readFileSync(new URL("../../Dockerfile", import.meta.url), "utf8");
  const source = /org\.opencontainers\.image\.source="([^"]+)"/.exec(dockerfile);
  assert.ok(source, "the Dockerfile labels the image with its source repository");
  return source[1]!;
}

void test(
  "promtool check rules accepts deploy/prometheus/alerts.yaml",
  { skip: skipWithout("promtool") },
  () => {
    const checked = promtool(["check", "rules", RULES_FILE]);
    assert.equal(checked.status, 0, checked.output);
    assert.match(checked.output, new RegExp(`SUCCESS: ${alerts.length} rules found`));
  },
);

void test(
  "promtool test rules passes the alerts' unit tests (alerts.test.yaml)",
  { skip: skipWithout("promtool") },
  () => {
    const tested = promtool(["test", "rules", RULE_TESTS_FILE]);
    assert.equal(tested.status, 0, tested.output);
    assert.match(tested.output, /SUCCESS/);
  },
);

void test("every alert has a unit test where it fires and one where it does not", () => {
  const cases = (parseYaml(readFileSync(RULE_TESTS_FILE, "utf8")) as { tests: AlertTest[] }).tests.flatMap(
    (group) => group.alert_rule_test ?? [],
  );
  assert.ok(alerts.length >= 7);
  for (const { alert } of alerts) {
    const ofAlert = cases.filter((c) => c.alertname === alert);
    assert.ok(
      ofAlert.some((c) => c.exp_alerts.length > 0),
      `${alert}: no case where it fires`,
    );
    assert.ok(
      ofAlert.some((c) => c.exp_alerts.length === 0),
      `${alert}: no case where it stays silent`,
    );
  }
});

void test("the PrometheusRule in k8s/ holds exactly the groups of deploy/prometheus/alerts.yaml", () => {
  const [prometheusRule, ...others] = manifestsOfKind<IPrometheusRule>(loadManifests(), "PrometheusRule");
  assert.equal(others.length, 0);
  assert.deepEqual(prometheusRule?.spec.groups, rulesFile.groups);
});

void test("the alerts query only metrics src/ops/metrics.ts declares", async () => {
  const exposed = new Set<string>();
  for (const family of await createMetrics().registry.getMetricsAsJSON()) {
    exposed.add(family.name);
    if (String(family.type) === "histogram") {
      for (const suffix of ["_bucket", "_sum", "_count"]) exposed.add(`${family.name}${suffix}`);
    }
  }
  const queried = alerts.flatMap((rule) => rule.expr.match(METRIC_NAME) ?? []);
  assert.ok(queried.length >= alerts.length);
  assert.deepEqual(
    queried.filter((name) => !exposed.has(name)),
    [],
  );
});

void test("every alert has a summary, a description and a runbook_url to its section of docs/alerting.md", () => {
  const anchors = new Set(
    [...alertingDoc.matchAll(/^#{2,4} (.+)$/gm)].map((heading) => headingAnchor(heading[1]!)),
  );
  const runbookPage = `${repositoryUrl()}/blob/main/docs/alerting.md#`;
  for (const { alert, annotations } of alerts) {
    assert.ok(annotations?.summary, `${alert}: no summary`);
    assert.ok(annotations.description, `${alert}: no description`);
    const url = annotations.runbook_url ?? "";
    assert.ok(url.startsWith(runbookPage), `${alert}: runbook_url ${url} is not on ${runbookPage}`);
    const anchor = url.slice(runbookPage.length);
    assert.equal(anchor, headingAnchor(alert), `${alert}: runbook_url names another section`);
    assert.ok(anchors.has(anchor), `${alert}: docs/alerting.md has no heading ${alert}`);
  }
});
