import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { openSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { Long, MongoServerError } from "mongodb";
import { redactUriPasswords } from "../../../src/config/mongodb-uri.js";
import { BadDocumentError } from "../../../src/errors.js";
import { batchedDestination, createLogger } from "../../../src/ops/logger.js";
import { createMetrics } from "../../../src/ops/metrics.js";
import { planSubset } from "../../../src/patterns/subset/planner.js";
import { recordOutcome, type CorrectionContext } from "../../../src/stream/correction/correction.js";
import { subsetRule } from "../patterns/support/rules.js";

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

void test("a logged error quoting a connection string carries none of its secret options", () => {
  const { logger, lines } = capturingLogger();
  const uri =
    "mongodb://key:s3cret@db.example.com/shop?tlsCertificateKeyFilePassword=kp0&authMechanismProperties=AWS_SESSION_TOKEN:tok0";
  logger.error({ err: new Error(`connect failed: ${uri}`) }, "sidecar failed");
  assert.doesNotMatch(lines[0] ?? "", /s3cret|kp0|tok0/);
  assert.match(
    lines[0] ?? "",
    /tlsCertificateKeyFilePassword=\*\*\*\*&authMechanismProperties=AWS_SESSION_TOKEN:\*\*\*\*/,
  );
});

void test("a deployment logged masked, as connecting logs it, carries neither its password nor its proxy's", () => {
  const { logger, lines } = capturingLogger();
  logger.info(
    { deployment: redactUriPasswords("mongodb://admin:pa ss0@host/shop?proxyPassword=pp0") },
    "connected",
  );
  const { deployment } = JSON.parse(lines[0] ?? "{}") as { deployment: string };
  assert.equal(deployment, "mongodb://admin:****@host/shop?proxyPassword=****");
});

void test("a connection string logged as a uri field is censored", () => {
  const { logger, lines } = capturingLogger();
  logger.info({ uri: "mongodb://admin:s3cret@db.example.com/shop" }, "connecting");
  assert.doesNotMatch(lines[0] ?? "", /s3cret/);
});

void test("a batched JSON line reaches its file while the process runs, though far less than a batch waits", async () => {
  const dir = await mkdtemp(join(tmpdir(), "batched-log-"));
  try {
    const file = join(dir, "sidecar.log");
    const logger = createLogger({ destination: batchedDestination(openSync(file, "a")) });
    logger.info({ collection: "sales" }, "corrected document");
    await waitUntil(async () => (await readFile(file, "utf8")).includes('"msg":"corrected document"'), {
      timeoutMs: 5_000,
      intervalMs: 10,
      description: "the line in the file",
    });
  } finally {
    await rm(dir, { recursive: true });
  }
});

void test("batched JSON lines still waiting when the process exits are written", async () => {
  const code = [
    'import { batchedDestination, createLogger } from "./src/ops/logger.ts";',
    "const logger = createLogger({ destination: batchedDestination(1) });",
    'logger.info("first"); logger.info("last before exit");',
  ].join("\n");
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--conditions=source",
    "--import",
    "tsx",
    "--input-type=module",
    "--eval",
    code,
  ]);
  const messages = stdout
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  assert.deepEqual(messages, ["first", "last before exit"]);
});

void test("a batched destination whose reader went away stops logging, and its process still exits", async () => {
  const code = [
    'import { batchedDestination, createLogger } from "./src/ops/logger.ts";',
    "const logger = createLogger({ destination: batchedDestination(1) });",
    'const timer = setInterval(() => logger.info("still here"), 10);',
    "setTimeout(() => clearInterval(timer), 500);",
  ].join("\n");
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "--input-type=module", "--eval", code],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  child.stdout.destroy(); // its writes now fail with EPIPE
  try {
    await waitUntil(() => child.exitCode !== null, { timeoutMs: 15_000, description: "the process to exit" });
    assert.equal(child.exitCode, 0);
  } finally {
    child.kill("SIGKILL");
  }
});

void test("a document key read verbatim is logged as its number, beside a line and in an error's context", () => {
  const { logger, lines } = capturingLogger();
  const key = Long.fromNumber(12);
  logger.warn({ key, err: new BadDocumentError("cannot plan", { rule: "outlier", key }) }, "skipped");
  const line = JSON.parse(lines[0] ?? "{}") as { key: unknown; err: { context: { key: unknown } } };
  assert.equal(line.key, 12);
  assert.equal(line.err.context.key, 12);
});

