// The change stream's condition that keeps, on the server, only the events of a replica's
// partitions: each key the drivers name from an event, hashed by `$toHashedIndexKey` (mongod's
// docs have it from 7.0; SERVER-49214) modulo the count as partitionOf does. docs/semantics.md.
import type { Document } from "mongodb";
import type { PatternRule } from "../../patterns/driver.js";
import { driverOf } from "../../patterns/registry.js";

/** The partitions a replica owns, among `count`. */
export interface OwnedPartitions {
  count: number;
  owned: readonly number[];
}

/** The types hashedIndexKey takes; any other lets the event through, except a key the event lacks. */
const HASHED_TYPES = ["double", "int", "long", "decimal", "string", "objectId", "bool", "date", "null"];

/** Whether every partition is owned: then nothing is filtered (one replica, as without partitions). */
export function ownsAll({ count, owned }: OwnedPartitions): boolean {
  return new Set(owned).size >= count;
}

/**
 * An `$expr` true for an event of a watched collection with a key in the owned partitions (or
 * one the hash does not take, when the event carries it), and for every event of any other
 * collection.
 */
export function ownedEventExpression(rules: readonly PatternRule[], partitions: OwnedPartitions): Document {
  const byCollection = keysByCollection(rules);
  return [...byCollection].reduceRight<Document | boolean>(
    (otherwise, [collection, keys]) => ({
      $cond: [{ $eq: ["$ns.coll", collection] }, anyKeyOwned(keys, partitions), otherwise],
    }),
    true,
  ) as Document;
}

function keysByCollection(rules: readonly PatternRule[]): Map<string, unknown[]> {
  const keys = new Map<string, Map<string, unknown>>();
  for (const rule of rules) {
    const { stream } = driverOf(rule);
    for (const collection of stream.watchedCollections(rule)) {
      const named = stream.eventPartitionKeys?.(rule, collection) ?? ["$documentKey._id"];
      const known = keys.get(collection) ?? new Map<string, unknown>();
      for (const key of named) known.set(JSON.stringify(key), key);
      keys.set(collection, known);
    }
  }
  return new Map([...keys].map(([collection, known]) => [collection, [...known.values()]]));
}

function anyKeyOwned(keys: unknown[], partitions: OwnedPartitions): Document {
  return { $or: keys.map((key) => keyOwned(key, partitions)) };
}

/**
 * Whether `key` (an expression over the event) hashes into an owned partition. A key the event
 * does not carry (a bucket update's customer, with no post-image) names no target: it is
 * judged alone, as an array element it would become null and send the event to null's
 * partition (mongod's ExpressionArray::evaluate, src/mongo/db/pipeline/expression.cpp).
 */
function keyOwned(key: unknown, { count, owned }: OwnedPartitions): Document {
  const type = { $type: key };
  const partition = { $mod: [{ $add: [{ $mod: [{ $toHashedIndexKey: key }, count] }, count] }, count] };
  return {
    $cond: [{ $in: [type, HASHED_TYPES] }, { $in: [partition, [...owned]] }, { $ne: [type, "missing"] }],
  };
}
