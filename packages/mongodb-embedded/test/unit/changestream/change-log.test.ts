import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { Timestamp } from "bson";
import { ChangeLog } from "../../../src/changestream/change-log.js";
import { insertRecord } from "./fixtures.js";

const AN_HOUR_MS = 3_600_000;
// A wait that missed its signal would last the hour: the test's timeout fails it instead.
const FAILS_INSTEAD_OF_WAITING = { timeout: 10_000 };

function pending(promise: Promise<void>): () => boolean {
  let settled = false;
  void promise.then(() => (settled = true));
  return () => !settled;
}

void test(
  "a wait for an append ends when any of its signals aborts: the connection's or the session's",
  FAILS_INSTEAD_OF_WAITING,
  async () => {
    for (const which of [0, 1]) {
      const log = new ChangeLog({ historyLimit: 10 });
      const sources = [new AbortController(), new AbortController()];
      const waiting = log.waitForAppend([sources[0]!.signal, sources[1]!.signal], AN_HOUR_MS);
      const stillWaiting = pending(waiting);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(stillWaiting(), true);
      sources[which]!.abort();
      await waiting;
    }
  },
);

void test(
  "a wait for an append ends at once when one of its signals has aborted already",
  FAILS_INSTEAD_OF_WAITING,
  async () => {
    const log = new ChangeLog({ historyLimit: 10 });
    await log.waitForAppend([new AbortController().signal, AbortSignal.abort()], AN_HOUR_MS);
    await log.waitForAppend([AbortSignal.abort(), new AbortController().signal], AN_HOUR_MS);
  },
);

void test(
  "waits that ended leave nothing on a connection's signal, however many came and went",
  FAILS_INSTEAD_OF_WAITING,
  async () => {
    const log = new ChangeLog({ historyLimit: 10 });
    const connection = new AbortController();
    for (let i = 0; i < 100; i++) {
      const waiting = log.waitForAppend([connection.signal, new AbortController().signal], AN_HOUR_MS);
      log.append([insertRecord("db", "c", { _id: i })], new Timestamp({ t: 1, i: i + 1 }), new Date());
      await waiting;
    }
    assert.equal(getEventListeners(connection.signal, "abort").length, 0);
    const live = log.waitForAppend([connection.signal], AN_HOUR_MS);
    assert.equal(getEventListeners(connection.signal, "abort").length, 1);
    connection.abort();
    await live;
  },
);
