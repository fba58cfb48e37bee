// Change-event shapes and stream options, through the official driver (embedded server or
// MONGODB_URI); every expectation is mongod 7.0's behaviour.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "mongodb";
import { nextEvents, openStream, operationTypes, useFreshDatabases } from "./change-stream-support.js";

const fixture = useFreshDatabases();
const freshDb = (label: string) => fixture.freshDb(label);
const T = { timeout: 20_000 };

void test("insert, update, replace and delete events have mongod's shape", T, async () => {
  const db = freshDb("cs_shapes");
  const coll = await db.createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.insertOne({ _id: 1 as never, a: 1, arr: [1, 2, 3] });
  await coll.updateOne({ _id: 1 as never }, { $set: { a: 2 }, $unset: { gone: "" }, $pop: { arr: 1 } });
  await coll.replaceOne({ _id: 1 as never }, { b: 1 });
  await coll.deleteOne({ _id: 1 as never });
  const [insert, update, replace, remove] = await nextEvents(stream, 4);
  await stream.close();
  assert.deepEqual(operationTypes([insert!, update!, replace!, remove!]), [
    "insert",
    "update",
    "replace",
    "delete",
  ]);
  for (const event of [insert!, update!, replace!, remove!]) {
    assert.equal(typeof (event._id as Document)._data, "string");
    assert.equal(event.clusterTime?._bsontype, "Timestamp");
    assert.ok(event.wallTime instanceof Date);
    assert.deepEqual(event.ns, { db: db.databaseName, coll: "sales" });
    assert.deepEqual(event.documentKey, { _id: 1 });
  }
  assert.deepEqual(insert!.fullDocument, { _id: 1, a: 1, arr: [1, 2, 3] });
  assert.equal("fullDocument" in update!, false);
  // $pop logs its whole array (mongod's PopNode keeps ModifierNode::logUpdate): no truncatedArrays.
  assert.deepEqual(update!.updateDescription, {
    updatedFields: { a: 2, arr: [1, 2] },
    removedFields: [],
    truncatedArrays: [],
  });
  assert.deepEqual(replace!.fullDocument, { _id: 1, b: 1 });
  assert.equal("fullDocument" in remove!, false);
});

void test("a $push onto an array of 50 is reported as one updated field arr.50", T, async () => {
  const db = freshDb("cs_push");
  const coll = await db.createCollection("sales");
  await coll.insertOne({ _id: 1 as never, arr: Array.from({ length: 50 }, (_, i) => i) });
  const stream = await openStream(coll.watch());
  await coll.updateOne({ _id: 1 as never }, { $push: { arr: "new" } as never });
  const [update] = await nextEvents(stream, 1);
  await stream.close();
  assert.deepEqual(update!.updateDescription.updatedFields, { "arr.50": "new" });
});

void test("dropping a watched collection gives drop, then invalidate, then the stream ends", T, async () => {
  const db = freshDb("cs_drop");
  const coll = await db.createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.drop();
  const events = await nextEvents(stream, 2);
  assert.deepEqual(operationTypes(events), ["drop", "invalidate"]);
  assert.deepEqual(events[0]!.ns, { db: db.databaseName, coll: "sales" });
  assert.equal(await stream.hasNext().catch(() => false), false);
  await stream.close();
});

void test("renaming a watched collection gives rename with `to`, then invalidate", T, async () => {
  const db = freshDb("cs_rename");
  const coll = await db.createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.rename("sales_renamed");
  const events = await nextEvents(stream, 2);
  await stream.close();
  assert.deepEqual(operationTypes(events), ["rename", "invalidate"]);
  assert.deepEqual(events[0]!.to, { db: db.databaseName, coll: "sales_renamed" });
});

void test("dropDatabase gives a database stream drop, dropDatabase, then invalidate", T, async () => {
  const db = freshDb("cs_dropdb");
  await db.createCollection("sales");
  const stream = await openStream(db.watch());
  await db.dropDatabase();
  const events = await nextEvents(stream, 3);
  await stream.close();
  assert.deepEqual(operationTypes(events), ["drop", "dropDatabase", "invalidate"]);
  assert.deepEqual(events[1]!.ns, { db: db.databaseName });
});

