import assert from "node:assert/strict";
import { test } from "node:test";
import { Binary, BSONRegExp, Decimal128, Int32, Long, ObjectId, serialize, Timestamp } from "bson";
import fc from "fast-check";
import { deepCopy, shallowCopy } from "../../../src/query/document-copy.js";
import { compareValues } from "../../../src/query/bson-order.js";
import { decodeDocument } from "../../../src/wire/document-decoder.js";

/** Field names JS would reorder ("0", "17", "4294967294") among names it keeps in place. */
const fieldName = fc.oneof(
  fc.constantFrom("a", "b", "_id", "01", "-1", "1.5", "4294967295", "4294967294"),
  fc.nat({ max: 40 }).map(String),
);

/** A document as js-bson serializes Maps: its fields in insertion order. */
const document = fc.letrec<{ doc: Map<string, unknown>; value: unknown }>((tie) => ({
  doc: fc
    .uniqueArray(fc.tuple(fieldName, tie("value")), { selector: ([name]) => name, maxLength: 6 })
    .map((fields) => new Map(fields)),
  value: fc.oneof(
    { depthSize: "small" },
    fc.integer().map((n) => new Int32(n | 0)),
    fc.string(),
    fc.constantFrom(
      null,
      true,
      Long.fromNumber(7),
      new Decimal128("1.5"),
      new ObjectId("64b7f0c2a1b2c3d4e5f60718"),
      new Timestamp({ t: 1, i: 2 }),
      new Binary(Buffer.from("ab")),
      new BSONRegExp("x", "i"),
      new Date(0),
    ),
    tie("doc"),
    fc.array(tie("value"), { maxLength: 3 }),
  ),
}));

const bytesOf = (doc: object): Buffer => Buffer.from(serialize(doc));

void test("a decoded document serializes to the bytes it was decoded from, whatever its field names", () => {
  fc.assert(
    fc.property(document.doc, (doc) => {
      const sent = bytesOf(doc);
      assert.deepEqual(bytesOf(decodeDocument(sent)), sent);
    }),
  );
});

void test("copies of a decoded document keep its field order", () => {
  fc.assert(
    fc.property(document.doc, (doc) => {
      const sent = bytesOf(doc);
      const decoded = decodeDocument(sent);
      assert.deepEqual(bytesOf(deepCopy(decoded)), sent);
      assert.deepEqual(bytesOf(shallowCopy(decoded)), sent);
    }),
  );
});

void test("documents with the same fields in different orders compare unequal", () => {
  const first = decodeDocument(
    bytesOf(
      new Map([
        [
          "v",
          new Map([
            ["b", 1],
            ["1", 1],
          ]),
        ],
      ]),
    ),
  ).v as unknown;
  const second = decodeDocument(
    bytesOf(
      new Map([
        [
          "v",
          new Map([
            ["1", 1],
            ["b", 1],
          ]),
        ],
      ]),
    ),
  ).v as unknown;
  assert.notEqual(compareValues(first, second), 0);
  assert.equal(compareValues(first, deepCopy(first)), 0);
});
