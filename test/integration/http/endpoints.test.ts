import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import { startHttpServer, type HttpServer, type SidecarStatus } from "../../../src/ops/http.js";
import { createRealisticMetrics } from "../../ops/realistic-metrics.js";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(port: number, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, method, path, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

void describe("the HTTP endpoints", () => {
  let status: SidecarStatus = { state: "starting", caughtUp: false, leader: false, partitions: [] };
  let server: HttpServer;

  before(async () => {
    server = await startHttpServer({
      host: "127.0.0.1",
      port: 0,
      metrics: createRealisticMetrics(),
      status: () => status,
    });
  });
  after(() => server.close());

  void test("port 0 binds a free port and reports it", () => {
    assert.ok(server.port > 0);
  });

  void test("/metrics serves the registry in the Prometheus text format", async () => {
    const answer = await call(server.port, "GET", "/metrics");
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
    assert.match(answer.body, /^pattern_sidecar_runner_state\{state="streaming"\} 1$/m);
    assert.match(
      answer.body,
      /^pattern_sidecar_corrections_total\{rule="outlier-sales",.*kind="moved"\} 38$/m,
    );
  });

  void test("/healthz answers 200 while the process is alive, whatever the runner's state", async () => {
    status = { state: "sweeping", caughtUp: false, leader: true, partitions: [0] };
    const answer = await call(server.port, "GET", "/healthz");
    assert.equal(answer.status, 200);
  });

  void test("/readyz answers 503 with the reason while the leader sweeps", async () => {
    status = { state: "sweeping", caughtUp: false, leader: true, partitions: [0] };
    const answer = await call(server.port, "GET", "/readyz");
    assert.equal(answer.status, 503);
    const body = JSON.parse(answer.body) as { ready: boolean; reason: string; state: string };
    assert.equal(body.ready, false);
    assert.equal(body.state, "sweeping");
    assert.match(body.reason, /sweeping/);
  });

  void test("/readyz answers 503 while streaming but not caught up", async () => {
    status = { state: "streaming", caughtUp: false, leader: true, partitions: [0] };
    const answer = await call(server.port, "GET", "/readyz");
    assert.equal(answer.status, 503);
    assert.match(answer.body, /not caught up/);
  });

  void test("/readyz answers 200 once streaming and caught up", async () => {
    status = { state: "streaming", caughtUp: true, leader: true, partitions: [0] };
    const answer = await call(server.port, "GET", "/readyz");
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.body) as { ready: boolean }).ready, true);
  });

  void test("/readyz answers 200 for a replica in standby", async () => {
    status = { state: "standby", caughtUp: false, leader: false, partitions: [] };
    const answer = await call(server.port, "GET", "/readyz");
    assert.equal(answer.status, 200);
  });

  void test("/readyz answers 503 once the runner has stopped", async () => {
    status = { state: "stopped", caughtUp: false, leader: false, partitions: [] };
    const answer = await call(server.port, "GET", "/readyz");
    assert.equal(answer.status, 503);
  });

  void test("HEAD answers with the headers and no body", async () => {
    const answer = await call(server.port, "HEAD", "/metrics");
    assert.equal(answer.status, 200);
    assert.ok(Number(answer.headers["content-length"]) > 0);
    assert.equal(answer.body, "");
  });

  void test("an unknown path answers 404", async () => {
    const answer = await call(server.port, "GET", "/admin");
    assert.equal(answer.status, 404);
  });

  void test("methods other than GET and HEAD answer 405 with an Allow header", async () => {
    const answer = await call(server.port, "POST", "/metrics");
    assert.equal(answer.status, 405);
    assert.equal(answer.headers.allow, "GET, HEAD");
  });

  void test("a query string does not change the endpoint", async () => {
    const answer = await call(server.port, "GET", "/healthz?verbose=1");
    assert.equal(answer.status, 200);
  });
});

void describe("starting and stopping the HTTP server", () => {
  const options = {
    host: "127.0.0.1",
    metrics: createRealisticMetrics(),
    status: (): SidecarStatus => ({ state: "standby", caughtUp: false, leader: false, partitions: [] }),
  };

  void test("close is idempotent: every call returns the same promise", async () => {
    const server = await startHttpServer({ ...options, port: 0 });
    const first = server.close();
    assert.equal(server.close(), first);
    await first;
  });

  void test("after close the port no longer answers", async () => {
    const server = await startHttpServer({ ...options, port: 0 });
    await server.close();
    await assert.rejects(call(server.port, "GET", "/healthz"), { code: "ECONNREFUSED" });
  });

  void test("a port already in use fails the start with the address in the message", async () => {
    const first = await startHttpServer({ ...options, port: 0 });
    try {
      await assert.rejects(startHttpServer({ ...options, port: first.port }), /127\.0\.0\.1:\d+.*EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  void test("a status function that throws answers 500 and the server keeps serving", async () => {
    const server = await startHttpServer({
      ...options,
      port: 0,
      status: () => {
        throw new Error("runner gone");
      },
    });
    try {
      assert.equal((await call(server.port, "GET", "/readyz")).status, 500);
      assert.equal((await call(server.port, "GET", "/healthz")).status, 200);
    } finally {
      await server.close();
    }
  });
});
