// Each owned partition's stored position, `position.partition.<n>`: a replica taking a
// partition resumes from it. docs/semantics.md, "Partitions".
import type { Collection, Db, Document } from "mongodb";

interface StoredPartitionPosition {
  _id: string;
  resumeToken: Document;
  rulesFingerprint: string;
  updatedAt: Date;
}

const positionId = (partition: number): string => `position.partition.${partition}`;

// mongod's string _data sorts as the events do (SERVER-34313, DOCS-11616); the embedded server's too.
const olderOf = (a: Document, b: Document): Document => (String(a._data) <= String(b._data) ? a : b);

export class PartitionPositions {
  private readonly positions: Collection<StoredPartitionPosition>;

  constructor(
    db: Db,
    stateCollection: string,
    private readonly fingerprint: string,
  ) {
    this.positions = db.collection<StoredPartitionPosition>(stateCollection);
  }

  /** Stores `resumeToken` (covering only committed work) as each owned partition's position. */
  async persist(owned: readonly number[], resumeToken: Document): Promise<void> {
    if (owned.length === 0) return;
    const update = { $set: { resumeToken, rulesFingerprint: this.fingerprint, updatedAt: new Date() } };
    await this.positions.bulkWrite(
      owned.map((partition) => ({
        updateOne: { filter: { _id: positionId(partition) }, update, upsert: true },
      })),
      { ordered: false },
    );
  }

  /**
   * Where a stream of `owned` starts: the oldest of their stored positions, `fallback` (the
   * writer lease's stream position) for one never stored; undefined when one has neither.
   * Redoing a correction already done is harmless (docs/semantics.md).
   */
  async oldest(owned: readonly number[], fallback: Document | undefined): Promise<Document | undefined> {
    const stored = await this.positions.find({ _id: { $in: owned.map(positionId) } }).toArray();
    const byId = new Map(
      stored
        .filter((doc) => doc.rulesFingerprint === this.fingerprint)
        .map((doc) => [doc._id, doc.resumeToken]),
    );
    const tokens = owned.map((partition) => byId.get(positionId(partition)) ?? fallback);
    if (tokens.some((token) => token === undefined)) return undefined;
    return (tokens as Document[]).reduce(olderOf);
  }
}
