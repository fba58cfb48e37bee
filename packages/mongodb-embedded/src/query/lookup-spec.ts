// A $lookup stage's specification, checked as mongod 7.0 checks it when it parses the stage
// (codes and messages of DocumentSourceLookUp's parser), so that a bad spec fails the same
// way whichever engine would have run the join.
import type { Document } from "bson";
import { ServerError } from "../errors.js";
import { bsonTypeOf, isPlainDocument } from "./bson-types.js";
import { queryError } from "./query-error.js";

export interface LookupSpec {
  /** Absent for a collection-less sub-pipeline starting with $documents. */
  from?: string;
  as: string;
  localField?: string;
  foreignField?: string;
  let?: Document;
  pipeline?: Document[];
}

/** Stages a sub-pipeline may not hold (mongod's isAllowedInLookupPipeline). */
const NOT_IN_SUB_PIPELINE = new Set(["$out", "$merge", "$changeStream"]);

const STRING_ARGUMENTS = new Set(["as", "localField", "foreignField"]);

export function parseLookupSpec(spec: unknown): LookupSpec {
  if (!isPlainDocument(spec))
    throw failedToParse(`the $lookup stage specification must be an object, but found ${bsonTypeOf(spec)}`);
  const parsed: Partial<LookupSpec> = {};
  for (const [name, value] of Object.entries(spec)) readArgument(parsed, name, value);
  return checkCombination(parsed, "pipeline" in spec, "let" in spec);
}

function readArgument(parsed: Partial<LookupSpec>, name: string, value: unknown): void {
  if (name === "pipeline") parsed.pipeline = subPipeline(value);
  else if (name === "let") {
    if (!isPlainDocument(value))
      throw failedToParse(`$lookup argument 'let' must be an object, is type ${bsonTypeOf(value)}`);
    parsed.let = value;
  } else if (name === "from") {
    if (typeof value !== "string")
      throw failedToParse(`$lookup 'from' field must be a string, but found ${bsonTypeOf(value)}`);
    parsed.from = value;
  } else if (STRING_ARGUMENTS.has(name)) {
    if (typeof value !== "string")
      throw failedToParse(`$lookup argument '${name}' must be a string, found ${bsonTypeOf(value)}`);
    if (value !== "") parsed[name as "as" | "localField" | "foreignField"] = assertFieldPath(value);
  } else throw failedToParse(`unknown argument to $lookup: ${name}`);
}

function checkCombination(parsed: Partial<LookupSpec>, hasPipeline: boolean, hasLet: boolean): LookupSpec {
  if (parsed.from === undefined) assertCollectionless(parsed.pipeline, hasPipeline);
  if (parsed.as === undefined) throw failedToParse("must specify 'as' field for a $lookup");
  const local = parsed.localField !== undefined;
  const foreign = parsed.foreignField !== undefined;
  if (hasPipeline && local !== foreign)
    throw failedToParse(
      "$lookup requires both or neither of 'localField' and 'foreignField' to be specified",
    );
  if (!hasPipeline && !(local && foreign))
    throw failedToParse(
      "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified",
    );
  if (!hasPipeline && hasLet)
    throw failedToParse("$lookup with a 'let' argument must also specify 'pipeline'");
  return parsed as LookupSpec;
}

function subPipeline(value: unknown): Document[] {
  if (!Array.isArray(value))
    throw queryError("TypeMismatch", "'pipeline' option must be specified as an array");
  for (const stage of value) {
    if (!isPlainDocument(stage))
      throw queryError("TypeMismatch", "Each element of the 'pipeline' array must be an object");
    const [name] = Object.keys(stage);
    if (name !== undefined && NOT_IN_SUB_PIPELINE.has(name))
      throw new ServerError(51047, "Location51047", `${name} is not allowed within a $lookup's sub-pipeline`);
    if (name === "$lookup") parseLookupSpec(stage.$lookup);
  }
  return value as Document[];
}

function assertCollectionless(pipeline: Document[] | undefined, hasPipeline: boolean): void {
  if (!hasPipeline) throw failedToParse("must specify 'pipeline' when 'from' is empty");
  if (pipeline?.[0] === undefined || !("$documents" in pipeline[0]))
    throw failedToParse(
      "$lookup stage without explicit collection must have a pipeline with $documents as first stage",
    );
}

/** mongod's FieldPath rules for as, localField and foreignField. */
function assertFieldPath(path: string): string {
  for (const part of path.split(".")) {
    if (part === "")
      throw new ServerError(15998, "Location15998", "FieldPath field names may not be empty strings.");
    if (part.startsWith("$"))
      throw new ServerError(16410, "Location16410", "FieldPath field names may not start with '$'.");
  }
  return path;
}

function failedToParse(message: string): ServerError {
  return queryError("FailedToParse", message);
}
