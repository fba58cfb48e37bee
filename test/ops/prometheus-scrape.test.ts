// A real Prometheus server scrapes the sidecar once and the value comes back through its
// query API: proves the exposition is ingestible, not only lint-clean.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startHttpServer } from "../../src/ops/http.js";
import { waitUntil } from "../../src/cli/wait-until.js";
import { freePort } from "./free-port.js";
import { requireExecutable, skipWithout } from "./prometheus-tools.js";
import { stopWithSigterm } from "./stop-process.js";
import { createRealisticMetrics } from "./realistic-metrics.js";

interface QueryResponse {
  status: string;
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

function scrapeConfig(targetPort: number): string {
  return [
    "global:",
    "  scrape_interval: 1s",
    "scrape_configs:",
    "  - job_name: pattern-sidecar",
    "    static_configs:",
    `      - targets: ["127.0.0.1:${targetPort}"]`,
    "",
  ].join("\n");
}

async function queryOnce(prometheusPort: number, promql: string): Promise<QueryResponse["data"]["result"]> {
  const url = `http://127.0.0.1:${prometheusPort}/api/v1/query?query=${encodeURIComponent(promql)}`;
  const answer = (await (await fetch(url)).json()) as QueryResponse;
  return answer.status === "success" ? answer.data.result : [];
}

void test(
  "a real Prometheus scrapes /metrics and answers a query with the sidecar's value",
  { skip: skipWithout("prometheus") },
  async () => {
    const sidecar = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      metrics: createRealisticMetrics(),
      status: () => ({ state: "streaming", caughtUp: true, leader: true, partitions: [0] }),
    });
    const workDir = await mkdtemp(join(tmpdir(), "pattern-sidecar-prometheus-"));
    let server: ChildProcess | undefined;
    try {
      await writeFile(join(workDir, "prometheus.yml"), scrapeConfig(sidecar.port));
      const prometheusPort = await freePort();
      server = spawn(
        requireExecutable("prometheus"),
        [
          `--config.file=${join(workDir, "prometheus.yml")}`,
          `--storage.tsdb.path=${join(workDir, "data")}`,
          `--web.listen-address=127.0.0.1:${prometheusPort}`,
          "--log.level=warn",
        ],
        { stdio: "ignore" },
      );
      const series = await waitUntil(
        async () => {
          const result = await queryOnce(prometheusPort, 'pattern_sidecar_runner_state{state="streaming"}');
          return result.length > 0 ? result : undefined;
        },
        { timeoutMs: 15_000, intervalMs: 250, description: "Prometheus to scrape the sidecar" },
      );
      assert.equal(series[0]!.value[1], "1");
      assert.equal(series[0]!.metric.job, "pattern-sidecar");
    } finally {
      if (server) await stopWithSigterm(server, 5_000);
      await sidecar.close();
      await rm(workDir, { recursive: true, force: true });
    }
  },
);
