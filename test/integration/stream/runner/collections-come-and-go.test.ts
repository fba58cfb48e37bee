// An operator drops a collection the sidecar owns, or the whole database: the sidecar logs
// it, makes the collections and their indexes again, and goes on correcting.
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { createLogger } from "../../../../src/ops/logger.js";
import { createMetrics } from "../../../../src/ops/metrics.js";
import { ensureCollectionsAndIndexes } from "../../../../src/stream/collections.js";
import { useTestDatabase } from "../../../support/mongo.js";
import {
  insertBook,
  isBookCorrected,
  startSidecar,
  testConfig,
  type TestSidecar,
} from "../../../support/harness.js";

let sidecar: TestSidecar | undefined;
const fixture = useTestDatabase("collections_go", { tearDown: async () => sidecar?.stop() });

async function hasOverflowIndex(): Promise<boolean> {
  const indexes = await fixture.db
    .collection("extra_sales")
    .listIndexes()
    .toArray()
    .catch(() => []);
  return indexes.some((index) => index.key?.book_id === 1 && index.key?.seq === 1);
}

void test("a dropped overflow collection gets its index back and the next document is corrected", async () => {
  sidecar = await startSidecar(fixture.mongo, testConfig(fixture.db.databaseName));
  const running = sidecar;
  assert.ok(await hasOverflowIndex());
  await fixture.db.collection("extra_sales").drop();
  await waitUntil(hasOverflowIndex, { description: "the overflow index to be made again" });
  assert.ok(running.logs.some((line) => line.operationType === "drop"));
  await insertBook(fixture.db, 1, 70);
  await waitUntil(() => isBookCorrected(fixture.db, 1, 70), { description: "book 1 to be corrected" });
});

void test("a dropped collection no rule uses makes nothing again", async () => {
  const running = sidecar!;
  const remade = () => running.logs.filter((line) => line.operationType === "drop").length;
  const before = remade();
  await fixture.db.collection("unrelated").insertOne({ x: 1 });
  await fixture.db.collection("unrelated").drop();
  // A book corrected after the drop shows the stream has read past it.
  await insertBook(fixture.db, 3, 70);
  await waitUntil(() => isBookCorrected(fixture.db, 3, 70), { description: "book 3 to be corrected" });
  assert.equal(remade(), before);
});

void test("making the collections and indexes again sends nothing for what already exists", async () => {
  const client = await fixture.mongo.newClient({ monitorCommands: true });
  const sent: string[] = [];
  client.on("commandStarted", (event) => sent.push(event.commandName));
  const db = client.db(fixture.db.databaseName);
  const { rules, stateCollection } = testConfig(fixture.db.databaseName);
  const logger = createLogger({ level: "silent" });
  await ensureCollectionsAndIndexes(db, rules, stateCollection, logger, createMetrics());
  sent.length = 0;
  await ensureCollectionsAndIndexes(db, rules, stateCollection, logger, createMetrics());
  assert.deepEqual(
    sent.filter((name) => ["create", "collMod", "createIndexes"].includes(name)),
    [],
  );
});

void test("a dropped database does not stop the sidecar: it restarts after the invalidate and corrects again", async () => {
  const running = sidecar!;
  await fixture.db.dropDatabase();
  await waitUntil(() => running.logs.some((line) => /invalidated/.test(String(line.msg))), {
    description: "the invalidate to be logged",
  });
  await waitUntil(hasOverflowIndex, { description: "the overflow index to be made again" });
  await insertBook(fixture.db, 2, 70);
  await waitUntil(() => isBookCorrected(fixture.db, 2, 70), { description: "book 2 to be corrected" });
});
