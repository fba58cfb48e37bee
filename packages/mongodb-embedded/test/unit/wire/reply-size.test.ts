import assert from "node:assert/strict";
import { test } from "node:test";
import { deserialize, Timestamp } from "bson";
import { encodeOpMsg, encodeOpReply } from "../../../src/wire/message.js";

const OP_MSG_BODY_OFFSET = 16 + 4 + 1;
const OP_REPLY_BODY_OFFSET = 16 + 20;
const operationTime = new Timestamp({ t: 1_700_000_000, i: 3 });

/** A reply past bson's 17 MiB serialization buffer, as a command could build one. */
const hugeReply = () => ({ cursor: { firstBatch: ["x".repeat(18 * 1024 * 1024)] }, ok: 1, operationTime });

void test("an OP_MSG reply over 16 MiB + 16 KiB is replaced by mongod's BSONObjectTooLarge error", () => {
  const frame = encodeOpMsg(hugeReply(), 1, 2);
  const reply = deserialize(frame.subarray(OP_MSG_BODY_OFFSET));
  assert.equal(reply.ok, 0);
  assert.equal(reply.code, 10334);
  assert.equal(reply.codeName, "BSONObjectTooLarge");
  assert.match(
    reply.errmsg as string,
    /^BSONObj size: \d+ \(0x[0-9A-F]+\) is invalid\. Size must be between 0 and 16793600\(16MB\)/,
  );
  assert.deepEqual(reply.operationTime, operationTime);
});

void test("a reply just over the limit, though bson could serialize it, fails too", () => {
  const reply = { value: "x".repeat(16 * 1024 * 1024 + 16 * 1024), ok: 1 };
  const frame = encodeOpMsg(reply, 1, 2);
  assert.equal(deserialize(frame.subarray(OP_MSG_BODY_OFFSET)).code, 10334);
});

void test("an OP_REPLY over the limit carries the same error", () => {
  const frame = encodeOpReply(hugeReply(), 1, 2);
  assert.equal(deserialize(frame.subarray(OP_REPLY_BODY_OFFSET)).code, 10334);
});

void test("a reply at 16 MiB is sent as it is", () => {
  const reply = { value: "x".repeat(16 * 1024 * 1024 - 100), ok: 1 };
  const frame = encodeOpMsg(reply, 1, 2);
  assert.equal(deserialize(frame.subarray(OP_MSG_BODY_OFFSET)).ok, 1);
});
