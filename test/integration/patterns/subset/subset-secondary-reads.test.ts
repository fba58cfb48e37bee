// A URI asking for secondaries (readPreference=secondaryPreferred) while secondaries lag: the
// sidecar, connected as `run` connects, still decides every write on the primary's state, so
// a review deleted from `reviews` leaves its product and is never copied back from a stale read.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { connectDeployment } from "../../../../src/cli/deployment.js";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { createShutdownStack } from "../../../../src/ops/shutdown.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  review,
  runSidecar,
  testConfig,
  waitForCaughtUp,
  type Product,
  type TestSidecar,
} from "../../../support/harness.js";

const DAY = 86_400_000;
/** Longer than the whole test: every read preferring a secondary sees the database as it started. */
const SECONDARY_LAG_MS = 60_000;

const shutdown = createShutdownStack();
let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("subset_secondary_reads", {
  secondaryLagMs: SECONDARY_LAG_MS,
  setUp: async ({ mongo, db }) => {
    const separator = mongo.uri.includes("?") ? "&" : "?";
    const mongodbUri = `${mongo.uri}${separator}readPreference=secondaryPreferred`;
    const config = testConfig(db.databaseName, { mongodbUri });
    const deployment = await connectDeployment(config, createLogger({ level: "silent" }), shutdown, {
      leaseClient: true,
    });
    shutdown.defer("deployment clients", () => deployment.client.close());
    sidecar = await runSidecar(deployment, config);
  },
  tearDown: async () => {
    await sidecar?.stop();
    await shutdown.close();
  },
});

function reviewNumbered(id: number): Document {
  return review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));
}

async function embeddedIds(): Promise<string> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: 1 });
  return (product?.reviews ?? []).map((entry) => entry.review_id as number).join();
}

void test("a review deleted while secondaries lag leaves its product and is not copied back", async () => {
  const products = fixture.db.collection<Product>("products");
  const reviews = Array.from({ length: 12 }, (_, i) => reviewNumbered(12 - i));
  await products.insertOne({ _id: 1, name: "Widget", reviews });
  await waitUntil(async () => (await embeddedIds()) === "12,11,10,9,8,7,6,5,4,3", {
    description: "the 10 newest embedded",
  });
  await fixture.db.collection("reviews").deleteOne({ product_id: 1, review_id: 12 });
  await waitUntil(async () => (await embeddedIds()) === "11,10,9,8,7,6,5,4,3,2", {
    description: "review 12 gone from the product",
  });
  // The product's next correction reads reviews again: from a lagging secondary it would
  // find review 12 still there.
  await products.updateOne({ _id: 1 }, { $push: { reviews: { $each: [reviewNumbered(13)], $position: 0 } } });
  await waitUntil(async () => (await embeddedIds()) === "13,11,10,9,8,7,6,5,4,3", {
    description: "review 13 embedded",
  });
  await waitForCaughtUp(sidecar!.runner);
  assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: 1, review_id: 12 }), 0);
  assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: 1 }), 12);
});
