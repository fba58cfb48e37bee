// A delete whose pre-image expired before the sidecar read its event (the sidecar was stopped
// past changeStreamOptions.preAndPostImages.expireAfterSeconds): the event names only the
// deleted review's _id. The sidecar's copy ledger still names the product and the entry of a
// review the sidecar copied, so the delete reaches the product all the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useSidecarWithExpiringPreImages } from "../../../support/pre-images.js";
import { metricTotal, review, waitForCaughtUp, type Product } from "../../../support/harness.js";

const DAY = 86_400_000;

const fixture = useSidecarWithExpiringPreImages("subset_deletes_expired");

function reviewNumbered(id: number): Document {
  return review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));
}

async function embeddedIds(): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: 1 });
  return (product?.reviews ?? []).map((entry) => entry.review_id as number);
}

void test(
  "a review deleted while the sidecar was stopped past the pre-image's expiry still leaves its product",
  { timeout: 60_000 },
  async () => {
    const reviews = Array.from({ length: 12 }, (_, i) => reviewNumbered(12 - i));
    await fixture.db.collection<Product>("products").insertOne({ _id: 1, name: "Widget", reviews });
    await waitUntil(async () => (await embeddedIds()).join() === "12,11,10,9,8,7,6,5,4,3", {
      description: "the 10 newest embedded",
    });
    const deleted = await fixture.db.collection("reviews").findOne({ product_id: 1, review_id: 12 });
    await fixture.writeUnseen("reviews", "delete", deleted!._id, (session) =>
      fixture.db.collection("reviews").deleteOne({ _id: deleted!._id }, { session }),
    );

    await waitUntil(async () => (await embeddedIds()).join() === "11,10,9,8,7,6,5,4,3,2", {
      description: "review 12 gone from the product, review 2 in its place",
    });
    await waitForCaughtUp(fixture.sidecar.runner);
    assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: 1, review_id: 12 }), 0);
    assert.equal(await metricTotal(fixture.sidecar.metrics.corrections, { kind: "skipped_no_pre_image" }), 0);
  },
);
