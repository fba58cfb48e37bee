// Deletes in the full set reach the product (the sidecar enables pre-images on `reviews` at
// start), and a pull from the product is a trim. After each: every review of the product is
// in `reviews` once, the product embeds the 10 newest of them, and no deleted review is left.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import {
  metricTotal,
  review,
  slowSidecarCommits,
  startSidecar,
  testConfig,
  turnFailPointOff,
  useSidecarOnFreshDatabase,
  waitForCaughtUp,
  type Product,
} from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("subset_deletes");

const DAY = 86_400_000;

/** Review `id`, published `id` days after the seed's first. */
function reviewNumbered(id: number): Document {
  return review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function newestFirst(a: Document, b: Document): number {
  const byDate = (b.published_date as Date).getTime() - (a.published_date as Date).getTime();
  return byDate !== 0 ? byDate : (b.review_id as number) - (a.review_id as number);
}

async function embeddedIds(productId: number): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  return (product?.reviews ?? []).map((entry) => entry.review_id as number);
}

async function fullSetIds(productId: number): Promise<number[]> {
  const docs = await fixture.db.collection("reviews").find({ product_id: productId }).toArray();
  return docs.map((doc) => doc.review_id as number).sort((a, b) => a - b);
}

/** The semantics page's invariants for one product, and what it should hold. */
async function assertInvariants(productId: number, survivors: number[], deleted: number[] = []) {
  const fullSet = await fixture.db.collection("reviews").find({ product_id: productId }).toArray();
  assert.deepEqual(
    await fullSetIds(productId),
    [...survivors].sort((a, b) => a - b),
    "every survivor once",
  );
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  const newest = fullSet.sort(newestFirst).slice(0, 10);
  assert.deepEqual(
    product?.reviews,
    newest.map(({ _id: _stored, product_id: _reference, ...entry }) => entry),
    "the product embeds the 10 newest of reviews, newest first",
  );
  const embedded = new Set(product?.reviews.map((entry) => entry.review_id as number));
  assert.deepEqual(
    deleted.filter((id) => embedded.has(id)),
    [],
    "no deleted review is embedded",
  );
}

async function productWithReviews(productId: number, count: number): Promise<void> {
  await fixture.db.collection<Product>("products").insertOne({
    _id: productId,
    name: `Product ${productId}`,
    reviews: range(1, count).map(reviewNumbered),
  });
  await waitUntil(async () => (await fullSetIds(productId)).length === count, {
    description: `product ${productId}'s ${count} reviews copied`,
  });
  await waitUntil(
    async () =>
      (await embeddedIds(productId)).join() ===
      range(count - 9, count)
        .reverse()
        .join(),
    {
      description: `product ${productId} to embed its 10 newest`,
    },
  );
}

async function deleteReview(productId: number, reviewId: number): Promise<void> {
  const { deletedCount } = await fixture.db
    .collection("reviews")
    .deleteOne({ product_id: productId, review_id: reviewId });
  assert.equal(deletedCount, 1);
}

void test("a review deleted from reviews leaves its product, and the next newest takes its place", async () => {
  await productWithReviews(1, 12);
  await deleteReview(1, 12);
  await waitUntil(async () => (await embeddedIds(1)).join() === range(2, 11).reverse().join(), {
    description: "review 12 gone from product 1, review 2 embedded",
  });
  await waitForCaughtUp(fixture.sidecar.runner);
  await assertInvariants(1, range(1, 11), [12]);
});

void test("a review deleted from reviews that is not embedded leaves its product as it was", async () => {
  await productWithReviews(2, 12);
  await deleteReview(2, 1);
  await waitForCaughtUp(fixture.sidecar.runner);
  assert.deepEqual(await embeddedIds(2), range(3, 12).reverse());
  await assertInvariants(2, range(2, 12), [1]);
});

void test("a review pulled from the product stays in reviews, and the product is refilled to the 10 newest", async () => {
  await productWithReviews(3, 12);
  await fixture.db
    .collection<Product>("products")
    .updateOne({ _id: 3 }, { $pull: { reviews: { review_id: { $in: [12, 7] } } } });
  await waitUntil(async () => (await embeddedIds(3)).length === 10, {
    description: "product 3 refilled to 10 reviews",
  });
  await waitForCaughtUp(fixture.sidecar.runner);
  await assertInvariants(3, range(1, 12));
});

