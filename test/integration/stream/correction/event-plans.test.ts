// Corrections planned from a push's change event alone (planFromEvent), through the driver: a
// push onto a full book costs its transaction one write command and the commit, and a guess
// the documents no longer bear out is undone and planned again from a read, losing nothing.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Db, Document, MongoClient } from "mongodb";
import { driverOf } from "../../../../src/patterns/registry.js";
import type { OutlierRule } from "../../../../src/patterns/outlier/rule.js";
import { supportsBulkWrite } from "../../../../src/stream/correction/bulk-write.js";
import { correctTarget, type CorrectionContext } from "../../../../src/stream/correction/correction.js";
import { EventPlans } from "../../../../src/stream/correction/event-plans.js";
import {
  targetsForEvent,
  type CorrectionTarget,
  type ProjectedChangeEvent,
} from "../../../../src/stream/events/targets.js";
import { buildWatchPipeline, watchOptions } from "../../../../src/stream/events/watch-pipeline.js";
import {
  allPurchasers,
  correctionContext,
  fencedLease,
  insertBook,
  testConfig,
  users,
  type FencedLease,
} from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

let monitored: MongoClient;
const commands: { name: string; collection: unknown }[] = [];
const fixture = useTestDatabase("event_plans", {
  async setUp({ mongo, db }) {
    monitored = await mongo.newClient({ monitorCommands: true });
    monitored.on("commandStarted", (event) =>
      commands.push({ name: event.commandName, collection: event.command[event.commandName] }),
    );
    for (const index of driverOf(rule()).collections.indexes(rule()))
      await db.collection(index.collection).createIndex(index.keys, index.options ?? {});
  },
});

const config = () => testConfig(fixture.db.databaseName);
const rule = () => config().rules.find((r): r is OutlierRule => r.pattern === "outlier")!;

const leases = new Map<MongoClient, FencedLease>();

/** A leader's context, each with EventPlans of its own (none has corrected a book yet). */
async function leaderContext(client: MongoClient, db: Db): Promise<CorrectionContext> {
  let lease = leases.get(client);
  if (!lease) {
    lease = fencedLease(client, db, "event-plans");
    assert.equal(await lease.lease.acquireOrRenew(), true);
    await supportsBulkWrite(client); // asked once per client: not one of a correction's commands
    leases.set(client, lease);
  }
  return correctionContext(client, db, lease, { eventPlans: new EventPlans() });
}

/** The source target of `bookId` as the stream's event of one push of `pushed` onto it yields. */
async function pushSeen(bookId: number, pushed: string, db = fixture.db): Promise<CorrectionTarget> {
  const { rules } = config();
  const stream = db.watch<Document, ProjectedChangeEvent>(buildWatchPipeline(rules), watchOptions(rules));
  try {
    await stream.tryNext(); // opens the stream before the push
    await db
      .collection<{ _id: number; customers_purchased: string[] }>("sales")
      .updateOne({ _id: bookId }, { $push: { customers_purchased: pushed } });
    const event = await stream.next();
    return targetsForEvent(rules, event).find((target) => target.role === "source")!;
  } finally {
    await stream.close();
  }
}

/** Corrects `target`; returns the commands the correction sent and the transactions it retried. */
async function correct(target: CorrectionTarget): Promise<{ sent: string[]; retries: number }> {
  const context = await leaderContext(monitored, monitored.db(fixture.db.databaseName));
  commands.length = 0;
  await correctTarget(context, target);
  const retries = (await context.metrics.transactionRetries.get()).values.reduce((n, v) => n + v.value, 0);
  return { sent: commands.map((c) => `${c.name} ${String(c.collection)}`), retries };
}

const takesBulkWrite = async () =>
  Number((await fixture.db.admin().command({ hello: 1 })).maxWireVersion) >= 25;

const chunks = (bookId: number) =>
  fixture.db.collection("extra_sales").find({ book_id: bookId }).sort({ seq: 1 }).toArray();

void test("a push onto a full book is corrected from its event: one write command and the commit, no read", async () => {
  await insertBook(fixture.db, 1, 50);
  const target = await pushSeen(1, "user50");
  assert.deepEqual(target.shown, { appended: ["user50"] });
  const { sent, retries } = await correct(target);
  if (await takesBulkWrite()) assert.deepEqual(sent, ["bulkWrite 1", "commitTransaction 1"]);
  assert.equal(sent.filter((command) => /^(find|aggregate) sales$/.test(command)).length, 0, sent.join(", "));
  assert.equal(retries, 0);
  assert.deepEqual(await allPurchasers(fixture.db, 1), users(0, 51));
  const book = await fixture.db.collection("sales").findOne({ _id: 1 as never });
  assert.deepEqual([book?.customers_purchased.length, book?.has_extras], [50, true]);
  assert.deepEqual(
    (await chunks(1)).map((c) => [c.seq, c.customers_purchased_extra]),
    [[0, ["user50"]]],
  );
});

void test("a guess the book no longer bears out is undone and planned again from a read: the entry there now moves", async () => {
  await insertBook(fixture.db, 2, 50);
  const target = await pushSeen(2, "user50");
  await fixture.db
    .collection("sales")
    .updateOne({ _id: 2 as never }, { $set: { "customers_purchased.50": "late" } });
  const { retries } = await correct(target);
  assert.equal(retries, 1);
  assert.deepEqual(await allPurchasers(fixture.db, 2), [...users(0, 50), "late"]);
  assert.deepEqual(
    (await chunks(2)).map((c) => c.customers_purchased_extra),
    [["late"]],
  );
});

void test("a push onto a book whose chunk 0 exists goes after it, not into a second chunk 0", async () => {
  await insertBook(fixture.db, 3, 50);
  const chunk0 = { _id: { book_id: 3, seq: 0 }, book_id: 3, seq: 0, customers_purchased_extra: ["first"] };
  await fixture.db.collection("extra_sales").insertOne(chunk0 as Document);
  const target = await pushSeen(3, "second");
  assert.equal((await correct(target)).retries, 1);
  assert.deepEqual(
    (await chunks(3)).map((c) => [c.seq, c.customers_purchased_extra]),
    [[0, ["first", "second"]]],
  );
});

void test("a push onto a book with the seed's unnumbered chunk goes before its entries, as a read plans it", async () => {
  await insertBook(fixture.db, 4, 50);
  await fixture.db.collection("extra_sales").insertOne({ book_id: 4, customers_purchased_extra: ["seed"] });
  const target = await pushSeen(4, "user50");
  assert.equal((await correct(target)).retries, 1);
  assert.deepEqual(await allPurchasers(fixture.db, 4), [...users(0, 50), "user50", "seed"]);
  assert.equal((await chunks(4)).length, 1);
});

void describe("on MongoDB 7.0 (no bulkWrite)", () => {
  const older = useTestDatabase("event_plans_7_0", { serverVersion: "7.0" });

  void test("the seed's unnumbered chunk is found before the guess's writes, as with bulkWrite", async () => {
    const { db, mongo } = older;
    for (const index of driverOf(rule()).collections.indexes(rule()))
      await db.collection(index.collection).createIndex(index.keys, index.options ?? {});
    await insertBook(db, 4, 50);
    await db.collection("extra_sales").insertOne({ book_id: 4, customers_purchased_extra: ["seed"] });
    const context = await leaderContext(mongo.client, db);
    await correctTarget(context, await pushSeen(4, "user50", db));
    assert.deepEqual(await allPurchasers(db, 4), [...users(0, 50), "user50", "seed"]);
    assert.equal(await db.collection("extra_sales").countDocuments(), 1);
  });
});
