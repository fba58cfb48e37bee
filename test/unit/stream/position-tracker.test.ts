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
