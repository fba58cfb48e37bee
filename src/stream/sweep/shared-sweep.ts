// Sweeps this replica's partitions whose sweep is pending (partition-sweeps.ts), a group of
// partitions at the same checkpoints at a time, each correction fenced by its partition.
// docs/semantics.md, "Sweeps by partition".
import { partitionOfTarget } from "../partitions/target-partition.js";
import type { PartitionSweeps } from "./partition-sweeps.js";
import { sweep, type SweepOptions } from "./sweep.js";

export interface SharedSweepOptions extends Omit<SweepOptions, "checkpoints" | "owns" | "candidateShare"> {
  sweeps: PartitionSweeps;
  /** The partitions to sweep: this replica's, those with a pending sweep. */
  partitions: readonly number[];
  /** config `partitions`: how many partitions the keys hash into. */
  partitionCount: number;
}

/** Sweeps the partitions' pending sweeps; true when every one completed. */
export async function sweepPartitions(options: SharedSweepOptions): Promise<boolean> {
  const { sweeps, partitionCount, logger } = options;
  const groups = await sweeps.groups(options.partitions, options.rules);
  let retryParked = options.retryParked;
  for (const group of groups) {
    if (options.shouldStop?.()) return false;
    const owned = new Set(group.partitions);
    logger.info({ partitions: group.partitions, resumed: group.resumed }, "sweeping partitions");
    const reports = await sweep({
      ...options,
      retryParked,
      owns: (target) => owned.has(partitionOfTarget(target, partitionCount)),
      candidateShare: owned.size / partitionCount,
      checkpoints: { store: group.store, start: group.start },
    });
    // Parked targets are retried once, before the first group.
    retryParked = undefined;
    if (options.shouldStop?.() || !reports.every((report) => report.completed)) return false;
    await sweeps.finish(group.partitions);
    logger.info({ partitions: group.partitions }, "partitions swept");
  }
  return true;
}
