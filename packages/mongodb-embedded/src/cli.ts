// Starts the embedded server from the command line (in this package's folder):
//   node --import tsx src/cli.ts [--host 127.0.0.1] [--port 27017] [--change-history 100000]
//     [--server-version 7.0|8.0] [--transaction-lifetime-limit-seconds 60] [--secondary-lag-ms 0] [--auth]
// prints the connection string, and stops cleanly on SIGINT/SIGTERM.
import { parseArgs } from "node:util";
import { startEmbeddedServer } from "./index.js";
import { SERVER_VERSIONS, type ServerVersion } from "./server-version.js";

const USAGE =
  "usage: cli.ts [--host <address>] [--port <number>] [--change-history <events>] [--server-version 7.0|8.0]\n" +
  "              [--transaction-lifetime-limit-seconds <seconds>] [--secondary-lag-ms <ms>] [--auth]";

function parsePositiveInteger(value: string | undefined, name: string, fallback: number): number;
function parsePositiveInteger(value: string | undefined, name: string): number | undefined;
function parsePositiveInteger(
  value: string | undefined,
  name: string,
  fallback?: number,
): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`--${name} must be a non-negative integer, got '${value}'`);
  return n;
}

function parseServerVersion(value: string | undefined): ServerVersion | undefined {
  if (value === undefined) return undefined;
  const version = SERVER_VERSIONS.find((known) => known === value);
  if (!version)
    throw new Error(`--server-version must be one of ${SERVER_VERSIONS.join(", ")}, got '${value}'`);
  return version;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "change-history": { type: "string" },
      "server-version": { type: "string" },
      "transaction-lifetime-limit-seconds": { type: "string" },
      "secondary-lag-ms": { type: "string" },
      auth: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const server = await startEmbeddedServer({
    host: values.host ?? "127.0.0.1",
    port: parsePositiveInteger(values.port, "port", 27017),
    changeHistoryLimit:
      parsePositiveInteger(values["change-history"], "change-history", 100_000) || undefined,
    serverVersion: parseServerVersion(values["server-version"]),
    transactionLifetimeLimitSeconds: parsePositiveInteger(
      values["transaction-lifetime-limit-seconds"],
      "transaction-lifetime-limit-seconds",
    ),
    secondaryLagMs: parsePositiveInteger(values["secondary-lag-ms"], "secondary-lag-ms"),
    auth: values.auth,
  });
  console.log(server.uri);
  const stop = (signal: string) => {
    console.error(`${signal}: stopping the embedded server`);
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  console.error(USAGE);
  process.exit(2);
});
