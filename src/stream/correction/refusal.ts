// What a refused write says, for the skip's reason and log line (docs/semantics.md,
// "Documents the sidecar will not correct"): the write the server refused, and the rules of
// a validator it broke where the server's errInfo names them (MongoDB 7.0 and earlier: the
// driver's client bulkWrite of 8.0 keeps only the code and message of a write error).
import { MongoServerError, type Document } from "mongodb";
import { printedKey } from "../../patterns/bson/bson-value.js";
import { shortened } from "../../patterns/bson/quoted-value.js";
import type { Write } from "../../patterns/plan.js";

/** Bytes of a refusal's reason: a validator's failed rules quote the values they considered. */
const REASON_BYTES = 1024;

/** A refused write's error, its message naming the write: `<message> (insertOne on extra_sales, _id {...})`. */
export function refusedWrite(refusal: Document, write: Write | undefined): MongoServerError {
  const named = write ? `${String(refusal.errmsg ?? refusal.message)} (${describeWrite(write)})` : undefined;
  return new MongoServerError({ ...refusal, ...(named && { errmsg: named, message: named }) });
}

function describeWrite(write: Write): string {
  const id: unknown = write.op === "insertOne" ? write.document._id : write.filter._id;
  return `${write.op} on ${write.collection}, _id ${printedKey(id)}`;
}

/** The error's message, and the validator rules it names (errInfo), cut short. */
export function refusalReason(error: Error): string {
  const details =
    error instanceof MongoServerError ? (error.errInfo?.details as Document | undefined) : undefined;
  const rules = details ? unsatisfiedRules(details, "") : [];
  const reason = rules.length ? `${error.message}: ${rules.join("; ")}` : error.message;
  return shortened(reason, REASON_BYTES);
}

/** mongod's errInfo.details (doc_validation_error.cpp) as `path: {rule} (reason)` lines. */
function unsatisfiedRules(details: Document, path: string): string[] {
  const nested = (list: unknown, at: (item: Document) => [Document[], string]): string[] =>
    Array.isArray(list)
      ? (list as Document[]).flatMap((item) => {
          const [children, childPath] = at(item);
          return children.flatMap((child) => unsatisfiedRules(child, childPath));
        })
      : [];
  if (details.schemaRulesNotSatisfied)
    return nested(details.schemaRulesNotSatisfied, (rule) => [[rule], path]);
  if (details.clausesNotSatisfied)
    return nested(details.clausesNotSatisfied, (clause) => [[clause.details as Document], path]);
  if (details.propertiesNotSatisfied)
    return nested(details.propertiesNotSatisfied, (property) => [
      property.details as Document[],
      path ? `${path}.${String(property.propertyName)}` : String(property.propertyName),
    ]);
  if (Array.isArray(details.details))
    return nested([details], (items) => [items.details as Document[], `${path}.${String(items.itemIndex)}`]);
  const rule = details.specifiedAs ? JSON.stringify(details.specifiedAs) : String(details.operatorName);
  const why =
    details.reason ??
    (details.missingProperties ? `missing ${JSON.stringify(details.missingProperties)}` : undefined);
  return [`${path ? `${path}: ` : ""}${rule}${why ? ` (${String(why)})` : ""}`];
}
