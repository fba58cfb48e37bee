// The event consumer on a real change stream: events keep being read and corrected while the
// position's write is in flight, and stopping waits for that write before storing the last
// position; an idle stream's position is written at its own, slower pace; a correction another
// event of its book joins runs without what its own event showed; a product's correction waits
// for the writes of it that follow (settleMs); a replica corrects only the targets it owns; a
// hand-over drops the corrections not started and stores a position before them. Corrections
// and the token store are the consumer's own seams; the stream is the driver's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import type { Db, Document } from "mongodb";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { createMetrics } from "../../../../src/ops/metrics.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { currentClusterTime } from "../../../../src/stream/position/cluster-time.js";
import type { PatternRule } from "../../../../src/patterns/driver.js";
import { consumeEvents, type EventConsumerOptions } from "../../../../src/stream/events/event-consumer.js";
import type { ProjectedChangeEvent } from "../../../../src/stream/events/targets.js";
import {
  buildWatchPipeline,
  MAX_SHOWN_BYTES,
  watchOptions,
} from "../../../../src/stream/events/watch-pipeline.js";
import { deferred } from "../../../support/deferred.js";
import { metricTotal, review, testConfig } from "../../../support/harness.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { numbersByValue } from "../../../../src/patterns/bson/bson-value.js";

const fixture = useTestDatabase("event_consumer");

/** Longer than the stream's getMore wait (100 ms): the consumer has seen the stop by then. */
const STOP_NOTICED_MS = 500;

/** A book with 51 purchasers: its insert event needs a correction (the outlier threshold is 50). */
const overfullBook = (id: number) => ({
  _id: id,
  customers_purchased: Array.from({ length: 51 }, (_, i) => `user${i}`),
});

/** The sidecar's stream of `db`, from now, however late the consumer's first getMore opens it. */
async function watchFromNow(db: Db, rules: readonly PatternRule[]) {
  return db.watch<Document, ProjectedChangeEvent>(buildWatchPipeline(rules), {
    ...watchOptions(rules),
    startAtOperationTime: await currentClusterTime(db),
    maxAwaitTimeMS: 100,
  });
}

/** The consumer's options: the test's own, with every other seam doing nothing. */
function consumerOptions(
  own: Pick<EventConsumerOptions, "stream" | "rules" | "inFlight" | "correct" | "shouldContinue"> &
    Partial<EventConsumerOptions>,
): EventConsumerOptions {
  return {
    tokens: { persistResumeToken: () => Promise.resolve() },
    metrics: createMetrics(),
    logger: createLogger({ level: "silent" }),
    isOwnWrite: () => false,
    onCaughtUp: () => {},
    onEventProcessed: () => {},
    onNamespaceEvent: () => Promise.resolve(),
    persistIntervalMs: 0,
    idlePersistIntervalMs: 0,
    ...own,
  };
}

/**
 * A consumer of `db`'s stream from now on, with the test's options. `stopReading` tells it
 * to stop; `stop` also waits for it to finish, closes the stream and returns the stream's
 * last token.
 */
async function startConsumer(
  db: Db,
  own: Pick<EventConsumerOptions, "correct"> & Partial<EventConsumerOptions>,
): Promise<{ stopReading: () => void; stop: () => Promise<unknown> }> {
  const { rules } = testConfig(db.databaseName);
  const stream = await watchFromNow(db, rules);
  let stopped = false;
  const consuming = consumeEvents(
    consumerOptions({ stream, rules, inFlight: 8, shouldContinue: () => !stopped, ...own }),
  );
  return {
    stopReading: () => void (stopped = true),
    async stop() {
      stopped = true;
      await consuming;
      const token = stream.resumeToken;
      await stream.close();
      return token;
    },
  };
}

