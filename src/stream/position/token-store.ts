// Where the change stream stands, persisted in the state collection, one document per
// stream: `{_id: <stream name>, resumeToken, rulesFingerprint, updatedAt}`.
// A token is written only once every event before it has committed (position-tracker.ts).
import { createHash } from "node:crypto";
import type { Collection, Db, Document } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";
import { CODE, codeOf } from "../../mongodb-codes.js";

export interface StoredPosition {
  _id: string;
  resumeToken: Document;
  /** Which rules the token's stream watched; other rules need a sweep, not a resume. */
  rulesFingerprint: string;
  /** The cluster time (seconds) of the last event the token covers; absent when unknown. */
  clusterTimeSeconds?: number;
  updatedAt: Date;
}

/** Changes whenever the rules change what is watched or how documents are judged. */
export function rulesFingerprint(rules: readonly PatternRule[]): string {
  const enabled = rules.filter((rule) => rule.enabled);
  return createHash("sha256").update(JSON.stringify(enabled)).digest("hex").slice(0, 16);
}

export function streamName(databaseName: string): string {
  return `changestream:${databaseName}`;
}

export class TokenStore {
  private readonly positions: Collection<StoredPosition>;
  private writtenAt: number | undefined;

  constructor(
    db: Db,
    stateCollection: string,
    private readonly name: string,
    private readonly fingerprint: string,
  ) {
    this.positions = db.collection<StoredPosition>(stateCollection);
  }

  /** The stored position, if there is one for these rules. */
  async load(): Promise<StoredPosition | null> {
    const stored = await this.positions.findOne({ _id: this.name });
    if (!stored || stored.rulesFingerprint !== this.fingerprint) return null;
    if (stored.updatedAt instanceof Date) this.writtenAt = stored.updatedAt.getTime();
    return stored;
  }

  async persistResumeToken(resumeToken: Document, clusterTimeSeconds?: number): Promise<void> {
    const updatedAt = new Date();
    await this.positions.updateOne(
      { _id: this.name },
      { $set: { resumeToken, rulesFingerprint: this.fingerprint, updatedAt, clusterTimeSeconds } },
      { upsert: true },
    );
    this.writtenAt = updatedAt.getTime();
  }

  /**
   * Moves the stored position (of these rules) forward to `resumeToken`, never back: replicas
   * streaming by partition advance it each to the oldest position they all passed, and one of
   * them may have read an older one than another wrote. Stores it where there is none (or one
   * of other rules): replicas that began by partition at once, their first start's sweep begun
   * and handed over before any stream led, have no other writer of it. Returns whether it moved.
   */
  async advanceTo(resumeToken: Document, clusterTimeSeconds?: number): Promise<boolean> {
    const updatedAt = new Date();
    // Tokens' string `_data` sorts as the events do (partition-positions.ts).
    const behind = {
      $or: [
        { rulesFingerprint: { $ne: this.fingerprint } },
        { "resumeToken._data": { $lt: resumeToken._data } },
      ],
    };
    try {
      await this.positions.updateOne(
        { _id: this.name, ...behind },
        { $set: { resumeToken, rulesFingerprint: this.fingerprint, updatedAt, clusterTimeSeconds } },
        { upsert: true },
      );
    } catch (err) {
      // Stored already, at or past it: the upsert's insert met the document the filter left out.
      if (codeOf(err) === CODE.DuplicateKey) return false;
      throw err;
    }
    this.writtenAt = updatedAt.getTime();
    return true;
  }

  /**
   * Seconds since the stored position was last written: by this process, or, as `load()`
   * found it, before; undefined while neither happened.
   */
  get secondsSinceLastPersist(): number | undefined {
    return this.writtenAt === undefined ? undefined : (Date.now() - this.writtenAt) / 1000;
  }
}
