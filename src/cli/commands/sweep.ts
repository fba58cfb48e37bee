// `mongo-pattern-sidecar sweep [--dry-run] [--output json]`: one pass over every rule's
// collections. A real sweep writes, so it takes the writer lease like a running sidecar (and
// refuses to run beside one), and continues a sweep interrupted before (sweep-checkpoints.ts);
// a dry run only reads, from the first document, and reports what it would change.
import type { Config } from "../../config/schema.js";
import type { Logger } from "../../ops/logger.js";
import { createMetrics, type Metrics } from "../../ops/metrics.js";
import { relaxedExtendedJson } from "../../patterns/bson/bson-value.js";
import { ensureCollectionsAndIndexes } from "../../stream/collections.js";
import { retryParkedTargets } from "../../stream/parking/parked-retry.js";
import { sweep, type AffectedDocument, type RuleSweepReport } from "../../stream/sweep/sweep.js";
import { SweepCheckpoints } from "../../stream/sweep/sweep-checkpoints.js";
import { wireCorrections } from "../../stream/wiring.js";
import { correctTarget } from "../../stream/correction/correction.js";
import type { SweepOutput } from "../args.js";
import { connectDeployment, type Deployment } from "../deployment.js";
import { EXIT_STATUS, OperationalError } from "../failures.js";
import { newShutdownStack } from "../stop-signal.js";

export interface SweepCommandOptions {
  deployment: Deployment;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  dryRun: boolean;
  onAffected?: (affected: AffectedDocument) => void;
}

export async function sweepOnce(options: SweepCommandOptions): Promise<RuleSweepReport[]> {
  const { deployment, config, logger, metrics, dryRun, onAffected } = options;
  const configured = config.rules.filter((rule) => rule.enabled);
  const { stateCollection } = config;
  if (dryRun)
    return sweep({ db: deployment.db, rules: configured, stateCollection, logger, metrics, onAffected });

  const rules = await ensureCollectionsAndIndexes(
    deployment.db,
    configured,
    stateCollection,
    logger,
    metrics,
  );
  // As the runner is wired: the lease on its own client and listing the sweep's sessions,
  // so that a sidecar taking over from a paused sweep can fence it.
  const { client, db, leaseDb } = deployment;
  const { keeper, sessions, context } = wireCorrections({
    client,
    db,
    leaseDb,
    config,
    rules,
    metrics,
    logger,
  });
  const lease = keeper.lease;
  if (!(await keeper.tryAcquire())) {
    await sessions.close();
    throw new OperationalError(
      `another sidecar holds the writer lease (in ${config.stateCollection}), so this sweep would race it; ` +
        `have it sweep with --request, use --dry-run, or stop it (a stopped one's lease expires within ${config.leaseSeconds} s)`,
      EXIT_STATUS.leaseHeld,
      { stateCollection: config.stateCollection },
    );
  }
  keeper.startRenewing();
  try {
    const checkpoints = new SweepCheckpoints(deployment.db, config.stateCollection);
    return await sweep({
      db: deployment.db,
      rules,
      stateCollection,
      logger,
      metrics,
      onAffected,
      checkpoints: { store: checkpoints, start: await checkpoints.start(deployment.db) },
      retryParked: () => retryParkedTargets(context, { dueOnly: false, shouldStop: () => !lease.held }),
      correct: (target) => correctTarget(context, target),
    });
  } finally {
    await keeper.release();
    await sessions.close();
  }
}

/** One line per rule, for people: what changed (or would), how much, and a few keys. */
export function formatSweepReport(reports: readonly RuleSweepReport[], dryRun: boolean): string {
  const verb = dryRun ? "would change" : "changed";
  return reports
    .map((report) => {
      const changed = sumOf(Object.values(report.changedByKind));
      const kinds = Object.entries(report.changedByKind)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(", ");
      const examples = report.exampleKeys.length > 0 ? `; e.g. _id ${report.exampleKeys.join(", ")}` : "";
      return (
        `${report.rule} (${report.collection}): examined ${report.examined}, ${verb} ${changed}` +
        `${kinds ? ` (${kinds})` : ""}, elements moved ${report.elementsMoved}, skipped ${report.skipped}${examples}`
      );
    })
    .join("\n");
}

/** One JSON line per document, written as it is found, so that any number of them streams out. */
function printAffected(affected: AffectedDocument): void {
  process.stdout.write(`${JSON.stringify({ ...affected, key: relaxedExtendedJson(affected.key) })}\n`);
}

/** Documents changed (would be): skipped ones are reported, but a sweep would not change them either. */
function changedCount(reports: readonly RuleSweepReport[]): number {
  return reports.reduce((sum, report) => sum + sumOf(Object.values(report.changedByKind)), 0);
}

function sumOf(counts: number[]): number {
  return counts.reduce((sum, count) => sum + count, 0);
}

export async function sweepCommand(
  config: Config,
  logger: Logger,
  options: { dryRun: boolean; output: SweepOutput },
): Promise<number> {
  const { dryRun, output } = options;
  const shutdown = newShutdownStack(logger);
  try {
    const deployment = await connectDeployment(config, logger, shutdown, { leaseClient: !dryRun });
    const onAffected = output === "json" ? printAffected : undefined;
    const metrics = createMetrics();
    const reports = await sweepOnce({ deployment, config, logger, metrics, dryRun, onAffected });
    if (output === "text") process.stdout.write(`${formatSweepReport(reports, dryRun)}\n`);
    return dryRun && changedCount(reports) > 0 ? EXIT_STATUS.changesNeeded : 0;
  } finally {
    await shutdown.close();
  }
}
