// pino, JSON, one logger for the process; child loggers carry the rule and collection.
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
