// pino, JSON, one logger for the process; child loggers carry the rule and collection.
// For a person at a terminal, `logFormat: pretty` formats the same lines with pino-pretty, a
// development dependency loaded only then: the production image logs JSON for collectors.
// Credentials never reach a log line: connection strings are redacted before logging, and
// the serialised error messages are scrubbed too (a driver error may quote the URI). Nor does
// a long value: an error's message and stack and a document key are cut (quoted-value.ts), so
// that a 5 MiB string in a document makes a line of a few KiB.
import { pino, stdSerializers, type Logger, type LevelWithSilent } from "pino";
import { redactUriPasswords } from "../config/mongodb-uri.js";
import { printableValue } from "../patterns/common/bson-value.js";
import { shortened } from "../patterns/common/quoted-value.js";

export type { Logger };

/** Bytes of an error's message, and of each line of its stack, kept in a log line. */
const MESSAGE_BYTES = 4096;
/** Bytes of a document key kept in a log line. */
const KEY_BYTES = 1024;
/** Bytes of an error's stack, its causes' included, kept in a log line. */
const STACK_BYTES = 16384;

function serializeError(error: Error) {
  const plain = stdSerializers.err(error);
  const context = plain.context as Record<string, unknown> | undefined;
  return {
    ...plain,
    message: shortened(redactUriPasswords(plain.message), MESSAGE_BYTES),
    stack: plain.stack && boundedStack(redactUriPasswords(plain.stack)),
    ...(context?.key === undefined ? {} : { context: { ...context, key: printableKey(context.key) } }),
  };
}

/** `stack` with each line (a message, a frame) cut, then as a whole: frames are short, messages need not be. */
function boundedStack(stack: string): string {
  const lines = stack.split("\n").map((line) => shortened(line, MESSAGE_BYTES));
  return shortened(lines.join("\n"), STACK_BYTES);
}

/**
 * A document key as logged: numbers by value (read verbatim, a Long would print as its bits),
 * and a long key (an _id may be a long string) cut, as JSON text.
 */
function printableKey(key: unknown): unknown {
  const printable = printableValue(key);
  if (typeof printable === "string") return shortened(printable, KEY_BYTES);
  const json = JSON.stringify(printable) ?? "";
  const cut = shortened(json, KEY_BYTES);
  return cut === json ? printable : cut;
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
      // Document keys are read verbatim (bson-value.ts), here and in an error's context.
      serializers: { err: serializeError, key: printableKey },
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
