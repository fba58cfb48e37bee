// `mongo-pattern-sidecar dev-server`: the embedded MongoDB-compatible server alone, for
// development against a throw-away database.
import type { Logger } from "../../ops/logger.js";
import { startEmbeddedMongo } from "../embedded-server.js";
import { waitForStopSignal } from "../stop-signal.js";

export async function devServerCommand(port: number | undefined, logger: Logger): Promise<number> {
  const server = await startEmbeddedMongo({ host: "127.0.0.1", port: port ?? 27017 });
  process.stdout.write(`embedded server listening: ${server.uri}\n(in memory: nothing is persisted)\n`);
  await waitForStopSignal(logger);
  await server.close();
  return 0;
}
