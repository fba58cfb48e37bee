import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Int32, serialize, type Document } from "bson";
import fc from "fast-check";
import { applyUpdate } from "../../../src/query/index.js";

// A property that fails here has mutated fast-check's own values, which breaks shrinking (it may
// never end): the properties stop at the first failure.
const once = { endOnFailure: true } as const;

const scalar = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom("x", "y"), fc.constant(null));
const element = fc.oneof(scalar, fc.record({ x: scalar, tags: fc.array(scalar, { maxLength: 2 }) }));
const storedDocument = fc.record({
  _id: fc.constant(new Int32(1)),
  n: fc.integer({ min: -3, max: 3 }),
  a: fc.record({ b: fc.array(scalar, { maxLength: 3 }), c: fc.record({ d: scalar }) }),
  list: fc.array(element, { maxLength: 3 }),
  other: fc.record({ deep: fc.array(element, { maxLength: 2 }) }),
});

// One field update per operator and path, through documents, arrays, `$[]` and `$[id]`.
const fieldUpdate = fc.constantFrom<[string, string, unknown]>(
  ["$set", "a.b.1", "z"],
  ["$set", "a.c.d", { e: 1 }],
  ["$set", "list.$[].x", 7],
  ["$set", "list.$[el].tags.0", "t"],
  ["$set", "list.0.x", 9],
  ["$set", "fresh.path", [1]],
  ["$unset", "a.c", ""],
  ["$unset", "list.1.tags.0", ""],
  ["$inc", "n", 2],
  ["$inc", "list.$[].x", 1],
  ["$mul", "a.c.d", 2],
  ["$min", "n", -9],
  ["$max", "list.0.x", 99],
  ["$push", "a.b", "p"],
  ["$push", "list.$[].tags", { $each: ["q"], $position: 0 }],
  ["$addToSet", "list.0.tags", "x"],
  ["$pop", "a.b", 1],
  ["$pull", "list", { x: 1 }],
  ["$pullAll", "list.$[].tags", ["x", "y"]],
  ["$rename", "a.c", "moved"],
  ["$rename", "other", "a.renamed"],
);

/** `{ $op: { path: argument } }` from a list of field updates; later ones replace earlier ones. */
function updateDocument(updates: [string, string, unknown][]): Document {
  const update: Document = {};
  for (const [operator, path, argument] of updates) update[operator] = { [path]: argument };
  return update;
}

function tryUpdate(doc: Document, update: Document): Document | undefined {
  const usesFilter = JSON.stringify(update).includes("$[el]");
  try {
    return applyUpdate(doc, update, {
      isInsert: false,
      arrayFilters: usesFilter ? [{ el: { $ne: null } }] : [],
    });
  } catch {
    return undefined; // conflicting paths, a scalar in the way...: refused, as mongod does
  }
}

void describe("applyUpdate copies on write", () => {
  void it("never changes the stored version it updates, whatever the operators and paths", () => {
    fc.assert(
      fc.property(storedDocument, fc.array(fieldUpdate, { minLength: 1, maxLength: 3 }), (doc, updates) => {
        const bytes = serialize(doc);
        tryUpdate(doc, updateDocument(updates));
        return Buffer.from(serialize(doc)).equals(bytes);
      }),
      { numRuns: 1000, ...once },
    );
  });

  void it("gives a result that a later update cannot change through the stored version", () => {
    fc.assert(
      fc.property(storedDocument, fieldUpdate, fieldUpdate, (doc, first, second) => {
        const updated = tryUpdate(doc, updateDocument([first]));
        if (!updated) return true;
        const bytes = serialize(updated);
        tryUpdate(doc, updateDocument([second]));
        return Buffer.from(serialize(updated)).equals(bytes);
      }),
      { numRuns: 500, ...once },
    );
  });

  void it("shares what the update leaves alone, and copies the path it writes", () => {
    const doc = { _id: 1, a: { b: [1, 2], c: { d: 1 } }, other: { deep: [{ x: 1 }] } };
    const updated = applyUpdate(doc, { $set: { "a.b.1": 3 } }, { isInsert: false });
    assert.deepEqual(updated, { _id: 1, a: { b: [1, 3], c: { d: 1 } }, other: { deep: [{ x: 1 }] } });
    assert.equal(updated.other, doc.other);
    assert.equal(updated.a.c, doc.a.c);
    assert.notEqual(updated.a, doc.a);
    assert.notEqual(updated.a.b, doc.a.b);
    assert.deepEqual(doc.a.b, [1, 2]);
  });
});
