import assert from "node:assert/strict";
import { test } from "node:test";
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  deserialize,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  serialize,
  Timestamp,
} from "bson";
import fc from "fast-check";
import { fieldNames, withFieldOrderOf } from "../../src/index.js";

/** Field names JS would reorder ("0", "17", "4294967294") among names it keeps in place. */
const fieldName = fc.oneof(
  fc.constantFrom("a", "b", "_id", "01", "-1", "1.5", "4294967295", "4294967294", "é"),
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
      undefined,
      true,
      1.5,
      Long.fromNumber(7),
      new Decimal128("1.5"),
      new ObjectId("64b7f0c2a1b2c3d4e5f60718"),
      new Timestamp({ t: 1, i: 2 }),
      new Binary(Buffer.from("ab")),
      new Binary(Buffer.from("0123456789abcdef"), Binary.SUBTYPE_UUID),
      new Binary(Buffer.from("ab"), Binary.SUBTYPE_USER_DEFINED),
      new BSONSymbol("s"),
      new Double(-0),
      new BSONRegExp("x", "i"),
      new Code("f()", { "2": 1, a: 1 }),
      new DBRef("c", new ObjectId("64b7f0c2a1b2c3d4e5f60719")),
      new MinKey(),
      new MaxKey(),
      new Date(0),
    ),
    tie("doc"),
    tie("doc").map((doc) => new Map([["$ref", "c"], ["$id", 1], ...doc])),
    tie("doc").map((doc) => new Code("f()", doc as unknown as Record<string, unknown>)),
    fc.array(tie("value"), { maxLength: 3 }),
  ),
}));

const bytesOf = (doc: object): Buffer => Buffer.from(serialize(doc));
const decoded = (bytes: Uint8Array) => withFieldOrderOf(bytes, deserialize(bytes, { promoteValues: false }));

void test("a decoded document serializes to the bytes it was decoded from, whatever its field names", () => {
  fc.assert(
    fc.property(document.doc, (doc) => {
      const sent = bytesOf(doc);
      assert.deepEqual(bytesOf(decoded(sent)), sent);
    }),
  );
});

void test("a document inside an array inside a document keeps its order", () => {
  const sent = bytesOf(
    new Map([
      [
        "list",
        [
          1,
          new Map([
            ["b", 1],
            ["2", 2],
            ["1", 3],
          ]),
        ],
      ],
    ]),
  );
  const list = decoded(sent).list as object[];
  assert.deepEqual(fieldNames(list[1] ?? {}), ["b", "2", "1"]);
});

void test("a document whose field order JS keeps carries nothing", () => {
  const doc = decoded(
    bytesOf(
      new Map<string, unknown>([
        ["1", 1],
        ["b", 2],
        ["c", new Map([["d", 1]])],
      ]),
    ),
  );
  assert.deepEqual(Object.getOwnPropertySymbols(doc), []);
  assert.equal("toBSON" in doc, false);
});

void test("a document decoded from bytes inside a larger buffer keeps its order", () => {
  const sent = bytesOf(
    new Map([
      ["b", 1],
      ["1", 2],
    ]),
  );
  const buffer = new Uint8Array(sent.length + 8);
  buffer.set(sent, 5);
  const bytes = buffer.subarray(5, 5 + sent.length);
  assert.deepEqual(fieldNames(decoded(bytes)), ["b", "1"]);
});

void test("a DBRef whose extra fields JS would reorder serializes to the bytes it was decoded from", () => {
  const extra = new Map<string, unknown>([
    ["$ref", "c"],
    ["$id", 1],
    ["b", 1],
    [
      "2",
      new Map([
        ["z", 1],
        ["1", 2],
      ]),
    ],
  ]);
  const sent = bytesOf(new Map([["r", extra]]));
  const doc = decoded(sent);
  assert.ok(doc.r instanceof DBRef);
  assert.deepEqual(bytesOf(doc), sent);
});

void test("a DBRef written $id first, or with $db last, serializes to the bytes it was decoded from", () => {
  const orders: [string, unknown][][] = [
    [
      ["$id", 1],
      ["$ref", "c"],
    ],
    [
      ["$ref", "c"],
      ["$id", 1],
      ["x", 1],
      ["$db", "d"],
    ],
  ];
  for (const fields of orders) {
    const sent = bytesOf(new Map([["r", new Map(fields)]]));
    assert.deepEqual(bytesOf(decoded(sent)), sent);
  }
});

void test("a code's scope whose fields JS would reorder serializes to the bytes it was decoded from", () => {
  const scope = new Map<string, unknown>([
    ["b", 1],
    ["2", 2],
  ]);
  const sent = bytesOf(new Map([["c", new Code("f()", scope as unknown as Record<string, unknown>)]]));
  assert.deepEqual(bytesOf(decoded(sent)), sent);
});
