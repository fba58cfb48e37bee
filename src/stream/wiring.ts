// The one place that builds what corrects: the writer lease and its keeper, the sessions the
// lease lists (so that a takeover can fence them), and the context every correction runs
// with, field by field, for `run` (the runner) and `sweep` alike; and `migrate`'s sessions.
import type { Db, MongoClient } from "mongodb";
import type { Config } from "../config/schema.js";
import type { Logger } from "../ops/logger.js";
import type { Metrics } from "../ops/metrics.js";
import type { MigrationOptions, PatternRule } from "../patterns/driver.js";
import { foldRecords } from "../patterns/records.js";
import { applyWrites } from "./correction/apply.js";
import { CorrectionBatcher } from "./correction/correction-batch.js";
import type { CorrectionContext } from "./correction/correction.js";
import { EventPlans } from "./correction/event-plans.js";
import { newHolderId, WriterLease } from "./lease/lease.js";
import { LeaseKeeper } from "./lease/lease-keeper.js";
import { OwnWrites } from "./events/own-writes.js";
import type { ParkedRetryContext } from "./parking/parked-retry.js";
import { PARKED_FIRST_RETRY_MS, ParkedTargets } from "./parking/parked-targets.js";
import { SessionPool } from "./lease/session-pool.js";
import { Slots } from "./correction/slots.js";
import { runTransaction } from "./correction/transaction.js";
import { MemoryBudget } from "./correction/memory-budget.js";
import type { Fence, Fencing } from "./lease/fencing.js";
import { PartitionLeases, type PartitionLeasesOptions } from "./partitions/partition-leases.js";
import type { ClientSession } from "mongodb";
import type { CorrectionTarget } from "../patterns/driver.js";

export interface WiringOptions {
  client: MongoClient;
  db: Db;
  /** The lease keeper's own handle, on a small client of its own (WriterLease); `db` when absent. */
  leaseDb?: Db;
  config: Config;
  /** The enabled rules, as the deployment lets them be enforced. */
  rules: readonly PatternRule[];
  metrics: Metrics;
  logger: Logger;
  holderId?: string;
  /** The pause before a parked target's first retry (PARKED_FIRST_RETRY_MS). */
  parkedRetryMs?: number;
  /** The runner's hooks on the partitions' hand-over (partition-leases.ts). */
  partitionHooks?: Pick<PartitionLeasesOptions, "beforeRelease" | "onOwnedChange">;
}

/**
 * What corrections are fenced by: the writer lease while the runner leads with it (work not
 * partitioned, or a replica alone), else the leases of the targets' partitions.
 */
export class CurrentFencing implements Fencing {
  mode: "writer" | "partitions" = "writer";

  constructor(
    private readonly writer: Fencing,
    private readonly partitions: Fencing,
  ) {}

  fencesFor(targets: readonly CorrectionTarget[], session: ClientSession): Fence[] {
    return (this.mode === "writer" ? this.writer : this.partitions).fencesFor(targets, session);
  }
}

export interface Corrections {
  keeper: LeaseKeeper;
  /** This replica's membership and partition leases. */
  partitionLeases: PartitionLeases;
  fencing: CurrentFencing;
  /** One session per concurrent correction, and one for the parked targets' retries. */
  sessions: SessionPool;
  /** What every correction runs with: plain, shared, retried, parked. */
  context: ParkedRetryContext;
}

export function wireCorrections(options: WiringOptions): Corrections {
  const { client, db, config, metrics, logger } = options;
  const sessions = new SessionPool(client, config.concurrency + 1);
  const lease = new WriterLease(
    db,
    config.stateCollection,
    options.holderId ?? newHolderId(),
    config.leaseSeconds,
    {
      sessionIds: () => sessions.ids,
      keeperDb: options.leaseDb,
    },
  );
  const keeper = new LeaseKeeper({
    lease,
    leaseSeconds: config.leaseSeconds,
    metrics,
    logger,
  });
  const partitionLeases = new PartitionLeases({
    db,
    keeperDb: options.leaseDb,
    stateCollection: config.stateCollection,
    holder: lease.holder,
    leaseSeconds: config.leaseSeconds,
    partitions: config.partitions,
    sessionIds: () => sessions.ids,
    logger,
    ...options.partitionHooks,
  });
  const fencing = new CurrentFencing(lease, partitionLeases);
  const slots = new Slots(config.concurrency);
  const correction: CorrectionContext = {
    client,
    sessions,
    db,
    stateCollection: config.stateCollection,
    lease: fencing,
    metrics,
    logger,
    maxTransactionAttempts: config.maxTransactionAttempts,
    ownWrites: new OwnWrites(),
    slots,
    eventPlans: new EventPlans(),
    memory: new MemoryBudget(config.correctionMemoryMiB * 1024 * 1024, {
      held: (bytes) => metrics.correctionMemory.set(bytes),
      waited: () => metrics.correctionMemoryWaits.inc(),
    }),
  };
  const parkedRetryMs = options.parkedRetryMs ?? PARKED_FIRST_RETRY_MS;
  const context: ParkedRetryContext = {
    ...correction,
    batcher: new CorrectionBatcher({ ...correction, slots }),
    parkAfterAttempts: config.parkAfterAttempts,
    parked: new ParkedTargets(db, config.stateCollection, options.rules, parkedRetryMs),
  };
  return { keeper, partitionLeases, fencing, sessions, context };
}

export interface Migration {
  /** Runs a migration step's plan in a transaction and applies its writes. */
  commit: MigrationOptions["commit"];
  /** Ends the migration's session; call once no step runs. */
  close: () => Promise<void>;
}

/**
 * What `migrate` runs with: one session, its steps one after another. No writer lease: each
 * step is a transaction guarded by what it read, so it runs beside a leading sidecar.
 */
export function wireMigration(options: Pick<WiringOptions, "client" | "db" | "config">): Migration {
  const { db, config } = options;
  const sessions = new SessionPool(options.client, 1);
  return {
    commit: (plan) =>
      runTransaction(
        (work) => sessions.withSession(work),
        { maxAttempts: config.maxTransactionAttempts },
        async (session) => {
          const planned = await plan(session);
          if (planned.outcome === "writes") await applyWrites(db, foldRecords(planned.writes), session);
          return planned;
        },
      ),
    close: () => sessions.close(),
  };
}
