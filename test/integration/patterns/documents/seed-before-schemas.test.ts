// The outlier and subset seeds start from one document that embeds everything. Pointed at
// such documents, scaled up, the first-start sweep brings each into its pattern's shape in
// order, in pieces that each fit far below the 16 MiB document limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  allPurchasers,
  review,
  startSidecar,
  testConfig,
  users,
  waitForCaughtUp,
  type TestSidecar,
} from "../../../support/harness.js";

const PURCHASERS = 100_000;
const REVIEWS = 5_000;
/** Long purchaser names that make one array about 15 MB, just under the 16 MiB limit. */
const HEAVY_PURCHASERS = 100_000;
const HEAVY_NAME_PADDING = "x".repeat(130);
const SWEEP_TIMEOUT_MS = 180_000;

const heavyName = (index: number) => `${HEAVY_NAME_PADDING}${String(index).padStart(6, "0")}`;

let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("seed_before_schemas", {
  setUp: async ({ mongo, db }) => {
    await db
      .collection("sales")
      .insertOne({ _id: 1 as never, title: "Many buyers", customers_purchased: users(0, PURCHASERS) });
    const heavy = Array.from({ length: HEAVY_PURCHASERS }, (_, i) => heavyName(i));
    await db
      .collection("sales")
      .insertOne({ _id: 2 as never, title: "Heavy buyers", customers_purchased: heavy });
    const reviews = Array.from({ length: REVIEWS }, (_, i) =>
      review(i, new Date(Date.UTC(2020, 0, 1) + i * 60_000)),
    );
    await db.collection("products").insertOne({ _id: 7 as never, name: "Popular", reviews });
    sidecar = await startSidecar(mongo, testConfig(db.databaseName), { waitForStreaming: false });
    await waitForCaughtUp(sidecar.runner, SWEEP_TIMEOUT_MS);
  },
  tearDown: async () => sidecar?.stop(),
});

async function chunksOf(bookId: number): Promise<Document[]> {
  return fixture.db.collection("extra_sales").find({ book_id: bookId }).sort({ seq: 1 }).toArray();
}

void test("a book embedding 100,000 purchasers keeps 50 and moves the rest, in order, into full chunks", async () => {
  const book = await fixture.db.collection("sales").findOne({ _id: 1 as never });
  assert.deepEqual(book?.customers_purchased, users(0, 50));
  assert.equal(book?.has_extras, true);
  const chunks = await chunksOf(1);
  assert.equal(chunks.length, Math.ceil((PURCHASERS - 50) / 1000));
  assert.ok(chunks.every((chunk) => (chunk.customers_purchased_extra as unknown[]).length <= 1000));
  assert.deepEqual(await allPurchasers(fixture.db, 1), users(0, PURCHASERS));
});

void test("a book whose purchasers alone are near 16 MiB is moved in chunks that each fit", async () => {
  const chunks = await chunksOf(2);
  const largest = Math.max(...chunks.map((chunk) => Buffer.byteLength(JSON.stringify(chunk))));
  assert.ok(largest < 1024 * 1024, `largest chunk ${largest} bytes`);
  const names = await allPurchasers(fixture.db, 2);
  assert.equal(names.length, HEAVY_PURCHASERS);
  assert.ok(
    names.every((name, index) => name === heavyName(index)),
    "every purchaser once, in order",
  );
});

void test("a product embedding 5,000 reviews embeds the 10 newest and keeps every review in reviews", async () => {
  const product = await fixture.db.collection("products").findOne({ _id: 7 as never });
  const embedded = (product?.reviews as Document[]).map((entry) => entry.review_id as number);
  assert.deepEqual(
    embedded,
    Array.from({ length: 10 }, (_, i) => REVIEWS - 1 - i),
  );
  const stored = await fixture.db
    .collection("reviews")
    .find({ product_id: 7 }, { projection: { _id: 0, review_id: 1 } })
    .sort({ review_id: 1 })
    .toArray();
  assert.deepEqual(
    stored.map((entry) => entry.review_id as number),
    Array.from({ length: REVIEWS }, (_, i) => i),
  );
});
