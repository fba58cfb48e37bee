// What an operation handler can reach: the test's entities, the internal client, and the records
// the end of the test needs (fail points to switch off, whether a transaction was started).
import type { Document, MongoClient } from "mongodb";
import type { EntityMap } from "../entity-map.js";
import { UnsupportedFeature } from "../outcomes.js";
import type { Operation } from "../test-file-types.js";

export interface OperationContext {
  entities: EntityMap;
  internalClient: MongoClient;
  uri: string;
  /** configureFailPoint names enabled during the test, switched off after it. */
  failPoints: string[];
  startedTransaction: boolean;
  /** Runs nested operations (withTransaction's callback), letting their errors propagate. */
  runCallbackOperations(operations: Operation[]): Promise<void>;
}

export interface OperationHandler<Target> {
  /** Arguments the handler understands besides `session`; any other is an unsupported feature. */
  args: string[];
  run(target: Target, args: Document, context: OperationContext): Promise<unknown>;
}

/** Rejects arguments a handler does not know (format spec: "MUST raise an error for an unsupported argument"). */
export function checkArguments(operationName: string, args: Document, allowed: string[]): void {
  const unknown = Object.keys(args).find((key) => key !== "session" && !allowed.includes(key));
  if (unknown) throw new UnsupportedFeature(`argument ${unknown} of ${operationName}`);
}

/** Splits the named positional arguments from the rest, which are the driver call's options. */
export function withoutKeys(args: Document, ...keys: string[]): Document {
  return Object.fromEntries(Object.entries(args).filter(([key]) => !keys.includes(key)));
}