void test("a copy-back made between an application's delete and its propagation is deleted again", async () => {
  await productWithReviews(4, 12);
  // With the sidecar stopped, the application pushes review 13 and then deletes review 12:
  // on restart, the push's correction runs first and, seeing 12 embedded but missing from
  // reviews, copies it back; the delete's propagation, next, must undo exactly that copy.
  await fixture.sidecar.stop();
  await fixture.db
    .collection<Product>("products")
    .updateOne({ _id: 4 }, { $push: { reviews: { $each: [reviewNumbered(13)], $position: 0 } } });
  await deleteReview(4, 12);
  // Past the writes' settleMs (1000): a correction before they settle would copy nothing back.
  await sleep(1500);
  fixture.sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName));

  await waitUntil(async () => (await embeddedIds(4)).join() === [13, ...range(3, 11).reverse()].join(), {
    description: "product 4 to embed 13 and 11..3",
  });
  await waitForCaughtUp(fixture.sidecar.runner);
  const corrections = fixture.sidecar.logs
    .filter((line) => line.msg === "corrected document" && line.key === 4)
    .map((line) => [line.kind, line.elementsMoved]);
  assert.deepEqual(corrections, [
    ["copied", 2],
    ["deleted", 0],
  ]);
  await assertInvariants(4, [...range(1, 11), 13], [12]);
});

void test("reviews deleted while the seed's applications push and insert others end up nowhere", async () => {
  await productWithReviews(5, 12);
  const pushed = range(101, 140);
  const inserted = range(201, 240);
  const deleted: number[] = [];
  const push = async () => {
    for (const id of pushed)
      await fixture.db
        .collection<Product>("products")
        .updateOne({ _id: 5 }, { $push: { reviews: { $each: [reviewNumbered(id)], $position: 0 } } });
  };
  const insert = async () => {
    for (const id of inserted)
      await fixture.db.collection("reviews").insertOne({ ...reviewNumbered(id), product_id: 5 });
  };
  // Deletes an embedded review from reviews, over and over: the case a lagging correction copies back.
  const remove = async () => {
    for (let round = 0; round < 25; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      const product = await fixture.db.collection<Product>("products").findOne({ _id: 5 });
      const ids = (product?.reviews ?? []).map((entry) => entry.review_id as number);
      const victim = await fixture.db
        .collection("reviews")
        .findOne({ product_id: 5, review_id: { $in: ids } });
      if (!victim) continue;
      const { deletedCount } = await fixture.db.collection("reviews").deleteOne({ _id: victim._id });
      if (deletedCount === 1) deleted.push(victim.review_id as number);
    }
  };
  // Slow commits keep the sidecar behind the applications, so that plain corrections often
  // run between a delete and its propagation and copy the deleted review back first.
  await slowSidecarCommits(fixture.mongo, 30);
  try {
    await Promise.all([push(), insert(), remove()]);
  } finally {
    await turnFailPointOff(fixture.mongo);
  }

  const survivors = [...range(1, 12), ...pushed, ...inserted].filter((id) => !deleted.includes(id));
  await waitUntil(async () => (await fullSetIds(5)).join() === survivors.sort((a, b) => a - b).join(), {
    timeoutMs: 20_000,
    description: "every surviving review in reviews once",
  });
  await waitForCaughtUp(fixture.sidecar.runner);
  assert.ok(deleted.length >= 10, `${deleted.length} reviews deleted`);
  await assertInvariants(5, survivors, deleted);
});

