// A deployment that refuses killSessions (a platform without it, a user without the right):
// a takeover cannot abort the previous leader's open transactions. By default it never
// leads unfenced; with killSessionsRefused: waitTransactionLifetime it holds the lease
// without writing until takeoverWaitSeconds have passed since the previous lease expired.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Db, Document, MongoClient } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { FencingRefusedError } from "../../../../src/errors.js";
import { WriterLease, type FencingOptions } from "../../../../src/stream/lease/lease.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { turnFailPointOff } from "../../../support/harness.js";

const STATE = "pattern_sidecar_state";
const APP_NAME = "lease-without-kill-sessions";

const fixture = useTestDatabase("kill_sessions_refused");

let standbyClient: MongoClient;

/** A leader holding a 1 s lease that lists one session, left to expire; its expiry, by the server's clock. */
async function expiredLeaderLease(): Promise<Date> {
  const session = fixture.mongo.client.startSession();
  const leader = new WriterLease(fixture.db, STATE, "leader", 1, { sessionIds: () => [session.id!.id] });
  assert.equal(await leader.acquireOrRenew(), true);
  await session.endSession();
  const lease = await leaseDocument(fixture.db);
  await waitUntil(() => Date.now() > (lease.expiresAt as Date).getTime() + 200, {
    description: "the leader's lease to expire",
  });
  return lease.expiresAt as Date;
}

async function leaseDocument(db: Db): Promise<Document> {
  const lease = await db.collection<{ _id: string }>(STATE).findOne({ _id: "lease" });
  assert.ok(lease, "a lease document");
  return lease;
}

async function refuseKillSessions(): Promise<void> {
  await fixture.mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: "alwaysOn",
    data: { failCommands: ["killSessions"], errorCode: 13, appName: APP_NAME },
  });
}

async function standby(fencing?: FencingOptions): Promise<WriterLease> {
  standbyClient ??= await fixture.mongo.newClient({ appName: APP_NAME });
  return new WriterLease(standbyClient.db(fixture.db.databaseName), STATE, "standby", 1, { fencing });
}

void test("by default a takeover the server refuses killSessions to fails and never holds the lease", async (t) => {
  t.after(() => turnFailPointOff(fixture.mongo));
  await expiredLeaderLease();
  await refuseKillSessions();
  const lease = await standby();
  await assert.rejects(lease.acquireOrRenew(), FencingRefusedError);
  assert.equal(lease.held, false);
  // Tried again once the lease it wrote has expired: still refused, still not held.
  await waitUntil(async () => (await leaseDocument(fixture.db)).expiresAt < new Date(Date.now() - 200));
  await assert.rejects(lease.acquireOrRenew(), FencingRefusedError);
  assert.equal(lease.held, false);
});

void test("with waitTransactionLifetime a refused takeover holds the lease without writing until takeoverWaitSeconds after the previous expiry", async (t) => {
  t.after(() => turnFailPointOff(fixture.mongo));
  await fixture.db.collection(STATE).deleteOne({ _id: "lease" as never });
  const previousExpiry = await expiredLeaderLease();
  await refuseKillSessions();
  const lease = await standby({ killSessionsRefused: "waitTransactionLifetime", takeoverWaitSeconds: 3 });
  const acquired = lease.acquireOrRenew();
  // Meanwhile the lease is this replica's, renewed past its 1 s, and it does not write.
  await waitUntil(async () => (await leaseDocument(fixture.db)).holder === "standby");
  await waitUntil(
    async () => (await leaseDocument(fixture.db)).expiresAt > new Date(previousExpiry.getTime() + 2500),
    {
      description: "the waiting replica to renew the lease it took",
    },
  );
  assert.equal(lease.held, false);

  assert.equal(await acquired, true);
  // Its last renewal before leading ran at least 3 s after the previous expiry, by the server's clock.
  const renewedAt = (await leaseDocument(fixture.db)).expiresAt.getTime() - 1000;
  assert.ok(
    renewedAt >= previousExpiry.getTime() + 3000,
    `renewed ${renewedAt - previousExpiry.getTime()} ms after`,
  );
});

void test(
  "a stop ends a refused takeover's wait at once: the lease is not held and nothing waits out takeoverWaitSeconds",
  { timeout: 60_000 },
  async (t) => {
    t.after(() => turnFailPointOff(fixture.mongo));
    await fixture.db.collection(STATE).deleteOne({ _id: "lease" as never });
    await expiredLeaderLease();
    await refuseKillSessions();
    // Ten minutes: far past this test's timeout, so only the stop can end the wait in time.
    const lease = await standby({ killSessionsRefused: "waitTransactionLifetime", takeoverWaitSeconds: 600 });
    const stop = new AbortController();
    const acquired = lease.acquireOrRenew(stop.signal);
    await waitUntil(async () => (await leaseDocument(fixture.db)).holder === "standby");
    stop.abort();
    assert.equal(await acquired, false);
    assert.equal(lease.held, false);
  },
);
