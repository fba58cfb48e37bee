// A correction retried with backoff for as long as this replica leads: a transient error
// passes (write conflicts, a stepping-down primary), and while it lasts the event stays
// unfinished so that the resume token does not pass it. A document the server refuses for
// good does not get here: correctTarget skips it.
import { classify, LeaseLostError, toError } from "../errors.js";
import type { Plan } from "../patterns/plan.js";
import { correctTarget, type CorrectionContext } from "./correction.js";
import { retryWithBackoff } from "./retry.js";
import { targetLabels, type CorrectionTarget } from "./targets.js";

// Long: what outlasts a transaction's own retries is a failover or an outage.
const CORRECTION_BACKOFF = { baseMs: 200, maxMs: 30_000 };

export function correctUntilDone(
  context: CorrectionContext,
  target: CorrectionTarget,
  leading: { mayContinue: () => boolean; signal: AbortSignal },
): Promise<Plan> {
  return retryWithBackoff(() => correctTarget(context, target), {
    backoff: CORRECTION_BACKOFF,
    signal: leading.signal,
    shouldRetry: (thrown) => !(thrown instanceof LeaseLostError) && leading.mayContinue(),
    onRetry: (thrown, attempt) => {
      const kind = classify(thrown);
      context.metrics.errors.inc({ kind });
      context.logger.error(
        { err: toError(thrown), kind, ...targetLabels(target), key: target.id, attempt },
        "correction failed",
      );
    },
  });
}
