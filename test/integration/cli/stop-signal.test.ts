// Kubernetes stops a pod with SIGTERM whatever the sidecar is doing, including waiting for a
// MongoDB it cannot reach yet (server selection waits up to 30 s by default), or for a commit
// that does not come back; it sends SIGKILL 30 s after.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { freePort } from "../../ops/free-port.js";
import { stopWithSigterm } from "../../ops/stop-process.js";
import { STOP_DEADLINE_MS } from "../../../src/cli/stop-signal.js";
import { startTestMongo, uniqueDatabaseName } from "../../support/mongo.js";
import { insertBook, isBookCorrected, startSidecar, testConfig } from "../../support/harness.js";

async function healthStatus(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
  } catch {
    return undefined;
  }
}

/** `run` as a process, its warnings and errors gathered from stdout and stderr. */
function startRun(
  args: string[],
  uri: string,
  httpPort: number,
): { child: ChildProcess; output: () => string } {
  const cli = ["--conditions=source", "--import", "tsx", "src/main.ts", "run", ...args];
  const child = spawn(process.execPath, cli, {
    env: { ...process.env, MONGODB_URI: uri, SIDECAR_HTTP_PORT: String(httpPort), SIDECAR_LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

void test("a sidecar still connecting to an unreachable deployment stops cleanly on SIGTERM", async () => {
  const [httpPort, nothingListens] = [await freePort(), await freePort()];
  const { child, output } = startRun(
    [],
    `mongodb://127.0.0.1:${nothingListens}/shop?replicaSet=rs0`,
    httpPort,
  );
  try {
    await waitUntil(async () => (await healthStatus(httpPort)) === 200, {
      timeoutMs: 10_000,
      description: "/healthz while connecting",
    });
    assert.equal(await stopWithSigterm(child, 30_000), 0);
    assert.doesNotMatch(output(), /stop took too long/, "the stop waited for server selection");
  } finally {
    child.kill("SIGKILL");
  }
});

void test("a commit that hangs does not hold SIGTERM past the stop deadline, and what it held is corrected later", async () => {
  const mongo = await startTestMongo();
  const db = mongo.client.db(uniqueDatabaseName("hung_commit"));
  const httpPort = await freePort();
  // The CLI connects with its own appName; a commit of its blocks well past the stop deadline.
  const { count: entered } = await mongo.client.db("admin").command({
    configureFailPoint: "failCommand",
    mode: "alwaysOn",
    data: {
      failCommands: ["commitTransaction"],
      blockConnection: true,
      blockTimeMS: STOP_DEADLINE_MS + 20_000,
      appName: "mongo-pattern-sidecar",
    },
  });
  const config = join(await mkdtemp(join(tmpdir(), "hung-commit-")), "config.yaml");
  await writeFile(config, "leaseSeconds: 3\n");
  const uri = mongo.uri.replace(/\/?(\?|$)/, `/${db.databaseName}$1`);
  const { child, output } = startRun(["--config", config], uri, httpPort);
  try {
    await insertBook(db, 1, 60);
    await mongo.client
      .db("admin")
      .command({ waitForFailPoint: "failCommand", timesEntered: Number(entered) + 1, maxTimeMS: 30_000 });
    assert.equal(await stopWithSigterm(child, 30_000), 0);
    assert.match(output(), /stop took too long/);
  } finally {
    child.kill("SIGKILL");
    await mongo.client.db("admin").command({ configureFailPoint: "failCommand", mode: "off" });
  }
  // The killed CLI's lease runs out after 3 s; the next leader fences it and corrects the book.
  const sidecar = await startSidecar(mongo, testConfig(db.databaseName), { waitForStreaming: false });
  try {
    await waitUntil(() => isBookCorrected(db, 1, 60), { timeoutMs: 30_000, description: "book 1 corrected" });
  } finally {
    await sidecar.stop();
    await db.dropDatabase();
    await mongo.close();
  }
});
