import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, useSidecarOnFreshDatabase, type Product } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("subset");

const DAY = 86_400_000;

/** Review `id`, published `id` days after the seed's first. */
function reviewNumbered(id: number): Document {
  return review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));
}

function embeddedIds(product: Product | null): number[] {
  return (product?.reviews ?? []).map((r) => r.review_id as number);
}

async function waitForEmbedded(productId: number, ids: number[]): Promise<void> {
  await waitUntil(
    async () => {
      const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
      return JSON.stringify(embeddedIds(product)) === JSON.stringify(ids);
    },
    { description: `product ${productId} to embed reviews ${ids.join(",")}` },
  );
}

const newestTen = (last: number) => Array.from({ length: 10 }, (_, i) => last - i);

void test("a product with 786 reviews keeps the 10 newest embedded and all 786 in reviews once", async () => {
  await fixture.db.collection<Product>("products").insertOne({ _id: 1, name: "Super Widget", reviews: [] });
  for (let first = 1; first <= 786; first += 131) {
    const batch = Array.from({ length: Math.min(131, 787 - first) }, (_, i) =>
      reviewNumbered(first + i),
    ).reverse();
    await fixture.db
      .collection<Product>("products")
      .updateOne({ _id: 1 }, { $push: { reviews: { $each: batch, $position: 0 } } });
  }
  await waitForEmbedded(1, newestTen(786));
  await waitUntil(
    async () => (await fixture.db.collection("reviews").countDocuments({ product_id: 1 })) === 786,
    {
      description: "786 reviews in the full set",
    },
  );

  const ids = await fixture.db.collection("reviews").distinct("review_id", { product_id: 1 });
  assert.equal(ids.length, 786);
});

void test("a newer review inserted directly into reviews enters the embedded array", async () => {
  await fixture.db.collection("reviews").insertOne({ ...reviewNumbered(787), product_id: 1 });
  await waitForEmbedded(1, newestTen(787));
});

void test("an older review inserted directly into reviews stays out of the embedded array", async () => {
  await fixture.db.collection("reviews").insertOne({ ...reviewNumbered(0), product_id: 1 });
  await fixture.db.collection("reviews").insertOne({ ...reviewNumbered(788), product_id: 1 });
  await waitForEmbedded(1, newestTen(788));
  assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: 1 }), 789);
});
