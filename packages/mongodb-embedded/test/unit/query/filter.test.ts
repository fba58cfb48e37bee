import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Binary, Decimal128, Double, Int32, Long, ObjectId } from "bson";
import { ServerError } from "../../../src/errors.js";
import { compileFilter, matchesFilter } from "../../../src/query/index.js";

const badValue = (error: unknown) => error instanceof ServerError && error.code === 2;

void describe("matchesFilter: equality and comparison", () => {
  void it("matches a number stored as Int32 or Long with a plain number", () => {
    assert.ok(matchesFilter({ n: new Int32(5) }, { n: 5 }));
    assert.ok(matchesFilter({ n: Long.fromNumber(5) }, { n: { $in: [1, 5.0] } }));
  });

  void it("matches $in by BSON equality whether an item is looked up in a set or compared", () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => i);
    assert.ok(matchesFilter({ _id: 9_999 }, { _id: { $in: ids } }));
    assert.equal(matchesFilter({ _id: 10_000 }, { _id: { $in: ids } }), false);
    assert.ok(matchesFilter({ n: new Int32(3) }, { n: { $in: ids } }));
    assert.ok(matchesFilter({ n: 3 }, { n: { $in: [new Int32(3), new Double(4)] } }));
    assert.ok(matchesFilter({ n: new Double(4) }, { n: { $in: [Long.fromNumber(4)] } }));
    assert.ok(
      matchesFilter(
        { n: Long.fromString("9007199254740993") },
        { n: { $in: [Long.fromString("9007199254740993")] } },
      ),
    );
    assert.equal(
      matchesFilter({ n: Long.fromString("9007199254740993") }, { n: { $in: [9007199254740992] } }),
      false,
    );
    assert.ok(matchesFilter({ n: Decimal128.fromString("2.0") }, { n: { $in: [2] } }));
    assert.ok(matchesFilter({ n: 7 }, { n: { $in: ["7", Long.fromNumber(7)] } }));
    assert.ok(matchesFilter({ n: -0 }, { n: { $in: [0] } }));
    assert.ok(matchesFilter({ n: NaN }, { n: { $in: [1, NaN] } }));
    assert.ok(matchesFilter({ s: "b" }, { s: { $in: ["a", "b"] } }));
    assert.equal(matchesFilter({ s: "5" }, { s: { $in: [5] } }), false);
    assert.ok(matchesFilter({ tags: ["x", "b"] }, { tags: { $in: ["b"] } }));
    assert.ok(matchesFilter({}, { missing: { $in: [1, null] } }));
  });

  void it("matches $in and $nin of binary data and ObjectIds by their bytes, a binary's subtype too", () => {
    const sessions = Array.from({ length: 40 }, (_, i) => new Binary(Buffer.alloc(16, i), 4));
    const session = new Binary(Buffer.alloc(16, 39), 4);
    assert.ok(matchesFilter({ lsid: { id: session } }, { "lsid.id": { $in: sessions } }));
    assert.equal(matchesFilter({ lsid: { id: session } }, { "lsid.id": { $nin: sessions } }), false);
    const otherSubtype = new Binary(Buffer.alloc(16, 39), 0);
    assert.equal(matchesFilter({ lsid: { id: otherSubtype } }, { "lsid.id": { $in: sessions } }), false);
    assert.ok(matchesFilter({ ns: "outside a transaction" }, { "lsid.id": { $nin: sessions } }));
    assert.equal(matchesFilter({}, { "lsid.id": { $in: [...sessions, null] } }), true);
    const id = new ObjectId();
    assert.ok(matchesFilter({ _id: new ObjectId(id.toHexString()) }, { _id: { $in: [new ObjectId(), id] } }));
    assert.equal(matchesFilter({ _id: id.toHexString() }, { _id: { $in: [id] } }), false);
    assert.ok(
      matchesFilter({ s: "ab" }, { s: { $in: [session, /^a/] } }),
      "a regex item still tests strings",
    );
  });

  void it("matches an array field when any element equals the value", () => {
    assert.ok(matchesFilter({ tags: ["a", "b"] }, { tags: "b" }));
  });

  void it("matches an array field equal to the whole array", () => {
    assert.ok(matchesFilter({ tags: ["a", "b"] }, { tags: ["a", "b"] }));
    assert.equal(matchesFilter({ tags: ["a", "b"] }, { tags: ["b", "a"] }), false);
  });

  void it("matches null against a missing field", () => {
    assert.ok(matchesFilter({ a: 1 }, { b: null }));
    assert.equal(matchesFilter({ a: 1 }, { a: null }), false);
  });

  void it("never compares values of different types with $gt (type bracketing)", () => {
    assert.equal(matchesFilter({ a: "z" }, { a: { $gt: 5 } }), false);
    assert.ok(matchesFilter({ a: 6 }, { a: { $gt: 5 } }));
  });

  void it("applies each operator of a field to any array element independently", () => {
    assert.ok(matchesFilter({ a: [1, 10] }, { a: { $gt: 5, $lt: 2 } }));
    assert.equal(matchesFilter({ a: [1, 10] }, { a: { $elemMatch: { $gt: 5, $lt: 2 } } }), false);
  });

  void it("compares ObjectIds by value", () => {
    const id = new ObjectId();
    assert.ok(matchesFilter({ _id: id }, { _id: new ObjectId(id.toHexString()) }));
  });

  void it("treats $ne and $nin as negations over every array element", () => {
    assert.equal(matchesFilter({ a: [1, 2] }, { a: { $ne: 2 } }), false);
    assert.ok(matchesFilter({ a: [1, 2] }, { a: { $nin: [3] } }));
    assert.ok(matchesFilter({}, { a: { $ne: 2 } }));
  });
});

