// Every metric the sidecar exposes, declared once, on a registry the app owns (not the
// global default). Labels come from small closed sets: rule names and collection names
// from the configuration, never document keys. prom-client's process and Node.js metrics
// keep their standard names (no prefix), so that generic Node.js dashboards work.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { ERROR_KINDS } from "../errors.js";
import type { PatternRule } from "../patterns/driver.js";
import type { CorrectionKind, SkipKind } from "../patterns/plan.js";
import { driverOf } from "../patterns/registry.js";

const PREFIX = "pattern_sidecar_";

/** Where the runner is; exported as a one-hot gauge so that alerts can match one state. */
export const RUNNER_STATES = ["starting", "sweeping", "streaming", "resuming", "standby", "stopped"] as const;
export type RunnerState = (typeof RUNNER_STATES)[number];

/**
 * What the scrape-time gauges read, from the runner that owns the stream. A reading of
 * undefined leaves the gauge without a value (no series) rather than a stale number.
 */
export interface StreamPositionProbe {
  streamLagSeconds(): number | undefined;
  resumeTokenAgeSeconds(): number | undefined;
  /** How many partitions no live replica owns, as this replica sees it; undefined while it cannot tell. */
  unownedPartitions(): number | undefined;
  /** The partitions this replica owns, each with its stream's lag (undefined: none yet). */
  partitionLagSeconds(): ReadonlyMap<number, number | undefined>;
}

type Reading = "streamLagSeconds" | "resumeTokenAgeSeconds" | "unownedPartitions";

/** How a requested sweep ends (src/stream/sweep/sweep-requests.ts). */
export const SWEEP_REQUEST_OUTCOMES = ["done", "failed"] as const;
/** The sweeps kept per partition (src/stream/sweep/partition-sweeps.ts). */
export const PARTITION_SWEEPS = ["shared", "requested"] as const;
export type PartitionSweepKind = (typeof PARTITION_SWEEPS)[number];

const DEFAULT_GAUGES_NAMED_LIKE_COUNTERS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

