import assert from "node:assert/strict";
import { test } from "node:test";
import { Double, Int32, type Document } from "bson";
import fc from "fast-check";
import {
  bsonEqual,
  describeUpdate as describeRecorded,
  isEmptyUpdate,
  recordUpdate,
  type UpdateDescription,
} from "../../../src/changestream/update-description.js";

/** The description an event of the update from `before` to `after` carries, recorded when written. */
function describeUpdate(before: Document, after: Document, options: { showExpandedEvents: boolean }) {
  return describeRecorded(recordUpdate(before, after), options);
}

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

/** Applies a description as a consumer would: truncations, then removals, then updated fields. */
function applyDescription(preImage: Document, description: UpdateDescription): Document {
  const doc = structuredClone(preImage);
  const parentOf = (path: string) => {
    const parts = path.split(".");
    let node: Document = doc;
    for (const part of parts.slice(0, -1)) node = node[part] as Document;
    return { node, last: parts[parts.length - 1]! };
  };
  for (const { field, newSize } of description.truncatedArrays) {
    const { node, last } = parentOf(field);
    (node[last] as unknown[]).length = newSize;
  }
  for (const path of description.removedFields) {
    const { node, last } = parentOf(path);
    delete node[last];
  }
  for (const [path, value] of Object.entries(description.updatedFields)) {
    const { node, last } = parentOf(path);
    node[last] = structuredClone(value);
  }
  return doc;
}

const leaf = fc.oneof(fc.constantFrom("a", "b", "", null, true), fc.integer({ min: -1, max: 2 }));
const { tree } = fc.letrec<{ tree: unknown; document: Document }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("tree"), { maxLength: 4 }),
    tie("document"),
  ),
  document: fc.dictionary(fc.constantFrom("x", "y", "z", "0", "1"), tie("tree"), {
    maxKeys: 3,
    noNullPrototype: true,
  }),
}));
const image = fc.dictionary(fc.constantFrom("a", "b", "arr", "sub"), tree, {
  maxKeys: 4,
  noNullPrototype: true,
});

void test("applying the description to the pre-image gives the post-image, for any two images", () => {
  fc.assert(
    fc.property(image, image, fc.boolean(), (before, after, sharing) => {
      // An update shares what it leaves alone with the pre-image; a replacement shares nothing.
      const post = sharing ? { ...before, ...after } : after;
      const description = describeUpdate({ _id: 1, ...before }, { _id: 1, ...post }, plain);
      assert.deepEqual(applyDescription({ _id: 1, ...before }, description), { _id: 1, ...post });
      assert.equal(isEmptyUpdate(description), bsonEqual({ _id: 1, ...before }, { _id: 1, ...post }));
    }),
    { numRuns: 1000 },
  );
});

void test("appending to an array that is shared element by element reports only the new elements", () => {
  const before = { _id: 1, arr: fifty, sub: { tags: ["t"] } };
  const after = { _id: 1, arr: [...fifty, "u50", "u51"], sub: before.sub };
  assert.deepEqual(describeUpdate(before, after, plain).updatedFields, { "arr.50": "u50", "arr.51": "u51" });
});

void test("a number that became minus zero is updated, even in an array", () => {
  const description = describeUpdate({ _id: 1, n: 0, arr: [0] }, { _id: 1, n: -0, arr: [-0] }, plain);
  assert.deepEqual(Object.keys(description.updatedFields), ["n", "arr.0"]);
});

void test("each event gets a description of its own: reshaping one leaves the recorded update as it was", () => {
  const recorded = recordUpdate({ _id: 1, a: [1, 2, 3], b: 1 }, { _id: 1, a: [1], b: 2 });
  const first = describeRecorded(recorded, { showExpandedEvents: true });
  first.updatedFields.b = "changed";
  first.truncatedArrays[0]!.newSize = 99;
  (first.disambiguatedPaths as Document)["x"] = 1;
  assert.deepEqual(describeRecorded(recorded, { showExpandedEvents: true }), {
    updatedFields: { b: 2 },
    removedFields: [],
    truncatedArrays: [{ field: "a", newSize: 1 }],
    disambiguatedPaths: {},
  });
});
