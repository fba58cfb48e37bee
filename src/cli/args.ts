// Command-line parsing for run-cli.ts, pure so that it is unit-tested. Bad usage raises a
// UsageError naming the argument and what was expected; main.ts exits 2 on it.
import { parseArgs } from "node:util";
import { UsageError } from "../errors.js";

export const COMMANDS = ["run", "sweep", "migrate", "check-config", "dev-server", "demo"] as const;
export type Command = (typeof COMMANDS)[number];

export interface CliArgs {
  command: Command;
  help: boolean;
  configFile?: string;
  dryRun: boolean;
  port?: number;
}

export const USAGE = `Usage: mongo-pattern-sidecar [command] [options]

Commands:
  run                  watch the change stream and correct documents (default)
  sweep [--dry-run]    correct every document that breaks a rule once, then exit;
                       --dry-run writes nothing and reports what would change
  migrate [--dry-run]  move documents in the seeds' starting schema (one trade per document)
                       into buckets, then exit; killed, run it again
  check-config         validate the configuration and print the rules
  dev-server --port N  start the embedded MongoDB-compatible server alone
  demo                 show the sidecar fixing the seeds' examples on the embedded server
                       (with the seeds' default rules, whatever --config says)

Options:
  --config FILE        YAML or JSON configuration file
  --help               show this help

Environment:
  MONGODB_URI          deployment to watch; its path names the database. Unset: an
                       embedded, in-memory server is started (nothing is persisted).`;

const OPTIONS_OF: Record<Command, readonly string[]> = {
  run: [],
  sweep: ["dry-run"],
  migrate: ["dry-run"],
  "check-config": [],
  "dev-server": ["port"],
  demo: [],
};

function isCommand(word: string): word is Command {
  return (COMMANDS as readonly string[]).includes(word);
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new UsageError(`--port: expected a port number from 0 to 65535, got "${text}"`);
  }
  return port;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: "string" },
        "dry-run": { type: "boolean" },
        port: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n(see --help)`);
  }
  const { values, positionals } = parsed;
  const [word = "run", ...extra] = positionals;
  if (!isCommand(word))
    throw new UsageError(`unknown command "${word}": expected one of ${COMMANDS.join(", ")}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" after "${word}"`);
  for (const option of ["dry-run", "port"] as const) {
    if (values[option] !== undefined && !OPTIONS_OF[word].includes(option)) {
      throw new UsageError(`--${option} is not an option of "${word}"`);
    }
  }
  if (values.config === "") throw new UsageError("--config: expected a file path");
  return {
    command: word,
    help: values.help ?? false,
    configFile: values.config,
    dryRun: values["dry-run"] ?? false,
    port: parsePort(values.port),
  };
}
