// A sweep kept per partition so that the replicas share it (a first-start or history-lost one,
// or a requested one under its request's prefix): each partition has its own pending mark and
// checkpoints (`sweep:partition.<n>:…`, sweep-checkpoints.ts), swept by its owner and continued
// by the next. docs/semantics.md, "Sweeps by partition".
import { BSON, type Collection, type Db } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";
import { currentClusterTime } from "../position/cluster-time.js";
import { timeOrder } from "../position/token-time.js";
import { rulesFingerprint } from "../position/token-store.js";
import { DONE_SOURCE, SweepCheckpoints, type SweepCheckpoint, type SweepStart } from "./sweep-checkpoints.js";
import type { CheckpointStore } from "./sweep.js";

/** The runner's own sweeps; a requested sweep's have its request's prefix (sweep-requests.ts). */
const RUNNER_PREFIX = "sweep:";
/** The `sweep` command's checkpoints (and an earlier version's runner's): one sweep of every key. */
const UNPARTITIONED = "^sweep:(?!partition\\.)";

/** Now, noted before a sweep begins (cluster-time.ts). */
export async function noteSweepStart(db: Db): Promise<SweepStart> {
  return { clusterTime: await currentClusterTime(db), startedAt: new Date() };
}

/** The older of two starts. */
export function olderStart(a: SweepStart, b: SweepStart): SweepStart {
  return timeOrder(a.clusterTime) <= timeOrder(b.clusterTime) ? a : b;
}

/** Pending partitions whose sweeps stand at the same checkpoints: swept together, in one pass. */
export interface PartitionGroup {
  partitions: number[];
  store: CheckpointStore;
  /** The oldest of their starts. */
  start: SweepStart;
  /** Whether they continue from checkpoints. */
  resumed: boolean;
  /** The rules their sweeps completed. */
  doneRules: string[];
}

export class PartitionSweeps {
  private readonly state: Collection<SweepCheckpoint>;
  /** Takes a partition and the rest of a checkpoint's `_id` apart. */
  private readonly partitionId: RegExp;

  /** `prefix` tells one sweep's checkpoints from another's, as SweepCheckpoints' does. */
  constructor(
    private readonly db: Db,
    private readonly stateCollection: string,
    private readonly prefix = RUNNER_PREFIX,
  ) {
    this.state = db.collection<SweepCheckpoint>(stateCollection);
    this.partitionId = new RegExp(`^${prefix}partition\\.(\\d+):(.*)$`);
  }

  private prefixOf(partition: number): string {
    return `${this.prefix}partition.${partition}:`;
  }

  private checkpointsOf(partition: number): SweepCheckpoints {
    return new SweepCheckpoints(this.db, this.stateCollection, this.prefixOf(partition));
  }

  /** The pending sweeps among `partitions`, each with the start it keeps. */
  async pending(partitions: readonly number[]): Promise<Map<number, SweepStart>> {
    const ids = partitions.map((partition) => this.checkpointsOf(partition).pendingId);
    const marks = await this.state.find({ _id: { $in: ids } }).toArray();
    return new Map(
      marks.map((mark) => [
        Number(this.partitionId.exec(mark._id)![1]),
        { clusterTime: mark.clusterTime, startedAt: mark.startedAt },
      ]),
    );
  }

  /** Whether any partition's sweep is pending. */
  async anyPending(): Promise<boolean> {
    const marks = { $regex: `^${this.prefix}partition\\.\\d+:pending$` };
    return (await this.state.countDocuments({ _id: marks }, { limit: 1 })) > 0;
  }

  /** Begins the sweeps of `partitions` from `start`; one already pending keeps its own. */
  async begin(partitions: readonly number[], start: SweepStart): Promise<void> {
    for (const partition of partitions) await this.checkpointsOf(partition).markPending(start);
  }

  /** Their history is lost: their sweeps start again from the first documents, from `start`. */
  async restart(partitions: readonly number[], start: SweepStart): Promise<void> {
    for (const partition of partitions) {
      const checkpoints = this.checkpointsOf(partition);
      await checkpoints.clearAll();
      await checkpoints.markPending(start);
    }
  }

  /** Their sweeps completed: their marks go. */
  async finish(partitions: readonly number[]): Promise<void> {
    for (const partition of partitions) await this.checkpointsOf(partition).clearAll();
  }

