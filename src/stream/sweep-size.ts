// Rough size of a rule's sweep, for the progress gauge and log line.
import type { Db } from "mongodb";
import type { PatternRule } from "../patterns/driver.js";
import { driverOf } from "../patterns/registry.js";

export async function estimateSweepSize(db: Db, rule: PatternRule): Promise<number> {
  const collections = driverOf(rule).watchedCollections(rule);
  const counts = await Promise.all(collections.map((name) => db.collection(name).estimatedDocumentCount()));
  return counts.reduce((sum, count) => sum + count, 0);
}
