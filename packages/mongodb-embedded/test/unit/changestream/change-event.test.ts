import assert from "node:assert/strict";
import { test } from "node:test";
import { UUID, type Long, type Timestamp } from "bson";
import { ServerError } from "../../../src/errors.js";
import { dropRecord, FakeDeployment, insertRecord, nextBatch, updateRecord } from "./fixtures.js";

void test("an insert event carries the document, namespace, key and times in mongod's field order", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "shop", coll: "sales" });
  const time = deployment.commit(insertRecord("shop", "sales", { _id: 1, title: "t" }));
  const [event] = (await nextBatch(cursor)).documents;
  assert.deepEqual(Object.keys(event!), [
    "_id",
    "operationType",
    "clusterTime",
    "wallTime",
    "fullDocument",
    "ns",
    "documentKey",
  ]);
  assert.equal(event!.operationType, "insert");
  assert.ok((event!.clusterTime as Timestamp).equals(time));
  assert.deepEqual(event!.fullDocument, { _id: 1, title: "t" });
  assert.deepEqual(event!.ns, { db: "shop", coll: "sales" });
  assert.deepEqual(event!.documentKey, { _id: 1 });
  assert.equal(typeof (event!._id as { _data: string })._data, "string");
});

void test("an update event has an updateDescription and, by default, no fullDocument", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "shop", coll: "sales" });
  deployment.commit(updateRecord("shop", "sales", { _id: 1, n: 1 }, { _id: 1, n: 2 }));
  const [event] = (await nextBatch(cursor)).documents;
  assert.equal(event!.operationType, "update");
  assert.equal("fullDocument" in event!, false);
  assert.deepEqual(event!.updateDescription, {
    updatedFields: { n: 2 },
    removedFields: [],
    truncatedArrays: [],
  });
});

void test("updateLookup fills fullDocument with the current document, or null when it is gone", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "shop", coll: "sales", spec: { fullDocument: "updateLookup" } });
  deployment.documents.set("shop.sales.1", { _id: 1, n: 3 });
  deployment.commit(updateRecord("shop", "sales", { _id: 1, n: 1 }, { _id: 1, n: 2 }));
  deployment.commit(updateRecord("shop", "sales", { _id: 2, n: 1 }, { _id: 2, n: 2 }));
  const [found, gone] = (await nextBatch(cursor)).documents;
  assert.deepEqual(found!.fullDocument, { _id: 1, n: 3 });
  assert.equal(gone!.fullDocument, null);
});

void test("whenAvailable images come from the record only when the collection records images", async () => {
  const deployment = new FakeDeployment();
  const spec = { fullDocument: "whenAvailable", fullDocumentBeforeChange: "whenAvailable" };
  const cursor = deployment.open({ db: "shop", coll: "sales", spec });
  deployment.commit(
    updateRecord("shop", "sales", { _id: 1, n: 1 }, { _id: 1, n: 2 }, { imagesRecorded: true }),
  );
  deployment.commit(updateRecord("shop", "sales", { _id: 2, n: 1 }, { _id: 2, n: 2 }));
  const [recorded, unrecorded] = (await nextBatch(cursor)).documents;
  assert.deepEqual(recorded!.fullDocument, { _id: 1, n: 2 });
  assert.deepEqual(recorded!.fullDocumentBeforeChange, { _id: 1, n: 1 });
  assert.equal(unrecorded!.fullDocument, null);
  assert.equal(unrecorded!.fullDocumentBeforeChange, null);
});

void test("a required pre-image that was not recorded fails the batch with NoMatchingDocument", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({
    db: "shop",
    coll: "sales",
    spec: { fullDocumentBeforeChange: "required" },
  });
  deployment.commit({
    operationType: "delete",
    db: "shop",
    coll: "sales",
    documentKey: { _id: 1 },
    preImage: { _id: 1 },
    imagesRecorded: false,
  });
  await assert.rejects(nextBatch(cursor), (err: unknown) => err instanceof ServerError && err.code === 47);
});

