// The command line: parse, load the configuration, run one command, map failures to exit
// statuses (src/cli/failures.ts): 2 for usage or configuration, 3 to 7 for operational
// failures a person can act on, each with one line on stderr; 1 for anything else. The JSON
// log gets the detail.
import { readFileSync } from "node:fs";
import { loadConfig } from "../config/load.js";
import { describeRules } from "../config/describe.js";
import { IGNORED_KEYS, type Config } from "../config/schema.js";
import { ConfigError, toError, UsageError } from "../errors.js";
import { createLogger, logDestination, type LogDestination, type Logger } from "../ops/logger.js";
import { helpText, parseCliArgs, type CliArgs } from "./args.js";
import { demoCommand } from "./commands/demo.js";
import { devServerCommand } from "./commands/dev-server.js";
import { migrateCommand } from "./commands/migrate.js";
import { runSidecar } from "./commands/run.js";
import { sweepCommand } from "./commands/sweep.js";
import { sweepRequestCommand } from "./commands/sweep-request.js";
import { EXIT_STATUS, OperationalError } from "./failures.js";

const PREFIX = "mongo-pattern-sidecar: ";

/** Every line of `message` on stderr, each with the program's name. */
function printError(message: string): void {
  process.stderr.write(
    message
      .split("\n")
      .map((line) => `${PREFIX}${line}\n`)
      .join(""),
  );
}

function version(): string {
  // package.json sits two levels up from both src/cli/ and dist/cli/, and the image copies it.
  const file = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

// The image sets NODE_ENV=production: there, a forgotten MONGODB_URI must not quietly start an
// empty in-memory database that loses every write.
function checkDeploymentChoice(config: Config, args: CliArgs): void {
  if (config.mongodbUri === undefined && args.sweepRequest) {
    throw new ConfigError(
      "MONGODB_URI is not set: sweep --request asks the sidecars running against a deployment; " +
        "set MONGODB_URI to theirs (in their pod, it is set)",
    );
  }
  if (config.mongodbUri !== undefined || !["run", "sweep", "migrate", "check-config"].includes(args.command))
    return;
  if (process.env.NODE_ENV === "production" && !args.embedded) {
    throw new ConfigError(
      "MONGODB_URI is not set and NODE_ENV is production: set MONGODB_URI to the deployment to watch, " +
        "or pass --embedded to use an in-memory server that keeps nothing",
    );
  }
  if (args.command !== "check-config") {
    process.stderr.write(
      `${PREFIX}MONGODB_URI is not set: using an embedded in-memory server; nothing is persisted\n`,
    );
  }
}

/** Where the command's log lines go. */
async function commandLogDestination(config: Config, args: CliArgs): Promise<LogDestination> {
  // `sweep` and `migrate` print their report on stdout; their log lines (progress among them)
  // go to stderr.
  const fd = args.command === "sweep" || args.command === "migrate" ? 2 : 1;
  return logDestination(args.pretty ? "pretty" : config.logFormat, fd);
}

async function runParsedCommand(args: CliArgs): Promise<number> {
  const config = loadConfig({ file: args.configFile, env: process.env });
  checkDeploymentChoice(config, args);
  const destination = await commandLogDestination(config, args);
  try {
    const logger = createLogger({ level: config.logLevel, destination });
    warnOfIgnoredKeys(config, logger);
    return await runCommand(args, config, logger);
  } finally {
    // Every line the command logged is out before a failure's line on stderr.
    destination.flushSync?.();
  }
}

function warnOfIgnoredKeys(config: Config, logger: Logger): void {
  for (const [key, why] of Object.entries(IGNORED_KEYS)) {
    if (config[key as keyof typeof IGNORED_KEYS] !== undefined)
      logger.warn({ key }, `configuration key ${key} is ignored: ${why}; remove it`);
  }
}

function runCommand(args: CliArgs, config: Config, logger: Logger): Promise<number> | number {
  switch (args.command) {
    case "check-config":
      process.stdout.write(`${describeRules(config)}\n`);
      return 0;
    case "run":
      return runSidecar(config, logger);
    case "sweep":
      if (args.sweepRequest) return sweepRequestCommand(config, logger, args.sweepRequest);
      return sweepCommand(config, logger, { dryRun: args.dryRun, output: args.output });
    case "migrate":
      return migrateCommand(config, logger, args.dryRun);
    case "dev-server":
      return devServerCommand(args.port, args.devServer, logger);
    case "demo":
      return demoCommand(createLogger({ level: "warn" }));
  }
}

function reportFailure(thrown: unknown): number {
  if (thrown instanceof UsageError || thrown instanceof ConfigError) {
    printError(thrown.message);
    const usage = thrown instanceof UsageError ? thrown.context.usage : undefined;
    if (typeof usage === "string") process.stderr.write(`\n${usage}\n`);
    return EXIT_STATUS.usage;
  }
  const err = toError(thrown);
  createLogger().fatal({ err }, "sidecar failed");
  if (!(thrown instanceof OperationalError)) return EXIT_STATUS.failed;
  printError(thrown.message);
  return thrown.exitStatus;
}

export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    if (args.version) process.stdout.write(`${version()}\n`);
    else if (args.help) process.stdout.write(`${helpText(args)}\n`);
    else return await runParsedCommand(args);
    return 0;
  } catch (thrown) {
    return reportFailure(thrown);
  }
}
