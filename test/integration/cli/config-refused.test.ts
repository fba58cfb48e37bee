// A configuration out of bounds or with colliding fields stops every command before it
// connects: exit status 2, one line per problem, nothing written to the deployment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useTestDatabase } from "../../support/mongo.js";

const fixture = useTestDatabase("config_refused");

async function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { MONGODB_URI: _uri, NODE_ENV: _nodeEnv, ...rest } = process.env;
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts", ...args], {
    env: { ...rest, SIDECAR_HTTP_PORT: "0", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const killTimer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(killTimer);
  return { code, stdout, stderr };
}

async function configFile(text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "sidecar-refused-")), "sidecar.yaml");
  await writeFile(path, text);
  return path;
}

const COLLIDING =
  "rules:\n  - pattern: outlier\n    sequenceField: _id\n  - pattern: bucket\n    countField: history\n";

void test("check-config refuses colliding fields of a rule with exit 2, one line each", async () => {
  const path = await configFile(COLLIDING);
  const result = await cli(["check-config", "--config", path], {});
  assert.equal(result.code, 2);
  assert.deepEqual(result.stderr.trimEnd().split("\n"), [
    `mongo-pattern-sidecar: ${path}: rules[0].sequenceField: expected a field other than "_id", which the sidecar sets itself, got "_id"`,
    `mongo-pattern-sidecar: ${path}: rules[1].countField: expected a field of its own, got "history", which is also arrayField ("history")`,
  ]);
});

void test("check-config refuses a concurrency of a billion with exit 2, naming the variable and the range", async () => {
  const result = await cli(["check-config"], { SIDECAR_CONCURRENCY: "1000000000" });
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    "mongo-pattern-sidecar: SIDECAR_CONCURRENCY: concurrency: expected an integer from 1 to 100, got 1000000000\n",
  );
});

void test("run with colliding fields or a lease past its bound exits 2 and writes nothing", async () => {
  const path = await configFile(`leaseSeconds: 10000000\n${COLLIDING}`);
  const uri = fixture.mongo.uri.replace(/\/?(\?|$)/, `/${fixture.db.databaseName}$1`);
  const result = await cli(["run", "--config", path], { MONGODB_URI: uri });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /leaseSeconds: expected an integer from 1 to 3600, got 10000000\n/);
  assert.deepEqual(await fixture.db.listCollections().toArray(), []);
});

void test("a configuration that still sets killSessionsRefused loads, with a warning that the key is ignored", async () => {
  const path = await configFile("killSessionsRefused: waitTransactionLifetime\ntakeoverWaitSeconds: 90\n");
  const { code, stdout } = await cli(["check-config", "--config", path], {});
  assert.equal(code, 0);
  const warnings = stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { key?: string; msg: string });
  assert.deepEqual(
    warnings.map((warning) => warning.key),
    ["killSessionsRefused", "takeoverWaitSeconds"],
  );
  assert.match(
    warnings[0]!.msg,
    /is ignored: a takeover waits for the previous leader's transactions by itself/,
  );
});
