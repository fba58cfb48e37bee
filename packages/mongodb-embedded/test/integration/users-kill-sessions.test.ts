// A server started with authentication on: users made by createUser (the first one without
// authenticating, mongod's localhost exception) authenticate through the driver's SCRAM-SHA-256,
// and a session belongs to its user, so killSessions names only the caller's own sessions and
// answers ok when it names none: mongod matches the id with the caller's digest, and an empty
// list with the caller's sessions (src/mongo/db/session/kill_sessions.cpp).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MongoServerError, type MongoClient } from "mongodb";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../support/mongo.js";

let mongo: TestMongo;
let alice: MongoClient;
let bob: MongoClient;
const database = uniqueDatabaseName("server_users");

const as = (username: string, password = `${username}-password`) =>
  mongo.newClient({ auth: { username, password }, authSource: "admin" });

before(async () => {
  mongo = await startTestMongo({ auth: true });
  if (!mongo.embedded) return;
  const admin = mongo.client.db("admin");
  await admin.command({ createUser: "alice", pwd: "alice-password", roles: ["root"] });
  alice = await as("alice");
  await alice.db("admin").command({ createUser: "bob", pwd: "bob-password", roles: ["root"] });
  bob = await as("bob");
});
after(async () => {
  if (mongo.embedded) await alice.db(database).dropDatabase();
  await mongo.close();
});

const isCode = (code: number) => (error: unknown) => error instanceof MongoServerError && error.code === code;

void test("a connection that has not authenticated is refused with Unauthorized", async (t) => {
  if (!mongo.embedded) return t.diagnostic("a real deployment's users are its own");
  await assert.rejects(mongo.client.db(database).collection("docs").findOne({}), isCode(13));
});

void test("a wrong password fails authentication", async (t) => {
  if (!mongo.embedded) return t.diagnostic("a real deployment's users are its own");
  await assert.rejects(as("bob", "not-bob's"), isCode(18));
});

void test("another user's killSessions answers ok and leaves the transaction open", async (t) => {
  if (!mongo.embedded) return t.diagnostic("a real deployment's users are its own");
  const docs = alice.db(database).collection("docs");
  const session = alice.startSession();
  try {
    session.startTransaction();
    await docs.insertOne({ _id: "kept" as never }, { session });
    const reply = await bob.db("admin").command({ killSessions: [{ id: session.id!.id }] });
    assert.equal(reply.ok, 1);
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  assert.equal(await docs.countDocuments({ _id: "kept" as never }), 1);
});

void test("the user's own killSessions aborts its transaction", async (t) => {
  if (!mongo.embedded) return t.diagnostic("a real deployment's users are its own");
  const docs = alice.db(database).collection("docs");
  const session = alice.startSession();
  try {
    session.startTransaction();
    await docs.insertOne({ _id: "killed" as never }, { session });
    await alice.db("admin").command({ killSessions: [{ id: session.id!.id }] });
    await assert.rejects(session.commitTransaction(), isCode(251));
  } finally {
    await session.endSession();
  }
  assert.equal(await docs.countDocuments({ _id: "killed" as never }), 0);
});

void test("another user's killSessions of all its own sessions leaves the transaction open", async (t) => {
  if (!mongo.embedded) return t.diagnostic("a real deployment's users are its own");
  const docs = alice.db(database).collection("docs");
  const session = alice.startSession();
  try {
    session.startTransaction();
    await docs.insertOne({ _id: "kept too" as never }, { session });
    await bob.db("admin").command({ killSessions: [] });
    await session.commitTransaction();
  } finally {
    await session.endSession();
  }
  assert.equal(await docs.countDocuments({ _id: "kept too" as never }), 1);
});
