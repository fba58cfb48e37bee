// Metrics filled the way a running sidecar fills them: three rules, corrections of every
// kind, observed latencies, a finished sweep, errors, lag. Exposition problems (bad
// names, duplicate series, histogram shape) only show once series exist.
import { ERROR_KINDS } from "../../src/errors.js";
import { createMetrics, setRunnerState, type Metrics } from "../../src/ops/metrics.js";

const RULES = [
  { rule: "outlier-sales", collection: "sales", kind: "moved" },
  { rule: "bucket-trades", collection: "trades", kind: "split" },
  { rule: "subset-products", collection: "products", kind: "trimmed" },
] as const;

export function createRealisticMetrics(): Metrics {
  const metrics = createMetrics();
  for (const { rule, collection, kind } of RULES) {
    const labels = { rule, collection };
    metrics.eventsReceived.inc(labels, 1200);
    metrics.eventsActedOn.inc(labels, 40);
    metrics.corrections.inc({ ...labels, kind }, 38);
    metrics.corrections.inc({ ...labels, kind: "skipped_bad_document" }, 2);
    metrics.elementsMoved.inc(labels, 950);
    for (const seconds of [0.004, 0.012, 0.03, 0.2, 1.7]) metrics.correctionDuration.observe(labels, seconds);
    metrics.transactionRetries.inc(labels, 3);
    metrics.sweepDocumentsScanned.inc(labels, 10_000);
    metrics.sweepProgress.set(labels, 1);
    metrics.sweepDuration.observe(labels, 42);
  }
  metrics.corrections.inc({ rule: "bucket-trades", collection: "trades", kind: "repaired" }, 5);
  metrics.corrections.inc({ rule: "subset-products", collection: "products", kind: "copied" }, 7);
  for (const kind of ERROR_KINDS) metrics.errors.inc({ kind }, kind === "transient" ? 4 : 1);
  metrics.streamLag.set(0.35);
  metrics.resumeTokenAge.set(1.2);
  metrics.isLeader.set(1);
  setRunnerState(metrics, "streaming");
  return metrics;
}
