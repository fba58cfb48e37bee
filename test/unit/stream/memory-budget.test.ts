import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryBudget } from "../../../src/stream/correction/memory-budget.js";

const MIB = 1024 * 1024;

const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A correction that reads `bytes` in one plan; `done()` tells whether the budget let them in yet. */
function admitting(budget: MemoryBudget, bytes: number) {
  const hold = budget.hold();
  let admitted = false;
  const admission = hold
    .plan()
    .admit(bytes)
    .then(() => void (admitted = true));
  return { hold, admission, done: () => admitted };
}

void test("a document that would pass the budget waits until another correction releases its share", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const first = admitting(budget, 20 * MIB);
  await first.admission;
  const second = admitting(budget, 20 * MIB);
  await settled();
  assert.equal(second.done(), false);
  first.hold.release();
  await second.admission;
});

void test("documents that fit together are admitted together", async () => {
  const budget = new MemoryBudget(32 * MIB);
  await admitting(budget, 14 * MIB).admission;
  await admitting(budget, 14 * MIB).admission;
});

void test("a document larger than the whole budget is corrected alone, after the others", async () => {
  const budget = new MemoryBudget(16 * MIB);
  const small = admitting(budget, MIB);
  await small.admission;
  const huge = admitting(budget, 40 * MIB);
  await settled();
  assert.equal(huge.done(), false);
  small.hold.release();
  await huge.admission;
  const next = admitting(budget, MIB);
  await settled();
  assert.equal(next.done(), false, "nothing is admitted beside the document larger than the budget");
});

void test("a correction that holds part of the budget is never made to wait for more", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const [a, b] = [budget.hold().plan(), budget.hold().plan()];
  await a.admit(16 * MIB);
  await b.admit(16 * MIB);
  // Each waiting for the other's share would be a deadlock.
  await Promise.all([a.admit(16 * MIB), b.admit(16 * MIB)]);
});

void test("a correction holds what its largest plan read, not the sum of its preview and attempts", async () => {
  const held: number[] = [];
  const budget = new MemoryBudget(32 * MIB, { held: (bytes) => held.push(bytes), waited: () => {} });
  const hold = budget.hold();
  await hold.plan().admit(14 * MIB); // the preview
  await hold.plan().admit(14 * MIB); // the transaction's first attempt
  const retry = hold.plan();
  await retry.admit(14 * MIB);
  await retry.admit(MIB); // a chunk read besides
  assert.deepEqual(held, [14 * MIB, 15 * MIB]);
  // Another correction still finds room for a document of 16 MiB.
  await admitting(budget, 16 * MIB).admission;
});

void test("waiting admissions go in arrival order: a small document does not overtake a large one", async () => {
  const order: string[] = [];
  const budget = new MemoryBudget(32 * MIB);
  const first = admitting(budget, 30 * MIB);
  await first.admission;
  const large = admitting(budget, 20 * MIB).admission.then(() => order.push("large"));
  const small = admitting(budget, MIB).admission.then(() => order.push("small"));
  await settled();
  assert.deepEqual(order, []);
  first.hold.release();
  await Promise.all([large, small]);
  assert.deepEqual(order, ["large", "small"]);
});

void test("the observer sees the bytes held and each admission that waited", async () => {
  const held: number[] = [];
  let waits = 0;
  const budget = new MemoryBudget(10, { held: (bytes) => held.push(bytes), waited: () => (waits += 1) });
  const first = admitting(budget, 6);
  await first.admission;
  const second = admitting(budget, 6);
  first.hold.release();
  await second.admission;
  second.hold.release();
  assert.deepEqual(held, [6, 6, 0]);
  assert.equal(waits, 1);
});

void test("a correction is told whether a document of 16 MiB would wait, to ask its size before reading it", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const first = budget.hold();
  assert.equal(first.plan().admitsDocuments(1), true);
  await first.plan().admit(20 * MIB);
  assert.equal(first.plan().admitsDocuments(1), true, "a hold that holds something never waits");
  const second = budget.hold().plan();
  assert.equal(second.admitsDocuments(1), false);
  first.release();
  assert.equal(second.admitsDocuments(1), true);
});

void test("a batch is told it might wait when its documents of 16 MiB each would not all fit", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const batch = budget.hold();
  const reads = batch.plan();
  assert.equal(reads.admitsDocuments(2), true);
  assert.equal(reads.admitsDocuments(3), false, "three of 16 MiB need 48 MiB: its size is asked first");
  // The batch's size is then admitted before it reads; one larger than the whole budget
  // is taken when nothing else is held, and the next correction waits for it.
  assert.equal(reads.holdsWithin(32 * MIB), true);
  assert.equal(reads.holdsWithin(40 * MIB), false, "a batch larger than the whole budget is split");
  await reads.admit(40 * MIB);
  const next = budget.hold();
  let admitted = false;
  const waiting = next
    .plan()
    .admit(1)
    .then(() => (admitted = true));
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(admitted, false);
  batch.release();
  await waiting;
  assert.equal(admitted, true);
  next.release();
});

void test("a plan is told whether bytes would be admitted at once, as admitting them would decide", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const first = budget.hold();
  const reads = first.plan();
  assert.equal(reads.admitsBytes(32 * MIB), true);
  await reads.admit(30 * MIB);
  assert.equal(reads.admitsBytes(20 * MIB), true, "a hold that holds something never waits");
  const second = budget.hold().plan();
  assert.equal(second.admitsBytes(2 * MIB), true);
  assert.equal(second.admitsBytes(3 * MIB), false);
  const waiting = budget
    .hold()
    .plan()
    .admit(3 * MIB);
  assert.equal(second.admitsBytes(1), false, "nobody overtakes a waiting admission");
  first.release();
  await waiting;
  assert.equal(second.admitsBytes(29 * MIB), true);
});

void test("a budget that is not a positive number of bytes is refused, naming the value", () => {
  assert.throws(() => new MemoryBudget(0), /positive number of bytes, got 0/);
});
