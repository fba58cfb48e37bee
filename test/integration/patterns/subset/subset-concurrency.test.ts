// Two applications writing reviews of one product at once, while the sidecar corrects: one
// pushes into the embedded array, the other inserts into the full set directly.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, useSidecarOnFreshDatabase, type Product } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("subset_concurrency");

const PER_WRITER = 60;
const DAY = 86_400_000;

// Dates from a small range, so that many reviews share one: ties are ranked by review_id.
function reviewNumbered(id: number): Document {
  return review(id, new Date(Date.UTC(2019, 1, 1) + ((id * 7) % 13) * DAY));
}

// The ranking src/patterns/subset-entries.ts documents: newest first, ties by review_id, descending.
function newestFirst(a: Document, b: Document): number {
  const byDate = (b.published_date as Date).getTime() - (a.published_date as Date).getTime();
  return byDate !== 0 ? byDate : (b.review_id as number) - (a.review_id as number);
}

async function pushWriter(productId: number, ids: number[]): Promise<void> {
  for (const id of ids) {
    await fixture.db
      .collection<Product>("products")
      .updateOne({ _id: productId }, { $push: { reviews: { $each: [reviewNumbered(id)], $position: 0 } } });
  }
}

async function insertWriter(productId: number, ids: number[]): Promise<void> {
  for (const id of ids)
    await fixture.db.collection("reviews").insertOne({ ...reviewNumbered(id), product_id: productId });
}

void test("reviews pushed to the product and inserted into reviews at once end up once each, with the 10 newest embedded", async () => {
  await fixture.db.collection<Product>("products").insertOne({ _id: 1, name: "Super Widget", reviews: [] });
  const pushed = Array.from({ length: PER_WRITER }, (_, i) => 1 + i);
  const inserted = Array.from({ length: PER_WRITER }, (_, i) => 1001 + i);
  await Promise.all([pushWriter(1, pushed), insertWriter(1, inserted)]);

  const everyReview = [...pushed, ...inserted].map((id) => reviewNumbered(id));
  const newestTen = [...everyReview].sort(newestFirst).slice(0, 10);
  const embedded = await waitUntil(
    async () => {
      const product = await fixture.db.collection<Product>("products").findOne({ _id: 1 });
      const count = await fixture.db.collection("reviews").countDocuments({ product_id: 1 });
      const ids = product?.reviews.map((r) => r.review_id as number) ?? [];
      const done = count === everyReview.length && ids.join() === newestTen.map((r) => r.review_id).join();
      return done ? product?.reviews : undefined;
    },
    { timeoutMs: 20_000, description: "every review in the full set and the 10 newest embedded" },
  );

  assert.deepEqual(embedded, newestTen);
  const fullSetIds = await fixture.db
    .collection("reviews")
    .find({ product_id: 1 })
    .map((doc) => doc.review_id as number)
    .toArray();
  assert.deepEqual(
    fullSetIds.sort((a, b) => a - b),
    [...pushed, ...inserted],
  );
});
