// A delete whose pre-image expired before the sidecar read its event (the sidecar was stopped
// past changeStreamOptions.preAndPostImages.expireAfterSeconds): the event names only the
// deleted review's _id. The sidecar's copy ledger still names the product and the entry of a
// review the sidecar copied, so the delete reaches the product all the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { ChangeStreamDeleteDocument, Document, Timestamp } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  metricTotal,
  review,
  startSidecar,
  testConfig,
  waitForCaughtUp,
  type Product,
  type TestSidecar,
} from "../../../support/harness.js";

const DAY = 86_400_000;

let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("subset_deletes_expired", {
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

function reviewNumbered(id: number): Document {
  return review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));
}

async function embeddedIds(): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: 1 });
  return (product?.reviews ?? []).map((entry) => entry.review_id as number);
}

/** Whether the delete event of `id` after `from` still carries its pre-image. */
async function preImageKept(from: Timestamp, id: unknown): Promise<boolean> {
  const stream = fixture.db
    .collection("reviews")
    .watch<Document, ChangeStreamDeleteDocument>(
      [{ $match: { operationType: "delete", "documentKey._id": id } }],
      {
        startAtOperationTime: from,
        fullDocumentBeforeChange: "whenAvailable",
      },
    );
  try {
    return (await stream.next()).fullDocumentBeforeChange !== null;
  } finally {
    await stream.close();
  }
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
    await waitForCaughtUp(sidecar!.runner);
    await sidecar!.stop();

    const session = fixture.mongo.client.startSession();
    const deleted = await fixture.db.collection("reviews").findOne({ product_id: 1, review_id: 12 });
    try {
      await fixture.db.collection("reviews").deleteOne({ _id: deleted!._id }, { session });
    } finally {
      await session.endSession();
    }
    await setImageExpiry(1);
    while (await preImageKept(session.operationTime!, deleted!._id)) await sleep(500);

    sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName));
    await waitUntil(async () => (await embeddedIds()).join() === "11,10,9,8,7,6,5,4,3,2", {
      description: "review 12 gone from the product, review 2 in its place",
    });
    await waitForCaughtUp(sidecar.runner);
    assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: 1, review_id: 12 }), 0);
    assert.equal(await metricTotal(sidecar.metrics.corrections, { kind: "skipped_no_pre_image" }), 0);
  },
);
