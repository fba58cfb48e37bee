// Sweeps partitions a group at a time (partition-sweeps.ts): the partitions of one group stand
// at the same checkpoints and are swept in one pass, correcting only their keys, each
// correction fenced by its partition. docs/semantics.md, "Sweeps by partition".
import type { PartitionSweepKind } from "../../ops/metrics.js";
import { partitionOfTarget } from "../partitions/target-partition.js";
import type { PartitionGroup, PartitionSweeps } from "./partition-sweeps.js";
import { sweep, type SweepOptions } from "./sweep.js";

export interface GroupSweepOptions extends Omit<
  SweepOptions,
  "checkpoints" | "owns" | "candidateShare" | "onProgress"
> {
  /** config `partitions`: how many partitions the keys hash into. */
  partitionCount: number;
  /** Which sweep, for `sweep_partitions_pending`. */
  kind: PartitionSweepKind;
}

export interface GroupSweepHooks {
  /** Before a group's sweep; what it returns is told of its progress (SweepOptions.onProgress). */
  begin?: (group: PartitionGroup) => Promise<SweepOptions["onProgress"]>;
  /** After a group's sweep completed. */
  swept: (group: PartitionGroup) => Promise<void>;
}

/** Sweeps each group in turn; true when every one completed. The gauge counts the partitions left. */
export async function sweepGroups(
  options: GroupSweepOptions,
  groups: readonly PartitionGroup[],
  hooks: GroupSweepHooks,
): Promise<boolean> {
  const pending = options.metrics?.sweepPartitionsPending.labels({ sweep: options.kind });
  let left = groups.reduce((count, group) => count + group.partitions.length, 0);
  pending?.set(left);
  try {
    for (const group of groups) {
      if (!(await sweepGroup(options, group, hooks, group === groups[0]))) return false;
      left -= group.partitions.length;
      pending?.set(left);
    }
    return true;
  } finally {
    // Stopped, the partitions left are no longer this replica's to sweep.
    pending?.set(0);
  }
}

/** One group's sweep (the first retries the parked targets first); true when it completed. */
async function sweepGroup(
  options: GroupSweepOptions,
  group: PartitionGroup,
  hooks: GroupSweepHooks,
  first: boolean,
): Promise<boolean> {
  const { partitionCount, logger } = options;
  if (options.shouldStop?.()) return false;
  const owned = new Set(group.partitions);
  const rules = options.rules.filter((rule) => !group.doneRules.includes(rule.name));
  logger.info({ partitions: group.partitions, resumed: group.resumed }, "sweeping partitions");
  const reports = await sweep({
    ...options,
    rules,
    // Parked targets are retried once, before the first group.
    retryParked: first ? options.retryParked : undefined,
    owns: (target) => owned.has(partitionOfTarget(target, partitionCount)),
    candidateShare: owned.size / partitionCount,
    checkpoints: { store: group.store, start: group.start },
    onProgress: await hooks.begin?.(group),
  });
  if (options.shouldStop?.() || !reports.every((report) => report.completed)) return false;
  await hooks.swept(group);
  logger.info({ partitions: group.partitions }, "partitions swept");
  return true;
}

export interface SharedSweepOptions extends Omit<GroupSweepOptions, "kind"> {
  sweeps: PartitionSweeps;
  /** The partitions to sweep: this replica's, those with a pending sweep. */
  partitions: readonly number[];
}

/** Sweeps the partitions' pending first-start or history-lost sweeps; true when all completed. */
export async function sweepPartitions(options: SharedSweepOptions): Promise<boolean> {
  const { sweeps } = options;
  const groups = await sweeps.groups(await sweeps.pending(options.partitions), options.rules);
  return sweepGroups({ ...options, kind: "shared" }, groups, {
    swept: (group) => sweeps.finish(group.partitions),
  });
}
