// What each correction reads, as a MongoDB engineer checks it: the reads it plans from,
// replayed as `explain` with executionStats (test/support/explain.ts), beside little and
// much data. Stages, index keys and documents examined must not follow the data's size.
import type { Db, MongoClient } from "mongodb";
import { readSubsetStates } from "../src/patterns/subset/reader.js";
import type { SubsetRule } from "../src/patterns/subset/rule.js";
import { explainReads, type ExplainedRead } from "../test/support/explain.js";
import type { TestMongo } from "../test/support/mongo.js";
import { count } from "./report.js";
import { freshDatabase, insertInBatches, type Scenario } from "./scale-corrections.js";

/** The reads a correction plans from, and the data beside them. */
export type Explainable = Pick<Scenario, "db" | "read"> & { correction: string; size: number; unit: string };

/** Product 1 with `reviews` reviews, the newest three embedded. */
export async function subsetReads(mongo: TestMongo, reviews: number): Promise<Explainable> {
  const { db, config } = await freshDatabase(mongo, "bench_scale_subset");
  const rule = config.rules.find((candidate) => candidate.pattern === "subset") as SubsetRule;
  function* all() {
    for (let index = 0; index < reviews; index += 1)
      yield {
        [rule.referenceField]: 1,
        [rule.idField]: index,
        [rule.sortField]: new Date(1_600_000_000_000 + index * 1000),
      };
  }
  await insertInBatches(db, rule.fullSetCollection, all());
  const newest = await db
    .collection(rule.fullSetCollection)
    .find(
      { [rule.referenceField]: 1 },
      { sort: { [rule.sortField]: -1 }, limit: 3, projection: { _id: 0, [rule.referenceField]: 0 } },
    )
    .toArray();
  await db.collection(rule.collection).insertOne({ _id: 1 as never, [rule.arrayField]: newest });
  return {
    db,
    read: (readDb: Db) => readSubsetStates(readDb, rule, [{ sourceId: 1 }], { stateCollection: "state" }),
    correction: "subset: read the product's newest reviews",
    size: reviews,
    unit: "reviews",
  };
}

/** One table row per read of each correction, small and large side by side in the order given. */
export async function explainRows(mongo: TestMongo, targets: readonly Explainable[]): Promise<string[][]> {
  const monitored: MongoClient = await mongo.newClient({ monitorCommands: true });
  try {
    const rows: string[][] = [];
    for (const target of targets) {
      const db = monitored.db(target.db.databaseName);
      const reads: ExplainedRead[] = await explainReads(monitored, db, () => target.read(db));
      for (const read of reads)
        rows.push([
          target.correction,
          `${count(target.size)} ${target.unit}`,
          `${read.command} ${read.collection}`,
          read.stages.join(" < "),
          String(read.keysExamined),
          String(read.docsExamined),
        ]);
    }
    return rows;
  } finally {
    await monitored.close();
  }
}
