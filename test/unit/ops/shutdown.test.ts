import { test } from "node:test";
import assert from "node:assert/strict";
import { createShutdownStack } from "../../../src/ops/shutdown.js";

void test("cleanups run newest first, exactly once however often close is called", async () => {
  const ran: string[] = [];
  const stack = createShutdownStack();
  stack.defer("client", () => ran.push("client"));
  stack.defer("stream", async () => {
    ran.push("stream");
  });
  await Promise.all([stack.close(), stack.close()]);
  await stack.close();
  assert.deepEqual(ran, ["stream", "client"]);
});

void test("a failing cleanup is reported and the earlier ones still run", async () => {
  const ran: string[] = [];
  const failures: string[] = [];
  const stack = createShutdownStack((failure) => failures.push(`${failure.name}: ${failure.error.message}`));
  stack.defer("client", () => ran.push("client"));
  stack.defer("http", () => {
    throw new Error("already closed");
  });
  await stack.close();
  assert.deepEqual(ran, ["client"]);
  assert.deepEqual(failures, ["http: already closed"]);
});
