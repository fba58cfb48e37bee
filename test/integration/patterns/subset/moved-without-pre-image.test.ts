// A review an application moved to another product while the sidecar was stopped, past the
// pre-image's expiry (changeStreamOptions.preAndPostImages.expireAfterSeconds): the update's
// event names the new product only. The review must still leave the product it was under,
// and never be copied back there (docs/semantics.md, subset pattern).
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { ChangeStreamUpdateDocument, Document, Timestamp } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  review,
  startSidecar,
  testConfig,
  waitForCaughtUp,
  type Product,
  type TestSidecar,
} from "../../../support/harness.js";

const DAY = 86_400_000;

let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("subset_moved_expired", {
  setUp: async ({ mongo, db }) => {
    sidecar = await startSidecar(mongo, testConfig(db.databaseName));
  },
  tearDown: async () => {
    await sidecar?.stop();
    await setImageExpiry("off");
  },
});

const setImageExpiry = (expireAfterSeconds: number | "off") =>
  fixture.mongo.client
    .db("admin")
    .command({ setClusterParameter: { changeStreamOptions: { preAndPostImages: { expireAfterSeconds } } } });

const reviewNumbered = (id: number) => review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));

async function embeddedIds(productId: number): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  return (product?.reviews ?? []).map((entry) => entry.review_id as number);
}

const reviewsUnder = (productId: number) =>
  fixture.db.collection("reviews").countDocuments({ product_id: productId });

/** Whether the update event of `id` after `from` still carries its pre-image. */
async function preImageKept(from: Timestamp, id: unknown): Promise<boolean> {
  const stream = fixture.db
    .collection("reviews")
    .watch<Document, ChangeStreamUpdateDocument>(
      [{ $match: { operationType: "update", "documentKey._id": id } }],
      { startAtOperationTime: from, fullDocumentBeforeChange: "whenAvailable" },
    );
  try {
    return (await stream.next()).fullDocumentBeforeChange !== null;
  } finally {
    await stream.close();
  }
}

void test(
  "a review moved to another product while the sidecar was stopped past the pre-image's expiry leaves the first product",
  { timeout: 60_000 },
  async () => {
    const products = fixture.db.collection<Product>("products");
    await products.insertOne({ _id: 1, name: "A", reviews: [reviewNumbered(3), reviewNumbered(2)] });
    await products.insertOne({ _id: 2, name: "B", reviews: [reviewNumbered(1)] });
    await waitUntil(async () => (await reviewsUnder(1)) === 2 && (await reviewsUnder(2)) === 1, {
      description: "the reviews copied",
    });
    await waitForCaughtUp(sidecar!.runner);
    await sidecar!.stop();

    const moved = await fixture.db.collection("reviews").findOne({ product_id: 1, review_id: 3 });
    const session = fixture.mongo.client.startSession();
    try {
      await fixture.db
        .collection("reviews")
        .updateOne({ _id: moved!._id }, { $set: { product_id: 2 } }, { session });
    } finally {
      await session.endSession();
    }
    await setImageExpiry(1);
    while (await preImageKept(session.operationTime!, moved!._id)) await sleep(500);

    sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName));
    await waitUntil(async () => (await embeddedIds(2)).join() === "3,1", {
      description: "review 3 under product 2",
    });
    await waitForCaughtUp(sidecar.runner);
    assert.deepEqual(await embeddedIds(1), [2]);
    // Product 1's next correction finds nothing of review 3 to copy back.
    await products.updateOne({ _id: 1 }, { $push: { reviews: reviewNumbered(4) } });
    await waitUntil(async () => (await reviewsUnder(1)) === 2, {
      description: "review 4 copied under product 1",
    });
    await waitForCaughtUp(sidecar.runner);
    assert.equal(await fixture.db.collection("reviews").countDocuments({ review_id: 3 }), 1);
    assert.deepEqual(await embeddedIds(1), [4, 2]);
  },
);
