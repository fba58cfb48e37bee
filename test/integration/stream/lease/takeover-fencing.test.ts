// A takeover never lets the previous leader commit under the new term. Each correction
// really writes its session's fence document; a takeover deletes them in the transaction
// that bumps the term. So the previous leader's open transaction either aborts (its session
// killed, or its fence conflicting) or commits before the takeover does, even where the
// server refuses killSessions (another user's sessions, a platform without it).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ClientSession, Document, MongoClient } from "mongodb";
import { LeaseLostError, TakeoverBlockedError } from "../../../../src/errors.js";
import { LEASE_ID, type WriterLease } from "../../../../src/stream/lease/lease.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { fencedLease, turnFailPointOff, type FencedLease } from "../../../support/harness.js";

const STATE = "pattern_sidecar_state";
const APP_NAME = "lease-without-kill-sessions";

const fixture = useTestDatabase("takeover_fencing");

let standbyClient: MongoClient;

async function leader(): Promise<FencedLease> {
  await fixture.db.collection(STATE).deleteOne({ _id: LEASE_ID as never });
  const leading = fencedLease(fixture.mongo.client, fixture.db, "leader");
  assert.equal(await leading.lease.acquireOrRenew(), true);
  return leading;
}

/** A standby on a client of its own, which the killSessions fail point can single out. */
async function standby(): Promise<WriterLease> {
  standbyClient ??= await fixture.mongo.newClient({ appName: APP_NAME });
  return fencedLease(standbyClient, standbyClient.db(fixture.db.databaseName), "standby").lease;
}

/** Ends the lease by the server's clock, as if its holder had been paused past it. */
async function expireLease(): Promise<void> {
  await fixture.db
    .collection(STATE)
    .updateOne({ _id: LEASE_ID as never }, { $set: { expiresAt: new Date(0) } });
}

async function refuseKillSessions(): Promise<void> {
  await fixture.mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: "alwaysOn",
    data: { failCommands: ["killSessions"], errorCode: 13, appName: APP_NAME },
  });
}

/**
 * A correction of the leader left open after its fence and one write, on one of its sessions;
 * `done` gives the session back to the pool once the test has ended the transaction.
 */
async function openCorrection(
  { lease, sessions }: FencedLease,
  id: string,
): Promise<{ session: ClientSession; done: () => void }> {
  return new Promise((opened) => {
    void sessions.withSession(async (session) => {
      session.startTransaction({ readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
      await lease.fence(session);
      await fixture.db.collection("corrected").insertOne({ _id: id as never }, { session });
      await new Promise<void>((done) => opened({ session, done }));
    });
  });
}

async function events(): Promise<Document[]> {
  return fixture.db.collection("corrected").find().toArray();
}

void test("a takeover kills the open transaction of the leader it replaces, which then cannot commit", async () => {
  const leading = await leader();
  const { session, done } = await openCorrection(leading, "killed");
  await expireLease();
  const taking = await standby();
  assert.equal(await taking.acquireOrRenew(), true);
  await assert.rejects(session.commitTransaction());
  done();
  assert.deepEqual(await events(), []);
});

void test("where killSessions is refused, a takeover waits for the leader's open transaction to end", async (t) => {
  t.after(() => turnFailPointOff(fixture.mongo));
  const leading = await leader();
  const { session, done } = await openCorrection(leading, "committed-first");
  await expireLease();
  await refuseKillSessions();
  const taking = await standby();
  await assert.rejects(taking.acquireOrRenew(), TakeoverBlockedError);
  assert.equal(taking.held, false);
  assert.equal((await fixture.db.collection(STATE).findOne({ _id: LEASE_ID as never }))?.holder, "leader");

  await session.commitTransaction();
  done();
  assert.equal(await taking.acquireOrRenew(), true, "taken once the transaction ended");
  assert.deepEqual(await events(), [{ _id: "committed-first" }]);
  // The previous leader's next correction finds its fence gone.
  await assert.rejects(
    leading.sessions.withSession(async (next) => {
      next.startTransaction();
      try {
        await leading.lease.fence(next);
      } finally {
        await next.abortTransaction();
      }
    }),
    LeaseLostError,
  );
  await fixture.db.collection("corrected").deleteMany({});
});

void test("a correction whose snapshot predates a takeover conflicts on its fence", async () => {
  const leading = await leader();
  await leading.sessions.withSession(async (session) => {
    session.startTransaction({ readConcern: { level: "snapshot" } });
    await fixture.db.collection("corrected").findOne({}, { session }); // the snapshot starts here
    await expireLease();
    assert.equal(await (await standby()).acquireOrRenew(), true);
    await assert.rejects(
      leading.lease.fence(session),
      (error: Error) =>
        (error as { hasErrorLabel?: (label: string) => boolean }).hasErrorLabel?.(
          "TransientTransactionError",
        ) === true,
    );
    await session.abortTransaction().catch(() => undefined);
  });
});

void test("a correction on a session the lease does not list is refused before it writes", async () => {
  const { lease } = await leader();
  const session = fixture.mongo.client.startSession();
  try {
    assert.throws(() => lease.fencingWrite(session), /does not list/);
  } finally {
    await session.endSession();
  }
});

void test("a takeover that conflicts on the lease document itself kills no one's sessions, and waits", async () => {
  await leader();
  await expireLease();
  // Another replica's takeover under way: its transaction holds the lease document.
  const racing = fixture.mongo.client.startSession();
  const bystander = fixture.mongo.client.startSession();
  try {
    racing.startTransaction();
    await fixture.db
      .collection(STATE)
      .updateOne({ _id: LEASE_ID as never }, { $set: { holder: "racing" } }, { session: racing });
    bystander.startTransaction();
    await fixture.db.collection("corrected").insertOne({ _id: "bystander" as never }, { session: bystander });

    const racedBy = await standby();
    assert.equal(await racedBy.acquireOrRenew(), false, "another replica is taking it: not held, no error");
    assert.equal(racedBy.heldElsewhere, true);
    await bystander.commitTransaction();
    await racing.abortTransaction();
    assert.deepEqual(await events(), [{ _id: "bystander" }]);
  } finally {
    await Promise.all([racing.endSession(), bystander.endSession()]);
    await fixture.db.collection("corrected").deleteMany({});
  }
});
