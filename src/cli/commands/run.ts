// `mongo-pattern-sidecar run`: serve the endpoints, connect, run the runner until a stop
// signal, then stop everything in reverse order.
import type { Config } from "../../config/schema.js";
import { startHttpServer, type HttpServer, type SidecarStatus } from "../../ops/http.js";
import type { Logger } from "../../ops/logger.js";
import { createMetrics } from "../../ops/metrics.js";
import type { ShutdownStack } from "../../ops/shutdown.js";
import { Runner } from "../../stream/runner.js";
import { connectDeployment, type Deployment } from "../deployment.js";
import { listenFailure } from "../failures.js";
import { newShutdownStack, waitForStopSignal } from "../stop-signal.js";

/**
 * Connects, or gives up at once when a stop is requested first: server selection against an
 * unreachable deployment can outlast the stop deadline. The shutdown stack then closes the
 * client, which makes the abandoned connect reject; that rejection is expected.
 */
async function connectUnlessStopped(
  config: Config,
  logger: Logger,
  shutdown: ShutdownStack,
  stopRequested: Promise<void>,
): Promise<Deployment | undefined> {
  const connecting = connectDeployment(config, logger, shutdown, { leaseClient: true });
  const stopped = stopRequested.then(() => undefined);
  const deployment = await Promise.race([connecting, stopped]);
  if (!deployment) {
    connecting.catch((err: unknown) => logger.debug({ err }, "connecting abandoned: stop requested"));
  }
  return deployment;
}

/** Starts the endpoints; a port already taken, or a host not this machine's, is a failure the operator can act on. */
async function startEndpoints(
  config: Config,
  options: Omit<Parameters<typeof startHttpServer>[0], "host" | "port">,
): Promise<HttpServer> {
  try {
    return await startHttpServer({ ...config.http, ...options });
  } catch (error) {
    const { host, port } = config.http;
    const choosePort = "set http.port (SIDECAR_HTTP_PORT) to";
    const target = { purpose: "serve the HTTP endpoints", host, port, choosePort, hostSetting: "http.host" };
    throw listenFailure(error, target) ?? error;
  }
}

/** Before the runner exists (while connecting), the endpoints report "starting". */
const STARTING: SidecarStatus = { state: "starting", caughtUp: false, leader: false, partitions: [] };

export async function runSidecar(config: Config, logger: Logger): Promise<number> {
  const shutdown = newShutdownStack(logger);
  const stopRequested = waitForStopSignal(logger);
  try {
    const metrics = createMetrics();
    let status = (): SidecarStatus => STARTING;
    // Listening first and closing last: liveness answers while MongoDB is still being
    // reached, and readiness reports "stopped" while the runner winds down.
    const embedded = config.mongodbUri === undefined;
    const http = await startEndpoints(config, { metrics, logger, embedded, status: () => status() });
    shutdown.defer("http endpoints", () => http.close());
    const deployment = await connectUnlessStopped(config, logger, shutdown, stopRequested);
    if (!deployment) return 0;
    const runner = new Runner({ ...deployment, config, metrics, logger });
    status = () => runner.status();
    runner.start();
    shutdown.defer("runner", () => runner.stop());
    await stopRequested;
  } finally {
    await shutdown.close();
  }
  return 0;
}
