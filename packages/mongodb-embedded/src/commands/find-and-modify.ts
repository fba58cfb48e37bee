// findAndModify: one document, chosen by query and sort, updated, replaced or removed; the
// reply holds it (before, or after with `new: true`), projected by `fields`.
import type { Document } from "bson";
import { collatorFor, projectDocument, sortDocuments } from "../query/index.js";
import { ServerError, ErrorCode } from "../errors.js";
import type { CommandHandler } from "./command-context.js";
import { writeScope } from "./session-handling.js";
import { letVariables, optionalDocument, targetCollection, truthy } from "./command-args.js";
import { runUpdateStatement } from "./update.js";
import type { VisibleDocument } from "../storage/read-view.js";

export const findAndModify: CommandHandler = async (request, server) => {
  const body = request.body;
  const name = targetCollection(request);
  const query = optionalDocument(body, "query") ?? {};
  const sort = optionalDocument(body, "sort");
  const fields = optionalDocument(body, "fields");
  const remove = truthy(body.remove);
  const update = body.update as Document | Document[] | undefined;
  if (remove === (update !== undefined)) {
    throw new ServerError(
      ErrorCode.FailedToParse,
      "FailedToParse",
      "Either an update or remove=true must be specified",
    );
  }
  const strings = collatorFor(body.collation, "findAndModify.collation");
  const variables = letVariables(request);
  const scope = writeScope(request, server);
  const pickFirst = (matches: VisibleDocument[]) => {
    if (!sort || Object.keys(sort).length === 0 || matches.length < 2) return matches.slice(0, 1);
    const first = sortDocuments(
      matches.map((m) => m.doc),
      sort,
      strings,
    )[0];
    return matches.filter((m) => m.doc === first).slice(0, 1);
  };
  const project = (doc: Document | null) =>
    doc && fields && Object.keys(fields).length > 0 ? projectDocument(doc, fields, strings, variables) : doc;

  if (remove) {
    const collection = server.catalog.writableCollection(request.db, name);
    const select = () => pickFirst(scope.view.find(collection, query, strings, variables));
    const target = await scope.whenUnlocked(collection, select, ([found]) => {
      if (found) scope.write(collection!, found.key, found.doc, null, "delete");
      return found;
    });
    return { lastErrorObject: { n: target ? 1 : 0 }, value: project(target?.doc ?? null), ok: 1 };
  }

  const outcome = await runUpdateStatement(
    server,
    scope,
    request.db,
    name,
    {
      q: query,
      u: update!,
      upsert: truthy(body.upsert),
      multi: false,
      arrayFilters: Array.isArray(body.arrayFilters) ? (body.arrayFilters as Document[]) : undefined,
      collation: body.collation,
      collationField: `${request.name}.collation`,
      variables,
    },
    pickFirst,
  );
  const returnNew = truthy(body.new);
  const value =
    outcome.upsertedId !== undefined
      ? returnNew
        ? outcome.after[0]!
        : null
      : returnNew
        ? (outcome.after[0] ?? null)
        : (outcome.before[0] ?? null);
  const lastErrorObject: Document = {
    n: outcome.matched + (outcome.upsertedId !== undefined ? 1 : 0),
    updatedExisting: outcome.matched > 0,
  };
  if (outcome.upsertedId !== undefined) lastErrorObject.upserted = outcome.upsertedId;
  return { lastErrorObject, value: project(value), ok: 1 };
};
