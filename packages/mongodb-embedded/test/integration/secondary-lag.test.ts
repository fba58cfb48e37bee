// secondaryLagMs: reads whose read preference lets the driver choose a secondary see the data
// as a secondary that far behind would, as the manual warns (core/read-preference: modes other
// than primary may return stale data); primary reads see it as it is.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { ReadPreference, type Collection, type ReadPreferenceMode } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

const LAG_MS = 3_000;
let mongo: TestMongo;
let collection: Collection<{ _id: string }>;

before(async () => {
  mongo = await startTestMongo({ secondaryLagMs: LAG_MS });
  collection = mongo.client.db(uniqueDatabaseName("server_secondary_lag")).collection("docs");
});
after(async () => {
  await collection.db.dropDatabase();
  await mongo.close();
});

const from = (mode: ReadPreferenceMode) => ({ readPreference: new ReadPreference(mode) });

async function seenFrom(mode: ReadPreferenceMode, id: string): Promise<boolean> {
  return (await collection.findOne({ _id: id }, from(mode))) !== null;
}

async function untilSeenFrom(mode: ReadPreferenceMode, id: string, seen: boolean): Promise<void> {
  while ((await seenFrom(mode, id)) !== seen) await sleep(100);
}

void test("a document just inserted is not yet read preferring a secondary, and is once the lag has passed", async (t) => {
  if (!mongo.embedded) return t.diagnostic("a real secondary lags as it will");
  await collection.insertOne({ _id: "inserted" });
  assert.equal(await seenFrom("primary", "inserted"), true);
  for (const mode of ["secondaryPreferred", "nearest"] as const)
    assert.equal(await seenFrom(mode, "inserted"), false);
  assert.equal(await collection.countDocuments({ _id: "inserted" }, from("secondaryPreferred")), 0);
  await untilSeenFrom("secondaryPreferred", "inserted", true);
});

void test("a document just deleted is still read preferring a secondary, never from the primary", async (t) => {
  if (!mongo.embedded) return t.diagnostic("a real secondary lags as it will");
  await collection.insertOne({ _id: "deleted" });
  await untilSeenFrom("secondaryPreferred", "deleted", true);
  await collection.deleteOne({ _id: "deleted" });
  assert.equal(await seenFrom("primary", "deleted"), false);
  const lagging = await collection
    .aggregate([{ $match: { _id: "deleted" } }], from("secondaryPreferred"))
    .toArray();
  assert.deepEqual(lagging, [{ _id: "deleted" }]);
  await untilSeenFrom("secondaryPreferred", "deleted", false);
});
