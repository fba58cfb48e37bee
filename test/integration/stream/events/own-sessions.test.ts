// The stream leaves the sidecar's own transactions out on the server (watch-pipeline.ts): a
// write in a transaction on one of its sessions never arrives, while the same write in an
// application's transaction, or outside any, does, with or without post-image lookups.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ClientSession, Document } from "mongodb";
import type { PatternRule } from "../../../../src/patterns/driver.js";
import { numbersByValue } from "../../../../src/patterns/bson/bson-value.js";
import { currentClusterTime } from "../../../../src/stream/position/cluster-time.js";
import { targetsForEvent, type ProjectedChangeEvent } from "../../../../src/stream/events/targets.js";
import { buildWatchPipeline, watchOptions } from "../../../../src/stream/events/watch-pipeline.js";
import { testConfig } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";

const fixture = useTestDatabase("own_sessions");

/** An update of a product's embedded reviews: an event the subset rule's filter lets through. */
const reviewAdded = (id: number) => ({ $push: { reviews: { review_id: id, text: "fine" } } });

/**
 * The products the stream of `rules` names, in order, when three are inserted, then a review
 * is added to product `first` in a transaction on the sidecar's session, to `first + 1` in
 * one on an application's session, and to `first + 2` outside a transaction.
 */
async function productsStreamed(rules: readonly PatternRule[], first: number): Promise<unknown[]> {
  const { db, mongo } = fixture;
  const products = db.collection<{ _id: number }>("products");
  const ids = [first, first + 1, first + 2];
  const own = mongo.client.startSession();
  const application = mongo.client.startSession();
  const stream = db.watch<Document, ProjectedChangeEvent>(buildWatchPipeline(rules, "full", [own.id!.id]), {
    ...watchOptions(rules),
    startAtOperationTime: await currentClusterTime(db),
  });
  try {
    await products.insertMany(ids.map((_id) => ({ _id, reviews: [] })));
    const inTransaction = (session: ClientSession, id: number) =>
      session.withTransaction(() => products.updateOne({ _id: id }, reviewAdded(id), { session }));
    await inTransaction(own, ids[0]!);
    await inTransaction(application, ids[1]!);
    await products.updateOne({ _id: ids[2]! }, reviewAdded(ids[2]!));
    const named: unknown[] = [];
    while (named.length < 5) {
      const event = await stream.next();
      const products = targetsForEvent(rules, event).map((target) => numbersByValue(target.id));
      // A stream started at the majority commit point may still show an earlier test's writes.
      named.push(...products.filter((id) => ids.includes(id as number)));
    }
    return named;
  } finally {
    await stream.close();
    await own.endSession();
    await application.endSession();
  }
}

void test("a transaction on the sidecar's own session has no event in its stream; an application's writes do", async () => {
  const { rules } = testConfig(fixture.db.databaseName);
  assert.equal(watchOptions(rules).fullDocument, undefined);
  assert.deepEqual(await productsStreamed(rules, 1), [1, 2, 3, 2, 3]);
});

void test("a stream that looks updates up leaves the sidecar's own transactions out too", async () => {
  const config = testConfig(fixture.db.databaseName, {
    rules: testConfig(fixture.db.databaseName).rules.map((rule) =>
      rule.pattern === "subset" ? { ...rule, propagateDeletes: false } : rule,
    ),
  });
  assert.equal(watchOptions(config.rules).fullDocument, "updateLookup");
  assert.deepEqual(await productsStreamed(config.rules, 11), [11, 12, 13, 12, 13]);
});
