// How far one rule's sweep is: candidates examined against those counted before it started,
// the rate so far and the time left at that rate, as gauges and a periodic log line.
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";

export interface SweepProgressOptions {
  logger: Logger;
  metrics?: Metrics;
  labels: { rule: string; collection: string };
  /** Candidates counted (or estimated) before the sweep; more may turn up meanwhile. */
  total: number;
  progressIntervalMs?: number;
}

export class SweepProgress {
  private readonly startedAt = Date.now();
  private loggedAt = this.startedAt;
  private count = 0;

  constructor(private readonly options: SweepProgressOptions) {
    options.metrics?.sweepProgress.set(options.labels, 0);
  }

  /** Candidates counted before the sweep, or examined since when more turned up. */
  get candidates(): number {
    return Math.max(this.options.total, this.count);
  }

  get elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  examined(count: number): void {
    const { metrics, labels, logger } = this.options;
    this.count = count;
    metrics?.sweepDocumentsScanned.inc(labels);
    metrics?.sweepProgress.set(labels, this.ratio);
    metrics?.sweepEta.set(labels, this.etaSeconds);
    if (Date.now() - this.loggedAt < (this.options.progressIntervalMs ?? 5000)) return;
    this.loggedAt = Date.now();
    logger.info(
      {
        ...labels,
        examined: count,
        candidates: this.options.total,
        ratio: Number(this.ratio.toFixed(3)),
        perSecond: Math.round(this.perSecond),
        etaSeconds: Math.round(this.etaSeconds),
      },
      "sweep in progress",
    );
  }

  /** A completed sweep reads 1 and no time left; a stopped one stays where it stopped. */
  finish(completed: boolean): void {
    const { metrics, labels } = this.options;
    if (!completed) return;
    metrics?.sweepProgress.set(labels, 1);
    metrics?.sweepEta.set(labels, 0);
    metrics?.sweepDuration.observe(labels, this.elapsedMs / 1000);
  }

  private get ratio(): number {
    return this.count / Math.max(1, this.options.total, this.count);
  }

  private get perSecond(): number {
    return this.count / Math.max(0.001, this.elapsedMs / 1000);
  }

  private get etaSeconds(): number {
    return Math.max(0, this.options.total - this.count) / Math.max(this.perSecond, 1e-9);
  }
}
