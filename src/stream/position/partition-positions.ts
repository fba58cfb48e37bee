// Each owned partition's stored position, `position.partition.<n>`: a replica taking a
// partition resumes from it. docs/semantics.md, "Partitions".
import type { Collection, Db, Document } from "mongodb";

interface StoredPartitionPosition {
  _id: string;
  resumeToken: Document;
  rulesFingerprint: string;
  updatedAt: Date;
}

const POSITION_PREFIX = "position.partition.";
const positionId = (partition: number): string => `${POSITION_PREFIX}${partition}`;

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

  /** The stored position of each of `partitions` that has one, stored for these rules. */
  async stored(partitions: readonly number[]): Promise<Map<number, Document>> {
    const stored = await this.positions.find({ _id: { $in: partitions.map(positionId) } }).toArray();
    const current = stored.filter((doc) => doc.rulesFingerprint === this.fingerprint);
    return new Map(current.map((doc) => [Number(doc._id.slice(POSITION_PREFIX.length)), doc.resumeToken]));
  }

  /** Whether any partition's position is stored, for these rules. */
  async anyStored(): Promise<boolean> {
    const filter = {
      _id: { $regex: `^${POSITION_PREFIX.replaceAll(".", "\\.")}` },
      rulesFingerprint: this.fingerprint,
    };
    return (await this.positions.countDocuments(filter, { limit: 1 })) > 0;
  }

  /** Forgets the positions of `partitions`: their history is lost, a sweep starts them again. */
  async forget(partitions: readonly number[]): Promise<void> {
    await this.positions.deleteMany({ _id: { $in: partitions.map(positionId) } });
  }
}