void test("updateLookup returns the current committed document", T, async () => {
  const db = freshDb("cs_lookup");
  const coll = await db.createCollection("sales");
  await coll.insertOne({ _id: 1 as never, n: 0 });
  const stream = await openStream(coll.watch([], { fullDocument: "updateLookup" }));
  await coll.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
  await coll.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
  const [first, second] = await nextEvents(stream, 2);
  await stream.close();
  // Both lookups happen after both updates committed, so both see n: 2 (as on mongod).
  assert.deepEqual(first!.fullDocument, { _id: 1, n: 2 });
  assert.deepEqual(second!.fullDocument, { _id: 1, n: 2 });
});

void test(
  "with changeStreamPreAndPostImages, whenAvailable gives the images around each update",
  T,
  async () => {
    const db = freshDb("cs_images");
    const coll = await db.createCollection("sales", { changeStreamPreAndPostImages: { enabled: true } });
    await coll.insertOne({ _id: 1 as never, n: 0 });
    const options = { fullDocument: "whenAvailable", fullDocumentBeforeChange: "whenAvailable" } as const;
    const stream = await openStream(coll.watch([], options));
    await coll.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
    await coll.deleteOne({ _id: 1 as never });
    const [update, remove] = await nextEvents(stream, 2);
    await stream.close();
    assert.deepEqual(update!.fullDocumentBeforeChange, { _id: 1, n: 0 });
    assert.deepEqual(update!.fullDocument, { _id: 1, n: 1 });
    assert.deepEqual(remove!.fullDocumentBeforeChange, { _id: 1, n: 1 });
  },
);

void test(
  "collMod turning changeStreamPreAndPostImages on gives later deletes their pre-image in a database stream",
  T,
  async () => {
    const db = freshDb("cs_collmod_images");
    const coll = await db.createCollection("reviews");
    await coll.insertMany([
      { _id: 1 as never, product_id: 7 },
      { _id: 2 as never, product_id: 7 },
    ]);
    await coll.deleteOne({ _id: 1 as never });
    await db.command({ collMod: "reviews", changeStreamPreAndPostImages: { enabled: true } });
    const stream = await openStream(db.watch([], { fullDocumentBeforeChange: "whenAvailable" }));
    await coll.deleteOne({ _id: 2 as never });
    const [remove] = await nextEvents(stream, 1);
    await stream.close();
    assert.equal(remove!.operationType, "delete");
    assert.deepEqual(remove!.fullDocumentBeforeChange, { _id: 2, product_id: 7 });
  },
);

void test("without recorded images, whenAvailable gives null and required fails the stream", T, async () => {
  const db = freshDb("cs_noimages");
  const coll = await db.createCollection("sales");
  await coll.insertOne({ _id: 1 as never, n: 0 });
  const lenient = await openStream(coll.watch([], { fullDocumentBeforeChange: "whenAvailable" }));
  const strict = await openStream(coll.watch([], { fullDocumentBeforeChange: "required" }));
  await coll.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
  const [update] = await nextEvents(lenient, 1);
  await lenient.close();
  assert.equal(update!.fullDocumentBeforeChange, null);
  await assert.rejects(strict.next(), (err: Document) => err.code === 47);
  await strict.close();
});

