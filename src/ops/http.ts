// The operations endpoints: /metrics for Prometheus, /healthz for liveness, /readyz for
// readiness. Handlers only read in-memory state (the registry, the runner's status), never
// MongoDB, so that they answer at once even while a long sweep or a slow server holds the
// runner: a probe that waited on MongoDB would get a healthy sidecar restarted.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { toError } from "../errors.js";
import type { Logger } from "./logger.js";
import type { RunnerState } from "./metrics.js";

/** What the runner reports about itself; read on every /readyz request. */
export interface SidecarStatus {
  state: RunnerState;
  caughtUp: boolean;
  leader: boolean;
  /** The partitions this replica owns. */
  partitions: number[];
}

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port; the one bound is returned. */
  port: number;
  metrics: { registry: Registry };
  status: () => SidecarStatus;
  /** Whether the sidecar runs on the embedded in-memory server; /readyz says so. */
  embedded?: boolean;
  logger?: Logger;
}

export interface HttpServer {
  port: number;
  /** Stops listening and drops open connections; every call returns the same promise. */
  close(): Promise<void>;
}

/** The paths the probes, the PodMonitor and the dashboards rely on. */
export const ENDPOINT_PATHS = { metrics: "/metrics", liveness: "/healthz", readiness: "/readyz" } as const;

export interface Readiness {
  ready: boolean;
  reason: string;
}

const NOT_READY_REASONS: Record<RunnerState, string> = {
  starting: "starting: connecting and acquiring the writer lease",
  sweeping: "sweeping: correcting existing documents before streaming",
  resuming: "resuming: reopening the change stream",
  streaming: "streaming but not caught up with the change stream yet",
  standby: "standby",
  stopped: "stopped",
};

/**
 * Ready = doing its job: the leader streams and has caught up, or a replica waits in
 * standby to take over the lease (a healthy standby must not be restarted or unlisted).
 */
export function readinessOf(status: SidecarStatus): Readiness {
  if (status.state === "standby") return { ready: true, reason: "standby: another replica holds the lease" };
  if (status.state === "streaming" && status.caughtUp) return { ready: true, reason: "streaming, caught up" };
  return { ready: false, reason: NOT_READY_REASONS[status.state] };
}

function send(response: ServerResponse, statusCode: number, contentType: string, body: string): void {
  // Node sends the headers but no body when the request was HEAD.
  response.writeHead(statusCode, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  response.end(body);
}

function sendJson(response: ServerResponse, statusCode: number, body: object): void {
  send(response, statusCode, "application/json; charset=utf-8", `${JSON.stringify(body)}\n`);
}

async function serveMetrics(response: ServerResponse, registry: Registry): Promise<void> {
  // The registry's collectors are synchronous reads of in-process values.
  send(response, 200, registry.contentType, await registry.metrics());
}

function serveReadiness(response: ServerResponse, options: HttpServerOptions): void {
  const status = options.status();
  const readiness = readinessOf(status);
  sendJson(response, readiness.ready ? 200 : 503, {
    ...readiness,
    ...status,
    embedded: options.embedded ?? false,
  });
}

async function route(request: IncomingMessage, response: ServerResponse, options: HttpServerOptions) {
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.setHeader("allow", "GET, HEAD");
    sendJson(response, 405, { error: `method ${request.method} not allowed` });
    return;
  }
  const path = new URL(request.url ?? "/", "http://sidecar").pathname;
  switch (path) {
    case ENDPOINT_PATHS.metrics:
      return serveMetrics(response, options.metrics.registry);
    case ENDPOINT_PATHS.liveness:
      // Answering at all proves the process and its event loop are alive.
      return sendJson(response, 200, { status: "alive" });
    case ENDPOINT_PATHS.readiness:
      return serveReadiness(response, options);
    default:
      return sendJson(response, 404, { error: `no endpoint ${path}` });
  }
}

function handle(request: IncomingMessage, response: ServerResponse, options: HttpServerOptions): void {
  route(request, response, options).catch((thrown: unknown) => {
    const err = toError(thrown);
    options.logger?.error({ err, path: request.url }, "http endpoint failed");
    if (response.headersSent) response.destroy(err);
    else sendJson(response, 500, { error: err.message });
  });
}

/** The HTTP endpoints could not listen; `code` is the system's (EADDRINUSE, EACCES, ...). */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = "ListenError";
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(
        new ListenError(`cannot listen for HTTP on ${host}:${port}: ${error.message}`, error.code, {
          cause: error,
        }),
      );
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeOnce(server: Server): () => Promise<void> {
  let closed: Promise<void> | undefined;
  return () => {
    closed ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      // Prometheus keeps its scrape connection alive; do not wait for it to hang up.
      server.closeAllConnections();
    });
    return closed;
  };
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const server = createServer((request, response) => handle(request, response, options));
  // A probe that never sends its request must not hold a socket for ever.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  const port = await listen(server, options.host, options.port);
  options.logger?.info({ host: options.host, port }, "http endpoints listening");
  return { port, close: closeOnce(server) };
}
