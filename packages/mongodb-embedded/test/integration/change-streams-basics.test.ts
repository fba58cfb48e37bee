import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChangeStreamDocument } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_streams", {
  setUp: async ({ db }) => {
    await db.createCollection("watched");
  },
});

void test("a collection change stream delivers an insert, an update and a delete in order", async () => {
  const collection = fixture.db.collection("watched");
  const stream = collection.watch();
  try {
    await stream.tryNext(); // opens the stream before the writes
    await collection.insertOne({ _id: 1 as never, v: 1 });
    await collection.updateOne({ _id: 1 as never }, { $set: { v: 2 } });
    await collection.deleteOne({ _id: 1 as never });
    const events: ChangeStreamDocument[] = [];
    while (events.length < 3) events.push(await stream.next());
    assert.deepEqual(
      events.map((e) => e.operationType),
      ["insert", "update", "delete"],
    );
  } finally {
    await stream.close();
  }
});

void test("a transaction's writes reach the change stream only once it commits, together", async () => {
  const collection = fixture.db.collection("watched");
  const stream = collection.watch();
  const session = fixture.mongo.client.startSession();
  try {
    await stream.tryNext();
    session.startTransaction();
    await collection.insertOne({ _id: "t1" as never }, { session });
    await collection.insertOne({ _id: "t2" as never }, { session });
    assert.equal(await stream.tryNext(), null);
    await session.commitTransaction();
    const first = await stream.next();
    const second = await stream.next();
    assert.deepEqual(
      [first, second].map((e) => ("documentKey" in e ? e.documentKey._id : undefined)),
      ["t1", "t2"],
    );
    assert.equal(first.clusterTime?.toString(), second.clusterTime?.toString());
  } finally {
    await session.endSession();
    await stream.close();
  }
});
