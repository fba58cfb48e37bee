// The command line as an operator meets it, through the real binary: help, version, usage
// mistakes, the embedded server's announcement and production guard, and operational
// failures that print one line naming the cause and exit with their documented status.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { ENV_OVERRIDES } from "../../../src/config/load.js";
import { newHolderId, WriterLease } from "../../../src/stream/lease/lease.js";
import { freePort } from "../../ops/free-port.js";
import { stopWithSigterm } from "../../ops/stop-process.js";
import { useTestDatabase } from "../../support/mongo.js";

const fixture = useTestDatabase("operator_cli");

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without MONGODB_URI or NODE_ENV, plus `env`. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const { MONGODB_URI: _uri, NODE_ENV: _nodeEnv, ...rest } = process.env;
  return { ...rest, SIDECAR_HTTP_PORT: "0", ...env };
}

function start(args: string[], env: Record<string, string> = {}): ChildProcess & { output: Outcome } {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts", ...args], {
    env: environment(env),
  });
  const output: Outcome = { code: null, stdout: "", stderr: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
  return Object.assign(child, { output });
}

/** Runs the CLI to its end; killed (and failing the test) if it takes longer than `timeoutMs`. */
async function cli(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Outcome> {
  const child = start(args, env);
  const killTimer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(killTimer);
  return { ...child.output, code };
}

function databaseUri(): string {
  return fixture.mongo.uri.replace(/\/?(\?|$)/, `/${fixture.db.databaseName}$1`);
}

/** The /readyz body once it answers 200 (streaming and caught up). */
async function readiness(port: number): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`);
    return response.status === 200 ? ((await response.json()) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `run` until /readyz answers, then stops it; the /readyz body and the output. */
async function readyzOfRun(
  args: string[],
  env: Record<string, string>,
): Promise<{ body: Record<string, unknown>; output: Outcome }> {
  const port = await freePort();
  const child = start(["run", ...args], { ...env, SIDECAR_HTTP_PORT: String(port) });
  try {
    const body = await waitUntil(() => readiness(port), { timeoutMs: 20_000, description: "/readyz" });
    assert.equal(await stopWithSigterm(child), 0);
    return { body, output: child.output };
  } finally {
    child.kill("SIGKILL");
  }
}

void test("--version prints the version of package.json", async () => {
  const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
  const result = await cli(["--version"]);
  assert.deepEqual([result.code, result.stdout], [0, `${version}\n`]);
});

void test("--help lists every command and every environment variable", async () => {
  const result = await cli(["--help"]);
  assert.equal(result.code, 0);
  for (const command of ["run", "sweep", "check-config", "dev-server", "demo"]) {
    assert.match(result.stdout, new RegExp(`^  ${command} `, "m"));
  }
  const variables = [...ENV_OVERRIDES.map((override) => override.variable), "SIDECAR_CONFIG", "NODE_ENV"];
  assert.deepEqual(
    variables.filter((variable) => !new RegExp(`^  ${variable} `, "m").test(result.stdout)),
    [],
  );
});

void test("sweep --help shows sweep's own options and an example", async () => {
  const result = await cli(["sweep", "--help"]);
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^Usage: mongo-pattern-sidecar sweep \[options\]/);
  assert.match(result.stdout, /^ {2}--dry-run +write nothing/m);
  assert.match(result.stdout, /^ {2}--embedded /m);
  assert.doesNotMatch(result.stdout, /--port/);
  assert.match(result.stdout, /Examples:\n {2}.*sweep --dry-run/);
});

void test("an unknown option is one line, then the usage, and exit 2", async () => {
  const result = await cli(["--verbose"]);
  assert.equal(result.code, 2);
  const [first, blank, usage] = result.stderr.split("\n");
  assert.deepEqual(
    [first, blank, usage],
    [
      'mongo-pattern-sidecar: unknown option "--verbose"',
      "",
      "Usage: mongo-pattern-sidecar [command] [options]",
    ],
  );
});

void test("every line of a configuration error carries the program's name", async () => {
  const result = await cli(["check-config"], { SIDECAR_HTTP_PORT: "abc", SIDECAR_DATABASE: "a$b" });
  assert.equal(result.code, 2);
  assert.deepEqual(result.stderr.trimEnd().split("\n"), [
    'mongo-pattern-sidecar: SIDECAR_DATABASE: database: expected a database name without any of / \\ . " $ * < > : | ? or spaces, got "a$b"',
    'mongo-pattern-sidecar: SIDECAR_HTTP_PORT: http.port: expected a number, got "abc"',
  ]);
});

void test("under NODE_ENV=production, run without MONGODB_URI is refused in one line with exit 2", async () => {
  const result = await cli(["run"], { NODE_ENV: "production" });
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    "mongo-pattern-sidecar: MONGODB_URI is not set and NODE_ENV is production: set MONGODB_URI to the deployment to watch, or pass --embedded to use an in-memory server that keeps nothing\n",
  );
  assert.equal(result.stdout, "");
});

void test("run --embedded, even under NODE_ENV=production, announces the embedded server in one plain line and /readyz says embedded", async () => {
  const { body, output } = await readyzOfRun(["--embedded"], { NODE_ENV: "production" });
  assert.equal(body.embedded, true);
  assert.equal(
    output.stderr,
    "mongo-pattern-sidecar: MONGODB_URI is not set: using an embedded in-memory server; nothing is persisted\n",
  );
  assert.match(output.stdout, /"msg":"connected"/);
});

void test("run with MONGODB_URI announces nothing and /readyz says it is not embedded", async () => {
  const { body, output } = await readyzOfRun([], { MONGODB_URI: databaseUri() });
  assert.equal(body.embedded, false);
  assert.equal(output.stderr, "");
});

// Every command that connects; run logs on stdout, sweep and migrate on stderr (their report
// is on stdout), so there the one plain line comes after the JSON lines.
for (const command of ["run", "sweep", "migrate"]) {
  void test(`${command}: an unreachable MongoDB is retried with a log line per attempt, then one line and exit 3`, async () => {
    const port = await freePort();
    const result = await cli([command], {
      MONGODB_URI: `mongodb://127.0.0.1:${port}/shop?directConnection=true`,
      SIDECAR_CONNECT_TIMEOUT_SECONDS: "3",
    });
    assert.equal(result.code, 3, result.stderr);
    const log = command === "run" ? result.stdout : result.stderr;
    assert.match(log, /"attempt":1,.*"msg":"cannot reach MongoDB yet; retrying"/);
    const plain = result.stderr
      .trimEnd()
      .split("\n")
      .filter((line) => !line.startsWith("{"));
    assert.equal(plain.length, 1, result.stderr);
    assert.match(
      plain[0]!,
      /^mongo-pattern-sidecar: cannot reach MongoDB at mongodb:\/\/127\.0\.0\.1:\d+\/shop\S* after trying for 3 s: .*; check MONGODB_URI's hosts/,
    );
    assert.match(result.stdout, /"level":60,.*"msg":"sidecar failed"/, "the JSON log keeps the detail");
  });
}

