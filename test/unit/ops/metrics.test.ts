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

void test("once the rules are known, each rule's corrections and skips have series at 0", async () => {
  const metrics = createMetrics();
  initialiseRuleMetrics(metrics, defaultRules());
  const { values } = await metrics.corrections.get();
  const series = values.map(({ labels }) => `${labels.collection} ${labels.kind}`).sort();
  assert.deepEqual(series, [
    "extra_sales skipped_bad_document",
    "extra_sales split",
    "products copied",
    "products repaired",
    "products skipped_bad_document",
    "products trimmed",
    "sales moved",
    "sales skipped_bad_document",
    "trades folded",
    "trades repaired",
    "trades skipped_bad_document",
    "trades split",
  ]);
  assert.ok(values.every((sample) => sample.value === 0));
});

void test("stream lag and resume token age are read from the runner when scraped", async () => {
  const metrics = createMetrics();
  let age: number | undefined = 12;
  metrics.readStreamPositionFrom({ streamLagSeconds: () => 0, resumeTokenAgeSeconds: () => age });
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
  metrics.readStreamPositionFrom({ streamLagSeconds: () => undefined, resumeTokenAgeSeconds: () => age });
  await metrics.registry.metrics();
  age = undefined;
  const exposition = await metrics.registry.metrics();
  assert.match(exposition, /^# TYPE pattern_sidecar_resume_token_age_seconds gauge$/m);
  assert.doesNotMatch(exposition, /^pattern_sidecar_resume_token_age_seconds /m);
  assert.doesNotMatch(exposition, /^pattern_sidecar_stream_lag_seconds /m);
});
