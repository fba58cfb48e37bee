#!/usr/bin/env node
// The container's HEALTHCHECK: the distroless image has no shell and no curl, so node itself
// GETs /healthz on the sidecar's port (SIDECAR_HTTP_PORT, else 9464) on loopback, and exits
// 0 on a 200, 1 otherwise. Kubernetes ignores HEALTHCHECK; its probes (k8s/) do the same job.
// The path is written here rather than imported from ops/http.ts, which would load the
// MongoDB driver on every check; test/integration/http/healthcheck.test.ts runs it against
// the real endpoints.
const LIVENESS_PATH = "/healthz";
const TIMEOUT_MS = 3_000;

async function isAlive(port: string): Promise<boolean> {
  try {
    const url = `http://127.0.0.1:${port}${LIVENESS_PATH}`;
    return (await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })).status === 200;
  } catch {
    return false;
  }
}

process.exitCode = (await isAlive(process.env.SIDECAR_HTTP_PORT || "9464")) ? 0 : 1;
