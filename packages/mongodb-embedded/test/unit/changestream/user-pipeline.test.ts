import assert from "node:assert/strict";
import { test } from "node:test";
import { ServerError } from "../../../src/errors.js";
import { FakeDeployment, insertRecord, nextBatch } from "./fixtures.js";

const isCode = (code: number) => (err: unknown) => err instanceof ServerError && err.code === code;

void test("a $match and $project after $changeStream are applied to each event", async () => {
  const deployment = new FakeDeployment();
  const pipeline = [{ $match: { "fullDocument.keep": true } }, { $project: { operationType: 1 } }];
  const cursor = deployment.open({ db: "db", coll: "c", pipeline });
  deployment.commit(insertRecord("db", "c", { _id: 1, keep: true }));
  deployment.commit(insertRecord("db", "c", { _id: 2, keep: false }));
  const events = (await nextBatch(cursor)).documents;
  assert.equal(events.length, 1);
  assert.deepEqual(Object.keys(events[0]!).sort(), ["_id", "operationType"]);
});

void test("a stage that is not allowed in a change stream is refused with IllegalOperation", async () => {
  const deployment = new FakeDeployment();
  assert.throws(
    () => deployment.open({ db: "db", coll: "c", pipeline: [{ $group: { _id: null } }] }),
    isCode(20),
  );
});

void test("a stage that modifies _id fails the stream with ChangeStreamFatalError", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c", pipeline: [{ $project: { _id: 0 } }] });
  deployment.commit(insertRecord("db", "c", { _id: 1 }));
  await assert.rejects(nextBatch(cursor), isCode(280));
});

void test("an event larger than 16 MiB + 16 KiB fails the batch with BSONObjectTooLarge", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  // mongod's limit for a document it returns is BSONObjMaxInternalSize, not the 16 MiB of a stored one.
  deployment.commit(insertRecord("db", "c", { _id: 1, big: "x".repeat(16 * 1024 * 1024 + 16 * 1024) }));
  await assert.rejects(nextBatch(cursor), isCode(10334));
});

void test("a $project that trims a large event lets it through", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({
    db: "db",
    coll: "c",
    pipeline: [{ $project: { "fullDocument.big": 0 } }],
  });
  deployment.commit(insertRecord("db", "c", { _id: 1, big: "x".repeat(16 * 1024 * 1024) }));
  assert.deepEqual((await nextBatch(cursor)).documents[0]!.fullDocument, { _id: 1 });
});

void test("unknown options and bad modes are refused as mongod's parser refuses them", () => {
  const deployment = new FakeDeployment();
  assert.throws(() => deployment.open({ db: "db", coll: "c", spec: { bogus: 1 } }), isCode(40415));
  assert.throws(() => deployment.open({ db: "db", coll: "c", spec: { fullDocument: "always" } }), isCode(2));
  assert.throws(() => deployment.open({ db: "admin", coll: "c", allChangesForCluster: true }), isCode(72));
  assert.throws(() => deployment.open({ db: "local" }), isCode(73));
});
