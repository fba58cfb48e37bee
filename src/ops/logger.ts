// pino, JSON, one logger for the process. A line about a document carries its rule, collection
// and key as fields (targetFields, src/stream/events/targets.ts), errors through reportError.
// For a person at a terminal, `logFormat: pretty` formats the same lines with pino-pretty, a
// development dependency loaded only then: the production image logs JSON for collectors.
// Credentials never reach a log line: connection strings are redacted before logging, and
// the serialised error messages are scrubbed too (a driver error may quote the URI). Nor does
// a long value: an error's message and stack and a document key are cut (quoted-value.ts), so
// that a 5 MiB string in a document makes a line of a few KiB. And a line gives what a
// document holds once (it may be personal data): an error's message is not repeated in its
// stack, nor in the line's `reason`, nor in the server's reply.
import { MongoError } from "mongodb";
import { pino, stdSerializers, type Logger, type LevelWithSilent } from "pino";
import { redactUriPasswords } from "../config/mongodb-uri.js";
import { printableValue } from "../patterns/bson/bson-value.js";
import { shortened } from "../patterns/bson/quoted-value.js";

export type { Logger };

/** Bytes of an error's message, of each line of its stack, and of a `reason`, kept in a log line. */
const MESSAGE_BYTES = 4096;
/** Bytes of a document key, and of any other field of an error, kept in a log line. */
const KEY_BYTES = 1024;
/** Bytes of an error's stack, its causes' included, kept in a log line. */
const STACK_BYTES = 16384;

// Fields of a server's error that repeat what the line gives: its reply, whose fields the error
// carries too, and a duplicate key, which its message quotes. Its labels are given as a list.
const REPEATED_FIELDS = new Set(["errorResponse", "errorLabelSet", "keyValue"]);

/** Errors already serialised (by `withReasonOnce`), which the `err` serializer passes on. */
const serialized = new WeakSet<object>();

function serializeError(error: Error, { withoutMessage = false } = {}): object {
  const { type, message, stack, context, ...fields } = stdSerializers.err(error);
  const logged: Record<string, unknown> = { type };
  if (!withoutMessage) logged.message = shortened(redactUriPasswords(message), MESSAGE_BYTES);
  if (stack) logged.stack = boundedStack(redactUriPasswords(withoutHeader(stack, type)));
  for (const [name, value] of Object.entries(fields))
    if (!REPEATED_FIELDS.has(name)) logged[name] = boundedField(value);
  if (error instanceof MongoError && error.errorLabels.length > 0) logged.errorLabels = error.errorLabels;
  if (context !== undefined) logged.context = printableContext(context as Record<string, unknown>);
  serialized.add(logged);
  return logged;
}

function serializeErrorOnce(value: unknown): unknown {
  if (typeof value === "string") return shortened(redactUriPasswords(value), MESSAGE_BYTES);
  if (typeof value !== "object" || value === null || serialized.has(value)) return value;
  // Error-like, as pino's own serializer takes it: a message is what may quote a URI.
  return typeof (value as { message?: unknown }).message === "string"
    ? serializeError(value as Error)
    : value;
}

/**
 * A skipped document's line gives its `reason`; the error logged beside it, made from that
 * reason, then gives it no second time.
 */
function withReasonOnce(line: Record<string, unknown>): Record<string, unknown> {
  const { err, reason } = line;
  if (!(err instanceof Error) || typeof reason !== "string" || err.message !== reason) return line;
  return { ...line, err: serializeError(err, { withoutMessage: true }) };
}

/** `stack` with its first line, `Type: message`, as `Type` alone: the message is a field of its own. */
function withoutHeader(stack: string, type: string): string {
  const frames = stack.indexOf("\n    at ");
  return frames === -1 ? type : `${type}${stack.slice(frames)}`;
}

/** `stack` with each line (a frame, a cause's message) cut, then as a whole. */
function boundedStack(stack: string): string {
  const lines = stack.split("\n").map((line) => shortened(line, MESSAGE_BYTES));
  return shortened(lines.join("\n"), STACK_BYTES);
}

function printableContext(context: Record<string, unknown>): Record<string, unknown> {
  return context.key === undefined ? context : { ...context, key: printableKey(context.key) };
}

/**
 * A document key as logged: numbers by value (read verbatim, a Long would print as its bits),
 * and a long key (an _id may be a long string) cut, as JSON text.
 */
function printableKey(key: unknown): unknown {
  const printable = printableValue(key);
  return typeof printable === "string" ? shortened(printable, KEY_BYTES) : boundedField(printable);
}

/** An error's field as logged: as it is, or cut as JSON text if long (a server's errInfo may quote a document). */
function boundedField(value: unknown): unknown {
  if (typeof value === "string") return shortened(value, KEY_BYTES);
  if (typeof value !== "object" || value === null) return value;
  let json: string;
  try {
    json = JSON.stringify(value) ?? "";
  } catch {
    return value; // a cycle or a BigInt: pino's own stringify copes
  }
  const cut = shortened(json, KEY_BYTES);
  return cut === json ? value : cut;
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
      serializers: {
        err: serializeErrorOnce,
        key: printableKey,
        reason: (reason: unknown) => (typeof reason === "string" ? shortened(reason, MESSAGE_BYTES) : reason),
      },
      formatters: { log: withReasonOnce },
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
