import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { eitherSignal } from "../../../src/sessions/either-signal.js";

void test("aborts when either source aborts", () => {
  for (const which of [0, 1]) {
    const sources = [new AbortController(), new AbortController()];
    const either = eitherSignal(sources[0]!.signal, sources[1]!.signal);
    assert.equal(either.signal.aborted, false);
    sources[which]!.abort();
    assert.equal(either.signal.aborted, true, `source ${which}`);
  }
});

void test("is aborted at once when a source already is", () => {
  const aborted = AbortSignal.abort();
  assert.equal(eitherSignal(new AbortController().signal, aborted).signal.aborted, true);
  assert.equal(eitherSignal(aborted, new AbortController().signal).signal.aborted, true);
});

void test("released, it leaves nothing on its sources, however many operations came and went", () => {
  const connection = new AbortController();
  for (let i = 0; i < 1000; i++) eitherSignal(connection.signal, new AbortController().signal).release();
  assert.equal(getEventListeners(connection.signal, "abort").length, 0);
  const live = eitherSignal(connection.signal, new AbortController().signal);
  assert.equal(getEventListeners(connection.signal, "abort").length, 1);
  connection.abort();
  assert.equal(live.signal.aborted, true);
});
