// One correction: plan from plain reads first, and only when that plan writes something,
// inside one transaction: re-read the document, plan, check the lease(s) fencing it and write,
// commit.
// Most events need nothing (a document already fixed, a push that another correction
// covered), and those then cost a read or two, not a transaction; a target whose event
// showed it broken skips that first read. The event that caused it is trusted for planning
// only as a guess (planFromEvent, event-plans.ts) that the transaction's writes check: by
// the time we act, the applications may have changed the document again, and a guess that
// no longer holds is undone and planned again from a read. A document the rule cannot plan
// for, or that the server refuses to write, is logged, counted and left as it is.
import type { ClientSession, Db, MongoClient } from "mongodb";
import {
  BadDocumentError,
  BatchTooLargeError,
  classify,
  StalePlanError,
  toError,
  WritePathChangedError,
} from "../../errors.js";
import type { Logger } from "../../ops/logger.js";
import type { Metrics } from "../../ops/metrics.js";
import { reportError } from "../../ops/report-error.js";
import type { PatternRule, PlanContext } from "../../patterns/driver.js";
import type { Absent, Plan, SkipKind, Write } from "../../patterns/plan.js";
import { applyWrites, checkAbsent } from "./apply.js";
import { bulkWriteFenced, isBulkWriteRefused, stopUsingBulkWrite, supportsBulkWrite } from "./bulk-write.js";
import type { Fence, Fencing } from "../lease/fencing.js";
import { driverOf } from "../../patterns/registry.js";
import { foldRecords } from "../../patterns/records.js";
import type { OwnWrites } from "../events/own-writes.js";
import { targetFields, targetLabels, type CorrectionTarget } from "../events/targets.js";
import type { EventPlans } from "./event-plans.js";
import type { SessionPool } from "../lease/session-pool.js";
import type { Slots } from "./slots.js";
import type { BudgetHold, MemoryBudget } from "./memory-budget.js";
import { ownSession, runTransaction, type SessionSource } from "./transaction.js";
import { correctInParts, tooLargeToCommit, type PartRunner } from "./correction-parts.js";
import { refusalReason } from "./refusal.js";
import { extended } from "../../patterns/bson/extended.js";

export interface CorrectionContext {
  client: MongoClient;
  /** The leader's sessions (their ids are in the lease); a session per correction when absent. */
  sessions?: Pick<SessionPool, "withSession">;
  db: Db;
  /** Where the drivers' plans keep their records (the copy ledger); config `stateCollection`. */
  stateCollection: string;
  /** The writer lease, or the leases of the targets' partitions (partition-leases.ts). */
  lease: Fencing;
  metrics: Metrics;
  logger: Logger;
  maxTransactionAttempts: number;
  /** Told the session of every correction transaction, to know their events again. */
  ownWrites: OwnWrites;
  /** How many corrections run at once (config `concurrency`); unbounded when absent. */
  slots?: Pick<Slots, "run">;
  /** Where plans from change events come from (event-plans.ts); every correction reads when absent. */
  eventPlans?: EventPlans;
  /** Bounds the bytes of documents the corrections hold decoded (config `correctionMemoryMiB`); unbounded when absent. */
  memory?: Pick<MemoryBudget, "hold">;
}

/**
 * Corrects a target; returns the plan that was committed, or skipped, or none. Throws only
 * what a later attempt may get past (transient errors, a lost lease); a write the server
 * refuses for what the document holds (classify: "bad_document") is skipped, as retrying
 * it would block the document's key and hold the resume token back for ever.
 */
export function correctTarget(context: CorrectionContext, target: CorrectionTarget): Promise<Plan> {
  const correct = () => correctInSlot(context, target);
  return context.slots ? context.slots.run(correct) : correct();
}

/** correctTarget, for a caller that already holds one of the context's slots. */
export async function correctInSlot(context: CorrectionContext, target: CorrectionTarget): Promise<Plan> {
  // Held from the first read to the end: a correction that waited for the budget once does
  // not queue again for its transaction, nor for each of its attempts.
  const hold = context.memory?.hold();
  try {
    // Outside a transaction the reads may see two moments; that only decides whether to open
    // one, in which everything is read again from one snapshot. A target its event showed
    // broken is most likely still broken, and one its driver says needs none is most often
    // due: the preview would only add its reads.
    if (!target.due && driverOf(target.rule).planning.needsPreview?.(target.rule, target) !== false) {
      const planContext = { stateCollection: context.stateCollection, budget: hold?.plan() };
      const preview = await driverOf(target.rule).planning.plan(context.db, target, planContext);
      if (preview.outcome === "none") return preview;
    }
    return await correctInTransaction(context, target, hold);
  } finally {
    hold?.release();
  }
}