void test("events are read and corrected while the position's write is in flight, which a stop waits for", async () => {
  const { db } = fixture;
  const corrected: unknown[] = [];
  const persisted: Document[] = [];
  let writesStarted = 0;
  const firstWrite = deferred();
  let newestToken: unknown;
  const consumer = await startConsumer(db, {
    tokens: {
      async persistResumeToken(token) {
        writesStarted += 1;
        if (writesStarted === 1) await firstWrite.promise;
        persisted.push(token);
      },
    },
    correct: (target) => {
      corrected.push(numbersByValue(target.id)); // read verbatim: an Int32
      return Promise.resolve({ outcome: "none" });
    },
  });
  try {
    await db.collection<{ _id: number }>("sales").insertOne(overfullBook(1));
    await waitUntil(() => corrected.length === 1, { timeoutMs: 10_000, description: "book 1 corrected" });
    await waitUntil(() => writesStarted === 1, {
      timeoutMs: 10_000,
      description: "the position's first write",
    });
    await db.collection<{ _id: number }>("sales").insertOne(overfullBook(2));
    await waitUntil(() => corrected.length === 2, {
      timeoutMs: 10_000,
      description: "book 2 corrected while the first position's write waits",
    });
    assert.deepEqual(corrected, [1, 2]);
    assert.equal(persisted.length, 0, "the first position's write is still waiting");
    assert.equal(writesStarted, 1, "no second write while the first is in flight");
    consumer.stopReading();
    await delay(STOP_NOTICED_MS);
    assert.equal(writesStarted, 1, "the stop's own write waits for the one in flight");
  } finally {
    firstWrite.resolve();
    newestToken = await consumer.stop();
  }
  assert.ok(
    persisted.length >= 2,
    `the waiting write and the stop's own, in that order (${persisted.length})`,
  );
  assert.deepEqual(persisted.at(-1), newestToken, "the newest position is stored last");
});

void test("a correction a later event of its book joined runs without what the first event showed", async () => {
  const { db } = fixture;
  const sales = db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  for (const id of [11, 12, 13]) await sales.insertOne({ ...overfullBook(id), customers_purchased: [] });
  for (const id of [11, 12, 13])
    await sales.updateOne(
      { _id: id },
      { $push: { customers_purchased: { $each: overfullBook(id).customers_purchased.slice(0, 50) } } },
    );
  const metrics = createMetrics();
  const received = new Map<unknown, Document | undefined>();
  const firstHeld = deferred();
  const consumer = await startConsumer(db, {
    inFlight: 1, // book 11's correction holds the only slot while the others queue
    metrics,
    correct: async (target) => {
      received.set(numbersByValue(target.id), target.shown);
      if (numbersByValue(target.id) === 11) await firstHeld.promise;
      return { outcome: "none" };
    },
  });
  const eventsReceived = async () =>
    (await metrics.eventsReceived.get()).values.reduce((sum, { value }) => sum + value, 0);
  try {
    await sales.updateOne({ _id: 11 }, { $push: { customers_purchased: "a" } });
    await waitUntil(() => received.has(11), {
      timeoutMs: 10_000,
      description: "book 11's correction started",
    });
    await sales.updateOne({ _id: 12 }, { $push: { customers_purchased: "b" } });
    await sales.updateOne({ _id: 12 }, { $push: { customers_purchased: "c" } });
    await sales.updateOne({ _id: 13 }, { $push: { customers_purchased: "d" } });
    await waitUntil(async () => (await eventsReceived()) === 4, {
      timeoutMs: 10_000,
      description: "the four pushes read while book 11's correction holds the slot",
    });
    firstHeld.resolve();
    await waitUntil(() => received.size === 3, {
      timeoutMs: 10_000,
      description: "books 12 and 13 corrected",
    });
  } finally {
    firstHeld.resolve();
    await consumer.stop();
  }
  assert.deepEqual(received.get(11), { appended: ["a"] });
  assert.equal(
    received.get(12),
    undefined,
    "book 12's second push joined its first: the first no longer tells all",
  );
  assert.deepEqual(received.get(13), { appended: ["d"] }, "a push nothing joined keeps what it showed");
});

