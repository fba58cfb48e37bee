// `mongo-pattern-sidecar dev-server`: the embedded MongoDB-compatible server alone, for
// development against a throw-away database.
import type { Logger } from "../../ops/logger.js";
import type { DevServerOptions } from "../args.js";
import { startEmbeddedMongo, type EmbeddedServer } from "../embedded-server.js";
import { listenFailure } from "../failures.js";
import { waitForStopSignal } from "../stop-signal.js";

const HOST = "127.0.0.1";
const DEFAULT_PORT = 27017;

/** Starts the server; a port already taken (often by a MongoDB) is a failure a person can act on. */
async function startServer(port: number, options: DevServerOptions): Promise<EmbeddedServer> {
  try {
    return await startEmbeddedMongo({ host: HOST, port, ...options });
  } catch (error) {
    const target = { purpose: "start the embedded server", host: HOST, port, choosePort: "pass --port with" };
    throw listenFailure(error, target) ?? error;
  }
}

export async function devServerCommand(
  port: number | undefined,
  options: DevServerOptions,
  logger: Logger,
): Promise<number> {
  const server = await startServer(port ?? DEFAULT_PORT, options);
  process.stdout.write(`embedded server listening: ${server.uri}\n(in memory: nothing is persisted)\n`);
  await waitForStopSignal(logger);
  await server.close();
  return 0;
}
