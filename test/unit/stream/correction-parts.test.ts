import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { MongoServerError } from "mongodb";
import { BatchTooLargeError, CorrectionFailedError, TransactionTooLargeError } from "../../../src/errors.js";
import { CODE } from "../../../src/mongodb-codes.js";
import { createLogger } from "../../../src/ops/logger.js";
import { correctInParts, type PartRunner } from "../../../src/stream/correction/correction-parts.js";
import { outlierRule } from "../patterns/support/rules.js";

const logger = createLogger({ destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
const target = { rule: outlierRule, role: "source", collection: "sales", id: 1 };

/** A pattern that cannot make parts: its part is the whole correction, over any bound. */
const noParts: PartRunner = {
  correctPart: () => Promise.reject(new BatchTooLargeError("the plans would write 977 documents")),
  recordPart: () => undefined,
};

function conflictedAtEveryAttempt(): CorrectionFailedError {
  const conflict = new MongoServerError({ code: CODE.WriteConflict, errmsg: "WriteConflict" });
  conflict.addErrorLabel("TransientTransactionError");
  return new CorrectionFailedError("transaction failed after 2 attempts", {}, { cause: conflict });
}

// Contention with the applications ends attempts as cache pressure does: the correction is
// retried and parked as "failed" as any other, not parked at once as too large.
void test("a correction that conflicted at every attempt and cannot be made in parts fails as it did", async () => {
  const failure = conflictedAtEveryAttempt();
  await assert.rejects(
    correctInParts({ logger }, target, 977, noParts, failure),
    (thrown) => thrown === failure,
  );
});

void test("a correction the server calls too large for its cache, that cannot be made in parts, is too large", async () => {
  const failure = new MongoServerError({ code: CODE.TransactionTooLargeForCache, errmsg: "too large" });
  await assert.rejects(
    correctInParts({ logger }, target, 977, noParts, failure),
    (thrown) => thrown instanceof TransactionTooLargeError,
  );
});
