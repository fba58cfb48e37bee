import assert from "node:assert/strict";
import { test } from "node:test";
import { Int32, serialize } from "bson";
import { deepCopy, shallowCopy } from "../../../src/query/document-copy.js";
import { compareValues } from "../../../src/query/bson-order.js";
import { decodeDocument } from "../../../src/wire/document-decoder.js";

// The decoding itself (any field names, every BSON type) is bson-field-order's, tested there.

const bytesOf = (doc: object): Buffer => Buffer.from(serialize(doc));

/** Documents whose field order JS would change, at the top, nested, and inside arrays. */
const sentInOrder: Map<string, unknown>[] = [
  new Map<string, unknown>([
    ["b", 1],
    ["2", new Int32(2)],
    ["1", "x"],
  ]),
  new Map<string, unknown>([
    ["_id", 1],
    [
      "v",
      new Map<string, unknown>([
        ["z", 1],
        [
          "10",
          [
            new Map([
              ["c", 1],
              ["0", 2],
            ]),
          ],
        ],
      ]),
    ],
  ]),
  new Map<string, unknown>([
    [
      "list",
      [
        [
          new Map([
            ["a", 1],
            ["4294967294", 2],
          ]),
        ],
      ],
    ],
  ]),
];

void test("copies of a decoded document keep its field order", () => {
  for (const doc of sentInOrder) {
    const sent = bytesOf(doc);
    const decoded = decodeDocument(sent);
    assert.deepEqual(bytesOf(decoded), sent);
    assert.deepEqual(bytesOf(deepCopy(decoded)), sent);
    assert.deepEqual(bytesOf(shallowCopy(decoded)), sent);
  }
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
