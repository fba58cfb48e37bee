import { test } from "node:test";
import assert from "node:assert/strict";
import { extended } from "../../../../src/patterns/bson/extended.js";

void test("extended gives the keys of both, in order, the extra's value winning, as a spread would", () => {
  const base = { rule: "r", collection: "c", due: false };
  const extra = { due: true, key: 7 };
  const result = extended(base, extra);
  assert.deepEqual(result, { ...base, ...extra });
  assert.deepEqual(Object.keys(result), ["rule", "collection", "due", "key"]);
});

void test("extended leaves both of its arguments as they were", () => {
  const base = { a: 1 };
  const extra = { b: 2 };
  const result = extended(base, extra);
  assert.notEqual(result, base);
  assert.deepEqual(base, { a: 1 });
  assert.deepEqual(extra, { b: 2 });
});