/**
 * How often, in ms, prom-client samples the event loop's delay (`nodejs_eventloop_lag_*`). Its
 * default, 10, woke even an idle sidecar 100 times a second, and a small VM charges each
 * wake-up 0.15 to 0.45 ms of CPU (docs/benchmarks.md, `replicas`): 2 to 4% of a core at rest,
 * and most of what each replica added while draining. Sampled every 100 ms, a stall of 100 ms
 * or more still shows in every percentile; a shorter one as often as a sample falls in it.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  // prom-client's default set includes gauges named `*_total`, which `promtool check metrics`
  // rejects (a `_total` suffix means a counter); their per-type gauges without the suffix
  // stay, and `sum without (type)` over those gives the same totals.
  for (const name of DEFAULT_GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  const ruleLabels = ["rule", "collection"] as const;
  let probe: StreamPositionProbe | undefined;
  // Until a runner attaches its probe, the gauge keeps what was set on it.
  const readAtScrape = (reading: Reading) =>
    function collect(this: Gauge) {
      if (!probe) return;
      const value = probe[reading]();
      if (value === undefined) this.remove();
      else this.set(value);
    };
  const ownedAtScrape = function collect(this: Gauge) {
    if (probe) this.set(probe.partitionLagSeconds().size);
  };
  // A series per owned partition with a lag; a partition given up loses its series.
  const lagsAtScrape = function collect(this: Gauge<"partition">) {
    if (!probe) return;
    this.reset();
    for (const [partition, lag] of probe.partitionLagSeconds())
      if (lag !== undefined) this.set({ partition: String(partition) }, lag);
  };

  const metrics = {
    registry,
    eventsReceived: new Counter({
      name: `${PREFIX}change_events_received_total`,
      help: "Change events received from the server, per rule.",
      labelNames: ruleLabels,
      registers: [registry],
    }),
    eventsActedOn: new Counter({
      name: `${PREFIX}change_events_acted_on_total`,
      help: "Change events that led to a correction, per rule.",
      labelNames: ruleLabels,
      registers: [registry],
    }),
    corrections: new Counter({
      name: `${PREFIX}corrections_total`,
      help: "Corrections committed, per rule and kind (moved, split, trimmed, repaired, copied, folded, deleted, skipped_bad_document, skipped_no_pre_image).",
      labelNames: [...ruleLabels, "kind"],
      registers: [registry],
    }),
    elementsMoved: new Counter({
      name: `${PREFIX}elements_moved_total`,
      help: "Array elements moved out of or between documents, per rule.",
      labelNames: ruleLabels,
      registers: [registry],
    }),
    correctionDuration: new Histogram({
      name: `${PREFIX}correction_duration_seconds`,
      help: "Time to re-read, plan, write and commit one correction.",
      labelNames: ruleLabels,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    transactionRetries: new Counter({
      name: `${PREFIX}transaction_retries_total`,
      help: "Transaction attempts beyond the first (write conflicts, transient errors), per rule.",
      labelNames: ruleLabels,
      registers: [registry],
    }),
    errors: new Counter({
      name: `${PREFIX}errors_total`,
      help: `Errors by kind (${ERROR_KINDS.join(", ")}).`,
      labelNames: ["kind"],
      registers: [registry],
    }),
    streamLag: new Gauge({
      name: `${PREFIX}stream_lag_seconds`,
      help:
        "Now minus the cluster time of the last change event whose corrections committed; 0 while caught up. " +
        "Only the leader has a value, and only while it streams.",
      registers: [registry],
      collect: readAtScrape("streamLagSeconds"),
    }),
    resumeTokenAge: new Gauge({
      name: `${PREFIX}resume_token_age_seconds`,
      help:
        "Now minus the time the stored resume token was last written (by this process, or before it started). " +
        "Only the leader has a value, and only once a token is stored; none during a first sweep.",
      registers: [registry],
      collect: readAtScrape("resumeTokenAgeSeconds"),
    }),
    sweepDocumentsScanned: new Counter({
      name: `${PREFIX}sweep_documents_scanned_total`,
      help: "Documents examined by sweeps, per rule.",
      labelNames: ruleLabels,
      registers: [registry],
    }),
    sweepProgress: new Gauge({
      name: `${PREFIX}sweep_progress_ratio`,
      help: "Fraction of the current sweep done (0 to 1), per rule; 1 when no sweep runs.",
      labelNames: ruleLabels,
      registers: [registry],
    }),
    sweepEta: new Gauge({
      name: `${PREFIX}sweep_eta_seconds`,
      help: "Seconds the current sweep of a rule needs for its remaining candidates at its rate so far; 0 when no sweep runs.",
      labelNames: ruleLabels,
      registers: [registry],
    }),
    sweepDuration: new Histogram({
      name: `${PREFIX}sweep_duration_seconds`,
      help: "Duration of a completed sweep of one rule's collection.",
      labelNames: ruleLabels,
      buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers: [registry],
    }),
    sweepRequests: new Counter({
      name: `${PREFIX}sweep_requests_total`,
      help: "Requested sweeps (sweep --request) this replica finished, by outcome (done, failed).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    sweepRequestsOpen: new Gauge({
      name: `${PREFIX}sweep_requests_open`,
      help: "Requested sweeps waiting or being performed, as this replica last looked; 0 while it holds no partition.",
      registers: [registry],
    }),
    sweepPartitionsPending: new Gauge({
      name: `${PREFIX}sweep_partitions_pending`,
      help:
        "Partitions this replica is sweeping whose sweep has not finished, by sweep: shared (a first start " +
        "or lost history) or requested; 0 when it sweeps none.",
      labelNames: ["sweep"],
      registers: [registry],
    }),
    runnerState: new Gauge({
      name: `${PREFIX}runner_state`,
      help: "1 for the state the runner is in (starting, sweeping, streaming, resuming, standby, stopped), 0 for the others.",
      labelNames: ["state"],
      registers: [registry],
    }),
    parked: new Gauge({
      name: `${PREFIX}parked`,
      help: "Documents whose corrections kept failing, parked in the state collection and retried with backoff.",
      registers: [registry],
    }),
    correctionMemory: new Gauge({
      name: `${PREFIX}correction_memory_bytes`,
      help: "BSON bytes of the documents that corrections hold decoded now, out of correctionMemoryMiB.",
      registers: [registry],
    }),
    correctionMemoryWaits: new Counter({
      name: `${PREFIX}correction_memory_waits_total`,
      help: "Corrections that waited before decoding a document because others held the memory budget.",
      registers: [registry],
    }),
    partitionsOwned: new Gauge({
      name: `${PREFIX}partitions_owned`,
      help: "Partitions this replica owns and corrects (the leader: those it holds, all once it corrects; a standby: none).",
      registers: [registry],
      collect: ownedAtScrape,
    }),
    partitionsUnowned: new Gauge({
      name: `${PREFIX}partitions_unowned`,
      help:
        "Partitions no live replica owns, as this replica sees it: 0 while it leads or finds the lease held, " +
        "all of them when it finds no leader. No value while starting.",
      registers: [registry],
      collect: readAtScrape("unownedPartitions"),
    }),
    partitionLag: new Gauge({
      name: `${PREFIX}partition_lag_seconds`,
      help: "stream_lag_seconds of the stream that reads each partition this replica owns.",
      labelNames: ["partition"],
      registers: [registry],
      collect: lagsAtScrape,
    }),
    isLeader: new Gauge({
      name: `${PREFIX}leader`,
      help: "1 while this replica holds the writer lease, else 0.",
      registers: [registry],
    }),
    /** Makes the scrape-time gauges read from `source` (the runner calls it once). */
    readStreamPositionFrom(source: StreamPositionProbe): void {
      probe = source;
    },
  };
  setRunnerState(metrics, "starting");
  // Alerts on a counter's increase need its series before the first increment.
  for (const kind of ERROR_KINDS) metrics.errors.inc({ kind }, 0);
  for (const outcome of SWEEP_REQUEST_OUTCOMES) metrics.sweepRequests.inc({ outcome }, 0);
  for (const sweep of PARTITION_SWEEPS) metrics.sweepPartitionsPending.set({ sweep }, 0);
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

