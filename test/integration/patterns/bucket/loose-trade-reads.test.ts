// The reads a loose trade's correction sends (loose-entries.ts; issue 35's round trips): the
// fold's own, and no correction of the loose document as a bucket, which its insert shows
// has no entries to split.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { startSidecarTellingCommands, testConfig, waitForCaughtUp } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const fixture = useTestDatabase("loose_trade_reads");

const isBucket = (doc: Document) => Array.isArray(doc.history);

void test("a loose trade is folded without a read of its own document as a bucket", async () => {
  const { mongo, db } = fixture;
  const trades = db.collection("trades");
  const filters: Document[] = [];
  const sidecar = await startSidecarTellingCommands(mongo, testConfig(db.databaseName), (event) => {
    if (event.command.find === "trades") filters.push(event.command.filter as Document);
  });
  try {
    filters.length = 0;
    const trade = { customerId: 7, ticker: "MDB", quantity: 1, date: new Date("2023-11-01T00:00:00Z") };
    const { insertedId } = await trades.insertOne(trade);
    await waitUntil(async () => (await trades.find().toArray()).every(isBucket), {
      timeoutMs: 20_000,
      description: "the loose trade folded into a bucket",
    });
    // Reads sent after the fold committed (the new bucket's own event) are counted too.
    await waitForCaughtUp(sidecar.runner);
    // The fold's: the customer's loose trades, the `_id`s a new bucket may take, the open bucket.
    assert.equal(filters.length, 3, JSON.stringify(filters));
    const byId = filters.filter((filter) => JSON.stringify(filter).includes(insertedId.toHexString()));
    assert.deepEqual(byId, [], "no read of the loose trade by its _id");
  } finally {
    await sidecar.stop();
  }
});
