// Several ready corrections in one transaction: one fence, one bulk write per collection and
// one commit for the lot, instead of for each. Only targets whose event showed them broken
// (`due`) and whose driver declares corrections of their role independent (disjoint
// documents read and written) share a transaction. Whatever goes wrong in a shared one (a
// stale guard, a write conflict, a refused document, a lost lease) aborts it whole, and
// each target is then corrected on its own, as if it had never been batched: the
// transaction either committed every plan or none, and every correction re-reads anyway.
import type { Plan } from "../patterns/plan.js";
import { driverOf } from "../patterns/registry.js";
import {
  correctionSessions,
  correctTarget,
  planAndWrite,
  recordOutcome,
  type CorrectionContext,
} from "./correction.js";
import type { CorrectionTarget } from "./targets.js";
import { runTransaction } from "./transaction.js";

interface Waiting {
  target: CorrectionTarget;
  resolve: (plan: Plan) => void;
  reject: (error: unknown) => void;
}

export class CorrectionBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly context: CorrectionContext,
    /** At most this many corrections share a transaction. */
    private readonly maxSize: number,
  ) {}

  /** Corrects `target`, sharing a transaction with others that arrive in the same turn. */
  correct(target: CorrectionTarget): Promise<Plan> {
    if (this.maxSize < 2 || !batchable(target)) return correctTarget(this.context, target);
    return new Promise((resolve, reject) => {
      this.waiting.push({ target, resolve, reject });
      if (this.waiting.length >= this.maxSize) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        // After the events of this turn have been dispatched, so that they can join.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting.splice(0, this.maxSize);
    if (this.waiting.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0) return;
    const settle = (waiting: Waiting, plan: Promise<Plan>) => plan.then(waiting.resolve, waiting.reject);
    if (batch.length === 1) {
      void settle(batch[0]!, correctTarget(this.context, batch[0]!.target));
      return;
    }
    correctTogether(
      this.context,
      batch.map((waiting) => waiting.target),
    ).then(
      (plans) => batch.forEach((waiting, i) => waiting.resolve(plans[i]!)),
      (err: unknown) => {
        this.context.logger.debug(
          { err, batch: batch.length },
          "shared correction failed; correcting one by one",
        );
        for (const waiting of batch) void settle(waiting, correctTarget(this.context, waiting.target));
      },
    );
  }
}

function batchable(target: CorrectionTarget): boolean {
  return (
    target.due === true && (driverOf(target.rule).independentTargets?.(target.rule, target.role) ?? false)
  );
}

/** One transaction for all `targets`; one attempt, as a failure falls back to single corrections. */
async function correctTogether(context: CorrectionContext, targets: CorrectionTarget[]): Promise<Plan[]> {
  const startedAt = process.hrtime.bigint();
  const plans = await runTransaction(
    correctionSessions(context),
    { maxAttempts: 1, context: { batch: targets.length } },
    (session) => planAndWrite(context, targets, session),
  );
  const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  targets.forEach((target, i) => recordOutcome(context, target, plans[i]!, durationMs, targets.length));
  return plans;
}
