import { test } from "node:test";
import assert from "node:assert/strict";
import { Binary, Decimal128, Double, EJSON, Int32, Long, ObjectId } from "bson";
import { findDifference, type MatchEntities } from "../../spec/matcher.js";

const root = { root: true };
const nested = { root: false };

function expected(text: string): unknown {
  return EJSON.parse(text, { relaxed: false });
}

void test("a root-level document may carry fields the expectation does not mention", () => {
  assert.equal(findDifference({ x: 1 }, { x: 1, y: 2 }, root), undefined);
});

void test("a nested document may not carry extra fields, and the difference names the path", () => {
  assert.equal(
    findDifference({ x: { y: 1 } }, { x: { y: 1, z: 1 } }, root),
    "at $.x.z: unexpected field in a nested document (1)",
  );
});

void test("a missing expected field is a difference even at the root", () => {
  assert.match(findDifference({ x: 1, y: 1 }, { x: 1 }, root) ?? "", /at \$\.y: field missing/);
});

void test("key order does not matter", () => {
  assert.equal(findDifference({ x: 1, y: 2 }, { y: 2, x: 1 }, nested), undefined);
});

void test("int32, int64 and double compare by numeric value", () => {
  assert.equal(findDifference(new Int32(1), 1, nested), undefined);
  assert.equal(findDifference(Long.fromNumber(1), new Double(1.0), nested), undefined);
  assert.match(findDifference(new Int32(1), 1.5, nested) ?? "", /expected 1, got 1.5/);
});

void test("Decimal128 does not take part in flexible numeric comparison", () => {
  assert.notEqual(findDifference(new Int32(1), Decimal128.fromString("1"), nested), undefined);
  assert.equal(findDifference(Decimal128.fromString("1.0"), Decimal128.fromString("1.0"), nested), undefined);
});

void test("arrays must hold the same number of elements", () => {
  assert.match(findDifference([1, 2, 3], [1, 2, 3, 4], root) ?? "", /expected 3 elements, got 4/);
});

void test("documents inside an expected array are nested, so extra fields fail", () => {
  assert.match(findDifference([{ x: 1 }], [{ x: 1, y: 1 }], nested) ?? "", /\$\[0\]\.y: unexpected field/);
});

void test("$$exists true accepts any value, including null", () => {
  assert.equal(findDifference({ a: { $$exists: true } }, { a: null }, nested), undefined);
});

void test("$$exists false fails when the field is present", () => {
  assert.match(findDifference({ a: { $$exists: false } }, { a: 1 }, nested) ?? "", /expected no field/);
  assert.equal(findDifference({ a: { $$exists: false } }, {}, nested), undefined);
});

void test("$$unsetOrMatches accepts an absent field or a matching one", () => {
  const expectation = { insertedId: { $$unsetOrMatches: 2 } };
  assert.equal(findDifference(expectation, {}, nested), undefined);
  assert.equal(findDifference(expectation, { insertedId: 2 }, nested), undefined);
  assert.match(findDifference(expectation, { insertedId: 3 }, nested) ?? "", /insertedId: expected 2, got 3/);
});

void test("$$unsetOrMatches keeps the root-ness of the value it wraps", () => {
  const expectation = { $$unsetOrMatches: { deletedCount: 0 } };
  assert.equal(findDifference(expectation, { deletedCount: 0, insertedCount: 2 }, root), undefined);
  assert.equal(findDifference(expectation, undefined, root), undefined);
});

void test("$$type checks the type names of the $type query operator", () => {
  assert.equal(findDifference({ $$type: "objectId" }, new ObjectId(), nested), undefined);
  assert.equal(findDifference({ $$type: ["int", "long"] }, Long.fromNumber(5), nested), undefined);
  assert.match(findDifference({ $$type: "string" }, 5, nested) ?? "", /expected type string/);
});

void test("$$type on a missing field fails", () => {
  assert.match(findDifference({ a: { $$type: "string" } }, {}, nested) ?? "", /field missing/);
});

void test("$$lte compares numerically across numeric types", () => {
  assert.equal(findDifference({ $$lte: 1 }, 1.0, nested), undefined);
  assert.equal(findDifference({ $$lte: new Int32(1) }, 0, nested), undefined);
  assert.match(findDifference({ $$lte: 1 }, 1.1, nested) ?? "", /at most 1/);
});

void test("$$sessionLsid compares against the named session's logical id", () => {
  const lsid = { id: new Binary(Buffer.alloc(16, 7), 4) };
  const entities: MatchEntities = { entityValue: () => undefined, sessionLsid: () => lsid };
  const actual = { lsid: { id: new Binary(Buffer.alloc(16, 7), 4) } };
  assert.equal(
    findDifference({ lsid: { $$sessionLsid: "session0" } }, actual, { root: true, entities }),
    undefined,
  );
  const other = { lsid: { id: new Binary(Buffer.alloc(16, 8), 4) } };
  assert.notEqual(
    findDifference({ lsid: { $$sessionLsid: "session0" } }, other, { root: true, entities }),
    undefined,
  );
});

void test("$$matchesEntity matches against a value saved in the entity map", () => {
  const entities: MatchEntities = { entityValue: () => 42, sessionLsid: () => undefined };
  assert.equal(
    findDifference({ _id: { $$matchesEntity: "id0" } }, { _id: 42 }, { root: true, entities }),
    undefined,
  );
});

void test("$$matchesHexBytes compares bytes case-insensitively", () => {
  assert.equal(findDifference({ $$matchesHexBytes: "12AB" }, Buffer.from([0x12, 0xab]), nested), undefined);
  assert.notEqual(findDifference({ $$matchesHexBytes: "12AB" }, Buffer.from([0x12]), nested), undefined);
});

void test("$$matchAsDocument parses an Extended JSON string and forbids extra fields", () => {
  assert.equal(findDifference({ $$matchAsDocument: { a: 1 } }, '{"a": 1}', nested), undefined);
  assert.notEqual(findDifference({ $$matchAsDocument: { a: 1 } }, '{"a": 1, "b": 2}', nested), undefined);
});

void test("$$matchAsRoot allows extra fields inside a nested document", () => {
  assert.equal(findDifference({ x: { $$matchAsRoot: { y: 1 } } }, { x: { y: 1, z: 2 } }, nested), undefined);
  assert.equal(
    findDifference({ $$matchAsDocument: { $$matchAsRoot: { a: 1 } } }, '{"a": 1, "b": 2}', nested),
    undefined,
  );
});

void test("canonical Extended JSON expectations match the driver's promoted values", () => {
  const expectation = expected('{"n": {"$numberLong": "10"}, "d": {"$date": {"$numberLong": "0"}}}');
  assert.equal(findDifference(expectation, { n: 10, d: new Date(0) }, nested), undefined);
});

void test("a BSON regular expression matches a driver RegExp with the same pattern and flags", () => {
  const expectation = expected('{"$regularExpression": {"pattern": "^a", "options": "im"}}');
  assert.equal(findDifference(expectation, /^a/im, nested), undefined);
  assert.notEqual(findDifference(expectation, /^a/i, nested), undefined);
});

void test("an unknown $$ operator is reported as an unsupported feature", () => {
  assert.throws(() => findDifference({ $$nope: 1 }, 1, nested), { name: "UnsupportedFeature" });
});

void test("a Map in the actual value (the driver's sort) is matched as a document", () => {
  assert.equal(findDifference({ sort: { _id: 1 } }, { sort: new Map([["_id", 1]]) }, nested), undefined);
});
