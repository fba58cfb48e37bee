// The trim before a push settles reads the product with its newest reviews, one command, and
// looks for nothing else in `reviews`: what it embeds outside them stays until the correction
// after the wait, which reads everything (docs/semantics.md, "Copies and applications").
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CommandStartedEvent, Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { review, runSidecar, testConfig, type Product } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

// Far longer than the sidecar takes to trim, so that the trim is seen before anything is copied.
const SETTLE_MS = 5000;
const DAY = 86_400_000;
const reviewOf = (i: number) => review(i, new Date(Date.UTC(2020, 0, 1) + i * DAY));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

const fixture = useTestDatabase("early_trim_reads");

async function embeddedIds(productId: number): Promise<number[]> {
  const product = await fixture.db.collection<Product>("products").findOne({ _id: productId });
  return (product?.reviews ?? []).map((entry: Document) => entry.review_id as number);
}

void test("a push past the threshold is trimmed before it settles from one read of the product and its newest", async () => {
  const { mongo, db } = fixture;
  const first = range(1, 10).map(reviewOf);
  await db.collection("reviews").insertMany(first.map((doc) => ({ ...doc, product_id: 1 })));
  await db
    .collection<Product>("products")
    .insertOne({ _id: 1, name: "widget", reviews: [...first].reverse() });
  const client = await mongo.newClient({ monitorCommands: true });
  const reads: CommandStartedEvent[] = [];
  client.on("commandStarted", (event) => {
    const { command } = event;
    const pipeline = (command.pipeline ?? []) as Document[];
    // The memory budget's size reads aside (admitted-read.ts).
    const joins = pipeline.some((stage) => "$lookup" in stage);
    if (command.find === "reviews" || (command.aggregate === "products" && joins)) reads.push(event);
  });
  const config = testConfig(db.databaseName, { rules: [{ pattern: "subset", settleMs: SETTLE_MS }] });
  const sidecar = await runSidecar({ client, db: client.db(db.databaseName) }, config, {}, () =>
    client.close(),
  );
  try {
    reads.length = 0;
    await db.collection<Product>("products").updateOne({ _id: 1 }, { $push: { reviews: reviewOf(11) } });
    await waitUntil(async () => (await embeddedIds(1)).length === 10, {
      timeoutMs: 20_000,
      description: "product 1 trimmed to its 10 newest",
    });
    assert.deepEqual(await embeddedIds(1), range(2, 11).reverse());
    assert.equal(await db.collection("reviews").countDocuments({ review_id: 11 }), 0, "nothing copied yet");
    // The transaction's one read (the push's event showed the product past its threshold: no preview).
    assert.deepEqual(
      reads.map(({ commandName, command }) => `${commandName} ${command[commandName]}`),
      ["aggregate products"],
    );
  } finally {
    await sidecar.stop();
  }
});
