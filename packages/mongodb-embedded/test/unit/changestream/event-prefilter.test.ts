// The prefilter judges an update event before its post-image is looked up. Whatever it says
// must agree with the whole pipeline run on the event with its post-image: "rejects" only
// events the $match drops (or fails on), "matches" only events it keeps, with the same output
// from the stages after the $match as from the whole pipeline.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Binary, type Document } from "bson";
import fc from "fast-check";
import { compileEventPrefilter, compileOplogFilter } from "../../../src/changestream/event-prefilter.js";
import { compileUserPipeline } from "../../../src/changestream/user-pipeline.js";
import { overTheWire } from "../../support/over-the-wire.js";

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

const update = (coll: string, updatedFields: Document = {}): Document => ({
  _id: { _data: "00" },
  operationType: "update",
  ns: { db: "d", coll },
  updateDescription: { updatedFields, removedFields: [], truncatedArrays: [] },
});

void describe("the change-stream event prefilter", () => {
  void it("rejects an event whose namespace and operation no branch of the $match accepts", () => {
    const { judge } = compileEventPrefilter(pipeline);
    assert.equal(judge({ operationType: "delete", ns: { db: "d", coll: "sales" } }), "rejects");
    assert.equal(judge(update("other")), "rejects");
  });

  void it("leaves to the post-image an event whose $match branch reads it", () => {
    assert.equal(compileEventPrefilter(pipeline).judge(update("sales")), "needsImage");
  });

  void it("accepts an event a branch that reads no image accepts, leaving only the later stages", () => {
    const stages = [...pipeline, { $project: { ns: 1 } }];
    const prefilter = compileEventPrefilter(stages);
    assert.equal(prefilter.judge(update("reviews")), "matches");
    assert.deepEqual(prefilter.afterMatch, [{ $project: { ns: 1 } }]);
  });

  void it("does not accept on a later branch when an earlier one still needs the image", () => {
    const { judge } = compileEventPrefilter([
      { $match: { $or: [{ "fullDocument.a": 1 }, { operationType: "update" }] } },
    ]);
    assert.equal(judge(update("sales")), "needsImage");
  });

  void it("rejects an event a clause after an image clause rejects, but accepts nothing through it", () => {
    const imageThenNamespace = { $and: [{ "fullDocument.a": 1 }, { "ns.coll": "sales" }] };
    const rejectsAfterImage = compileEventPrefilter([{ $match: imageThenNamespace }]);
    assert.equal(rejectsAfterImage.judge(update("other")), "rejects");
    const either = compileEventPrefilter([
      { $match: { $or: [imageThenNamespace, { operationType: "update" }] } },
    ]);
    assert.equal(either.judge(update("other")), "needsImage");
  });

  void it("judges an update by its updateDescription alone", () => {
    const { judge } = compileEventPrefilter([
      {
        $match: {
          $expr: {
            $in: [
              "items.50",
              { $map: { input: { $objectToArray: "$updateDescription.updatedFields" }, in: "$$this.k" } },
            ],
          },
        },
      },
    ]);
    assert.equal(judge(update("sales", { "items.50": "x" })), "matches");
    assert.equal(judge(update("sales", { "items.49": "x" })), "rejects");
  });

  void it("with a $match that reads the post-image, judges before the lookup only what mongod's oplog filter can", () => {
    const updateBreaks = {
      $expr: {
        $in: [
          "items.50",
          { $map: { input: { $objectToArray: "$updateDescription.updatedFields" }, in: "$$this.k" } },
        ],
      },
    };
    const { judge } = compileEventPrefilter([
      {
        $match: {
          $or: [
            { "ns.coll": "sales", ...updateBreaks },
            { "fullDocument.a": 1, "ns.coll": "other" },
          ],
        },
      },
    ]);
    // mongod cannot rewrite an $expr over updateDescription: the update is looked up first.
    assert.equal(judge(update("sales", { "items.49": "x" })), "needsImage");
    assert.equal(judge(update("trades")), "rejects");
  });

  void it("rejects an update of an excluded session's transaction before the lookup, as mongod's oplog filter", () => {
    const own = new Binary(Buffer.alloc(16, 1), Binary.SUBTYPE_UUID);
    const other = new Binary(Buffer.alloc(16, 2), Binary.SUBTYPE_UUID);
    const { judge } = compileEventPrefilter([
      { $match: { "lsid.id": { $nin: [own] }, $or: [{ "fullDocument.a": 1 }, { "ns.coll": "reviews" }] } },
    ]);
    assert.equal(judge({ ...update("sales"), lsid: { id: own } }), "rejects");
    assert.equal(judge({ ...update("sales"), lsid: { id: other } }), "needsImage");
    assert.equal(judge(update("sales")), "needsImage");
  });

  void it("leaves to the whole $match a clause that fails on the event", () => {
    const { judge } = compileEventPrefilter([
      { $match: { $expr: { $gt: [{ $size: "$updateDescription.updatedFields.items" }, 1] } } },
    ]);
    assert.equal(judge(update("sales", { other: 1 })), "needsImage");
  });

  void it("treats a field named by a computed expression as possibly the post-image", () => {
    const computed = { $getField: { field: { $concat: ["full", "Document"] }, input: "$$ROOT" } };
    const named = { $getField: { field: { $concat: ["full", "Document"] } } };
    for (const expression of [computed, named]) {
      const { judge } = compileEventPrefilter([{ $match: { $expr: { $eq: [expression, null] } } }]);
      assert.equal(judge(update("sales")), "needsImage");
    }
  });

  void it("judges nothing of a pipeline that does not start with $match", () => {
    const prefilter = compileEventPrefilter([{ $project: { _id: 1 } }]);
    assert.equal(prefilter.judge({ operationType: "delete" }), "needsImage");
    assert.deepEqual(prefilter.afterMatch, [{ $project: { _id: 1 } }]);
  });
});