async function correctInTransaction(
  context: CorrectionContext,
  target: CorrectionTarget,
  hold: BudgetHold | undefined,
): Promise<Plan> {
  const labels = targetLabels(target);
  const startedAt = process.hrtime.bigint();
  // A plan from the event alone is the first attempt's, an attempt of its own: when it does
  // not hold, the next one reads.
  let guess = context.eventPlans?.guess(target);
  let plan: Plan;
  let plannedWrites = 0;
  try {
    plan = await runTransaction(
      correctionSessions(context),
      {
        maxAttempts: context.maxTransactionAttempts + (guess ? 1 : 0),
        context: targetFields(target),
        onRetry: () => context.metrics.transactionRetries.inc(labels),
        onAbortFailed: (err) =>
          reportError(context, err, "could not abort a failed correction", { fields: targetFields(target) }),
      },
      async (session) => {
        const planned = guess && [guess];
        guess = undefined;
        const onPlanned = (writes: number) => (plannedWrites = writes);
        return (await planAndWrite(context, [target], session, { guessed: planned, hold, onPlanned }))[0]!;
      },
    );
  } catch (thrown) {
    if (tooLargeToCommit(thrown, plannedWrites))
      return correctInParts(context, target, plannedWrites, partRunner(context, target, hold), thrown);
    if (classify(thrown) !== "bad_document") throw thrown;
    return skipRefusedDocument(context, target, toError(thrown));
  }
  const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  recordOutcome(context, target, plan, durationMs);
  return plan;
}

/** A correction's parts, each its own transaction (correction-parts.ts). */
function partRunner(
  context: CorrectionContext,
  target: CorrectionTarget,
  hold: BudgetHold | undefined,
): PartRunner {
  const fields = targetFields(target);
  return {
    correctPart: (maxWrites) =>
      runTransaction(
        correctionSessions(context),
        {
          maxAttempts: context.maxTransactionAttempts,
          context: extended(fields, { maxWrites }),
          onRetry: () => context.metrics.transactionRetries.inc(targetLabels(target)),
        },
        async (session) =>
          (await planAndWrite(context, [target], session, { hold, maxWrites, inParts: true }))[0]!,
      ),
    recordPart: (plan, durationMs) => recordOutcome(context, target, plan, durationMs),
  };
}

/** Where a correction's transaction runs: on one of the leader's sessions, or a session of its own. */
export function correctionSessions(context: CorrectionContext): SessionSource {
  return (work) => (context.sessions ? context.sessions.withSession(work) : ownSession(context.client, work));
}

interface PlanAndWriteOptions {
  /** The plans, made from the events: none is read. */
  guessed?: Plan[];
  hold?: BudgetHold;
  /** The writes the transaction may carry; past them it is undone before writing (BatchTooLargeError). */
  maxWrites?: number;
  /** Plans a part of the correction within `maxWrites` where the pattern can (correction-parts.ts). */
  inParts?: boolean;
  /** Told how many documents the plans write, before they are written. */
  onPlanned?: (writes: number) => void;
}

/**
 * The body of a correction's transaction, for one target or several that share it: plan
 * each target from reads in this transaction (unless `guessed` gives the plans, made from
 * the events: PatternDriver.planFromEvent), then check the lease and write every plan's
 * writes. The lease is checked in the transaction's snapshot, as the reads were, so its
 * place among them does not matter; a transaction that writes nothing needs no check. The
 * reads enter the memory budget through `hold`, the correction's; without one, through a
 * hold of this attempt's, released once the writes are sent.
 */
