// The copy ledger on a server: a transaction's records in one document, found by the copy's
// `_id` through the index (an earlier version's documents per copy too), forgotten by a
// record of the transaction that undoes the copy, and only for the rule that made the copy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ObjectId, type ClientSession } from "mongodb";
import {
  copyLedgerIndexes,
  findCopies,
  forgetCopy,
  recordCopy,
  type CopyLedger,
} from "../../../../src/patterns/subset/copy-ledger.js";
import { foldRecords } from "../../../../src/patterns/records.js";
import type { PlannedWrite } from "../../../../src/patterns/plan.js";
import { applyWrites } from "../../../../src/stream/correction/apply.js";
import { explainReads } from "../../../support/explain.js";
import { useTestDatabase } from "../../../support/mongo.js";

const STATE = "pattern_sidecar_state";
const ledger: CopyLedger = { collection: STATE, newId: () => new ObjectId() };

const fixture = useTestDatabase("copy_ledger", {
  setUp: async ({ db }) => {
    for (const { collection, keys, options } of copyLedgerIndexes(STATE))
      await db.collection(collection).createIndex(keys, options);
  },
});

/** Records the copies `ids` made by `rule` in one transaction's document. */
async function recordCopies(ids: unknown[], rule = "reviews"): Promise<void> {
  await write(ids.map((id) => recordCopy(ledger, id, { rule, source: 1, entry: id })));
}

/** `writes` in a transaction of their own, as a correction sends them (records folded). */
async function write(writes: PlannedWrite[]): Promise<void> {
  await fixture.mongo.client.withSession((session: ClientSession) =>
    session.withTransaction(() => applyWrites(fixture.db, foldRecords(writes), session)),
  );
}

void test("a transaction's copies are recorded in one document, each found by its _id", async () => {
  await recordCopies(["a", "b", "c"]);
  assert.equal(await fixture.db.collection(STATE).countDocuments(), 1);
  const found = await findCopies(fixture.db, STATE, ["c", "a", "missing"], "reviews");
  assert.deepEqual(found.map(({ copied, entry }) => [copied, entry]).sort(), [
    ["a", "a"],
    ["c", "c"],
  ]);
  assert.ok(found.every(({ legacy }) => !legacy));
});

void test("another rule's copy is not this rule's", async () => {
  await recordCopies(["d"], "other-reviews");
  assert.deepEqual(await findCopies(fixture.db, STATE, ["d"], "reviews"), []);
});

void test("a copy recorded by an earlier version, in a document of its own, is found and forgotten", async () => {
  await fixture.db.collection(STATE).insertOne({
    _id: { copied: "e" } as never,
    rule: "reviews",
    source: "p2",
    entry: "e",
    copiedAt: new Date(),
  });
  const [copy] = await findCopies(fixture.db, STATE, ["e"], "reviews");
  assert.deepEqual(copy, {
    copied: "e",
    rule: "reviews",
    source: "p2",
    entry: "e",
    legacy: true,
  });
  await write([forgetCopy(STATE, copy!)]);
  assert.deepEqual(await findCopies(fixture.db, STATE, ["e"], "reviews"), []);
});

void test("a copy forgotten is no longer found, and the document that recorded it is left as it was", async () => {
  const recordedBefore = await fixture.db.collection(STATE).findOne({ "records.copied": "b" });
  const [b] = await findCopies(fixture.db, STATE, ["b"], "reviews");
  await write([forgetCopy(STATE, b!)]);
  const left = await findCopies(fixture.db, STATE, ["a", "b", "c"], "reviews");
  assert.deepEqual(left.map(({ copied }) => copied).sort(), ["a", "c"]);
  assert.deepEqual(await fixture.db.collection(STATE).findOne({ _id: recordedBefore!._id }), recordedBefore);
});

void test("two transactions forgetting copies recorded together both commit: neither writes the other's", async () => {
  await recordCopies(["f", "g"]);
  const [f, g] = await findCopies(fixture.db, STATE, ["f", "g"], "reviews");
  const sessions = [fixture.mongo.client.startSession(), fixture.mongo.client.startSession()];
  try {
    // Both open at once, as two of the sidecar's correction slots are: a write both made to
    // one document would fail the second with a WriteConflict.
    for (const [i, copy] of [f!, g!].entries()) {
      sessions[i]!.startTransaction();
      await applyWrites(fixture.db, foldRecords([forgetCopy(STATE, copy)]), sessions[i]!);
    }
    for (const session of sessions) await session.commitTransaction();
  } finally {
    await Promise.all(sessions.map((session) => session.endSession()));
  }
  assert.deepEqual(await findCopies(fixture.db, STATE, ["f", "g"], "reviews"), []);
});

void test("the look-up reads the documents that record the copies, whatever else the ledger holds", async () => {
  for (let i = 0; i < 50; i++) await recordCopies(Array.from({ length: 20 }, (_, j) => `batch${i}-${j}`));
  const client = await fixture.mongo.newClient({ monitorCommands: true });
  try {
    const db = client.db(fixture.db.databaseName);
    const reads = await explainReads(client, db, () =>
      findCopies(db, STATE, ["batch7-3", "batch30-0"], "reviews"),
    );
    assert.equal(reads.length, 1, "one query");
    // The two documents that record them, at most once per branch of the query's `$or`; of
    // the 1,000 records in 50 documents.
    const { docsExamined, keysExamined } = reads[0]!;
    assert.ok(docsExamined >= 2 && docsExamined <= 4, `examined ${docsExamined} documents`);
    assert.ok(keysExamined <= 4, `examined ${keysExamined} keys`);
  } finally {
    await client.close();
  }
});
