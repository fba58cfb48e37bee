// Sweeps read their candidates in pages (src/patterns/reads/sweep-queries.ts): across _id
// types, and, for the subset rule's full set, one index step per product.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Binary, ObjectId, Timestamp } from "mongodb";
import { keyRangesAfter } from "../../../../src/patterns/bson/key-order.js";
import { keysQuery } from "../../../../src/patterns/reads/sweep-queries.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { createMetrics } from "../../../../src/ops/metrics.js";
import { ensureCollectionsAndIndexes } from "../../../../src/stream/collections.js";
import { sweep, type AffectedDocument } from "../../../../src/stream/sweep/sweep.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { review, testConfig, users } from "../../../support/harness.js";

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
    stateCollection: config.stateCollection,
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

void test("a sweep's progress counts the candidates, not the collection: ten broken books among a hundred go 0.1, 0.2, ... 1", async () => {
  const { db } = fixture;
  const sales = db.collection("sales");
  await sales.deleteMany({});
  for (let book = 1; book <= 100; book += 1)
    await sales.insertOne({ _id: book as never, customers_purchased: users(0, book % 10 === 0 ? 60 : 5) });
  const lines: { msg?: string; ratio?: number; candidates?: number; etaSeconds?: number }[] = [];
  const captured = createLogger({
    level: "info",
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const config = testConfig(db.databaseName);
  const rules = config.rules.filter((rule) => rule.pattern === "outlier");
  const metrics = createMetrics();

  await sweep({
    db,
    rules,
    stateCollection: config.stateCollection,
    logger: captured,
    metrics,
    pageSize: 7,
    progressIntervalMs: 0,
  });

  const progress = lines.filter((line) => line.msg === "sweep in progress");
  assert.deepEqual(
    progress.map((line) => line.ratio),
    [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
  );
  assert.ok(progress.every((line) => line.candidates === 10 && typeof line.etaSeconds === "number"));
  const labels = { rule: rules[0]?.name ?? "", collection: "sales" };
  assert.equal(
    (await metrics.sweepProgress.get()).values.find((v) => v.labels.rule === labels.rule)?.value,
    1,
  );
  assert.equal((await metrics.sweepEta.get()).values.find((v) => v.labels.rule === labels.rule)?.value, 0);
});