export async function planAndWrite(
  context: CorrectionContext,
  targets: readonly CorrectionTarget[],
  session: ClientSession,
  { guessed, hold, maxWrites = Infinity, inParts, onPlanned }: PlanAndWriteOptions = {},
): Promise<Plan[]> {
  context.ownWrites.remember(session);
  const attemptHold = hold ? undefined : context.memory?.hold();
  try {
    const budget = (hold ?? attemptHold)?.plan();
    const planContext = { session, stateCollection: context.stateCollection, budget };
    const plans =
      guessed ??
      (await planTargets(context.db, targets, inParts ? extended(planContext, { maxWrites }) : planContext));
    const writing = plans.filter((plan) => plan.outcome === "writes");
    if (writing.length > 0) {
      // Counted before the records are folded: each still costs the transaction its index keys.
      const planned = writing.flatMap((plan) => plan.writes);
      onPlanned?.(planned.length);
      if (planned.length > maxWrites)
        throw new BatchTooLargeError(`the plans would write ${planned.length} documents`, {
          batch: targets.length,
          maxWrites,
        });
      const absent = writing.flatMap((plan) => plan.absent ?? []);
      const writes = foldRecords(planned);
      await writeFenced(context, { targets, writes, absent }, session).catch((error: unknown) => {
        throw guessed && classify(error) === "bad_document" ? guessRefused(error, targets) : error;
      });
    }
    return plans;
  } finally {
    attemptHold?.release();
  }
}

/**
 * A write of a guess the server refused (a chunk's _id already taken, say) tells nothing of
 * the document yet: the transaction is redone from a read, which plans what is really there.
 */
function guessRefused(error: unknown, targets: readonly CorrectionTarget[]): StalePlanError {
  const context = targets.length === 1 ? targetFields(targets[0]!) : { batch: targets.length };
  return new StalePlanError("the server refused a plan made from the change event", context, {
    cause: error,
  });
}

/**
 * The fences of the targets' leases and the writes: in one command where the server takes
 * bulkWrite (8.0). A batch of targets in several partitions passes each partition's fence.
 */
async function writeFenced(
  context: CorrectionContext,
  { targets, writes, absent }: { targets: readonly CorrectionTarget[]; writes: Write[]; absent: Absent[] },
  session: ClientSession,
): Promise<void> {
  const { client, db, lease } = context;
  const fences = lease.fencesFor(targets, session);
  if (await supportsBulkWrite(client)) {
    const fenced = { fences, absent, writes };
    try {
      return await bulkWriteFenced(client, db, fenced, session);
    } catch (error) {
      throw isBulkWriteRefused(error) ? writeWithoutBulkWrite(context, error) : error;
    }
  }
  for (const fence of fences) await passFence(db, fence, session);
  await checkAbsent(db, absent, session);
  await applyWrites(db, writes, session);
}

/** A fence on its own command: a real write on its document, which must match it. */
async function passFence(db: Db, { write, takenOver }: Fence, session: ClientSession): Promise<void> {
  const result = await db.collection(write.collection).updateOne(write.filter, write.update, { session });
  if (result.matchedCount === 0) throw takenOver();
}

/**
 * The server refused bulkWrite (an 8.0 server at featureCompatibilityVersion 7.0): the refusal
 * aborted the transaction, which is redone the older way, as every later correction is.
 */
function writeWithoutBulkWrite(context: CorrectionContext, refusal: unknown): WritePathChangedError {
  if (stopUsingBulkWrite(context.client)) {
    context.logger.warn(
      { err: refusal },
      "the server refuses bulkWrite (featureCompatibilityVersion below 8.0?); corrections use one write command per collection until the sidecar restarts",
    );
  }
  return new WritePathChangedError("the server refused bulkWrite", {}, { cause: refusal });
}

/** Plans every target, those of one rule and role together where the driver can (planMany). */
async function planTargets(
  db: Db,
  targets: readonly CorrectionTarget[],
  planContext: PlanContext,
): Promise<Plan[]> {
  const plans: Plan[] = [];
  for (const group of sameRuleAndRole(targets)) {
    const driver = driverOf(group.rule);
    const planned =
      driver.planning.planMany && group.targets.length > 1
        ? await driver.planning.planMany(db, group.rule, group.targets, planContext)
        : [await driver.planning.plan(db, group.targets[0]!, planContext)];
    group.indexes.forEach((index, i) => (plans[index] = planned[i]!));
  }
  return plans;
}

interface TargetGroup {
  rule: PatternRule;
  targets: CorrectionTarget[];
  /** Where each target stands in the list the groups were made from. */
  indexes: number[];
}

