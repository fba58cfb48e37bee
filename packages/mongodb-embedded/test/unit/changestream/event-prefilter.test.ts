import assert from "node:assert/strict";
import { test } from "node:test";
import { compileEventPrefilter } from "../../../src/changestream/event-prefilter.js";

const pipeline = [
  {
    $match: {
      $or: [
        {
          "ns.coll": "sales",
          operationType: "update",
          $expr: { $gt: [{ $size: "$fullDocument.buyers" }, 50] },
        },
        { "ns.coll": "reviews", operationType: { $in: ["insert", "update"] } },
      ],
    },
  },
];

void test("the prefilter drops an event whose namespace and operation no branch of the $match accepts", () => {
  const prefilter = compileEventPrefilter(pipeline);
  assert.equal(prefilter({ operationType: "delete", ns: { db: "d", coll: "sales" } }), false);
  assert.equal(prefilter({ operationType: "update", ns: { db: "d", coll: "other" } }), false);
});

void test("the prefilter lets through an event whose post-image the $match still has to read", () => {
  const prefilter = compileEventPrefilter(pipeline);
  assert.equal(prefilter({ operationType: "update", ns: { db: "d", coll: "sales" } }), true);
  assert.equal(prefilter({ operationType: "insert", ns: { db: "d", coll: "reviews" } }), true);
});

void test("a pipeline that does not start with $match prefilters nothing", () => {
  const prefilter = compileEventPrefilter([{ $project: { _id: 1 } }]);
  assert.equal(prefilter({ operationType: "delete" }), true);
});