void describe("matchesFilter: paths", () => {
  void it("reaches fields of documents inside arrays through a dotted path", () => {
    assert.ok(matchesFilter({ items: [{ q: 1 }, { q: 7 }] }, { "items.q": 7 }));
  });

  void it("uses a numeric path component as an array index", () => {
    assert.ok(matchesFilter({ a: [5, 6] }, { "a.1": 6 }));
    assert.equal(matchesFilter({ a: [5, 6] }, { "a.0": 6 }), false);
  });
});

void describe("matchesFilter: element and array operators", () => {
  void it("tests presence with $exists", () => {
    assert.ok(matchesFilter({ a: null }, { a: { $exists: true } }));
    assert.ok(matchesFilter({}, { a: { $exists: false } }));
  });

  void it("tests BSON types with $type, by alias or number, and 'number' for any numeric", () => {
    assert.ok(matchesFilter({ a: Long.fromNumber(1) }, { a: { $type: "long" } }));
    assert.ok(matchesFilter({ a: "x" }, { a: { $type: 2 } }));
    assert.ok(matchesFilter({ a: new Int32(1) }, { a: { $type: "number" } }));
    assert.ok(matchesFilter({ a: [1] }, { a: { $type: "array" } }));
  });

  void it("matches array length with $size", () => {
    assert.ok(matchesFilter({ a: [1, 2, 3] }, { a: { $size: 3 } }));
    assert.equal(matchesFilter({ a: 3 }, { a: { $size: 1 } }), false);
  });

  void it("requires every listed value with $all", () => {
    assert.ok(matchesFilter({ a: [1, 2, 3] }, { a: { $all: [3, 1] } }));
    assert.equal(matchesFilter({ a: [1, 2] }, { a: { $all: [1, 4] } }), false);
  });

  void it("matches one element against several conditions with $elemMatch", () => {
    const doc = {
      grades: [
        { s: 80, w: 1 },
        { s: 95, w: 0 },
      ],
    };
    assert.ok(matchesFilter(doc, { grades: { $elemMatch: { s: { $gt: 90 }, w: 0 } } }));
    assert.equal(matchesFilter(doc, { grades: { $elemMatch: { s: { $gt: 90 }, w: 1 } } }), false);
  });

  void it("matches strings with $regex and $options, and with a regex literal", () => {
    assert.ok(matchesFilter({ _id: "123_1700000000" }, { _id: /^123_/ }));
    assert.ok(matchesFilter({ s: "Hello" }, { s: { $regex: "^hel", $options: "i" } }));
    assert.equal(matchesFilter({ s: 123 }, { s: /1/ }), false);
  });

  void it("matches a remainder with $mod", () => {
    assert.ok(matchesFilter({ n: 10 }, { n: { $mod: [4, 2] } }));
  });
});

void describe("matchesFilter: logical operators and $expr", () => {
  void it("combines clauses with $and, $or, $nor and $not", () => {
    const doc = { a: 1, b: 2 };
    assert.ok(matchesFilter(doc, { $and: [{ a: 1 }, { b: 2 }] }));
    assert.ok(matchesFilter(doc, { $or: [{ a: 5 }, { b: 2 }] }));
    assert.equal(matchesFilter(doc, { $nor: [{ a: 1 }] }), false);
    assert.ok(matchesFilter(doc, { a: { $not: { $gt: 5 } } }));
  });

  void it("evaluates $expr with $size over an array field", () => {
    const doc = { history: [1, 2, 3], count: new Int32(3) };
    assert.ok(matchesFilter(doc, { $expr: { $eq: [{ $size: "$history" }, "$count"] } }));
    assert.equal(matchesFilter(doc, { $expr: { $gt: [{ $size: "$history" }, 10] } }), false);
  });

  void it("resolves $$variables in $expr from the given variables", () => {
    assert.ok(matchesFilter({ a: 3 }, { $expr: { $eq: ["$a", "$$limit"] } }, { variables: { limit: 3 } }));
  });

  void it("compiles a filter once and reuses it across documents", () => {
    const isBig = compileFilter({ size: { $gte: 10 } });
    assert.deepEqual(
      [{ size: 5 }, { size: 10 }, { size: 50 }].filter(isBig).map((d) => d.size),
      [10, 50],
    );
  });
});

void describe("matchesFilter: invalid filters", () => {
  void it("rejects an unknown operator with BadValue", () => {
    assert.throws(() => matchesFilter({}, { a: { $bogus: 1 } }), badValue);
  });

  void it("rejects an unknown top-level operator with BadValue", () => {
    assert.throws(() => matchesFilter({}, { $bogus: [] }), badValue);
  });

  void it("rejects $in without an array and an empty $or", () => {
    assert.throws(() => matchesFilter({}, { a: { $in: 1 } }), badValue);
    assert.throws(() => matchesFilter({}, { $or: [] }), badValue);
  });
});
