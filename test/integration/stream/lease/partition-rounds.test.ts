// What a replica's round of partition leases sends once it holds its partitions: its
// heartbeat, one read of who holds what, and one renewal of every partition it holds, where it
// sent a request per partition (most of an idle replica's commands). A renewal that finds one
// partition taken loses that one only; the read examines the leases and heartbeats, not the
// rest of the state collection.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ObjectId, type Binary, type CommandStartedEvent, type Db } from "mongodb";
import { rosterFilter } from "../../../../src/stream/partitions/partition-leases.js";
import { sessionIdHex } from "../../../../src/stream/lease/session-pool.js";
import { fencedPartitions } from "../../../support/harness.js";
import { explainReads } from "../../../support/explain.js";
import { useTestDatabase } from "../../../support/mongo.js";

const STATE = "pattern_sidecar_state";
const PARTITIONS = 16;
const everyPartition = Array.from({ length: PARTITIONS }, (_, partition) => partition);

const fixture = useTestDatabase("partition_rounds", {
  setUp: async ({ db }) => {
    await db.createCollection(STATE);
  },
});

type LeaseDoc = { _id: string; holder: string; term: number; expiresAt: Date };

async function partitionExpiries(db: Db): Promise<Map<string, number>> {
  const leases = await db
    .collection<LeaseDoc>(STATE)
    .find({ _id: { $regex: "^lease\\.partition\\.\\d+$" } })
    .toArray();
  return new Map(leases.map((lease) => [lease._id, lease.expiresAt.getTime()]));
}

/** A replica on a client of its own whose commands on the state collection are counted by name. */
async function countedReplica(holder: string) {
  const client = await fixture.mongo.newClient({ monitorCommands: true });
  const db = client.db(fixture.db.databaseName);
  const sent: string[] = [];
  client.on("commandStarted", (event: CommandStartedEvent) => {
    if (event.command[event.commandName] === STATE) sent.push(event.commandName);
  });
  return { client, db, sent, ...fencedPartitions(client, db, holder) };
}

void test("a round of a replica holding its partitions: a heartbeat, one read, one renewal of them all", async () => {
  const replica = await countedReplica("alone");
  try {
    await replica.leases.round();
    assert.deepEqual(replica.leases.owned(), everyPartition);
    const before = await partitionExpiries(fixture.db);
    replica.sent.length = 0;
    await replica.leases.round();
    assert.deepEqual(replica.sent.sort(), ["find", "update", "update"]);
    assert.deepEqual(replica.leases.owned(), everyPartition);
    const after = await partitionExpiries(fixture.db);
    for (const [id, expiry] of before) assert.ok(after.get(id)! > expiry, `${id} renewed`);
  } finally {
    await replica.leases.stop();
    await replica.sessions.close();
    await replica.client.close();
  }
});

void test("a renewal that finds one partition taken loses that one only", async () => {
  const replica = await countedReplica("alone");
  try {
    await replica.leases.round();
    const taken = "lease.partition.5";
    await fixture.db
      .collection<LeaseDoc>(STATE)
      .updateOne(
        { _id: taken },
        { $set: { holder: "another", expiresAt: new Date(Date.now() + 60_000) }, $inc: { term: 1 } },
      );
    const before = await partitionExpiries(fixture.db);
    await replica.leases.round();
    assert.deepEqual(
      replica.leases.owned(),
      everyPartition.filter((partition) => partition !== 5),
    );
    const after = await partitionExpiries(fixture.db);
    assert.equal(after.get(taken), before.get(taken), "the taken lease is left as its taker wrote it");
    for (const [id, expiry] of before) if (id !== taken) assert.ok(after.get(id)! > expiry, `${id} renewed`);
  } finally {
    await replica.leases.stop();
    await replica.sessions.close();
    await replica.client.close();
  }
});

void test("a round's read examines the leases and heartbeats, not the rest of the state collection", async () => {
  const { db } = fixture;
  // What else the state collection holds in numbers: the subset rules' copy ledger (a
  // transaction's records, or an earlier version's document per copy), positions.
  await db
    .collection<{ _id: unknown }>(STATE)
    .insertMany([
      ...Array.from({ length: 1_000 }, (_, i) => ({ _id: new ObjectId(), records: [{ copied: i }] })),
      ...Array.from({ length: 1_000 }, (_, i) => ({ _id: { copied: i } })),
      ...Array.from({ length: 500 }, (_, i) => ({ _id: `position.${i}` })),
    ]);
  const replica = await countedReplica("alone");
  try {
    await replica.leases.round();
    const reads = await explainReads(replica.client, replica.db, () => replica.leases.round());
    const roster = reads.filter((read) => read.collection === STATE);
    assert.equal(roster.length, 1, "one read per round");
    // Each partition's lease, its two sessions' fence documents, the heartbeat: 49 in all.
    assert.ok(roster[0]!.docsExamined <= 60, `examined ${roster[0]!.docsExamined} documents`);
    assert.ok(roster[0]!.keysExamined <= 60, `examined ${roster[0]!.keysExamined} keys`);
    const held = await db.collection(STATE).countDocuments(rosterFilter());
    assert.equal(held, PARTITIONS + 1, "the partitions' leases and the heartbeat");
  } finally {
    await replica.leases.stop();
    await replica.sessions.close();
    await replica.client.close();
  }
});

void test("a round reads the sessions the other replicas' leases list, not its own", async () => {
  // Without the earlier tests' leases (one still held by "another", listing their sessions).
  await fixture.db.collection(STATE).deleteMany({});
  const [a, b] = [await countedReplica("a"), await countedReplica("b")];
  const hex = (ids: readonly Binary[]) => ids.map(sessionIdHex).sort();
  try {
    for (let round = 0; round < 3; round++) for (const { leases } of [a, b]) await leases.round();
    assert.ok(a.leases.owned().length > 0 && b.leases.owned().length > 0, "both hold partitions");
    assert.equal(b.sessions.ids.length, 2);
    assert.deepEqual(hex(a.leases.othersSessions), hex(b.sessions.ids));
    assert.deepEqual(hex(b.leases.othersSessions), hex(a.sessions.ids));
  } finally {
    for (const replica of [a, b]) {
      await replica.leases.stop();
      await replica.sessions.close();
      await replica.client.close();
    }
  }
});
