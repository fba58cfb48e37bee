import assert from "node:assert/strict";
import { test } from "node:test";
import { Timestamp } from "mongodb";
import { timeOrder, tokenClusterTime } from "../../../../src/stream/position/token-time.js";

void test("a mongod resume token's cluster time is read from the KeyString at the head of its _data", () => {
  // mongod's layout: the Timestamp type byte, the seconds and the increment big-endian, then
  // the rest of the token's KeyString (here a made-up tail).
  const token = { _data: `82${(1630438675).toString(16).toUpperCase()}000000012B022C0100296E5A1004` };
  const time = tokenClusterTime(token);
  assert.ok(time);
  assert.deepEqual([time.high >>> 0, time.low >>> 0], [1630438675, 1]);
});

void test("a token of another format has no time read", () => {
  assert.equal(tokenClusterTime({ _data: "01612E851300000001" }), undefined);
  assert.equal(tokenClusterTime({ _data: 7 }), undefined);
});

void test("timestamps order by seconds, then increment", () => {
  const early = new Timestamp({ t: 100, i: 0xffffffff });
  const late = new Timestamp({ t: 101, i: 0 });
  assert.ok(timeOrder(early) < timeOrder(late));
});