void test(
  "required pre-images: a database stream whose $match leaves out the collections without them does not fail",
  T,
  async () => {
    const db = freshDb("cs_required_filtered");
    const withImages = await db.createCollection("with_images", {
      changeStreamPreAndPostImages: { enabled: true },
    });
    const without = await db.createCollection("without_images");
    await withImages.insertOne({ _id: 1 as never, n: 0 });
    await without.insertOne({ _id: 1 as never, n: 0 });
    const stream = await openStream(
      db.watch([{ $match: { "ns.coll": "with_images", operationType: "update" } }], {
        fullDocumentBeforeChange: "required",
      }),
    );
    // mongod's oplog filter, rewritten from the $match, drops this change before its pre-image is looked for.
    await without.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
    await withImages.updateOne({ _id: 1 as never }, { $inc: { n: 1 } });
    const [update] = await nextEvents(stream, 1);
    await stream.close();
    assert.deepEqual(update!.ns, { db: db.databaseName, coll: "with_images" });
    assert.deepEqual(update!.fullDocumentBeforeChange, { _id: 1, n: 0 });
  },
);

void test("a $match and $project after $changeStream are applied by the server", T, async () => {
  const db = freshDb("cs_pipeline");
  const coll = await db.createCollection("sales");
  const pipeline = [
    { $match: { "fullDocument.keep": true } },
    { $project: { operationType: 1, "fullDocument.keep": 1 } },
  ];
  const stream = await openStream(coll.watch(pipeline));
  await coll.insertMany([{ keep: false }, { keep: true, other: 1 }]);
  const [event] = await nextEvents(stream, 1);
  await stream.close();
  assert.deepEqual(Object.keys(event!).sort(), ["_id", "fullDocument", "operationType"]);
  assert.deepEqual(event!.fullDocument, { keep: true });
});

void test(
  "a pipeline stage that changes _id makes the stream fail with ChangeStreamFatalError",
  T,
  async () => {
    const db = freshDb("cs_badid");
    const coll = await db.createCollection("sales");
    const stream = await openStream(coll.watch([{ $addFields: { _id: "mine" } }]));
    await coll.insertOne({ n: 1 });
    await assert.rejects(stream.next(), (err: Document) => err.code === 280);
    await stream.close();
  },
);

void test(
  "db.watch() sees every collection of the database and client.watch() every database",
  T,
  async () => {
    const db = freshDb("cs_scopes");
    const otherDb = freshDb("cs_scopes_other");
    const [a, b] = [await db.createCollection("a"), await db.createCollection("b")];
    const other = await otherDb.createCollection("c");
    const dbStream = await openStream(db.watch([{ $match: { operationType: "insert" } }]));
    const pipeline = [
      { $match: { operationType: "insert", "ns.db": { $in: [db.databaseName, otherDb.databaseName] } } },
    ];
    const clusterStream = await openStream(fixture.mongo.client.watch(pipeline));
    await a.insertOne({ _id: "a" as never });
    await other.insertOne({ _id: "c" as never });
    await b.insertOne({ _id: "b" as never });
    const dbEvents = await nextEvents(dbStream, 2);
    const clusterEvents = await nextEvents(clusterStream, 3);
    await Promise.all([dbStream.close(), clusterStream.close()]);
    assert.deepEqual(
      dbEvents.map((e) => e.documentKey._id),
      ["a", "b"],
    );
    assert.deepEqual(
      clusterEvents.map((e) => e.documentKey._id),
      ["a", "c", "b"],
    );
  },
);

void test("a transaction's events arrive together, in order, with lsid and txnNumber", T, async () => {
  const db = freshDb("cs_txn");
  const coll = await db.createCollection("sales");
  const stream = await openStream(coll.watch());
  const session = fixture.mongo.client.startSession();
  try {
    await session.withTransaction(async () => {
      await coll.insertOne({ _id: 1 as never }, { session });
      await coll.updateOne({ _id: 1 as never }, { $set: { n: 1 } }, { session });
      await coll.insertOne({ _id: 2 as never }, { session });
    });
  } finally {
    await session.endSession();
  }
  const events = await nextEvents(stream, 3);
  await stream.close();
  assert.deepEqual(operationTypes(events), ["insert", "update", "insert"]);
  for (const event of events) {
    assert.ok(event.lsid?.id, "lsid.id present");
    assert.equal(Number(event.txnNumber), Number(events[0]!.txnNumber));
    assert.ok(event.clusterTime.equals(events[0]!.clusterTime), "one commit, one cluster time");
  }
});
