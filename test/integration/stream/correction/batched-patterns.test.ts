// Bucket splits, subset trims and copies and propagated deletes share transactions as outlier
// moves do (issue 35): a backlog of them is corrected in batches, each planned from one read of
// the batch in its transaction, and every trade and review stays exactly once.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, Db, Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { uniqueDatabaseName, useTestDatabase } from "../../../support/mongo.js";
import {
  correctionsLogged,
  insertBook,
  isBookCorrected,
  review,
  startSidecar,
  startSidecarTellingCommands,
  testConfig,
  waitForCaughtUp,
  type TestSidecar,
} from "../../../support/harness.js";

const DOCUMENTS = 30;
const THRESHOLD = 10;

const sidecars: TestSidecar[] = [];
const fixture = useTestDatabase("batched_patterns", {
  tearDown: async () => {
    await Promise.all(sidecars.map((sidecar) => sidecar.stop()));
  },
});

/** A sidecar on `db`; with `onCommand`, told every command it sends, and caught up when it resolves. */
async function start(db: Db, onCommand?: (event: CommandStartedEvent) => void): Promise<TestSidecar> {
  const config = testConfig(db.databaseName, { concurrency: 2 });
  const sidecar = onCommand
    ? await startSidecarTellingCommands(fixture.mongo, config, onCommand)
    : await startSidecar(fixture.mongo, config, { waitForStreaming: false });
  sidecars.push(sidecar);
  return sidecar;
}

/** A database whose position a sidecar stored, then stopped: what is written next is a backlog. */
async function databaseWithPosition(label: string): Promise<Db> {
  const db = fixture.mongo.client.db(uniqueDatabaseName(label));
  const first = await start(db);
  // Its first start's sweep done too (state "streaming"): one left pending is resumed by the
  // next sidecar beside its stream, whose corrections then race the sweep's for the same documents.
  await waitForCaughtUp(first.runner);
  await first.stop();
  return db;
}

/** Starts a sidecar on the backlog, waits for `done`, and returns the sizes of its corrections' transactions. */
async function drain(
  db: Db,
  done: () => Promise<boolean>,
  onCommand?: (event: CommandStartedEvent) => void,
): Promise<{ batches: number[]; sidecar: TestSidecar }> {
  const sidecar = await start(db, onCommand);
  await waitUntil(done, { timeoutMs: 20_000, description: "every document corrected" });
  return { batches: correctionsLogged(sidecar.logs).map((correction) => correction.batch), sidecar };
}

const sharedFailures = (sidecar: TestSidecar) =>
  sidecar.logs.filter((line) => line.msg === "shared correction failed; correcting one by one").length;

const at = (second: number) => new Date(Date.UTC(2024, 0, 1) + second * 1000);
const trade = (second: number) => ({ type: "buy", quantity: 1, date: at(second) });
const stamp = (second: number) => String(at(second).getTime() / 1000);

void test("buckets pushed past the threshold while no sidecar ran split in shared transactions, every trade once", async () => {
  const db = await databaseWithPosition("batched_buckets");
  const trades = db.collection<{ _id: string; customerId: string; history: Document[]; count: number }>(
    "trades",
  );
  const full = Array.from({ length: THRESHOLD }, (_, i) => trade(i));
  // Customer "same" has two full buckets whose pushed trades share a second: their split-off
  // buckets would both be named "same_<second>".
  const buckets = [
    ...Array.from({ length: DOCUMENTS }, (_, i) => ({ _id: `c${i}_${stamp(0)}`, customerId: `c${i}` })),
    { _id: `same_${stamp(0)}`, customerId: "same" },
    { _id: `same_${stamp(50)}`, customerId: "same" },
  ];
  await trades.insertMany(buckets.map((bucket) => ({ ...bucket, history: full, count: THRESHOLD })));
  for (const { _id } of buckets)
    await trades.updateOne({ _id }, { $push: { history: trade(100) }, $inc: { count: 1 } });

  const { batches, sidecar } = await drain(
    db,
    async () => (await trades.countDocuments({ [`history.${THRESHOLD}`]: { $exists: true } })) === 0,
  );

  assert.ok(
    batches.some((size) => size > 1),
    `no shared transaction: ${batches.join()}`,
  );
  for (const { customerId } of buckets.slice(0, DOCUMENTS)) {
    const split = await trades.find({ customerId }).sort({ _id: 1 }).toArray();
    assert.deepEqual(
      split.map((bucket) => bucket.count as number),
      [THRESHOLD, 1],
      customerId,
    );
  }
  const same = await trades.find({ customerId: "same" }).sort({ _id: 1 }).toArray();
  assert.deepEqual(
    same.map((bucket) => [bucket._id, bucket.count]),
    [
      [`same_${stamp(0)}`, THRESHOLD],
      [`same_${stamp(50)}`, THRESHOLD],
      [`same_${stamp(100)}`, 1],
      [`same_${stamp(100)}_000001`, 1],
    ],
  );
  assert.equal(sharedFailures(sidecar), 0);
});