/** Targets of one rule and role plan together (planMany), from one read per batch. */
export function planGroupOf(target: CorrectionTarget): string {
  return `${target.rule.name}|${target.role}`;
}

/** The targets grouped by rule and role; a target without planMany's help is a group of one. */
function sameRuleAndRole(targets: readonly CorrectionTarget[]): TargetGroup[] {
  const groups = new Map<string, TargetGroup>();
  targets.forEach((target, index) => {
    const driver = driverOf(target.rule);
    const together =
      driver.planning.planMany && driver.planning.independentTargets?.(target.rule, target.role);
    const key = together ? planGroupOf(target) : `#${index}`;
    const group = groups.get(key) ?? { rule: target.rule, targets: [], indexes: [] };
    group.targets.push(target);
    group.indexes.push(index);
    groups.set(key, group);
  });
  return [...groups.values()];
}

function skipRefusedDocument(context: CorrectionContext, target: CorrectionTarget, err: Error): Plan {
  const labels = targetLabels(target);
  const reason = refusalReason(err);
  countSkipped(context.metrics, labels, "skipped_bad_document");
  context.logger.error(
    extended(targetFields(target), { err, reason }),
    "skipped document the server refuses to write; left as it is",
  );
  return { outcome: "skip", reason };
}

function countSkipped(metrics: Metrics, labels: ReturnType<typeof targetLabels>, kind: SkipKind): void {
  metrics.corrections.inc(extended(labels, { kind }));
  // A delete without a pre-image is no error of the sidecar's, nor of a document's.
  if (kind === "skipped_bad_document") metrics.errors.inc({ kind: "bad_document" });
}

const SKIP_MESSAGES: Record<SkipKind, string> = {
  skipped_bad_document: "skipped document the rule cannot plan for",
  skipped_no_pre_image: "delete not propagated: its change event has no pre-image",
};

/** Counts and logs a finished correction (its transaction took `durationMs`). */
export function recordOutcome(
  context: CorrectionContext,
  target: CorrectionTarget,
  plan: Plan,
  durationMs: number,
): void {
  countOutcome(context, target, plan, durationMs);
  context.eventPlans?.noteOutcome(target, plan);
  if (plan.outcome === "writes")
    context.logger.info(extended(correctionFields(target, plan), { durationMs }), "corrected document");
}

/**
 * Counts the corrections of one shared transaction and logs them on one line: a backlog
 * corrects thousands of documents a second, and a line for each would be thousands of lines
 * a second to format, write and ship.
 */
export function recordSharedOutcomes(
  context: CorrectionContext,
  targets: readonly CorrectionTarget[],
  plans: readonly Plan[],
  durationMs: number,
): void {
  targets.forEach((target, i) => {
    countOutcome(context, target, plans[i]!, durationMs);
    context.eventPlans?.noteOutcome(target, plans[i]!);
  });
  const corrections = targets.flatMap((target, i) => {
    const plan = plans[i]!;
    return plan.outcome === "writes" ? [correctionFields(target, plan)] : [];
  });
  if (corrections.length > 0)
    context.logger.info({ batch: targets.length, durationMs, corrections }, "corrected documents");
}

function correctionFields(target: CorrectionTarget, plan: Extract<Plan, { outcome: "writes" }>) {
  return extended(targetFields(target), {
    kind: plan.kind,
    elementsMoved: plan.elementsMoved,
  });
}

/** A finished correction's metrics; a skip is also logged, on a line of its own (a warning). */
function countOutcome(
  context: CorrectionContext,
  target: CorrectionTarget,
  plan: Plan,
  durationMs: number,
): void {
  const labels = targetLabels(target);
  const { metrics, logger } = context;
  if (plan.outcome === "writes") {
    metrics.corrections.inc(extended(labels, { kind: plan.kind }));
    metrics.elementsMoved.inc(labels, plan.elementsMoved);
    metrics.correctionDuration.observe(labels, durationMs / 1000);
  } else if (plan.outcome === "skip") {
    const kind = plan.kind ?? "skipped_bad_document";
    countSkipped(metrics, labels, kind);
    const fields = targetFields(target);
    const err = new BadDocumentError(plan.reason, fields);
    logger.warn(extended(fields, { reason: plan.reason, err }), SKIP_MESSAGES[kind]);
  }
}
