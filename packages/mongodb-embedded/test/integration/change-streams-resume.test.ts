// Resuming change streams through the official driver: tokens, startAfter after an
// invalidate, startAtOperationTime, idle high-water marks and the driver's automatic resume.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "mongodb";
import { nextEvents, openStream, operationTypes, useFreshDatabases } from "./change-stream-support.js";

const fixture = useFreshDatabases();
const freshDb = (label: string) => fixture.freshDb(label);
const T = { timeout: 20_000 };

const ids = (events: Document[]) => events.map((event) => event.documentKey._id as number);

void test("resumeAfter any event's token gives exactly the events after it", T, async () => {
  const coll = await freshDb("cs_resume").createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.insertMany([1, 2, 3, 4].map((n) => ({ _id: n as never })));
  const events = await nextEvents(stream, 4);
  await stream.close();
  for (const [index, event] of events.entries()) {
    const resumed = coll.watch([], { resumeAfter: event._id });
    const rest = await nextEvents(resumed, 3 - index);
    await resumed.close();
    assert.deepEqual(ids(rest), [1, 2, 3, 4].slice(index + 1));
  }
});

void test("startAfter an invalidate token follows the collection once it is recreated", T, async () => {
  const db = freshDb("cs_startafter");
  const coll = await db.createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.drop();
  const [, invalidate] = await nextEvents(stream, 2);
  await stream.close();
  assert.equal(invalidate!.operationType, "invalidate");
  await coll.insertOne({ _id: 7 as never });
  const resumed = coll.watch([], { startAfter: invalidate!._id });
  const [event] = await nextEvents(resumed, 1);
  await resumed.close();
  assert.equal(event!.operationType, "insert");
  assert.deepEqual(event!.documentKey, { _id: 7 });
});

void test("resumeAfter an invalidate token is refused", T, async () => {
  const coll = await freshDb("cs_resumeinv").createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.drop();
  const [, invalidate] = await nextEvents(stream, 2);
  await stream.close();
  const resumed = coll.watch([], { resumeAfter: invalidate!._id });
  await assert.rejects(resumed.tryNext(), (err: Document) => err.code === 260);
  await resumed.close();
});

void test("startAtOperationTime starts with the events committed at that time", T, async () => {
  const coll = await freshDb("cs_startat").createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.insertOne({ _id: 1 as never });
  await coll.insertOne({ _id: 2 as never });
  const [first] = await nextEvents(stream, 1);
  await stream.close();
  const replay = coll.watch([], { startAtOperationTime: first!.clusterTime });
  const replayed = await nextEvents(replay, 2);
  await replay.close();
  assert.deepEqual(ids(replayed), [1, 2]);
});

void test("an idle getMore advances the resume token past other collections' writes", T, async () => {
  const db = freshDb("cs_idle");
  const [watched, other] = [await db.createCollection("watched"), await db.createCollection("other")];
  const stream = await openStream(watched.watch([], { maxAwaitTimeMS: 50 }));
  const before = stream.resumeToken as Document;
  await other.insertOne({ n: 1 });
  assert.equal(await stream.tryNext(), null);
  const idle = stream.resumeToken as Document;
  await stream.close();
  assert.notDeepEqual(idle, before);
  await watched.insertOne({ _id: 1 as never });
  const resumed = watched.watch([], { resumeAfter: idle });
  const [event] = await nextEvents(resumed, 1);
  await resumed.close();
  assert.deepEqual(event!.documentKey, { _id: 1 });
});

void test("the driver resumes after a resumable getMore error and misses nothing", T, async () => {
  const admin = fixture.mongo.client.db("admin");
  const coll = await freshDb("cs_autoresume").createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.insertOne({ _id: 1 as never });
  const [first] = await nextEvents(stream, 1);
  await admin.command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: { failCommands: ["getMore"], errorCode: 6, errorLabels: ["ResumableChangeStreamError"] },
  });
  try {
    await coll.insertMany([2, 3].map((n) => ({ _id: n as never })));
    const rest = await nextEvents(stream, 2);
    assert.deepEqual(ids([first!, ...rest]), [1, 2, 3]);
  } finally {
    await admin.command({ configureFailPoint: "failCommand", mode: "off" });
    await stream.close();
  }
});

void test("events after an automatic resume are not repeated", T, async () => {
  const admin = fixture.mongo.client.db("admin");
  const coll = await freshDb("cs_norepeat").createCollection("sales");
  const stream = await openStream(coll.watch());
  await coll.insertMany([1, 2].map((n) => ({ _id: n as never })));
  const before = await nextEvents(stream, 2);
  await admin.command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: { failCommands: ["getMore"], errorCode: 43 },
  });
  try {
    await coll.insertOne({ _id: 3 as never });
    const [after] = await nextEvents(stream, 1);
    assert.deepEqual(operationTypes([...before, after!]), ["insert", "insert", "insert"]);
    assert.deepEqual(ids([...before, after!]), [1, 2, 3]);
  } finally {
    await admin.command({ configureFailPoint: "failCommand", mode: "off" });
    await stream.close();
  }
});
