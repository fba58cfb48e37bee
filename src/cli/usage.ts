// The help texts: an overview of the commands and every environment variable, and per
// command its options and examples. Built from the option tables, so they cannot drift.
import { ENV_OVERRIDES } from "../config/load.js";

export interface OptionSpec {
  type: "string" | "boolean";
  /** Placeholder for a string option's value in the help (`--port N`). */
  value?: string;
  help: string;
}

export interface CommandSpec {
  summary: string;
  options: Record<string, OptionSpec>;
  examples: string[];
}

const PROGRAM = "mongo-pattern-sidecar";

/** Variables read besides the configuration overrides. */
const OTHER_VARIABLES = [
  { variable: "SIDECAR_CONFIG", help: "configuration file, when --config is not given" },
  {
    variable: "NODE_ENV",
    help: "production (the image's): MONGODB_URI must be set unless --embedded is passed",
  },
];

function table(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

function optionRows(options: Record<string, OptionSpec>): [string, string][] {
  return Object.entries(options).map(([name, option]) => [
    `--${name}${option.value ? ` ${option.value}` : ""}`,
    option.help,
  ]);
}

const HELP_OPTIONS: [string, string][] = [
  ["--help", "show this help"],
  ["--version", "print the version"],
];

export function environmentHelp(): string[] {
  return table([...ENV_OVERRIDES, ...OTHER_VARIABLES].map(({ variable, help }) => [variable, help]));
}

function overview(specs: Record<string, CommandSpec>): string {
  return [
    `Usage: ${PROGRAM} [command] [options]`,
    "",
    "Commands:",
    ...table(Object.entries(specs).map(([name, spec]) => [name, spec.summary])),
    "",
    "Options:",
    ...table(HELP_OPTIONS),
    `Run \`${PROGRAM} <command> --help\` for a command's options and examples.`,
    "",
    "Environment:",
    ...environmentHelp(),
  ].join("\n");
}

/** `command`'s usage, or the overview when no command is given. */
export function commandUsage(command: string | undefined, specs: Record<string, CommandSpec>): string {
  const spec = command === undefined ? undefined : specs[command];
  if (spec === undefined) return overview(specs);
  return [
    `Usage: ${PROGRAM} ${command} [options]`,
    "",
    `${command}: ${spec.summary}`,
    "",
    "Options:",
    ...table([...optionRows(spec.options), ...HELP_OPTIONS]),
    "",
    "Examples:",
    ...spec.examples.map((example) => `  ${example}`),
  ].join("\n");
}
