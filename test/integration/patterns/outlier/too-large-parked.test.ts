// A move the server refuses as too large for its cache (TransactionTooLargeForCache, code 429,
// through the real failCommand) cannot be made in parts by the outlier pattern: the book is
// parked at once with the reason "too_large", and left whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitUntil } from "../../../../src/cli/wait-until.js";
import {
  allPurchasers,
  CORRECTION_INSERT_COMMANDS,
  failSidecarCommands,
  insertBook,
  turnFailPointOff,
  useSidecarOnFreshDatabase,
} from "../../../support/harness.js";

const fixture = useSidecarOnFreshDatabase("outlier_too_large", {
  maxTransactionAttempts: 2,
  parkAfterAttempts: 8,
});

void test("an outlier move too large for the server's cache is parked as too_large, the book left whole", async () => {
  await failSidecarCommands(fixture.mongo, {
    commands: CORRECTION_INSERT_COMMANDS,
    errorCode: 429,
    mode: "alwaysOn",
  });
  try {
    await insertBook(fixture.db, 1, 5_050);
    const parked = await waitUntil(
      () => fixture.db.collection("pattern_sidecar_state").findOne({ "_id.parked": { $exists: true } }),
      { description: "the book parked" },
    );
    assert.equal(parked.reason, "too_large");
    assert.equal(parked.attempts, 1);
    assert.equal((await allPurchasers(fixture.db, 1)).length, 5_050);
  } finally {
    await turnFailPointOff(fixture.mongo);
  }
});
