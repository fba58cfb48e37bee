// A collection validator's $jsonSchema (src/query/json-schema.ts): writes breaking it fail with
// DocumentValidationFailure (121) and errInfo's schemaRulesNotSatisfied, as mongod reports them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError, type Document } from "mongodb";
import { useTestDatabase } from "../support/mongo.js";
import { validationFailure } from "../support/validation.js";

const fixture = useTestDatabase("server_json_schema");

async function failure(write: Promise<unknown>): Promise<MongoServerError> {
  const error = await validationFailure(write);
  assert.equal(error.code, 121);
  return error;
}

const rules = (error: MongoServerError) =>
  (error.errInfo?.details as Document).schemaRulesNotSatisfied as Document[];

void test("an insert missing a required property fails, naming the missing properties", async () => {
  const schema = { required: ["name", "price"], properties: { name: { bsonType: "string" } } };
  await fixture.db.createCollection("required", { validator: { $jsonSchema: schema } });
  const error = await failure(fixture.db.collection("required").insertOne({ _id: 1, name: "x" } as never));
  assert.equal(error.errInfo?.failingDocumentId, 1);
  assert.equal((error.errInfo?.details as Document).operatorName, "$jsonSchema");
  assert.deepEqual(rules(error), [
    { operatorName: "required", specifiedAs: { required: ["name", "price"] }, missingProperties: ["price"] },
  ]);
  await fixture.db.collection("required").insertOne({ _id: 2, name: "y", price: 3 } as never);
  assert.equal(await fixture.db.collection("required").countDocuments(), 1);
});

void test("a property of the wrong bsonType fails with its type, under propertiesNotSatisfied", async () => {
  const schema = { properties: { name: { bsonType: "string", description: "a name" } } };
  await fixture.db.createCollection("typed", { validator: { $jsonSchema: schema } });
  const error = await failure(fixture.db.collection("typed").insertOne({ _id: 1, name: 5 } as never));
  assert.deepEqual(rules(error), [
    {
      operatorName: "properties",
      propertiesNotSatisfied: [
        {
          propertyName: "name",
          description: "a name",
          details: [
            {
              operatorName: "bsonType",
              specifiedAs: { bsonType: "string" },
              reason: "type did not match",
              consideredValue: 5,
              consideredType: "int",
            },
          ],
        },
      ],
    },
  ]);
});

void test("a push past a property's maxItems fails and leaves the document as it was", async () => {
  const schema = { properties: { list: { bsonType: "array", maxItems: 3 } } };
  await fixture.db.createCollection("bounded", { validator: { $jsonSchema: schema } });
  const collection = fixture.db.collection<{ _id: number; list: number[] }>("bounded");
  await collection.insertOne({ _id: 1, list: [1, 2, 3] });
  const error = await failure(collection.updateOne({ _id: 1 }, { $push: { list: 4 } }));
  const [property] = (rules(error)[0]!.propertiesNotSatisfied as Document[])!;
  const [detail] = property!.details as Document[];
  assert.equal(detail!.operatorName, "maxItems");
  assert.equal(detail!.reason, "array did not match specified length");
  assert.deepEqual((await collection.findOne({ _id: 1 }))?.list, [1, 2, 3]);
});

void test("a $jsonSchema keyword the embedded server does not check is refused when the validator is set", async (t) => {
  if (!fixture.mongo.embedded) return t.diagnostic("mongod checks every keyword");
  await assert.rejects(
    fixture.db.createCollection("patterned", { validator: { $jsonSchema: { patternProperties: {} } } }),
    (error) => error instanceof MongoServerError && error.code === 238,
  );
});
