// Creates the collections, collection options and indexes the rules rely on, at start and
// again when a drop or rename took them. Collections are created up front because a
// transaction may not be able to create one implicitly (older servers, sharded clusters),
// and indexes cannot be built inside a transaction at all.
import { isDeepStrictEqual } from "node:util";
import { MongoServerError, type CollectionInfo, type Db, type Document } from "mongodb";
import { classify } from "../errors.js";
import { CODE } from "../mongodb-codes.js";
import type { Logger } from "../ops/logger.js";
import type { Metrics } from "../ops/metrics.js";
import { reportError } from "../ops/report-error.js";
import type { CollectionOptionWanted, IndexWanted, PatternRule } from "../patterns/driver.js";
import { driverOf, stateRecordsOf } from "../patterns/registry.js";
import { watchedCollections } from "./events/targets.js";

/**
 * Returns the rules as they can be enforced here: a rule whose collection option the server
 * refused (the sidecar's user lacks collMod, say) comes back as its driver's fallback.
 */
export async function ensureCollectionsAndIndexes(
  db: Db,
  rules: readonly PatternRule[],
  stateCollection: string,
  logger: Logger,
  metrics: Pick<Metrics, "errors">,
): Promise<PatternRule[]> {
  // What exists is left alone: on mongod, collMod queues behind open transactions (the
  // applications' writes then stall behind it) and an index build waits for every voter.
  const existing = new Map(
    (await db.listCollections({}, { nameOnly: false }).toArray()).map((c) => [c.name, c]),
  );
  for (const name of ownNamespaces(rules, stateCollection)) {
    if (existing.has(name)) continue;
    try {
      await db.createCollection(name);
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === CODE.NamespaceExists)) throw error;
    }
  }
  const enforced = [];
  for (const rule of rules) enforced.push(await setCollectionOptions(db, rule, existing, logger));
  const wanted = [
    ...rules.flatMap((rule) => driverOf(rule).collections.indexes(rule)),
    ...stateRecordsOf(rules).flatMap((records) => records.indexes(stateCollection)),
  ];
  for (const index of await missingIndexes(db, wanted)) await createIndex(db, index, logger, metrics);
  return enforced;
}

/** The collections the rules and the sidecar itself read and write: the only drops that matter. */
export function ownNamespaces(rules: readonly PatternRule[], stateCollection: string): string[] {
  return [...watchedCollections(rules), stateCollection];
}

/** The wanted indexes whose keys no index of their collection has yet. */
async function missingIndexes(db: Db, wanted: readonly IndexWanted[]): Promise<IndexWanted[]> {
  const keysByCollection = new Map<string, string[]>();
  for (const collection of new Set(wanted.map((index) => index.collection))) {
    const indexes = await db
      .collection(collection)
      .listIndexes()
      .toArray()
      .catch((error: unknown) => {
        // A collection not made yet has no index; anything else is the caller's to see.
        if (error instanceof MongoServerError && error.code === CODE.NamespaceNotFound) return [];
        throw error;
      });
    keysByCollection.set(
      collection,
      indexes.map((index) => JSON.stringify(index.key)),
    );
  }
  return wanted.filter(
    (index) => !keysByCollection.get(index.collection)?.includes(JSON.stringify(index.keys)),
  );
}

async function createIndex(
  db: Db,
  index: IndexWanted,
  logger: Logger,
  metrics: Pick<Metrics, "errors">,
): Promise<void> {
  try {
    await db.collection(index.collection).createIndex(index.keys, index.options ?? {});
  } catch (err) {
    // Existing duplicates, say, must not keep the sidecar from correcting the rest.
    reportError({ metrics, logger }, err, "could not create index", {
      level: "error",
      fields: { collection: index.collection, keys: index.keys },
    });
  }
}

async function setCollectionOptions(
  db: Db,
  rule: PatternRule,
  existing: ReadonlyMap<string, CollectionInfo>,
  logger: Logger,
): Promise<PatternRule> {
  let enforced = rule;
  for (const wanted of driverOf(rule).collections.collectionOptions?.(rule) ?? []) {
    if (hasOptions(existing.get(wanted.collection), wanted.options)) continue;
    try {
      await db.command({ collMod: wanted.collection, ...wanted.options });
    } catch (err) {
      // A network error or a stepping-down primary passes; the runner prepares again.
      if (["transient", "resumable"].includes(classify(err))) throw err;
      warnRefused(db, rule, wanted, err, logger);
      enforced = wanted.fallback;
    }
  }
  return enforced;
}

/** Whether listCollections already shows `options` set on the collection. */
function hasOptions(collection: CollectionInfo | undefined, options: Document): boolean {
  const current = (collection?.options ?? {}) as Document;
  return Object.entries(options).every(([name, value]) => isDeepStrictEqual(current[name], value));
}

// Not counted in errors_total: a missing privilege (or a server before MongoDB 6.0, which
// has no pre-images) is the deployment's state, stated once at start, not a failure that
// recurs; the rule runs without what the option was for.
function warnRefused(
  db: Db,
  rule: PatternRule,
  wanted: CollectionOptionWanted,
  err: unknown,
  logger: Logger,
): void {
  logger.warn(
    {
      err,
      rule: rule.name,
      collection: wanted.collection,
      options: wanted.options,
      privilege: `collMod on ${db.databaseName}.${wanted.collection} (the dbAdmin role grants it)`,
    },
    `could not set the collection option needed for ${wanted.neededFor} (it takes the privilege ` +
      `named, and a server that knows the option); the rule runs without it`,
  );
}