void test("a product's correction starts once a write of it read while it waited has settled too", async () => {
  const { db } = fixture;
  const products = db.collection<{ _id: number; reviews: Document[] }>("products");
  // Counted where the consumer looks at each event: the stream may start with a book's.
  let productEventsRead = 0;
  const firstRead = deferred();
  const readWhenStarted: number[] = [];
  let unsettledRuns = 0;
  const consumer = await startConsumer(db, {
    isOwnWrite: (event) => {
      if (event.ns?.coll !== "products") return false;
      productEventsRead += 1;
      firstRead.resolve();
      return false;
    },
    correct: (target) => {
      // The correction before the wait (unsettled) runs at once; the one after it waits.
      if (target.collection === "products" && !target.unsettled) readWhenStarted.push(productEventsRead);
      if (target.collection === "products" && target.unsettled) unsettledRuns += 1;
      return Promise.resolve({ outcome: "none" });
    },
  });
  try {
    await products.insertOne({ _id: 1, reviews: [] });
    await firstRead.promise;
    // Well within the subset rule's settleMs (1000) of the insert.
    await products.updateOne({ _id: 1 }, { $push: { reviews: review(1, new Date()) } });
    await waitUntil(() => readWhenStarted.length > 0, {
      timeoutMs: 10_000,
      description: "the product's correction started",
    });
  } finally {
    await consumer.stop();
  }
  assert.equal(readWhenStarted[0], 2, "the push was read before the insert's correction started");
  assert.ok(unsettledRuns > 0, "a correction ran before the wait, marked unsettled");
});

/** A token store that keeps what it is given, failing the writes `fails` picks (by attempt, from 1). */
function recordingTokens(fails: (attempt: number) => boolean = () => false) {
  const persisted: Document[] = [];
  let attempts = 0;
  const tokens: EventConsumerOptions["tokens"] = {
    persistResumeToken(token) {
      attempts += 1;
      if (fails(attempts)) return Promise.reject(new Error("the state collection refused the write"));
      persisted.push(token);
      return Promise.resolve();
    },
  };
  return { tokens, persisted, attempts: () => attempts };
}

/**
 * Runs a consumer of `db`'s stream while `work` runs; the application meanwhile writes to a
 * collection no rule watches, so that the stream idles while its post-batch token moves on
 * (as each write of the position moves it on mongod).
 */
async function consumeWhile(
  db: Db,
  options: Pick<EventConsumerOptions, "persistIntervalMs" | "idlePersistIntervalMs" | "tokens">,
  work: () => Promise<void>,
): Promise<void> {
  const consumer = await startConsumer(db, {
    ...options,
    correct: () => Promise.resolve({ outcome: "none" }),
  });
  const unwatched = setInterval(() => void db.collection("unwatched").insertOne({ at: new Date() }), 20);
  try {
    await work();
  } finally {
    clearInterval(unwatched);
    await consumer.stop();
  }
}

void test("an idle stream's position is written once per idle interval, however often its post-batch token moves", async () => {
  const { db } = fixture;
  const { tokens, persisted } = recordingTokens();
  await consumeWhile(db, { persistIntervalMs: 0, idlePersistIntervalMs: 60_000, tokens }, async () => {
    await waitUntil(() => persisted.length === 1, { timeoutMs: 10_000, description: "the first position" });
    // Many getMores, each with a newer post-batch token (the unwatched inserts), no event.
    await delay(STOP_NOTICED_MS * 2);
    assert.equal(persisted.length, 1, "no second write within the idle interval");
    // An event processed: its position is written at the busy interval (0 here), at once.
    await db.collection<{ _id: number }>("sales").insertOne(overfullBook(101));
    await waitUntil(() => persisted.length === 2, { timeoutMs: 10_000, description: "the event's position" });
  });
});

void test("an idle stream's position keeps up with its post-batch token at the idle interval", async () => {
  const { db } = fixture;
  const { tokens, persisted } = recordingTokens();
  await consumeWhile(db, { persistIntervalMs: 0, idlePersistIntervalMs: 100, tokens }, async () => {
    await waitUntil(() => new Set(persisted.map((token) => JSON.stringify(token))).size >= 3, {
      timeoutMs: 10_000,
      description: "three different idle positions written",
    });
  });
});

void test("a failed write of an event's position is tried again at the busy interval, not the idle one", async () => {
  const { db } = fixture;
  const { tokens, persisted, attempts } = recordingTokens((attempt) => attempt === 2);
  await consumeWhile(db, { persistIntervalMs: 0, idlePersistIntervalMs: 60_000, tokens }, async () => {
    await waitUntil(() => attempts() === 1, { timeoutMs: 10_000, description: "the first position" });
    await db.collection<{ _id: number }>("sales").insertOne(overfullBook(102));
    await waitUntil(() => persisted.length === 2, {
      timeoutMs: 10_000,
      description: "the event's position, written after its first write failed",
    });
    assert.equal(attempts(), 3);
  });
});

