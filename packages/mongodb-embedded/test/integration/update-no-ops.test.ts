import assert from "node:assert/strict";
import { test } from "node:test";
import { Int32 } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";
import { nextEvents, openStream } from "./change-stream-support.js";

const fixture = useTestDatabase("server_update_noops");
const SIXTEEN_MIB = 16 * 1024 * 1024;

const purchasers = (count: number) => Array.from({ length: count }, (_, i) => `user${i}`);

void test("an update that sets the values a document holds modifies nothing and writes no change event", async () => {
  const collection = fixture.db.collection<{ _id: number; list: string[]; n: number; marker?: number }>(
    "same_values",
  );
  await collection.insertOne({ _id: 1, list: purchasers(51), n: 5 });
  const stream = await openStream(collection.watch());
  try {
    const noop = await collection.updateOne(
      { _id: 1, list: { $size: 51 } },
      { $set: { list: purchasers(51), n: 5 } },
    );
    assert.equal(noop.matchedCount, 1);
    assert.equal(noop.modifiedCount, 0);
    await collection.updateOne({ _id: 1 }, { $set: { marker: 1 } });
    const [event] = await nextEvents(stream, 1);
    assert.deepEqual(event?.updateDescription?.updatedFields, { marker: 1 });
  } finally {
    await stream.close();
  }
});

void test("setting again what findAndModify just wrote modifies nothing", async () => {
  const collection = fixture.db.collection<{ _id: number; list: string[] }>("after_find_and_modify");
  await collection.insertOne({ _id: 1, list: purchasers(51) });
  await collection.findOneAndUpdate({ _id: 1 }, { $set: { list: purchasers(50) } });
  const again = await collection.updateOne(
    { _id: 1, list: { $size: 50 } },
    { $set: { list: purchasers(50) } },
  );
  assert.equal(again.matchedCount, 1);
  assert.equal(again.modifiedCount, 0);
});

void test("in a transaction, a statement setting again what an earlier one wrote modifies nothing", async () => {
  const collection = fixture.db.collection<{ _id: number; list: string[] }>("in_transaction");
  await collection.insertOne({ _id: 1, list: purchasers(51) });
  const session = fixture.mongo.client.startSession();
  try {
    const result = await session.withTransaction(() =>
      collection.bulkWrite(
        [
          {
            updateOne: {
              filter: { _id: 1, list: { $size: 51 } },
              update: { $set: { list: purchasers(50) } },
            },
          },
          {
            updateOne: {
              filter: { _id: 1, list: { $size: 50 } },
              update: { $set: { list: purchasers(50) } },
            },
          },
        ],
        { session, ordered: true },
      ),
    );
    assert.equal(result.matchedCount, 2);
    assert.equal(result.modifiedCount, 1);
  } finally {
    await session.endSession();
  }
  assert.deepEqual((await collection.findOne({ _id: 1 }))?.list, purchasers(50));
});

void test("a pipeline update computing the Int32 a field holds modifies nothing; one changing it does", async () => {
  const collection = fixture.db.collection<{ _id: number; n: number }>("recomputed");
  await collection.insertOne({ _id: 1, n: new Int32(1) as unknown as number });
  const same = await collection.updateOne({ _id: 1 }, [{ $set: { n: { $add: ["$n", new Int32(0)] } } }]);
  assert.equal(same.modifiedCount, 0);
  // Same size, other bytes: an Int32 that changes value.
  const changed = await collection.updateOne({ _id: 1 }, [{ $set: { n: { $add: ["$n", new Int32(1)] } } }]);
  assert.equal(changed.modifiedCount, 1);
  assert.equal(await collection.countDocuments({ _id: 1, n: { $type: "int", $eq: 2 } }), 1);
});

void test("a document updated before is still refused with 17419 when an update grows it past 16 MiB", async () => {
  const collection = fixture.db.collection<{ _id: number; half: string; n?: number; other?: string }>(
    "grown",
  );
  await collection.insertOne({ _id: 1, half: "x".repeat(SIXTEEN_MIB / 2) });
  await collection.updateOne({ _id: 1 }, { $set: { n: 1 } });
  await collection.updateOne({ _id: 1 }, { $set: { n: 1 } });
  await assert.rejects(collection.updateOne({ _id: 1 }, { $set: { other: "y".repeat(SIXTEEN_MIB / 2) } }), {
    code: 17419,
  });
  const doc = await collection.findOne({ _id: 1 }, { projection: { half: 0 } });
  assert.deepEqual(doc, { _id: 1, n: 1 });
});
