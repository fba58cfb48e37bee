import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { useTestDatabase } from "../../support/mongo.js";
import { users } from "../../support/harness.js";

const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--conditions=source", "--import", "tsx", "src/main.ts", ...args],
      {
        env: { ...process.env, ...env },
        timeout: 20_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const fixture = useTestDatabase("cli");

void test("bad usage names the argument and exits 2", async () => {
  const result = await cli(["dev-server", "--port", "nope"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--port: expected a port number/);
});

function databaseUri(): string {
  return fixture.mongo.uri.replace(/\/?(\?|$)/, `/${fixture.db.databaseName}$1`);
}

void test("a dry-run sweep reports per rule what it would change, writes nothing and exits 8", async () => {
  await fixture.db.collection("sales").insertOne({ _id: 1 as never, customers_purchased: users(0, 60) });
  const result = await cli(["sweep", "--dry-run"], { MONGODB_URI: databaseUri() });

  assert.equal(result.code, 8, result.stderr);
  assert.match(result.stderr, /"msg":"connected"/, "log lines go to stderr");
  assert.doesNotMatch(result.stdout, /"msg"/, "stdout holds the report alone");
  assert.match(result.stdout, /sales.*examined 1, would change 1 \(moved 1\), elements moved 10/);
  const book = await fixture.db.collection("sales").findOne({ _id: 1 as never });
  assert.equal((book?.customers_purchased as unknown[]).length, 60);
});

void test("a dry-run sweep with nothing to change exits 0", async () => {
  await fixture.db.collection("sales").deleteMany({});
  await fixture.db.collection("sales").insertOne({ _id: 1 as never, customers_purchased: users(0, 10) });
  const result = await cli(["sweep", "--dry-run"], { MONGODB_URI: databaseUri() });

  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /sales.*examined 0, would change 0/);
});

void test("sweep --dry-run --output json prints one JSON line per document it would change, keys in relaxed EJSON", async () => {
  const sales = fixture.db.collection("sales");
  await sales.deleteMany({});
  const ids = ["a", 7, new Date("2026-01-02T03:04:05Z")];
  for (const [index, _id] of ids.entries())
    await sales.insertOne({ _id: _id as never, customers_purchased: users(index * 100, index * 100 + 60) });
  await sales.insertOne({ _id: "fine" as never, customers_purchased: users(0, 3) });
  const result = await cli(["sweep", "--dry-run", "--output", "json"], { MONGODB_URI: databaseUri() });

  assert.equal(result.code, 8, result.stderr);
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);
  assert.deepEqual(
    lines,
    [
      { rule: "sales.customers_purchased", collection: "sales", key: 7, kind: "moved" },
      { rule: "sales.customers_purchased", collection: "sales", key: "a", kind: "moved" },
      {
        rule: "sales.customers_purchased",
        collection: "sales",
        key: { $date: "2026-01-02T03:04:05Z" },
        kind: "moved",
      },
    ],
    result.stderr,
  );
});

void test("the demo shows the seeds' examples corrected by the first sweep and then from the stream, whatever rules are configured", async () => {
  const config = join(await mkdtemp(join(tmpdir(), "demo-")), "config.yaml");
  await writeFile(config, "rules:\n  - pattern: outlier\n    collection: orders\n    arrayField: lines\n");
  const result = await cli(["demo", "--config", config]);

  assert.equal(result.code, 0, result.stderr);
  const [before, swept, streamed] = result.stdout.split("\n\n").slice(1);
  assert.match(before ?? "", /sales 1: 120 buyers embedded, has_extras false; extra_sales: 0 buyers/);
  assert.match(swept ?? "", /sales 1: 50 buyers embedded, has_extras true; extra_sales: 70 buyers/);
  assert.match(swept ?? "", /123_1698349623 \(10\), 123_1698954190 \(10\), 123_1698990190 \(5\)/);
  assert.match(swept ?? "", /products 1: 10 reviews embedded; reviews collection: 15/);
  assert.match(streamed ?? "", /sales 1: 50 buyers embedded, has_extras true; extra_sales: 187 buyers/);
  assert.match(streamed ?? "", /\(10\), 123_1699062190 \(8\)$/m);
  assert.match(streamed ?? "", /products 1: 10 reviews embedded; reviews collection: 28/);
});
