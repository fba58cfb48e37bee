// update: matched documents are rewritten through the query module's applyUpdate; with upsert
// and no match, the new document starts from upsertSeed(q) and the update runs as an insert.
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import {
  applyLoggedUpdate,
  applyUpdate,
  collatorFor,
  isReplacement,
  upsertSeed,
  withIdAhead,
  type StringComparator,
} from "../query/index.js";
import type { OperationScope } from "../sessions/operation-scope.js";
import type { VisibleDocument } from "../storage/read-view.js";
import { sameBsonBytes } from "../storage/document-bytes.js";
import { assertUpdatedSize, assertValidId } from "../storage/document-limits.js";
import { documentKey, type StoredCollection } from "../storage/stored-collection.js";
import type { CommandHandler } from "./command-context.js";
import { writeScope } from "./session-handling.js";
import { documentArray, letVariables, optionalDocument, targetCollection, truthy } from "./command-args.js";
import { toWriteError, withIdFirst, writeReply, type WriteErrorEntry } from "./write-results.js";
import { onceEach, runStatements } from "./write-statements.js";
import type { ServerState } from "../server-state.js";

export interface UpdateStatement {
  q: Document;
  u: Document | Document[];
  upsert: boolean;
  multi: boolean;
  arrayFilters?: Document[];
  /** The statement's collation document, as sent (validated when the statement runs). */
  collation?: unknown;
  /** Where a bad collation is reported: "update.updates.collation", say. */
  collationField: string;
  /** The command's `let` variables: mongod gives every statement the command's. */
  variables?: Document;
}

export interface UpdateOutcome {
  matched: number;
  modified: number;
  upsertedId?: unknown;
  /** The documents before and after, in match order (findAndModify reports one of them). */
  before: Document[];
  after: Document[];
}

export const update: CommandHandler = async (request, server) => {
  const name = targetCollection(request);
  const statements = documentArray(request.body, "updates");
  const ordered = request.body.ordered !== false;
  const scope = writeScope(request, server);
  const writeErrors: WriteErrorEntry[] = [];
  const upserted: Document[] = [];
  let n = 0;
  let nModified = 0;
  // mongod parses the whole command first: a malformed statement fails it before any write.
  const variables = letVariables(request);
  const parsed = statements.map((raw) => parseStatement(raw, variables));
  await runStatements(
    parsed,
    ordered,
    async (statement, index) => {
      const updateOnce = async () => {
        const { matched, modified, upsertedId } = await runUpdateStatement(
          server,
          scope,
          request.db,
          name,
          statement,
        );
        return { matched, modified, upsertedId };
      };
      const wrote = (done: Document) => done.modified > 0 || done.upsertedId !== undefined;
      const outcome = await onceEach(request.executedStatements, index, updateOnce, wrote);
      n += outcome.matched;
      nModified += outcome.modified;
      if (outcome.upsertedId !== undefined) upserted.push({ index, _id: outcome.upsertedId });
    },
    (index, error) => writeErrors.push(toWriteError(index, error, request.transaction !== undefined)),
    request.killed,
  );
  return writeReply(n + upserted.length, writeErrors, {
    nModified,
    ...(upserted.length > 0 ? { upserted } : {}),
  });
};

function parseStatement(raw: Document, variables: Document | undefined): UpdateStatement {
  const statement = updateStatementOf(
    raw,
    { statement: "update statement", filter: "q", update: "u", collationField: "update.updates.collation" },
    variables,
  );
  // Statement-level sort arrived in 8.0; 7.0's parser rejects it as an unknown field.
  if (raw.sort !== undefined) {
    throw new ServerError(40415, "Location40415", "BSON field 'update.updates.sort' is an unknown field.");
  }
  return statement;
}

/**
 * An update statement from the fields a command names it by: the update command's `q` and
 * `u`, bulkWrite's `filter` and `updateMods`, with the command's `let` variables. A missing
 * update fails it, naming `statement`. (Built whole: adding `variables` to a spread copy gave
 * each statement hidden classes of its own on Node 20.)
 */
export function updateStatementOf(
  raw: Document,
  names: { statement: string; filter: string; update: string; collationField: string },
  variables: Document | undefined,
): UpdateStatement {
  const u = raw[names.update] as Document | Document[] | undefined;
  if (u === undefined || u === null || typeof u !== "object") {
    throw new ServerError(
      ErrorCode.FailedToParse,
      "FailedToParse",
      `${names.statement} needs '${names.update}', a document or pipeline`,
    );
  }
  return {
    q: optionalDocument(raw, names.filter) ?? {},
    u,
    upsert: truthy(raw.upsert),
    multi: truthy(raw.multi),
    arrayFilters: Array.isArray(raw.arrayFilters) ? (raw.arrayFilters as Document[]) : undefined,
    collation: raw.collation,
    collationField: names.collationField,
    variables,
  };
}

