import { test } from "node:test";
import assert from "node:assert/strict";
import { MongoNetworkError, MongoServerError } from "mongodb";
import { PoisonEvents } from "../../../src/stream/events/poison-events.js";

const tooLarge = () => new MongoServerError({ code: 10334, errmsg: "BSONObj size: 19576895 is invalid" });

void test("failures at one position go from retry to a narrower stream to a sweep, then start over", () => {
  const poison = new PoisonEvents();
  poison.eventRead(5n);
  assert.deepEqual(
    [1, 2, 3, 4].map(() => {
      const escalation = poison.streamFailed(tooLarge());
      return [escalation, poison.mode];
    }),
    [
      ["retry", "full"],
      ["narrow", "narrow"],
      ["sweep", "full"],
      ["retry", "full"],
    ],
  );
});

void test("an event read past the failures' position forgets them, a replayed one does not", () => {
  const poison = new PoisonEvents();
  poison.eventRead(5n);
  poison.streamFailed(tooLarge());
  poison.eventRead(3n);
  poison.eventRead(5n);
  assert.equal(poison.streamFailed(tooLarge()), "narrow");
  poison.eventRead(6n);
  assert.equal(poison.mode, "full");
  assert.equal(poison.streamFailed(tooLarge()), "retry");
});

void test("a narrow stretch that ends without failing gives the next read back to the full stream", () => {
  const poison = new PoisonEvents();
  poison.streamFailed(tooLarge());
  poison.streamFailed(tooLarge());
  poison.stretchRead();
  assert.equal(poison.mode, "full");
  assert.equal(poison.streamFailed(tooLarge()), "retry");
});

void test("network errors and refused credentials are never taken for a poison event", () => {
  const poison = new PoisonEvents();
  for (const error of [
    new MongoNetworkError("connection reset"),
    new MongoServerError({ code: 13, errmsg: "not authorized" }),
    new MongoServerError({ code: 18, errmsg: "Authentication failed" }),
  ]) {
    assert.equal(poison.streamFailed(error), "retry");
    assert.equal(poison.streamFailed(error), "retry");
  }
});

void test("the newest event read is printed as a Timestamp's seconds and increment", () => {
  const poison = new PoisonEvents();
  assert.equal(poison.newestRead, undefined);
  poison.eventRead((1_700_000_000n << 32n) | 7n);
  assert.deepEqual(poison.newestRead, { t: 1_700_000_000, i: 7 });
});
