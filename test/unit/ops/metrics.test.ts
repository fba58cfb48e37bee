import { test } from "node:test";
import assert from "node:assert/strict";
import { configSchema, type Config } from "../../../src/config/schema.js";
import { ERROR_KINDS } from "../../../src/errors.js";
import { createMetrics, initialiseRuleMetrics } from "../../../src/ops/metrics.js";

function defaultRules(): Config["rules"] {
  return (configSchema.parse({ database: "shop" }) as Config).rules;
}

void test("every error kind has its errors_total series at 0 before the first error", async () => {
  const { values } = await createMetrics().errors.get();
  assert.deepEqual(
    values.map((sample) => [sample.labels.kind, sample.value]).sort(),
    [...ERROR_KINDS].map((kind) => [kind, 0]).sort(),
  );
});

void test("once the rules are known, each rule's corrections and skips have series at 0, under its source collection", async () => {
  const metrics = createMetrics();
  initialiseRuleMetrics(metrics, defaultRules());
  const { values } = await metrics.corrections.get();
  const series = values.map(({ labels }) => `${labels.collection} ${labels.kind}`).sort();
  assert.deepEqual(series, [
    "products copied",
    "products deleted",
    "products repaired",
    "products skipped_bad_document",
    "products skipped_no_pre_image",
    "products trimmed",
    "sales moved",
    "sales skipped_bad_document",
    "sales split",
    "trades folded",
    "trades repaired",
    "trades skipped_bad_document",
    "trades split",
  ]);
  assert.ok(values.every((sample) => sample.value === 0));
});

void test("once the rules are known, every per-rule counter and histogram has one series per rule at 0", async () => {
  const metrics = createMetrics();
  initialiseRuleMetrics(metrics, defaultRules());
  const perRule = [
    metrics.eventsReceived,
    metrics.eventsActedOn,
    metrics.elementsMoved,
    metrics.transactionRetries,
    metrics.sweepDocumentsScanned,
  ];
  for (const counter of perRule) {
    const { name, values } = await counter.get();
    assert.deepEqual(
      values.map(({ labels, value }) => `${labels.rule} ${labels.collection} ${value}`).sort(),
      ["products.reviews products 0", "sales.customers_purchased sales 0", "trades.history trades 0"],
      name,
    );
  }
  for (const histogram of [metrics.correctionDuration, metrics.sweepDuration]) {
    const counts = (await histogram.get()).values.filter((sample) => sample.metricName?.endsWith("_count"));
    assert.deepEqual(counts.map(({ labels, value }) => `${labels.collection} ${value}`).sort(), [
      "products 0",
      "sales 0",
      "trades 0",
    ]);
  }
});

void test("prom-client's process and Node.js metrics keep their standard, unprefixed names", async () => {
  const names = (await createMetrics().registry.getMetricsAsJSON()).map((family) => family.name);
  assert.ok(names.includes("process_cpu_seconds_total"));
  assert.ok(names.includes("nodejs_eventloop_lag_p99_seconds"));
  assert.deepEqual(
    names.filter(
      (name) => name.startsWith("pattern_sidecar_process_") || name.startsWith("pattern_sidecar_nodejs_"),
    ),
    [],
  );
});

/** A probe's partition readings for a replica that owns none and cannot tell about the others. */
const noPartitions = {
  unownedPartitions: () => undefined,
  partitionLagSeconds: () => new Map<number, number>(),
};

void test("stream lag and resume token age are read from the runner when scraped", async () => {
  const metrics = createMetrics();
  let age: number | undefined = 12;
  metrics.readStreamPositionFrom({
    ...noPartitions,
    streamLagSeconds: () => 0,
    resumeTokenAgeSeconds: () => age,
  });
  assert.deepEqual(
    (await metrics.resumeTokenAge.get()).values.map((sample) => sample.value),
    [12],
  );
  age = 13;
  assert.deepEqual(
    (await metrics.resumeTokenAge.get()).values.map((sample) => sample.value),
    [13],
  );
  assert.deepEqual(
    (await metrics.streamLag.get()).values.map((sample) => sample.value),
    [0],
  );
});

void test("a gauge the runner has no reading for is exposed without a value, not a stale one", async () => {
  const metrics = createMetrics();
  let age: number | undefined = 12;
  metrics.readStreamPositionFrom({
    ...noPartitions,
    streamLagSeconds: () => undefined,
    resumeTokenAgeSeconds: () => age,
  });
  await metrics.registry.metrics();
  age = undefined;
  const exposition = await metrics.registry.metrics();
  assert.match(exposition, /^# TYPE pattern_sidecar_resume_token_age_seconds gauge$/m);
  assert.doesNotMatch(exposition, /^pattern_sidecar_resume_token_age_seconds /m);
  assert.doesNotMatch(exposition, /^pattern_sidecar_stream_lag_seconds /m);
});

void test("partitions owned and unowned, and a lag per owned partition, are read when scraped", async () => {
  const metrics = createMetrics();
  let lags = new Map<number, number | undefined>([
    [0, 1.5],
    [3, 1.5],
    [7, undefined],
  ]);
  let unowned: number | undefined = 0;
  metrics.readStreamPositionFrom({
    streamLagSeconds: () => 1.5,
    resumeTokenAgeSeconds: () => undefined,
    unownedPartitions: () => unowned,
    partitionLagSeconds: () => lags,
  });
  let exposition = await metrics.registry.metrics();
  assert.match(exposition, /^pattern_sidecar_partitions_owned 3$/m);
  assert.match(exposition, /^pattern_sidecar_partitions_unowned 0$/m);
  assert.match(exposition, /^pattern_sidecar_partition_lag_seconds\{partition="0"\} 1.5$/m);
  assert.match(exposition, /^pattern_sidecar_partition_lag_seconds\{partition="3"\} 1.5$/m);
  assert.doesNotMatch(exposition, /partition="7"/, "no lag yet, no series");
  lags = new Map();
  unowned = undefined;
  exposition = await metrics.registry.metrics();
  assert.match(exposition, /^pattern_sidecar_partitions_owned 0$/m);
  assert.doesNotMatch(exposition, /^pattern_sidecar_partitions_unowned /m);
  assert.doesNotMatch(
    exposition,
    /^pattern_sidecar_partition_lag_seconds\{/m,
    "a partition given up loses its series",
  );
});
