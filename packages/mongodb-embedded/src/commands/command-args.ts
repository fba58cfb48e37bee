// Reading command fields. Numbers arrive as BSON wrappers (Int32, Double, Long) because the
// wire layer keeps their types; these functions accept any of them.
import type { Document } from "bson";
import { ServerError, ErrorCode } from "../errors.js";
import { bsonTypeOf, collatorFor, evaluateLetVariables } from "../query/index.js";
import type { CommandRequest } from "./command-context.js";

export function numberValue(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (value && typeof value === "object") {
    const tag = (value as { _bsontype?: string })._bsontype;
    if (tag === "Int32" || tag === "Double") return (value as { value: number }).value;
    if (tag === "Long") return (value as { toNumber(): number }).toNumber();
    if (tag === "Decimal128") return Number(String(value));
  }
  return undefined;
}

export function bigintValue(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (value && typeof value === "object" && (value as { _bsontype?: string })._bsontype === "Long") {
    return (value as { toBigInt(): bigint }).toBigInt();
  }
  const n = numberValue(value);
  return n === undefined ? undefined : BigInt(Math.trunc(n));
}

/** An optional non-negative integer option (batchSize, skip, limit, maxTimeMS). */
export function optionalCount(body: Document, field: string): number | undefined {
  const raw = body[field];
  if (raw === undefined || raw === null) return undefined;
  const n = numberValue(raw);
  if (n === undefined || !Number.isFinite(n)) {
    throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", `'${field}' must be a number`);
  }
  return Math.trunc(n);
}

export function optionalDocument(body: Document, field: string): Document | undefined {
  const raw = body[field];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", `'${field}' must be an object`);
  }
  return raw as Document;
}

export function truthy(value: unknown): boolean {
  const n = numberValue(value);
  return n !== undefined ? n !== 0 : value === true;
}

/** The collection a command names in its first field, e.g. `{ find: "trades" }`. */
export function targetCollection(request: CommandRequest): string {
  const name = request.body[request.name];
  if (typeof name !== "string" || name.length === 0) {
    throw new ServerError(
      ErrorCode.InvalidNamespace,
      "InvalidNamespace",
      `collection name has invalid type ${typeof name} in ${request.name}`,
    );
  }
  return name;
}

export function documentArray(body: Document, field: string): Document[] {
  const raw = body[field];
  if (!Array.isArray(raw)) {
    throw new ServerError(ErrorCode.TypeMismatch, "TypeMismatch", `'${field}' must be an array`);
  }
  return raw as Document[];
}

/**
 * For commands that do not compare strings under a collation (create's default collation,
 * for one): a collation is validated like mongod's, and accepted only when it is "simple".
 */
export function assertSimpleCollation(collation: unknown, field: string): void {
  if (collatorFor(collation, field) === undefined) return;
  throw new ServerError(
    ErrorCode.NotImplemented,
    "NotImplemented",
    `${field} ${JSON.stringify(collation)} is not supported by the embedded server (only 'simple')`,
  );
}

/** The command's `let` variables, validated and evaluated once (undefined without `let`). */
export function letVariables(request: CommandRequest): Document | undefined {
  const raw = request.body.let;
  if (raw === undefined) return undefined;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw) || bsonTypeOf(raw) !== "object") {
    throw new ServerError(
      ErrorCode.TypeMismatch,
      "TypeMismatch",
      `BSON field '${request.name}.let' is the wrong type '${bsonTypeOf(raw)}', expected type 'object'`,
    );
  }
  return evaluateLetVariables(raw as Document);
}
