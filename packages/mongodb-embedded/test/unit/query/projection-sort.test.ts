import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Int32, Long, ObjectId } from "bson";
import { projectDocument, sortDocuments } from "../../../src/query/index.js";

const doc = {
  _id: 1,
  title: "t",
  year: 2000,
  author: { name: "a", born: 1950 },
  buyers: [
    { id: 1, n: "x" },
    { id: 2, n: "y" },
  ],
};

void describe("projectDocument", () => {
  void it("keeps only included fields, _id first, in the document's order", () => {
    assert.deepEqual(projectDocument(doc, { year: 1, title: 1 }), { _id: 1, title: "t", year: 2000 });
  });

  void it("drops _id when it is excluded from an inclusion", () => {
    assert.deepEqual(projectDocument(doc, { _id: 0, title: 1 }), { title: "t" });
  });

  void it("includes dotted paths inside embedded documents and arrays of documents", () => {
    assert.deepEqual(projectDocument(doc, { "author.name": 1, "buyers.id": 1 }), {
      _id: 1,
      author: { name: "a" },
      buyers: [{ id: 1 }, { id: 2 }],
    });
  });

  void it("removes excluded fields and keeps the rest", () => {
    assert.deepEqual(projectDocument(doc, { buyers: 0, "author.born": 0 }), {
      _id: 1,
      title: "t",
      year: 2000,
      author: { name: "a" },
    });
  });

  void it("slices an array with $slice and keeps the other fields", () => {
    const result = projectDocument(doc, { buyers: { $slice: -1 } });
    assert.deepEqual(result.buyers, [{ id: 2, n: "y" }]);
    assert.equal(result.title, "t");
  });

  void it("keeps the first matching element with $elemMatch", () => {
    assert.deepEqual(projectDocument(doc, { buyers: { $elemMatch: { id: 2 } } }), {
      _id: 1,
      buyers: [{ id: 2, n: "y" }],
    });
  });

  void it("rejects mixing inclusion and exclusion", () => {
    assert.throws(() => projectDocument(doc, { title: 1, year: 0 }));
  });
});

void describe("sortDocuments", () => {
  void it("sorts mixed types in BSON order, missing fields as null", () => {
    const id = new ObjectId();
    const sorted = sortDocuments([{ v: id }, { v: "s" }, { v: 3 }, {}, { v: { a: 1 } }, { v: true }], {
      v: 1,
    });
    assert.deepEqual(sorted, [{}, { v: 3 }, { v: "s" }, { v: { a: 1 } }, { v: id }, { v: true }]);
  });

  void it("compares numbers across Int32, Long and double", () => {
    const sorted = sortDocuments([{ v: Long.fromNumber(5) }, { v: 2.5 }, { v: new Int32(4) }], { v: -1 });
    assert.deepEqual(sorted, [{ v: Long.fromNumber(5) }, { v: new Int32(4) }, { v: 2.5 }]);
  });

  void it("sorts an array field by its smallest element ascending and largest descending", () => {
    const docs = [
      { k: "a", v: [1, 10] },
      { k: "b", v: [5] },
    ];
    assert.deepEqual(
      sortDocuments(docs, { v: 1 }).map((d) => d.k),
      ["a", "b"],
    );
    assert.deepEqual(
      sortDocuments(docs, { v: -1 }).map((d) => d.k),
      ["a", "b"],
    );
    assert.deepEqual(
      sortDocuments(
        [
          { k: "a", v: [1, 4] },
          { k: "b", v: [5] },
        ],
        { v: -1 },
      ).map((d) => d.k),
      ["b", "a"],
    );
  });

  void it("keeps the input order of equal keys and breaks ties with the next key", () => {
    const docs = [
      { a: 1, b: 2, i: 0 },
      { a: 1, b: 1, i: 1 },
      { a: 0, b: 9, i: 2 },
      { a: 1, b: 1, i: 3 },
    ];
    assert.deepEqual(
      sortDocuments(docs, { a: 1, b: 1 }).map((d) => d.i),
      [2, 1, 3, 0],
    );
  });

  void it("pages the bucket pattern's _ids in time order", () => {
    const ids = ["123_1700000600", "123_1700000000", "123_1700000300"];
    const sorted = sortDocuments(
      ids.map((_id) => ({ _id })),
      { _id: 1 },
    );
    assert.deepEqual(
      sorted.map((d) => d._id),
      ["123_1700000000", "123_1700000300", "123_1700000600"],
    );
  });
});
