// pino, JSON, one logger for the process; child loggers carry the rule and collection.
// For a person at a terminal, `logFormat: pretty` formats the same lines with pino-pretty, a
// development dependency loaded only then: the production image logs JSON for collectors.
// Credentials never reach a log line: connection strings are redacted before logging, and
// the serialised error messages are scrubbed too (a driver error may quote the URI).
import { pino, stdSerializers, type Logger, type LevelWithSilent } from "pino";
import { redactUriPasswords } from "../config/mongodb-uri.js";
import { printableValue } from "../patterns/common/bson-value.js";

export type { Logger };

function serializeError(error: Error) {
  const plain = stdSerializers.err(error);
  const context = plain.context as Record<string, unknown> | undefined;
  return {
    ...plain,
    message: redactUriPasswords(plain.message),
    stack: plain.stack && redactUriPasswords(plain.stack),
    ...(context?.key === undefined ? {} : { context: { ...context, key: printableValue(context.key) } }),
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
      // Document keys are read verbatim (bson-value.ts): a Long would print as its bits, not
      // its number. Here and in an error's context.
      serializers: { err: serializeError, key: printableValue },
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

/**
 * JSON lines are written in batches: a correction logs a line, and one write(2) per line cost
 * the sidecar and whoever reads its output (the container runtime, a bench) a system call and a
 * wake-up each, at hundreds of corrections a second. A batch goes out once it holds
 * LOG_BATCH_BYTES, and at most LOG_FLUSH_MS after its first line, in one synchronous write, so
 * that lines leave in the order they were logged. What waits is written as the process exits
 * (a stop signal, an error, process.exit), and before the command line prints a failure; a
 * SIGKILL loses at most the last LOG_FLUSH_MS of lines.
 */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 100;

/** A destination that may hold lines back; flushSync writes them. */
export type LogDestination = pino.DestinationStream & { flushSync?(): void };

/** JSON lines on `fd`, in batches (above). */
export function batchedDestination(fd: number): LogDestination {
  const lines = pino.destination({ dest: fd, minLength: LOG_BATCH_BYTES, sync: true });
  let flushTimer: NodeJS.Timeout | undefined;
  // SonicBoom's flush writes synchronously in sync mode; its flushSync is not used, as it also
  // fsyncs a file and retries a broken pipe for ever.
  const flushSync = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    lines.flush();
  };
  process.once("exit", flushSync);
  return {
    write(line: string) {
      lines.write(line);
      flushTimer ??= setTimeout(flushSync, LOG_FLUSH_MS).unref();
    },
    flushSync,
  };
}

/** Where log lines go for `format`, on file descriptor `fd`: pretty if pino-pretty is installed, else JSON. */
export async function logDestination(format: LogFormat, fd: 1 | 2): Promise<LogDestination> {
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
  return batchedDestination(fd);
}
