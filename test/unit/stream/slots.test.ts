import { test } from "node:test";
import assert from "node:assert/strict";
import { Slots } from "../../../src/stream/correction/slots.js";
import { deferred } from "../../support/deferred.js";

void test("no more than `size` works run at once, and waiting ones start in arrival order", async () => {
  const slots = new Slots(2);
  const gates = Array.from({ length: 5 }, deferred);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const works = gates.map((gate, i) =>
    slots.run(async () => {
      started.push(i);
      running += 1;
      most = Math.max(most, running);
      await gate.promise;
      running -= 1;
      return i;
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [0, 1]);
  for (const i of [1, 0, 2, 3, 4]) {
    gates[i]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await Promise.all(works), [0, 1, 2, 3, 4]);
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(most, 2);
});

void test("a work that fails gives its slot back", async () => {
  const slots = new Slots(1);
  await assert.rejects(
    slots.run(() => Promise.reject(new Error("boom"))),
    /boom/,
  );
  assert.equal(await slots.run(() => Promise.resolve("next")), "next");
});

void test("a size that is not a positive integer is refused, naming the value", () => {
  assert.throws(() => new Slots(0), /positive integer, got 0/);
  assert.throws(() => new Slots(1.5), /positive integer, got 1.5/);
});
