// A collection's document validation: a `validator` of query operators, `validationLevel` and
// `validationAction`, and the errInfo of DocumentValidationFailure in the shape mongod builds
// (doc_validation_error.cpp; "Schema Validation" in the manual) for the operators below, and
// a top-level $jsonSchema (json-schema.ts).
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import { bsonTypeOf, isPlainDocument } from "./bson-types.js";
import { valueAtPath } from "./filter-path.js";
import { compileFilter, matchesFilter } from "./filter.js";
import { checkJsonSchema, schemaFailures } from "./json-schema.js";

const DOCUMENT_VALIDATION_FAILURE = 121;
const LEVELS = new Set(["off", "strict", "moderate"]);
const ACTIONS = new Set(["error", "warn"]);
export const VALIDATION_OPTIONS = ["validator", "validationLevel", "validationAction"] as const;

/** mongod's reason for a failed field operator; others get none. */
const REASONS: Record<string, string> = {
  $type: "type did not match",
  $eq: "comparison failed",
  $ne: "comparison failed",
  $gt: "comparison failed",
  $gte: "comparison failed",
  $lt: "comparison failed",
  $lte: "comparison failed",
  $in: "no matching value found in array",
  $nin: "matching value found in array",
  $regex: "regular expression did not match",
};

/** The validation options of a create or collMod, checked as mongod checks them before storing. */
export function validationOptions(body: Document): Document {
  const options: Document = {};
  for (const name of VALIDATION_OPTIONS) if (body[name] !== undefined) options[name] = body[name];
  if (options.validator !== undefined) {
    if (!isPlainDocument(options.validator))
      throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", "'validator' must be an object");
    const { $jsonSchema: schema, ...clauses } = options.validator as Document;
    if (schema !== undefined) checkJsonSchema(schema);
    compileFilter(clauses); // refuses what it cannot run ($where, ...)
  }
  if (options.validationLevel !== undefined && !LEVELS.has(options.validationLevel as string))
    throw badValue(
      `Enumeration value '${String(options.validationLevel)}' for field 'validationLevel' is not a valid value.`,
    );
  if (options.validationAction !== undefined && !ACTIONS.has(options.validationAction as string))
    throw badValue(
      `Enumeration value '${String(options.validationAction)}' for field 'validationAction' is not a valid value.`,
    );
  return options;
}

/**
 * Throws DocumentValidationFailure when `after` breaks the collection's validator and the
 * rules say to refuse it: not with validationAction "warn" (mongod only logs) or level "off",
 * and under "moderate" not for an update of a document that already broke them.
 */
export function assertValidDocument(options: Document, before: Document | null, after: Document): void {
  const validator = options.validator as Document | undefined;
  if (!validator || options.validationLevel === "off" || options.validationAction === "warn") return;
  if (matchesValidator(after, validator)) return;
  if (options.validationLevel === "moderate" && before && !matchesValidator(before, validator)) return;
  throw new ServerError(
    DOCUMENT_VALIDATION_FAILURE,
    "DocumentValidationFailure",
    "Document failed validation",
    {
      extra: { errInfo: { failingDocumentId: after._id, details: failureDetails(after, validator) } },
    },
  );
}

/** One clause as is, several as mongod's implicit `$and` with the clauses `doc` fails. */
function failureDetails(doc: Document, filter: Document): Document {
  const clauses = Object.entries(filter).flatMap(([key, spec]) => splitClause(key, spec));
  if (clauses.length === 1) return clauseDetails(doc, clauses[0]!);
  return { operatorName: "$and", clausesNotSatisfied: unsatisfied(doc, clauses) };
}

function unsatisfied(doc: Document, clauses: Document[]): Document[] {
  return clauses.flatMap((clause, index) =>
    matchesValidator(doc, clause) ? [] : [{ index, details: failureDetails(doc, clause) }],
  );
}

/** A validator's query clauses, and its top-level $jsonSchema (json-schema.ts). */
function matchesValidator(doc: Document, validator: Document): boolean {
  const { $jsonSchema: schema, ...clauses } = validator;
  if (schema !== undefined && schemaFailures(schema as Document, doc).length > 0) return false;
  return Object.keys(clauses).length === 0 || matchesFilter(doc, clauses);
}

/** `{x: {$gt: 1, $lt: 5}}` is two clauses to mongod's report, one per operator. */
function splitClause(key: string, spec: unknown): Document[] {
  if (key.startsWith("$") || !isPlainDocument(spec)) return [{ [key]: spec }];
  const operators = Object.keys(spec);
  if (operators.length === 0 || !operators.every((name) => name.startsWith("$"))) return [{ [key]: spec }];
  return operators.map((name) => ({ [key]: { [name]: spec[name] } }));
}

function clauseDetails(doc: Document, clause: Document): Document {
  const [key, spec] = Object.entries(clause)[0]!;
  if ((key === "$and" || key === "$or") && Array.isArray(spec))
    return { operatorName: key, clausesNotSatisfied: unsatisfied(doc, spec as Document[]) };
  if (key === "$jsonSchema")
    return { operatorName: key, schemaRulesNotSatisfied: schemaFailures(spec as Document, doc) };
  if (key === "$expr")
    return {
      operatorName: key,
      specifiedAs: clause,
      reason: "expression did not match",
      expressionResult: false,
    };
  if (key.startsWith("$")) return { operatorName: key, specifiedAs: clause };
  const operatorName = operatorOf(spec);
  const details: Document = { operatorName, specifiedAs: clause };
  const value = valueAtPath(doc, key);
  if (value === undefined && operatorName !== "$exists") return { ...details, reason: "field was missing" };
  if (operatorName === "$exists")
    return { ...details, reason: value === undefined ? "path does not exist" : "path does exist" };
  if (REASONS[operatorName]) details.reason = REASONS[operatorName];
  details.consideredValue = value;
  if (operatorName === "$type") details.consideredType = bsonTypeOf(value);
  return details;
}

/** The field's one operator; a plain value is an implicit `$eq`. */
function operatorOf(spec: unknown): string {
  if (!isPlainDocument(spec)) return "$eq";
  const [first] = Object.keys(spec);
  return first?.startsWith("$") ? first : "$eq";
}

function badValue(message: string): ServerError {
  return new ServerError(ErrorCode.BadValue, "BadValue", message);
}
