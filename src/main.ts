#!/usr/bin/env node
// CLI entry: parse, load the configuration, start, wait for a signal, stop in order.
import { ConfigError, describeRules, loadConfig } from "./config.js";
import type { Config } from "./config.js";
import { parseCliArgs, USAGE, type CliArgs } from "./cli-args.js";
import { connectDeployment, type Deployment } from "./deployment.js";
import { runDemo } from "./demo.js";
import { startEmbeddedMongo } from "./embedded-server.js";
import { toError, UsageError } from "./errors.js";
import { startHttpServer, type SidecarStatus } from "./http.js";
import { createLogger, type Logger } from "./logger.js";
import { createMetrics } from "./metrics.js";
import { createShutdownStack, type ShutdownStack } from "./shutdown.js";
import { Runner } from "./stream/runner.js";
import { formatSweepReport, sweepCommand } from "./sweep-command.js";

const EXIT_USAGE = 2;
/** After a stop signal, in-flight work gets this long before the process exits anyway. */
const STOP_DEADLINE_MS = 10_000;

function waitForStopSignal(logger: Logger): Promise<void> {
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

function newShutdownStack(logger: Logger): ShutdownStack {
  return createShutdownStack(({ name, error }) =>
    logger.error({ err: error, resource: name }, "cleanup failed"),
  );
}

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
  const connecting = connectDeployment(config, logger, shutdown);
  const stopped = stopRequested.then(() => undefined);
  const deployment = await Promise.race([connecting, stopped]);
  if (!deployment) {
    connecting.catch((err: unknown) => logger.debug({ err }, "connecting abandoned: stop requested"));
  }
  return deployment;
}

/** Before the runner exists (while connecting), the endpoints report "starting". */
const STARTING: SidecarStatus = { state: "starting", caughtUp: false, leader: false };

async function runSidecar(config: Config, logger: Logger): Promise<number> {
  const shutdown = newShutdownStack(logger);
  const stopRequested = waitForStopSignal(logger);
  try {
    const metrics = createMetrics();
    let status = (): SidecarStatus => STARTING;
    // Listening first and closing last: liveness answers while MongoDB is still being
    // reached, and readiness reports "stopped" while the runner winds down.
    const http = await startHttpServer({ ...config.http, metrics, logger, status: () => status() });
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

async function runSweep(config: Config, logger: Logger, dryRun: boolean): Promise<number> {
  const shutdown = newShutdownStack(logger);
  try {
    const deployment = await connectDeployment(config, logger, shutdown);
    const reports = await sweepCommand({ deployment, config, logger, metrics: createMetrics(), dryRun });
    process.stdout.write(`${formatSweepReport(reports, dryRun)}\n`);
  } finally {
    await shutdown.close();
  }
  return 0;
}

async function runDevServer(port: number | undefined, logger: Logger): Promise<number> {
  const server = await startEmbeddedMongo({ host: "127.0.0.1", port: port ?? 27017 });
  process.stdout.write(`embedded server listening: ${server.uri}\n(in memory: nothing is persisted)\n`);
  await waitForStopSignal(logger);
  await server.close();
  return 0;
}

async function runCommand(args: CliArgs): Promise<number> {
  const config = await loadConfig({ file: args.configFile, env: process.env });
  // `sweep` prints its report on stdout; its log lines (progress among them) go to stderr.
  const logger = createLogger({
    level: config.logLevel,
    destination: args.command === "sweep" ? process.stderr : undefined,
  });
  switch (args.command) {
    case "check-config":
      process.stdout.write(`${describeRules(config)}\n`);
      return 0;
    case "run":
      return runSidecar(config, logger);
    case "sweep":
      return runSweep(config, logger, args.dryRun);
    case "dev-server":
      return runDevServer(args.port, logger);
    case "demo":
      return runDemo(createLogger({ level: "warn" }));
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    return await runCommand(args);
  } catch (thrown) {
    if (thrown instanceof UsageError || thrown instanceof ConfigError) {
      process.stderr.write(`mongo-pattern-sidecar: ${thrown.message}\n`);
      return EXIT_USAGE;
    }
    const err = toError(thrown);
    createLogger().fatal({ err }, "sidecar failed");
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
