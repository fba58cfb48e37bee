import assert from "node:assert/strict";
import { test } from "node:test";
import { MongoServerError } from "mongodb";
import { CorrectionFailedError } from "../../../src/errors.js";
import { CODE } from "../../../src/mongodb-codes.js";
import {
  LARGE_TRANSACTION_WRITES,
  tooLargeToCommit,
} from "../../../src/stream/correction/correction-parts.js";

function conflictedAtEveryAttempt(): CorrectionFailedError {
  const conflict = new MongoServerError({ code: CODE.WriteConflict, errmsg: "WriteConflict" });
  conflict.addErrorLabel("TransientTransactionError");
  return new CorrectionFailedError("transaction failed after 2 attempts", {}, { cause: conflict });
}

void test("a small transaction that conflicted at every attempt is retried whole, not made in parts", () => {
  assert.equal(tooLargeToCommit(conflictedAtEveryAttempt(), 4), false);
  assert.equal(tooLargeToCommit(conflictedAtEveryAttempt(), LARGE_TRANSACTION_WRITES - 1), false);
});

void test("a large transaction that conflicted at every attempt is made in parts", () => {
  assert.equal(tooLargeToCommit(conflictedAtEveryAttempt(), LARGE_TRANSACTION_WRITES), true);
});

void test("a transaction the server calls too large for its cache is made in parts whatever its size", () => {
  const tooLarge = new MongoServerError({ code: CODE.TransactionTooLargeForCache, errmsg: "too large" });
  assert.equal(tooLargeToCommit(tooLarge, 4), true);
  assert.equal(tooLargeToCommit(tooLarge, 3), false, "fewer writes than two parts need");
});
