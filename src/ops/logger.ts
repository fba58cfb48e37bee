// pino, JSON, one logger for the process; child loggers carry the rule and collection.
// For a person at a terminal, `logFormat: pretty` formats the same lines with pino-pretty, a
// development dependency loaded only then: the production image logs JSON for collectors.
// Credentials never reach a log line: connection strings are redacted before logging, and
// the serialised error messages are scrubbed too (a driver error may quote the URI).
import { pino, stdSerializers, type Logger, type LevelWithSilent } from "pino";
import { redactUriPasswords } from "../config/mongodb-uri.js";

export type { Logger };

function serializeError(error: Error) {
  const plain = stdSerializers.err(error);
  return {
    ...plain,
    message: redactUriPasswords(plain.message),
    stack: plain.stack && redactUriPasswords(plain.stack),
  };
}

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Where the JSON lines go; stdout by default. */
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? "info",
      base: { name: "mongo-pattern-sidecar" },
      serializers: { err: serializeError },
      redact: { paths: ["uri", "mongodbUri", "*.uri", "*.mongodbUri", "password"], censor: "***" },
    },
    options.destination ?? pino.destination(1),
  );
}

/** The `logFormat` setting. */
export type LogFormat = "json" | "pretty";

function isMissingPackage(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND";
}

/** Where log lines go for `format`, on file descriptor `fd`: pretty if pino-pretty is installed, else JSON. */
export async function logDestination(format: LogFormat, fd: 1 | 2): Promise<pino.DestinationStream> {
  if (format === "pretty") {
    try {
      const { build } = await import("pino-pretty");
      return build({
        destination: fd,
        sync: true,
        colorize: Boolean((fd === 1 ? process.stdout : process.stderr).isTTY),
      });
    } catch (error) {
      if (!isMissingPackage(error)) throw error;
      process.stderr.write(
        "mongo-pattern-sidecar: pretty logs need the pino-pretty package, which is not installed (a development dependency); logging JSON\n",
      );
    }
  }
  return pino.destination(fd);
}