  /** Whether a sweep of every key was left halfway (by `sweep`, or by an earlier version). */
  async unpartitionedPending(): Promise<boolean> {
    return (await this.state.countDocuments({ _id: { $regex: UNPARTITIONED } }, { limit: 1 })) > 0;
  }

  /**
   * A sweep of every key left halfway becomes a sweep of each of `partitions` from its start,
   * from their first documents: its checkpoints say nothing of a partition's.
   */
  async adoptUnpartitioned(partitions: readonly number[]): Promise<void> {
    const oldest = await this.state.findOne(
      { _id: { $regex: UNPARTITIONED } },
      { sort: { clusterTime: 1 }, projection: { clusterTime: 1, startedAt: 1 } },
    );
    if (!oldest) return;
    await this.begin(partitions, { clusterTime: oldest.clusterTime, startedAt: oldest.startedAt });
    await this.state.deleteMany({ _id: { $regex: UNPARTITIONED } });
  }

  /** The `pending` sweeps (partition to start), grouped by the checkpoints they stand at. */
  async groups(
    pending: ReadonlyMap<number, SweepStart>,
    rules: readonly PatternRule[],
  ): Promise<PartitionGroup[]> {
    const reached = await this.checkpointsReached(pending, rules);
    const byState = new Map<string, number[]>();
    for (const partition of [...pending.keys()].sort((a, b) => a - b)) {
      const state = (reached.get(partition) ?? []).sort().join("\n");
      byState.set(state, [...(byState.get(state) ?? []), partition]);
    }
    return [...byState].map(([state, members]) => {
      const start = members.map((partition) => pending.get(partition)!).reduce(olderStart);
      const stores = members.map((partition) => this.checkpointsOf(partition));
      return {
        partitions: members,
        store: new GroupCheckpoints(stores, start),
        start,
        resumed: state !== "",
        doneRules: rules
          .filter((rule) => state.split("\n").some((line) => line.startsWith(doneMark(rule))))
          .map((rule) => rule.name),
      };
    });
  }

  /** Per pending partition, the checkpoints a sweep would continue from (as `load` reads them). */
  private async checkpointsReached(
    pending: ReadonlyMap<number, SweepStart>,
    rules: readonly PatternRule[],
  ): Promise<Map<number, string[]>> {
    if (pending.size === 0) return new Map();
    const fingerprints = new Map(rules.map((rule) => [rule.name, rulesFingerprint([rule])]));
    const ids = [...pending.keys()].map((partition) => this.prefixOf(partition)).join("|");
    const stored = await this.state.find({ _id: { $regex: `^(${ids})` } }).toArray();
    const reached = new Map<number, string[]>();
    for (const checkpoint of stored) {
      const [, partition, name] = this.partitionId.exec(checkpoint._id)!;
      if (name === "pending" || fingerprints.get(checkpoint.rule) !== checkpoint.ruleFingerprint) continue;
      const after = BSON.EJSON.stringify({ after: checkpoint.after }, { relaxed: false });
      reached.set(Number(partition), [...(reached.get(Number(partition)) ?? []), `${name}=${after}`]);
    }
    return reached;
  }
}

/** How a rule's "done" mark reads in a partition's state (checkpointsReached). */
const doneMark = (rule: PatternRule): string => `${rule.name}:${DONE_SOURCE}=`;

/**
 * The checkpoints of partitions swept together: read from the first, written to each; a rule
 * completed leaves a mark, so that a sweep continued later skips it.
 */
class GroupCheckpoints implements CheckpointStore {
  constructor(
    private readonly stores: readonly SweepCheckpoints[],
    private readonly start: SweepStart,
  ) {}

  load(rule: PatternRule, source: string): Promise<unknown> {
    return this.stores[0]!.load(rule, source);
  }

  async save(rule: PatternRule, source: string, after: unknown, start: SweepStart): Promise<void> {
    await Promise.all(this.stores.map((store) => store.save(rule, source, after, start)));
  }

  async clear(rule: PatternRule): Promise<void> {
    await Promise.all(this.stores.map((store) => store.clear(rule)));
    await Promise.all(this.stores.map((store) => store.markRuleDone(rule, this.start)));
  }
}
