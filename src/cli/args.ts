// Command-line parsing for run-cli.ts, pure so that it is unit-tested. Bad usage raises a
// UsageError naming the argument and what was expected, with the usage to print after it;
// run-cli.ts exits 2 on it. Each command lists its own options in COMMAND_SPECS: adding an
// option to a command is one line there.
import { parseArgs } from "node:util";
import { UsageError } from "../errors.js";
import { commandUsage, type CommandSpec, type OptionSpec } from "./usage.js";

export const COMMANDS = ["run", "sweep", "migrate", "check-config", "dev-server", "demo"] as const;
export type Command = (typeof COMMANDS)[number];

export interface CliArgs {
  command: Command;
  /** Whether the command was named (`sweep --help`) or defaulted to run (`--help`). */
  commandNamed: boolean;
  help: boolean;
  version: boolean;
  configFile?: string;
  dryRun: boolean;
  /** Start the embedded in-memory server even under NODE_ENV=production. */
  embedded: boolean;
  /** Human-readable logs instead of JSON lines. */
  pretty: boolean;
  port?: number;
  /** dev-server: the embedded server's startup options that make it behave as a deployment may. */
  devServer: DevServerOptions;
  /** How `sweep` reports: a line per rule, or a JSON line per document. */
  output: SweepOutput;
  /** `sweep --request`: ask the running sidecars for the sweep instead of performing it. */
  sweepRequest?: SweepRequestArgs;
}

export interface SweepRequestArgs {
  /** `--rule NAME`: that rule only; absent: every rule. */
  rule?: string;
  /** Follow the request until it ends (not `--no-wait`). */
  wait: boolean;
}

export interface DevServerOptions {
  /** mongod's transactionLifetimeLimitSeconds at startup (default 60). */
  transactionLifetimeLimitSeconds?: number;
  /** Reads preferring a secondary see the data this many milliseconds old. */
  secondaryLagMs?: number;
}

export const SWEEP_OUTPUTS = ["text", "json"] as const;
export type SweepOutput = (typeof SWEEP_OUTPUTS)[number];

const CONFIG: OptionSpec = { type: "string", value: "FILE", help: "YAML or JSON configuration file" };
const EMBEDDED: OptionSpec = {
  type: "boolean",
  help: "without MONGODB_URI, use the embedded in-memory server even under NODE_ENV=production",
};
const PRETTY: OptionSpec = {
  type: "boolean",
  help: "log for a person at a terminal (needs pino-pretty) instead of JSON lines",
};

export const COMMAND_SPECS: Record<Command, CommandSpec> = {
  run: {
    summary: "watch the change stream and correct documents (the default command)",
    options: { config: CONFIG, embedded: EMBEDDED, pretty: PRETTY },
    examples: [
      "MONGODB_URI=mongodb://h1,h2/shop?replicaSet=rs0 mongo-pattern-sidecar run",
      "mongo-pattern-sidecar --pretty",
    ],
  },
  sweep: {
    summary: "correct every document that breaks a rule once, then exit",
    options: {
      config: CONFIG,
      "dry-run": {
        type: "boolean",
        help: "write nothing; report per rule what would change; exit 8 if anything would",
      },
      output: {
        type: "string",
        value: "FORMAT",
        help: "text (the default: one line per rule) or json (one JSON line per document changed)",
      },
      request: {
        type: "boolean",
        help: "ask the running sidecars to sweep (the writer lease's holder does), print its progress until done",
      },
      rule: { type: "string", value: "NAME", help: "with --request: sweep that rule only" },
      "no-wait": { type: "boolean", help: "with --request: print the request's id and exit at once" },
      embedded: EMBEDDED,
      pretty: PRETTY,
    },
    examples: [
      "MONGODB_URI=mongodb://h1/shop?replicaSet=rs0 mongo-pattern-sidecar sweep --dry-run",
      "mongo-pattern-sidecar sweep --dry-run --output json > affected.jsonl",
      "kubectl exec deploy/pattern-sidecar -- mongo-pattern-sidecar sweep --request --rule trades-bucket",
    ],
  },
  migrate: {
    summary:
      "move documents in the seeds' starting schema (one trade per document) into buckets, then exit; " +
      "killed, run it again",
    options: {
      config: CONFIG,
      "dry-run": {
        type: "boolean",
        help: "write nothing; report per rule what would be moved; exit 0 either way (unlike sweep)",
      },
      embedded: EMBEDDED,
      pretty: PRETTY,
    },
    examples: ["MONGODB_URI=mongodb://h1/shop?replicaSet=rs0 mongo-pattern-sidecar migrate --dry-run"],
  },
  "check-config": {
    summary: "validate the configuration and print the rules",
    options: { config: CONFIG, embedded: EMBEDDED },
    examples: ["mongo-pattern-sidecar check-config --config sidecar.yaml"],
  },
  "dev-server": {
    summary: "start the embedded MongoDB-compatible server alone",
    options: {
      port: { type: "string", value: "N", help: "port to listen on (default 27017)" },
      "transaction-lifetime-limit-seconds": {
        type: "string",
        value: "N",
        help: "abort transactions older than N seconds, as mongod's parameter (default 60)",
      },
      "secondary-lag-ms": {
        type: "string",
        value: "N",
        help: "serve reads preferring a secondary from the data as it was N ms ago (default 0)",
      },
    },
    examples: [
      "mongo-pattern-sidecar dev-server --port 27018",
      "mongo-pattern-sidecar dev-server --secondary-lag-ms 2000",
    ],
  },
  demo: {
    summary: "show the sidecar fixing the seeds' examples on the embedded server (seed rules)",
    // Accepted, so that a shared invocation works, but the demo's data needs the seeds' rules.
    options: { config: { ...CONFIG, help: "read and validated, but the demo uses the seeds' rules" } },
    examples: ["mongo-pattern-sidecar demo"],
  },
};

