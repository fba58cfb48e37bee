// The one way an error the sidecar gets past is reported: classified (src/errors.ts), counted
// in errors_total by its kind, and logged with that kind and the context the caller knows.
import { classify, toError, type ErrorKind } from "../errors.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

export interface ErrorSink {
  metrics: Pick<Metrics, "errors">;
  logger: Logger;
}

export interface ErrorLine {
  /** `debug` for an error met while stopping, which says nothing an operator must act on. */
  level?: "debug" | "warn" | "error";
  /** What the caller knows: a target's fields (targetFields), a collection, an attempt. */
  fields?: Record<string, unknown>;
}

/** Classifies, counts and logs `thrown`; returns its kind for the caller's next step. */
export function reportError(
  sink: ErrorSink,
  thrown: unknown,
  message: string,
  line: ErrorLine = {},
): ErrorKind {
  const kind = classify(thrown);
  sink.metrics.errors.inc({ kind });
  sink.logger[line.level ?? "warn"]({ err: toError(thrown), kind, ...line.fields }, message);
  return kind;
}
