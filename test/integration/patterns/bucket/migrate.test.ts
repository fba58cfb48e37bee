// `migrate`: a collection of loose trades (the bucket seed's schema before buckets) becomes
// buckets of 10 per customer in time order; stopped halfway and run again, it ends exactly
// where an unbroken run ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Document } from "mongodb";
import { migrateOnce } from "../../../../src/cli/commands/migrate.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { SIDECAR_APP_NAME, startSidecar, testConfig, turnFailPointOff } from "../../../support/harness.js";

const fixture = useTestDatabase("migrate");
const logger = createLogger({ level: "silent" });

async function migrate(rules: Document[], options: { appName?: string } = {}) {
  const client = await fixture.mongo.newClient({ appName: options.appName ?? "migrate-test" });
  const config = testConfig(fixture.db.databaseName, { rules });
  return migrateOnce({
    deployment: { client, db: client.db(config.database) },
    config,
    logger,
    dryRun: false,
  });
}

const SEED_TRADES = [
  { ticker: "MDB", customerId: 123, type: "buy", quantity: 419, date: new Date("2023-10-26T15:47:03.434Z") },
  { ticker: "MDB", customerId: 123, type: "sell", quantity: 29, date: new Date("2023-10-30T09:32:57.765Z") },
  { ticker: "GOOG", customerId: 456, type: "buy", quantity: 50, date: new Date("2023-10-31T11:16:02.120Z") },
];

void test("the seed's three trades become exactly its two buckets, _id'd by the first trade's epoch seconds", async () => {
  await fixture.db.collection("trades").insertMany(SEED_TRADES.map((doc) => ({ ...doc })));
  const [report] = await migrate([{ pattern: "bucket" }]);
  assert.deepEqual(report, { rule: "trades.history", moved: 3, documentsCreated: 2, skipped: 0 });
  const entry = ({ customerId: _key, ...rest }: Document) => rest;
  assert.deepEqual(await fixture.db.collection("trades").find().sort({ _id: 1 }).toArray(), [
    {
      _id: "123_1698335223",
      customerId: 123,
      count: 2,
      history: [entry(SEED_TRADES[0]!), entry(SEED_TRADES[1]!)],
    },
    { _id: "456_1698750962", customerId: 456, count: 1, history: [entry(SEED_TRADES[2]!)] },
  ]);
});

const CUSTOMERS = [11, 12, 13, 14, 15];
const TRADES_PER_CUSTOMER = 37;
const KILL_RULE = { pattern: "bucket", collection: "trades_kill", looseEntries: true };

function trade(customerId: number, i: number): Document {
  return {
    customerId,
    ticker: `${customerId}-${i}`,
    qty: i,
    date: new Date(Date.UTC(2023, 0, 1) + customerId * 1e9 + i * 60_000),
  };
}

// What an unbroken migration makes: each customer's trades in time order, cut into tens.
function expectedBuckets(): Document[] {
  return CUSTOMERS.flatMap((customerId) => {
    const trades = Array.from({ length: TRADES_PER_CUSTOMER }, (_, i) => trade(customerId, i));
    return Array.from({ length: Math.ceil(trades.length / 10) }, (_, page) => {
      const history = trades.slice(page * 10, page * 10 + 10).map(({ customerId: _key, ...rest }) => rest);
      const _id = `${customerId}_${Math.floor((history[0]!.date as Date).getTime() / 1000)}`;
      return { _id, customerId, count: history.length, history };
    });
  });
}

void test("a migration stopped halfway by a failing server and run again leaves every trade exactly once, in buckets of 10 in time order", async () => {
  const collection = fixture.db.collection("trades_kill");
  const all = CUSTOMERS.flatMap((customerId) =>
    Array.from({ length: TRADES_PER_CUSTOMER }, (_, i) => trade(customerId, i)),
  );
  // Written in an order unrelated to time, as years of an application's inserts are.
  await collection.insertMany(all.map((_, n) => all[(n * 7) % all.length]!).map((doc) => ({ ...doc })));
  // Each bucket's transaction deletes its trades in one bulk command: fail the ninth of twenty.
  await fixture.mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: { skip: 8 },
    data: { failCommands: ["delete"], errorCode: 8, appName: SIDECAR_APP_NAME },
  });
  try {
    await assert.rejects(migrate([KILL_RULE], { appName: SIDECAR_APP_NAME }));
  } finally {
    await turnFailPointOff(fixture.mongo);
  }
  const halfway = await collection.find().toArray();
  const bucketsHalfway = halfway.filter((doc) => Array.isArray(doc.history));
  assert.ok(bucketsHalfway.length > 0 && bucketsHalfway.length < expectedBuckets().length, "stopped halfway");

  const [report] = await migrate([KILL_RULE]);
  assert.equal(report?.skipped, 0);
  assert.deepEqual(await collection.find().sort({ _id: 1 }).toArray(), expectedBuckets());
});

void test("a migration runs beside a leading sidecar, which keeps its lease, and ends as it would alone", async () => {
  const rule = { pattern: "bucket", collection: "trades_beside", looseEntries: true };
  const all = CUSTOMERS.flatMap((customerId) =>
    Array.from({ length: TRADES_PER_CUSTOMER }, (_, i) => trade(customerId, i)),
  );
  await fixture.db.collection(rule.collection).insertMany(all);
  // Its first-start sweep folds no loose entries: that is migrate's job.
  const sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName, { rules: [rule] }));
  try {
    const [report] = await migrate([rule]);
    assert.equal(report?.moved, all.length);
    assert.equal(sidecar.runner.status().leader, true);
  } finally {
    await sidecar.stop();
  }
  assert.deepEqual(
    await fixture.db.collection(rule.collection).find().sort({ _id: 1 }).toArray(),
    expectedBuckets(),
  );
});
