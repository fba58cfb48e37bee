// Retries parked targets, one correction each: a success takes the target off the list, a
// failure parks it again with a longer pause. Runs on the leader's timer and before a sweep.
import { classify, LeaseLostError, toError } from "../../errors.js";
import { correctTarget } from "../correction/correction.js";
import type { ParkingContext } from "../correction/correct-until-done.js";
import type { ParkedTargets } from "./parked-targets.js";
import { targetLabels } from "../events/targets.js";

export interface ParkedRetryContext extends ParkingContext {
  parked: ParkedTargets;
}

export async function retryParkedTargets(
  context: ParkedRetryContext,
  options: { dueOnly: boolean; shouldStop: () => boolean },
): Promise<void> {
  for (const target of await context.parked.list(options)) {
    if (options.shouldStop()) break;
    try {
      await correctTarget(context, target);
      await context.parked.unpark(target);
      context.logger.info({ ...targetLabels(target), key: target.id }, "parked document corrected; unparked");
    } catch (thrown) {
      if (thrown instanceof LeaseLostError) throw thrown;
      const kind = classify(thrown);
      context.metrics.errors.inc({ kind });
      context.logger.warn(
        { err: toError(thrown), kind, ...targetLabels(target), key: target.id },
        "parked document still fails",
      );
      await context.parked.park(target, toError(thrown), 1);
    }
  }
  context.metrics.parked.set(await context.parked.count());
}
