// Writes a running sidecar never sees, as after a time its rules were disabled: the stored
// resume token is moved past them, so that only a sweep finds what they broke.
import type { Db } from "mongodb";
import type { Config } from "../../src/config/schema.js";
import { rulesFingerprint, streamName, TokenStore } from "../../src/stream/position/token-store.js";

/** Stores, for `config`'s rules, a resume token past every write made so far. */
export async function storeTokenPastEveryWrite(db: Db, config: Config): Promise<void> {
  const stream = db.watch();
  try {
    await stream.tryNext();
    const token = stream.resumeToken;
    if (!token) throw new Error("the change stream gave no resume token");
    const rules = config.rules.filter((rule) => rule.enabled);
    const tokens = new TokenStore(
      db,
      config.stateCollection,
      streamName(db.databaseName),
      rulesFingerprint(rules),
    );
    await tokens.persistResumeToken(token);
  } finally {
    await stream.close();
  }
}
