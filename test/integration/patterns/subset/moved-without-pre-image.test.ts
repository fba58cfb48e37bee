// A review an application moved to another product while the sidecar was stopped, past the
// pre-image's expiry (changeStreamOptions.preAndPostImages.expireAfterSeconds): the update's
// event names the new product only. The review must still leave the product it was under,
// and never be copied back there (docs/semantics.md, subset pattern).
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useSidecarWithExpiringPreImages } from "../../../support/pre-images.js";
import { review, waitForCaughtUp, type Product } from "../../../support/harness.js";

const DAY = 86_400_000;

const fixture = useSidecarWithExpiringPreImages("subset_moved_expired");

const reviewNumbered = (id: number) => review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));

async function embeddedIds(productId: number): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  return (product?.reviews ?? []).map((entry) => entry.review_id as number);
}

const reviewsUnder = (productId: number) =>
  fixture.db.collection("reviews").countDocuments({ product_id: productId });

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
    const moved = await fixture.db.collection("reviews").findOne({ product_id: 1, review_id: 3 });
    await fixture.writeUnseen("reviews", "update", moved!._id, (session) =>
      fixture.db
        .collection("reviews")
        .updateOne({ _id: moved!._id }, { $set: { product_id: 2 } }, { session }),
    );

    await waitUntil(async () => (await embeddedIds(2)).join() === "3,1", {
      description: "review 3 under product 2",
    });
    await waitForCaughtUp(fixture.sidecar.runner);
    assert.deepEqual(await embeddedIds(1), [2]);
    // Product 1's next correction finds nothing of review 3 to copy back.
    await products.updateOne({ _id: 1 }, { $push: { reviews: reviewNumbered(4) } });
    await waitUntil(async () => (await reviewsUnder(1)) === 2, {
      description: "review 4 copied under product 1",
    });
    await waitForCaughtUp(fixture.sidecar.runner);
    assert.equal(await fixture.db.collection("reviews").countDocuments({ review_id: 3 }), 1);
    assert.deepEqual(await embeddedIds(1), [4, 2]);
  },
);
