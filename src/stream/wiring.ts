// The one place that builds what corrects: the writer lease and its keeper, the sessions the
// lease lists (so that a takeover can fence them), and the context every correction runs
// with, field by field, for `run` (the runner) and `sweep` alike.
import type { Db, MongoClient } from "mongodb";
import type { Config } from "../config/schema.js";
import type { Logger } from "../ops/logger.js";
import type { Metrics } from "../ops/metrics.js";
import type { PatternRule } from "../patterns/driver.js";
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
  /** Stops the keeper's waits (a stop while it renews). */
  stopSignal?: AbortSignal;
  /** The pause before a parked target's first retry (PARKED_FIRST_RETRY_MS). */
  parkedRetryMs?: number;
}

export interface Corrections {
  keeper: LeaseKeeper;
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
      fencing: config,
    },
  );
  const keeper = new LeaseKeeper({
    lease,
    leaseSeconds: config.leaseSeconds,
    metrics,
    logger,
    stopSignal: options.stopSignal,
  });
  const slots = new Slots(config.concurrency);
  const correction: CorrectionContext = {
    client,
    sessions,
    db,
    stateCollection: config.stateCollection,
    lease,
    metrics,
    logger,
    maxTransactionAttempts: config.maxTransactionAttempts,
    ownWrites: new OwnWrites(),
    slots,
    eventPlans: new EventPlans(),
  };
  const parkedRetryMs = options.parkedRetryMs ?? PARKED_FIRST_RETRY_MS;
  const context: ParkedRetryContext = {
    ...correction,
    batcher: new CorrectionBatcher({ ...correction, slots }),
    parkAfterAttempts: config.parkAfterAttempts,
    parked: new ParkedTargets(db, config.stateCollection, options.rules, parkedRetryMs),
  };
  return { keeper, sessions, context };
}
