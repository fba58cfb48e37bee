// Which partition a correction's key falls in: MongoDB's own hashed-index hash of the key
// (what `$toHashedIndexKey` computes server-side), so that a change stream's `$match` can
// keep a replica's partitions on the server. docs/semantics.md, "Partitions".
import { createHash } from "node:crypto";
import { BSON } from "mongodb";
import { SidecarError } from "../../errors.js";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * mongod's canonical BSON type order (BSONElement::canonicalType, src/mongo/bson/bsontypes.cpp),
 * for the types a partition key may have: numbers hash alike whatever their width.
 */
const CANONICAL_TYPE = { null: 5, number: 10, string: 15, objectId: 35, bool: 40, date: 45 } as const;

/** Thrown for a key the hash does not cover (documents, arrays, binaries ...). */
export class UnhashableKeyError extends SidecarError {}

/**
 * The 64-bit hash mongod gives `value` in a hashed index (BSONElementHasher::hash64 with seed 0,
 * src/mongo/db/hasher.cpp): the first 8 bytes, little-endian, of the MD5 of the seed, the
 * value's canonical type and its bytes, a number squashed to an int64 first.
 */
export function hashedIndexKey(value: unknown): bigint {
  const [type, bytes] = typedBytes(value);
  const seedAndType = Buffer.alloc(8);
  seedAndType.writeInt32LE(type, 4);
  return createHash("md5").update(seedAndType).update(bytes).digest().readBigInt64LE(0);
}

/** The partition of `value` among `partitions`: the hash modulo the count, never negative. */
export function partitionOf(value: unknown, partitions: number): number {
  const count = BigInt(partitions);
  return Number(((hashedIndexKey(value) % count) + count) % count);
}

function typedBytes(value: unknown): [type: number, bytes: Uint8Array] {
  const asLong = numberForHash(value);
  if (asLong !== undefined) {
    const bytes = Buffer.alloc(8);
    bytes.writeBigInt64LE(asLong);
    return [CANONICAL_TYPE.number, bytes];
  }
  const type = canonicalTypeOf(value);
  if (type === undefined)
    throw new UnhashableKeyError(
      "a partition key must be a number, a string, an ObjectId, a boolean or a date",
      {
        key: BSON.EJSON.stringify(value, { relaxed: false }),
      },
    );
  return [type, valueBytes(value ?? null)];
}

function canonicalTypeOf(value: unknown): number | undefined {
  if (value === null || value === undefined) return CANONICAL_TYPE.null;
  if (typeof value === "string") return CANONICAL_TYPE.string;
  if (typeof value === "boolean") return CANONICAL_TYPE.bool;
  if (value instanceof Date) return CANONICAL_TYPE.date;
  return bsonTypeOf(value) === "ObjectId" ? CANONICAL_TYPE.objectId : undefined;
}

/**
 * A BSON element's value bytes, as BSON encodes them (a string with its length and NUL): those
 * of `{ v: value }` between the element's type and name (3 bytes after the document's length)
 * and the document's terminating NUL.
 */
function valueBytes(value: unknown): Uint8Array {
  const document = BSON.serialize({ v: value });
  return document.subarray(4 + 3, document.length - 1);
}

/**
 * A number as mongod hashes it (safeNumberLongForHash): an integer as itself; a double cut
 * towards zero, NaN as 0, and past the int64 range clamped to it.
 */
function numberForHash(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value < INT64_MIN ? INT64_MIN : value > INT64_MAX ? INT64_MAX : value;
  if (typeof value === "number") return doubleForHash(value);
  switch (bsonTypeOf(value)) {
    case "Long":
      return (value as BSON.Long).toBigInt();
    case "Int32":
    case "Double":
      return doubleForHash((value as BSON.Double).value);
    case "Decimal128":
      // Through a double: exact for the integers a key holds, which is all a partition needs.
      return doubleForHash(Number(String(value)));
  }
  return undefined;
}

/** The `_bsontype` of a driver's BSON value, whichever copy of the bson package made it. */
function bsonTypeOf(value: unknown): string | undefined {
  const tag = (value as { _bsontype?: unknown } | null)?._bsontype;
  return typeof value === "object" && typeof tag === "string" ? tag : undefined;
}

function doubleForHash(value: number): bigint {
  if (Number.isNaN(value)) return 0n;
  if (value >= 2 ** 63) return INT64_MAX;
  if (value < -(2 ** 63)) return INT64_MIN;
  return BigInt(Math.trunc(value));
}
