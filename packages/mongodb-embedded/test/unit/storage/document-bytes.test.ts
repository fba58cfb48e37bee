import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Double, Int32, Long, ObjectId, serialize, type Document } from "bson";
import fc from "fast-check";
import { bsonSize, withAppendedField } from "../../../src/query/bson-size.js";
import { sameBsonBytes } from "../../../src/storage/document-bytes.js";

// A small domain, so that independently drawn documents often serialize alike: values that
// look different in JS but not in BSON (1 and Int32(1), an undefined field and none, 0 and -0).
const { document, value } = fc.letrec((tie) => ({
  scalar: fc.constantFrom<unknown>(
    0,
    -0,
    1,
    1.5,
    2 ** 40,
    NaN,
    undefined,
    null,
    "",
    "a",
    "é",
    true,
    new Int32(0),
    new Int32(1),
    new Double(1),
    new Double(-0),
    Long.fromNumber(1),
    new ObjectId("000000000000000000000001"),
    new Date(0),
  ),
  value: fc.oneof(
    { depthSize: "small" },
    tie("scalar"),
    fc.array(tie("value"), { maxLength: 3 }),
    tie("document"),
  ),
  document: fc.dictionary(fc.constantFrom("a", "b"), tie("value"), { maxKeys: 2 }),
}));

const bytesEqual = (a: Document, b: Document) => Buffer.from(serialize(a)).equals(serialize(b));

void describe("document bytes", () => {
  void it("sizes a document as many bytes as it serializes to", () => {
    fc.assert(fc.property(document, (doc) => bsonSize(doc) === serialize(doc).length));
  });

  void it("sizes a document with an appended field as many bytes as it serializes to", () => {
    // Up to 12 joined documents (two-digit indexes), some measured before (a stored version
    // is), and arrays of other values, measured whole.
    const measuredFirst = ([joined, measured]: [Document, boolean]) => {
      if (measured) bsonSize(joined);
      return joined;
    };
    const joinedDocuments = fc
      .array(fc.tuple(document, fc.boolean()), { maxLength: 12, size: "max" })
      .map((pairs) => pairs.map(measuredFirst));
    const joinedValues = fc.oneof(joinedDocuments, fc.array(value, { maxLength: 12 }));
    fc.assert(
      fc.property(document, joinedValues, (doc, joined) => {
        const base = { _id: 1, ...doc };
        bsonSize(base);
        return (
          bsonSize(withAppendedField(base, "jöined", joined)) ===
          serialize({ ...base, jöined: joined }).length
        );
      }),
      { numRuns: 1000 },
    );
  });

  void it("calls two documents the same exactly when they serialize to the same bytes", () => {
    fc.assert(
      fc.property(document, document, (a, b) => sameBsonBytes(a, b) === bytesEqual(a, b)),
      { numRuns: 2000 },
    );
  });

  void it("calls a document the same as its copy with numbers in another JS form but equal bytes", () => {
    const before = { _id: new Int32(1), n: new Int32(5), list: ["a", new Int32(2)] };
    assert.equal(sameBsonBytes(before, { _id: 1, n: 5, list: ["a", 2] }), true);
    assert.equal(sameBsonBytes(before, { _id: 1, n: 5, list: ["a", 2], gone: undefined }), true);
  });

  void it("tells apart documents that differ only in a number's type or in field order", () => {
    assert.equal(sameBsonBytes({ _id: 1, n: new Int32(1) }, { _id: 1, n: new Double(1) }), false);
    assert.equal(sameBsonBytes({ _id: 1, n: 0 }, { _id: 1, n: -0 }), false);
    assert.equal(sameBsonBytes({ _id: 1, a: 1, b: 2 }, { _id: 1, b: 2, a: 1 }), false);
    assert.equal(sameBsonBytes({ _id: 1, n: new Int32(1) }, { _id: 1, n: new Int32(2) }), false);
  });
});