type CountedCorrection = CorrectionKind | SkipKind;

export function setRunnerState(metrics: Pick<Metrics, "runnerState">, state: RunnerState): void {
  for (const candidate of RUNNER_STATES)
    metrics.runnerState.set({ state: candidate }, candidate === state ? 1 : 0);
}

/**
 * Creates every rule's per-rule series at 0, so that dashboards and alerts see them before
 * the first event. They are labelled with the rule's source collection, whichever
 * collection a correction starts from (an outlier's overflow chunk, say).
 */
export function initialiseRuleMetrics(metrics: Metrics, rules: readonly PatternRule[]): void {
  for (const rule of rules) {
    const labels = { rule: rule.name, collection: rule.collection };
    const kinds = new Set<CountedCorrection>(["skipped_bad_document"]);
    for (const series of driverOf(rule).correctionSeries(rule))
      for (const kind of series.kinds) kinds.add(kind);
    for (const kind of kinds) metrics.corrections.inc({ ...labels, kind }, 0);
    for (const counter of [
      metrics.eventsReceived,
      metrics.eventsActedOn,
      metrics.elementsMoved,
      metrics.transactionRetries,
      metrics.sweepDocumentsScanned,
    ])
      counter.inc(labels, 0);
    // "No sweep running" reads 1 done and no time left, so that panels have a series.
    metrics.sweepProgress.set(labels, 1);
    metrics.sweepEta.set(labels, 0);
    metrics.correctionDuration.zero(labels);
    metrics.sweepDuration.zero(labels);
  }
}
