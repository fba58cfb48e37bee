// Real processes: two sidecars (the CLI, as deployed) against the test deployment. The
// leader is held inside a correction's transaction (failCommand blocks its commit), then
// killed or paused. The standby takes the lease over, kills the old leader's sessions (its
// transaction aborts at once), and corrects the document itself: an application's write to
// that document is not blocked until the server reaps the transaction, and the paused
// leader's commit, once it resumes, never lands.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { test, type TestContext } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { useCliReplicas } from "../../../support/cli-replicas.js";
import { allPurchasers, insertBook, users } from "../../../support/harness.js";

const { fixture, start: startReplica } = useCliReplicas("killed_leader");

async function leaseHolder(): Promise<string | undefined> {
  const lease = await fixture.db.collection("pattern_sidecar_state").findOne({ _id: "lease" as never });
  return lease?.holder as string | undefined;
}

/** Starts the leader, then a standby; returns both once the first one leads. */
async function leaderAndStandby(): Promise<{ leader: ChildProcess; standby: ChildProcess }> {
  const leader = await startReplica();
  await waitUntil(async () => (await leaseHolder())?.includes(`:${leader.pid}:`) === true, {
    timeoutMs: 20_000,
    description: "the first replica to lead",
  });
  const standby = await startReplica();
  await delay(1_500); // the standby connects and reads the lease
  return { leader, standby };
}

/** Blocks the next commitTransaction (the leader's correction) for 8 s, past the takeover. */
async function holdNextCommit(): Promise<void> {
  await fixture.mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: { failCommands: ["commitTransaction"], blockConnection: true, blockTimeMS: 8_000 },
  });
}

async function bookCorrectedOnce(bookId: number): Promise<boolean> {
  const book = await fixture.db.collection("sales").findOne({ _id: bookId as never });
  return (book?.customers_purchased as unknown[] | undefined)?.length === 50;
}

async function assertNothingLostOrDuplicated(bookId: number): Promise<void> {
  assert.deepEqual(await allPurchasers(fixture.db, bookId), users(0, 70));
  assert.equal(await fixture.db.collection("extra_sales").countDocuments({ book_id: bookId }), 1);
}

async function holdLeaderInTransaction(bookId: number): Promise<void> {
  await holdNextCommit();
  await insertBook(fixture.db, bookId, 70);
  await delay(1_500); // the leader has planned, written, and waits on its commit
}

void test("a leader SIGKILLed inside a transaction blocks an application's write only until the standby takes over", async (t: TestContext) => {
  const { leader, standby } = await leaderAndStandby();
  await holdLeaderInTransaction(1);
  const killedAt = Date.now();
  leader.kill("SIGKILL");
  const write = fixture.db
    .collection("sales")
    .updateOne({ _id: 1 as never }, { $set: { note: "application" } });
  await write;
  const writeBlockedMs = Date.now() - killedAt;
  await waitUntil(() => bookCorrectedOnce(1), {
    timeoutMs: 20_000,
    description: "the new leader's correction",
  });
  const takeoverMs = Date.now() - killedAt;
  t.diagnostic(
    `application write blocked ${writeBlockedMs} ms after SIGKILL; corrected by the new leader ${takeoverMs} ms after`,
  );
  assert.ok((await leaseHolder())?.includes(`:${standby.pid}:`));
  await assertNothingLostOrDuplicated(1);
  assert.equal((await fixture.db.collection("sales").findOne({ _id: 1 as never }))?.note, "application");
  standby.kill("SIGTERM");
});

void test("a leader SIGSTOPped inside a transaction and resumed after the takeover never commits it", async (t: TestContext) => {
  const { leader, standby } = await leaderAndStandby();
  await holdLeaderInTransaction(2);
  const pausedAt = Date.now();
  leader.kill("SIGSTOP");
  await waitUntil(async () => (await leaseHolder())?.includes(`:${standby.pid}:`) === true, {
    timeoutMs: 20_000,
    description: "the standby to take over",
  });
  await waitUntil(() => bookCorrectedOnce(2), {
    timeoutMs: 20_000,
    description: "the new leader's correction",
  });
  t.diagnostic(`corrected by the new leader ${Date.now() - pausedAt} ms after SIGSTOP`);
  leader.kill("SIGCONT");
  await delay(9_000); // past the held commit, which the server now runs and refuses
  await assertNothingLostOrDuplicated(2);
  assert.ok((await leaseHolder())?.includes(`:${standby.pid}:`));
  leader.kill("SIGTERM");
  standby.kill("SIGTERM");
});