/**
 * The sidecar's own watch pipeline (buildWatchPipeline of its default rules), copied as JSON:
 * the sidecar's test/unit/stream/watch-pipeline.test.ts fails when it is out of date.
 */
const SIDECAR_PIPELINE = overTheWire(
  JSON.parse(readFileSync(new URL("sidecar-watch-pipeline.json", import.meta.url), "utf8")) as Document[],
);

const COLLECTIONS = ["sales", "extra_sales", "trades", "products", "reviews", "other"];
const FIELDS = ["customers_purchased", "customers_purchased_extra", "history", "count", "reviews", "x"];

const size = fc.oneof(
  fc.integer({ min: 0, max: 3 }),
  fc.integer({ min: 48, max: 52 }),
  fc.constantFrom(9, 10, 11),
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  size.map((n) => Array.from({ length: n }, (_, i) => `u${i}`)),
  fc.integer({ min: -1, max: 60 }),
  fc.constantFrom("text", null, true),
);
const updatedKey = fc
  .tuple(
    fc.constantFrom(...FIELDS),
    fc.oneof(
      fc.constant(""),
      size.map((n) => `.${n}`),
    ),
  )
  .map(([field, suffix]) => field + suffix);

/** An update event as buildChangeEvent shapes it, and the post-image the lookup would add. */
const updateWithImage = fc.record({
  coll: fc.constantFrom(...COLLECTIONS),
  updatedFields: fc.dictionary(updatedKey, value, { maxKeys: 3 }),
  removedFields: fc.subarray(FIELDS, { maxLength: 2 }),
  postImage: fc.option(fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 4 }), { nil: null }),
});

type GeneratedUpdate = typeof updateWithImage extends fc.Arbitrary<infer T> ? T : never;

function withoutImage(generated: GeneratedUpdate): Document {
  return {
    _id: { _data: "8200" },
    operationType: "update",
    ns: { db: "d", coll: generated.coll },
    documentKey: { _id: 1 },
    updateDescription: {
      updatedFields: generated.updatedFields,
      removedFields: generated.removedFields,
      truncatedArrays: [],
    },
  };
}

function withImage(event: Document, postImage: Document | null): Document {
  const { _id, operationType, ...rest } = event;
  return { _id, operationType, fullDocument: postImage === null ? null : { _id: 1, ...postImage }, ...rest };
}

type Outcome = { output: Document | null } | { fails: true };

function outcome(run: () => Document | null): Outcome {
  try {
    return { output: run() };
  } catch {
    return { fails: true };
  }
}

/** Filters made of clauses on the event's own fields, on its post-image, and ones that can fail. */
const { filter } = fc.letrec<{ filter: Document; clause: Document }>((tie) => ({
  clause: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Document>(
      { "ns.coll": "sales" },
      { "ns.coll": { $in: ["sales", "trades"] } },
      { operationType: "update" },
      { operationType: { $in: ["insert", "replace"] } },
      { "updateDescription.updatedFields.x": { $exists: true } },
      { "updateDescription.removedFields": "count" },
      { "fullDocument.x": { $gt: 5 } },
      { "fullDocument.history": { $size: 2 } },
      { $expr: { $gt: [{ $size: "$fullDocument.customers_purchased" }, 1] } },
      { $expr: { $gt: [{ $size: "$updateDescription.updatedFields.x" }, 1] } },
      {
        $expr: {
          $in: [
            "x",
            { $map: { input: { $objectToArray: "$updateDescription.updatedFields" }, in: "$$this.k" } },
          ],
        },
      },
      { $nor: [{ "fullDocument.count": 1 }] },
    ),
    fc.array(tie("filter"), { minLength: 1, maxLength: 3 }).map((parts) => ({ $and: parts })),
    fc.array(tie("filter"), { minLength: 1, maxLength: 3 }).map((parts) => ({ $or: parts })),
  ),
  filter: fc
    .array(tie("clause"), { minLength: 1, maxLength: 2 })
    .map((clauses) => (clauses.length === 1 ? clauses[0]! : { $and: clauses })),
}));

