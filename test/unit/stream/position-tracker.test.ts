import { test } from "node:test";
import assert from "node:assert/strict";
import { PositionTracker } from "../../../src/stream/position/position-tracker.js";

void test("the safe token stays behind an event that is still in flight", () => {
  const tracker = new PositionTracker<string>();
  const first = tracker.begin("t1");
  const second = tracker.begin("t2");
  tracker.finish(second);
  assert.equal(tracker.safeToken, undefined);
  tracker.finish(first);
  assert.equal(tracker.safeToken, "t2");
});

void test("the safe token advances to the last event of the finished prefix", () => {
  const tracker = new PositionTracker<string>();
  const positions = ["t1", "t2", "t3", "t4"].map((token) => tracker.begin(token));
  tracker.finish(positions[0]!);
  tracker.finish(positions[1]!);
  tracker.finish(positions[3]!);
  assert.equal(tracker.safeToken, "t2");
  assert.equal(tracker.inFlight, 1);
});

void test("finishing a position twice is a programming error", () => {
  const tracker = new PositionTracker<string>();
  const position = tracker.begin("t1");
  tracker.finish(position);
  assert.throws(() => tracker.finish(position), /not in flight/);
});

/** Whether `promise` has settled after the microtasks queued so far ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

void test("reading waits while the unfinished events show the bytes' limit, until one finishes", async () => {
  const tracker = new PositionTracker<string>();
  const first = tracker.begin("t1", 600);
  tracker.begin("t2", 400);
  tracker.begin("t3");
  const below = tracker.whenHeldBelow(100, () => false, 1000);
  assert.equal(await settled(below), false, "1,000 bytes shown: at the limit");
  tracker.finish(first);
  assert.equal(await settled(below), true, "400 bytes shown once the first finished");
});

void test("an event that alone shows more than the limit is waited for, not refused", async () => {
  const tracker = new PositionTracker<string>();
  const large = tracker.begin("t1", 5000);
  const below = tracker.whenHeldBelow(100, () => false, 1000);
  assert.equal(await settled(below), false);
  tracker.finish(large);
  assert.equal(await settled(below), true);
});

void test("a dropped event frees its bytes but keeps holding the position back", async () => {
  const tracker = new PositionTracker<string>();
  const dropped = tracker.begin("t1", 1000);
  const next = tracker.begin("t2", 10);
  const below = tracker.whenHeldBelow(100, () => false, 1000);
  tracker.dropShown(dropped);
  assert.equal(await settled(below), true, "10 bytes shown once the first was dropped");
  tracker.finish(next);
  assert.equal(tracker.safeToken, undefined, "the dropped event is still unfinished");
  assert.equal(tracker.held, 2);
});
