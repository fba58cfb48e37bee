// Which copies the ledger's documents name (ledgeredCopies): every copy recorded, in a
// transaction's document or an earlier version's document per copy, less those a later
// transaction recorded undone, whichever document is read first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ObjectId, type Document } from "mongodb";
import { forgetCopy, ledgeredCopies, recordCopy } from "../../../../src/patterns/subset/copy-ledger.js";
import { foldRecords } from "../../../../src/patterns/records.js";
import type { PlannedWrite } from "../../../../src/patterns/plan.js";

const STATE = "pattern_sidecar_state";
const ledger = { collection: STATE, newId: () => new ObjectId() };

/** The document a transaction writing `writes` would store its records in, as the server keeps it. */
function recordsDocument(writes: PlannedWrite[]): Document {
  const [write] = foldRecords(writes);
  assert.ok(write?.op === "updateOne");
  return { _id: write.filter._id, ...(write.update.$set as Document), recordedAt: new Date() };
}

const copyOf = (id: ObjectId, entry: number) =>
  recordCopy(ledger, id, { rule: "reviews", source: "p1", entry });

const [a, b, c] = [new ObjectId(), new ObjectId(), new ObjectId()];
const copied = recordsDocument([copyOf(a, 1), copyOf(b, 2), copyOf(c, 3)]);
// Undone by another transaction, which read the copy's id back from the server: equal, not the same object.
const undone = recordsDocument([
  forgetCopy(STATE, { copied: new ObjectId(b.toHexString()), rule: "reviews", source: "p1", entry: 2 }),
]);

const namedIds = (documents: Document[]) =>
  ledgeredCopies(documents).map(({ copied: id }) => (id as ObjectId).toHexString());

void test("every copy a transaction recorded is named, with its rule, source and entry", () => {
  assert.deepEqual(ledgeredCopies([copied]), [
    { copied: a, rule: "reviews", source: "p1", entry: 1 },
    { copied: b, rule: "reviews", source: "p1", entry: 2 },
    { copied: c, rule: "reviews", source: "p1", entry: 3 },
  ]);
});

void test("a copy recorded undone is no longer named, whichever document is read first; the others are", () => {
  const expected = [a, c].map((id) => id.toHexString());
  assert.deepEqual(namedIds([copied, undone]), expected);
  assert.deepEqual(namedIds([undone, copied]), expected);
});

void test("an undone record names no copy of its own", () => {
  assert.deepEqual(ledgeredCopies([undone]), []);
});

void test("an earlier version's document per copy is named, marked legacy, and forgotten by deleting it", () => {
  const legacy = { _id: { copied: "e" }, rule: "reviews", source: "p2", entry: 5, copiedAt: new Date() };
  const [copy] = ledgeredCopies([legacy]);
  assert.deepEqual(copy, { copied: "e", rule: "reviews", source: "p2", entry: 5, legacy: true });
  assert.deepEqual(forgetCopy(STATE, copy!), {
    op: "deleteOne",
    collection: STATE,
    filter: { _id: { copied: "e" } },
  });
});