void test("a document key past 2^53 is logged with every digit, beside a line and in an error's context", () => {
  const { logger, lines } = capturingLogger();
  const key = { book_id: Long.fromString("9007199254740993") };
  logger.warn({ key, err: new BadDocumentError("cannot plan", { rule: "outlier", key }) }, "skipped");
  const line = JSON.parse(lines[0] ?? "{}") as { key: unknown; err: { context: { key: unknown } } };
  const printed = { book_id: { $numberLong: "9007199254740993" } };
  assert.deepEqual(line.key, printed);
  assert.deepEqual(line.err.context.key, printed);
});

const FIVE_MIB = 5 * 1024 * 1024;

/** The line the sidecar logs when it skips product p1, whose reviews array holds `entry`. */
function skipLineFor(entry: unknown): string {
  const { logger, lines } = capturingLogger();
  const plan = planSubset(subsetRule, { source: { _id: "p1", reviews: [entry] }, fullSet: [] });
  assert.equal(plan.outcome, "skip");
  const context = { metrics: createMetrics(), logger } as Pick<CorrectionContext, "metrics" | "logger">;
  const target = { rule: subsetRule, role: "source", collection: subsetRule.collection, id: "p1" };
  recordOutcome(context as CorrectionContext, target, plan, 1);
  assert.equal(lines.length, 1);
  return lines[0]!;
}

void test("a 5 MiB string in a watched array makes a skip line of a few KiB, its size given", () => {
  const line = skipLineFor("x".repeat(FIVE_MIB));
  assert.ok(line.length < 16_384, `a line of ${line.length} characters`);
  const { reason } = JSON.parse(line) as { reason: string };
  assert.match(reason, /^reviews\[0\] is a string \("x+…" \(5242880 bytes\)\), expected a document$/);
});

void test("a logged error's message of 5 MiB is cut, its size given", () => {
  const { logger, lines } = capturingLogger();
  logger.error({ err: new Error(`refused: ${"x".repeat(FIVE_MIB)}`) }, "write refused");
  assert.ok((lines[0] ?? "").length < 32_768, `a line of ${lines[0]?.length} characters`);
  const { err } = JSON.parse(lines[0] ?? "{}") as { err: { message: string; stack: string } };
  assert.match(err.message, /^refused: x+… \(5242889 bytes\)$/);
  assert.match(err.stack, /^Error\n {4}at /);
});

void test("a 5 MiB document key is logged cut, its size given", () => {
  const { logger, lines } = capturingLogger();
  logger.warn({ key: "k".repeat(FIVE_MIB) }, "skipped");
  const { key } = JSON.parse(lines[0] ?? "{}") as { key: string };
  assert.match(key, /^k+… \(5242880 bytes\)$/);
  assert.ok(key.length < 2048);
});

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

void test("a skipped document's line gives the offending value once, in its reason", () => {
  const line = skipLineFor("tel:+44 20 7946 0000");
  assert.equal(occurrences(line, "7946 0000"), 1, line);
  const { reason, err } = JSON.parse(line) as { reason: string; err: { type: string; message?: string } };
  assert.equal(reason, 'reviews[0] is a string ("tel:+44 20 7946 0000"), expected a document');
  assert.equal(err.type, "BadDocumentError");
  assert.equal(err.message, undefined);
});

void test("a skipped document's line gives a 5 MiB value's start once", () => {
  const line = skipLineFor("x".repeat(FIVE_MIB));
  assert.equal(occurrences(line, "x".repeat(200)), 1);
});

void test("a write the server refuses for a duplicate key is logged with the key once, and its labels", () => {
  const { logger, lines } = capturingLogger();
  const err = new MongoServerError({
    ok: 0,
    code: 11000,
    codeName: "DuplicateKey",
    errmsg:
      'E11000 duplicate key error collection: shop.users index: email_1 dup key: { email: "ann@example.com" }',
    keyPattern: { email: 1 },
    keyValue: { email: "ann@example.com" },
    errorLabels: ["NoWritesPerformed"],
  });
  logger.error({ key: 1, err }, "skipped document the server refuses to write; left as it is");
  assert.equal(occurrences(lines[0] ?? "", "ann@example.com"), 1, lines[0]);
  const logged = (JSON.parse(lines[0] ?? "{}") as { err: Record<string, unknown> }).err;
  assert.match(String(logged.message), /dup key: \{ email: "ann@example.com" \}/);
  assert.deepEqual(logged.errorLabels, ["NoWritesPerformed"]);
  assert.equal(logged.code, 11000);
});

void test("a 5 MiB reason is logged cut, its size given", () => {
  const { logger, lines } = capturingLogger();
  logger.warn({ reason: `every suffix of ${"k".repeat(FIVE_MIB)} is taken` }, "skipped");
  assert.ok((lines[0] ?? "").length < 8192);
  assert.match(lines[0] ?? "", /"reason":"every suffix of k+… \(5242905 bytes\)"/);
});
