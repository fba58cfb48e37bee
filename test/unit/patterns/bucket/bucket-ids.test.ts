// Bucket keys as the driver hands them over. The sidecar is an ES module and the driver a
// CommonJS one: `import ... from "bson"` here would load bson's ES build, whose ObjectId is
// another class than the one of the documents the driver reads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ObjectId } from "mongodb";
import { baseBucketId, bucketKeyText } from "../../../../src/patterns/bucket/bucket-ids.js";

void test("an ObjectId key, as the driver reads it, builds bucket ids from its hex string", () => {
  const key = new ObjectId("6539a2c7e4b0a1b2c3d4e5f6");
  assert.equal(bucketKeyText(key), "6539a2c7e4b0a1b2c3d4e5f6");
  assert.equal(
    baseBucketId(bucketKeyText(key)!, new Date(1_698_349_623_434)),
    "6539a2c7e4b0a1b2c3d4e5f6_1698349623",
  );
});
