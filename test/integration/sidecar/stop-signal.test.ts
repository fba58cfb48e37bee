// Kubernetes stops a pod with SIGTERM whatever the sidecar is doing, including waiting for a
// MongoDB it cannot reach yet (server selection waits up to 30 s by default).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { waitUntil } from "../../../src/cli/wait-until.js";
import { freePort } from "../../ops/free-port.js";
import { stopWithSigterm } from "../../ops/stop-process.js";

async function healthStatus(port: number): Promise<number | undefined> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
  } catch {
    return undefined;
  }
}

void test("a sidecar still connecting to an unreachable deployment stops cleanly on SIGTERM", async () => {
  const [httpPort, nothingListens] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts", "run"], {
    env: {
      ...process.env,
      MONGODB_URI: `mongodb://127.0.0.1:${nothingListens}/shop?replicaSet=rs0`,
      SIDECAR_HTTP_PORT: String(httpPort),
      SIDECAR_LOG_LEVEL: "silent",
    },
    stdio: "ignore",
  });
  try {
    await waitUntil(async () => (await healthStatus(httpPort)) === 200, {
      timeoutMs: 10_000,
      description: "/healthz while connecting",
    });
    // The stop deadline's exit is 1: 0 means the stop did not wait for server selection.
    assert.equal(await stopWithSigterm(child), 0);
  } finally {
    child.kill("SIGKILL");
  }
});
