import assert from "node:assert/strict";
import { test } from "node:test";
import { ServerError } from "../../../src/errors.js";
import { dropRecord, FakeDeployment, insertRecord, nextBatch } from "./fixtures.js";

const isCode = (code: number) => (err: unknown) => err instanceof ServerError && err.code === code;

void test("a stream opened without a start option sees only commits after it opened", async () => {
  const deployment = new FakeDeployment();
  deployment.commit(insertRecord("db", "c", { _id: "before" }));
  const cursor = deployment.open({ db: "db", coll: "c" });
  deployment.commit(insertRecord("db", "c", { _id: "after" }));
  const ids = (await nextBatch(cursor)).documents.map((e) => e.documentKey._id as string);
  assert.deepEqual(ids, ["after"]);
});

void test("resuming after any event's token continues with exactly the next event", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  deployment.commit(insertRecord("db", "c", { _id: 1 }), insertRecord("db", "c", { _id: 2 }));
  deployment.commit(insertRecord("db", "c", { _id: 3 }));
  const events = (await nextBatch(cursor)).documents;
  for (const [i, event] of events.entries()) {
    const resumed = deployment.open({ db: "db", coll: "c", spec: { resumeAfter: event._id } });
    const rest = (await nextBatch(resumed)).documents.map((e) => e.documentKey._id as number);
    assert.deepEqual(rest, [1, 2, 3].slice(i + 1));
  }
});

void test("startAtOperationTime includes the events committed at that time", async () => {
  const deployment = new FakeDeployment();
  deployment.commit(insertRecord("db", "c", { _id: 1 }));
  const time = deployment.commit(insertRecord("db", "c", { _id: 2 }));
  const cursor = deployment.open({ db: "db", coll: "c", spec: { startAtOperationTime: time } });
  assert.deepEqual(
    (await nextBatch(cursor)).documents.map((e) => e.documentKey._id as number),
    [2],
  );
});

void test("a collection stream sees only its collection, a database stream not system collections", async () => {
  const deployment = new FakeDeployment();
  const collection = deployment.open({ db: "db", coll: "c" });
  const database = deployment.open({ db: "db" });
  const cluster = deployment.open({ db: "admin", allChangesForCluster: true });
  deployment.commit(insertRecord("db", "c", { _id: 1 }));
  deployment.commit(insertRecord("db", "other", { _id: 2 }));
  deployment.commit(insertRecord("db", "system.js", { _id: 3 }));
  deployment.commit(insertRecord("config", "x", { _id: 4 }));
  deployment.commit(insertRecord("db2", "c", { _id: 5 }));
  const ids = async (cursor: typeof collection) =>
    (await nextBatch(cursor)).documents.map((e) => e.documentKey._id as number);
  assert.deepEqual(await ids(collection), [1]);
  assert.deepEqual(await ids(database), [1, 2]);
  assert.deepEqual(await ids(cluster), [1, 2, 5]);
});

void test("dropping the collection ends a collection stream with an invalidate event", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  deployment.commit(dropRecord("db", "c"));
  deployment.commit(insertRecord("db", "c", { _id: 1 }));
  const batch = await nextBatch(cursor);
  assert.deepEqual(
    batch.documents.map((e) => e.operationType),
    ["drop", "invalidate"],
  );
  assert.equal(batch.exhausted, true);
});

void test("startAfter an invalidate continues with the recreated collection's events", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  deployment.commit(dropRecord("db", "c"));
  deployment.commit(insertRecord("db", "c", { _id: 1 }));
  const invalidate = (await nextBatch(cursor)).documents[1]!;
  const resumed = deployment.open({ db: "db", coll: "c", spec: { startAfter: invalidate._id } });
  assert.deepEqual(
    (await nextBatch(resumed)).documents.map((e) => e.operationType),
    ["insert"],
  );
});

void test("resumeAfter an invalidate token is refused with InvalidResumeToken", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  deployment.commit(dropRecord("db", "c"));
  const invalidate = (await nextBatch(cursor)).documents[1]!;
  assert.throws(
    () => deployment.open({ db: "db", coll: "c", spec: { resumeAfter: invalidate._id } }),
    isCode(260),
  );
});

void test("resuming from a point older than the kept history fails with 286 and no resumable label", async () => {
  const deployment = new FakeDeployment(3);
  const cursor = deployment.open({ db: "db", coll: "c" });
  deployment.commit(insertRecord("db", "c", { _id: 0 }));
  const first = (await nextBatch(cursor)).documents[0]!;
  for (let i = 1; i <= 4; i++) deployment.commit(insertRecord("db", "c", { _id: i }));
  assert.throws(
    () => deployment.open({ db: "db", coll: "c", spec: { resumeAfter: first._id } }),
    (err: unknown) => isCode(286)(err) && (err as ServerError).errorLabels.length === 0,
  );
});

void test("a live cursor that falls behind the kept history fails its next getMore with 286", async () => {
  const deployment = new FakeDeployment(2);
  const cursor = deployment.open({ db: "db", coll: "c" });
  for (let i = 0; i < 3; i++) deployment.commit(insertRecord("db", "c", { _id: i }));
  await assert.rejects(nextBatch(cursor), isCode(286));
});

void test("an idle batch's postBatchResumeToken follows the cluster time and repeats nothing", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  const first = await nextBatch(cursor);
  deployment.commit(insertRecord("db", "other", { _id: 1 }));
  const idle = await nextBatch(cursor);
  assert.deepEqual(idle.documents, []);
  assert.ok(idle.postBatchResumeToken!._data > first.postBatchResumeToken!._data);
  deployment.commit(insertRecord("db", "c", { _id: 2 }));
  const resumed = deployment.open({ db: "db", coll: "c", spec: { resumeAfter: idle.postBatchResumeToken } });
  assert.deepEqual(
    (await nextBatch(resumed)).documents.map((e) => e.documentKey._id as number),
    [2],
  );
});

void test("a waiting getMore returns as soon as a commit arrives", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  const pending = nextBatch(cursor, { maxAwaitTimeMS: 60_000 });
  setImmediate(() => deployment.commit(insertRecord("db", "c", { _id: 1 })));
  assert.equal((await pending).documents.length, 1);
});

void test("closing the change log ends a waiting cursor", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  const pending = nextBatch(cursor, { maxAwaitTimeMS: 60_000 });
  setImmediate(() => deployment.changeLog.close());
  assert.equal((await pending).exhausted, true);
});

void test("an aborted getMore stops waiting", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  const controller = new AbortController();
  const pending = cursor.nextBatch({ maxAwaitTimeMS: 60_000, signals: [controller.signal] });
  setImmediate(() => controller.abort());
  assert.deepEqual((await pending).documents, []);
});

void test("batchSize limits a batch and the next batch continues where it stopped", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "db", coll: "c" });
  for (let i = 0; i < 5; i++) deployment.commit(insertRecord("db", "c", { _id: i }));
  const first = await nextBatch(cursor, { batchSize: 2 });
  const rest = await nextBatch(cursor);
  assert.deepEqual(
    [...first.documents, ...rest.documents].map((e) => e.documentKey._id as number),
    [0, 1, 2, 3, 4],
  );
  assert.deepEqual(first.postBatchResumeToken, first.documents[1]!._id);
});
