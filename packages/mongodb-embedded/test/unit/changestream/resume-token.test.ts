import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { Timestamp } from "bson";
import {
  comparePositions,
  decodeResumeToken,
  encodeResumeToken,
  eventPosition,
  highWaterMark,
  timestampToBigInt,
  type StreamPosition,
} from "../../../src/changestream/resume-token.js";
import { ServerError } from "../../../src/errors.js";

const positions = fc.record({
  clusterTime: fc.bigInt({ min: 0n, max: 0xffff_ffff_ffff_fffen }),
  txnOpIndex: fc.integer({ min: 0, max: 100_000 }),
  kind: fc.constantFrom("event" as const, "invalidate" as const),
});

void test("a token decodes to the position it was encoded from", () => {
  fc.assert(
    fc.property(positions, (position) => {
      assert.deepEqual(decodeResumeToken(encodeResumeToken(position), "resumeAfter"), { ...position });
    }),
  );
});

void test("tokens sort as hex strings in the order of their positions", () => {
  fc.assert(
    fc.property(positions, positions, (a, b) => {
      const byString = Math.sign(encodeResumeToken(a)._data.localeCompare(encodeResumeToken(b)._data));
      assert.equal(byString, Math.sign(comparePositions(a, b)));
    }),
  );
});

void test("a transaction's events are ordered by their index inside the commit", () => {
  const time = timestampToBigInt(new Timestamp({ t: 10, i: 1 }));
  assert.ok(comparePositions(eventPosition(time, 0), eventPosition(time, 1)) < 0);
});

void test("an invalidate comes right after the change that caused it", () => {
  const drop: StreamPosition = eventPosition(5n, 0);
  const invalidate: StreamPosition = { ...drop, kind: "invalidate" };
  assert.ok(comparePositions(drop, invalidate) < 0);
  assert.ok(comparePositions(invalidate, eventPosition(5n, 1)) < 0);
});

void test("a high-water mark sorts after every event of its cluster time and before the next", () => {
  assert.ok(comparePositions(eventPosition(7n, 3), highWaterMark(7n)) < 0);
  assert.ok(comparePositions(highWaterMark(7n), eventPosition(8n, 0)) < 0);
});

void test("a token that this server did not issue is refused as InvalidResumeToken", () => {
  assert.throws(
    () => decodeResumeToken({ _data: "8263F0A1B2000000012B022C0100296E5A1004" }, "resumeAfter"),
    (err: unknown) => err instanceof ServerError && err.code === 260,
  );
});

void test("a token without a string _data is refused as mongod refuses it", () => {
  assert.throws(
    () => decodeResumeToken({ data: 1 }, "startAfter"),
    (err: unknown) => err instanceof ServerError && err.code === 40647,
  );
});
