// initialData and outcome, both through the internal client: collections are dropped and
// refilled with a majority write concern before a test, and read back in _id order after it.
import type { MongoClient } from "mongodb";
import { describeValue } from "./bson-values.js";
import { findDifference } from "./matcher.js";
import type { CollectionData } from "./test-file-types.js";

const majority = { writeConcern: { w: "majority" as const } };

export async function loadInitialData(client: MongoClient, data: CollectionData[]): Promise<void> {
  for (const collectionData of data) {
    const database = client.db(collectionData.databaseName);
    const name = collectionData.collectionName;
    // Queryable-encryption state collections are dropped too, so no earlier test's state leaks.
    for (const dropped of [name, `enxcol_.${name}.esc`, `enxcol_.${name}.ecoc`]) {
      await database.dropCollection(dropped, majority).catch(ignoreNamespaceNotFound);
    }
    if (collectionData.createOptions || collectionData.documents.length === 0) {
      await database.createCollection(name, { ...collectionData.createOptions, ...majority });
    }
    if (collectionData.documents.length > 0) {
      await database.collection(name).insertMany(collectionData.documents, majority);
    }
  }
}

function ignoreNamespaceNotFound(error: unknown): void {
  // Servers before 7.0 answer a drop of a missing collection with NamespaceNotFound (26).
  if ((error as { code?: unknown }).code !== 26) throw error;
}

/** The first way the collections differ from the expected outcome, or undefined. */
export async function outcomeDifference(
  client: MongoClient,
  outcome: CollectionData[],
): Promise<string | undefined> {
  for (const expected of outcome) {
    const namespace = `${expected.databaseName}.${expected.collectionName}`;
    const actual = await client
      .db(expected.databaseName)
      .collection(expected.collectionName)
      .find({}, { sort: { _id: 1 }, readPreference: "primary", readConcern: { level: "local" } })
      .toArray();
    if (actual.length !== expected.documents.length) {
      return `outcome ${namespace}: expected ${expected.documents.length} documents, found ${actual.length}: ${describeValue(actual)}`;
    }
    // Outcome documents match exactly (no extra fields anywhere), key order aside.
    const difference = findDifference(expected.documents, actual, {
      root: false,
      path: `outcome ${namespace}`,
    });
    if (difference) return difference;
  }
  return undefined;
}
