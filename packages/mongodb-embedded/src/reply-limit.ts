// The largest document mongod returns: BSONObjMaxInternalSize, 16 MiB + 16 KiB (the 16 MiB of
// a stored document plus room for a reply's envelope). A larger one fails its command with
// BSONObjectTooLarge (mongo src/mongo/bson/bsonobj.h, DefaultSizeTrait), the server staying up.
import { ErrorCode, ServerError } from "./errors.js";

export const MAX_INTERNAL_BSON_BYTES = 16 * 1024 * 1024 + 16 * 1024;

/**
 * A batch's documents, with their array elements' framing, are cut at 16 MiB, as mongod cuts
 * a batch at BSONObjMaxUserSize (mongo src/mongo/db/query/find_common.cpp): the reply's
 * envelope then fits in MAX_INTERNAL_BSON_BYTES. The first document always goes.
 */
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/** What the `index`-th document of a batch takes in it: its size, type byte, index name and NUL. */
export function batchElementBytes(index: number, size: number): number {
  return size + 2 + String(index).length;
}

/** mongod's error for a document of `size` bytes over the limit, naming its first field. */
export function objectTooLarge(size: number, doc: Record<string, unknown>): ServerError {
  return new ServerError(
    ErrorCode.BSONObjectTooLarge,
    "BSONObjectTooLarge",
    `BSONObj size: ${size} (0x${size.toString(16).toUpperCase()}) is invalid. ` +
      `Size must be between 0 and ${MAX_INTERNAL_BSON_BYTES}(16MB) First element: ${firstElement(doc)}`,
  );
}

/** The first field as mongod's message shows it, without rendering megabytes of it. */
function firstElement(doc: Record<string, unknown>): string {
  const key = Object.keys(doc)[0];
  if (key === undefined) return "EOO";
  const value = doc[key];
  const shown =
    value === null || ["number", "boolean", "bigint"].includes(typeof value)
      ? String(value)
      : typeof value === "string" && value.length <= 64
        ? JSON.stringify(value)
        : "...";
  return `${key}: ${shown}`;
}
