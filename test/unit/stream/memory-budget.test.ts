import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryBudget } from "../../../src/stream/correction/memory-budget.js";

const MIB = 1024 * 1024;

const settled = () => new Promise((resolve) => setImmediate(resolve));

/** Admits `bytes` on `hold`; `done()` tells whether the admission went through yet. */
function admitting(hold: ReturnType<MemoryBudget["hold"]>, bytes: number) {
  let admitted = false;
  const admission = hold.admit(bytes).then(() => void (admitted = true));
  return { admission, done: () => admitted };
}

void test("a document that would pass the budget waits until another correction releases its share", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const first = budget.hold();
  await first.admit(20 * MIB);
  const second = admitting(budget.hold(), 20 * MIB);
  await settled();
  assert.equal(second.done(), false);
  first.release();
  await second.admission;
});

void test("documents that fit together are admitted together", async () => {
  const budget = new MemoryBudget(32 * MIB);
  await budget.hold().admit(14 * MIB);
  await budget.hold().admit(14 * MIB);
});

void test("a document larger than the whole budget is corrected alone, after the others", async () => {
  const budget = new MemoryBudget(16 * MIB);
  const small = budget.hold();
  await small.admit(MIB);
  const huge = admitting(budget.hold(), 40 * MIB);
  await settled();
  assert.equal(huge.done(), false);
  small.release();
  await huge.admission;
  const next = admitting(budget.hold(), MIB);
  await settled();
  assert.equal(next.done(), false, "nothing is admitted beside the document larger than the budget");
});

void test("a correction that holds part of the budget is never made to wait for more", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const a = budget.hold();
  const b = budget.hold();
  await a.admit(16 * MIB);
  await b.admit(16 * MIB);
  // Each waiting for the other's share would be a deadlock.
  await Promise.all([a.admit(16 * MIB), b.admit(16 * MIB)]);
});

void test("waiting admissions go in arrival order: a small document does not overtake a large one", async () => {
  const order: string[] = [];
  const budget = new MemoryBudget(32 * MIB);
  const first = budget.hold();
  await first.admit(30 * MIB);
  const large = budget
    .hold()
    .admit(20 * MIB)
    .then(() => order.push("large"));
  const small = budget
    .hold()
    .admit(MIB)
    .then(() => order.push("small"));
  await settled();
  assert.deepEqual(order, []);
  first.release();
  await Promise.all([large, small]);
  assert.deepEqual(order, ["large", "small"]);
});

void test("the observer sees the bytes held and each admission that waited", async () => {
  const held: number[] = [];
  let waits = 0;
  const budget = new MemoryBudget(10, { held: (bytes) => held.push(bytes), waited: () => (waits += 1) });
  const first = budget.hold();
  await first.admit(6);
  const second = budget.hold();
  const waiting = second.admit(6);
  first.release();
  await waiting;
  second.release();
  assert.deepEqual(held, [6, 6, 0]);
  assert.equal(waits, 1);
});

void test("a budget that is not a positive number of bytes is refused, naming the value", () => {
  assert.throws(() => new MemoryBudget(0), /positive number of bytes, got 0/);
});

void test("a correction is told whether a document of 16 MiB would wait, to ask its size before reading it", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const first = budget.hold();
  assert.equal(first.admitsDocuments(1), true);
  await first.admit(20 * MIB);
  assert.equal(first.admitsDocuments(1), true, "a hold that holds something never waits");
  const second = budget.hold();
  assert.equal(second.admitsDocuments(1), false);
  first.release();
  assert.equal(second.admitsDocuments(1), true);
});

void test("a batch is told it might wait when its documents of 16 MiB each would not all fit", async () => {
  const budget = new MemoryBudget(32 * MIB);
  const batch = budget.hold();
  assert.equal(batch.admitsDocuments(2), true);
  assert.equal(batch.admitsDocuments(3), false, "three of 16 MiB need 48 MiB: its size is asked first");
  // The batch's size is then admitted before it reads; one larger than the whole budget
  // is taken when nothing else is held, and the next correction waits for it.
  await batch.admit(40 * MIB);
  const next = budget.hold();
  let admitted = false;
  const waiting = next.admit(1).then(() => (admitted = true));
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(admitted, false);
  batch.release();
  await waiting;
  assert.equal(admitted, true);
  next.release();
});
