// bulkWrite (MongoDB 8.0, on the admin database): inserts, updates and deletes on any
// collections, named by their index in `nsInfo`, in one command. Each op runs as the insert,
// update or delete command's statement would; ordered ops stop at the first error. Every op's
// result (only the errors with `errorsOnly`) comes back in a cursor's first batch, with the
// totals beside it. Statement-level `sort`, also new in 8.0, is refused: not emulated here.
import { Long, type Document } from "bson";
import { ErrorCode, ServerError } from "../errors.js";
import type { ServerState } from "../server-state.js";
import { enabledAt } from "../server-version.js";
import type { OperationScope } from "../sessions/operation-scope.js";
import type { CommandHandler, CommandRequest } from "./command-context.js";
import { writeScope } from "./session-handling.js";
import { documentArray, letVariables, numberValue, optionalDocument, truthy } from "./command-args.js";
import { runDeleteStatement } from "./delete.js";
import { insertDocument } from "./insert.js";
import { runUpdateStatement, updateStatementOf } from "./update.js";
import { toWriteError } from "./write-results.js";
import { runStatements } from "./write-statements.js";

interface Namespace {
  db: string;
  collection: string;
}

interface Totals {
  nErrors: number;
  nInserted: number;
  nMatched: number;
  nModified: number;
  nUpserted: number;
  nDeleted: number;
}

/** What one op did: its result entry (ok: 1) and its part of the totals. */
type OpOutcome = { result: Document; totals: Partial<Totals> };

interface OpContext {
  server: ServerState;
  scope: OperationScope;
  namespaces: Namespace[];
  variables: Document | undefined;
}

export const bulkWrite: CommandHandler = async (request, server) => {
  if (request.db !== "admin")
    throw new ServerError(13, "Unauthorized", "bulkWrite may only be run against the admin database.");
  if (!enabledAt(server.parameters.featureCompatibilityVersion, "bulkWrite")) {
    throw new ServerError(
      ErrorCode.CommandNotSupported,
      "CommandNotSupported",
      "BulkWrite may not be run without featureFlagBulkWriteCommand enabled",
    );
  }
  const ops = documentArray(request.body, "ops");
  const context: OpContext = {
    server,
    scope: writeScope(request, server),
    namespaces: documentArray(request.body, "nsInfo").map(parseNamespace),
    // A bad `let` fails the whole command, before any op runs.
    variables: letVariables(request),
  };
  const ordered = request.body.ordered !== false;
  const errorsOnly = truthy(request.body.errorsOnly);
  const totals: Totals = { nErrors: 0, nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0 };
  const results: Document[] = [];
  await runStatements(
    ops,
    ordered,
    async (op, idx) => {
      const outcome = await runOp(context, op);
      for (const [field, value] of Object.entries(outcome.totals)) totals[field as keyof Totals] += value;
      if (!errorsOnly) results.push({ ok: 1, idx: idx, ...outcome.result });
    },
    (idx, error) => {
      results.push(errorEntry(idx, error, request));
      totals.nErrors += 1;
    },
    request.killed,
  );
  return {
    cursor: { id: Long.fromNumber(0), firstBatch: results, ns: "admin.$cmd.bulkWrite" },
    ...totals,
    ok: 1,
  };
};

function parseNamespace(entry: Document): Namespace {
  const ns = entry.ns;
  const dot = typeof ns === "string" ? ns.indexOf(".") : -1;
  if (typeof ns !== "string" || dot <= 0 || dot === ns.length - 1)
    throw new ServerError(
      ErrorCode.InvalidNamespace,
      "InvalidNamespace",
      `Invalid namespace specified '${String(ns)}'`,
    );
  return { db: ns.slice(0, dot), collection: ns.slice(dot + 1) };
}

function runOp(context: OpContext, op: Document): Promise<OpOutcome> {
  if ("insert" in op) return insertOp(context, op);
  if ("update" in op) return updateOp(context, op);
  if ("delete" in op) return deleteOp(context, op);
  throw new ServerError(
    ErrorCode.FailedToParse,
    "FailedToParse",
    "bulkWrite op must be an insert, update or delete",
  );
}

/** The namespace an op names by its index into nsInfo. */
function namespaceOf(context: OpContext, index: unknown): Namespace {
  const position = numberValue(index);
  const namespace = position === undefined ? undefined : context.namespaces[position];
  if (!namespace)
    throw new ServerError(
      ErrorCode.BadValue,
      "BadValue",
      `BulkWrite ops entry refers to nsInfo index ${String(index)}, out of range`,
    );
  return namespace;
}

async function insertOp(context: OpContext, op: Document): Promise<OpOutcome> {
  const { db, collection } = namespaceOf(context, op.insert);
  const document = optionalDocument(op, "document");
  if (!document)
    throw new ServerError(ErrorCode.FailedToParse, "FailedToParse", "bulkWrite insert needs 'document'");
  await insertDocument(context.server, context.scope, db, collection, document);
  return { result: { n: 1 }, totals: { nInserted: 1 } };
}

async function updateOp(context: OpContext, op: Document): Promise<OpOutcome> {
  const { db, collection } = namespaceOf(context, op.update);
  const statement = updateStatementOf(
    op,
    {
      statement: "bulkWrite update",
      filter: "filter",
      update: "updateMods",
      collationField: "bulkWrite.ops.collation",
    },
    context.variables,
  );
  if (op.sort !== undefined)
    throw new ServerError(
      ErrorCode.BadValue,
      "BadValue",
      "the embedded server does not support an update's sort",
    );
  const outcome = await runUpdateStatement(context.server, context.scope, db, collection, statement);
  const upserted = outcome.upsertedId !== undefined;
  const result: Document = {
    n: outcome.matched + (upserted ? 1 : 0),
    nModified: outcome.modified,
    ...(upserted ? { upserted: { _id: outcome.upsertedId } } : {}),
  };
  return {
    result,
    totals: { nMatched: outcome.matched, nModified: outcome.modified, nUpserted: upserted ? 1 : 0 },
  };
}

async function deleteOp(context: OpContext, op: Document): Promise<OpOutcome> {
  const { db, collection } = namespaceOf(context, op.delete);
  const n = await runDeleteStatement(context.server, context.scope, db, collection, {
    filter: optionalDocument(op, "filter") ?? {},
    justOne: !truthy(op.multi),
    collation: op.collation,
    collationField: "bulkWrite.ops.collation",
    variables: context.variables,
  });
  return { result: { n }, totals: { nDeleted: n } };
}

/** A failed op's entry; errors that fail the whole command (a write conflict in a transaction) rethrow. */
function errorEntry(idx: number, error: unknown, request: CommandRequest): Document {
  const { index: _index, ...entry } = toWriteError(idx, error, request.transaction !== undefined);
  return { ok: 0, idx: idx, ...entry };
}
