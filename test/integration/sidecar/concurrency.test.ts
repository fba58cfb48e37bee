import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Db } from "mongodb";
import { waitUntil } from "../../../src/wait-until.js";
import { startTestMongo, uniqueDatabaseName, type TestMongo } from "../../support/mongo.js";
import { allPurchasers, startSidecar, testConfig, type TestSidecar } from "./harness.js";

let mongo: TestMongo;
let db: Db;
let sidecar: TestSidecar;

before(async () => {
  mongo = await startTestMongo();
  const name = uniqueDatabaseName("concurrency");
  db = mongo.client.db(name);
  sidecar = await startSidecar(mongo, testConfig(name));
});

after(async () => {
  await sidecar?.stop();
  await db?.dropDatabase();
  await mongo?.close();
});

const WRITERS = 4;
const PURCHASES_PER_WRITER = 60;

async function writer(name: string): Promise<void> {
  const sales = db.collection<{ _id: number; customers_purchased: string[] }>("sales");
  for (let i = 0; i < PURCHASES_PER_WRITER; i++) {
    await sales.updateOne({ _id: 7 }, { $push: { customers_purchased: `${name}-${i}` } });
  }
}

void test("purchases pushed by concurrent writers while the sidecar corrects are all kept once, in order per writer", async () => {
  await db.collection("sales").insertOne({ _id: 7 as never, title: "Bestseller", customers_purchased: [] });
  const names = Array.from({ length: WRITERS }, (_, i) => `w${i}`);
  await Promise.all(names.map(writer));

  const everything = await waitUntil(
    async () => {
      const book = await db.collection("sales").findOne({ _id: 7 as never });
      const all = await allPurchasers(db, 7);
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
