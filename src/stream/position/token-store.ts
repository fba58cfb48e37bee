// Where the change stream stands, persisted in the state collection, one document per
// stream: `{_id: <stream name>, resumeToken, rulesFingerprint, updatedAt}`.
// A token is written only once every event before it has committed (position-tracker.ts).
import { createHash } from "node:crypto";
import type { Collection, Db, Document } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";

export interface StoredPosition {
  _id: string;
  resumeToken: Document;
  /** Which rules the token's stream watched; other rules need a sweep, not a resume. */
  rulesFingerprint: string;
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

  async persistResumeToken(resumeToken: Document): Promise<void> {
    const updatedAt = new Date();
    await this.positions.updateOne(
      { _id: this.name },
      { $set: { resumeToken, rulesFingerprint: this.fingerprint, updatedAt } },
      { upsert: true },
    );
    this.writtenAt = updatedAt.getTime();
  }

  /**
   * Seconds since the stored position was last written: by this process, or, as `load()`
   * found it, before; undefined while neither happened.
   */
  get secondsSinceLastPersist(): number | undefined {
    return this.writtenAt === undefined ? undefined : (Date.now() - this.writtenAt) / 1000;
  }
}
