// $jsonSchema in a collection validator: the keywords below, checked when the validator is
// set, and the failures reported as mongod's errInfo reports them (schemaRulesNotSatisfied,
// src/mongo/db/matcher/doc_validation_error.cpp). Other keywords are refused (NotImplemented).
import type { Document } from "bson";
import { isNumeric, isPlainDocument, bsonTypeOf, toNumber } from "./bson-types.js";
import { valuesEqual } from "./bson-order.js";
import { queryError } from "./query-error.js";

type Failure = Document;

const IGNORED = new Set(["description", "title"]);
const KEYWORDS = new Set([
  "bsonType",
  "required",
  "properties",
  "additionalProperties",
  "minItems",
  "maxItems",
  "items",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "enum",
  ...IGNORED,
]);

/** Refuses a schema using a keyword this server does not check (mongod would check it). */
export function checkJsonSchema(schema: unknown): void {
  if (!isPlainDocument(schema)) throw queryError("TypeMismatch", "$jsonSchema must be an object");
  for (const [keyword, spec] of Object.entries(schema)) {
    if (!KEYWORDS.has(keyword))
      throw queryError("NotImplemented", `$jsonSchema keyword '${keyword}' is not supported`);
    if (keyword === "properties" && isPlainDocument(spec)) Object.values(spec).forEach(checkJsonSchema);
    if (keyword === "items") checkJsonSchema(spec);
  }
}

/** What `value` breaks of `schema`: mongod's schemaRulesNotSatisfied (empty when it holds). */
export function schemaFailures(schema: Document, value: unknown): Failure[] {
  const failures: Failure[] = [];
  for (const [keyword, spec] of Object.entries(schema)) {
    const failure = keywordFailure(schema, keyword, spec, value);
    if (failure) failures.push(failure);
  }
  return failures;
}

function keywordFailure(
  schema: Document,
  keyword: string,
  spec: unknown,
  value: unknown,
): Failure | undefined {
  const specifiedAs = { [keyword]: spec };
  switch (keyword) {
    case "bsonType":
      return typeMatches(spec, value)
        ? undefined
        : {
            operatorName: keyword,
            specifiedAs,
            reason: "type did not match",
            consideredValue: value,
            consideredType: bsonTypeOf(value),
          };
    case "required": {
      if (!isPlainDocument(value)) return undefined;
      const missing = (spec as string[]).filter((name) => !(name in value));
      return missing.length ? { operatorName: keyword, specifiedAs, missingProperties: missing } : undefined;
    }
    case "properties":
      return propertiesFailure(spec as Document, value);
    case "additionalProperties":
      return additionalFailure(schema, spec, value);
    case "minItems":
    case "maxItems":
      return Array.isArray(value) && !withinBound(keyword, value.length, spec)
        ? {
            operatorName: keyword,
            specifiedAs,
            reason: "array did not match specified length",
            consideredValue: value,
            numberOfItems: value.length,
          }
        : undefined;
    case "items":
      return itemsFailure(spec as Document, value);
    case "minimum":
    case "maximum":
      return isNumeric(value) && !withinBound(keyword, toNumber(value), spec)
        ? { operatorName: keyword, specifiedAs, reason: "comparison failed", consideredValue: value }
        : undefined;
    case "minLength":
    case "maxLength":
      return typeof value === "string" && !withinBound(keyword, [...value].length, spec)
        ? {
            operatorName: keyword,
            specifiedAs,
            reason: "specified string length was not satisfied",
            consideredValue: value,
          }
        : undefined;
    case "enum":
      return (spec as unknown[]).some((allowed) => valuesEqual(allowed, value))
        ? undefined
        : {
            operatorName: keyword,
            specifiedAs,
            reason: "value was not found in enum",
            consideredValue: value,
          };
    default:
      return undefined;
  }
}

const NUMBER_TYPES = new Set(["int", "long", "double", "decimal"]);

function typeMatches(spec: unknown, value: unknown): boolean {
  const type = bsonTypeOf(value);
  const names = Array.isArray(spec) ? (spec as string[]) : [spec as string];
  return names.some((name) => name === type || (name === "number" && NUMBER_TYPES.has(type)));
}

function withinBound(keyword: string, measured: number, bound: unknown): boolean {
  const limit = toNumber(bound);
  return keyword.startsWith("min") ? measured >= limit : measured <= limit;
}

function propertiesFailure(properties: Document, value: unknown): Failure | undefined {
  if (!isPlainDocument(value)) return undefined;
  const propertiesNotSatisfied = Object.entries(properties).flatMap(([name, schema]) => {
    if (!(name in value)) return [];
    const details = schemaFailures(schema as Document, value[name]);
    if (details.length === 0) return [];
    const description = (schema as Document).description;
    return [{ propertyName: name, ...(description !== undefined && { description }), details }];
  });
  return propertiesNotSatisfied.length ? { operatorName: "properties", propertiesNotSatisfied } : undefined;
}

function additionalFailure(schema: Document, spec: unknown, value: unknown): Failure | undefined {
  if (spec !== false || !isPlainDocument(value)) return undefined;
  const allowed = new Set(Object.keys((schema.properties as Document | undefined) ?? {}));
  const extra = Object.keys(value).filter((name) => !allowed.has(name));
  return extra.length
    ? {
        operatorName: "additionalProperties",
        specifiedAs: { additionalProperties: spec },
        additionalProperties: extra,
      }
    : undefined;
}

function itemsFailure(schema: Document, value: unknown): Failure | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const [itemIndex, item] of value.entries()) {
    const details = schemaFailures(schema, item);
    if (details.length)
      return {
        operatorName: "items",
        reason: "At least one item did not match the sub-schema",
        itemIndex,
        details,
      };
  }
  return undefined;
}
