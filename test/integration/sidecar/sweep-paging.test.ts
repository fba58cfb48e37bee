// Sweeps read their candidates in pages (src/patterns/common/sweep-queries.ts): across _id
// types, and, for the subset rule's full set, one index step per product.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Binary, ObjectId, Timestamp } from "mongodb";
import { keyRangesAfter } from "../../../src/patterns/common/key-order.js";
import { keysQuery } from "../../../src/patterns/common/sweep-queries.js";
import { createLogger } from "../../../src/ops/logger.js";
import { createMetrics } from "../../../src/ops/metrics.js";
import { ensureCollectionsAndIndexes } from "../../../src/stream/collections.js";
import { sweep, type AffectedDocument } from "../../../src/stream/sweep.js";
import { useTestDatabase } from "../../support/mongo.js";
import { review, testConfig, users } from "./harness.js";

const fixture = useTestDatabase("sweep-paging");
const logger = createLogger({ level: "silent" });

void test("a sweep in pages of two finds every broken document, whatever the types of their _ids", async () => {
  const { db } = fixture;
  const ids = [3, 1.5, "b", "a", { k: 1 }, new Binary(Buffer.from("x")), new ObjectId(), true, new Date(0)];
  const last = new Timestamp({ t: 1, i: 1 });
  for (const id of [...ids, last])
    await db.collection("sales").insertOne({ _id: id as never, customers_purchased: users(0, 60) });
  await db.collection("sales").insertOne({ _id: "fine" as never, customers_purchased: users(0, 2) });
  const found: AffectedDocument[] = [];
  const config = testConfig(db.databaseName);
  const rules = config.rules.filter((rule) => rule.pattern === "outlier");

  const [report] = await sweep({
    db,
    rules,
    logger,
    pageSize: 2,
    onAffected: (affected) => found.push(affected),
  });

  assert.equal(report?.examined, ids.length + 1);
  assert.equal(found.length, ids.length + 1);
  assert.deepEqual(found.at(-1)?.key, last);
});

void test("each step of the subset rule's full-set walk examines a few index keys, however many reviews a product has", async () => {
  const { db } = fixture;
  const config = testConfig(db.databaseName);
  await ensureCollectionsAndIndexes(db, config.rules, config.stateCollection, logger, createMetrics());
  const reviews = Array.from({ length: 3000 }, (_, index) => ({
    ...review(index, new Date(index * 1000)),
    product_id: 1,
  }));
  await db.collection("reviews").insertMany(reviews);
  await db.collection("reviews").insertOne({ ...review(1, new Date()), product_id: 2 });
  // The walk's step after product 1: the first product_id greater than 1.
  const [afterOne] = keyRangesAfter("product_id", 1);
  const { filter, options } = keysQuery("product_id", afterOne ?? {}, 1);

  const explained = await db.collection("reviews").find(filter, options).explain("executionStats");
  const found = await db.collection("reviews").find(filter, options).toArray();

  assert.deepEqual(found, [{ product_id: 2 }]);
  const stats = explained.executionStats as { totalKeysExamined: number; totalDocsExamined: number };
  // mongod answers from the index alone (0); the embedded server fetches the one it returns.
  assert.ok(stats.totalDocsExamined <= 1, `examined ${stats.totalDocsExamined} documents`);
  assert.ok(stats.totalKeysExamined <= 2, `examined ${stats.totalKeysExamined} keys`);
});
