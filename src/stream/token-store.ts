// Where the change stream stands, persisted in the state collection, one document per
// stream: `{_id: <stream name>, resumeToken, clusterTime, rulesFingerprint, updatedAt}`.
// A token is written only once every event before it has committed (position-tracker.ts).
import { createHash } from "node:crypto";
import type { Collection, Db, Document, Timestamp } from "mongodb";
import type { Rule } from "../config.js";

export interface StoredPosition {
  _id: string;
  resumeToken: Document;
  clusterTime?: Timestamp;
  /** Which rules the token's stream watched; other rules need a sweep, not a resume. */
  rulesFingerprint: string;
  updatedAt: Date;
}

/** Changes whenever the rules change what is watched or how documents are judged. */
export function rulesFingerprint(rules: readonly Rule[]): string {
  const enabled = rules.filter((rule) => rule.enabled);
  return createHash("sha256").update(JSON.stringify(enabled)).digest("hex").slice(0, 16);
}

export function streamName(databaseName: string): string {
  return `changestream:${databaseName}`;
}

export class TokenStore {
  private readonly positions: Collection<StoredPosition>;
  private lastPersistedAt: number | undefined;

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
    return stored;
  }

  async persistResumeToken(resumeToken: Document, clusterTime?: Timestamp): Promise<void> {
    await this.positions.updateOne(
      { _id: this.name },
      {
        $set: {
          resumeToken,
          ...(clusterTime ? { clusterTime } : {}),
          rulesFingerprint: this.fingerprint,
          updatedAt: new Date(),
        },
      },
      { upsert: true },
    );
    this.lastPersistedAt = Date.now();
  }

  /** Seconds since this process last persisted a token; undefined before the first. */
  get secondsSinceLastPersist(): number | undefined {
    return this.lastPersistedAt === undefined ? undefined : (Date.now() - this.lastPersistedAt) / 1000;
  }
}
