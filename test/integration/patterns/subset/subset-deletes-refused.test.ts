// Without the privilege to enable pre-images on `reviews` (the server refuses the sidecar's
// collMod with Unauthorized, injected with the real failCommand), the sidecar says so once,
// naming the rule, the collection and the privilege, and carries on without propagating
// deletes: a review deleted but still embedded is copied back, as before deletes reached the
// subset, and no copy is recorded in the ledger.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  failSidecarCommands,
  review,
  startSidecar,
  testConfig,
  waitForCaughtUp,
  type Product,
  type TestSidecar,
} from "../../../support/harness.js";

const UNAUTHORIZED = 13;
const DAY = 86_400_000;

let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("subset_deletes_refused", {
  setUp: async ({ mongo, db }) => {
    await failSidecarCommands(mongo, { commands: ["collMod"], errorCode: UNAUTHORIZED, mode: { times: 1 } });
    sidecar = await startSidecar(mongo, testConfig(db.databaseName));
  },
  tearDown: async () => sidecar?.stop(),
});

function reviewNumbered(id: number): Document {
  return review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));
}

async function embeddedIds(): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: 1 });
  return (product?.reviews ?? []).map((entry) => entry.review_id as number);
}

void test("a refused collMod is reported once, with the rule, the collection and the privilege it needs", () => {
  const warnings = sidecar!.logs.filter((line) =>
    String(line.msg).startsWith("could not set the collection option"),
  );
  assert.equal(warnings.length, 1);
  const [warning] = warnings;
  assert.equal(warning?.rule, "products.reviews");
  assert.equal(warning?.collection, "reviews");
  assert.equal(
    warning?.privilege,
    `collMod on ${fixture.db.databaseName}.reviews (the dbAdmin role grants it)`,
  );
  assert.match(String(warning?.msg), /deletes in reviews to reach products\.reviews/);
});

void test("without pre-images, a deleted review still embedded is copied back at its product's next correction", async () => {
  const reviews = Array.from({ length: 12 }, (_, i) => reviewNumbered(12 - i));
  await fixture.db.collection<Product>("products").insertOne({ _id: 1, name: "Widget", reviews });
  await waitUntil(async () => (await embeddedIds()).length === 10, { description: "10 reviews embedded" });
  await waitForCaughtUp(sidecar!.runner);

  await fixture.db.collection("reviews").deleteOne({ product_id: 1, review_id: 12 });
  await fixture.db
    .collection<Product>("products")
    .updateOne({ _id: 1 }, { $push: { reviews: { $each: [reviewNumbered(13)], $position: 0 } } });
  await waitUntil(async () => (await embeddedIds()).join() === "13,12,11,10,9,8,7,6,5,4", {
    description: "review 13 embedded, review 12 kept",
  });
  await waitForCaughtUp(sidecar!.runner);

  assert.equal(await fixture.db.collection("reviews").countDocuments({ product_id: 1, review_id: 12 }), 1);
  const ledger = await fixture.db
    .collection("pattern_sidecar_state")
    .countDocuments({ records: { $exists: true } });
  assert.equal(ledger, 0, "no copy recorded");
});
