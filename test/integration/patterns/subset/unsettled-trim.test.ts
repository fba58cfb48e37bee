// A product pushed past its threshold is trimmed at once, before settleMs: trimming reviews
// already in `reviews` races no application insert. Only the copy of what was just pushed
// waits (docs/semantics.md, "Copies and applications that write both sides").
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, useSidecarOnFreshDatabase, type Product } from "../../../support/harness.js";

// Far longer than the sidecar takes to trim, so that the trim is seen before anything is copied.
const SETTLE_MS = 5000;
const DAY = 86_400_000;

const fixture = useSidecarOnFreshDatabase("subset_unsettled_trim", {
  rules: [{ pattern: "subset", settleMs: SETTLE_MS }],
});

const reviewOf = (i: number) => review(i, new Date(Date.UTC(2020, 0, 1) + i * DAY));

async function embeddedIds(productId: number): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  return (product?.reviews ?? []).map((entry: Document) => entry.review_id as number);
}

async function fullSetIds(productId: number): Promise<number[]> {
  const held = await fixture.db.collection("reviews").find({ product_id: productId }).toArray();
  return held.map((doc) => doc.review_id as number).sort((a, b) => a - b);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

void test("a push past the threshold is trimmed before settleMs, the pushed review copied only after it", async () => {
  const products = fixture.db.collection<Product>("products");
  const first = range(1, 10).map(reviewOf);
  await fixture.db.collection("reviews").insertMany(first.map((doc) => ({ ...doc, product_id: 1 })));
  await products.insertOne({ _id: 1, name: "widget", reviews: [...first].reverse() });

  // The application pushes review 11, and will insert it into `reviews` itself.
  await products.updateOne({ _id: 1 }, { $push: { reviews: { $each: [reviewOf(11)], $position: 0 } } });
  await waitUntil(async () => (await embeddedIds(1)).length === 10, {
    timeoutMs: 20_000,
    description: "product 1 trimmed to its 10 newest",
  });
  assert.deepEqual(await embeddedIds(1), range(2, 11).reverse());
  assert.deepEqual(await fullSetIds(1), range(1, 10), "nothing copied before the push settled");
  // The application's own insert goes first, and is not refused.
  await fixture.db.collection("reviews").insertOne({ ...reviewOf(11), product_id: 1 });

  // Review 12 is only pushed: the correction after the wait copies it.
  await products.updateOne({ _id: 1 }, { $push: { reviews: { $each: [reviewOf(12)], $position: 0 } } });
  await waitUntil(async () => (await fullSetIds(1)).length === 12, {
    timeoutMs: 30_000,
    description: "review 12 copied once the push settled",
  });
  assert.deepEqual(await fullSetIds(1), range(1, 12));
  await waitUntil(async () => (await embeddedIds(1)).length === 10, {
    timeoutMs: 20_000,
    description: "product 1 trimmed again",
  });
  assert.deepEqual(await embeddedIds(1), range(3, 12).reverse());
});
