// A correction made before its key's writes settle (settleMs) that leaves nothing for after the
// wait is the event's only one: a delete propagated from the full set is not read again once
// the delete is settleMs old (docs/semantics.md, "Copies and applications that write both sides").
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, runSidecar, testConfig, waitForCaughtUp, type Product } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const SETTLE_MS = 300;
const DAY = 86_400_000;
const reviewOf = (i: number) => review(i, new Date(Date.UTC(2020, 0, 1) + i * DAY));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const fixture = useTestDatabase("settled_pass");

/** The reads of a product's state that a correction plans from: its $lookup of the newest reviews. */
function isProductRead(event: CommandStartedEvent): boolean {
  const pipeline = event.command.pipeline as Document[] | undefined;
  return event.command.aggregate === "products" && (pipeline ?? []).some((stage) => "$lookup" in stage);
}

void test("a delete propagated before it settled is not corrected again after settleMs", async () => {
  const { mongo, db } = fixture;
  const reviews = range(1, 11).map(reviewOf);
  await db.collection("reviews").insertMany(reviews.map((doc) => ({ ...doc, product_id: 1 })));
  await db
    .collection<Product>("products")
    .insertOne({ _id: 1, name: "widget", reviews: [...reviews].reverse().slice(0, 10) });
  const client = await mongo.newClient({ monitorCommands: true });
  const productReads: CommandStartedEvent[] = [];
  client.on("commandStarted", (event) => {
    if (isProductRead(event)) productReads.push(event);
  });
  const config = testConfig(db.databaseName, { rules: [{ pattern: "subset", settleMs: SETTLE_MS }] });
  const sidecar = await runSidecar({ client, db: client.db(db.databaseName) }, config, {}, () =>
    client.close(),
  );
  try {
    productReads.length = 0;
    await db.collection("reviews").deleteOne({ review_id: 11 });
    await waitUntil(
      async () => {
        const product = await db.collection<Product>("products").findOne({ _id: 1 });
        return product?.reviews[0]?.review_id === 10;
      },
      { timeoutMs: 20_000, description: "the delete of review 11 propagated to product 1" },
    );
    // Caught up only once no correction waits for its writes to settle.
    await waitForCaughtUp(sidecar.runner, 20_000);
    const product = await db.collection<Product>("products").findOne({ _id: 1 });
    assert.deepEqual(
      product?.reviews.map((entry: Document) => entry.review_id as number),
      range(1, 10).reverse(),
    );
    // The preview's read and the transaction's: none after the wait.
    assert.equal(productReads.length, 2);
  } finally {
    await sidecar.stop();
  }
});
