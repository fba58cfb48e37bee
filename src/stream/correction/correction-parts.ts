// A correction too large to commit in one transaction (docs/semantics.md, "How a correction
// runs"): mongod under cache pressure answers it WriteConflict at every attempt, or
// TransactionTooLargeForCache. It is redone in parts, each a transaction of its own that
// leaves the document within every invariant (PlanContext.maxWrites), halving the part while
// even that does not commit; a pattern that cannot correct in parts is parked ("too_large").
import { CODE, codeOf } from "../../mongodb-codes.js";
import {
  BatchTooLargeError,
  CorrectionFailedError,
  isRetryableTransactionError,
  TransactionTooLargeError,
} from "../../errors.js";
import type { Plan } from "../../patterns/plan.js";
import { extended } from "../../patterns/bson/extended.js";
import { targetFields, type CorrectionTarget } from "../events/targets.js";
import type { Logger } from "../../ops/logger.js";

/** The smallest part worth a transaction: a bucket's cut and one new bucket. */
const MIN_PART_WRITES = 2;

/** Whether `error`, ending a correction whose plan wrote `writes` documents, may be its size. */
export function tooLargeToCommit(error: unknown, writes: number): boolean {
  return writes >= MIN_PART_WRITES * 2 && failedCommitting(error);
}

/** Too large for the cache, or conflicting at every attempt (contention looks alike, and parts are safe). */
function failedCommitting(error: unknown): boolean {
  if (codeOf(error) === CODE.TransactionTooLargeForCache) return true;
  return error instanceof CorrectionFailedError && isRetryableTransactionError(error.cause);
}

export interface PartRunner {
  /** One part's transaction: plans at most `maxWrites` writes (a part, where the pattern can), writes, commits. */
  correctPart(maxWrites: number): Promise<Plan>;
  /** Counts and logs a committed part. */
  recordPart(plan: Plan, durationMs: number): void;
}

/**
 * Corrects `target` in parts of at most half of `writes` writes each, until one completes it.
 * A pattern that cannot make parts fails with `failure` (the whole correction's error) when
 * that was a conflict, to be retried as any other, and is parked as too large otherwise.
 */
export async function correctInParts(
  context: { logger: Logger },
  target: CorrectionTarget,
  writes: number,
  runner: PartRunner,
  failure: unknown,
): Promise<Plan> {
  const fields = targetFields(target);
  context.logger.warn(
    extended(fields, { writes }),
    "correction too large to commit in one transaction; correcting it in parts",
  );
  let maxWrites = Math.floor(writes / 2);
  for (let parts = 1; ;) {
    const startedAt = process.hrtime.bigint();
    let plan: Plan;
    try {
      plan = await runner.correctPart(maxWrites);
    } catch (error) {
      if (
        error instanceof BatchTooLargeError &&
        codeOf(failure) !== CODE.TransactionTooLargeForCache &&
        parts === 1
      )
        throw failure;
      if (error instanceof BatchTooLargeError)
        throw tooLarge(target, `the ${target.rule.pattern} pattern cannot correct it in parts`, error);
      if (!failedCommitting(error)) throw error;
      if (maxWrites < MIN_PART_WRITES * 2)
        throw tooLarge(target, `not even a part of ${maxWrites} writes commits`, error);
      maxWrites = Math.floor(maxWrites / 2);
      continue;
    }
    runner.recordPart(plan, Number(process.hrtime.bigint() - startedAt) / 1e6);
    if (plan.outcome !== "writes" || !plan.partial) {
      context.logger.info(extended(fields, { parts }), "corrected document in parts");
      return plan;
    }
    parts += 1;
  }
}

function tooLarge(target: CorrectionTarget, why: string, cause: unknown): TransactionTooLargeError {
  return new TransactionTooLargeError(
    `correction too large to commit in one transaction, and ${why}`,
    targetFields(target),
    { cause },
  );
}
