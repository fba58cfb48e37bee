// The statement loop every write command shares (insert, update, delete, bulkWrite): in order,
// a failed statement recorded and, when the command is ordered, the last one run. A command of
// thousands of statements (a backlog's batch of corrections, an insertMany) hands the server's
// only thread to the other connections every YIELD_PERIOD_MS of work, as mongod's writes yield
// their locks: a ping or a lease renewal then waits for a slice of the command, not all of it.
// Other connections may see the writes done so far, as on mongod; a transaction's stay its own
// until it commits. A command whose session killSessions kills ends at its next yield with
// Interrupted, the whole command failing rather than a statement, as mongod fails a batch on
// an interruption; the statements before stay written.
import type { Document } from "bson";
import { WorkSlice } from "../yield-period.js";

export async function runStatements<T>(
  statements: readonly T[],
  ordered: boolean,
  run: (statement: T, index: number) => Promise<void>,
  failed: (index: number, error: unknown) => void,
  killed: AbortSignal | undefined,
): Promise<void> {
  const slice = new WorkSlice();
  for (const [index, statement] of statements.entries()) {
    if (slice.over) await slice.next(killed);
    try {
      await run(statement, index);
    } catch (error) {
      failed(index, error);
      if (ordered) return;
    }
  }
}

/**
 * Statement `index` of a retryable write: what an earlier attempt of the command that executed
 * it reported (the statement is then not run again), else `run`'s outcome, recorded when
 * `wrote` says it wrote. mongod answers a retried statement from its record
 * (write_ops_exec.cpp, checkStatementExecuted), so that a retry after a failure part way
 * neither writes twice nor fails on what the first attempt wrote.
 */
export async function onceEach<T extends Document>(
  executed: Map<number, Document> | undefined,
  index: number,
  run: () => Promise<T>,
  wrote: (outcome: T) => boolean,
): Promise<T> {
  const earlier = executed?.get(index);
  if (earlier) return earlier as T;
  const outcome = await run();
  if (wrote(outcome)) executed?.set(index, outcome);
  return outcome;
}
