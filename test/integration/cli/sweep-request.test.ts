// `sweep --request` through the real binary: a running sidecar (`run`, another process)
// performs the requested sweep, and the command prints its progress and report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { configSchema, type Config } from "../../../src/config/schema.js";
import { insertBook, isBookCorrected } from "../../support/harness.js";
import { useTestDatabase } from "../../support/mongo.js";
import { storeTokenPastEveryWrite } from "../../support/unseen-writes.js";
import { freePort } from "../../ops/free-port.js";
import { stopWithSigterm } from "../../ops/stop-process.js";

const fixture = useTestDatabase("sweep_request_cli");
const RULE = "sales.customers_purchased";
const BOOKS = 5;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI with the configuration a pod gives it: SIDECAR_CONFIG and MONGODB_URI, no arguments for them. */
function start(args: string[], env: Record<string, string>): ChildProcess & { output: Outcome } {
  const { NODE_ENV: _nodeEnv, ...rest } = process.env;
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts", ...args], {
    env: { ...rest, ...env },
  });
  const output: Outcome = { code: null, stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  return Object.assign(child, { output });
}

async function cli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Outcome> {
  const child = start(args, env);
  const killTimer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(killTimer);
  return { ...child.output, code };
}

async function podEnvironment(configuration = ""): Promise<Record<string, string>> {
  const file = join(await mkdtemp(join(tmpdir(), "sweep-request-")), "config.yaml");
  await writeFile(file, `leaseSeconds: 3\n${configuration}`);
  const uri = fixture.mongo.uri.replace(/\/?(\?|$)/, `/${fixture.db.databaseName}$1`);
  return { SIDECAR_CONFIG: file, MONGODB_URI: uri, SIDECAR_HTTP_PORT: String(await freePort()) };
}

async function readyz(port: string): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

void test("sweep --request has the running sidecar correct what its stream never saw, printing progress and the report", async () => {
  const { db } = fixture;
  const env = await podEnvironment();
  const config = configSchema.parse({ database: db.databaseName, leaseSeconds: 3 }) as Config;
  for (let book = 1; book <= BOOKS; book += 1) await insertBook(db, book, 60);
  await storeTokenPastEveryWrite(db, config);
  const sidecar = start(["run"], env);
  try {
    await waitUntil(() => readyz(env.SIDECAR_HTTP_PORT!), { timeoutMs: 30_000, description: "/readyz" });
    assert.equal(await isBookCorrected(db, 1, 60), false, "the stream did not see the books");

    const { SIDECAR_HTTP_PORT: _port, ...requestEnv } = env;
    const result = await cli(["sweep", "--request", "--rule", RULE], requestEnv);

    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^requested (sweep-request:\\w+): a sweep of ${RULE}$`, "m"));
    assert.match(
      result.stdout,
      new RegExp(`^${RULE} \\(sales\\): examined ${BOOKS}, changed ${BOOKS} `, "m"),
    );
    assert.match(result.stdout, /^partitions: 16 of 16 swept$/m);
    assert.match(result.stdout, /^sweep-request:\w+ done$/m);
    for (let book = 1; book <= BOOKS; book += 1) assert.equal(await isBookCorrected(db, book, 60), true);
    const scrape = await (await fetch(`http://127.0.0.1:${env.SIDECAR_HTTP_PORT}/metrics`)).text();
    assert.match(scrape, /^pattern_sidecar_sweep_requests_total\{outcome="done"\} 1$/m);
  } finally {
    assert.equal(await stopWithSigterm(sidecar), 0);
  }
});

void test("sweep --request --no-wait prints the request's id and exits, leaving it for a sidecar", async () => {
  const env = await podEnvironment();
  const result = await cli(["sweep", "--request", "--no-wait"], env);
  assert.equal(result.code, 0, result.stderr);
  const id = /^requested (sweep-request:\w+): a sweep of every rule$/m.exec(result.stdout)?.[1];
  assert.ok(id, result.stdout);
  const state = fixture.db.collection(configSchema.parse({}).stateCollection);
  const request = await state.findOne({ _id: id as never });
  assert.deepEqual([request?.state, request?.rules], ["pending", []]);
  // Not left for the next test's sidecar to perform.
  await state.deleteOne({ _id: id as never });
});

void test("sweep --request of a rule the configuration does not enable is one line and exit 2", async () => {
  const env = await podEnvironment();
  const result = await cli(["sweep", "--request", "--rule", "no-such-rule"], env);
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /^mongo-pattern-sidecar: --rule: no enabled rule is named "no-such-rule"; the configuration's are /m,
  );
});

void test("sweep --request of a rule the running sidecar does not enforce ends failed: one line naming it, exit 1", async () => {
  const runEnv = await podEnvironment("rules:\n  - pattern: outlier\n");
  const sidecar = start(["run"], runEnv);
  try {
    await waitUntil(() => readyz(runEnv.SIDECAR_HTTP_PORT!), { timeoutMs: 30_000, description: "/readyz" });
    const result = await cli(["sweep", "--request", "--rule", "trades.history"], await podEnvironment());
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /^mongo-pattern-sidecar: sweep-request:\w+ failed: rule trades\.history is not enforced by a sidecar performing it \(it enforces sales\.customers_purchased\)$/m,
    );
  } finally {
    assert.equal(await stopWithSigterm(sidecar), 0);
  }
});
