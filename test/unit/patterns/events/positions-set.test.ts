import { test } from "node:test";
import assert from "node:assert/strict";
import { setPastThreshold } from "../../../../src/patterns/events/positions-set.js";

const set = (...keys: string[]) => new Map(keys.map((key) => [key, {}]));

void test("an entry set at the threshold's index shows the array past the threshold", () => {
  assert.equal(setPastThreshold(set("history.10"), "history", 10), true);
  assert.equal(setPastThreshold(set("history.3", "history.25"), "history", 10), true);
});

void test("entries set within the threshold, or of another field, show nothing past it", () => {
  assert.equal(setPastThreshold(set("history.9"), "history", 10), false);
  assert.equal(setPastThreshold(set("historyOld.12", "reviews.10"), "history", 10), false);
  assert.equal(setPastThreshold(undefined, "history", 10), false);
});
