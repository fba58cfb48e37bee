// A sweep brings every document of every rule back into shape without a change stream: on a
// first start, after the stream's history was lost, and from `sweep` on the command line.
// Candidates are read a page at a time from each of the rule's sources (sweep-queries.ts);
// after each page the key reached is saved (sweep-checkpoints.ts), so that an interrupted
// sweep continues there. Memory holds one page, whatever the size of the collections.
// Each candidate is planned from a plain read first; only a document that needs writes goes
// through the transactional correction, which re-reads and re-plans under the lease fence.
import type { Db } from "mongodb";
import type { CorrectionTarget, PatternRule, SweepSource } from "../../patterns/driver.js";
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import type { Plan } from "../../patterns/plan.js";
import { relaxedExtendedJson } from "../../patterns/bson/bson-value.js";
import { extended } from "../../patterns/bson/extended.js";
import { driverOf } from "../../patterns/registry.js";
import type { SweepCheckpoints, SweepStart } from "./sweep-checkpoints.js";

/** Where a sweep's checkpoints go: one sweep's (sweep-checkpoints.ts), or several partitions' at once. */
export type CheckpointStore = Pick<SweepCheckpoints, "load" | "save" | "clear">;
import { SweepProgress } from "./sweep-progress.js";
import { targetFields } from "../events/targets.js";

export interface RuleSweepReport {
  rule: string;
  collection: string;
  /** Candidates examined. */
  examined: number;
  /** Documents changed (or, in a dry run, that would be), by kind of correction. */
  changedByKind: Record<string, number>;
  elementsMoved: number;
  skipped: number;
  /** A few keys of documents changed or skipped, for the dry-run report. */
  exampleKeys: string[];
  /** Every source was read to its end (not stopped halfway). */
  completed: boolean;
}

/** A document the sweep changed or skipped (in a dry run: would), as `sweep --output json` prints it. */
export interface AffectedDocument {
  rule: string;
  collection: string;
  key: unknown;
  kind: string;
}

export interface SweepOptions {
  db: Db;
  rules: readonly PatternRule[];
  /** config `stateCollection`, where a dry run's plans would read the drivers' records. */
  stateCollection: string;
  logger: Logger;
  metrics?: Metrics;
  /** Runs the transactional correction; absent in a dry run, which writes nothing. */
  correct?: (target: CorrectionTarget) => Promise<Plan>;
  /** Retries the parked targets (all of them, due or not); runs before the rules are swept. */
  retryParked?: () => Promise<void>;
  /** Checked between documents, so that a stopping sidecar does not finish a long sweep. */
  shouldStop?: () => boolean;
  /** Where each rule's sweep continues from and is noted; absent, every sweep starts afresh. */
  checkpoints?: { store: CheckpointStore; start: SweepStart };
  onAffected?: (affected: AffectedDocument) => void;
  /** Told after each page whose checkpoint is saved, and when a rule completes, with the counts so far. */
  onProgress?: (report: RuleSweepReport, candidates: number) => Promise<void>;
  /** Whether this process corrects the target's document (key-ownership.ts); absent: all of them. */
  owns?: (target: CorrectionTarget) => boolean;
  /** The share of the candidates `owns` keeps (its partitions' among all), for the progress; 1 when absent. */
  candidateShare?: number;
  progressIntervalMs?: number;
  /** Index keys examined per page (per query). */
  pageSize?: number;
}

const EXAMPLES = 5;
const SWEEP_PAGE_SIZE = 500;

export async function sweep(options: SweepOptions): Promise<RuleSweepReport[]> {
  const reports: RuleSweepReport[] = [];
  await options.retryParked?.();
  for (const rule of options.rules) {
    if (!rule.enabled || options.shouldStop?.()) continue;
    reports.push(await sweepRule(options, rule));
  }
  return reports;
}

async function sweepRule(options: SweepOptions, rule: PatternRule): Promise<RuleSweepReport> {
  const labels = { rule: rule.name, collection: rule.collection };
  const report: RuleSweepReport = {
    ...labels,
    examined: 0,
    changedByKind: {},
    elementsMoved: 0,
    skipped: 0,
    exampleKeys: [],
    completed: false,
  };
  const sources = driverOf(rule).sweepSources(rule);
  const starts = await Promise.all(
    sources.map((source) => options.checkpoints?.store.load(rule, source.name)),
  );
  const counted = await countCandidates(options.db, sources, starts);
  const total = Math.round(counted * (options.candidateShare ?? 1));
  const progress = new SweepProgress({ ...options, labels, total });
  options.logger.info(
    { ...labels, candidates: total, resumed: starts.some((at) => at !== undefined) },
    "sweeping rule",
  );
  let completed = true;
  for (const [index, source] of sources.entries()) {
    completed &&= await sweepSource(options, rule, source, starts[index], report, progress);
  }
  report.completed = completed;
  if (report.completed) {
    await options.checkpoints?.store.clear(rule);
    // A stopped rule's last progress is its last checkpoint's, where the next sweep continues.
    await options.onProgress?.(report, progress.candidates);
  }
  progress.finish(report.completed);
  options.logger.info({ ...report, durationMs: progress.elapsedMs, dryRun: !options.correct }, "swept rule");
  return report;
}

async function countCandidates(db: Db, sources: SweepSource[], starts: unknown[]): Promise<number> {
  const counts = await Promise.all(sources.map((source, index) => source.count(db, starts[index])));
  return counts.reduce((sum, count) => sum + count, 0);
}

/** Reads `source` page by page from `after`; false when told to stop before its end. */
async function sweepSource(
  options: SweepOptions,
  rule: PatternRule,
  source: SweepSource,
  after: unknown,
  report: RuleSweepReport,
  progress: SweepProgress,
): Promise<boolean> {
  let reached = after;
  for (;;) {
    if (options.shouldStop?.()) return false;
    const page = await source.page(options.db, reached, options.pageSize ?? SWEEP_PAGE_SIZE);
    for (const target of page.targets) {
      if (options.shouldStop?.()) return false;
      if (options.owns && !options.owns(target)) continue;
      await sweepTarget(options, target, report);
      progress.examined(report.examined);
    }
    if (page.lastKey !== undefined) {
      reached = page.lastKey;
      // Noted when a source ends too, so that a sweep stopped in the next does not read it again.
      await options.checkpoints?.store.save(rule, source.name, reached, options.checkpoints.start);
      await options.onProgress?.(report, progress.candidates);
    }
    if (page.done) return true;
  }
}

async function sweepTarget(
  options: SweepOptions,
  target: CorrectionTarget,
  report: RuleSweepReport,
): Promise<void> {
  report.examined += 1;
  // The correction plans from a plain read before it opens a transaction (correction.ts).
  const plan = options.correct
    ? await options.correct(target)
    : await driverOf(target.rule).planning.plan(options.db, target, {
        stateCollection: options.stateCollection,
      });
  if (plan.outcome === "none") return;
  if (report.exampleKeys.length < EXAMPLES)
    report.exampleKeys.push(JSON.stringify(relaxedExtendedJson(target.id)));
  const kind = plan.outcome === "skip" ? "skipped" : plan.kind;
  options.onAffected?.({ rule: report.rule, collection: target.collection, key: target.id, kind });
  if (plan.outcome === "skip") {
    report.skipped += 1;
    if (!options.correct)
      options.logger.warn(extended(targetFields(target), { reason: plan.reason }), "would skip document");
    return;
  }
  report.changedByKind[plan.kind] = (report.changedByKind[plan.kind] ?? 0) + 1;
  report.elementsMoved += plan.elementsMoved;
}
