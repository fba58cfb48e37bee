// How a command waits for SIGTERM/SIGINT, and the shutdown stack that then undoes what it
// started, logging any cleanup that fails.
import type { Logger } from "../ops/logger.js";
import { createShutdownStack, type ShutdownStack } from "../ops/shutdown.js";

/** After a stop signal, in-flight work gets this long before the process exits anyway. */
const STOP_DEADLINE_MS = 10_000;

export function waitForStopSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "stopping");
      setTimeout(() => {
        logger.error({ deadlineMs: STOP_DEADLINE_MS }, "stop took too long; exiting");
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      resolve();
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  });
}

export function newShutdownStack(logger: Logger): ShutdownStack {
  return createShutdownStack(({ name, error }) =>
    logger.error({ err: error, resource: name }, "cleanup failed"),
  );
}
