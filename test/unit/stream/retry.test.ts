import { test } from "node:test";
import assert from "node:assert/strict";
import { retryWithBackoff } from "../../../src/stream/retry.js";

// A retry that waited would wait this long: the test's timeout fails it instead.
const ENDLESS_BACKOFF = { baseMs: 1e9, maxMs: 1e9 };
const FAILS_INSTEAD_OF_WAITING = { timeout: 10_000 };

class NothingToWaitFor extends Error {}

void test(
  "an error with nothing to wait out is retried at once, and still counted as a retry",
  FAILS_INSTEAD_OF_WAITING,
  async () => {
    const retried: number[] = [];
    const result = await retryWithBackoff(
      (attempt) => {
        if (attempt < 3) throw new NothingToWaitFor(`attempt ${attempt}`);
        return Promise.resolve(`done at attempt ${attempt}`);
      },
      {
        backoff: ENDLESS_BACKOFF,
        shouldRetry: () => true,
        waitsBefore: (error) => !(error instanceof NothingToWaitFor),
        onRetry: (_error, attempt) => retried.push(attempt),
      },
    );
    assert.equal(result, "done at attempt 3");
    assert.deepEqual(retried, [1, 2]);
  },
);

void test("an error worth waiting out is waited for: an abort during the wait ends the loop with it", async () => {
  const controller = new AbortController();
  const conflict = new Error("write conflict");
  const attempts: number[] = [];
  const retrying = retryWithBackoff(
    (attempt) => {
      attempts.push(attempt);
      throw conflict;
    },
    {
      backoff: ENDLESS_BACKOFF,
      // Bounded, so that a loop that did not wait ends with its attempts counted, not hangs.
      shouldRetry: (_error, attempt) => attempt < 5,
      waitsBefore: () => true,
      onRetry: () => setImmediate(() => controller.abort()),
      signal: controller.signal,
    },
  );
  await assert.rejects(retrying, (thrown) => thrown === conflict);
  assert.deepEqual(attempts, [1]);
});
