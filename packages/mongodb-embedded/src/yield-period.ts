// How long the server's only thread works for one command before the other connections get a
// turn: mongod's queries and writes yield their locks after this much work
// (internalQueryExecYieldPeriodMS). A change stream draining a backlog, a write command of
// many statements and a collection scan all yield on it.
import { setImmediate as yieldToOtherConnections } from "node:timers/promises";
import { interrupted } from "./errors.js";

export const YIELD_PERIOD_MS = 10;

/** A command's work, YIELD_PERIOD_MS at a time. */
export class WorkSlice {
  private ends = Date.now() + YIELD_PERIOD_MS;

  /** True once this slice has run its period. */
  get over(): boolean {
    return Date.now() >= this.ends;
  }

  /**
   * Hands the thread to the other connections, then starts the next slice. A `killed`
   * operation (killSessions) ends here with Interrupted, as on mongod.
   */
  async next(killed?: AbortSignal): Promise<void> {
    await yieldToOtherConnections();
    if (killed?.aborted) throw interrupted();
    this.ends = Date.now() + YIELD_PERIOD_MS;
  }
}

/**
 * Work that pauses at points where it may give the thread away (a scan between documents);
 * whoever runs it decides whether it does.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end without giving the thread away: a transaction's read, a $lookup's. */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` in WorkSlices; a `killed` operation ends at its next yield. */
export async function runYielding<T>(steps: Steps<T>, killed?: AbortSignal): Promise<T> {
  const slice = new WorkSlice();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slice.over) await slice.next(killed);
  }
}
