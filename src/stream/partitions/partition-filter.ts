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

/** The types hashedIndexKey takes (a missing key hashes as null); any other lets the event through. */
const HASHED_TYPES = [
  "double",
  "int",
  "long",
  "decimal",
  "string",
  "objectId",
  "bool",
  "date",
  "null",
  "missing",
];

/** Whether every partition is owned: then nothing is filtered (one replica, as without partitions). */
export function ownsAll({ count, owned }: OwnedPartitions): boolean {
  return new Set(owned).size >= count;
}

/**
 * An `$expr` true for an event of a watched collection with a key in the owned partitions (or
 * one the hash does not take), and for every event of any other collection.
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

function anyKeyOwned(keys: unknown[], { count, owned }: OwnedPartitions): Document {
  const key = "$$partitionKey";
  const partition = { $mod: [{ $add: [{ $mod: [{ $toHashedIndexKey: key }, count] }, count] }, count] };
  const owns = { $cond: [{ $in: [{ $type: key }, HASHED_TYPES] }, { $in: [partition, [...owned]] }, true] };
  return { $anyElementTrue: [{ $map: { input: keys, as: "partitionKey", in: owns } }] };
}
