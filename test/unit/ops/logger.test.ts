import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { createLogger } from "../../../src/ops/logger.js";

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ destination }), lines };
}

void test("a logged error that quotes a connection string does not carry its password", () => {
  const { logger, lines } = capturingLogger();
  const err = new Error("connect failed: mongodb://admin:s3cret@db.example.com/shop");
  logger.error({ err }, "sidecar failed");
  assert.equal(lines.length, 1);
  assert.doesNotMatch(lines[0] ?? "", /s3cret/);
  assert.match(lines[0] ?? "", /mongodb:\/\/admin:\*\*\*\*@db\.example\.com\/shop/);
});

void test("a connection string logged as a uri field is censored", () => {
  const { logger, lines } = capturingLogger();
  logger.info({ uri: "mongodb://admin:s3cret@db.example.com/shop" }, "connecting");
  assert.doesNotMatch(lines[0] ?? "", /s3cret/);
});
