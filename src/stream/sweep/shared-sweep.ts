// Sweeps partitions a group at a time (partition-sweeps.ts): the partitions of one group stand
// at the same checkpoints and are swept in one pass, correcting only their keys, each
// correction fenced by its partition. docs/semantics.md, "Sweeps by partition".
import { partitionOfTarget } from "../partitions/target-partition.js";
import type { PartitionGroup, PartitionSweeps } from "./partition-sweeps.js";
import { sweep, type SweepOptions } from "./sweep.js";

export interface GroupSweepOptions extends Omit<
  SweepOptions,
  "checkpoints" | "owns" | "candidateShare" | "onProgress"
> {
  /** config `partitions`: how many partitions the keys hash into. */
  partitionCount: number;
}

export interface GroupSweepHooks {
  /** Before a group's sweep; what it returns is told of its progress (SweepOptions.onProgress). */
  begin?: (group: PartitionGroup) => Promise<SweepOptions["onProgress"]>;
  /** After a group's sweep completed. */
  swept: (group: PartitionGroup) => Promise<void>;
}

/** Sweeps each group in turn; true when every one completed. */
export async function sweepGroups(
  options: GroupSweepOptions,
  groups: readonly PartitionGroup[],
  hooks: GroupSweepHooks,
): Promise<boolean> {
  const { partitionCount, logger } = options;
  let retryParked = options.retryParked;
  for (const group of groups) {
    if (options.shouldStop?.()) return false;
    const owned = new Set(group.partitions);
    const rules = options.rules.filter((rule) => !group.doneRules.includes(rule.name));
    logger.info({ partitions: group.partitions, resumed: group.resumed }, "sweeping partitions");
    const reports = await sweep({
      ...options,
      rules,
      retryParked,
      owns: (target) => owned.has(partitionOfTarget(target, partitionCount)),
      candidateShare: owned.size / partitionCount,
      checkpoints: { store: group.store, start: group.start },
      onProgress: await hooks.begin?.(group),
    });
    // Parked targets are retried once, before the first group.
    retryParked = undefined;
    if (options.shouldStop?.() || !reports.every((report) => report.completed)) return false;
    await hooks.swept(group);
    logger.info({ partitions: group.partitions }, "partitions swept");
  }
  return true;
}

export interface SharedSweepOptions extends GroupSweepOptions {
  sweeps: PartitionSweeps;
  /** The partitions to sweep: this replica's, those with a pending sweep. */
  partitions: readonly number[];
}

/** Sweeps the partitions' pending first-start or history-lost sweeps; true when all completed. */
export async function sweepPartitions(options: SharedSweepOptions): Promise<boolean> {
  const { sweeps } = options;
  const groups = await sweeps.groups(await sweeps.pending(options.partitions), options.rules);
  return sweepGroups(options, groups, { swept: (group) => sweeps.finish(group.partitions) });
}