void test("a replica corrects only the targets it owns; an event's others are left to their owners", async () => {
  const { db } = fixture;
  const corrected: unknown[] = [];
  const consumer = await startConsumer(db, {
    correct: (target) => {
      corrected.push(numbersByValue(target.id));
      return Promise.resolve({ outcome: "none" });
    },
    owns: (target) => numbersByValue(target.id) !== 22,
  });
  try {
    const books = db.collection<{ _id: number }>("sales");
    for (const id of [21, 22, 23]) await books.insertOne(overfullBook(id));
    // Events are dispatched in order: once book 23 is corrected, book 22's event was read.
    await waitUntil(() => corrected.includes(23), { timeoutMs: 10_000, description: "book 23 corrected" });
    assert.deepEqual(corrected, [21, 23]);
  } finally {
    await consumer.stop();
  }
});

void test("an event that names two documents of one rule counts once as received and once as acted on", async () => {
  const { db } = fixture;
  const metrics = createMetrics();
  const roles: string[] = [];
  const consumer = await startConsumer(db, {
    metrics,
    correct: (target) => {
      roles.push(target.role);
      return Promise.resolve({ outcome: "writes", kind: "deleted", writes: [], elementsMoved: 0 });
    },
  });
  // Other tests' events may reach this stream: only the subset rule's are counted here.
  const subset = { rule: testConfig(db.databaseName).rules.find((rule) => rule.pattern === "subset")!.name };
  const reviews = db.collection<{ _id: number; product_id: number }>("reviews");
  try {
    await reviews.insertOne({ _id: 31, ...review(1, new Date()), product_id: 1 });
    // Moved to product 2 without a pre-image: product 2 takes it, and product 1 may still embed it.
    await reviews.updateOne({ _id: 31 }, { $set: { product_id: 2 } });
    await waitUntil(() => roles.includes("moved-entry"), {
      timeoutMs: 10_000,
      description: "the move's corrections",
    });
  } finally {
    // Waits for every correction in flight, and counts what they acted on.
    await consumer.stop();
  }
  assert.equal(await metricTotal(metrics.eventsReceived, subset), 2, "two events: the insert and the move");
  assert.equal(await metricTotal(metrics.eventsActedOn, subset), 2, "each led to corrections");
});

void test("a hand-over drops the corrections not started, and the position stays before their events", async () => {
  const { db } = fixture;
  const sales = db.collection<{ _id: number }>("sales");
  const corrected: unknown[] = [];
  const persisted: Document[] = [];
  const firstHeld = deferred();
  const handOver = new AbortController();
  const consumer = await startConsumer(db, {
    inFlight: 1, // book 41's correction holds the only slot while 42 and 43 queue
    handOver: handOver.signal,
    tokens: { persistResumeToken: (token) => Promise.resolve(void persisted.push(token)) },
    correct: async (target) => {
      corrected.push(numbersByValue(target.id));
      if (numbersByValue(target.id) === 41) await firstHeld.promise;
      return { outcome: "none" };
    },
  });
  try {
    for (const id of [41, 42, 43]) await sales.insertOne(overfullBook(id));
    await waitUntil(() => corrected.includes(41), { timeoutMs: 10_000, description: "book 41's correction" });
    consumer.stopReading();
    handOver.abort();
    firstHeld.resolve();
  } finally {
    firstHeld.resolve();
    await consumer.stop();
  }
  assert.deepEqual(
    corrected.slice(corrected.indexOf(41)),
    [41],
    "the running correction committed, the queued ones were dropped",
  );
  assert.ok(persisted.length > 0, "a position was stored");
  // Whoever streams next, from the stored position, reads the dropped books' events again.
  const next = db.watch([{ $match: { "ns.coll": "sales" } }], { startAfter: persisted.at(-1) });
  try {
    const ids: unknown[] = [];
    while (ids.length < 2) {
      const event = await next.next();
      if ("documentKey" in event) ids.push(event.documentKey._id);
    }
    assert.deepEqual(ids, [42, 43]);
  } finally {
    await next.close();
  }
});

