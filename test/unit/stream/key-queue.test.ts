import { test } from "node:test";
import assert from "node:assert/strict";
import { KeyedTaskQueue, TaskAbandonedError } from "../../../src/stream/events/key-queue.js";
import { deferred } from "../../support/deferred.js";

void test("tasks of the same key run one after another in the order they were queued", async () => {
  const queue = new KeyedTaskQueue(4);
  const order: string[] = [];
  const first = deferred();
  const a = queue.run("doc1", async () => {
    await first.promise;
    order.push("first");
  });
  const b = queue.run("doc1", async () => {
    order.push("second");
  });
  first.resolve();
  await Promise.all([a, b]);
  assert.deepEqual(order, ["first", "second"]);
});

void test("a slow task of one key does not hold back another key", async () => {
  const queue = new KeyedTaskQueue(2);
  const slow = deferred();
  const order: string[] = [];
  const a = queue.run("doc1", async () => {
    await slow.promise;
    order.push("doc1");
  });
  await queue.run("doc2", async () => {
    order.push("doc2");
  });
  slow.resolve();
  await a;
  assert.deepEqual(order, ["doc2", "doc1"]);
});

void test("no more tasks run at once than the concurrency allows", async () => {
  const queue = new KeyedTaskQueue(3);
  let running = 0;
  let highest = 0;
  const gates = Array.from({ length: 10 }, () => deferred());
  const all = gates.map((gate, i) =>
    queue.run(`doc${i}`, async () => {
      running += 1;
      highest = Math.max(highest, running);
      await gate.promise;
      running -= 1;
    }),
  );
  for (const gate of gates) {
    gate.resolve();
    await Promise.resolve();
  }
  await Promise.all(all);
  assert.equal(highest, 3);
});

void test("a failing task rejects its own promise and the key's next task still runs", async () => {
  const queue = new KeyedTaskQueue(1);
  const failing = queue.run("doc1", async () => {
    throw new Error("boom");
  });
  const next = queue.run("doc1", async () => "ran");
  await assert.rejects(failing, /boom/);
  assert.equal(await next, "ran");
});

void test("whenBelow resolves once the queue has drained under the limit", async () => {
  const queue = new KeyedTaskQueue(1);
  const gate = deferred();
  void queue.run("a", () => gate.promise);
  void queue.run("b", async () => {});
  assert.equal(queue.pending, 2);
  const below = queue.whenBelow(1);
  gate.resolve();
  await below;
  assert.equal(queue.pending, 0);
});

void test("a task queued while another of its key waits to start shares that task's outcome", async () => {
  const queue = new KeyedTaskQueue(4);
  const running = deferred();
  const ran: string[] = [];
  const first = queue.runOrJoin("doc1", async () => {
    await running.promise;
    ran.push("first");
    return "first";
  });
  const waiting = queue.runOrJoin("doc1", async () => (ran.push("second"), "second"));
  const joined = queue.runOrJoin("doc1", async () => (ran.push("third"), "third"));
  assert.equal(queue.pending, 2, "the joining task adds nothing to the queue");
  running.resolve();
  assert.deepEqual(await Promise.all([first, waiting, joined]), ["first", "second", "second"]);
  assert.deepEqual(ran, ["first", "second"]);
});

void test("a waiting task is told each time another joins it, and a started one is not", async () => {
  const queue = new KeyedTaskQueue(4);
  const running = deferred();
  const joins: string[] = [];
  const first = queue.runOrJoin(
    "doc1",
    () => running.promise,
    () => joins.push("first"),
  );
  const waiting = queue.runOrJoin(
    "doc1",
    async () => undefined,
    () => joins.push("waiting"),
  );
  const joined = [1, 2].map(() =>
    queue.runOrJoin(
      "doc1",
      async () => undefined,
      () => joins.push("joiner"),
    ),
  );
  assert.deepEqual(joins, ["waiting", "waiting"]);
  running.resolve();
  await Promise.all([first, waiting, ...joined]);
  await queue.runOrJoin("doc1", async () => undefined);
  assert.deepEqual(joins, ["waiting", "waiting"], "a task that has run is joined by no one");
});

void test("a task of a key whose only task has started queues behind it instead of joining", async () => {
  const queue = new KeyedTaskQueue(4);
  const running = deferred();
  const ran: string[] = [];
  const first = queue.runOrJoin("doc1", async () => {
    await running.promise;
    ran.push("first");
  });
  const second = queue.runOrJoin("doc1", async () => void ran.push("second"));
  running.resolve();
  await Promise.all([first, second]);
  assert.deepEqual(ran, ["first", "second"]);
});

void test("tasks of other keys never join each other", async () => {
  const queue = new KeyedTaskQueue(1);
  const running = deferred();
  const ran: string[] = [];
  const blocker = queue.run("doc0", () => running.promise);
  const a = queue.runOrJoin("doc1", async () => void ran.push("doc1"));
  const b = queue.runOrJoin("doc2", async () => void ran.push("doc2"));
  running.resolve();
  await Promise.all([blocker, a, b]);
  assert.deepEqual(ran, ["doc1", "doc2"]);
});

void test("a task queued with run neither joins a waiting runOrJoin task nor is joined by a later one", async () => {
  const queue = new KeyedTaskQueue(1);
  const blocker = deferred();
  const order: string[] = [];
  const busy = queue.run("doc1", () => blocker.promise);
  const plain = queue.runOrJoin("doc1", async () => void order.push("plain"));
  const own = queue.run("doc1", async () => void order.push("own"));
  const later = queue.runOrJoin("doc1", async () => void order.push("later"));
  blocker.resolve();
  await Promise.all([busy, plain, own, later]);
  // The later task joined the plain one waiting before the own task; the own one ran alone.
  assert.deepEqual(order, ["plain", "own"]);
});

void test("abandon drops the tasks not started and any queued later, and lets the running ones finish", async () => {
  const queue = new KeyedTaskQueue(1);
  const held = deferred();
  const ran: string[] = [];
  const running = queue.run("doc1", async () => {
    await held.promise;
    ran.push("running");
  });
  const waitingSameKey = queue.run("doc1", async () => void ran.push("same key"));
  const waitingOtherKey = queue.runOrJoin("doc2", async () => void ran.push("other key"));
  queue.abandon("handed over");
  const later = queue.run("doc3", async () => void ran.push("later"));
  for (const dropped of [waitingSameKey, waitingOtherKey, later])
    await assert.rejects(dropped, (error: unknown) => error instanceof TaskAbandonedError);
  assert.equal(queue.pending, 1, "only the running task is left");
  held.resolve();
  await running;
  await queue.idle();
  assert.deepEqual(ran, ["running"]);
});