function assertAgrees(stages: Document[], event: Document, image: Document | null): void {
  const prefilter = compileEventPrefilter(stages);
  const whole = outcome(() => compileUserPipeline(stages)(withImage(event, image)));
  const verdict = prefilter.judge(structuredClone(event));
  if (verdict === "rejects") assert.ok(!("output" in whole) || whole.output === null, JSON.stringify(whole));
  if (verdict === "matches") {
    assert.ok("output" in whole && whole.output !== null, JSON.stringify(whole));
    const after = outcome(() => compileUserPipeline(prefilter.afterMatch)(withImage(event, image)));
    assert.deepEqual(after, whole);
  }
}

/** The fields of an event the oplog filter judges (oplogView's), taken from the event itself. */
function oplogViewOf(event: Document): Document {
  const fields = ["operationType", "ns", "to", "documentKey", "lsid", "txnNumber"];
  return Object.fromEntries(Object.entries(event).filter(([key]) => fields.includes(key)));
}

/** The oplog filter drops only events the whole pipeline drops (or fails on); whether it dropped this one. */
function assertOplogFilterAgrees(stages: Document[], event: Document, image: Document | null): boolean {
  const rejects = compileOplogFilter(stages)!(oplogViewOf(event));
  const whole = outcome(() => compileUserPipeline(stages)(withImage(event, image)));
  if (rejects) assert.ok(!("output" in whole) || whole.output === null, JSON.stringify(whole));
  return rejects;
}

const OWN_SESSION = new Binary(Buffer.alloc(16, 1), Binary.SUBTYPE_UUID);
const OTHER_SESSION = new Binary(Buffer.alloc(16, 2), Binary.SUBTYPE_UUID);

/** A generated update, in one of the excluded session's transactions, another's, or none. */
const updateInSession = fc.record({
  generated: updateWithImage,
  session: fc.constantFrom(OWN_SESSION, OTHER_SESSION, undefined),
});

void describe("the oplog filter drops only what the whole pipeline drops", () => {
  void it("drops an event on its namespace, operation or session before it is built, and nothing else", () => {
    const filter = compileOplogFilter([
      {
        $match: {
          "lsid.id": { $nin: [OWN_SESSION] },
          $or: [{ "fullDocument.a": 1 }, { "ns.coll": "reviews" }],
        },
      },
    ])!;
    const view = (coll: string, lsid?: Document) => ({
      operationType: "update",
      ns: { db: "d", coll },
      ...(lsid ? { lsid } : {}),
    });
    assert.equal(filter(view("sales", { id: OWN_SESSION })), true);
    assert.equal(filter(view("sales", { id: OTHER_SESSION })), false, "its post-image may match");
    assert.equal(filter(view("sales")), false);
    const byUpdate = compileOplogFilter([
      { $match: { "updateDescription.updatedFields.x": { $exists: true } } },
    ])!;
    assert.equal(byUpdate(view("sales")), false, "the view has no update description");
    assert.equal(compileOplogFilter([{ $project: { ns: 1 } }]), null);
  });

  void it("on generated update events through the sidecar's pipeline with its sessions", () => {
    const stages = overTheWire([
      { $match: { "lsid.id": { $nin: [OWN_SESSION] }, ...(SIDECAR_PIPELINE[0]!.$match as Document) } },
      ...SIDECAR_PIPELINE.slice(1),
    ]);
    const dropped = new Set<boolean>();
    fc.assert(
      fc.property(updateInSession, ({ generated, session }) => {
        const event = overTheWire({
          ...withoutImage(generated),
          ...(session ? { lsid: { id: session } } : {}),
        });
        dropped.add(assertOplogFilterAgrees(stages, event, overTheWire(generated.postImage)));
      }),
      { numRuns: 600 },
    );
    assert.deepEqual([...dropped].sort(), [false, true]);
  });

  void it("on generated filters", () => {
    fc.assert(
      fc.property(filter, updateWithImage, (match, generated) => {
        const stages = overTheWire([{ $match: match }, { $project: { ns: 1, fullDocument: 1 } }]);
        assertOplogFilterAgrees(
          stages,
          overTheWire(withoutImage(generated)),
          overTheWire(generated.postImage),
        );
      }),
      { numRuns: 1500 },
    );
  });
});

void describe("the prefilter agrees with the whole pipeline", () => {
  void it("on generated update events through the sidecar's pipeline", () => {
    const verdicts = new Set<string>();
    fc.assert(
      fc.property(updateWithImage, (generated) => {
        const event = overTheWire(withoutImage(generated));
        const image = overTheWire(generated.postImage);
        assertAgrees(SIDECAR_PIPELINE, event, image);
        verdicts.add(compileEventPrefilter(SIDECAR_PIPELINE).judge(event));
      }),
      { numRuns: 600 },
    );
    // The property says something of each verdict only if each was given.
    assert.deepEqual([...verdicts].sort(), ["matches", "needsImage", "rejects"]);
  });

  void it("on generated filters, in any order of their clauses", () => {
    fc.assert(
      fc.property(filter, updateWithImage, (match, generated) => {
        const stages = overTheWire([{ $match: match }, { $project: { ns: 1, fullDocument: 1 } }]);
        assertAgrees(stages, overTheWire(withoutImage(generated)), overTheWire(generated.postImage));
      }),
      { numRuns: 1500 },
    );
  });
});
