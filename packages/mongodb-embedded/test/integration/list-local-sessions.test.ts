import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MongoServerError, type Binary, type Document } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

let mongo: TestMongo;
before(async () => {
  mongo = await startTestMongo();
});
after(async () => {
  await mongo.close();
});

/** Sessions of other clients (a shared replica set) may be listed too: pick ours by id. */
function sessionWithId(sessions: Document[], id: Binary): Document | undefined {
  return sessions.find((s) => Buffer.from((s._id.id as Binary).buffer).equals(Buffer.from(id.buffer)));
}

void test("$listLocalSessions on admin lists the session the aggregate itself runs in", async () => {
  const session = mongo.client.startSession();
  try {
    const sessions = await mongo.client
      .db("admin")
      .aggregate([{ $listLocalSessions: {} }], { session })
      .toArray();
    const mine = sessionWithId(sessions, session.id!.id as Binary);
    assert.ok(mine, "the running session is listed");
    assert.equal((mine._id.uid as Binary).buffer.length, 32);
    assert.ok(mine.lastUse instanceof Date);
  } finally {
    await session.endSession();
  }
});

void test("$listLocalSessions with allUsers also lists a session used earlier", async () => {
  const session = mongo.client.startSession();
  try {
    const db = mongo.client.db(uniqueDatabaseName("server_sessions"));
    await db.collection<{ _id: number }>("probe").insertOne({ _id: 1 }, { session });
    const sessions = await mongo.client
      .db("admin")
      .aggregate([{ $listLocalSessions: { allUsers: true } }, { $project: { _id: 1 } }])
      .toArray();
    assert.ok(sessionWithId(sessions, session.id!.id as Binary));
    await db.dropDatabase();
  } finally {
    await session.endSession();
  }
});

void test("$listLocalSessions refuses to run on a collection (InvalidNamespace)", async () => {
  const db = mongo.client.db(uniqueDatabaseName("server_sessions"));
  await assert.rejects(
    db
      .collection("probe")
      .aggregate([{ $listLocalSessions: {} }])
      .toArray(),
    (error: unknown) => error instanceof MongoServerError && error.code === 73,
  );
});

void test("$listLocalSessions refuses allUsers together with users", async () => {
  await assert.rejects(
    mongo.client
      .db("admin")
      .aggregate([{ $listLocalSessions: { allUsers: true, users: [{ user: "app", db: "admin" }] } }])
      .toArray(),
    (error: unknown) => error instanceof MongoServerError && error.code === 12,
  );
});