void test("transaction events carry lsid and txnNumber", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "shop", coll: "sales" });
  const lsid = { id: new UUID() };
  const txn = { lsid, txnNumber: 4n };
  deployment.commit(
    insertRecord("shop", "sales", { _id: 1 }, txn),
    insertRecord("shop", "sales", { _id: 2 }, txn),
  );
  const events = (await nextBatch(cursor)).documents;
  assert.equal(events.length, 2);
  for (const event of events) {
    assert.deepEqual(event.lsid, lsid);
    assert.ok((event.txnNumber as Long).equals(4));
  }
});

void test("a rename event names the target in `to`", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "shop" });
  deployment.commit({
    operationType: "rename",
    db: "shop",
    coll: "a",
    to: { db: "shop", coll: "b" },
    imagesRecorded: false,
  });
  const [event] = (await nextBatch(cursor)).documents;
  assert.deepEqual(event!.ns, { db: "shop", coll: "a" });
  assert.deepEqual(event!.to, { db: "shop", coll: "b" });
});

void test("a dropDatabase event names only the database", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "admin", allChangesForCluster: true });
  deployment.commit(dropRecord("shop", "sales"), {
    operationType: "dropDatabase",
    db: "shop",
    imagesRecorded: false,
  });
  const events = (await nextBatch(cursor)).documents;
  assert.deepEqual(
    events.map((e) => e.operationType),
    ["drop", "dropDatabase"],
  );
  assert.deepEqual(events[1]!.ns, { db: "shop" });
});

void test("an update that changed nothing produces no event", async () => {
  const deployment = new FakeDeployment();
  const cursor = deployment.open({ db: "shop", coll: "sales" });
  deployment.commit(updateRecord("shop", "sales", { _id: 1, n: 1 }, { _id: 1, n: 1 }));
  assert.deepEqual((await nextBatch(cursor)).documents, []);
});

void test("index and collection events are shown only with showExpandedEvents", async () => {
  const deployment = new FakeDeployment();
  const classic = deployment.open({ db: "shop" });
  const expanded = deployment.open({ db: "shop", spec: { showExpandedEvents: true } });
  deployment.commit({ operationType: "create", db: "shop", coll: "sales", imagesRecorded: false });
  assert.equal((await nextBatch(classic)).documents.length, 0);
  assert.equal((await nextBatch(expanded)).documents[0]!.operationType, "create");
});

void test("with updateLookup, only updates the $match may keep are looked up, then shaped by the later stages", async () => {
  const deployment = new FakeDeployment();
  const pipeline = [
    { $match: { $or: [{ "updateDescription.updatedFields.n": 2 }, { "fullDocument.kept": true }] } },
    { $project: { "fullDocument.n": 1 } },
  ];
  const cursor = deployment.open({
    db: "shop",
    coll: "sales",
    spec: { fullDocument: "updateLookup" },
    pipeline,
  });
  deployment.documents.set("shop.sales.1", { _id: 1, n: 3, other: "x" });
  deployment.documents.set("shop.sales.2", { _id: 2, n: 9, kept: true });
  deployment.documents.set("shop.sales.3", { _id: 3, n: 9 });
  deployment.commit(updateRecord("shop", "sales", { _id: 1, n: 1 }, { _id: 1, n: 2 }));
  deployment.commit(updateRecord("shop", "sales", { _id: 2, n: 1 }, { _id: 2, n: 5 }));
  deployment.commit(updateRecord("shop", "sales", { _id: 3, n: 1 }, { _id: 3, n: 5 }));
  const events = (await nextBatch(cursor)).documents;
  assert.deepEqual(
    events.map((event) => event.fullDocument as unknown),
    [{ n: 3 }, { n: 9 }],
  );
  // The first is accepted on its updateDescription, the others need their post-image.
  assert.equal(deployment.lookups, 3);
});

void test("with updateLookup, an update the $match rejects on its own fields is not looked up", async () => {
  const deployment = new FakeDeployment();
  const pipeline = [{ $match: { "ns.coll": "other", "fullDocument.n": { $gt: 0 } } }];
  const cursor = deployment.open({ db: "shop", spec: { fullDocument: "updateLookup" }, pipeline });
  deployment.commit(updateRecord("shop", "sales", { _id: 1, n: 1 }, { _id: 1, n: 2 }));
  assert.deepEqual((await nextBatch(cursor)).documents, []);
  assert.equal(deployment.lookups, 0);
});