export async function runUpdateStatement(
  server: ServerState,
  scope: OperationScope,
  db: string,
  name: string,
  statement: UpdateStatement,
  pick: (matches: VisibleDocument[], strings?: StringComparator) => VisibleDocument[] = (m) => m,
): Promise<UpdateOutcome> {
  // An invalid collation fails its statement (a write error), as in mongod.
  const strings = collatorFor(statement.collation, statement.collationField);
  const existing = server.catalog.writableCollection(db, name);
  const select = () => {
    const matches = pick(scope.view.find(existing, statement.q, strings, statement.variables), strings);
    return statement.multi ? matches : matches.slice(0, 1);
  };
  return scope.whenUnlocked(existing, select, (matches) => {
    if (matches.length > 0) return updateMatches(scope, existing!, matches, statement, strings);
    if (!statement.upsert) return { matched: 0, modified: 0, before: [], after: [] };
    return upsertDocument(server, scope, db, name, statement, strings);
  });
}

function updateMatches(
  scope: OperationScope,
  collection: StoredCollection,
  matches: VisibleDocument[],
  statement: UpdateStatement,
  strings: StringComparator | undefined,
): UpdateOutcome {
  const outcome: UpdateOutcome = { matched: matches.length, modified: 0, before: [], after: [] };
  const { changes, failure } = planUpdates(matches, statement, strings, outcome);
  // Planned before any is written, so that a wait for a transaction's unique key writes none twice.
  scope.assertKeysFree(collection, changes);
  const operationType = isReplacement(statement.u) ? "replace" : "update";
  for (const { key, before, after, wholeValuePaths } of changes) {
    assertUpdatedSize(after);
    scope.write(collection, key, before, after, operationType, wholeValuePaths);
    outcome.modified += 1;
  }
  if (failure) throw failure.error;
  return outcome;
}

interface PlannedUpdate {
  key: string;
  before: Document;
  after: Document;
  wholeValuePaths: ReadonlySet<string>;
}

/**
 * The documents the update changes, up to the first it fails on (`failure`): mongod writes a
 * multi-update's documents one by one, so those before a failing one stay written.
 */
function planUpdates(
  matches: VisibleDocument[],
  statement: UpdateStatement,
  strings: StringComparator | undefined,
  outcome: UpdateOutcome,
): { changes: PlannedUpdate[]; failure?: { error: unknown } } {
  const changes: PlannedUpdate[] = [];
  for (const { key, doc } of matches) {
    let applied: ReturnType<typeof applyLoggedUpdate>;
    try {
      applied = applyLoggedUpdate(doc, statement.u, {
        isInsert: false,
        arrayFilters: statement.arrayFilters,
        filter: statement.q,
        strings,
        variables: statement.variables,
      });
    } catch (error) {
      return { changes, failure: { error } };
    }
    outcome.before.push(doc);
    outcome.after.push(applied.document);
    // mongod reports nModified 0 when the update leaves the document byte-for-byte unchanged.
    if (sameBsonBytes(doc, applied.document)) continue;
    changes.push({ key, before: doc, after: applied.document, wholeValuePaths: applied.wholeValuePaths });
  }
  return { changes };
}

function upsertDocument(
  server: ServerState,
  scope: OperationScope,
  db: string,
  name: string,
  statement: UpdateStatement,
  strings: StringComparator | undefined,
): UpdateOutcome {
  const seed = upsertSeed(statement.q);
  const updated = applyUpdate(seed, statement.u, {
    isInsert: true,
    arrayFilters: statement.arrayFilters,
    strings,
    variables: statement.variables,
  });
  const doc = withIdFirst(
    isReplacement(statement.u) && seed._id !== undefined && updated._id === undefined
      ? withIdAhead(seed._id, updated)
      : updated,
  );
  assertValidId(doc._id);
  assertUpdatedSize(doc);
  const collection: StoredCollection = server.collectionForWrite(db, name, scope.transaction);
  scope.write(collection, documentKey(doc._id), null, doc, "insert");
  return { matched: 0, modified: 0, upsertedId: doc._id, before: [], after: [doc] };
}
