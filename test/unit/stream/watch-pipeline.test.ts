// What the one change stream asks the server for: deletes of a full set pass where a rule
// propagates them, with their pre-images cut down to the fields that name the entry.
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import assert from "node:assert/strict";
import { Query } from "mingo";
import { configSchema, type Config } from "../../../src/config/schema.js";
import { buildWatchPipeline, watchOptions } from "../../../src/stream/events/watch-pipeline.js";

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

void test("while every subset rule has pre-images, the stream asks for no post-image; without, it does", () => {
  assert.equal(watchOptions(rules).fullDocument, undefined);
  assert.equal(watchOptions(withoutPropagation).fullDocument, "updateLookup");
});

void test("with no rule propagating deletes, deletes do not pass and no pre-image is asked for", () => {
  const pipeline = buildWatchPipeline(withoutPropagation);
  assert.equal(passes(pipeline, reviewDeleted), false);
  assert.equal(JSON.stringify(pipeline[1]).includes("fullDocumentBeforeChange"), false);
  assert.equal(watchOptions(withoutPropagation).fullDocumentBeforeChange, undefined);
});

/** A JSON fixture of the embedded server's unit tests (it imports nothing of the sidecar's). */
function embeddedFixture(path: string): unknown {
  const url = new URL(`../../../packages/mongodb-embedded/test/unit/${path}`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"));
}

/** The distinct `$expr` values anywhere in a filter, in the order first met. */
function expressionsIn(value: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) expressionsIn(item, found);
  else if (value !== null && typeof value === "object")
    for (const [key, inner] of Object.entries(value)) {
      if (key !== "$expr") expressionsIn(inner, found);
      else if (!found.some((known) => isDeepStrictEqual(known, inner))) found.push(inner);
    }
  return found;
}

void test("the embedded server's copy of the stream's expressions (its native-expression tests) is the current one", () => {
  const fixture = embeddedFixture("query/fixtures/sidecar-event-exprs.json");
  const current = JSON.parse(
    JSON.stringify(expressionsIn(buildWatchPipeline(rules)[0]!.$match)),
  ) as unknown[];
  assert.deepEqual(
    new Set(current.map((expr) => JSON.stringify(expr))),
    new Set((fixture as unknown[]).map((expr) => JSON.stringify(expr))),
    "print them again into the fixture (see native-expression-equivalence.test.ts)",
  );
});

void test("the embedded server's copy of the whole pipeline (its change-stream prefilter tests) is the current one", () => {
  assert.deepEqual(
    JSON.parse(JSON.stringify(buildWatchPipeline(rules))),
    embeddedFixture("changestream/sidecar-watch-pipeline.json"),
    "print it again into the fixture (see event-prefilter.test.ts)",
  );
});