/** Options every command takes. */
const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  help: { type: "boolean", help: "show this help (`<command> --help`: the command's own)" },
  version: { type: "boolean", help: "print the version" },
};

function isCommand(word: string): word is Command {
  return (COMMANDS as readonly string[]).includes(word);
}

function parseOutput(text: string | undefined): SweepOutput {
  if (text === undefined) return "text";
  const output = SWEEP_OUTPUTS.find((known) => known === text);
  if (!output) throw new UsageError(`--output: expected ${SWEEP_OUTPUTS.join(" or ")}, got "${text}"`);
  return output;
}

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new UsageError(`--port: expected a port number from 0 to 65535, got "${text}"`);
  }
  return port;
}

/** A whole number of at least `least`, or undefined when the option is not given. */
function parseWholeNumber(option: string, text: string | undefined, least: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < least)
    throw new UsageError(`--${option}: expected a whole number from ${least}, got "${text}"`);
  return n;
}

/** Every option of every command, for node's parser; which command takes which is checked after. */
function allOptions() {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const spec of [GLOBAL_OPTIONS, ...Object.values(COMMAND_SPECS).map((command) => command.options)]) {
    for (const [name, option] of Object.entries(spec)) options[name] = { type: option.type };
  }
  options.help = { type: "boolean", short: "h" };
  return options;
}

// node's messages ("Unknown option '--x'. To specify a positional argument starting with a
// '-', place it at the end ...") are longer than the mistake; say it in a few words.
function usageErrorOf(error: Error & { code?: string }, command: Command | undefined): UsageError {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1] ?? "";
  const message =
    error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
      ? `unknown option "${option}"`
      : error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE"
        ? `${option.replace(/^(--\S+).*$/, "$1")}: expected a value`
        : error.message;
  return new UsageError(message, { usage: commandUsage(command, COMMAND_SPECS) });
}

function firstWord(argv: readonly string[]): Command | undefined {
  const word = argv.find((arg) => !arg.startsWith("-"));
  return word !== undefined && isCommand(word) ? word : undefined;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: allOptions() });
  } catch (error) {
    throw usageErrorOf(error as Error, firstWord(argv));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const [named, ...extra] = parsed.positionals;
  const word = named ?? "run";
  if (!isCommand(word)) {
    throw new UsageError(`unknown command "${word}": expected one of ${COMMANDS.join(", ")}`, {
      usage: commandUsage(undefined, COMMAND_SPECS),
    });
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}" after "${word}"`);
  for (const [option, value] of Object.entries(values)) {
    if (value !== undefined && !(option in GLOBAL_OPTIONS) && !(option in COMMAND_SPECS[word].options)) {
      throw new UsageError(`--${option} is not an option of "${word}"`, {
        usage: commandUsage(word, COMMAND_SPECS),
      });
    }
  }
  if (values.config === "") throw new UsageError("--config: expected a file path");
  return {
    command: word,
    commandNamed: named !== undefined,
    help: values.help === true,
    version: values.version === true,
    configFile: values.config as string | undefined,
    dryRun: values["dry-run"] === true,
    embedded: values.embedded === true,
    pretty: values.pretty === true,
    port: parsePort(values.port as string | undefined),
    devServer: {
      transactionLifetimeLimitSeconds: parseWholeNumber(
        "transaction-lifetime-limit-seconds",
        values["transaction-lifetime-limit-seconds"] as string | undefined,
        1,
      ),
      secondaryLagMs: parseWholeNumber(
        "secondary-lag-ms",
        values["secondary-lag-ms"] as string | undefined,
        0,
      ),
    },
    output: parseOutput(values.output as string | undefined),
    sweepRequest: parseSweepRequest(values),
  };
}

/** `--request` and the options that go with it, which nothing else takes. */
function parseSweepRequest(
  values: Record<string, string | boolean | undefined>,
): SweepRequestArgs | undefined {
  const usage = commandUsage("sweep", COMMAND_SPECS);
  if (values.request !== true) {
    const stray = ["rule", "no-wait"].find((option) => values[option] !== undefined);
    if (stray) throw new UsageError(`--${stray} goes with --request`, { usage });
    return undefined;
  }
  const clash = ["dry-run", "output", "embedded"].find((option) => values[option] !== undefined);
  if (clash) throw new UsageError(`--${clash} does not go with --request`, { usage });
  if (values.rule === "") throw new UsageError("--rule: expected a rule's name");
  return { rule: values.rule as string | undefined, wait: values["no-wait"] !== true };
}

/** What `--help` prints: the overview, or after a command, that command's options and examples. */
export function helpText(args: Pick<CliArgs, "command" | "commandNamed">): string {
  return commandUsage(args.commandNamed ? args.command : undefined, COMMAND_SPECS);
}
