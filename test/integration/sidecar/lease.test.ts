import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import type { Config } from "../../../src/config.js";
import { waitUntil } from "../../../src/wait-until.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../../support/mongo.js";
import { allPurchasers, metricTotal, startSidecar, testConfig, users, type TestSidecar } from "./harness.js";

let mongo: TestMongo;
let db: Db;
let config: Config;
let first: TestSidecar;
let second: TestSidecar;

before(async () => {
  mongo = await startTestMongo();
  config = testConfig(uniqueDatabaseName("lease"), { leaseSeconds: 1 });
  db = mongo.client.db(config.database);
  first = await startSidecar(mongo, config, { holderId: "first" });
  second = await startSidecar(mongo, config, { holderId: "second", waitForStreaming: false });
  await waitUntil(() => second.runner.status().state === "standby", {
    description: "the second sidecar to stand by",
  });
});

after(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await db?.dropDatabase();
  await mongo?.close();
});

void test("of two sidecars only the lease holder corrects documents", async () => {
  await db.collection("sales").insertOne({ _id: 1 as never, customers_purchased: users(0, 80) });
  await waitUntil(
    async () =>
      (await allPurchasers(db, 1)).length === 80 && (await metricTotal(first.metrics.corrections)) > 0,
    {
      description: "the book to be corrected",
    },
  );

  assert.equal(await metricTotal(second.metrics.corrections), 0);
  assert.deepEqual([first.runner.status().leader, second.runner.status().leader], [true, false]);
});

void test("a standby sidecar takes over when the leader stops", async () => {
  await first.stop();
  await waitUntil(() => second.runner.status().state === "streaming", {
    description: "the standby to take over",
  });
  await db.collection("sales").insertOne({ _id: 2 as never, customers_purchased: users(0, 60) });
  await waitUntil(async () => (await metricTotal(second.metrics.corrections)) > 0, {
    description: "the new leader to correct",
  });
  assert.deepEqual(await allPurchasers(db, 2), users(0, 60));
});
