// Creates the collections and indexes the rules rely on, once at start. Collections are
// created up front because a transaction may not be able to create one implicitly (older
// servers, sharded clusters), and indexes cannot be built inside a transaction at all.
import { MongoServerError, type Db, type IndexSpecification, type CreateIndexesOptions } from "mongodb";
import type { Rule } from "../config.js";
import { classify } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";
import { watchedCollections } from "./targets.js";

const NAMESPACE_EXISTS = 48;

interface IndexWanted {
  collection: string;
  keys: IndexSpecification;
  options?: CreateIndexesOptions;
}

function indexesOf(rule: Rule): IndexWanted[] {
  switch (rule.pattern) {
    case "outlier":
      // The seed asks for an index on book_id; with the sequence it also orders the chunks.
      return [
        { collection: rule.overflowCollection, keys: { [rule.referenceField]: 1, [rule.sequenceField]: 1 } },
      ];
    case "bucket":
      return [];
    case "subset":
      return [
        {
          collection: rule.fullSetCollection,
          keys: { [rule.referenceField]: 1, [rule.idField]: 1 },
          options: { unique: true },
        },
        {
          collection: rule.fullSetCollection,
          // Serves the reader's "newest" query, ties broken by idField as the planner ranks them.
          keys: { [rule.referenceField]: 1, [rule.sortField]: -1, [rule.idField]: -1 },
        },
      ];
  }
}

export async function ensureCollectionsAndIndexes(
  db: Db,
  rules: readonly Rule[],
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
  for (const index of rules.flatMap(indexesOf)) {
    try {
      await db.collection(index.collection).createIndex(index.keys, index.options ?? {});
    } catch (err) {
      // Existing duplicates, say, must not keep the sidecar from correcting the rest.
      metrics.errors.inc({ kind: classify(err) });
      logger.error({ err, collection: index.collection, keys: index.keys }, "could not create index");
    }
  }
}
