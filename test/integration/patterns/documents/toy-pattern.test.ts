// A fourth pattern, defined here and registered beside the built-in ones, runs end to end
// through the runner (first-start sweep, then the change stream) with no change to
// src/stream/, the configuration or the metrics: a pattern is its driver and nothing else.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Db, Document } from "mongodb";
import { z } from "zod";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import {
  arraySize,
  fullDocumentPath,
  writesMatching,
} from "../../../../src/patterns/events/event-filters.js";
import { documentsMatching } from "../../../../src/patterns/reads/sweep-queries.js";
import type { PatternDriver, PatternRule } from "../../../../src/patterns/driver.js";
import type { Plan } from "../../../../src/patterns/plan.js";
import { registerPattern } from "../../../../src/patterns/registry.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { metricTotal, startSidecar, testConfig, type TestSidecar } from "../../../support/harness.js";

/** "Cap": an array keeps at most `threshold` entries; the rest moves, in order, to `spillField`. */
const capRuleSchema = z.strictObject({
  name: z.string(),
  enabled: z.boolean(),
  pattern: z.literal("cap"),
  collection: z.string(),
  arrayField: z.string(),
  threshold: z.number().int().positive(),
  spillField: z.string(),
});
type CapRule = z.infer<typeof capRuleSchema> & PatternRule;

function tooLong(rule: CapRule): Document {
  return { $expr: { $gt: [arraySize(fullDocumentPath(rule.arrayField)), rule.threshold] } };
}

function planCap(rule: CapRule, doc: Document): Plan {
  const entries: unknown = doc[rule.arrayField];
  if (!Array.isArray(entries) || entries.length <= rule.threshold) return { outcome: "none" };
  const excess = entries.slice(rule.threshold);
  const write = {
    op: "updateOne" as const,
    collection: rule.collection,
    filter: { _id: doc._id, [rule.arrayField]: { $size: entries.length } },
    update: {
      $set: { [rule.arrayField]: entries.slice(0, rule.threshold) },
      $push: { [rule.spillField]: { $each: excess } },
    },
  };
  return { outcome: "writes", kind: "moved", writes: [write], elementsMoved: excess.length };
}

const capDriver: PatternDriver<CapRule> = {
  pattern: "cap",
  ruleSchema: capRuleSchema,
  ownedCollectionKeys: [],
  stream: {
    watchedCollections: (rule) => [rule.collection],
    eventFilters: (rule) => [writesMatching(rule.collection, tooLong(rule))],
    // Its filter reads the whole document, which an update's event carries only when looked up.
    needsUpdateLookup: () => true,
    projectedFields: () => [],
    targetsOf: (rule, { collection, id }) =>
      collection === rule.collection ? [{ rule, role: "document", collection, id }] : [],
  },
  planning: {
    async plan(db, { rule, id }, { session }) {
      const doc = await db.collection(rule.collection).findOne({ _id: id as never }, { session });
      return doc ? planCap(rule, doc) : { outcome: "none" };
    },
  },
  collections: { indexes: () => [] },
  sweepSources: (rule) => [
    documentsMatching("document", rule.collection, tooLong(rule), (id) => ({
      rule,
      role: "document",
      collection: rule.collection,
      id,
    })),
  ],
  correctionSeries: (rule) => [{ collection: rule.collection, kinds: ["moved"] }],
  describe: (rule) =>
    `${rule.collection}.${rule.arrayField}: at most ${rule.threshold}, the rest to ${rule.spillField}`,
};
registerPattern(capDriver);

const capRule: CapRule = capRuleSchema.parse({
  name: "notes.cap",
  enabled: true,
  pattern: "cap",
  collection: "notes",
  arrayField: "lines",
  threshold: 3,
  spillField: "older_lines",
});

let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("toy_pattern", { tearDown: async () => sidecar?.stop() });

async function isCapped(db: Db, id: number, total: number): Promise<boolean> {
  const doc = await db.collection("notes").findOne({ _id: id as never });
  const lines = (doc?.lines ?? []) as number[];
  const older = (doc?.older_lines ?? []) as number[];
  return lines.length === 3 && [...lines, ...older].length === total;
}

void test("a pattern registered outside src/stream is swept on first start and then corrected from the stream", async () => {
  const { db, mongo } = fixture;
  const notes = db.collection<{ _id: number; lines: number[] }>("notes");
  await notes.insertOne({ _id: 1, lines: [1, 2, 3, 4, 5] });
  const config = { ...testConfig(db.databaseName), rules: [capRule] };
  sidecar = await startSidecar(mongo, config);
  await notes.insertOne({ _id: 2, lines: [1, 2] });
  await notes.updateOne({ _id: 2 }, { $push: { lines: { $each: [3, 4, 5, 6] } } });
  await waitUntil(async () => (await isCapped(db, 1, 5)) && (await isCapped(db, 2, 6)), {
    description: "both notes capped",
  });

  const capped = await db.collection("notes").find().sort({ _id: 1 }).toArray();
  assert.deepEqual(
    capped.map((note) => [note.lines, note.older_lines]),
    [
      [
        [1, 2, 3],
        [4, 5],
      ],
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    ],
  );
  assert.equal(await metricTotal(sidecar.metrics.corrections, { rule: "notes.cap", kind: "moved" }), 2);
  assert.equal(await metricTotal(sidecar.metrics.elementsMoved, { rule: "notes.cap" }), 5);
});
