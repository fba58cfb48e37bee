// Read-only views: create with viewOn + pipeline, read through find, count and aggregate as
// mongod reads them (the view's pipeline first, on its source), and refused to writes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { useTestDatabase } from "../support/mongo.js";

const fixture = useTestDatabase("server_views", {
  setUp: async ({ db }) => {
    await db.collection("items").insertMany([
      { _id: 1, kind: "a", n: 10 },
      { _id: 2, kind: "b", n: 20 },
      { _id: 3, kind: "a", n: 30 },
    ] as never[]);
    await db.createCollection("a_items", {
      viewOn: "items",
      pipeline: [{ $match: { kind: "a" } }, { $project: { kind: 0 } }],
    });
  },
});

void test("find on a view returns its pipeline's documents, filtered, sorted and limited", async () => {
  const found = await fixture.db
    .collection("a_items")
    .find({ n: { $gt: 5 } })
    .sort({ n: -1 })
    .limit(1)
    .toArray();
  assert.deepEqual(found, [{ _id: 3, n: 30 }]);
});

void test("countDocuments and estimatedDocumentCount on a view count the view's documents", async () => {
  const view = fixture.db.collection("a_items");
  assert.equal(await view.estimatedDocumentCount(), 2);
  assert.equal(await view.countDocuments({ n: { $lt: 20 } }), 1);
});

void test("an aggregate on a view runs after the view's pipeline, and a view over a view expands in turn", async () => {
  await fixture.db.createCollection("big_a_items", {
    viewOn: "a_items",
    pipeline: [{ $match: { n: { $gte: 30 } } }],
  });
  const totals = await fixture.db
    .collection("a_items")
    .aggregate([{ $group: { _id: null, total: { $sum: "$n" } } }])
    .toArray();
  assert.deepEqual(totals, [{ _id: null, total: 40 }]);
  assert.deepEqual(await fixture.db.collection("big_a_items").find({}).toArray(), [{ _id: 3, n: 30 }]);
});

void test("listCollections reports a view with its definition", async () => {
  const [info] = await fixture.db.listCollections({ name: "a_items" }).toArray();
  assert.deepEqual(info, {
    name: "a_items",
    type: "view",
    options: { viewOn: "items", pipeline: [{ $match: { kind: "a" } }, { $project: { kind: 0 } }] },
    info: { readOnly: true },
  });
});

void test("writes and index builds on a view fail with CommandNotSupportedOnView", async () => {
  const view = fixture.db.collection("a_items");
  await assert.rejects(view.insertOne({ _id: 9 } as never), { code: 166 });
  await assert.rejects(view.updateOne({ _id: 1 as never }, { $set: { n: 0 } }), { code: 166 });
  await assert.rejects(view.deleteMany({}), { code: 166 });
  await assert.rejects(view.createIndex({ n: 1 }), { code: 166 });
  assert.equal(await fixture.db.collection("items").countDocuments({}), 3);
});

void test("an aggregate naming no collection ({aggregate: 1}) is no view read and runs", async () => {
  const reply = await fixture.db.command({
    aggregate: 1,
    pipeline: [{ $listLocalSessions: {} }],
    cursor: {},
  });
  assert.equal(reply.ok, 1);
});

void test("distinct on a view gives the view's values, array elements one by one", async () => {
  await fixture.db.collection("tagged").insertMany([
    { _id: 1, tags: ["x", "y"], keep: true },
    { _id: 2, tags: "z", keep: true },
    { _id: 3, tags: ["w"], keep: false },
  ] as never[]);
  await fixture.db.createCollection("kept", { viewOn: "tagged", pipeline: [{ $match: { keep: true } }] });
  const values = await fixture.db.collection("kept").distinct("tags");
  assert.deepEqual([...values].sort(), ["x", "y", "z"]);
});
