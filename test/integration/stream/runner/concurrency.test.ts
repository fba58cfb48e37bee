import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import { allPurchasers, useSidecarOnFreshDatabase } from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("concurrency");

const WRITERS = 4;
const PURCHASES_PER_WRITER = 60;

async function writer(name: string): Promise<void> {
  const sales = fixture.db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  for (let i = 0; i < PURCHASES_PER_WRITER; i++) {
    await sales.updateOne({ _id: 7 }, { $push: { customers_purchased: `${name}-${i}` } });
  }
}

void test("purchases pushed by concurrent writers while the sidecar corrects are all kept once, in order per writer", async () => {
  await fixture.db
    .collection("sales")
    .insertOne({ _id: 7 as never, title: "Bestseller", customers_purchased: [] });
  const names = Array.from({ length: WRITERS }, (_, i) => `w${i}`);
  await Promise.all(names.map(writer));

  const everything = await waitUntil(
    async () => {
      const book = await fixture.db.collection("sales").findOne({ _id: 7 as never });
      const all = await allPurchasers(fixture.db, 7);
      return (book?.customers_purchased as unknown[]).length <= 50 &&
        all.length === WRITERS * PURCHASES_PER_WRITER
        ? all
        : undefined;
    },
    { timeoutMs: 15_000, description: "the book to be back under the threshold with every purchase kept" },
  );
  assert.equal(new Set(everything).size, everything.length, "no purchase duplicated");
  for (const name of names) {
    const mine = everything.filter((entry) => entry.startsWith(`${name}-`));
    assert.deepEqual(
      mine,
      Array.from({ length: PURCHASES_PER_WRITER }, (_, i) => `${name}-${i}`),
    );
  }
});