void test("a backlog of two patterns is corrected in transactions of one rule each", async () => {
  const db = await databaseWithPosition("batched_by_rule");
  const sales = db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  const trades = db.collection<{ _id: string; customerId: string; history: Document[]; count: number }>(
    "trades",
  );
  const triggers = 3 * DOCUMENTS;
  const full = Array.from({ length: THRESHOLD }, (_, i) => trade(i));
  for (let id = 0; id < triggers; id++) await insertBook(db, id, 50);
  await trades.insertMany(
    Array.from({ length: triggers }, (_, id) => ({
      _id: `c${id}_${stamp(0)}`,
      customerId: `c${id}`,
      history: full,
      count: THRESHOLD,
    })),
  );
  // Interleaved, as an application writing both collections leaves its changes.
  for (let id = 0; id < triggers; id++) {
    await sales.updateOne({ _id: id }, { $push: { customers_purchased: "user50" } });
    await trades.updateOne(
      { _id: `c${id}_${stamp(0)}` },
      { $push: { history: trade(100) }, $inc: { count: 1 } },
    );
  }

  const { sidecar } = await drain(
    db,
    async () => (await trades.countDocuments({ [`history.${THRESHOLD}`]: { $exists: true } })) === 0,
  );
  await waitUntil(async () => isBookCorrected(db, triggers - 1, 51), {
    description: "the last book corrected",
  });

  for (let id = 0; id < triggers; id++) assert.ok(await isBookCorrected(db, id, 51), `book ${id}`);
  assert.equal(await trades.countDocuments({ count: 1 }), triggers, "one bucket split off each full one");
  // Taken in arrival order, every batch would hold both rules.
  const transactions = sidecar.logs.filter((line) => line.msg === "corrected documents");
  const rulesIn = (line: (typeof transactions)[number]) =>
    new Set((line.corrections as { rule: string }[]).map(({ rule }) => rule)).size;
  const alone = transactions
    .filter((line) => rulesIn(line) === 1)
    .reduce((sum, line) => sum + Number(line.batch), 0);
  assert.ok(alone > triggers, `${alone} of ${2 * triggers} corrections in transactions of one rule`);
  assert.equal(sharedFailures(sidecar), 0);
});

void test("loose trades written while no sidecar ran are folded in shared transactions, read together", async () => {
  const db = await databaseWithPosition("batched_loose");
  const trades = db.collection<Document>("trades");
  // Customers c0..: an open bucket with 5 trades; customer "full": a full bucket, so its
  // loose trades open a new one; customer 7 (an int): no bucket at all.
  const half = Array.from({ length: THRESHOLD / 2 }, (_, i) => trade(i));
  const full = Array.from({ length: THRESHOLD }, (_, i) => trade(i));
  await trades.insertMany([
    ...Array.from({ length: DOCUMENTS }, (_, i) => ({
      _id: `c${i}_${stamp(0)}` as never,
      customerId: `c${i}`,
      history: half,
      count: half.length,
    })),
    { _id: `full_${stamp(0)}` as never, customerId: "full", history: full, count: THRESHOLD },
  ]);
  const customers: unknown[] = [...Array.from({ length: DOCUMENTS }, (_, i) => `c${i}`), "full", 7];
  for (const customerId of customers)
    await trades.insertMany([200, 201].map((second) => ({ customerId, ...trade(second) })));

  // The sidecar's finds of trades: its lease and membership rounds read the state collection
  // as often as the drain takes time.
  let finds = 0;
  const { batches, sidecar } = await drain(
    db,
    async () => (await trades.countDocuments({ history: { $exists: false } })) === 0,
    (event) => {
      if (event.commandName === "find" && event.command.find === "trades") finds++;
    },
  );

  assert.ok(
    batches.some((size) => size > 1),
    `no shared transaction: ${batches.join()}`,
  );
  // Three reads per key folded alone (its loose trades, the ids it may take, its open bucket).
  assert.ok(finds < customers.length, `${finds} finds for ${customers.length} keys folded`);
  for (const customerId of customers.slice(0, DOCUMENTS)) {
    const buckets = await trades.find({ customerId }).toArray();
    assert.deepEqual(
      buckets.map((bucket) => [bucket.count, (bucket.history as Document[]).length]),
      [[THRESHOLD / 2 + 2, THRESHOLD / 2 + 2]],
      String(customerId),
    );
  }
  const opened = await trades
    .find({ customerId: { $in: ["full", 7] } })
    .sort({ _id: 1 })
    .toArray();
  assert.deepEqual(
    opened.map((bucket) => [bucket._id, bucket.count]),
    [
      [`7_${stamp(200)}`, 2],
      [`full_${stamp(0)}`, THRESHOLD],
      [`full_${stamp(200)}`, 2],
    ],
  );
  assert.equal(sharedFailures(sidecar), 0);
});

