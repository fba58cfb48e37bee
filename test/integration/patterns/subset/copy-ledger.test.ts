// The copy ledger on a server: a transaction's records in one document, found by the copy's
// `_id` through the index (an earlier version's documents per copy too), forgotten one
// record at a time, and only for the rule that made the copy.
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
  const writes = foldRecords(ids.map((id) => recordCopy(ledger, id, { rule, source: 1, entry: id })));
  await write(writes);
}

/** `writes` in a transaction of their own, as a correction sends them. */
async function write(writes: Parameters<typeof applyWrites>[1]): Promise<void> {
  await fixture.mongo.client.withSession((session: ClientSession) =>
    session.withTransaction(() => applyWrites(fixture.db, writes, session)),
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
  assert.ok(found.every(({ recordedIn, legacy }) => recordedIn instanceof ObjectId && !legacy));
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
    recordedIn: { copied: "e" },
    legacy: true,
  });
  await write([forgetCopy(STATE, copy!)]);
  assert.deepEqual(await findCopies(fixture.db, STATE, ["e"], "reviews"), []);
});

void test("forgetting a copy takes its record alone out of its document", async () => {
  const [b] = await findCopies(fixture.db, STATE, ["b"], "reviews");
  await write([forgetCopy(STATE, b!)]);
  const left = await findCopies(fixture.db, STATE, ["a", "b", "c"], "reviews");
  assert.deepEqual(left.map(({ copied }) => copied).sort(), ["a", "c"]);
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
