// Corrections whose cost must not grow with the data around them: one purchase moved to the
// overflow of a book with 60 or a million extras, one bucket split for a customer with 40 or
// 100,000 buckets, and the split of a single 100,000-entry bucket (one transaction, which
// must fit well within mongod's 60 s transactionLifetimeLimitSeconds).
import type { Db, Document, MongoClient } from "mongodb";
import type { Config } from "../src/config/schema.js";
import { createLogger } from "../src/ops/logger.js";
import { createMetrics } from "../src/ops/metrics.js";
import type { BucketRule } from "../src/patterns/bucket/rule.js";
import { readBucketState } from "../src/patterns/bucket/reader.js";
import type { PatternRule } from "../src/patterns/driver.js";
import { readOutlierStates } from "../src/patterns/outlier/reader.js";
import type { OutlierRule } from "../src/patterns/outlier/rule.js";
import type { Plan } from "../src/patterns/plan.js";
import { ensureCollectionsAndIndexes } from "../src/stream/collections.js";
import { correctTarget } from "../src/stream/correction/correction.js";
import { wireCorrections } from "../src/stream/wiring.js";
import { testConfig, users } from "../test/support/harness.js";
import { uniqueDatabaseName, type TestMongo } from "../test/support/mongo.js";
import { timeOnce } from "./measure.js";

const logger = createLogger({ level: "warn" });

/** Corrects one document through the sidecar's own transactional correction. */
type Correct = (rule: PatternRule, role: string, collection: string, id: unknown) => Promise<Plan>;

export async function freshDatabase(
  mongo: TestMongo,
  label: string,
): Promise<{ db: Db; config: Config; correct: Correct }> {
  const db = mongo.client.db(uniqueDatabaseName(label));
  const config = testConfig(db.databaseName, { leaseSeconds: 600 });
  const metrics = createMetrics();
  await ensureCollectionsAndIndexes(db, config.rules, config.stateCollection, logger, metrics);
  const { keeper, context } = wireCorrections({
    client: mongo.client as MongoClient,
    db,
    config,
    rules: config.rules,
    metrics,
    logger,
  });
  if (!(await keeper.tryAcquire())) throw new Error("bench: lease not acquired");
  const correct: Correct = async (rule, role, collection, id) => {
    const plan = await correctTarget(context, { rule, role, collection, id });
    if (plan.outcome !== "writes")
      throw new Error(`bench: expected writes for ${String(id)}, got ${plan.outcome}`);
    return plan;
  };
  return { db, config, correct };
}

function ruleOf(config: Config, pattern: string): PatternRule {
  const rule = config.rules.find((candidate) => candidate.pattern === pattern);
  if (!rule) throw new Error(`bench: no ${pattern} rule`);
  return rule;
}

export async function insertInBatches(db: Db, collection: string, docs: Iterable<Document>): Promise<void> {
  let batch: Document[] = [];
  for (const doc of docs) {
    batch.push(doc);
    if (batch.length === 1000) {
      await db.collection(collection).insertMany(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await db.collection(collection).insertMany(batch);
}

/**
 * One kind of correction made ready to repeat beside some amount of data: each `correctOnce`
 * changes a document and corrects it through the sidecar; `read` is what that correction
 * plans from, for explain.
 */
export interface Scenario {
  db: Db;
  correctOnce: () => Promise<unknown>;
  read: (db: Db) => Promise<unknown>;
}

/** Book 1 with 50 embedded purchasers and `extras` in chunks of 1000; each call adds one purchase. */
export async function outlierScenario(mongo: TestMongo, extras: number): Promise<Scenario> {
  const { db, config, correct } = await freshDatabase(mongo, "bench_scale_outlier");
  const rule = ruleOf(config, "outlier");
  await db
    .collection("sales")
    .insertOne({ _id: 1 as never, customers_purchased: users(0, 50), has_extras: true });
  function* chunks() {
    for (let seq = 0; seq * 1000 < extras; seq += 1)
      yield {
        book_id: 1,
        seq,
        customers_purchased_extra: users(50 + seq * 1000, 50 + Math.min(extras, (seq + 1) * 1000)),
      };
  }
  await insertInBatches(db, "extra_sales", chunks());
  let call = 0;
  return {
    db,
    async correctOnce() {
      call += 1;
      await db
        .collection<{ _id: number; customers_purchased: string[] }>("sales")
        .updateOne({ _id: 1 }, { $push: { customers_purchased: `buyer${call}` } });
      await correct(rule, "source", "sales", 1);
    },
    read: (readDb) => readOutlierStates(readDb, rule as OutlierRule, [1]),
  };
}

function trades(customer: number, fromSecond: number, count: number): Document[] {
  return Array.from({ length: count }, (_, index) => ({
    customerId: customer,
    date: new Date((fromSecond + index) * 1000),
    symbol: "X",
    qty: index,
  }));
}

function bucket(customer: number, fromSecond: number, count: number): Document {
  return {
    _id: `${customer}_${fromSecond}`,
    customerId: customer,
    history: trades(customer, fromSecond, count),
    count,
  };
}

/** Customer 123 with `buckets` full buckets; each call adds a bucket of 20 and splits it. */
export async function bucketScenario(mongo: TestMongo, buckets: number): Promise<Scenario> {
  const { db, config, correct } = await freshDatabase(mongo, "bench_scale_bucket");
  const rule = ruleOf(config, "bucket");
  function* full() {
    for (let index = 0; index < buckets; index += 1) yield bucket(123, index * 10, 10);
  }
  await insertInBatches(db, "trades", full());
  const after = buckets * 10 + 1_000_000;
  let call = 0;
  // What the split plans from: the bucket before its correction, inserted once for explain.
  const explained = bucket(123, after - 50, 20);
  await db.collection("trades").insertOne(explained);
  return {
    db,
    async correctOnce() {
      call += 1;
      const overfilled = bucket(123, after + call * 100, 20);
      await db.collection("trades").insertOne(overfilled);
      await correct(rule, "bucket", "trades", overfilled._id);
    },
    read: (readDb) => readBucketState(readDb, rule as BucketRule, explained._id),
  };
}

/** One bucket of `entries`, split in one transaction. */
export async function timeBigBucketSplit(
  mongo: TestMongo,
  entries: number,
): Promise<{ ms: number; buckets: number }> {
  const { db, config, correct } = await freshDatabase(mongo, "bench_scale_big_bucket");
  const big = bucket(456, 0, entries);
  await db.collection("trades").insertOne(big);
  const { ms } = await timeOnce(() => correct(ruleOf(config, "bucket"), "bucket", "trades", big._id));
  return { ms, buckets: await db.collection("trades").countDocuments({ customerId: 456 }) };
}
