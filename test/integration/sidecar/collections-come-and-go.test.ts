// An operator drops a collection the sidecar owns, or the whole database: the sidecar logs
// it, makes the collections and their indexes again, and goes on correcting.
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { useTestDatabase } from "../../support/mongo.js";
import { insertBook, isBookCorrected, startSidecar, testConfig, type TestSidecar } from "./harness.js";

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
