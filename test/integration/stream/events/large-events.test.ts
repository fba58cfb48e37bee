// One application write of ~14 MiB per pattern, whose change event would pass the server's
// 16 MiB limit if the stream asked for what the write changed, then an ordinary trigger:
// both are corrected, the ordinary one without waiting behind the large one for ever.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import {
  allPurchasers,
  isBookCorrected,
  review,
  useSidecarOnFreshDatabase,
  users,
  type Product,
} from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("large_events");

/** About `bytes` of text, different for each `seed`. */
function text(seed: number, bytes: number): string {
  return `${seed}:`.padEnd(bytes, "x");
}

/** Long enough for a minute's work of the embedded server on two busy cores. */
const LARGE_TIMEOUT_MS = 120_000;

void test("a book pushed ~14 MiB of purchasers at once is corrected, and so is the next small one", async () => {
  const sales = fixture.db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  await sales.insertOne({ _id: 1, customers_purchased: ["first"] });
  const many = Array.from({ length: 95_000 }, (_, i) => text(i, 138));
  await sales.updateOne({ _id: 1 }, { $push: { customers_purchased: { $each: many } } });
  await sales.insertOne({ _id: 2, customers_purchased: [] });
  await sales.updateOne({ _id: 2 }, { $push: { customers_purchased: { $each: users(0, 60) } } });

  await waitUntil(() => isBookCorrected(fixture.db, 2, 60), { description: "the small book corrected" });
  await waitUntil(() => isBookCorrected(fixture.db, 1, 95_001), {
    timeoutMs: LARGE_TIMEOUT_MS,
    description: "the large book corrected",
  });
  assert.deepEqual(await allPurchasers(fixture.db, 1), ["first", ...many]);
});

function trade(i: number, bytes: number): Document {
  return { type: "buy", ticker: text(i, bytes), qty: 1, date: new Date(Date.UTC(2024, 0, 1) + i * 1000) };
}

async function bucketsOf(customer: number): Promise<Document[]> {
  return fixture.db.collection<Document>("trades").find({ customerId: customer }).sort({ _id: 1 }).toArray();
}

async function isSplit(customer: number, trades: number): Promise<boolean> {
  const buckets = await bucketsOf(customer);
  const held = buckets.reduce((sum, bucket) => sum + (bucket.history as unknown[]).length, 0);
  return held === trades && buckets.every((bucket) => (bucket.history as unknown[]).length <= 10);
}

void test("a bucket pushed ~14 MiB of trades at once is split, and so is the next small one", async () => {
  const trades = fixture.db.collection<{
    _id: string;
    customerId: number;
    count: number;
    history: Document[];
  }>("trades");
  const start = Date.UTC(2024, 0, 1) / 1000;
  const large = Array.from({ length: 10_000 }, (_, i) => trade(i, 1400));
  await trades.insertOne({ _id: `7_${start}`, customerId: 7, count: 1, history: large.slice(0, 1) });
  await trades.updateOne({ _id: `7_${start}` }, { $push: { history: { $each: large.slice(1) } } });
  const small = Array.from({ length: 11 }, (_, i) => trade(i, 10));
  await trades.insertOne({ _id: `8_${start}`, customerId: 8, count: 11, history: small });

  await waitUntil(() => isSplit(8, 11), { description: "the small bucket split" });
  await waitUntil(() => isSplit(7, 10_000), {
    timeoutMs: LARGE_TIMEOUT_MS,
    description: "the large bucket split",
  });
  const history = (await bucketsOf(7)).flatMap((bucket) => bucket.history as Document[]);
  assert.deepEqual(
    history.map((entry) => entry.ticker),
    large.map((entry) => entry.ticker),
  );
});

async function embeddedAndCopied(productId: number): Promise<[number, number]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  const copied = await fixture.db.collection("reviews").countDocuments({ product_id: productId });
  return [product?.reviews.length ?? -1, copied];
}

void test("a product pushed ~14 MiB of reviews at once is trimmed and copied, and so is the next small one", async () => {
  const products = fixture.db.collection<Product>("products");
  const day = 86_400_000;
  const large = Array.from({ length: 300 }, (_, i) => ({
    ...review(i, new Date(Date.UTC(2020, 0, 1) + i * day)),
    review_text: text(i, 45_000),
  }));
  await products.insertOne({ _id: 1, name: "Large", reviews: [] });
  await products.updateOne({ _id: 1 }, { $push: { reviews: { $each: large } } });
  const small = Array.from({ length: 11 }, (_, i) => review(i, new Date(Date.UTC(2020, 0, 1) + i * day)));
  await products.insertOne({ _id: 2, name: "Small", reviews: small });

  await waitUntil(async () => (await embeddedAndCopied(2)).join() === "10,11", {
    description: "the small product trimmed and copied",
  });
  await waitUntil(async () => (await embeddedAndCopied(1)).join() === "10,300", {
    timeoutMs: LARGE_TIMEOUT_MS,
    description: "the large product trimmed and copied",
  });
});

void test("a book's extras of 40 KB each fill chunks by bytes, none near the 16 MiB limit", async () => {
  const sales = fixture.db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  await sales.insertOne({ _id: 3, customers_purchased: [] });
  const all = Array.from({ length: 550 }, (_, i) => text(i, 40_000));
  for (let held = 0; held < all.length; held += 125 + (held === 0 ? 50 : 0)) {
    const total = held === 0 ? 175 : held + 125;
    await sales.updateOne({ _id: 3 }, { $push: { customers_purchased: { $each: all.slice(held, total) } } });
    await waitUntil(() => isBookCorrected(fixture.db, 3, total), {
      timeoutMs: LARGE_TIMEOUT_MS,
      description: `the book's ${total} purchasers moved`,
    });
  }
  assert.deepEqual(await allPurchasers(fixture.db, 3), all);
  const sizes = await fixture.db
    .collection("extra_sales")
    .aggregate<{ size: number }>([
      { $match: { book_id: 3 } },
      { $project: { size: { $bsonSize: "$$ROOT" } } },
    ])
    .toArray();
  assert.ok(sizes.length >= 3, `${sizes.length} chunks`);
  for (const { size } of sizes) assert.ok(size <= 8 * 1024 * 1024, `a chunk of ${size} bytes`);
});
