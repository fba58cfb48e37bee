// Routes an operation to its handler by the type of the entity it names, resolving the `session`
// argument to the session entity first (format spec, "Special Handling for Arguments").
import type { Document } from "mongodb";
import type { EntityMap } from "../entity-map.js";
import { UnsupportedFeature } from "../outcomes.js";
import type { Operation } from "../test-file-types.js";
import { changeStreamOperations } from "./change-stream-operations.js";
import { clientOperations } from "./client-operations.js";
import { collectionOperations } from "./collection-operations.js";
import { checkArguments, type OperationContext, type OperationHandler } from "./context.js";
import { databaseOperations } from "./database-operations.js";
import { sessionOperations } from "./session-operations.js";
import { runTestRunnerOperation } from "./test-runner-operations.js";

export async function runOperation(operation: Operation, context: OperationContext): Promise<unknown> {
  const args = operation.arguments ?? {};
  if (operation.object === "testRunner") return runTestRunnerOperation(operation.name, args, context);
  const entity = context.entities.find(operation.object);
  switch (entity.kind) {
    case "collection":
      return runWith(collectionOperations, entity.collection, "collection", operation, context);
    case "database":
      return runWith(databaseOperations, entity.database, "database", operation, context);
    case "client":
      return runWith(clientOperations, entity.client, "client", operation, context);
    case "session":
      return runWith(sessionOperations, entity.session, "session", operation, context);
    case "changeStream":
      return runWith(changeStreamOperations, entity.stream, "change stream", operation, context);
    default:
      throw new Error(`entity ${operation.object} (${entity.kind}) has no operations`);
  }
}

async function runWith<Target>(
  handlers: Record<string, OperationHandler<Target>>,
  target: Target,
  kind: string,
  operation: Operation,
  context: OperationContext,
): Promise<unknown> {
  const handler = Object.hasOwn(handlers, operation.name) ? handlers[operation.name] : undefined;
  if (!handler) throw new UnsupportedFeature(`${kind} operation ${operation.name}`);
  const args = operation.arguments ?? {};
  checkArguments(operation.name, args, handler.args);
  return handler.run(target, withResolvedSession(args, context.entities), context);
}

function withResolvedSession(args: Document, entities: EntityMap): Document {
  if (args.session === undefined) return args;
  return { ...args, session: entities.get(String(args.session), "session").session };
}
