// How long the server's only thread works for one command before the other connections get a
// turn: mongod's queries and writes yield their locks after this much work
// (internalQueryExecYieldPeriodMS). A change stream draining a backlog, a write command of
// many statements and a collection scan all yield on it.
import { setImmediate as yieldToOtherConnections } from "node:timers/promises";
import { interrupted } from "./errors.js";

export { yieldToOtherConnections };

export const YIELD_PERIOD_MS = 10;

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

/**
 * Runs `steps`, handing the thread to the other connections every YIELD_PERIOD_MS of work. A
 * `killed` operation (killSessions) ends at its next yield with Interrupted, as on mongod.
 */
export async function runYielding<T>(steps: Steps<T>, killed?: AbortSignal): Promise<T> {
  let sliceEnds = Date.now() + YIELD_PERIOD_MS;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (Date.now() >= sliceEnds) {
      await yieldToOtherConnections();
      if (killed?.aborted) throw interrupted();
      sliceEnds = Date.now() + YIELD_PERIOD_MS;
    }
  }
}