/** Books 50 purchasers long, whose next push passes the threshold and shows what it pushed. */
async function fullBooks(db: Db, ids: readonly number[]) {
  const sales = db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  for (const id of ids)
    await sales.insertOne({
      _id: id,
      customers_purchased: overfullBook(id).customers_purchased.slice(0, 50),
    });
  return (id: number, bytes: number) =>
    sales.updateOne({ _id: id }, { $push: { customers_purchased: "x".repeat(bytes) } });
}

void test("the stream is read no further while what unfinished events show reaches the bytes' limit", async () => {
  const { db } = fixture;
  const push = await fullBooks(db, [61, 62, 63, 64]);
  const started: unknown[] = [];
  const held = deferred();
  const consumer = await startConsumer(db, {
    readAheadBytes: 2_000, // one pushed entry of 1,500 bytes fits; with a second, the limit is reached
    correct: async (target) => {
      started.push(numbersByValue(target.id));
      await held.promise;
      return { outcome: "none" };
    },
  });
  try {
    for (const id of [61, 62, 63, 64]) await push(id, 1_500);
    await waitUntil(() => started.length === 2, {
      timeoutMs: 10_000,
      description: "two corrections started",
    });
    await delay(STOP_NOTICED_MS);
    assert.deepEqual(started, [61, 62], "books 63 and 64 are not read while 61 and 62 show 3,000 bytes");
    held.resolve();
    await waitUntil(() => started.length === 4, { timeoutMs: 10_000, description: "every book corrected" });
  } finally {
    held.resolve();
    await consumer.stop();
  }
});

void test("at the default limit, sixteen pushes near the shown maximum are read ahead, and one past it shows nothing", async () => {
  const { db } = fixture;
  const books = Array.from({ length: 20 }, (_, i) => 81 + i);
  const push = await fullBooks(db, [80, ...books]);
  const started: unknown[] = [];
  const held = deferred();
  const consumer = await startConsumer(db, {
    inFlight: 32, // every correction read starts, so that the started ones are the ones read
    correct: async (target) => {
      started.push(numbersByValue(target.id));
      await held.promise;
      return { outcome: "none" };
    },
  });
  try {
    // Past MAX_SHOWN_BYTES the event names only the book: it counts nothing.
    await push(80, MAX_SHOWN_BYTES + 1_000);
    // Each shows a little under 1 MB: sixteen stay below the 16 MiB default, the seventeenth reaches it.
    for (const id of books) await push(id, 1_000_000);
    await waitUntil(() => started.length === 18, {
      timeoutMs: 20_000,
      description: "18 corrections started",
    });
    await delay(STOP_NOTICED_MS);
    assert.deepEqual(started, [80, ...books.slice(0, 17)], "the last three books wait");
    held.resolve();
    await waitUntil(() => started.length === 21, { timeoutMs: 20_000, description: "every book corrected" });
  } finally {
    held.resolve();
    await consumer.stop();
  }
});

void test("a hand-over while the bytes' limit holds the stream back drops what waits and ends", async () => {
  const { db } = fixture;
  const push = await fullBooks(db, [71, 72]);
  const started: unknown[] = [];
  const firstHeld = deferred();
  const handOver = new AbortController();
  const consumer = await startConsumer(db, {
    inFlight: 1, // book 71's correction holds the only slot while 72's waits
    readAheadBytes: 2_000,
    handOver: handOver.signal,
    correct: async (target) => {
      started.push(numbersByValue(target.id));
      if (numbersByValue(target.id) === 71) await firstHeld.promise;
      return { outcome: "none" };
    },
  });
  let stopped: Promise<unknown> | undefined;
  try {
    await push(71, 500);
    await push(72, 2_500); // alone past the limit: only its drop lets the consumer go on
    await waitUntil(() => started.includes(71), { timeoutMs: 10_000, description: "book 71's correction" });
    await delay(STOP_NOTICED_MS);
    consumer.stopReading();
    handOver.abort();
    firstHeld.resolve();
    stopped = consumer.stop();
    const ended = await Promise.race([stopped.then(() => true), delay(5_000).then(() => false)]);
    assert.ok(ended, "the consumer ended after the hand-over");
    assert.deepEqual(started, [71], "book 72's correction was dropped, not started");
  } finally {
    firstHeld.resolve();
    // A consumer that never ends must fail the test, not hang the suite.
    await Promise.race([stopped ?? consumer.stop(), delay(5_000)]);
  }
});
