import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MongoServerError, type Document } from "mongodb";
import { startTestMongo, type TestMongo } from "../support/mongo.js";

let mongo: TestMongo;
before(async () => {
  mongo = await startTestMongo();
});
after(async () => {
  await mongo.close();
});

void test("a client connecting with replicaSet=rs0 sees a writable primary", async () => {
  const reply = await mongo.client.db("admin").command({ hello: 1 });
  assert.equal(reply.isWritablePrimary, true);
  assert.equal(reply.setName, "rs0");
  assert.ok(Array.isArray(reply.hosts) && reply.hosts.length >= 1);
  assert.equal(typeof reply.logicalSessionTimeoutMinutes, "number");
  assert.ok(reply.maxWireVersion >= 21);
});

void test("the primary lists itself among the set's hosts", async () => {
  const reply = await mongo.client.db("admin").command({ hello: 1 });
  assert.ok(reply.hosts.includes(reply.me));
  assert.equal(reply.primary, reply.me);
});

void test("ping answers ok and carries the cluster time", async () => {
  const reply = await mongo.client.db("admin").command({ ping: 1 });
  assert.equal(reply.ok, 1);
  assert.ok(reply.$clusterTime?.clusterTime);
  assert.ok(reply.operationTime);
});

void test("buildInfo reports a 7.0 or later version", async () => {
  const reply = await mongo.client.db("admin").command({ buildInfo: 1 });
  assert.ok(reply.versionArray[0] >= 7);
});

void test("an unknown command fails with CommandNotFound naming the command", async () => {
  await assert.rejects(mongo.client.db("admin").command({ noSuchCommandHere: 1 }), (error: unknown) => {
    assert.ok(error instanceof MongoServerError);
    assert.equal(error.code, 59);
    assert.equal(error.codeName, "CommandNotFound");
    assert.match(error.message, /no such command: 'noSuchCommandHere'/);
    return true;
  });
});

void test("a second client connects alongside the first", async () => {
  const other = await mongo.newClient({ appName: "second" });
  const reply = await other.db("admin").command({ ping: 1 });
  assert.equal(reply.ok, 1);
});

void test("serverStatus counts each command's runs and failures, and unknown commands together", async () => {
  const admin = mongo.client.db("admin");
  const db = mongo.client.db("handshake_counts");
  const commands = async () => (await admin.command({ serverStatus: 1 })).metrics.commands;
  await db.collection<{ _id: number }>("c").insertOne({ _id: 1 });
  const before = await commands();
  await db.command({ find: "c", filter: {} });
  await db.command({ find: "c", filter: {} });
  await assert.rejects(db.command({ find: "c", filter: { $noSuchOperator: 1 } }));
  await assert.rejects(admin.command({ noSuchCommandHere: 1 }));
  const after = await commands();
  const count = (counts: Document, field: "total" | "failed") => Number(counts.find?.[field] ?? 0);
  assert.equal(count(after, "total") - count(before, "total"), 3);
  assert.equal(count(after, "failed") - count(before, "failed"), 1);
  assert.equal(Number(after["<UNKNOWN>"]) - Number(before["<UNKNOWN>"]), 1);
});
