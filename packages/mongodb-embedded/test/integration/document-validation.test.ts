// A collection's validator (query operators), validationLevel and validationAction, and the
// errInfo of DocumentValidationFailure, as mongod reports them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { useTestDatabase } from "../support/mongo.js";
import { validationFailure } from "../support/validation.js";

const fixture = useTestDatabase("server_validation");

const failure = validationFailure;

void test("an insert breaking the validator fails with DocumentValidationFailure and mongod's errInfo", async () => {
  await fixture.db.createCollection("typed", { validator: { x: { $type: "string" } } });
  const error = await failure(fixture.db.collection("typed").insertOne({ _id: 1, x: 1 } as never));
  assert.equal(error.code, 121);
  assert.deepEqual(error.errInfo, {
    failingDocumentId: 1,
    details: {
      operatorName: "$type",
      specifiedAs: { x: { $type: "string" } },
      reason: "type did not match",
      consideredValue: 1,
      consideredType: "int",
    },
  });
  assert.equal(await fixture.db.collection("typed").countDocuments({}), 0);
});

void test("collMod adds a validator that a findOneAndUpdate breaking it fails on, with the failing clauses", async () => {
  const collection = fixture.db.collection<{ _id: number; x: unknown; n: number }>("modded");
  await collection.insertOne({ _id: 1, x: "a", n: 5 } as never);
  await fixture.db.command({
    collMod: "modded",
    validator: { x: { $type: "string" }, n: { $gt: 0, $lt: 10 } },
  });
  const error = await failure(collection.findOneAndUpdate({ _id: 1 }, { $set: { x: 2, n: 20 } }));
  assert.equal(error.code, 121);
  assert.deepEqual(error.errInfo, {
    failingDocumentId: 1,
    details: {
      operatorName: "$and",
      clausesNotSatisfied: [
        {
          index: 0,
          details: {
            operatorName: "$type",
            specifiedAs: { x: { $type: "string" } },
            reason: "type did not match",
            consideredValue: 2,
            consideredType: "int",
          },
        },
        {
          index: 2,
          details: {
            operatorName: "$lt",
            specifiedAs: { n: { $lt: 10 } },
            reason: "comparison failed",
            consideredValue: 20,
          },
        },
      ],
    },
  });
  assert.deepEqual(await collection.findOne({ _id: 1 }), { _id: 1, x: "a", n: 5 });
});

void test("bypassDocumentValidation lets a write through the validator", async () => {
  await fixture.db.createCollection("bypassed", { validator: { x: { $exists: true } } });
  await fixture.db.collection("bypassed").insertOne({ _id: 1 } as never, { bypassDocumentValidation: true });
  assert.equal(await fixture.db.collection("bypassed").countDocuments({}), 1);
});

void test("validationLevel moderate lets updates of documents that already broke the rules through", async () => {
  const collection = fixture.db.collection("moderate");
  await collection.insertMany([
    { _id: "old", x: 1 },
    { _id: "good", x: "s" },
  ] as never[]);
  await fixture.db.command({
    collMod: "moderate",
    validator: { x: { $type: "string" } },
    validationLevel: "moderate",
  });
  await collection.updateOne({ _id: "old" as never }, { $set: { x: 2 } });
  const error = await failure(collection.updateOne({ _id: "good" as never }, { $set: { x: 3 } }));
  assert.equal(error.code, 121);
  assert.deepEqual(await collection.find({}).sort({ _id: 1 }).toArray(), [
    { _id: "good", x: "s" },
    { _id: "old", x: 2 },
  ]);
});

void test("validationAction warn stores a document that breaks the validator", async () => {
  await fixture.db.createCollection("warned", {
    validator: { x: { $type: "string" } },
    validationAction: "warn",
  });
  await fixture.db.collection("warned").insertOne({ _id: 1, x: 1 } as never);
  assert.equal(await fixture.db.collection("warned").countDocuments({}), 1);
});

void test("listCollections reports the validation options", async () => {
  await fixture.db.createCollection("listed", { validator: { x: { $gte: 0 } }, validationLevel: "strict" });
  const [info] = await fixture.db.listCollections({ name: "listed" }, { nameOnly: false }).toArray();
  assert.deepEqual((info as { options?: unknown } | undefined)?.options, {
    validator: { x: { $gte: 0 } },
    validationLevel: "strict",
  });
});

void test("an invalid validationLevel is refused with BadValue", async () => {
  await assert.rejects(fixture.db.createCollection("bad_level", { validationLevel: "sometimes" as never }), {
    code: 2,
  });
});

void test("an aggregate's $merge is validated unless it bypasses validation", async () => {
  await fixture.db.collection("merge_source").insertOne({ _id: 1, x: 1 } as never);
  await fixture.db.createCollection("merge_target", { validator: { x: { $type: "string" } } });
  const merge = [{ $merge: { into: "merge_target" } }];
  const error = await failure(fixture.db.collection("merge_source").aggregate(merge).toArray());
  assert.equal(error.code, 121);
  await fixture.db.collection("merge_source").aggregate(merge, { bypassDocumentValidation: true }).toArray();
  assert.deepEqual(await fixture.db.collection("merge_target").find({}).toArray(), [{ _id: 1, x: 1 }]);
});
