import assert from "node:assert/strict";
import { test } from "node:test";
import { Double, Int32 } from "bson";
import { describeUpdate, isEmptyUpdate } from "../../../src/changestream/update-description.js";

const plain = { showExpandedEvents: false };
const fifty = Array.from({ length: 50 }, (_, i) => `c${i}`);

void test("a $push of one element onto an array of 50 is reported as the field arr.50", () => {
  const description = describeUpdate({ _id: 1, arr: fifty }, { _id: 1, arr: [...fifty, "new"] }, plain);
  assert.deepEqual(description, {
    updatedFields: { "arr.50": "new" },
    removedFields: [],
    truncatedArrays: [],
  });
});

void test("a shortened array is reported as truncated, with its changed elements updated", () => {
  const description = describeUpdate({ _id: 1, arr: [1, 2, 3, 4] }, { _id: 1, arr: [1, 9] }, plain);
  assert.deepEqual(description, {
    updatedFields: { "arr.1": 9 },
    removedFields: [],
    truncatedArrays: [{ field: "arr", newSize: 2 }],
  });
});

void test("a $pop of the last element is only a truncation", () => {
  const description = describeUpdate({ _id: 1, arr: [1, 2, 3] }, { _id: 1, arr: [1, 2] }, plain);
  assert.deepEqual(description.truncatedArrays, [{ field: "arr", newSize: 2 }]);
  assert.deepEqual(description.updatedFields, {});
});

void test("a nested change is reported with its dotted path", () => {
  const description = describeUpdate(
    { _id: 1, a: { b: { c: 1, d: 2 } } },
    { _id: 1, a: { b: { c: 5, d: 2 } } },
    plain,
  );
  assert.deepEqual(description.updatedFields, { "a.b.c": 5 });
});

void test("a change inside an array element is reported through the element's index", () => {
  const description = describeUpdate(
    { _id: 1, h: [{ q: 1 }, { q: 2 }] },
    { _id: 1, h: [{ q: 1 }, { q: 3 }] },
    plain,
  );
  assert.deepEqual(description.updatedFields, { "h.1.q": 3 });
});

void test("an unset field is reported in removedFields", () => {
  const description = describeUpdate({ _id: 1, a: 1, b: { c: 1, d: 1 } }, { _id: 1, b: { c: 1 } }, plain);
  assert.deepEqual(description.removedFields, ["a", "b.d"]);
  assert.deepEqual(description.updatedFields, {});
});

void test("a new field is reported whole in updatedFields", () => {
  const description = describeUpdate({ _id: 1 }, { _id: 1, has_extras: true, sub: { x: 1 } }, plain);
  assert.deepEqual(description.updatedFields, { has_extras: true, sub: { x: 1 } });
});

void test("a field whose type changes is updated even when the number is the same", () => {
  const description = describeUpdate({ _id: 1, n: new Int32(1) }, { _id: 1, n: new Double(1) }, plain);
  assert.deepEqual(Object.keys(description.updatedFields), ["n"]);
});

void test("an update that changed nothing is empty", () => {
  assert.ok(isEmptyUpdate(describeUpdate({ _id: 1, a: [1, { b: 2 }] }, { _id: 1, a: [1, { b: 2 }] }, plain)));
});

void test("with expanded events, paths through array indexes are disambiguated", () => {
  const description = describeUpdate(
    { _id: 1, arr: [1] },
    { _id: 1, arr: [1, 2] },
    { showExpandedEvents: true },
  );
  assert.deepEqual(description.disambiguatedPaths, { "arr.1": ["arr", 1] });
});