/** DOCUMENTS products embedding their `reviews` newest reviews' ten newest, all in the full set. */
async function insertProducts(db: Db, reviews: number): Promise<void> {
  const byProduct = (id: number) =>
    Array.from({ length: reviews }, (_, i) => review(id * 100 + i + 1, at(i + 1)));
  await db
    .collection("reviews")
    .insertMany(
      Array.from({ length: DOCUMENTS }, (_, id) =>
        byProduct(id).map((doc) => ({ ...doc, product_id: id })),
      ).flat(),
    );
  await db.collection("products").insertMany(
    Array.from({ length: DOCUMENTS }, (_, id) => ({
      _id: id as never,
      name: `product ${id}`,
      reviews: byProduct(id).reverse().slice(0, THRESHOLD),
    })),
  );
}

async function embeddedIds(db: Db, productId: number): Promise<number[]> {
  const product = await db.collection("products").findOne({ _id: productId as never });
  return (product?.reviews as Document[]).map((entry) => Number(entry.review_id) - productId * 100);
}

const newestTen = (newest: number) => Array.from({ length: THRESHOLD }, (_, i) => newest - i);

void test("reviews pushed past the threshold while no sidecar ran are copied and trimmed in shared transactions", async () => {
  const db = await databaseWithPosition("batched_reviews");
  await insertProducts(db, THRESHOLD);
  const products = db.collection<{ _id: number; reviews: Document[] }>("products");
  for (let id = 0; id < DOCUMENTS; id++)
    await products.updateOne({ _id: id }, { $push: { reviews: review(id * 100 + 11, at(11)) } });

  // Trimmed at once, copied once the pushes are settleMs old (docs/semantics.md).
  const { batches, sidecar } = await drain(
    db,
    async () =>
      (await products.countDocuments({ [`reviews.${THRESHOLD}`]: { $exists: true } })) === 0 &&
      (await db.collection("reviews").countDocuments()) === DOCUMENTS * (THRESHOLD + 1),
  );

  assert.ok(
    batches.some((size) => size > 1),
    `no shared transaction: ${batches.join()}`,
  );
  for (let id = 0; id < DOCUMENTS; id++) {
    assert.deepEqual(await embeddedIds(db, id), newestTen(11), `product ${id}`);
    const copied = await db.collection("reviews").find({ product_id: id }).toArray();
    const ids = copied.map((doc) => Number(doc.review_id) - id * 100).sort((a, b) => a - b);
    assert.deepEqual(ids, [...newestTen(11), 1].reverse(), `product ${id}'s full set`);
  }
  assert.equal(sharedFailures(sidecar), 0);
});

void test("deletes of embedded reviews while no sidecar ran are propagated in shared transactions", async () => {
  const db = await databaseWithPosition("batched_deletes");
  await insertProducts(db, THRESHOLD + 1);
  for (let id = 0; id < DOCUMENTS; id++)
    await db.collection("reviews").deleteOne({ review_id: id * 100 + 11 });

  const { batches, sidecar } = await drain(
    db,
    async () =>
      (await db.collection("products").countDocuments({ "reviews.review_id": { $mod: [100, 11] } })) === 0,
  );

  assert.ok(
    batches.some((size) => size > 1),
    `no shared transaction: ${batches.join()}`,
  );
  for (let id = 0; id < DOCUMENTS; id++)
    assert.deepEqual(await embeddedIds(db, id), newestTen(10), `product ${id}`);
  assert.equal(await db.collection("reviews").countDocuments(), DOCUMENTS * THRESHOLD);
  assert.equal(sharedFailures(sidecar), 0);
});

void test("products whose first copies together pass a shared transaction's bound are corrected one by one, every review once", async () => {
  const db = await databaseWithPosition("batched_too_large");
  // Each product's correction copies 600 reviews and records each copy: ~1,200 writes, so
  // that any two of them together pass SHARED_TRANSACTION_MAX_WRITES.
  const products = [0, 1, 2, 3];
  const reviewsOf = (id: number) =>
    Array.from({ length: 600 }, (_, i) => review(id * 1000 + i + 1, at(i + 1)));
  await db
    .collection("products")
    .insertMany(
      products.map((id) => ({ _id: id as never, name: `product ${id}`, reviews: reviewsOf(id).reverse() })),
    );

  const { sidecar } = await drain(
    db,
    async () =>
      (await db.collection("products").countDocuments({ [`reviews.${THRESHOLD}`]: { $exists: true } })) === 0,
  );

  // A shared transaction may still commit one product's copies beside another's correction
  // that writes nothing (its trim's own event): never two products' copies together.
  const sharedWrites = sidecar.logs.filter(
    (line) => line.msg === "corrected documents" && (line.corrections as unknown[]).length > 1,
  );
  assert.deepEqual(sharedWrites, [], "no two products' corrections committed together");
  const refused = sidecar.logs.filter(
    (line) =>
      line.msg === "shared correction failed; correcting one by one" &&
      (line.err as { type?: string } | undefined)?.type === "BatchTooLargeError",
  );
  assert.ok(refused.length > 0, "a shared batch was refused for its size");
  for (const id of products) {
    const copied = await db.collection("reviews").find({ product_id: id }).toArray();
    assert.equal(copied.length, 600, `product ${id}'s full set`);
    assert.equal(new Set(copied.map((doc) => doc.review_id)).size, 600, `product ${id}'s reviews once`);
  }
});
