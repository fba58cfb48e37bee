// The command line: parse, load the configuration, run one command, map failures to exit
// statuses (2: usage or configuration; 1: anything else, with a JSON log line).
import { loadConfig } from "../config/load.js";
import { describeRules } from "../config/describe.js";
import { ConfigError, toError, UsageError } from "../errors.js";
import { createLogger } from "../ops/logger.js";
import { parseCliArgs, USAGE, type CliArgs } from "./args.js";
import { demoCommand } from "./commands/demo.js";
import { devServerCommand } from "./commands/dev-server.js";
import { runSidecar } from "./commands/run.js";
import { migrateCommand } from "./commands/migrate.js";
import { sweepCommand } from "./commands/sweep.js";

const EXIT_USAGE = 2;

async function runParsedCommand(args: CliArgs): Promise<number> {
  const config = await loadConfig({ file: args.configFile, env: process.env });
  // `sweep` and `migrate` print their report on stdout; their log lines (progress among
  // them) go to stderr.
  const logger = createLogger({
    level: config.logLevel,
    destination: args.command === "sweep" || args.command === "migrate" ? process.stderr : undefined,
  });
  switch (args.command) {
    case "check-config":
      process.stdout.write(`${describeRules(config)}\n`);
      return 0;
    case "run":
      return runSidecar(config, logger);
    case "sweep":
      return sweepCommand(config, logger, args.dryRun);
    case "migrate":
      return migrateCommand(config, logger, args.dryRun);
    case "dev-server":
      return devServerCommand(args.port, logger);
    case "demo":
      return demoCommand(createLogger({ level: "warn" }));
  }
}

export async function runCli(argv: readonly string[]): Promise<number> {
  try {
    const args = parseCliArgs(argv);
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    return await runParsedCommand(args);
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
