// loadConfig reads, in this order (later wins): the defaults; the file given by `--config
// FILE` or SIDECAR_CONFIG (YAML, or JSON, which is YAML); then the environment variables of
// ENV_OVERRIDES. An explicit `database` (file or SIDECAR_DATABASE) wins over the connection
// string's path, which on many deployments names the authentication database instead.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../errors.js";
import { formatIssues, type ValueOrigin } from "./issues.js";
import { databaseOfUri, redactUriPasswords } from "./mongodb-uri.js";
import { configSchema, databaseName, type Config } from "./schema.js";

export interface LoadConfigOptions {
  /** `--config FILE`; falls back to SIDECAR_CONFIG. */
  file?: string;
  env: NodeJS.ProcessEnv;
}

export interface EnvOverride {
  variable: string;
  path: readonly string[];
  numeric: boolean;
  /** What `--help` says of it. */
  help: string;
}

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  {
    variable: "MONGODB_URI",
    path: ["mongodbUri"],
    numeric: false,
    help: "deployment to watch (mongodbUri). Unset: an embedded, in-memory server (nothing persisted)",
  },
  {
    variable: "SIDECAR_DATABASE",
    path: ["database"],
    numeric: false,
    help: "database to watch (database); wins over the connection string's path",
  },
  {
    variable: "SIDECAR_HTTP_PORT",
    path: ["http", "port"],
    numeric: true,
    help: "port of /metrics, /healthz, /readyz",
  },
  {
    variable: "SIDECAR_LOG_LEVEL",
    path: ["logLevel"],
    numeric: false,
    help: "fatal, error, warn, info, debug, trace, silent",
  },
  { variable: "SIDECAR_LOG_FORMAT", path: ["logFormat"], numeric: false, help: "json (default) or pretty" },
  {
    variable: "SIDECAR_CONCURRENCY",
    path: ["concurrency"],
    numeric: true,
    help: "corrections that may run at once",
  },
  {
    variable: "SIDECAR_CONNECT_TIMEOUT_SECONDS",
    path: ["connectTimeoutSeconds"],
    numeric: true,
    help: "how long connecting retries before giving up (default 60)",
  },
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
    // yaml's first line ends with ":" before a snippet of the file; the line and column suffice.
    const reason = redactUriPasswords((error as Error).message.split("\n")[0] ?? "").replace(/:\s*$/, "");
    throw new ConfigError(`${file}: not valid YAML or JSON: ${reason}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`${file}: expected a mapping of settings at the top level, got ${typeof parsed}`);
  }
  return parsed as Record<string, unknown>;
}

// Numeric variables become numbers when they read as one ("5.5" too, so that validation says
// it is not an integer); anything else is passed on as text, reported with the variable's name.
function envValue(text: string, numeric: boolean): unknown {
  return numeric && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
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
  if (raw.database !== undefined || config.mongodbUri === undefined) return config;
  return { ...config, database: uriDatabase(config.mongodbUri, file, origins) ?? config.database };
}

/** The database a connection string's path names, checked like a `database` setting. */
function uriDatabase(
  uri: string,
  file: string | undefined,
  origins: readonly ValueOrigin[],
): string | undefined {
  const database = databaseOfUri(uri);
  if (database === undefined) return undefined;
  const checked = databaseName.safeParse(database);
  if (checked.success) return database;
  const source = origins.find((origin) => origin.path === "mongodbUri")?.source ?? file ?? "configuration";
  const reason = checked.error.issues[0]?.message ?? "";
  throw new ConfigError(
    `${source}: the connection string's path names the database to watch: ${reason}; ` +
      "set database (SIDECAR_DATABASE) to the application's database, and the path stays the authentication database",
  );
}
