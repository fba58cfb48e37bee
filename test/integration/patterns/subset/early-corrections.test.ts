// The corrections of a product before its writes settle (settleMs; docs/semantics.md, "Copies
// and applications that write both sides"): a trim reads the product with its newest reviews,
// one command, and looks for nothing else in `reviews` (what it embeds outside them stays until
// the correction after the wait reads everything); one that leaves nothing for after the wait,
// as a propagated delete, is the event's only correction, and opens its transaction at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import {
  insertReviewedProduct,
  isProductStateRead,
  review,
  startSidecarTellingCommands,
  testConfig,
  waitForCaughtUp,
  type Product,
} from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const DAY = 86_400_000;
const reviewOf = (i: number) => review(i, new Date(Date.UTC(2020, 0, 1) + i * DAY));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const fixture = useTestDatabase("early_corrections");

/**
 * Product `productId` with `reviews` reviews, and a sidecar whose product reads and finds in
 * `reviews` (the memory budget's size reads aside: admitted-read.ts) are recorded, from after
 * its start.
 */
async function productAndSidecar(productId: number, reviews: number, settleMs: number) {
  const { mongo, db } = fixture;
  await insertReviewedProduct(db, productId, range(1, reviews).map(reviewOf));
  const reads: CommandStartedEvent[] = [];
  const config = testConfig(db.databaseName, { rules: [{ pattern: "subset", settleMs }] });
  const sidecar = await startSidecarTellingCommands(mongo, config, (event) => {
    if (event.command.find === "reviews" || isProductStateRead(event)) reads.push(event);
  });
  reads.length = 0;
  return { sidecar, reads };
}

const named = (reads: CommandStartedEvent[]) =>
  reads.map(({ commandName, command }) => `${commandName} ${command[commandName]}`);

async function embeddedIds(productId: number): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  return (product?.reviews ?? []).map((entry: Document) => entry.review_id as number);
}

void test("a push past the threshold is trimmed before it settles from one read of the product and its newest", async () => {
  const { db } = fixture;
  // Far longer than the sidecar takes to trim, so that the trim is seen before anything is copied.
  const { sidecar, reads } = await productAndSidecar(1, 10, 5000);
  try {
    await db.collection<Product>("products").updateOne({ _id: 1 }, { $push: { reviews: reviewOf(11) } });
    await waitUntil(async () => (await embeddedIds(1)).length === 10, {
      timeoutMs: 20_000,
      description: "product 1 trimmed to its 10 newest",
    });
    assert.deepEqual(await embeddedIds(1), range(2, 11).reverse());
    assert.equal(await db.collection("reviews").countDocuments({ review_id: 11 }), 0, "nothing copied yet");
    // The transaction's one read (the push's event showed the product past its threshold: no preview).
    assert.deepEqual(named(reads), ["aggregate products"]);
  } finally {
    await sidecar.stop();
  }
});

void test("a delete propagated before it settled is not corrected again after settleMs", async () => {
  const { db } = fixture;
  const { sidecar, reads } = await productAndSidecar(2, 11, 300);
  try {
    await db.collection("reviews").deleteOne({ product_id: 2, review_id: 11 });
    await waitUntil(
      async () => {
        const product = await db.collection<Product>("products").findOne({ _id: 2 });
        return product?.reviews[0]?.review_id === 10;
      },
      { timeoutMs: 20_000, description: "the delete of review 11 propagated to product 2" },
    );
    // Caught up only once no correction waits for its writes to settle.
    await waitForCaughtUp(sidecar.runner, 20_000);
    const product = await db.collection<Product>("products").findOne({ _id: 2 });
    assert.deepEqual(
      product?.reviews.map((entry: Document) => entry.review_id as number),
      range(1, 10).reverse(),
    );
    // The transaction's reads (the entry's holder looked for: a copy-back?), no preview's
    // (the transaction decides as well), none after the wait.
    assert.deepEqual(named(reads), ["aggregate products", "find reviews"]);
  } finally {
    await sidecar.stop();
  }
});
