// A correction retried with backoff while this replica leads: a transient error passes
// (write conflicts, a stepping-down primary), and while it lasts the event stays unfinished
// so that the resume token does not pass it. After `parkAfterAttempts` failures the target
// is parked (src/stream/parking/parked-targets.ts) and the event finishes: one document must not
// freeze the stream until its token falls off the oplog. A document the server refuses for
// good does not get here: correctTarget skips it.
import { classify, toError, TransactionTooLargeError } from "../../errors.js";
import { reportError } from "../../ops/report-error.js";
import { extended } from "../../patterns/bson/extended.js";
import type { Plan } from "../../patterns/plan.js";
import { correctTarget, type CorrectionContext } from "./correction.js";
import type { CorrectionBatcher } from "./correction-batch.js";
import type { ParkedTargets } from "../parking/parked-targets.js";
import { retryWithBackoff } from "../retry.js";
import { targetFields, type CorrectionTarget } from "../events/targets.js";

// Long: what outlasts a transaction's own retries is a failover or an outage.
const CORRECTION_BACKOFF = { baseMs: 200, maxMs: 30_000 };

export interface ParkingContext extends CorrectionContext {
  /** Lets a first attempt share a transaction with others (correction-batch.ts); retries run alone. */
  batcher?: Pick<CorrectionBatcher, "correct">;
  parkAfterAttempts: number;
  parked: Pick<ParkedTargets, "park" | "count">;
}

export interface Leading {
  mayContinue: () => boolean;
  signal: AbortSignal;
}

export async function correctUntilDone(
  context: ParkingContext,
  target: CorrectionTarget,
  leading: Leading,
): Promise<Plan> {
  let attempts = 0;
  try {
    return await retryWithBackoff(
      (attempt) => {
        attempts = attempt;
        return attempt === 1 && context.batcher
          ? context.batcher.correct(target)
          : correctTarget(context, target);
      },
      {
        backoff: CORRECTION_BACKOFF,
        signal: leading.signal,
        shouldRetry: (thrown, attempt) =>
          classify(thrown) !== "lease_lost" &&
          !(thrown instanceof TransactionTooLargeError) &&
          leading.mayContinue() &&
          attempt < context.parkAfterAttempts,
        onRetry: (thrown, attempt) => countFailure(context, target, thrown, attempt, "correction failed"),
      },
    );
  } catch (thrown) {
    if (classify(thrown) === "lease_lost" || !leading.mayContinue() || leading.signal.aborted) throw thrown;
    countFailure(context, target, thrown, attempts, "correction failed; parking it");
    await parkTarget(context, target, toError(thrown), attempts);
    return {
      outcome: "skip",
      reason: `parked after ${attempts} failed corrections: ${toError(thrown).message}`,
    };
  }
}

function countFailure(
  context: CorrectionContext,
  target: CorrectionTarget,
  thrown: unknown,
  attempt: number,
  message: string,
): void {
  reportError(context, thrown, message, {
    level: "error",
    fields: extended(targetFields(target), { attempt }),
  });
}

/** Records the target as parked, counts it and refreshes the gauge. */
export async function parkTarget(
  context: ParkingContext,
  target: CorrectionTarget,
  err: Error,
  attempts: number,
): Promise<void> {
  await context.parked.park(target, err, attempts);
  context.metrics.errors.inc({ kind: "parked" });
  context.metrics.parked.set(await context.parked.count());
  context.logger.error(
    extended(targetFields(target), { err, attempts }),
    "parked document; the stream moves on and the correction is retried with backoff",
  );
}
