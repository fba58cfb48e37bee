// A sweep brings every document of every rule back into shape without a change stream: on a
// first start, after the stream's history was lost, and from `sweep` on the command line.
// Each candidate is planned from a plain read first; only a document that needs writes goes
// through the transactional correction, which re-reads and re-plans under the lease fence.
import { EJSON } from "bson";
import type { Db } from "mongodb";
import type { PatternRule } from "../patterns/driver.js";
import type { Logger } from "../ops/logger.js";
import type { Metrics } from "../ops/metrics.js";
import type { Plan } from "../patterns/plan.js";
import { driverOf } from "../patterns/registry.js";
import { estimateSweepSize } from "./sweep-size.js";
import { targetKey, type CorrectionTarget } from "./targets.js";

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
}

export interface SweepOptions {
  db: Db;
  rules: readonly PatternRule[];
  logger: Logger;
  metrics?: Metrics;
  /** Runs the transactional correction; absent in a dry run, which writes nothing. */
  correct?: (target: CorrectionTarget) => Promise<Plan>;
  /** Retries the parked targets (all of them, due or not); runs before the rules are swept. */
  retryParked?: () => Promise<void>;
  /** Checked between documents, so that a stopping sidecar does not finish a long sweep. */
  shouldStop?: () => boolean;
  progressIntervalMs?: number;
}

const EXAMPLES = 5;

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
  const { db, logger, metrics } = options;
  const labels = { rule: rule.name, collection: rule.collection };
  const report: RuleSweepReport = {
    ...labels,
    examined: 0,
    changedByKind: {},
    elementsMoved: 0,
    skipped: 0,
    exampleKeys: [],
  };
  const total = Math.max(1, await estimateSweepSize(db, rule));
  const startedAt = Date.now();
  let lastProgressAt = startedAt;
  const seen = new Set<string>();
  metrics?.sweepProgress.set(labels, 0);
  for await (const target of driverOf(rule).sweepCandidates(db, rule)) {
    if (options.shouldStop?.()) break;
    const key = targetKey(target);
    if (seen.has(key)) continue;
    seen.add(key);
    await sweepTarget(options, target, report);
    metrics?.sweepDocumentsScanned.inc(labels);
    metrics?.sweepProgress.set(labels, Math.min(1, report.examined / total));
    if (Date.now() - lastProgressAt >= (options.progressIntervalMs ?? 5000)) {
      lastProgressAt = Date.now();
      logger.info({ ...labels, examined: report.examined, estimatedTotal: total }, "sweep in progress");
    }
  }
  metrics?.sweepProgress.set(labels, 1);
  metrics?.sweepDuration.observe(labels, (Date.now() - startedAt) / 1000);
  logger.info({ ...report, durationMs: Date.now() - startedAt, dryRun: !options.correct }, "swept rule");
  return report;
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
    : await driverOf(target.rule).plan(options.db, target);
  if (plan.outcome === "none") return;
  if (report.exampleKeys.length < EXAMPLES) report.exampleKeys.push(EJSON.stringify(target.id));
  if (plan.outcome === "skip") {
    report.skipped += 1;
    if (!options.correct)
      options.logger.warn({ rule: report.rule, key: target.id, reason: plan.reason }, "would skip document");
    return;
  }
  report.changedByKind[plan.kind] = (report.changedByKind[plan.kind] ?? 0) + 1;
  report.elementsMoved += plan.elementsMoved;
}
