// Replicas heartbeat, compute one assignment and hold the leases of their partitions
// (partition-leases.ts): evenly spread, never one partition held by two, a departed
// replica's handed over at once, a silent one's only once its lease expired.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Db } from "mongodb";
import type { SessionPool } from "../../../../src/stream/lease/session-pool.js";
import type { PartitionLeases } from "../../../../src/stream/partitions/partition-leases.js";
import { fencedPartitions } from "../../../support/harness.js";
import { useTestDatabase, type TestMongo } from "../../../support/mongo.js";

const STATE = "pattern_sidecar_state";
const PARTITIONS = 16;

const fixture = useTestDatabase("partition_membership", {
  setUp: async ({ db }) => {
    await db.createCollection(STATE);
  },
});

interface Replica {
  leases: PartitionLeases;
  sessions: SessionPool;
  released: number[][];
}

function replica(mongo: TestMongo, db: Db, holder: string): Replica {
  const released: number[][] = [];
  const beforeRelease = async (partitions: number[]) => void released.push(partitions);
  return { ...fencedPartitions(mongo.client, db, holder, { beforeRelease }), released };
}

/** Rounds of every replica, one after another, as many times as a change takes to settle. */
async function settle(replicas: readonly Replica[], rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round++) for (const { leases } of replicas) await leases.round();
}

/** Partition to holder, from the unexpired lease documents of the state collection. */
async function holdersInState(db: Db): Promise<Map<number, string>> {
  const leases = await db
    .collection<{ _id: string; holder: string; expiresAt: Date }>(STATE)
    .find({ _id: { $regex: "^lease\\.partition\\.\\d+$" }, expiresAt: { $gt: new Date() } })
    .toArray();
  return new Map(leases.map((lease) => [Number(lease._id.split(".")[2]), lease.holder]));
}

function assertDisjointAndComplete(replicas: readonly Replica[]): void {
  const owned = replicas.flatMap(({ leases }) => leases.owned());
  assert.deepEqual(
    [...owned].sort((a, b) => a - b),
    Array.from({ length: PARTITIONS }, (_, partition) => partition),
    "every partition held, none by two",
  );
}

async function closeAll(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(replicas.map(({ sessions }) => sessions.close()));
}

void test("one replica alone holds every partition", async () => {
  const { db, mongo } = fixture;
  const alone = replica(mongo, db, "alone");
  await alone.leases.round();
  assert.equal(alone.leases.owned().length, PARTITIONS);
  assert.ok([...(await holdersInState(db)).values()].every((holder) => holder === "alone"));
  await alone.leases.stop();
  assert.equal(alone.released.length, 1);
  assert.equal(alone.released[0]?.length, PARTITIONS, "its work is let finish before the hand-over");
  assert.equal((await holdersInState(db)).size, 0, "stopping releases every lease at once");
  await closeAll([alone]);
});

void test("replicas spread the partitions evenly; a joiner gets its share, moving only that", async () => {
  const { db, mongo } = fixture;
  const [a, b] = [replica(mongo, db, "a"), replica(mongo, db, "b")];
  await settle([a, b]);
  assert.deepEqual([a, b].map(({ leases }) => leases.owned().length).sort(), [8, 8]);
  const before = new Map([a, b].flatMap(({ leases }) => leases.owned().map((p) => [p, leases] as const)));

  const c = replica(mongo, db, "c");
  await settle([c, a, b]);
  const replicas = [a, b, c];
  assertDisjointAndComplete(replicas);
  assert.deepEqual(replicas.map(({ leases }) => leases.owned().length).sort(), [5, 5, 6]);
  const moved = [a, b].flatMap(({ leases }) => leases.owned().filter((p) => before.get(p) !== leases));
  assert.deepEqual(moved, [], "a and b only gave partitions away, none moved between them");
  const inState = await holdersInState(db);
  for (const [holder, { leases }] of [
    ["a", a],
    ["b", b],
    ["c", c],
  ] as const)
    assert.deepEqual(
      leases.owned(),
      [...inState]
        .flatMap(([partition, owner]) => (owner === holder ? [partition] : []))
        .sort((x, y) => x - y),
      `the state collection agrees with ${holder}`,
    );
  await Promise.all(replicas.map(({ leases }) => leases.stop()));
  await closeAll(replicas);
});

