// Reviews published at the same moment rank by review_id (src/patterns/subset.ts): the
// sidecar's reader must break ties the same way, or it hides reviews that belong embedded.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, useSidecarOnFreshDatabase, waitForCaughtUp } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("subset_ties");

const PUBLISHED = new Date(Date.UTC(2024, 0, 1));

void test("of twelve reviews published at once, the ten with the highest review_id are embedded", async () => {
  await fixture.db.collection("products").insertOne({ _id: 7 as never, name: "Tie Widget", reviews: [] });
  // _id order is the reverse of review_id order, so a reader ranking ties by _id picks the wrong ten.
  const reviews: Document[] = Array.from({ length: 12 }, (_, i) => ({
    _id: 100 - (i + 1),
    product_id: 7,
    ...review(i + 1, PUBLISHED),
  }));
  await fixture.db.collection("reviews").insertMany(reviews);

  const expected = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3];
  const embedded = async () => {
    const product = await fixture.db.collection("products").findOne({ _id: 7 as never });
    return ((product?.reviews ?? []) as Document[]).map((embedded) => embedded.review_id as number);
  };
  await waitUntil(async () => (await embedded()).length === 10, { description: "ten reviews embedded" });
  // insertMany writes its reviews one by one, as mongod does: a correction may run when only
  // eleven are in, and the twelfth comes in with the next one.
  await waitForCaughtUp(fixture.sidecar.runner);
  assert.deepEqual(await embedded(), expected);
});
