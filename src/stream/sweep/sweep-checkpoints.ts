// Where each rule's sweep stands, so that a sweep killed or stopped halfway continues after
// the last page it finished instead of from the first document. One document per rule and
// candidate source in the state collection:
// `{_id: "sweep:<rule>:<source>", rule, after, ruleFingerprint, startedAt, clusterTime, updatedAt}`
// (a requested sweep's start with its request's id instead of "sweep:").
// `clusterTime` is the time noted before the sweep that wrote the checkpoint first started:
// a stream opened at it after the resumed sweep sees everything written since that sweep
// began, including before the checkpoint, where the resumed sweep does not look again.
import type { Collection, Db, Timestamp } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";
import { currentClusterTime } from "../position/cluster-time.js";
import { rulesFingerprint } from "../position/token-store.js";

export interface SweepCheckpoint {
  _id: string;
  rule: string;
  /** The source's key the sweep finished; it continues after it. */
  after: unknown;
  /** A checkpoint of a rule since changed is ignored: documents before it may now be judged otherwise. */
  ruleFingerprint: string;
  startedAt: Date;
  clusterTime: Timestamp;
  updatedAt: Date;
}

/** When a sweep started: the cluster time noted before it, and the wall-clock time. */
export interface SweepStart {
  clusterTime: Timestamp;
  startedAt: Date;
}

/** The runner's and `sweep`'s checkpoints; a requested sweep's have their own (sweep-requests.ts). */
const SWEEP_CHECKPOINT_PREFIX = "sweep:";
/** The source name of a rule's "done" mark (markRuleDone): no driver names a source so. */
export const DONE_SOURCE = "done";

export class SweepCheckpoints {
  private readonly checkpoints: Collection<SweepCheckpoint>;
  /** Matches every checkpoint of this sweep, and only those. */
  private readonly ids: RegExp;

  /** `prefix` tells one sweep's checkpoints from another's; it must be a plain word and a colon. */
  constructor(
    db: Db,
    stateCollection: string,
    private readonly prefix = SWEEP_CHECKPOINT_PREFIX,
  ) {
    this.checkpoints = db.collection<SweepCheckpoint>(stateCollection);
    this.ids = new RegExp(`^${prefix}`);
  }

  /** Marks a sweep the runner began and has not finished, checkpoint or not. */
  get pendingId(): string {
    return `${this.prefix}pending`;
  }

  private checkpointId(rule: PatternRule, source: string): string {
    return `${this.prefix}${rule.name}:${source}`;
  }

  /**
   * The start of the oldest interrupted sweep, which the next continues; else now, noted
   * before the sweep (cluster-time.ts).
   */
  async start(db: Db): Promise<SweepStart> {
    const oldest = await this.checkpoints.findOne(
      { _id: { $regex: this.ids } },
      { sort: { clusterTime: 1 }, projection: { clusterTime: 1, startedAt: 1 } },
    );
    if (oldest) return { clusterTime: oldest.clusterTime, startedAt: oldest.startedAt };
    return { clusterTime: await currentClusterTime(db), startedAt: new Date() };
  }

  /** Whether a sweep began and did not finish (the runner's, or one `sweep` left halfway). */
  async pending(): Promise<boolean> {
    return (await this.checkpoints.countDocuments({ _id: { $regex: this.ids } }, { limit: 1 })) > 0;
  }

  /** The runner begins (or continues) a sweep: `start()`, marked pending until `finish()`. */
  async begin(db: Db): Promise<SweepStart> {
    const start = await this.start(db);
    await this.markPending(start);
    return start;
  }

  /** Marks this sweep pending from `start`, unless it already is (it keeps its first start). */
  async markPending(start: SweepStart): Promise<void> {
    await this.checkpoints.updateOne(
      { _id: this.pendingId },
      { $setOnInsert: { startedAt: start.startedAt, clusterTime: start.clusterTime } },
      { upsert: true },
    );
  }

  /** Every rule's sweep completed. */
  async finish(): Promise<void> {
    await this.checkpoints.deleteOne({ _id: this.pendingId });
  }

  /** The key to continue `source` of `rule` after; undefined to start from its first. */
  async load(rule: PatternRule, source: string): Promise<unknown> {
    const stored = await this.checkpoints.findOne({ _id: this.checkpointId(rule, source) });
    return stored?.ruleFingerprint === rulesFingerprint([rule]) ? stored.after : undefined;
  }

  /** Notes that `source` of `rule` is swept up to `after`, by the sweep `start` describes. */
  async save(rule: PatternRule, source: string, after: unknown, start: SweepStart): Promise<void> {
    await this.checkpoints.updateOne(
      { _id: this.checkpointId(rule, source) },
      {
        $set: { rule: rule.name, after, ruleFingerprint: rulesFingerprint([rule]), updatedAt: new Date() },
        // A resumed sweep keeps the start of the sweep it continues.
        $setOnInsert: { startedAt: start.startedAt, clusterTime: start.clusterTime },
      },
      { upsert: true },
    );
  }

  /** Notes that the rule's sweep completed, for a sweep that goes on with others (partition-sweeps.ts). */
  async markRuleDone(rule: PatternRule, start: SweepStart): Promise<void> {
    await this.save(rule, DONE_SOURCE, null, start);
  }

  /** The rule's sweep completed: the next one starts from the first documents. */
  async clear(rule: PatternRule): Promise<void> {
    await this.checkpoints.deleteMany({ _id: { $regex: this.ids }, rule: rule.name });
  }

  /** Forgets every interrupted sweep: a stream from their time cannot be opened any more. */
  async clearAll(): Promise<void> {
    await this.checkpoints.deleteMany({ _id: { $regex: this.ids } });
  }
}
