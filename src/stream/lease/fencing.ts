// What fences a correction's transaction: the writer lease's fence, or one per partition of
// its targets (partition-leases.ts). docs/semantics.md, "The writer lease" and "Partitions".
import type { ClientSession } from "mongodb";
import type { CorrectionTarget } from "../../patterns/driver.js";
import type { Write } from "../../patterns/plan.js";

/** A fencing write, run in the transaction, and the error its matching nothing means (a lost lease). */
export interface Fence {
  write: Extract<Write, { op: "updateOne" }>;
  takenOver: () => Error;
}

export interface Fencing {
  /**
   * The fences a transaction writing for `targets` on `session` must pass, every one of them;
   * throws a LeaseLostError at once for a lease this replica no longer holds.
   */
  fencesFor(targets: readonly CorrectionTarget[], session: ClientSession): Fence[];
}
