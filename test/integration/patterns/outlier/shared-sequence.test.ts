// Two overflow chunks of one book that an application gave the same `seq`: the index returns
// them in no defined order, so the sidecar appends to neither, and its extras go to a new
// chunk numbered after both, whichever of them the read returned last.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Document } from "mongodb";
import { outlierDriver } from "../../../../src/patterns/outlier/index.js";
import type { CorrectionTarget } from "../../../../src/patterns/driver.js";
import { applyWrites } from "../../../../src/stream/correction/apply.js";
import { foldRecords } from "../../../../src/patterns/records.js";
import { useTestDatabase } from "../../../support/mongo.js";
import { outlierRule, users } from "../../../unit/patterns/support/rules.js";

const rule = { ...outlierRule, chunkSize: 10 };

const fixture = useTestDatabase("shared_sequence", {
  async setUp({ db }) {
    for (const index of outlierDriver.collections.indexes(rule))
      await db.collection(index.collection).createIndex(index.keys, index.options ?? {});
  },
});

async function correctBook(bookId: number): Promise<void> {
  const target: CorrectionTarget<typeof rule> = { rule, role: "source", collection: "sales", id: bookId };
  await fixture.mongo.client.withSession((session) =>
    session.withTransaction(async () => {
      const plan = await outlierDriver.planning.plan(fixture.db, target, {
        session,
        stateCollection: "state",
      });
      assert.equal(plan.outcome, "writes");
      if (plan.outcome === "writes") await applyWrites(fixture.db, foldRecords(plan.writes), session);
    }),
  );
}

const chunksOf = (bookId: number) =>
  fixture.db
    .collection<Document>("extra_sales")
    .find({ book_id: bookId }, { projection: { _id: 1, seq: 1, customers_purchased_extra: 1 } })
    .sort({ seq: 1, _id: 1 })
    .toArray();

for (const [bookId, order, ids] of [
  [1, "inserted in _id order", ["a", "b"]],
  [2, "inserted against _id order", ["b", "a"]],
] as const) {
  void test(`extras of a book whose last two chunks share a seq go to a new chunk after both (${order})`, async () => {
    for (const id of ids)
      await fixture.db.collection("extra_sales").insertOne({
        _id: `${bookId}${id}` as never,
        book_id: bookId,
        seq: 0,
        customers_purchased_extra: [`app-${id}`],
      });
    await fixture.db
      .collection("sales")
      .insertOne({ _id: bookId as never, customers_purchased: users(0, 53), has_extras: true });
    await correctBook(bookId);
    assert.deepEqual(await chunksOf(bookId), [
      { _id: `${bookId}a`, seq: 0, customers_purchased_extra: ["app-a"] },
      { _id: `${bookId}b`, seq: 0, customers_purchased_extra: ["app-b"] },
      { _id: { book_id: bookId, seq: 1 }, seq: 1, customers_purchased_extra: users(50, 53) },
    ]);
  });
}
