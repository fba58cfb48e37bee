import assert from "node:assert/strict";
import { test } from "node:test";
import { serialize } from "bson";
import {
  copyFieldOrder,
  fieldEntries,
  fieldNames,
  isIntegerKey,
  orderedDocument,
  recordedOrder,
  removeField,
  setField,
} from "../../src/index.js";

const bytesOf = (doc: object): Buffer => Buffer.from(serialize(doc));
const bytesInOrder = (fields: [string, unknown][]): Buffer => bytesOf(new Map(fields));

void test("an ordered document serializes its fields in the order given", () => {
  const fields: [string, unknown][] = [
    ["b", 1],
    ["2", 2],
    ["1", 3],
  ];
  const doc = orderedDocument(fields);
  assert.deepEqual(fieldNames(doc), ["b", "2", "1"]);
  assert.deepEqual(fieldEntries(doc), fields);
  assert.deepEqual(bytesOf(doc), bytesInOrder(fields));
});

void test("a field named __proto__ stays a field of an ordered document", () => {
  const doc = orderedDocument([
    ["__proto__", 1],
    ["1", 2],
  ]);
  assert.deepEqual(fieldNames(doc), ["__proto__", "1"]);
  assert.equal(Object.getPrototypeOf(doc), Object.prototype);
});

void test("a name given twice keeps its first place and its last value", () => {
  const doc = orderedDocument([
    ["b", 1],
    ["1", 2],
    ["b", 3],
  ]);
  assert.deepEqual(fieldEntries(doc), [
    ["b", 3],
    ["1", 2],
  ]);
});

void test("the recorded order is only reported where it differs from the keys' order", () => {
  assert.deepEqual(
    recordedOrder(
      orderedDocument([
        ["b", 1],
        ["1", 2],
      ]),
    ),
    ["b", "1"],
  );
  assert.equal(
    recordedOrder(
      orderedDocument([
        ["1", 1],
        ["b", 2],
      ]),
    ),
    undefined,
  );
  assert.equal(recordedOrder({ b: 1, "1": 2 }), undefined);
});

void test("a field set on an ordered document goes last, one already there keeps its place", () => {
  const doc = orderedDocument([
    ["b", 1],
    ["2", 2],
  ]);
  setField(doc, "1", 3);
  setField(doc, "b", 4);
  assert.deepEqual(fieldEntries(doc), [
    ["b", 4],
    ["2", 2],
    ["1", 3],
  ]);
});

void test("an integer-like field set on a plain document goes last", () => {
  const doc: Record<string, unknown> = { b: 1 };
  setField(doc, "1", 2);
  assert.deepEqual(
    bytesOf(doc),
    bytesInOrder([
      ["b", 1],
      ["1", 2],
    ]),
  );
});

void test("a removed field leaves the others in their order, and no order once JS's is right", () => {
  const doc = orderedDocument([
    ["b", 1],
    ["2", 2],
    ["1", 3],
  ]);
  removeField(doc, "2");
  assert.deepEqual(fieldNames(doc), ["b", "1"]);
  removeField(doc, "b");
  assert.equal("toBSON" in doc, false);
  assert.deepEqual(bytesOf(doc), bytesInOrder([["1", 3]]));
});

void test("a copy of some fields takes the original's order", () => {
  const original = orderedDocument([
    ["c", 1],
    ["b", 2],
    ["1", 3],
  ]);
  const copy: Record<string, unknown> = { "1": 3, c: 1 };
  copyFieldOrder(original, copy);
  assert.deepEqual(fieldNames(copy), ["c", "1"]);
});

void test("integer-like keys are the canonical array indexes up to 2^32 - 2", () => {
  const integers = ["0", "7", "10", "4294967294"];
  const others = ["", "01", "-1", "1.5", "1e3", "4294967295", "99999999999", "a1"];
  assert.deepEqual(integers.filter(isIntegerKey), integers);
  assert.deepEqual(others.filter(isIntegerKey), []);
});