void test("an HTTP port in use is one line naming the port and exit 6", async () => {
  const taken = createServer().listen(0, "127.0.0.1");
  await once(taken, "listening");
  const { port } = taken.address() as { port: number };
  try {
    const result = await cli(["run"], { MONGODB_URI: databaseUri(), SIDECAR_HTTP_PORT: String(port) });
    assert.equal(result.code, 6);
    assert.equal(
      result.stderr,
      `mongo-pattern-sidecar: cannot serve the HTTP endpoints: port ${port} on 0.0.0.0 is in use by another process; set http.port (SIDECAR_HTTP_PORT) to a free port, or stop the other process\n`,
    );
  } finally {
    taken.close();
  }
});

// 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine, so binding it fails.
void test("an http.host that is not an address of this machine is one line naming it and exit 6", async () => {
  const config = join(await mkdtemp(join(tmpdir(), "http-host-")), "config.yaml");
  await writeFile(config, "http:\n  host: 192.0.2.1\n");
  const result = await cli(["run", "--config", config], { MONGODB_URI: databaseUri() });
  assert.equal(result.code, 6, result.stderr);
  assert.equal(
    result.stderr,
    "mongo-pattern-sidecar: cannot serve the HTTP endpoints: 192.0.2.1 (http.host) is not an address of this machine; set http.host in the configuration file to one of this machine's addresses, or to 0.0.0.0 for all of them\n",
  );
});

void test("dev-server on a port in use is one line naming the port and exit 6", async () => {
  const taken = createServer().listen(0, "127.0.0.1");
  await once(taken, "listening");
  const { port } = taken.address() as { port: number };
  try {
    const result = await cli(["dev-server", "--port", String(port)]);
    assert.equal(result.code, 6, result.stderr);
    assert.equal(
      result.stderr,
      `mongo-pattern-sidecar: cannot start the embedded server: port ${port} on 127.0.0.1 is in use by another process; pass --port with a free port, or stop the other process\n`,
    );
    assert.doesNotMatch(result.stdout, /listening/);
  } finally {
    taken.close();
  }
});

void test("a sweep while another sidecar holds the writer lease is one line and exit 7", async () => {
  const lease = new WriterLease(fixture.db, "pattern_sidecar_state", newHolderId(), 60);
  assert.equal(await lease.acquireOrRenew(), true);
  const result = await cli(["sweep"], { MONGODB_URI: databaseUri() });
  assert.equal(result.code, 7);
  assert.match(
    result.stderr.split("\n").at(-2)!,
    /^mongo-pattern-sidecar: another sidecar holds the writer lease \(in pattern_sidecar_state\), so this sweep would race it; have it sweep with --request, use --dry-run, or stop it \(a stopped one's lease expires within 15 s\)$/,
  );
  await lease.release();
});

void test("run --pretty logs for a person rather than JSON lines", async () => {
  const { output } = await readyzOfRun(["--pretty"], { MONGODB_URI: databaseUri() });
  assert.match(output.stdout, /INFO.*: connected/);
  assert.doesNotMatch(output.stdout, /^\{"level"/m);
});
