// `mongo-pattern-sidecar migrate [--dry-run]`: moves every rule's documents that are in the
// schema its seed starts from (bucket: one document per trade) into the pattern's shape, in
// bounded memory, beside the live applications and a running sidecar (each step is one
// guarded transaction, so it takes no writer lease: wireMigration). Killed, it is run again.
import type { Config } from "../../config/schema.js";
import type { Logger } from "../../ops/logger.js";
import { createMetrics } from "../../ops/metrics.js";
import type { MigrationReport } from "../../patterns/driver.js";
import { driverOf } from "../../patterns/registry.js";
import { ensureCollectionsAndIndexes } from "../../stream/collections.js";
import { wireMigration } from "../../stream/wiring.js";
import { connectDeployment, type Deployment } from "../deployment.js";
import { newShutdownStack } from "../stop-signal.js";

export interface MigrateOptions {
  deployment: Deployment;
  config: Config;
  logger: Logger;
  dryRun: boolean;
}

// A progress line every this many entries moved, per rule.
const PROGRESS_EVERY = 1000;

export async function migrateOnce(options: MigrateOptions): Promise<MigrationReport[]> {
  const { deployment, config, logger, dryRun } = options;
  const rules = config.rules.filter((rule) => rule.enabled);
  if (!dryRun) {
    await ensureCollectionsAndIndexes(deployment.db, rules, config.stateCollection, logger, createMetrics());
  }
  const migration = wireMigration({ client: deployment.client, db: deployment.db, config });
  const reports: MigrationReport[] = [];
  try {
    for (const rule of rules) {
      const driver = driverOf(rule);
      if (!driver.migrate) continue;
      let logged = 0;
      const report = await driver.migrate(deployment.db, rule, {
        dryRun,
        commit: migration.commit,
        onProgress: (progress) => {
          if (progress.moved - logged < PROGRESS_EVERY) return;
          logged = progress.moved;
          logger.info({ ...progress, dryRun }, "migration progress");
        },
      });
      logger.info({ ...report, dryRun }, "migration done");
      reports.push(report);
    }
  } finally {
    await migration.close();
  }
  return reports;
}

export function formatMigrationReport(reports: readonly MigrationReport[], dryRun: boolean): string {
  const verb = dryRun ? "would move" : "moved";
  return reports
    .map(
      (report) =>
        `${report.rule}: ${verb} ${report.moved} entries into ${report.documentsCreated} documents, skipped ${report.skipped}`,
    )
    .join("\n");
}

export async function migrateCommand(config: Config, logger: Logger, dryRun: boolean): Promise<number> {
  const shutdown = newShutdownStack(logger);
  try {
    const deployment = await connectDeployment(config, logger, shutdown);
    const reports = await migrateOnce({ deployment, config, logger, dryRun });
    process.stdout.write(`${formatMigrationReport(reports, dryRun)}\n`);
  } finally {
    await shutdown.close();
  }
  return 0;
}
