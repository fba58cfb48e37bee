// Each partition's stored position, `position.partition.<n>`: a replica taking a partition
// resumes from it; and the shared position (`changestream:<db>`), which moves up to the
// oldest of them all. docs/semantics.md, "Partitions"; docs/operations.md, "Positions".
import type { Collection, Db, Document } from "mongodb";
import type { StoredPosition } from "./token-store.js";

interface StoredPartitionPosition {
  _id: string;
  resumeToken: Document;
  rulesFingerprint: string;
  /** The cluster time (seconds) of the last event the token covers; absent when unknown. */
  clusterTimeSeconds?: number;
  updatedAt: Date;
}

/** A position every partition has passed: the token and its event's cluster time. */
export interface PassedByAll {
  resumeToken: Document;
  clusterTimeSeconds?: number;
}

const POSITION_PREFIX = "position.partition.";
const positionId = (partition: number): string => `${POSITION_PREFIX}${partition}`;

// mongod's string _data sorts as the events do (SERVER-34313, DOCS-11616); the embedded server's too.
export const isOlder = (a: Document, b: Document): boolean => String(a._data) < String(b._data);
const olderOf = <T extends { resumeToken: Document }>(a: T, b: T): T =>
  isOlder(b.resumeToken, a.resumeToken) ? b : a;
const newerOf = <T extends { resumeToken: Document }>(a: T, b: T): T =>
  isOlder(a.resumeToken, b.resumeToken) ? b : a;

export class PartitionPositions {
  private readonly positions: Collection<StoredPartitionPosition>;
  private writtenAt: number | undefined;
  /** The token this process last stored as its partitions' position. */
  private lastStored: Document | undefined;

  constructor(
    db: Db,
    stateCollection: string,
    private readonly fingerprint: string,
  ) {
    this.positions = db.collection<StoredPartitionPosition>(stateCollection);
  }

  /** Stores `resumeToken` (covering only committed work) as each owned partition's position. */
  async persist(owned: readonly number[], resumeToken: Document, clusterTimeSeconds?: number): Promise<void> {
    if (owned.length === 0) return;
    const updatedAt = new Date();
    const update = {
      $set: { resumeToken, rulesFingerprint: this.fingerprint, updatedAt, clusterTimeSeconds },
    };
    await this.positions.bulkWrite(
      owned.map((partition) => ({
        updateOne: { filter: { _id: positionId(partition) }, update, upsert: true },
      })),
      { ordered: false },
    );
    this.writtenAt = updatedAt.getTime();
    this.lastStored = resumeToken;
  }

  /** Whether `passed` is older than (or, undefined, short of) the position this process last stored. */
  behindOwn(passed: PassedByAll | undefined): boolean {
    if (this.lastStored === undefined) return false;
    return passed === undefined || isOlder(passed.resumeToken, this.lastStored);
  }

  /** Seconds since this process last stored its partitions' positions; undefined before. */
  get secondsSinceLastPersist(): number | undefined {
    return this.writtenAt === undefined ? undefined : (Date.now() - this.writtenAt) / 1000;
  }

  /**
   * The position every one of `partitions` partitions has passed: the oldest of them all, each
   * the newer of its stored token and the shared position (which every partition has passed),
   * the shared one for a partition never stored; undefined while one has neither.
   */
  passedByAll(partitions: number, shared: StoredPosition | null): Promise<PassedByAll | undefined> {
    const all = Array.from({ length: partitions }, (_, partition) => partition);
    return this.effective(all, shared).then((positions) => positions?.reduce(olderOf));
  }

  private async effective(
    partitions: readonly number[],
    shared: StoredPosition | null,
  ): Promise<PassedByAll[] | undefined> {
    const byId = new Map((await this.current(partitions)).map((doc) => [doc._id, doc]));
    const positions = partitions.map((partition) => {
      const own = byId.get(positionId(partition));
      return own && shared ? newerOf<PassedByAll>(own, shared) : (own ?? shared ?? undefined);
    });
    if (positions.some((position) => position === undefined)) return undefined;
    return (positions as PassedByAll[]).map(({ resumeToken, clusterTimeSeconds }) => ({
      resumeToken,
      clusterTimeSeconds,
    }));
  }

  /** The stored position of each of `partitions` that has one, stored for these rules. */
  async stored(partitions: readonly number[]): Promise<Map<number, Document>> {
    const current = await this.current(partitions);
    return new Map(current.map((doc) => [Number(doc._id.slice(POSITION_PREFIX.length)), doc.resumeToken]));
  }

  /** The position documents of `partitions` stored for these rules (another rule set's are stale). */
  private async current(partitions: readonly number[]): Promise<StoredPartitionPosition[]> {
    const stored = await this.positions.find({ _id: { $in: partitions.map(positionId) } }).toArray();
    return stored.filter((doc) => doc.rulesFingerprint === this.fingerprint);
  }

  /** Whether any partition's position is stored, for these rules. */
  async anyStored(): Promise<boolean> {
    // find, not countDocuments: an aggregate here would meet fail points set for the stream's.
    const filter = {
      _id: { $regex: `^${POSITION_PREFIX.replaceAll(".", "\\.")}` },
      rulesFingerprint: this.fingerprint,
    };
    return (await this.positions.findOne(filter, { projection: { _id: 1 } })) !== null;
  }

  /** Forgets the positions of `partitions`: their history is lost, a sweep starts them again. */
  async forget(partitions: readonly number[]): Promise<void> {
    await this.positions.deleteMany({ _id: { $in: partitions.map(positionId) } });
  }
}
