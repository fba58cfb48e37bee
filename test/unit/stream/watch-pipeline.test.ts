// What the one change stream asks the server for: deletes of a full set pass where a rule
// propagates them, with their pre-images cut down to the fields that name the entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Query } from "mingo";
import { configSchema, type Config } from "../../../src/config/schema.js";
import { buildWatchPipeline, watchOptions } from "../../../src/stream/watch-pipeline.js";

const { rules } = configSchema.parse({}) as Config;
const withoutPropagation = rules.map((rule) =>
  rule.pattern === "subset" ? { ...rule, propagateDeletes: false } : rule,
);

function passes(pipeline: ReturnType<typeof buildWatchPipeline>, event: Record<string, unknown>): boolean {
  return new Query(pipeline[0]!.$match as Record<string, unknown>).test(event);
}

const reviewDeleted = {
  operationType: "delete",
  ns: { db: "shop", coll: "reviews" },
  documentKey: { _id: 1 },
};

void test("deletes from the full set pass the stream's filter, with only the pre-image's reference and entry id kept", () => {
  const pipeline = buildWatchPipeline(rules);
  assert.equal(passes(pipeline, reviewDeleted), true);
  assert.equal(passes(pipeline, { ...reviewDeleted, ns: { db: "shop", coll: "products" } }), false);
  const preImage = Object.keys(pipeline[1]!.$project as object).filter((field) =>
    field.startsWith("fullDocumentBeforeChange"),
  );
  assert.deepEqual(preImage.sort(), [
    "fullDocumentBeforeChange.product_id",
    "fullDocumentBeforeChange.review_id",
  ]);
  assert.equal(watchOptions(rules).fullDocumentBeforeChange, "whenAvailable");
});

void test("with no rule propagating deletes, deletes do not pass and no pre-image is asked for", () => {
  const pipeline = buildWatchPipeline(withoutPropagation);
  assert.equal(passes(pipeline, reviewDeleted), false);
  assert.equal(JSON.stringify(pipeline[1]).includes("fullDocumentBeforeChange"), false);
  assert.equal(watchOptions(withoutPropagation).fullDocumentBeforeChange, undefined);
});
