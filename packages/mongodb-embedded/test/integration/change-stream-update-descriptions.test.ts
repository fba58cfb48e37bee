// What an update event's updateDescription says about arrays, through the official driver
// (embedded server or MONGODB_URI): mongod 7.0 reports what its $v:2 oplog entry logged, the
// appended elements' positions for a pure $push append, the whole array otherwise.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document, UpdateFilter } from "mongodb";
import { nextEvents, openStream, useFreshDatabases } from "./change-stream-support.js";

const fixture = useFreshDatabases();
const freshDb = (label: string) => fixture.freshDb(label);
const T = { timeout: 20_000 };

/** The updatedFields of the event `update` produces on `{ _id: 1, ...initial }`, from db.watch(). */
async function updatedFields(label: string, initial: Document, update: Document) {
  const db = freshDb(label);
  const coll = db.collection("books");
  await coll.insertOne({ _id: 1 as never, ...initial });
  const stream = await openStream(db.watch());
  try {
    await coll.updateOne({ _id: 1 as never }, update as UpdateFilter<Document>);
    const [event] = await nextEvents(stream, 1);
    assert.equal(event!.operationType, "update");
    return (event!.updateDescription as Document).updatedFields as Document;
  } finally {
    await stream.close();
  }
}

void test("a $push appending onto a non-empty array reports each element at its position", T, async () => {
  const fields = await updatedFields("push_append", { arr: [1, 2] }, { $push: { arr: { $each: [3, 4] } } });
  assert.deepEqual(fields, { "arr.2": 3, "arr.3": 4 });
});

void test("a $push onto an empty array reports the whole array", T, async () => {
  const fields = await updatedFields("push_empty", { arr: [] }, { $push: { arr: { $each: [1, 2, 3] } } });
  assert.deepEqual(fields, { arr: [1, 2, 3] });
});

void test("a $push onto a missing field reports the whole array", T, async () => {
  const fields = await updatedFields("push_missing", { a: 1 }, { $push: { arr: { $each: [1, 2] } } });
  assert.deepEqual(fields, { arr: [1, 2] });
});

void test("a $push whose $slice trims the array reports the whole array", T, async () => {
  const update = { $push: { arr: { $each: [3], $slice: -2 } } };
  const fields = await updatedFields("push_slice", { arr: [1, 2] }, update);
  assert.deepEqual(fields, { arr: [2, 3] });
});

void test("a $push whose $slice keeps every element still reports positions", T, async () => {
  const update = { $push: { arr: { $each: [3], $slice: 5 } } };
  const fields = await updatedFields("push_slice_idle", { arr: [1, 2] }, update);
  assert.deepEqual(fields, { "arr.2": 3 });
});

void test("a $push with $sort reports the whole array, even when the order stays", T, async () => {
  const update = { $push: { arr: { $each: [3], $sort: 1 } } };
  const fields = await updatedFields("push_sort", { arr: [1, 2] }, update);
  assert.deepEqual(fields, { arr: [1, 2, 3] });
});

void test("a $push at a $position inside the array reports the whole array", T, async () => {
  const update = { $push: { arr: { $each: [0], $position: 0 } } };
  const fields = await updatedFields("push_position", { arr: [1, 2] }, update);
  assert.deepEqual(fields, { arr: [0, 1, 2] });
});

void test("a $push at $position equal to the length reports the whole array", T, async () => {
  // push_node.cpp appends by position only past the last element; at the length it inserts.
  const update = { $push: { arr: { $each: [3], $position: 2 } } };
  const fields = await updatedFields("push_position_end", { arr: [1, 2] }, update);
  assert.deepEqual(fields, { arr: [1, 2, 3] });
});

void test("a $set of a whole array reports the whole array, not its new elements", T, async () => {
  const fields = await updatedFields("set_array", { arr: [1, 2] }, { $set: { arr: [1, 2, 3] } });
  assert.deepEqual(fields, { arr: [1, 2, 3] });
});

void test("a $set of a whole subdocument reports the whole subdocument", T, async () => {
  const fields = await updatedFields("set_doc", { a: { b: 1, c: 1 } }, { $set: { a: { b: 2, c: 1 } } });
  assert.deepEqual(fields, { a: { b: 2, c: 1 } });
});
