// The container's HEALTHCHECK script (src/healthcheck.ts), run as the image runs it: a
// separate node process that exits 0 when /healthz answers and 1 when nothing listens.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { startHttpServer } from "../../../src/ops/http.js";
import { createMetrics } from "../../../src/ops/metrics.js";
import { freePort } from "../../ops/free-port.js";

const run = promisify(execFile);

async function healthcheck(port: number): Promise<number> {
  try {
    await run(process.execPath, ["--import", "tsx", "src/healthcheck.ts"], {
      env: { ...process.env, SIDECAR_HTTP_PORT: String(port) },
    });
    return 0;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

void test("the health check exits 0 while the sidecar's endpoints answer", async () => {
  const status = () => ({ state: "starting" as const, caughtUp: false, leader: false, partitions: [] });
  const server = await startHttpServer({ host: "127.0.0.1", port: 0, metrics: createMetrics(), status });
  try {
    assert.equal(await healthcheck(server.port), 0);
  } finally {
    await server.close();
  }
});

void test("the health check exits 1 when nothing answers on the port", async () => {
  assert.equal(await healthcheck(await freePort()), 1);
});
