// loadConfig reads, in this order (later wins): the defaults; the file given by `--config
// FILE` or SIDECAR_CONFIG (YAML, or JSON, which is YAML); then these environment variables:
//   MONGODB_URI          mongodbUri (its path, if it names a database, wins over `database`)
//   SIDECAR_DATABASE     database
//   SIDECAR_HTTP_PORT    http.port
//   SIDECAR_LOG_LEVEL    logLevel
//   SIDECAR_CONCURRENCY  concurrency
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../errors.js";
import { formatIssues, type ValueOrigin } from "./issues.js";
import { databaseOfUri, redactUriPasswords } from "./mongodb-uri.js";
import { configSchema, type Config } from "./schema.js";

export interface LoadConfigOptions {
  /** `--config FILE`; falls back to SIDECAR_CONFIG. */
  file?: string;
  env: NodeJS.ProcessEnv;
}

export const ENV_OVERRIDES: ReadonlyArray<{ variable: string; path: readonly string[]; numeric: boolean }> = [
  { variable: "MONGODB_URI", path: ["mongodbUri"], numeric: false },
  { variable: "SIDECAR_DATABASE", path: ["database"], numeric: false },
  { variable: "SIDECAR_HTTP_PORT", path: ["http", "port"], numeric: true },
  { variable: "SIDECAR_LOG_LEVEL", path: ["logLevel"], numeric: false },
  { variable: "SIDECAR_CONCURRENCY", path: ["concurrency"], numeric: true },
];

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`${file}: cannot read the configuration file (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    const reason = redactUriPasswords((error as Error).message.split("\n")[0] ?? "");
    throw new ConfigError(`${file}: not valid YAML or JSON: ${reason}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`${file}: expected a mapping of settings at the top level, got ${typeof parsed}`);
  }
  return parsed as Record<string, unknown>;
}

// Numeric variables become numbers when they look like integers; anything else is passed on
// as text so that validation reports it with the variable's name.
function envValue(text: string, numeric: boolean): unknown {
  return numeric && /^-?\d+$/.test(text.trim()) ? Number(text) : text;
}

function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, origins: ValueOrigin[]): void {
  for (const { variable, path, numeric } of ENV_OVERRIDES) {
    const text = env[variable];
    if (text === undefined) continue;
    let target = raw;
    for (const key of path.slice(0, -1)) {
      const next = target[key];
      target[key] = next !== null && typeof next === "object" && !Array.isArray(next) ? { ...next } : {};
      target = target[key] as Record<string, unknown>;
    }
    target[path[path.length - 1] as string] = envValue(text, numeric);
    origins.push({ path: path.join("."), source: variable });
  }
}

// A variable set to nothing is a mistake (an empty Secret, a typo in a manifest), not "unset":
// taking an empty MONGODB_URI as unset would start an empty in-memory database in production.
function rejectEmptyVariables(env: NodeJS.ProcessEnv): void {
  const empty = ENV_OVERRIDES.filter(({ variable }) => env[variable]?.trim() === "");
  if (empty.length === 0) return;
  const lines = empty.map(({ variable }) =>
    variable === "MONGODB_URI"
      ? "MONGODB_URI: set but empty; expected a mongodb:// or mongodb+srv:// connection string (unset it to use the embedded in-memory server)"
      : `${variable}: set but empty; expected a value, or leave the variable unset`,
  );
  throw new ConfigError(lines.join("\n"));
}

/** Reads, merges and validates the configuration; throws ConfigError listing every problem. */
export function loadConfig(options: LoadConfigOptions): Config {
  rejectEmptyVariables(options.env);
  const file = options.file ?? (options.env.SIDECAR_CONFIG || undefined);
  const raw = file === undefined ? {} : readConfigFile(file);
  const origins: ValueOrigin[] = [];
  applyEnv(raw, options.env, origins);
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(formatIssues(result.error.issues, raw, file, origins));
  const config = result.data as Config;
  const uriDatabase = config.mongodbUri === undefined ? undefined : databaseOfUri(config.mongodbUri);
  return uriDatabase === undefined ? config : { ...config, database: uriDatabase };
}