void test("a stopped replica's partitions are taken at once, a silent one's once its lease expired", async () => {
  const { db, mongo } = fixture;
  const replicas = ["a", "b", "c"].map((holder) => replica(mongo, db, holder));
  const [a, b, c] = replicas as [Replica, Replica, Replica];
  await settle(replicas);

  await c.leases.stop();
  await settle([a, b]);
  assertDisjointAndComplete([a, b]);

  const silent = b.leases.owned();
  await settle([a]);
  assert.deepEqual(a.leases.owned().length, PARTITIONS - silent.length, "b's leases still run: a waits");
  await db
    .collection(STATE)
    .updateMany(
      { _id: { $in: ["member.b", ...silent.map((p) => `lease.partition.${p}`)] as never[] } },
      { $set: { expiresAt: new Date(0) } },
    );
  await settle([a]);
  assert.equal(a.leases.owned().length, PARTITIONS, "a took b's partitions once they expired");
  await b.leases.round();
  assert.deepEqual(b.leases.owned(), [], "b, paused past its lease, finds none of them its own");
  assertDisjointAndComplete([a, b]);
  await a.leases.stop();
  await closeAll(replicas);
});

void test("no partition is held while another replica, a member or not, holds the writer lease", async () => {
  const { db, mongo } = fixture;
  const state = db.collection<{ _id: string; holder: string; expiresAt: Date }>(STATE);
  const inAMinute = new Date(Date.now() + 60_000);
  await state.deleteMany({}); // the previous test's paused b heartbeats still
  const a = replica(mongo, db, "a");
  await a.leases.round();
  assert.equal(a.leases.owned().length, PARTITIONS);

  await state.insertOne({ _id: "lease", holder: "old-version", expiresAt: inAMinute });
  await a.leases.round();
  assert.deepEqual(a.leases.owned(), [], "an old version corrects every key: a hands its partitions over");
  assert.equal((await holdersInState(db)).size, 0);

  await state.insertOne({ _id: "member.old-version", holder: "old-version", expiresAt: inAMinute });
  await settle([a]);
  assert.deepEqual(a.leases.owned(), [], "a member holding the writer lease corrects every key too");

  await state.updateOne({ _id: "lease" }, { $set: { expiresAt: new Date(0) } });
  await state.deleteOne({ _id: "member.old-version" });
  await settle([a]);
  assert.equal(a.leases.owned().length, PARTITIONS, "once the writer lease expired, a takes every partition");
  await a.leases.stop();
  await closeAll([a]);
});

void test("a hand-over that waits longer than a lease keeps the kept leases held, not those handed over", async () => {
  const { db, mongo } = fixture;
  await db.collection(STATE).deleteMany({});
  let heldDuringWait: Map<number, string> | undefined;
  // One-second leases, and a hand-over whose partitions' work takes two and a half.
  const slow = fencedPartitions(mongo.client, db, "slow", {
    leaseSeconds: 1,
    beforeRelease: async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      heldDuringWait = await holdersInState(db);
    },
  });
  await slow.leases.round();
  assert.equal(slow.leases.owned().length, PARTITIONS);
  const joiner = fencedPartitions(mongo.client, db, "joiner", { leaseSeconds: 1 });
  await joiner.leases.round();
  assert.deepEqual(joiner.leases.owned(), [], "every partition is still held by the first");

  await slow.leases.round();
  const kept = slow.leases.owned();
  assert.equal(kept.length, PARTITIONS / 2, "only the joiner's share was handed over");
  assert.deepEqual(
    [...heldDuringWait!]
      .filter(([, holder]) => holder === "slow")
      .map(([partition]) => partition)
      .sort((x, y) => x - y),
    kept,
    "the kept leases were renewed while the hand-over waited; those handed over ran out",
  );
  await joiner.leases.round();
  assert.equal(joiner.leases.owned().length, PARTITIONS / 2);
  await Promise.all([slow.leases.stop(), joiner.leases.stop()]);
  await Promise.all([slow.sessions.close(), joiner.sessions.close()]);
});
