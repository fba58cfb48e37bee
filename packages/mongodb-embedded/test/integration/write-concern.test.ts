// Write concerns a one-node replica set cannot satisfy: as on mongod (repl_set_config.cpp), the
// write takes effect and the reply carries a writeConcernError.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoWriteConcernError } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_write_concern");

void test("an insert asking for more nodes than the set has is stored and answered UnsatisfiableWriteConcern", async () => {
  const collection = fixture.db.collection("too_many");
  const error = await collection.insertOne({ _id: 1 } as never, { writeConcern: { w: 3 } }).then(
    () => assert.fail("the insert should report a write concern error"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof MongoWriteConcernError, String(error));
  assert.equal(error.code, 100);
  assert.equal(await collection.countDocuments({}), 1);
});

void test("a transaction committed with w: 10 is committed and its commit reports code 100", async () => {
  const collection = fixture.db.collection("too_many_commit");
  await collection.insertOne({ _id: "seed" } as never);
  const session = fixture.mongo.client.startSession();
  try {
    session.startTransaction({ writeConcern: { w: 10 } });
    await collection.insertOne({ _id: 1 } as never, { session });
    await assert.rejects(session.commitTransaction(), { code: 100 });
  } finally {
    await session.endSession();
  }
  assert.equal(await collection.countDocuments({ _id: 1 as never }), 1);
});

void test("a write concern naming a tag set the config lacks is answered UnknownReplWriteConcern", async () => {
  // The driver's types allow only numbers and "majority"; a command carries a tag name as is.
  const insert = { insert: "unknown_tag", documents: [{ _id: 1 }], writeConcern: { w: "eastCoast" } };
  await assert.rejects(fixture.db.command(insert), { code: 79 });
  assert.equal(await fixture.db.collection("unknown_tag").countDocuments({}), 1);
});
