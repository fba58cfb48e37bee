// The subset's copy ledger is pruned by the position the stream has processed: entries copied
// before it (less a margin for the clocks) go, newer ones and the rest of the state collection stay.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "../../../../src/ops/logger.js";
import { createMetrics } from "../../../../src/ops/metrics.js";
import { PRUNE_MARGIN_SECONDS } from "../../../../src/patterns/subset/copy-ledger.js";
import { StatePruning } from "../../../../src/stream/position/state-pruning.js";
import type { PatternRule } from "../../../../src/patterns/driver.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { outlierRule, subsetRule } from "../../../unit/patterns/support/rules.js";

const fixture = useTestDatabase("copy_ledger_pruning");
const STATE = "pattern_sidecar_state";

function pruning(intervalMs = 0, rules: PatternRule[] = [subsetRule]): StatePruning {
  return new StatePruning(
    fixture.db,
    rules,
    STATE,
    createLogger({ level: "silent" }),
    createMetrics(),
    intervalMs,
  );
}

async function remainingIds(): Promise<unknown[]> {
  const docs = await fixture.db.collection(STATE).find({}).sort({ _id: 1 }).toArray();
  return docs.map((doc) => doc._id);
}

void test("ledger records written before the processed position, less the margin, are pruned; the rest stays", async () => {
  const position = 1_700_000_000;
  const at = (seconds: number) => new Date(seconds * 1000);
  const records = [{ copied: 1, rule: subsetRule.name, source: 1, entry: 1 }];
  await fixture.db.collection(STATE).insertMany([
    { _id: "batch-old" as never, records, recordedAt: at(position - PRUNE_MARGIN_SECONDS - 1) },
    { _id: "batch-within-margin" as never, records, recordedAt: at(position - PRUNE_MARGIN_SECONDS + 1) },
    { _id: "batch-after" as never, records, recordedAt: at(position + 10) },
    // An earlier version's document per copy, pruned alike.
    { _id: { copied: "old" } as never, copiedAt: at(position - PRUNE_MARGIN_SECONDS - 1) },
    { _id: { copied: "after" } as never, copiedAt: at(position + 10) },
    { _id: "changestream:shop" as never, updatedAt: at(0) },
  ]);
  await pruning().positionPersisted(position);
  assert.deepEqual(await remainingIds(), [
    "batch-after",
    "batch-within-margin",
    "changestream:shop",
    { copied: "after" },
  ]);
});

void test("pruning runs at most once per interval", async () => {
  await fixture.db.collection(STATE).deleteMany({});
  const once = pruning(60_000);
  await once.positionPersisted(1_700_000_000);
  await fixture.db.collection(STATE).insertOne({ _id: { copied: "later" } as never, copiedAt: new Date(0) });
  await once.positionPersisted(1_700_000_100);
  assert.deepEqual(await remainingIds(), [{ copied: "later" }]);
});

void test("without a rule whose pattern keeps records, the state collection is left alone", async () => {
  await fixture.db.collection(STATE).deleteMany({});
  await fixture.db.collection(STATE).insertOne({ _id: { copied: "old" } as never, copiedAt: new Date(0) });
  await pruning(0, [outlierRule]).positionPersisted(1_700_000_000);
  assert.deepEqual(await remainingIds(), [{ copied: "old" }]);
});
