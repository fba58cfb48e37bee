// Retries parked targets, one correction each: a success takes the target off the list, a
// failure parks it again with a longer pause. Runs on the leader's timer and before a sweep, over
// the targets of the partitions this replica owns.
import { classify, toError } from "../../errors.js";
import { reportError } from "../../ops/report-error.js";
import { correctTarget } from "../correction/correction.js";
import type { ParkingContext } from "../correction/correct-until-done.js";
import type { ParkedTargets } from "./parked-targets.js";
import { targetFields, type CorrectionTarget } from "../events/targets.js";

export interface ParkedRetryContext extends ParkingContext {
  parked: ParkedTargets;
}

export async function retryParkedTargets(
  context: ParkedRetryContext,
  options: {
    dueOnly: boolean;
    shouldStop: () => boolean;
    /** Whether this replica corrects the target's document (key-ownership.ts); absent: all of them. */
    owns?: (target: CorrectionTarget) => boolean;
  },
): Promise<void> {
  for (const target of await context.parked.list(options)) {
    if (options.shouldStop()) break;
    // Another replica's partition: its owner retries it.
    if (options.owns && !options.owns(target)) continue;
    try {
      await correctTarget(context, target);
      await context.parked.unpark(target);
      context.logger.info(targetFields(target), "parked document corrected; unparked");
    } catch (thrown) {
      if (classify(thrown) === "lease_lost") throw thrown;
      reportError(context, thrown, "parked document still fails", { fields: targetFields(target) });
      await context.parked.park(target, toError(thrown), 1);
    }
  }
  context.metrics.parked.set(await context.parked.count());
}
