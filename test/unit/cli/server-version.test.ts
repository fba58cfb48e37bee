import { test } from "node:test";
import assert from "node:assert/strict";
import { checkServerVersion } from "../../../src/cli/deployment.js";
import { EXIT_STATUS, OperationalError } from "../../../src/cli/failures.js";

const URI = "mongodb://app:secret@db.example:27017/shop";

void test("a MongoDB older than 5.0 is refused in one line naming the version, with exit status 9", () => {
  assert.throws(
    () => checkServerVersion({ maxWireVersion: 9 }, URI),
    (error: unknown) =>
      error instanceof OperationalError &&
      error.exitStatus === EXIT_STATUS.serverTooOld &&
      /older than 5\.0 \(wire version 9\)/.test(error.message) &&
      !error.message.includes("secret"),
  );
});

void test("MongoDB 5.0 and later pass, and a hello without a wire version does not", () => {
  for (const maxWireVersion of [13, 17, 21, 25]) checkServerVersion({ maxWireVersion }, URI);
  assert.throws(() => checkServerVersion({}, URI), OperationalError);
});
