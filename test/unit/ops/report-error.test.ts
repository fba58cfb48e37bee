import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { MongoServerError } from "mongodb";
import { createLogger } from "../../../src/ops/logger.js";
import { createMetrics } from "../../../src/ops/metrics.js";
import { reportError } from "../../../src/ops/report-error.js";

function sink() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { metrics: createMetrics(), logger: createLogger({ destination }), lines };
}

void test("a reported write conflict is counted as transient and logged with its kind and context", async () => {
  const reported = sink();
  const conflict = new MongoServerError({ message: "write conflict", code: 112 });
  const kind = reportError(reported, conflict, "could not prune the copy ledger", {
    fields: { collection: "pattern_sidecar" },
  });
  assert.equal(kind, "transient");
  const counted = await reported.metrics.errors.get();
  assert.equal(counted.values.find((value) => value.labels.kind === "transient")?.value, 1);
  const [line] = reported.lines;
  assert.equal(line?.level, 40);
  assert.equal(line?.kind, "transient");
  assert.equal(line?.collection, "pattern_sidecar");
  assert.equal(line?.msg, "could not prune the copy ledger");
  assert.equal((line?.err as { message?: string } | undefined)?.message, "write conflict");
});

void test("anything thrown is reported as an error with a message", () => {
  const reported = sink();
  assert.equal(reportError(reported, "a string", "runner failed", { level: "error" }), "fatal");
  assert.equal(reported.lines[0]?.level, 50);
  assert.match(String((reported.lines[0]?.err as { message?: string }).message), /a string/);
});