// The sidecar's own copies are in its copy ledger, which names their product without a
// pre-image (subset-deletes-expired.test.ts); a review the application inserted is not.
void test("a delete of an application's review whose event has no pre-image is logged and counted, and not propagated", async () => {
  await productWithReviews(6, 12);
  await fixture.db.collection("reviews").insertOne({ ...reviewNumbered(13), product_id: 6 });
  await waitUntil(async () => (await embeddedIds(6)).join() === range(4, 13).reverse().join(), {
    description: "the application's review 13 embedded",
  });
  // Pre-images off, as they were before the sidecar enabled them, or once they expired.
  await fixture.db.command({ collMod: "reviews", changeStreamPreAndPostImages: { enabled: false } });
  try {
    const deleted = await fixture.db.collection("reviews").findOne({ product_id: 6, review_id: 13 });
    await deleteReview(6, 13);
    const warning = await waitUntil(
      () =>
        fixture.sidecar.logs.find(
          (line) => line.msg === "delete not propagated: its change event has no pre-image",
        ),
      { description: "the delete without a pre-image reported" },
    );
    assert.equal(String(warning.key), String(deleted?._id));
    assert.equal(
      await metricTotal(fixture.sidecar.metrics.corrections, {
        kind: "skipped_no_pre_image",
        collection: "products",
      }),
      1,
    );
    await waitForCaughtUp(fixture.sidecar.runner);
    assert.deepEqual(await embeddedIds(6), range(4, 13).reverse(), "review 13 stays embedded");
  } finally {
    await fixture.db.command({ collMod: "reviews", changeStreamPreAndPostImages: { enabled: true } });
  }
});

// While pre-images are on, the stream looks up no post-image: an update names its product in
// its pre-image; without one, the correction reads the review to find it.
void test("a review made the newest by an update without a pre-image enters its product", async () => {
  await productWithReviews(8, 12);
  await fixture.db.command({ collMod: "reviews", changeStreamPreAndPostImages: { enabled: false } });
  try {
    await fixture.db
      .collection("reviews")
      .updateOne(
        { product_id: 8, review_id: 1 },
        { $set: { published_date: new Date(Date.UTC(2030, 0, 1)) } },
      );
    await waitUntil(async () => (await embeddedIds(8))[0] === 1, { description: "review 1 embedded first" });
    assert.deepEqual(await embeddedIds(8), [1, ...range(4, 12).reverse()]);
  } finally {
    await fixture.db.command({ collMod: "reviews", changeStreamPreAndPostImages: { enabled: true } });
  }
});

void test("a review made the newest by an update enters its product, named by the update's pre-image", async () => {
  await productWithReviews(9, 12);
  await fixture.db
    .collection("reviews")
    .updateOne({ product_id: 9, review_id: 2 }, { $set: { published_date: new Date(Date.UTC(2030, 0, 1)) } });
  await waitUntil(async () => (await embeddedIds(9))[0] === 2, { description: "review 2 embedded first" });
  assert.deepEqual(await embeddedIds(9), [2, ...range(4, 12).reverse()]);
});

void test("a review an application moves to another product leaves the first product, and is never copied back", async () => {
  const products = fixture.db.collection<Product>("products");
  await products.insertOne({ _id: 501, name: "A", reviews: [reviewNumbered(5)] });
  await products.insertOne({ _id: 502, name: "B", reviews: [] });
  await waitUntil(
    async () => (await fixture.db.collection("reviews").countDocuments({ product_id: 501 })) === 1,
    {
      description: "review 5 copied under product 501",
    },
  );
  await fixture.db
    .collection("reviews")
    .updateOne({ product_id: 501, review_id: 5 }, { $set: { product_id: 502 } });
  await waitUntil(async () => JSON.stringify(await embeddedIds(502)) === "[5]", {
    description: "review 5 embedded in product 502",
  });
  await waitUntil(async () => JSON.stringify(await embeddedIds(501)) === "[]", {
    description: "review 5 gone from product 501",
  });
  // Product 501's next correction must not copy review 5 back under it.
  await products.updateOne({ _id: 501 }, { $push: { reviews: reviewNumbered(6) } });
  await waitUntil(
    async () => (await fixture.db.collection("reviews").countDocuments({ product_id: 501 })) === 1,
    {
      description: "review 6 copied under product 501",
    },
  );
  const copies = { review_id: 5, product_id: { $in: [501, 502] } };
  assert.equal(await fixture.db.collection("reviews").countDocuments(copies), 1);
  assert.deepEqual(await embeddedIds(501), [6]);
});
