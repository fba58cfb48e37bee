// The /metrics exposition checked by Prometheus's own linter, not by our reading of the format.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startHttpServer } from "../../src/ops/http.js";
import { promtoolCheckMetrics, skipWithout } from "./prometheus-tools.js";
import { createRealisticMetrics } from "./realistic-metrics.js";

void test(
  "promtool check metrics finds no problem in a scrape of /metrics",
  { skip: skipWithout("promtool") },
  async () => {
    const server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      metrics: createRealisticMetrics(),
      status: () => ({ state: "streaming", caughtUp: true, leader: true, partitions: [0] }),
    });
    try {
      const scrape = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      assert.equal(scrape.status, 200);
      const result = promtoolCheckMetrics(await scrape.text());
      assert.equal(result.problems, "", `promtool reported:\n${result.problems}`);
      assert.equal(result.status, 0);
    } finally {
      await server.close();
    }
  },
);

void test(
  "promtool check metrics does report a gauge named like a counter",
  { skip: skipWithout("promtool") },
  () => {
    const result = promtoolCheckMetrics(
      "# HELP queue_total Items.\n# TYPE queue_total gauge\nqueue_total 3\n",
    );
    assert.notEqual(result.status, 0);
    assert.match(result.problems, /queue_total/);
  },
);
