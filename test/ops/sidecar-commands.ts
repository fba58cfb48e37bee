// Runs the sidecar, with the ConfigMap's rules, through every kind of write it makes against
// the test deployment (test/support/mongo.ts), and records the privileges its commands need
// through the driver's command monitoring: what deploy/mongodb-role.js must grant.
import { setTimeout as delay } from "node:timers/promises";
import type { Db, Document } from "mongodb";
import { waitUntil } from "../../src/cli/wait-until.js";
import type { Config } from "../../src/config/schema.js";
import type { BuiltInRule } from "../../src/patterns/registry.js";
import { createLogger } from "../../src/ops/logger.js";
import { createMetrics } from "../../src/ops/metrics.js";
import { leaseClientOptions } from "../../src/stream/lease/lease.js";
import { Runner } from "../../src/stream/runner.js";
import { review, users, waitForCaughtUp } from "../support/harness.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";
import { addActionsOf, type ActionsByCollection } from "./command-privileges.js";

/** Commands command-privileges.ts has no mapping for: the role test fails on any. */
export const unmapped: string[] = [];

interface MonitoredSidecar {
  runner: Runner;
  stop(): Promise<void>;
}

/** A runner as `run` builds one (its own client and the lease's), each client's commands recorded. */
async function startMonitoredSidecar(
  mongo: TestMongo,
  config: Config,
  needed: ActionsByCollection,
): Promise<MonitoredSidecar> {
  const monitored = async (options: object) => {
    const client = await mongo.newClient({ monitorCommands: true, ...options });
    client.on("commandStarted", (event) => {
      try {
        addActionsOf(
          needed,
          event.commandName,
          event.command,
          event.databaseName === "admin" ? config.database : event.databaseName,
        );
      } catch (error) {
        unmapped.push((error as Error).message);
      }
    });
    return client;
  };
  const client = await monitored({});
  const leaseClient = await monitored(leaseClientOptions(config.leaseSeconds));
  const runner = new Runner({
    client,
    db: client.db(config.database),
    leaseDb: leaseClient.db(config.database),
    config,
    metrics: createMetrics(),
    logger: createLogger({ level: process.env.ROLE_DEBUG ? "debug" : "silent" }),
    maxAwaitTimeMS: 100,
    persistIntervalMs: 100,
    parkedRetryMs: 200,
  });
  runner.start();
  await waitForCaughtUp(runner, 20_000);
  return {
    runner,
    stop: async () => {
      await runner.stop();
      await Promise.all([client.close(), leaseClient.close()]);
    },
  };
}

const DAY = 86_400_000;

/** The longest settleMs of the subset rules. */
function settleMsOf(config: Config): number {
  const subsets = (config.rules as BuiltInRule[]).filter((rule) => rule.pattern === "subset");
  return Math.max(0, ...subsets.map((rule) => rule.settleMs));
}
const reviewNumbered = (id: number) => review(id, new Date(Date.UTC(2017, 11, 6) + id * DAY));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function settled(description: string, check: () => Promise<boolean>): Promise<void> {
  await waitUntil(check, { timeoutMs: 20_000, description });
}

/**
 * The corrections of every rule of the ConfigMap, each branch that writes: an outlier moved
 * into new chunks, appended to the last one, and an application's chunk without a sequence
 * folded after the numbered ones; a bucket split and loose trades folded; reviews copied to
 * the full set, a delete propagated and a copy-back undone.
 */
async function exercise(
  mongo: TestMongo,
  db: Db,
  config: Config,
  needed: ActionsByCollection,
): Promise<void> {
  let sidecar = await startMonitoredSidecar(mongo, config, needed);
  try {
    const sales = db.collection<{ _id: number; customers_purchased: string[] }>("sales");
    await sales.insertOne({ _id: 1, customers_purchased: users(0, 60) });
    await settled(
      "the book's overflow moved",
      async () => (await db.collection("extra_sales").countDocuments({ book_id: 1 })) === 1,
    );
    await db.collection("extra_sales").insertOne({ book_id: 1, customers_purchased_extra: ["app-extra"] });
    await sales.updateOne({ _id: 1 }, { $push: { customers_purchased: "late" } });
    await settled(
      "the application's chunk folded",
      async () =>
        (await db.collection("extra_sales").countDocuments({ book_id: 1, seq: { $exists: false } })) === 0,
    );

    const trades = db.collection<{ _id: string; customerId: number; count: number; history: Document[] }>(
      "trades",
    );
    await trades.insertOne({
      _id: "7_0",
      customerId: 7,
      count: 25,
      history: range(1, 25).map((i) => ({
        ticker: "MDB",
        quantity: i,
        date: new Date(Date.UTC(2023, 0, i)),
      })),
    });
    await db
      .collection("trades")
      .insertOne({ customerId: 8, ticker: "GOOG", quantity: 1, date: new Date(Date.UTC(2023, 1, 1)) });
    await settled(
      "the trades bucketed",
      async () =>
        (await trades.countDocuments({ history: { $exists: false } })) === 0 &&
        (await trades.countDocuments({ customerId: 7 })) === 3,
    );

    const products = db.collection<{ _id: number; reviews: Document[] }>("products");
    const reviewIds = async () =>
      ((await products.findOne({ _id: 1 }))?.reviews ?? []).map((r) => r.review_id as number);
    await products.insertOne({ _id: 1, reviews: range(1, 12).map(reviewNumbered) });
    await settled(
      "the reviews copied",
      async () => (await db.collection("reviews").countDocuments({ product_id: 1 })) === 12,
    );
    await settled("the product trimmed", async () => (await reviewIds()).length === 10);

    // As subset-deletes.test.ts: stopped, the application pushes review 13 and deletes review
    // 12; on restart the push's correction copies 12 back, and the delete's undoes that copy.
    await sidecar.stop();
    await products.updateOne(
      { _id: 1 },
      { $push: { reviews: { $each: [reviewNumbered(13)], $position: 0 } } },
    );
    await db.collection("reviews").deleteOne({ product_id: 1, review_id: 12 });
    // Past the writes' settleMs: a correction before they settle copies nothing back.
    await delay(settleMsOf(config) + 500);
    sidecar = await startMonitoredSidecar(mongo, config, needed);
    await settled(
      "the copy-back undone",
      async () =>
        !(await reviewIds()).includes(12) &&
        (await reviewIds()).includes(13) &&
        (await db.collection("reviews").countDocuments({ product_id: 1, review_id: 12 })) === 0,
    );
    await waitForCaughtUp(sidecar.runner);
  } finally {
    await sidecar.stop();
  }
}

/** The privileges the sidecar's commands needed, per collection, on a fresh database with `rules`. */
export async function privilegesTheSidecarNeeds(
  configFor: (database: string) => Config,
): Promise<ActionsByCollection> {
  const mongo = await startTestMongo();
  const db = mongo.client.db(uniqueDatabaseName("role_commands"));
  const needed: ActionsByCollection = new Map();
  try {
    await exercise(mongo, db, configFor(db.databaseName), needed);
    return needed;
  } finally {
    await db.dropDatabase();
    await mongo.close();
  }
}
