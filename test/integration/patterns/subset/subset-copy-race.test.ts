// An application that writes a review to both sides itself (pushes it into the product, then
// a moment later inserts it into `reviews`) while the sidecar corrects the product: the
// sidecar's copy and the application's insert race for one key of the unique index.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { MongoServerError, type Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, useSidecarOnFreshDatabase, type Product } from "../../../support/harness.js";

// Far above the pause between the application's two writes, so that the race never depends on
// how fast this machine runs the sidecar: it only makes the sidecar later.
const SETTLE_MS = 3000;

const fixture = useSidecarOnFreshDatabase("subset_copy_race", {
  rules: [{ pattern: "outlier" }, { pattern: "bucket" }, { pattern: "subset", settleMs: SETTLE_MS }],
});

const PRODUCTS = 4;
const REVIEWS_PER_PRODUCT = 14;
const DAY = 86_400_000;

interface Written {
  productId: number;
  review: Document;
  /** Whether the application inserts it into `reviews` too, after pushing it. */
  bothSides: boolean;
}

function reviewsOf(productId: number): Written[] {
  return Array.from({ length: REVIEWS_PER_PRODUCT }, (_, i) => ({
    productId,
    review: review(productId * 100 + i, new Date(Date.UTC(2019, 1, 1) + i * DAY)),
    // Every fourth review only pushed: the sidecar must copy those.
    bothSides: i % 4 !== 3,
  }));
}

/** Writes each review as the application does; returns the duplicate-key errors it got. */
async function application(productId: number): Promise<string[]> {
  const refused: string[] = [];
  for (const [i, { review: written, bothSides }] of reviewsOf(productId).entries()) {
    await fixture.db
      .collection<Product>("products")
      .updateOne({ _id: productId }, { $push: { reviews: written } });
    if (!bothSides) continue;
    // Long enough for the sidecar to have read the push and copied the review, were it not to wait.
    await sleep(100 + (i % 3) * 100);
    try {
      await fixture.db.collection("reviews").insertOne({ ...written, product_id: productId });
    } catch (error) {
      if (!(error instanceof MongoServerError) || error.code !== 11000) throw error;
      refused.push(`review ${String(written.review_id)} of product ${productId}`);
    }
  }
  return refused;
}

function newestTen(productId: number): Document[] {
  return reviewsOf(productId)
    .map((written) => written.review)
    .sort((a, b) => (b.published_date as Date).getTime() - (a.published_date as Date).getTime())
    .slice(0, 10);
}

async function isCorrected(productId: number): Promise<boolean> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  const count = await fixture.db.collection("reviews").countDocuments({ product_id: productId });
  const embedded = product?.reviews.map((r) => r.review_id as number).join();
  return (
    count === REVIEWS_PER_PRODUCT &&
    embedded ===
      newestTen(productId)
        .map((r) => r.review_id)
        .join()
  );
}

void test("an application that pushes a review and then inserts it itself is never refused, and every review is in reviews once", async () => {
  const productIds = Array.from({ length: PRODUCTS }, (_, i) => i + 1);
  await fixture.db
    .collection<Product>("products")
    .insertMany(productIds.map((id) => ({ _id: id, name: `widget ${id}`, reviews: [] })));

  const refused = (await Promise.all(productIds.map(application))).flat();
  assert.deepEqual(
    refused,
    [],
    "the application's own inserts refused as duplicates of the sidecar's copies",
  );

  await waitUntil(async () => (await Promise.all(productIds.map(isCorrected))).every(Boolean), {
    timeoutMs: 30_000,
    description: "every product with all its reviews in the full set and the 10 newest embedded",
  });
  const fullSet = await fixture.db.collection("reviews").find().toArray();
  const keys = fullSet.map((doc) => `${String(doc.product_id)}/${String(doc.review_id)}`);
  assert.equal(new Set(keys).size, keys.length, "a review in reviews twice");
  for (const productId of productIds) {
    const expected = reviewsOf(productId).map(({ review: written }) => ({
      ...written,
      product_id: productId,
    }));
    const held = fullSet
      .filter((doc) => doc.product_id === productId)
      .map(({ _id, ...doc }) => doc)
      .sort((a, b) => (a.review_id as number) - (b.review_id as number));
    assert.deepEqual(held, expected, `the reviews of product ${productId}`);
  }
});
