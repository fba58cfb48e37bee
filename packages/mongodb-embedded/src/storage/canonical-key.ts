// A string key for a BSON value such that values MongoDB's equality treats as equal get the
// same key (1, 1.0, Long(1), Decimal128("1") all key to "n1"). It may merge a few values that
// are not equal (huge Longs beyond 2^53, for instance): callers re-check real equality, so a
// key only ever narrows the candidates, it never decides a match on its own.
import type { Binary, Decimal128, Long, ObjectId, Timestamp } from "bson";
import { fieldNames } from "@pattern-sidecar/bson-field-order";

export function canonicalKey(value: unknown): string {
  if (value === null || value === undefined) return "z";
  switch (typeof value) {
    case "number":
      return numberKey(value);
    case "bigint":
      return numberKey(Number(value));
    case "string":
      return `s${JSON.stringify(value)}`;
    case "boolean":
      return value ? "b1" : "b0";
    case "object":
      return objectKey(value);
    default:
      return `?${String(value)}`;
  }
}

function numberKey(n: number): string {
  if (Number.isNaN(n)) return "nNaN";
  return `n${n === 0 ? 0 : n}`;
}

function objectKey(value: object): string {
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(",")}]`;
  if (value instanceof Date) return `d${value.getTime()}`;
  if (value instanceof RegExp) return `r/${value.source}/${value.flags}`;
  const tag = (value as { _bsontype?: string })._bsontype;
  switch (tag) {
    case "Int32":
    case "Double":
      return numberKey((value as { value: number }).value);
    case "Long":
      return numberKey((value as Long).toNumber());
    case "Decimal128":
      return decimalKey(value as Decimal128);
    case "ObjectId":
      return `o${(value as ObjectId).toHexString()}`;
    case "Timestamp":
      return `t${(value as Timestamp).toString()}`;
    case "Binary":
      return `x${(value as Binary).sub_type}:${Buffer.from((value as Binary).buffer).toString("base64")}`;
    case "BSONRegExp":
      return `r/${(value as { pattern: string }).pattern}/${(value as { options: string }).options}`;
    case "MinKey":
      return "min";
    case "MaxKey":
      return "max";
    case undefined:
      break;
    default:
      return `${tag}:${JSON.stringify(value)}`;
  }
  const doc = value as Record<string, unknown>;
  const fields = fieldNames(doc).map((name) => `${JSON.stringify(name)}:${canonicalKey(doc[name])}`);
  return `{${fields.join(",")}}`;
}

function decimalKey(value: Decimal128): string {
  const n = Number(value.toString());
  return Number.isFinite(n) || Number.isNaN(n) ? numberKey(n) : `n${n}`;
}
