// Idle cursors are killed after cursorTimeoutMillis, as mongod kills them: a later getMore
// fails with CursorNotFound (43). setParameter changes the timeout at run time.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { MongoServerError } from "mongodb";
import { useTestDatabase, withParameter } from "../support/mongo.js";

const fixture = useTestDatabase("server_cursor_timeout");

/** mongod looks for idle cursors every 4 s (clientCursorMonitorFrequencySecs), we every 1 s. */
const idleLongEnough = () => sleep(fixture.mongo.embedded ? 1_500 : 5_500);

const withCursorTimeout = <T>(ms: number, run: () => Promise<T>) =>
  withParameter(fixture.mongo.client, "cursorTimeoutMillis", ms, run);

void test("a cursor left idle past cursorTimeoutMillis is gone: the next getMore gets CursorNotFound", async () => {
  const collection = fixture.db.collection("idle");
  await collection.insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
  await withCursorTimeout(200, async () => {
    const cursor = collection.find({}, { batchSize: 2 });
    assert.equal((await cursor.next())?.i, 0);
    await idleLongEnough();
    await assert.rejects(cursor.toArray(), (error) => error instanceof MongoServerError && error.code === 43);
  });
});

void test("a cursor opened with noCursorTimeout outlives cursorTimeoutMillis", async () => {
  const collection = fixture.db.collection("kept");
  await collection.insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
  await withCursorTimeout(200, async () => {
    const cursor = collection.find({}, { batchSize: 2, noCursorTimeout: true });
    await cursor.next();
    await idleLongEnough();
    assert.equal((await cursor.toArray()).length, 9);
  });
});

void test("getParameter reports the cursor timeout setParameter set", async () => {
  const admin = fixture.mongo.client.db("admin");
  await withCursorTimeout(123_000, async () => {
    const reply = await admin.command({ getParameter: 1, cursorTimeoutMillis: 1 });
    assert.equal(Number(reply.cursorTimeoutMillis), 123_000);
  });
});
