// Creates the collections and indexes the rules rely on, once at start. Collections are
// created up front because a transaction may not be able to create one implicitly (older
// servers, sharded clusters), and indexes cannot be built inside a transaction at all.
import { MongoServerError, type Db } from "mongodb";
import { classify } from "../errors.js";
import type { Logger } from "../ops/logger.js";
import type { Metrics } from "../ops/metrics.js";
import type { PatternRule } from "../patterns/driver.js";
import { driverOf } from "../patterns/registry.js";
import { watchedCollections } from "./targets.js";

const NAMESPACE_EXISTS = 48;

export async function ensureCollectionsAndIndexes(
  db: Db,
  rules: readonly PatternRule[],
  stateCollection: string,
  logger: Logger,
  metrics: Pick<Metrics, "errors">,
): Promise<void> {
  for (const name of [...watchedCollections(rules), stateCollection]) {
    try {
      await db.createCollection(name);
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
    }
  }
  for (const index of rules.flatMap((rule) => driverOf(rule).indexes(rule))) {
    try {
      await db.collection(index.collection).createIndex(index.keys, index.options ?? {});
    } catch (err) {
      // Existing duplicates, say, must not keep the sidecar from correcting the rest.
      metrics.errors.inc({ kind: classify(err) });
      logger.error({ err, collection: index.collection, keys: index.keys }, "could not create index");
    }
  }
}
