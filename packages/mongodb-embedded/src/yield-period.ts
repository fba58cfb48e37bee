// How long the server's only thread works for one command before the other connections get a
// turn. A change stream draining a backlog, a write command of many statements and a
// collection scan all yield on it, where mongod's queries and writes yield their locks (every
// 10 ms of work, internalQueryExecYieldPeriodMS). mongod's other connections never wait for
// those 10 ms, each running on a thread of its own; here they wait for the slices run before
// their command is read, so a slice is shorter than mongod's period, and the busy commands
// take their turns one per pass of the event loop (waitForTurn).
import { interrupted } from "./errors.js";

/**
 * In the backlog bench's drain with corrections (a change stream's getMore and eight batches
 * of corrections at once), 10 ms slices let a ping wait over 100 ms in about a third of
 * ad-hoc rounds; 2 ms slices in none of eight, at the same drain rate.
 */
export const YIELD_PERIOD_MS = 2;

/** The commands that yielded, in the order they will resume. */
const waitingForTurn: (() => void)[] = [];
let turnScheduled = false;

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  setImmediate(giveNextTurn);
}

function giveNextTurn(): void {
  turnScheduled = false;
  waitingForTurn.shift()?.();
  if (waitingForTurn.length > 0) scheduleTurn();
}

/**
 * Resumes when every command that yielded before has had its turn, one per pass of the event
 * loop: a busy command's next slice runs, then the loop reads the sockets again. Each command
 * yielding through its own setImmediate would run every busy command's slice before the next
 * read, so that a ping waited for all of them: in ad-hoc drains with corrections (a change
 * stream's getMore and eight batches of corrections at once, the loop timed by a 1 ms timer),
 * the loop's stalls over 12 ms were then more frequent and longer than with one turn per pass.
 */
export function waitForTurn(): Promise<void> {
  return new Promise((resume) => {
    waitingForTurn.push(resume);
    scheduleTurn();
  });
}

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
    await waitForTurn();
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
