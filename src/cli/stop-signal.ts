// How a command waits for SIGTERM/SIGINT, and the shutdown stack that then undoes what it
// started, logging any cleanup that fails.
import type { Logger } from "../ops/logger.js";
import { createShutdownStack, type ShutdownStack } from "../ops/shutdown.js";

/**
 * After a stop signal, in-flight work gets this long before the process exits anyway: inside
 * Kubernetes' default 30 s grace period, whatever hangs (a commit, a renewal). Exiting then
 * loses nothing: the stored position covers only committed corrections, and the next start
 * reads the rest again.
 */
export const STOP_DEADLINE_MS = 25_000;

export function waitForStopSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    // Listening on after the first signal: without a listener, Node would end the process at
    // once on a repeat, and Ctrl-C under `npm start` arrives twice (from the terminal, and
    // forwarded by npm). The deadline below bounds the stop anyway.
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.info({ signal }, "already stopping");
        return;
      }
      stopping = true;
      logger.info({ signal }, "stopping");
      setTimeout(() => {
        logger.warn(
          { deadlineMs: STOP_DEADLINE_MS },
          "stop took too long; exiting without it: the next start reads again what it did not finish",
        );
        process.exit(0);
      }, STOP_DEADLINE_MS).unref();
      resolve();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

export function newShutdownStack(logger: Logger): ShutdownStack {
  return createShutdownStack(({ name, error }) =>
    logger.error({ err: error, resource: name }, "cleanup failed"),
  );
}
