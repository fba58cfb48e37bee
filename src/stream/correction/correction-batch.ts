// Several ready corrections in one transaction: one fence, one read of all their documents
// (where the driver can: planMany), one bulk write per collection and one commit for the
// lot, instead of for each. Targets wait for one of the `concurrency` slots (slots.ts); those
// waiting when it frees up share it, up to a bound and one rule at a time where there are more
// (batch-choice.ts), so that batches grow with the backlog and a lone live event is corrected
// at once. Targets whose driver declares
// corrections of their role independent (disjoint documents read and written) share a
// transaction, whether or not their event showed them broken: the batch's one read in the
// transaction decides for each what a preview would, and a target needing nothing writes
// nothing; a batch of one is previewed as ever. Whatever goes wrong in a shared one (a
// stale guard, a write conflict, a refused document, a lost lease) aborts it whole, and
// each target is then corrected on its own, as if it had never been batched: the
// transaction either committed every plan or none, and every correction re-reads anyway.
import type { Plan } from "../../patterns/plan.js";
import { chooseBatch } from "./batch-choice.js";
import { driverOf } from "../../patterns/registry.js";
import {
  correctInSlot,
  correctionSessions,
  correctTarget,
  planAndWrite,
  planGroupOf,
  recordSharedOutcomes,
  type CorrectionContext,
} from "./correction.js";
import { targetLabels, type CorrectionTarget } from "../events/targets.js";
import type { Slots } from "./slots.js";
import { runTransaction } from "./transaction.js";

interface Waiting {
  target: CorrectionTarget;
  resolve: (plan: Plan) => void;
  reject: (error: unknown) => void;
}

/**
 * At most this many corrections share a transaction: enough that a backlog's five commands
 * per batch (fence, read, two writes, commit) weigh little on each correction, few enough
 * that a write conflict (which undoes the batch and corrects each alone) stays cheap and each
 * command of the batch short, for the server's other clients wait behind it (in the backlog
 * bench, 128 drained no faster than 64, and the server's pings waited longer).
 */
export const SHARED_TRANSACTION_MAX = 64;

/**
 * At most this many writes in a shared transaction. A few targets with large plans (a
 * product's thousand first copies) would otherwise make one transaction of tens of thousands
 * of writes, which holds the server (and the lease's renewals behind it) for longer than a
 * short lease lasts: every attempt is then lost, and the batch is redone for ever (seen in the
 * soak with `leaseSeconds` 2). Past it the batch is corrected one by one, as any failed one is.
 */
export const SHARED_TRANSACTION_MAX_WRITES = 2_000;

export class CorrectionBatcher {
  private waiting: Waiting[] = [];
  /** A flush is waiting for a slot: targets arriving meanwhile join its batch. */
  private flushPending = false;

  constructor(private readonly context: CorrectionContext & { slots: Pick<Slots, "run"> }) {}

  /** Corrects `target`, sharing a transaction with others ready when a slot frees up. */
  correct(target: CorrectionTarget): Promise<Plan> {
    if (!batchable(target)) return correctTarget(this.context, target);
    return new Promise((resolve, reject) => {
      this.waiting.push({ target, resolve, reject });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushPending || this.waiting.length === 0) return;
    this.flushPending = true;
    // After the events of this turn have been dispatched, so that they can join.
    setImmediate(() => void this.flush());
  }

  /** Takes a slot, then as many waiting targets as may share it, and corrects them. */
  private async flush(): Promise<void> {
    const failed = await this.context.slots.run(() => {
      this.flushPending = false;
      const { batch, rest } = chooseBatch(this.waiting, SHARED_TRANSACTION_MAX, ({ target }) =>
        planGroupOf(target),
      );
      this.waiting = rest;
      this.scheduleFlush();
      return batch.length === 1 ? this.correctAlone(batch[0]!) : this.correctShared(batch);
    });
    // Each in a slot of its own, now that the shared one is free again.
    for (const waiting of failed)
      void correctTarget(this.context, waiting.target).then(waiting.resolve, waiting.reject);
  }

  private async correctAlone(waiting: Waiting): Promise<Waiting[]> {
    await correctInSlot(this.context, waiting.target).then(waiting.resolve, waiting.reject);
    return [];
  }

  /** Settles the batch from one shared transaction; returns it whole, unsettled, if that failed. */
  private async correctShared(batch: Waiting[]): Promise<Waiting[]> {
    try {
      const plans = await correctTogether(
        this.context,
        batch.map((waiting) => waiting.target),
      );
      batch.forEach((waiting, i) => waiting.resolve(plans[i]!));
      return [];
    } catch (err) {
      this.context.logger.debug(
        { err, batch: batch.length },
        "shared correction failed; correcting one by one",
      );
      // An attempt beyond the first for each of them, counted once, under its first target's
      // rule: a backlog's batches are of one rule (batch-choice.ts), so a rule whose batches
      // keep failing (a conflict among the sidecar's own writes) shows; a short queue's may mix.
      this.context.metrics.transactionRetries.inc(targetLabels(batch[0]!.target));
      return batch;
    }
  }
}

function batchable(target: CorrectionTarget): boolean {
  return driverOf(target.rule).planning.independentTargets?.(target.rule, target.role) ?? false;
}

/**
 * One transaction for all `targets`; one attempt, as a failure falls back to single corrections.
 * Planned from reads, never from events (event-plans.ts): one read serves the whole batch, and
 * a guess that failed would undo every correction in it (after a restart, every book already
 * corrected once would).
 */
async function correctTogether(context: CorrectionContext, targets: CorrectionTarget[]): Promise<Plan[]> {
  const startedAt = process.hrtime.bigint();
  const plans = await runTransaction(
    correctionSessions(context),
    { maxAttempts: 1, context: { batch: targets.length } },
    (session) => planAndWrite(context, targets, session, { maxWrites: SHARED_TRANSACTION_MAX_WRITES }),
  );
  const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  recordSharedOutcomes(context, targets, plans, durationMs);
  return plans;
}
