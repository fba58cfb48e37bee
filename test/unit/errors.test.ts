import { test } from "node:test";
import assert from "node:assert/strict";
import { MongoNetworkError, MongoServerError, MongoWriteConcernError } from "mongodb";
import {
  BadDocumentError,
  classify,
  ConfigError,
  isRedone,
  isRetryableTransactionError,
  StalePlanError,
  WritePathChangedError,
} from "../../src/errors.js";

function serverError(code: number, labels: string[] = []) {
  const error = new MongoServerError({ ok: 0, code, errmsg: `code ${code}`, errorLabels: labels });
  return error;
}

void test("ChangeStreamHistoryLost, ChangeStreamFatalError and InvalidResumeToken mean history is lost", () => {
  for (const code of [286, 280, 260]) assert.equal(classify(serverError(code)), "history_lost");
});

void test("a write conflict is transient and worth retrying the transaction", () => {
  const conflict = serverError(112, ["TransientTransactionError"]);
  assert.equal(classify(conflict), "transient");
  assert.equal(isRetryableTransactionError(conflict), true);
});

void test("a plan that no longer held and a changed write path redo the transaction with nothing to wait out", () => {
  for (const redo of [new StalePlanError("stale", {}), new WritePathChangedError("no bulkWrite", {})]) {
    assert.equal(isRetryableTransactionError(redo), true);
    assert.equal(isRedone(redo), true);
  }
  assert.equal(isRedone(serverError(112, ["TransientTransactionError"])), false);
});

void test("network errors and resumable change-stream errors are resumable", () => {
  assert.equal(classify(new MongoNetworkError("socket closed")), "resumable");
  assert.equal(classify(serverError(11602)), "resumable");
  assert.equal(classify(serverError(9999, ["ResumableChangeStreamError"])), "resumable");
});

void test("a document the rule cannot plan for is a bad document", () => {
  assert.equal(classify(new BadDocumentError("date is a string", { key: 1 })), "bad_document");
});

void test("a write the server refuses for what the document holds is a bad document", () => {
  // DocumentValidationFailure, DuplicateKey, BSONObjectTooLarge, BadValue, TypeMismatch,
  // DollarPrefixedFieldName, and a document grown past 16 MiB by an update
  for (const code of [121, 11000, 10334, 2, 14, 52, 17419, 17420])
    assert.equal(classify(serverError(code)), "bad_document", `code ${code}`);
});

void test("a refused write labelled transient or retryable stays transient", () => {
  assert.equal(classify(serverError(11000, ["TransientTransactionError"])), "transient");
  assert.equal(classify(serverError(121, ["RetryableWriteError"])), "transient");
  assert.equal(classify(serverError(112)), "transient", "WriteConflict without its label");
});

void test("a write concern error is never blamed on the document", () => {
  const error = new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 121, errmsg: "validation" } });
  assert.notEqual(classify(error), "bad_document");
});

void test("anything else is fatal", () => {
  assert.equal(classify(serverError(13, [])), "fatal");
  assert.equal(classify(new TypeError("bug")), "fatal");
  assert.equal(classify("a string"), "fatal");
});

void test("a configuration error quoting a 5 MiB value is masked without a freeze", () => {
  const value = "x".repeat(5 * 1024 * 1024);
  const message = `rules[0].arrayField: expected a field name, got "${value}"`;
  assert.equal(new ConfigError(message).message, message);
});
